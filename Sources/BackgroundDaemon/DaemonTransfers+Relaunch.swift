public import BackgroundCore
import BackgroundProtocol
import BackgroundTransfers

/// Launching or resuming an app for its transfers' events (reference §5.3), within Apple's
/// relaunch delay (§5.6, the core's ``TransferQueue`` through the app's engine), never after a
/// force quit until the user opens the app (§5.4).
extension DaemonTransfers {
    /// How long from now until the app may be launched or resumed for transfer events (its
    /// relaunch delay, reference §5.6); nil after a force quit, or for an app with no transfers.
    public func relaunchDelay(of app: AppID) -> Duration? {
        apps.withLock { $0[app] }?.engine.relaunchDelay()
    }

    /// How many completed transfers of `app` wait for a process of the app to hear them.
    public func completionsWaiting(of app: AppID) -> Int {
        apps.withLock { apps in apps[app]?.sessions.values.reduce(0) { $0 + $1.ready.count } ?? 0 }
    }

    /// Completions wait for an app that cannot hear them now: launch or resume it when the
    /// relaunch delay allows (once; a later completion joins the same relaunch).
    func scheduleRelaunch(_ app: AppID) {
        guard let entry = apps.withLock({ $0[app] }), entry.relaunch == nil else { return }
        guard let delay = entry.engine.relaunchDelay() else {
            logger.info("\(app): transfer events wait until the user opens the app (force quit)")
            return
        }
        logger.info("\(app): transfer events ready; relaunch in \(delay)")
        let timer = Task { [weak self] in
            if delay > .zero { try? await Task.sleep(for: delay) }
            guard !Task.isCancelled else { return }
            self?.relaunch(app)
        }
        apps.withLock { $0[app]?.relaunch = timer }
    }

    /// Launches (not running) or resumes (frozen) the app in the background for the sessions
    /// whose completions wait; a running app that has not attached them is told at once.
    func relaunch(_ app: AppID) {
        guard let engine, let entry = apps.withLock({ $0[app] }) else { return }
        let sessions = entry.sessions.keys.sorted().filter { name in
            guard let session = entry.sessions[name] else { return false }
            return !session.ready.isEmpty && session.options.sendsLaunchEvents
        }
        apps.withLock { $0[app]?.relaunch = nil }
        guard !sessions.isEmpty, entry.launchedFor.isEmpty, entry.handling.isEmpty else { return }
        guard let route = engine.transferRoute(app), !entry.engine.isForceQuit else { return }
        switch route.state {
        case .suspended, .notRunning, .terminated:
            // Before the launch or the thaw: its wake's return may come back at once.
            apps.withLock { $0[app]?.launchedFor = Set(sessions) }
            let woken = engine.wakeForTransfers(app, launching: route.state != .suspended)
            guard woken else {
                apps.withLock { $0[app]?.launchedFor = [] }
                logger.notice("\(app): could not be launched or resumed for its transfer events")
                return
            }
            entry.engine.relaunched()
            armWakeLimit(app)
            logger.notice(
                "\(app): \(route.state == .suspended ? "resumed" : "launched") for the events of \(sessions.joined(separator: ", "))"
            )
        case .background, .inactive, .active:
            // A running process: it hears the events when it attaches the sessions.
            guard let link = route.link, route.state == .background else { return }
            apps.withLock { $0[app]?.handling.formUnion(sessions) }
            for session in sessions { link.send(.system(.transfer(.handleEvents(session: session)))) }
        }
    }

    /// The app's launch callbacks returned (`backgroundWakeReturned`): if it was woken for
    /// transfer events, it now gets `handleEventsForBackgroundURLSession` for each session, and
    /// the return is held (the app stays in the background) until it calls each completion
    /// handler. Returns whether the event is held.
    func holdsWakeReturn(of app: AppID, link: any ClientLink) -> Bool {
        let sessions = apps.withLock { apps -> [String] in
            guard var entry = apps[app], !entry.launchedFor.isEmpty else { return [] }
            let sessions = entry.launchedFor.sorted()
            entry.handling.formUnion(sessions)
            entry.launchedFor = []
            entry.heldWake = true
            apps[app] = entry
            return sessions
        }
        guard !sessions.isEmpty, let entry = apps.withLock({ $0[app] }) else { return false }
        for session in sessions {
            link.send(.system(.transfer(.handleEvents(session: session))))
            // A session the process attached during its launch hears its events now.
            replay(app, session: session, known: entry.engine.transfers(session: session), engine: entry.engine)
        }
        return true
    }

    /// The app called a completion handler of `handleEventsForBackgroundURLSession`: when none
    /// is outstanding, its wake returns (it may be suspended again).
    func eventsHandled(_ app: AppID, session: String) {
        let release = apps.withLock { apps -> Bool in
            guard var entry = apps[app] else { return false }
            entry.handling.remove(session)
            let release = entry.handling.isEmpty && entry.heldWake
            if release {
                entry.heldWake = false
                entry.wakeLimit?.cancel()
                entry.wakeLimit = nil
            }
            apps[app] = entry
            return release
        }
        if release { engine?.deliver(.backgroundWakeReturned(app)) }
    }

    /// Ends the held wake when the time for handling events is up.
    private func armWakeLimit(_ app: AppID) {
        let limit = configuration.eventsTimeLimit
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            guard !Task.isCancelled, let self else { return }
            let release = apps.withLock { apps -> Bool in
                guard var entry = apps[app] else { return false }
                let release = entry.heldWake
                entry.heldWake = false
                entry.handling = []
                entry.launchedFor = []
                entry.wakeLimit = nil
                apps[app] = entry
                return release
            }
            if release {
                logger.warning(
                    "\(app): did not call the completion handler of handleEventsForBackgroundURLSession in \(limit)"
                )
                engine?.deliver(.backgroundWakeReturned(app))
            }
        }
        apps.withLock { $0[app]?.wakeLimit = timer }
    }

    /// What the core decided, after it was carried out: a thaw or a return to the foreground
    /// sends what waited; the user's open clears a force quit and the relaunch delay; a force
    /// quit cancels every transfer of the app; a new process must attach its sessions again.
    func observe(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .stateChanged(let app, let from, let to) where from == .suspended && to != .suspended:
                appCanRun(app)
            case .persist(.recordLaunch(let app, _)):
                apps.withLock { $0[app] }?.engine.openedByUser()
            case .terminate(let app, let report) where report.reason == .userForceQuit:
                processEnded(app)
                apps.withLock { $0[app] }?.engine.forceQuit()
            case .terminate(let app, _), .exit(let app, _, _):
                processEnded(app)
            case .stateChanged(let app, _, let to) where !to.hasProcess:
                // A process that exited on its own (its connection closed) ends with no
                // `.terminate`: what was sent to it and not delivered waits for the next one.
                processEnded(app)
            default:
                continue
            }
        }
    }

    /// The app's process ended: its sessions have no destination until a new one attaches them.
    private func processEnded(_ app: AppID) {
        apps.withLock { apps in
            guard var entry = apps[app] else { return }
            for name in entry.sessions.keys.sorted() {
                guard var session = entry.sessions[name] else { continue }
                session.attachedBy = nil
                session.ready.formUnion(session.sent)
                session.sent = []
                entry.sessions[name] = session
            }
            entry.handling = []
            entry.heldWake = false
            entry.wakeLimit?.cancel()
            entry.wakeLimit = nil
            apps[app] = entry
        }
        if apps.withLock({ $0[app]?.sessions.values.contains { !$0.ready.isEmpty } ?? false }) { scheduleRelaunch(app) }
    }
}
