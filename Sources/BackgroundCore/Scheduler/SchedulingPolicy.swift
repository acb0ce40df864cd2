/// The scheduler's numbers: pending limits, run times, and the heuristics that decide when
/// background tasks run. Part of ``SystemPolicy``.
///
/// Apple publishes the limits; its heuristics (prediction, budgets, rate limiting) are
/// described in WWDC talks without numbers. Every value marked **ours** is our choice, made to
/// behave like Apple's description, and can be changed here.
public struct SchedulingPolicy: Sendable, Hashable, Codable {
    /// At most this many refresh requests pending per app: 1 (R2.6).
    public var maximumPendingRefreshRequests = 1
    /// At most this many processing requests pending per app: 10 (R2.6).
    public var maximumPendingProcessingRequests = 10
    /// At most this many continued-processing requests per app, running or queued (**ours**).
    public var maximumPendingContinuedRequests = 10
    /// A refresh runs "up to 30 seconds" (S13, choosing background strategies).
    public var refreshRuntime: Duration = .seconds(30)
    /// A fetch has "up to 30 seconds of wall-clock time" (S17).
    public var fetchRuntime: Duration = .seconds(30)
    /// A processing task "can run for minutes" (S13); **ours**: 10 minutes.
    public var processingRuntime: Duration = .seconds(600)
    /// The expiration handler is called this long before a task's time is up; then the app
    /// has until the end to call `setTaskCompleted` or it is ended with `0x8badf00d` (**ours**: 5 s).
    public var taskExpirationLeadTime: Duration = .seconds(5)
    /// Battery at or below this level, not charging, suspends opportunistic work: 20 % (S16).
    public var criticalBatteryLevel = 0.2
    /// Processing needs the app used within this horizon: "within the past week" (R2.12).
    public var processingUsageHorizon: Duration = .seconds(7 * 86_400)
    /// How far back launches count for prediction (**ours**: 14 days).
    public var usageHistoryHorizon: Duration = .seconds(14 * 86_400)
    /// The most launches kept per app (a limit on everything; **ours**: 500).
    public var usageHistoryLimit = 500
    /// Below this many launches in the horizon the predictor is still learning, and a refresh
    /// may run whenever the app was used within the processing horizon (**ours**: 3).
    public var predictionMinimumLaunches = 3
    /// A refresh may run within this window before a predicted use (**ours**: 1 hour).
    public var refreshWindowBeforePredictedUse: Duration = .seconds(3600)
    /// Background launches of one app are spaced at least this far apart (**ours**: 15 minutes,
    /// Android WorkManager's periodic minimum).
    public var minimumBackgroundLaunchInterval: Duration = .seconds(900)
    /// Each app's background budget: this much run time per day, refilled evenly (**ours**: 10 min).
    public var dailyBackgroundBudget: Duration = .seconds(600)
    /// At most this many apps run background tasks at once (**ours**: 4).
    public var maximumAppsRunningTasks = 4
    /// At most this many continued-processing tasks run at once, system-wide (**ours**: 2).
    public var maximumConcurrentContinuedTasks = 2
    /// A continued-processing task whose progress does not move for this long is expired
    /// ("tasks that appear stalled may be forcibly expired", S13; **ours**: 60 s).
    public var continuedProcessingStallTimeout: Duration = .seconds(60)
    /// A silent push gives the app "up to 30 s" to call the completion handler (S13, choosing
    /// background strategies; the same limit as fetch, S17).
    public var remoteNotificationRuntime: Duration = .seconds(30)
    /// Silent pushes handed to one app in the background within ``silentPushWindow``: "If you send
    /// background pushes more frequently than three times per hour, the system imposes rate
    /// limitations" (S13, choosing background strategies): 3. Later ones wait, coalesced into the
    /// newest ("14 pushes … may coalesce into 7", WWDC20 10063). The sliding window is **ours**.
    public var silentPushesPerWindow = 3
    /// The window of ``silentPushesPerWindow``: an hour (S13).
    public var silentPushWindow: Duration = .seconds(3600)
    /// Whether the device supports background GPU use (`BGTaskScheduler.supportedResources`).
    public var supportsBackgroundGPU = false

    /// How many past runs the system keeps per request identifier for `why --history` (**ours**).
    public var historyRunsPerIdentifier = 20
    /// How many changes of the device's conditions the system keeps to explain waits (**ours**):
    /// recorded once for the device, not per request, and the oldest dropped.
    public var historyDeviceIntervals = 1000

    /// Creates the default scheduling policy.
    public init() {}

    /// The run time of a task of this kind; `nil` when it has no fixed limit.
    public func runtime(of kind: TaskKind) -> Duration? {
        switch kind {
        case .appRefresh: return refreshRuntime
        case .fetch: return fetchRuntime
        case .remoteNotification: return remoteNotificationRuntime
        case .processing: return processingRuntime
        case .continuedProcessing, .transfer: return nil
        }
    }

    /// The factors that gate a kind of task: the per-type table of WWDC20 10063 (reference §3.2).
    ///
    /// Refresh (and legacy fetch): all seven. Silent pushes: all but app usage. Processing: app usage, the app switcher, the
    /// Background App Refresh switch and rate limiting. Continued processing starts from the
    /// user's action: only the app switcher and the switch apply.
    public func factors(for kind: TaskKind) -> SchedulingFactors {
        switch kind {
        case .appRefresh, .fetch: return .all
        case .processing: return [.appUsage, .appSwitcher, .backgroundAppRefresh, .rateLimiting]
        case .continuedProcessing: return [.appSwitcher, .backgroundAppRefresh]
        case .remoteNotification:
            // "Background push: all except App usage" (WWDC20 10063); its rate limit is the
            // silent-push budget (``silentPushesPerWindow``), not the launch spacing.
            return [.criticallyLowBattery, .lowPowerMode, .appSwitcher, .backgroundAppRefresh, .systemBudget]
        case .transfer: return [.appSwitcher]
        }
    }
}

/// The seven factors of WWDC20 10063 that decide whether the system runs background work.
public struct SchedulingFactors: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// 1. Critically low battery: at or below 20 %, only essential work.
    public static let criticallyLowBattery = SchedulingFactors(rawValue: 1 << 0)
    /// 2. Low Power Mode.
    public static let lowPowerMode = SchedulingFactors(rawValue: 1 << 1)
    /// 3. App usage: the on-device prediction of when the user opens the app.
    public static let appUsage = SchedulingFactors(rawValue: 1 << 2)
    /// 4. The app switcher: a force-quit app runs nothing in the background.
    public static let appSwitcher = SchedulingFactors(rawValue: 1 << 3)
    /// 5. The Background App Refresh switch.
    public static let backgroundAppRefresh = SchedulingFactors(rawValue: 1 << 4)
    /// 6. System budgets of energy and data.
    public static let systemBudget = SchedulingFactors(rawValue: 1 << 5)
    /// 7. Rate limiting of launches.
    public static let rateLimiting = SchedulingFactors(rawValue: 1 << 6)
    /// All seven.
    public static let all: SchedulingFactors = [
        .criticallyLowBattery, .lowPowerMode, .appUsage, .appSwitcher, .backgroundAppRefresh, .systemBudget,
        .rateLimiting,
    ]
}
