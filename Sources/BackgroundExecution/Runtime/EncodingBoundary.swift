import BackgroundCore
import BackgroundProtocol
import Foundation

/// The encoding test transport's boundary: an app's event, and the system's answer, after a trip
/// through the bytes a socket to another process would carry (``AppMessage``, ``SystemMessage``,
/// ``ProtocolCodec``).
///
/// The embedded system and the simulator send everything across it when asked to
/// (`EmbeddedSystem.Configuration.encodesMessages`, `Simulator.Configuration.encodesMessages`,
/// or `BACKGROUND_ENCODE_MESSAGES=1`), so the behaviour tests prove that nothing the runtime and
/// the core say to each other needs to share memory. A message that does not come back equal is
/// a fault.
package enum EncodingBoundary {
    /// Whether the environment asks every system of this process to encode its messages
    /// (`BACKGROUND_ENCODE_MESSAGES=1`).
    package static let requestedByEnvironment = ProcessInfo.processInfo.environment["BACKGROUND_ENCODE_MESSAGES"] == "1"

    /// The event as the system receives it from the app's runtime.
    package static func cross(_ event: Event) -> Event? {
        guard case .event(let received) = cross(AppMessage.event(event)) else { return nil }
        return received
    }

    /// The answer as the app's runtime receives it from the system.
    package static func cross(reply: Reply?, effects: [Effect]) -> (reply: Reply?, effects: [Effect])? {
        guard case .answer(let reply, let effects) = cross(SystemMessage.answer(reply, effects)) else { return nil }
        return (reply, effects)
    }

    /// The grant state as the app's runtime receives it when the system pushes it.
    package static func cross(_ state: GrantState) -> GrantState? {
        guard case .state(let received) = cross(SystemMessage.state(state)) else { return nil }
        return received
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
