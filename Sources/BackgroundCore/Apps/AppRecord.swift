/// Everything the system keeps about one app.
struct AppRecord: Sendable {
    let id: AppID
    var state: AppLifecycleState = .notRunning
    /// The app's current (or last) process; 0 before its first launch.
    var incarnation = Incarnation(rawValue: 0)
    var ledger = AssertionLedger()
    var budget: BackgroundBudget
    var expiration: ExpirationRun?
    /// Set while the app's main-actor callbacks for entering the background (or for a launch or
    /// resume there) run: which ones, and the watchdog's deadline for them.
    var callbacks: PendingCallbacks?
    /// The app's own Background App Refresh switch.
    var refreshSwitch = true

    // MARK: Scheduling

    /// The app's manifest, once installed; without one nothing is permitted.
    var manifest: AppManifest?
    /// Pending requests by identifier.
    var pending: [String: PendingRequest] = [:]
    /// Tasks handed to the app and not yet completed, by run.
    var running: [TaskRunID: TaskRun] = [:]
    /// Identifiers with a launch handler registered in the current process.
    var registered: Set<String> = []
    /// Whether the current process has finished launching (registration is closed).
    var launchFinished = false
    /// Runs waiting for the app to finish launching in the background.
    var awaitingLaunch: [TaskRequest] = []
    /// Foreground launches: the usage predictor's input.
    var usage = UsageHistory()
    /// Background run time left.
    var runtimeBudget: RuntimeBudget
    /// When the system last started background work for the app (rate limiting).
    var lastBackgroundRunAt: Instant?
    /// When each identifier last started a run (rate-limited kinds): a request that joins a
    /// running batch may not be one that already ran in it.
    var lastRunOfIdentifier: [String: Instant] = [:]
    /// Set when the user force-quits the app; cleared when the user opens it (S10).
    var forceQuit = false
    /// Legacy fetch: the minimum interval, or `nil` for `backgroundFetchIntervalNever` (the default).
    var fetchInterval: Duration?
    /// Legacy fetch: when the last fetch started.
    var lastFetchAt: Instant?
    /// Whether the app waits, parked, for an app-level condition that only an event can clear.
    var parkedUntilEvent = false
    /// When the app's parked requests should be looked at again, if a time will clear them.
    var parkedUntil: Instant?
    /// The background modes the current process holds, by mode name (``ModeActivity``).
    var modeActivities: [ModeActivity] = []
    /// When the last silent pushes were handed to the app in the background, oldest first; at
    /// most ``SchedulingPolicy/silentPushesPerWindow`` kept.
    var silentPushes: [Instant] = []

    init(id: AppID, budget: Duration, dailyBudget: Duration, at now: Instant) {
        self.id = id
        self.budget = BackgroundBudget(full: budget)
        self.runtimeBudget = RuntimeBudget(capacity: dailyBudget, at: now)
    }

    /// Whether the app's process is doing background work the system must not interrupt.
    var hasRunningTasks: Bool { !running.isEmpty }

    /// The app's released requests (due, device gates open) waiting on app-level conditions.
    var releasedRequests: [TaskRequest] {
        pending.values.filter(\.released).map(\.request).sorted { $0.identifier < $1.identifier }
    }
}

/// A pending request and its place in the queue.
struct PendingRequest: Sendable, Hashable {
    var request: TaskRequest
    /// The sequence of its current queue entry; older entries are stale.
    var sequence: UInt64
    /// Whether it left the queue (due, device gates open) and now waits on the app.
    var released = false
}
