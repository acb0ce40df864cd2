public import BackgroundCore

/// What an app's runtime sends the system across a process boundary.
public enum AppMessage: Sendable, Hashable, Codable {
    /// An app call or a callback's return, as the core's event.
    case event(Event)
}

/// What the system sends an app's runtime.
public enum SystemMessage: Sendable, Hashable, Codable {
    /// The answer to the last ``AppMessage/event(_:)``: its reply and the effects addressed to
    /// the app, in order.
    case answer(Reply?, [Effect])
    /// Effects the system decided on its own (a deadline, another app's action), in order.
    case pushed([Effect])
    /// The app's grant state changed (lifecycle, budget, incarnation); sent before any other
    /// message about the change.
    case state(GrantState)
}

/// The protocol's byte form: 4 magic bytes (`BGX` and the version), then one ``WireValue``.
///
/// Version 1. A reader refuses another version, bytes that are not a message, and anything over
/// its ``WireLimits`` with a ``WireError``; on a stream socket each message is one frame
/// (``Frame``, ``FrameDecoder``).
public enum ProtocolCodec {
    /// The version this code speaks.
    public static let version: UInt8 = 1
    static let magic: [UInt8] = [0x42, 0x47, 0x58]  // "BGX"

    /// A message's bytes.
    public static func encode<Message: Encodable>(_ message: Message) throws -> [UInt8] {
        var bytes = magic + [version]
        try WireEncoder().encode(message).write(into: &bytes)
        return bytes
    }

    /// The message in `bytes`, checked against `limits`.
    public static func decode<Message: Decodable>(
        _ type: Message.Type,
        from bytes: [UInt8],
        limits: WireLimits = .standard
    ) throws -> Message {
        guard bytes.count >= 4, Array(bytes[0..<3]) == magic else { throw WireError.notAMessage }
        guard bytes[3] == version else { throw WireError.unsupportedVersion(bytes[3]) }
        let value = try WireValue.read(Array(bytes[4...]), limits: limits)
        do {
            return try WireDecoder().decode(type, from: value)
        } catch {
            throw WireError.shape("\(error)")
        }
    }
}
