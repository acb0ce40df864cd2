/// The framing of the control channel, shared by both ends: a 4-byte big-endian length, then
/// that many bytes of payload (a JSON ``DebugCommand`` or ``DebugReply``).
///
/// Pure: no I/O. The length is checked against the receiver's limit before any payload is read,
/// so a peer cannot make the other side allocate more than it chose to accept.
///
/// ```swift
/// let frame = ControlFrame.encode(Array(#"{"action":"status"}"#.utf8))
/// let length = try ControlFrame.payloadLength(header: frame.prefix(4), limit: 4096)   // 19
/// ```
public enum ControlFrame {
    /// The protocol version this framing and its messages belong to.
    public static let version = 1
    /// The size of the length header, in bytes.
    public static let headerSize = 4

    /// A frame carrying `payload`.
    public static func encode(_ payload: some Collection<UInt8>) -> [UInt8] {
        let length = UInt32(payload.count)
        return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) } + payload
    }

    /// The payload length a header announces.
    ///
    /// - Throws: ``ControlFrameError`` if the header is not 4 bytes or announces more than
    ///   `limit` bytes.
    public static func payloadLength(header: some Collection<UInt8>, limit: Int) throws(ControlFrameError) -> Int {
        guard header.count == headerSize else {
            throw ControlFrameError("a frame header has \(headerSize) bytes, not \(header.count)")
        }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= limit else {
            throw ControlFrameError("a frame of \(length) bytes is larger than the \(limit) allowed")
        }
        return length
    }
}

/// A frame that breaks the control channel's rules.
public struct ControlFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
