public import BackgroundCore
public import Dispatch
public import Foundation

/// The link between an app's `UIApplication` and the background execution system that governs it.
///
/// Three systems implement it: ``EmbeddedSystem`` (in the app's own process, on the real clock
/// or a ``ManualClock``), ``DaemonConnection`` (`backgroundd`, in another process) and the
/// simulator (`BackgroundSimulator`). App code never calls it directly; it calls `UIApplication`, which forwards here.
public protocol SystemConnection: AnyObject, Sendable {
    /// The app this connection speaks for. Everything it does is confined to this app.
    var app: AppID { get }

    /// Asks for a background task assertion.
    ///
    /// - Returns: The granted identifier, or `nil` when the assertion cannot be granted; the
    ///   system then calls `expirationHandler` on the main actor, as iOS does.
    func beginAssertion(
        named name: String,
        at site: CallSite,
        expirationHandler: (@MainActor @Sendable () -> Void)?
    ) -> AssertionID?

    /// Ends an assertion. Unknown or already-ended identifiers are logged, never fatal.
    func endAssertion(_ id: AssertionID)

    /// The app's remaining background time, or `nil` while it is in the foreground.
    var backgroundTimeRemaining: Duration? { get }

    /// The app's lifecycle state as the system sees it.
    var lifecycleState: AppLifecycleState { get }

    /// The app's Background App Refresh status.
    var backgroundRefreshStatus: BackgroundRefreshStatus { get }

    /// Whether Low Power Mode is on (`ProcessInfo.isLowPowerModeEnabled`); changes come as
    /// ``BackgroundCore/Effect/powerStateChanged(_:lowPowerMode:)``.
    var isLowPowerModeEnabled: Bool { get }

    /// Tells the system which application object receives lifecycle callbacks and notifications.
    func attach(_ application: UIApplication)

    // MARK: Scheduling (BGTaskScheduler, background fetch)

    /// Registers a launch handler; `false` if the identifier is not permitted.
    func registerTaskHandler(
        identifier: String,
        queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool

    /// Submits a request.
    ///
    /// - Throws: ``BGTaskScheduler/Error`` with Apple's code when the system refuses it.
    func submitTaskRequest(_ request: TaskRequest) throws(BGTaskScheduler.Error)

    /// Cancels a pending request.
    func cancelTaskRequest(identifier: String)

    /// Cancels every pending request.
    func cancelAllTaskRequests()

    /// The pending requests, oldest first.
    func pendingTaskRequests() -> [TaskRequest]

    /// The pending requests, oldest first, handed to `reply` when the system answers: at once
    /// by default; a system that would have to block the caller's thread to answer there (the
    /// simulator, for a call off its main actor) answers later, on another thread. What
    /// `getPendingTaskRequests(completionHandler:)` and `pendingTaskRequests()` use.
    func pendingTaskRequests(reply: @escaping @Sendable ([TaskRequest]) -> Void)

    /// Why a pending request has not run; `nil` if none is pending with that identifier.
    func eligibility(forTaskWithIdentifier identifier: String) -> Eligibility?

    /// Everything about a request identifier: why it waits, its history, what-ifs and the
    /// likely range; `nil` if it is neither pending nor in the history.
    func explanation(forTaskWithIdentifier identifier: String) -> RequestExplanation?

    /// Runs a pending request now (the debugger's hook).
    func simulateLaunch(forTaskWithIdentifier identifier: String)

    /// Expires a running task now (the debugger's hook).
    func simulateExpiration(forTaskWithIdentifier identifier: String)

    /// Reports a task complete.
    func completeTask(_ run: TaskRunID, success: Bool)

    /// Reports a continued-processing task's progress (0 to 1).
    func reportProgress(_ run: TaskRunID, fraction: Double)

    /// Sets the legacy fetch interval; `nil` is never.
    func setMinimumBackgroundFetchInterval(_ interval: Duration?)

    /// Begins a background mode's activity (``BackgroundActivity``): the system's answer,
    /// ``BackgroundCore/Reply/modeHeld(_:)`` or ``BackgroundCore/Reply/modeNotHeld(_:reason:)``.
    /// A connection that does not implement modes answers `modeNotHeld` (the default).
    func beginModeActivity(_ mode: BackgroundMode) -> Reply

    /// Ends a background mode's activity.
    func endModeActivity(_ mode: BackgroundMode)

    /// Whether the device supports background GPU use.
    var supportsBackgroundGPU: Bool { get }

    /// The instant on the system's timeline of a wall-clock date, measured from now.
    func instant(for date: Date) -> Instant

    /// The wall-clock date of an instant on the system's timeline, measured from now.
    func date(for instant: Instant) -> Date

    /// Logs a message for the app.
    func log(_ level: LogRecord.Level, _ message: String)

    /// Raises a fault (misuse Apple traps on) of this system's app: the system keeps it, hands
    /// it to its own hook, or stops the process as iOS would. A default goes process-wide,
    /// through ``BackgroundFault/hook``.
    func raise(_ fault: BackgroundFault)

    /// The service that runs this app's background `URLSession` transfers, when the system
    /// brings its own (the simulator's virtual network); `nil` (the default) leaves it to
    /// ``URLSession/bootstrap(_:)``. Read from any thread.
    var transferService: (any TransferService)? { get }

    /// The app's `UIApplicationSceneManifest` (``AppManifest/sceneManifest``): present, the app is
    /// scene-based and its transitions reach its scene delegate (``UISceneDelegate``); `nil` (the
    /// default), they reach its app delegate. Read on the main actor when the app connects a scene.
    var sceneManifest: SceneManifest? { get }

    /// What opens URLs for `UIApplication.open(_:options:completionHandler:)` and answers
    /// `canOpenURL(_:)`; `nil` (the default): nothing opens URLs, `open` completes with `false`.
    var urlOpener: URLOpener? { get }
}

extension SystemConnection {
    /// The default: background sessions use the service ``URLSession/bootstrap(_:)`` installed.
    public var transferService: (any TransferService)? { nil }

    /// The default: an app without scenes.
    public var sceneManifest: SceneManifest? { nil }

    /// The default: nothing opens URLs.
    public var urlOpener: URLOpener? { nil }

    /// The default for connections that do not carry background modes yet: not held, logged.
    public func beginModeActivity(_ mode: BackgroundMode) -> Reply {
        let reason = "this connection does not carry background modes yet"
        log(.warning, "'\(mode)' not held: \(reason)")
        return .modeNotHeld(mode, reason: reason)
    }

    /// The default: nothing was held, so nothing ends.
    public func endModeActivity(_ mode: BackgroundMode) {}

    /// Answers at once, with ``pendingTaskRequests()``.
    public func pendingTaskRequests(reply: @escaping @Sendable ([TaskRequest]) -> Void) {
        reply(pendingTaskRequests())
    }
}
