/// One background transfer's identity: the app, its session's identifier, the task's identifier.
///
/// Ordered by app, session, then task, so that every list of transfers the core hands out has
/// one order in every process.
public struct TransferKey: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The app.
    public var app: AppID
    /// The background session's identifier.
    public var session: String
    /// The task's identifier within the session.
    public var task: Int

    /// Creates a key.
    public init(app: AppID, session: String, task: Int) {
        self.app = app
        self.session = session
        self.task = task
    }

    public static func < (lhs: TransferKey, rhs: TransferKey) -> Bool {
        (lhs.app, lhs.session, lhs.task) < (rhs.app, rhs.session, rhs.task)
    }

    /// `<session>#<task>`: how `bgctl why` names a transfer.
    public var identifier: String { "\(session)#\(task)" }

    public var description: String { "\(app) \(identifier)" }
}
