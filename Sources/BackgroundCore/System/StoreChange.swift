/// A change to durable state that the shell writes to the store (``Effect/persist(_:)``).
///
/// Times are system instants; the store converts them to wall-clock time, since the system's
/// timeline starts again at each start.
public enum StoreChange: Sendable, Hashable, Codable {
    /// Save (insert or replace) a pending request.
    case savePendingRequest(AppID, TaskRequest)
    /// Delete a pending request (run, cancelled or refused on delivery).
    case deletePendingRequest(AppID, identifier: String)
    /// Delete every pending request of the app.
    case deleteAllPendingRequests(AppID)
    /// Record a foreground launch (usage history).
    case recordLaunch(AppID, at: Instant)
    /// Save the app's scheduling state (force-quit flag, budget, rate limit, fetch, switch).
    case saveAppState(AppID, PersistedAppState)
    /// Save the app's manifest (installed or updated), so a restart or `bgctl why --store`
    /// judges its requests by the same rules.
    case saveManifest(AppManifest)
    /// Record a finished run of a request, for `why --history` (the store keeps the newest
    /// ``SchedulingPolicy/historyRunsPerIdentifier`` per identifier).
    case recordRun(AppID, RunRecord)
    /// Record (insert, or replace the one beginning at the same instant) an interval of the
    /// device's unmet conditions; recorded once for the device, not per app or request.
    case recordDeviceInterval(DeviceConditionInterval)
}

/// An app's durable scheduling state.
public struct PersistedAppState: Sendable, Hashable, Codable {
    /// Whether the user force-quit the app and has not opened it since.
    public var forceQuit: Bool
    /// The app's Background App Refresh switch.
    public var refreshSwitch: Bool
    /// The background budget.
    public var runtimeBudget: RuntimeBudget
    /// When background work last started (rate limiting).
    public var lastBackgroundRunAt: Instant?
    /// Legacy fetch interval, `nil` for never.
    public var fetchInterval: Duration?
    /// When the last fetch started.
    public var lastFetchAt: Instant?

    /// Creates a state record.
    public init(
        forceQuit: Bool,
        refreshSwitch: Bool,
        runtimeBudget: RuntimeBudget,
        lastBackgroundRunAt: Instant?,
        fetchInterval: Duration?,
        lastFetchAt: Instant?
    ) {
        self.forceQuit = forceQuit
        self.refreshSwitch = refreshSwitch
        self.runtimeBudget = runtimeBudget
        self.lastBackgroundRunAt = lastBackgroundRunAt
        self.fetchInterval = fetchInterval
        self.lastFetchAt = lastFetchAt
    }
}

/// Everything the store holds about one app, read back at start.
public struct PersistedApp: Sendable, Hashable, Codable {
    /// The app.
    public var app: AppID
    /// Its manifest, if one was installed.
    public var manifest: AppManifest?
    /// Its pending requests.
    public var pendingRequests: [TaskRequest]
    /// Its foreground launches, oldest first.
    public var launches: [Instant]
    /// Its scheduling state.
    public var state: PersistedAppState?
    /// Its recent task runs, for `why --history`.
    public var runs: [RunRecord]
    /// The device's condition intervals, oldest first (the same for every app of a store).
    public var deviceIntervals: [DeviceConditionInterval]

    /// Creates a restore record.
    public init(
        app: AppID,
        manifest: AppManifest? = nil,
        pendingRequests: [TaskRequest] = [],
        launches: [Instant] = [],
        state: PersistedAppState? = nil,
        runs: [RunRecord] = [],
        deviceIntervals: [DeviceConditionInterval] = []
    ) {
        self.app = app
        self.manifest = manifest
        self.pendingRequests = pendingRequests
        self.launches = launches
        self.state = state
        self.runs = runs
        self.deviceIntervals = deviceIntervals
    }
}
