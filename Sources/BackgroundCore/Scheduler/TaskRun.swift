/// The number of one task run, unique within a system, increasing from 1.
public struct TaskRunID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static func < (lhs: TaskRunID, rhs: TaskRunID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "run \(rawValue)" }
}

/// One delivery of a task to an app: the `BGTask` the launch handler receives.
public struct TaskRun: Sendable, Hashable, Codable {
    /// The run's number; the app reports completion with it.
    public let id: TaskRunID
    /// The request that became this run.
    public let request: TaskRequest
    /// When the app was handed the task.
    public let startedAt: Instant
    /// When the expiration handler is due (the run's time is nearly up); `nil` when the kind has
    /// no fixed limit (continued processing, which expires only when stalled or cancelled).
    public internal(set) var expiresAt: Instant?
    /// When the app is ended if the task is still not complete.
    public internal(set) var killAt: Instant?
    /// Whether expiration has been delivered.
    public internal(set) var expirationDelivered: Bool
    /// Continued processing: the last progress reported, from 0 to 1, and when.
    public internal(set) var progress: Double
    /// When progress last moved (the run's start before any report).
    public internal(set) var progressUpdatedAt: Instant

    init(id: TaskRunID, request: TaskRequest, startedAt: Instant, expiresAt: Instant?, killAt: Instant?) {
        self.id = id
        self.request = request
        self.startedAt = startedAt
        self.expiresAt = expiresAt
        self.killAt = killAt
        self.expirationDelivered = false
        self.progress = 0
        self.progressUpdatedAt = startedAt
    }
}

/// How a run ended, for logs and the system's records.
public enum TaskOutcome: String, Sendable, Hashable, Codable {
    /// `setTaskCompleted(success: true)`.
    case succeeded
    /// `setTaskCompleted(success: false)`, or expired without an expiration handler.
    case failed
    /// The app was ended before completing it.
    case killed
}
