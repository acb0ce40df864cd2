/// One reason a pending task has not run.
///
/// Device conditions clear when the device changes (plug in, connect, stop using it); the
/// time-based ones clear by themselves at the instant they carry.
public enum UnmetCondition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The request's `earliestBeginDate` has not come (R2.7).
    case notBefore(Instant)
    /// The request needs external power (R2.11).
    case requiresExternalPower
    /// The request needs a network connection (R2.10).
    case requiresNetwork
    /// Processing runs only while the device is idle (S13).
    case deviceInUse
    /// No background task runs before the first unlock after a reboot (S16).
    case notUnlockedSinceBoot
    /// The battery is at or below the critical level and not charging (S16 factor 1).
    case batteryCriticallyLow(level: Double)
    /// Low Power Mode is on (S16 factor 2).
    case lowPowerMode
    /// Background App Refresh is off: the system switch, the app's switch, or a restriction (S16 factor 5).
    case backgroundAppRefreshOff(BackgroundRefreshStatus)
    /// The user force-quit the app; it runs nothing in the background until opened (S10, factor 4).
    case forceQuit
    /// The app has not been used within the usage horizon (7 days for processing, R2.12).
    case appNotUsedRecently
    /// Refreshes run ahead of predicted use; the next window opens then (S16 factor 3, **ours**).
    case awaitingPredictedUse(Instant)
    /// The app's background budget is spent until then (S16 factor 6, **ours**: a token bucket).
    case budgetExhausted(until: Instant)
    /// The system spaces out background launches: not again before then (S16 factor 7, **ours**: 15 min).
    case rateLimited(until: Instant)
    /// Continued processing: the maximum number run at once; it is queued.
    case concurrencyLimit
    /// The system is already running as many apps' tasks as it allows at once (**ours**).
    case systemBusy
    /// A transfer on cellular whose session does not allow it (`allowsCellularAccess`).
    case cellularNotAllowed
    /// A transfer on an expensive network (cellular, a hotspot) whose session does not allow it
    /// (`allowsExpensiveNetworkAccess`).
    case expensiveNetworkNotAllowed
    /// A transfer on a constrained network (Low Data Mode) whose session does not allow it
    /// (`allowsConstrainedNetworkAccess`).
    case constrainedNetworkNotAllowed
    /// A discretionary transfer waits for an unmetered network: Wi-Fi, neither expensive nor
    /// constrained (reference §5.1).
    case requiresUnmeteredNetwork

    /// The instant at which the condition clears by itself, or `nil` if it waits on the device,
    /// the user or the app.
    public var clearsAt: Instant? {
        switch self {
        case .notBefore(let at), .awaitingPredictedUse(let at), .budgetExhausted(let at), .rateLimited(let at):
            return at
        default:
            return nil
        }
    }

    public var description: String {
        switch self {
        case .notBefore(let at): return "not before \(at) (earliestBeginDate)"
        case .requiresExternalPower: return "needs external power"
        case .requiresNetwork: return "needs a network connection"
        case .deviceInUse: return "runs only while the device is idle"
        case .notUnlockedSinceBoot: return "the device has not been unlocked since it started"
        case .batteryCriticallyLow(let level): return "battery critically low (\(Int((level * 100).rounded())) %)"
        case .lowPowerMode: return "Low Power Mode is on"
        case .backgroundAppRefreshOff(let status): return "Background App Refresh is \(status)"
        case .forceQuit: return "the user force-quit the app"
        case .appNotUsedRecently: return "the app has not been used recently"
        case .awaitingPredictedUse(let at): return "waiting for the next predicted use window at \(at)"
        case .budgetExhausted(let until): return "background budget spent until \(until)"
        case .rateLimited(let until): return "rate limited until \(until)"
        case .concurrencyLimit: return "queued behind other continued-processing tasks"
        case .systemBusy: return "the system is running other apps' tasks"
        case .cellularNotAllowed: return "on cellular, which the session does not allow (allowsCellularAccess)"
        case .expensiveNetworkNotAllowed:
            return "on an expensive network, which the session does not allow (allowsExpensiveNetworkAccess)"
        case .constrainedNetworkNotAllowed:
            return "on Low Data Mode, which the session does not allow (allowsConstrainedNetworkAccess)"
        case .requiresUnmeteredNetwork: return "discretionary: waits for an unmetered network (Wi-Fi)"
        }
    }
}

/// The answer to "why hasn't my task run, and when could it?" for one pending request.
///
/// ```swift
/// let why = system.eligibility(of: "com.example.news", identifier: "refresh", at: now)
/// why.unmet            // [.requiresExternalPower, .notBefore(T+900s)]
/// why.decidingFactor   // .notBefore(T+900s): the one to wait for first
/// why.earliestRun      // T+900s: it cannot run before this, whatever happens
/// ```
public struct Eligibility: Sendable, Hashable, Codable {
    /// The app.
    public var app: AppID
    /// The request.
    public var request: TaskRequest
    /// When the answer was computed.
    public var at: Instant
    /// Every unmet condition: the device's first, then `earliestBeginDate`, then the app's.
    public var unmet: [UnmetCondition]
    /// The earliest instant the task could run: never earlier than its actual run.
    ///
    /// It is the latest of now and every timed condition's clearing instant. Conditions that
    /// wait on the device or the user can only make the run later.
    public var earliestRun: Instant

    /// Whether it could run now.
    public var isEligible: Bool { unmet.isEmpty }

    /// The condition that decides now: the first that does not clear by itself, else the timed
    /// condition that clears last.
    public var decidingFactor: UnmetCondition? {
        if let waiting = unmet.first(where: { $0.clearsAt == nil }) { return waiting }
        return unmet.max { ($0.clearsAt ?? .zero) < ($1.clearsAt ?? .zero) }
    }

    /// Creates an answer.
    public init(app: AppID, request: TaskRequest, at: Instant, unmet: [UnmetCondition]) {
        self.app = app
        self.request = request
        self.at = at
        self.unmet = unmet
        self.earliestRun = unmet.compactMap(\.clearsAt).reduce(at, max)
    }
}
