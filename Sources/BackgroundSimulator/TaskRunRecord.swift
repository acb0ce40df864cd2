public import BackgroundCore

/// A task run as the simulator saw it: when it started, and how and when it ended.
public struct TaskRunRecord: Sendable, Hashable {
    /// The app that ran it.
    public let app: AppID
    /// The run: its identifier, request and start.
    public let run: TaskRun
    /// How it ended; `nil` while it runs.
    public private(set) var outcome: TaskOutcome?
    /// When it ended.
    public private(set) var endedAt: Instant?

    init(app: AppID, run: TaskRun) {
        self.app = app
        self.run = run
    }

    /// The request's identifier.
    public var identifier: String { run.request.identifier }

    mutating func finish(_ outcome: TaskOutcome, at instant: Instant) {
        self.outcome = outcome
        self.endedAt = instant
    }
}
