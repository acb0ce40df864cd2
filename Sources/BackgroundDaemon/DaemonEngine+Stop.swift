import BackgroundCore

extension DaemonEngine {
    /// How long a stopping daemon waits for an app it told of its end to exit: Apple's
    /// `applicationWillTerminate(_:)` "has approximately five seconds to perform any tasks and
    /// return", after which the system may kill the process.
    public static let willTerminateTimeLimit: Duration = .seconds(5)

    /// Ends the app processes this daemon started, as iOS ends apps: a stopping daemon leaves
    /// none of its apps behind, frozen for ever. Apps the user started are left alone.
    ///
    /// - An app that runs (active, inactive or in the background) and is connected is ended
    ///   through the core as a process exit (status 0): it is told on its connection, its runtime
    ///   calls `applicationWillTerminate(_:)` and posts `willTerminateNotification` on the main
    ///   actor and then exits. One still running after `limit` is killed (SIGKILL).
    /// - A suspended app (frozen), or one still launching (not connected yet), is killed at once:
    ///   iOS ends a suspended app without running any of its code.
    ///
    /// From the call on, the daemon launches nothing. Called by ``DaemonService`` before the
    /// server stops (the apps hear of their end on their connections).
    public func endStartedApps(within limit: Duration = DaemonEngine.willTerminateTimeLimit) async {
        let (told, killed) = state.withLock { state -> ([AppID], [AppID]) in
            state.stopping = true
            var told: [AppID] = []
            var killed: [AppID] = []
            for app in state.started.sorted() {
                if state.core.state(of: app).isRunning, state.appLinks[app] != nil {
                    told.append(app)
                } else {
                    killed.append(app)
                }
            }
            return (told, killed)
        }
        for app in killed {
            logger.notice("\(app): ended with the daemon (suspended or not connected: killed)")
            processes.kill(app)
        }
        for app in told {
            logger.notice("\(app): ended with the daemon: applicationWillTerminate, then exit")
            deliver(.terminate(app, .exited(status: 0)))
        }
        let deadline = ContinuousClock.now + limit
        while told.contains(where: { processes.pid(of: $0) != nil }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for app in told where processes.pid(of: app) != nil {
            logger.warning("\(app): still running \(limit) after applicationWillTerminate: killed")
            processes.kill(app)
        }
        state.withLock { $0.started.removeAll() }
    }
}
