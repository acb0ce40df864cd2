/// Something that happened, told to the system by a shell.
///
/// Events are facts: the user opened the app, app code began an assertion, a handler returned,
/// time passed (`tick`). The system answers each with effects; see ``BackgroundSystem/handle(_:at:)``.
public enum Event: Sendable, Hashable, Codable {
    /// The app's process started, in the foreground (user) or the background (system).
    case launch(AppID, LaunchKind)
    /// The app became active (inactive → active).
    case activate(AppID)
    /// The app stopped receiving events (active → inactive).
    case deactivate(AppID)
    /// The app moved to the background (inactive → background); its budget starts.
    case enterBackground(AppID)
    /// The app is coming back to the foreground (background or suspended → inactive).
    case enterForeground(AppID)
    /// The system resumed a suspended app in the background to do work; its budget is refilled.
    case resumeInBackground(AppID)
    /// `applicationDidEnterBackground(_:)` (and the notification's observers) returned.
    case didEnterBackgroundReturned(AppID)
    /// The app's callbacks after a launch or resume in the background returned
    /// (``Effect/deliverBackgroundWake(_:)``).
    case backgroundWakeReturned(AppID)
    /// App code called `beginBackgroundTask`.
    case beginAssertion(AppID, name: String, origin: CallSite, hasExpirationHandler: Bool)
    /// App code called `beginBackgroundTask` and the app's runtime granted it itself, from the
    /// state the system pushed (``GrantState``), with an identifier it allocated: a transport
    /// across a process boundary sends this one way, without waiting (docs/core-contract.md).
    ///
    /// The identifier must be new in the app's process (at least ``BackgroundSystem/nextAssertionID(of:)``),
    /// else the begin is refused (``Reply/denied(reason:)``, logged as an error). If the system's
    /// own verdict differs (the state changed while the begin was on its way), the identifier is
    /// still used up and the answer is ``Effect/assertionRevoked(_:_:reason:)``.
    case assertionBegun(AppID, AssertionID, name: String, origin: CallSite, hasExpirationHandler: Bool)
    /// App code called `endBackgroundTask` with this identifier.
    case endAssertion(AppID, AssertionID)
    /// The expiration handler of this assertion returned.
    case expirationHandlerReturned(AppID, AssertionID)
    /// The user force-quit the app, the process exited, or the system reclaimed it.
    case terminate(AppID, TerminationReason)
    /// The user or the system changed a Background App Refresh setting.
    case setBackgroundRefresh(BackgroundRefreshSetting)
    /// Time passed: run whatever fell due at or before this instant.
    case tick

    // MARK: Scheduling (BGTaskScheduler and background fetch)

    /// The app was installed, or its manifest changed.
    case install(AppManifest)
    /// The app finished launching (`application(_:didFinishLaunchingWithOptions:)` returned):
    /// registration closes, and due tasks may be delivered.
    case finishLaunching(AppID)
    /// App code called `BGTaskScheduler.register(forTaskWithIdentifier:using:launchHandler:)`.
    case registerTaskHandler(AppID, identifier: String)
    /// App code called `BGTaskScheduler.submit(_:)`.
    case submitTaskRequest(AppID, TaskRequest)
    /// App code called `cancel(taskRequestWithIdentifier:)`.
    case cancelTaskRequest(AppID, identifier: String)
    /// App code called `cancelAllTaskRequests()`.
    case cancelAllTaskRequests(AppID)
    /// App code called `setTaskCompleted(success:)` (or the fetch completion handler).
    case completeTask(AppID, TaskRunID, success: Bool)
    /// A continued-processing task reported progress (0 to 1).
    case reportTaskProgress(AppID, TaskRunID, fraction: Double)
    /// The user stopped a continued-processing task from its Live Activity.
    case userCancelledTask(AppID, TaskRunID)
    /// The device's conditions changed (power, battery, network, use, unlock, Low Power Mode).
    case setDevice(DeviceConditions)
    /// The machine is short of memory (or no longer is): one reclaim step, as iOS's jetsam
    /// (``BackgroundSystem/reclaimCandidates``); sent again while the pressure lasts.
    case memoryPressure(MemoryPressure)
    /// App code called `setMinimumBackgroundFetchInterval(_:)`; `nil` is `backgroundFetchIntervalNever`.
    case setMinimumBackgroundFetchInterval(AppID, Duration?)
    /// The debugger's `_simulateLaunchForTaskWithIdentifier:`: run this pending request now.
    case simulateLaunch(AppID, identifier: String)
    /// The debugger's `_simulateExpirationForTaskWithIdentifier:`: expire this running task now.
    case simulateExpiration(AppID, identifier: String)
    /// State read back from the store when the system starts (restores before anything else).
    case restore(PersistedApp)

    // MARK: Background modes and silent pushes

    /// App code began the activity of a background mode: an `AVAudioSession` made active to
    /// play, `startUpdatingLocation()`, a CallKit call, an accessory or Bluetooth session, a
    /// Push to Talk channel (``ModeActivity``). Answered with ``Reply/modeHeld(_:)`` or
    /// ``Reply/modeNotHeld(_:reason:)``.
    case beginModeActivity(AppID, BackgroundMode)
    /// App code ended that activity (the session deactivated, `stopUpdatingLocation()`, the
    /// call ended).
    case endModeActivity(AppID, BackgroundMode)
    /// A silent push (`content-available: 1`) arrived for the app; `payload` is its JSON text,
    /// handed to `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    case remoteNotification(AppID, payload: String)
}

/// A Background App Refresh switch (S6).
public enum BackgroundRefreshSetting: Sendable, Hashable, Codable {
    /// The system-wide switch in Settings.
    case systemSwitch(Bool)
    /// One app's switch in Settings.
    case appSwitch(AppID, Bool)
    /// Low Power Mode, which turns Background App Refresh off while on (S6).
    case lowPowerMode(Bool)
    /// A restriction (parental controls, device management) the user cannot lift.
    case restricted(Bool)
}
