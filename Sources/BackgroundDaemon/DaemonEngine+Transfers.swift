public import BackgroundCore
import BackgroundProtocol

/// Background transfers through the daemon: an app's `URLSession` calls (``TransferCall``) are
/// checked here, then handed to the ``DaemonTransfers`` the daemon runs (docs/transfers.md,
/// "System mode").
extension DaemonEngine {
    /// Runs background transfers with `transfers`: the installed apps' stored transfers resume
    /// now, and the apps' transfer calls go to it from now on.
    public func runTransfers(_ transfers: DaemonTransfers) {
        let apps = state.withLock { state in state.installed.keys.sorted().compactMap { state.installed[$0] } }
        transferHost.withLock { $0 = transfers }
        transfers.start(engine: self, apps: apps)
    }

    /// The transfers the daemon runs, if it runs any.
    public var transfers: DaemonTransfers? { transferHost.withLock { $0 } }

    /// A transfer call from `app`'s connection. A call that breaks a bound or names another app
    /// closes the connection, as any message the app may not send.
    func transferCall(_ call: TransferCall, from app: AppID, link: any ClientLink) {
        if let problem = call.problem(from: app) {
            logger.warning("\(app): a transfer call refused (\(problem)); connection closed")
            return refuse(link, DaemonRefusal(.notPermitted, "transfer call refused: \(problem)"))
        }
        guard let transfers else {
            return refuse(link, DaemonRefusal(.notPermitted, "this daemon runs no background transfers"))
        }
        transfers.call(call, from: app, link: link)
    }

    /// Whether the app's `backgroundWakeReturned` is held for its transfer events
    /// (``DaemonTransfers/holdsWakeReturn(of:link:)``).
    func transfersHoldWake(_ event: Event, from app: AppID, link: any ClientLink) -> Bool {
        guard case .backgroundWakeReturned = event, let transfers else { return false }
        return transfers.holdsWakeReturn(of: app, link: link)
    }

    /// Tells the transfers what the core decided (after it was carried out, outside the lock).
    func transfersObserve(_ effects: [Effect]) {
        guard !effects.isEmpty, let transfers else { return }
        transfers.observe(effects)
    }

    /// An app's lifecycle state, as the core has it.
    public func appState(_ app: AppID) -> AppLifecycleState {
        state.withLock { $0.core.state(of: app) }
    }

    /// An installed app.
    func installedApp(_ app: AppID) -> InstalledApp? {
        state.withLock { $0.installed[app] }
    }

    /// Where an app's transfer events can go now: its lifecycle state, whether its process can
    /// run (not frozen), and its connection.
    func transferRoute(_ app: AppID) -> TransferRoute? {
        state.withLock { state in
            guard state.installed[app] != nil else { return nil }
            let lifecycle = state.core.state(of: app)
            let link = state.appLinks[app].flatMap { state.sessions[$0]?.link }
            return TransferRoute(state: lifecycle, link: link)
        }
    }

    /// Launches the app in the background, or resumes its frozen process, for its transfer
    /// events. Returns whether it is now running in the background.
    func wakeForTransfers(_ app: AppID, launching: Bool) -> Bool {
        if launching {
            guard state.withLock({ $0.installed[app]?.launch != nil }) else { return false }
            deliver(.launch(app, .background))
        } else {
            deliver(.resumeInBackground(app))
        }
        return state.withLock { $0.core.state(of: app) } == .background
    }
}

/// Where an app's transfer events can go.
struct TransferRoute {
    var state: AppLifecycleState
    var link: (any ClientLink)?

    /// Whether the process runs (it is not frozen, and exists).
    var canRun: Bool {
        switch state {
        case .active, .inactive, .background: return true
        case .suspended, .notRunning, .terminated: return false
        }
    }
}
