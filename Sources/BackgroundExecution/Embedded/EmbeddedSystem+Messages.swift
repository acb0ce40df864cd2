import BackgroundCore
import BackgroundProtocol

extension EmbeddedSystem.State {
    /// Hands an event to the core and takes its answer into the buffer; with
    /// ``EmbeddedSystem/Configuration/encodesMessages`` both cross the encoding boundary a
    /// transport to another process would: the event as an ``AppMessage``, the reply and the
    /// effects as a ``SystemMessage``, each as bytes decoded on the other side.
    mutating func exchange(_ event: Event, at now: Instant) throws(BackgroundSystemError) -> Reply? {
        guard encodesMessages else { return try core.handle(event, at: now, into: &buffer) }
        guard case .event(let received) = Self.cross(AppMessage.event(event)) else { return nil }
        let reply = try core.handle(received, at: now, into: &buffer)
        guard case .answer(let answered, let effects) = Self.cross(SystemMessage.answer(reply, buffer)) else {
            return nil
        }
        buffer = effects
        return answered
    }

    /// The message after a trip through its bytes; one that does not survive the trip is a fault.
    private static func cross<Message: Codable & Equatable>(_ message: Message) -> Message? {
        do {
            let bytes = try ProtocolCodec.encode(message)
            let decoded = try ProtocolCodec.decode(Message.self, from: bytes)
            if decoded == message { return decoded }
            BackgroundFault.raise(
                BackgroundFault(api: "BackgroundProtocol", message: "\(message) came back as \(decoded)")
            )
        } catch {
            BackgroundFault.raise(BackgroundFault(api: "BackgroundProtocol", message: "\(message): \(error)"))
        }
        return nil
    }
}
