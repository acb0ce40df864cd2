import BackgroundCore

extension Effect {
    /// The app this effect is for, when the app's runtime carries it out (its handlers, its
    /// lifecycle callbacks, its tasks); nil for the daemon's own work.
    var runtimeApp: AppID? {
        switch self {
        case .assertionDenied(let app, _, _), .assertionRevoked(let app, _, _), .runExpirationHandler(let app, _),
            .deliverDidEnterBackground(let app),
            .deliverBackgroundWake(let app), .stateChanged(let app, _, _), .backgroundRefreshStatusChanged(let app, _),
            .fault(let app, _), .runTasks(let app, _), .expireTask(let app, _), .launch(let app, _, _),
            .resume(let app, _), .exit(let app, _, _), .terminate(let app, _), .powerStateChanged(let app, _):
            return app
        case .suspend, .scheduleWakeup, .cancelWakeup, .log, .taskFinished, .persist, .modeChanged:
            return nil
        }
    }
}
