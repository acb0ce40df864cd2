public import Foundation

/// A command sent to a running app's embedded system from outside, by `bgctl`.
///
/// The debugger hooks of iOS (`_simulateLaunchForTaskWithIdentifier:`) need a debugger
/// attached to the app; here `bgctl` sends the command, as one JSON ``ControlFrame``, to the
/// app's control socket (see `EmbeddedSystem.acceptDebugCommands(in:)`). Requests come from
/// another process, so they are bounded and validated.
public struct DebugCommand: Codable, Sendable, Hashable {
    /// What to do.
    public enum Action: String, Codable, Sendable, Hashable {
        /// Explain one pending request, or every one when no identifier is given.
        case why
        /// List pending and running tasks.
        case status
        /// Run a pending request now (`_simulateLaunchForTaskWithIdentifier:`).
        case simulateLaunch
        /// Expire a running task now (`_simulateExpirationForTaskWithIdentifier:`).
        case simulateExpiration
        /// `why --history`: the explanation with each identifier's recent runs and waits, the
        /// what-ifs and the likely range, for one identifier or every pending or recorded one.
        case whyWithHistory
        /// Deliver a silent push (``payload``) as APNs would: the app's
        /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`, within the
        /// silent-push budget (`bgctl push`).
        case push
    }

    /// The action.
    public var action: Action
    /// The task identifier, where the action takes one.
    public var identifier: String?
    /// Whether the answer should also carry a JSON document (``DebugReply/document``), for
    /// `status` and `why`; absent means text only.
    public var json: Bool?
    /// For ``Action/push``: the push's JSON payload (checked by ``RemoteNotificationPayload``).
    public var payload: String?

    /// Creates a command.
    public init(action: Action, identifier: String? = nil, json: Bool = false, payload: String? = nil) {
        self.action = action
        self.identifier = identifier
        self.json = json ? true : nil
        self.payload = payload
    }

    /// The largest request accepted, in bytes: room for a push payload of
    /// ``RemoteNotificationPayload/maximumSize`` bytes even when every byte is escaped in the
    /// request's JSON (`\u0001` is six bytes).
    public static let maximumRequestSize = 32_768
    /// The longest identifier accepted.
    public static let maximumIdentifierLength = 256

    /// Decodes and validates a request from another process.
    ///
    /// - Throws: ``DebugCommandError`` naming the problem.
    public static func decode(_ data: Data) throws(DebugCommandError) -> DebugCommand {
        guard data.count <= maximumRequestSize else {
            throw DebugCommandError("request of \(data.count) bytes is larger than \(maximumRequestSize)")
        }
        let command: DebugCommand
        do {
            command = try JSONDecoder().decode(DebugCommand.self, from: data)
        } catch {
            throw DebugCommandError("request is not a valid command: \(error)")
        }
        if let identifier = command.identifier {
            guard !identifier.isEmpty, identifier.count <= maximumIdentifierLength else {
                throw DebugCommandError("identifier must be 1 to \(maximumIdentifierLength) characters")
            }
        }
        if command.action == .simulateLaunch || command.action == .simulateExpiration, command.identifier == nil {
            throw DebugCommandError("\(command.action.rawValue) needs a task identifier")
        }
        if command.action == .push, command.payload == nil {
            throw DebugCommandError("push needs a payload")
        }
        return command
    }
}

/// A debug command that could not be accepted.
public struct DebugCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
