extension Event {
    /// The app an app's own process may send this event about, or nil if no app process may
    /// send it at all (lifecycle moves, the device, settings, installs and restores are the
    /// daemon's and the desktop's to report, never an app's).
    ///
    /// The daemon accepts an app's event only if this is the connection's own app: one app can
    /// never end another's assertion, cancel its requests or run its tasks. The rule is the
    /// system's, so it lives here, beside the events: the daemon and the fuzz target that drives
    /// decoded messages through the core (`Fuzz/AppEvents`) use this one list.
    public var appCallSubject: AppID? {
        switch self {
        case .beginAssertion(let app, _, _, _), .assertionBegun(let app, _, _, _, _), .endAssertion(let app, _),
            .expirationHandlerReturned(let app, _),
            .didEnterBackgroundReturned(let app), .backgroundWakeReturned(let app), .finishLaunching(let app),
            .registerTaskHandler(let app, _), .submitTaskRequest(let app, _), .cancelTaskRequest(let app, _),
            .cancelAllTaskRequests(let app), .completeTask(let app, _, _), .reportTaskProgress(let app, _, _),
            .setMinimumBackgroundFetchInterval(let app, _), .simulateLaunch(let app, _),
            .simulateExpiration(let app, _), .beginModeActivity(let app, _), .endModeActivity(let app, _):
            return app
        case .launch, .activate, .deactivate, .enterBackground, .enterForeground, .resumeInBackground, .terminate,
            .setBackgroundRefresh, .tick, .install, .userCancelledTask, .setDevice, .restore,
            .remoteNotification,  // a push agent's, never an app's own
            .memoryPressure:
            return nil
        }
    }
}
