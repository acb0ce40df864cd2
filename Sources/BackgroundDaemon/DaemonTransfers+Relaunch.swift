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

    /// Completions of `session` wait for an app that cannot hear them now: the app is launched
    /// or resumed when its relaunch delay allows (``TransferEventWakes``: once; a later
    /// completion joins the same wake), on the engine's clock.
    func eventsWaiting(_ app: AppID, session: String) {
        guard let engine, apps.withLock({ $0[app] }) != nil else { return }
        let relaunchAt = relaunchTime(of: app)
        if relaunchAt == nil {
            logger.info("\(app): transfer events wait until the user opens the app (force quit)")
        }
        wakes.withLock { $0.eventsWaiting(app, session: session, relaunchAt: relaunchAt) }
        engine.rearmWakeup()
    }

    /// When the app may be launched or resumed for its events, on the engine's clock (its
    /// relaunch delay from now); nil after a force quit.
    private func relaunchTime(of app: AppID) -> Instant? {
        guard let engine else { return nil }
        return apps.withLock { $0[app] }?.engine.relaunchDelay().map { engine.now + $0 }
    }

    /// The earliest instant, on the engine's clock, at which an app is to be woken for its
    /// transfer events or a wake for them runs out; ``DaemonEngine``'s one timer covers it.
    public var nextWakeDeadline: Instant? { wakes.withLock { $0.nextDeadline } }

    /// The engine's timer fired: the apps whose relaunch time came are launched or resumed, and
    /// the wakes whose time ran out end.
    func tick(at now: Instant) {
        guard let engine else { return }
        let tracked = wakes.withLock { $0.trackedApps }
        guard !tracked.isEmpty else { return }
        // Read before the wakes' lock: the engine's lock is never taken under it.
        var states: [AppID: AppLifecycleState] = [:]
        for app in tracked { states[app] = engine.transferRoute(app)?.state ?? .notRunning }
        let actions = wakes.withLock { $0.tick(at: now, states: { states[$0] ?? .notRunning }) }
        carryOut(actions)
    }

    /// Does what the wakes decided, in their order.
    private func carryOut(_ actions: [TransferEventWakes.Action]) {
        guard let engine else { return }
        for action in actions {
            switch action {
            case .wake(let app, let sessions, let launching):
                // The wake is recorded before the launch or the thaw: its return may come back at once.
                guard engine.wakeForTransfers(app, launching: launching) else {
                    wakes.withLock { $0.wakeCutShort(app) }
                    logger.notice("\(app): could not be launched or resumed for its transfer events")
                    continue
                }
                apps.withLock { $0[app] }?.engine.relaunched()
                logger.notice(
                    "\(app): \(launching ? "launched" : "resumed") for the events of \(sessions.joined(separator: ", "))"
                )
            case .handleEvents(let app, let session):
                // A running background process: asked at once (it hears the events when it
                // attaches the session).
                engine.transferRoute(app)?.link?.send(.system(.transfer(.handleEvents(session: session))))
            case .endWake(let app, let timedOut):
                if timedOut {
                    logger.warning(
                        "\(app): did not call the completion handler of handleEventsForBackgroundURLSession in \(wakes.withLock { $0.timeLimit })"
                    )
                }
                engine.deliver(.backgroundWakeReturned(app))
            }
        }
        engine.rearmWakeup()
    }

    /// The app's launch callbacks returned (`backgroundWakeReturned`): if it was woken for
    /// transfer events, it now gets `handleEventsForBackgroundURLSession` for each session, and
    /// the return is held (the app stays in the background) until it calls each completion
    /// handler. Returns whether the event is held.
    func holdsWakeReturn(of app: AppID, link: any ClientLink) -> Bool {
        let actions = wakes.withLock { $0.launchCallbacksReturned(app) }
        guard !actions.isEmpty, let entry = apps.withLock({ $0[app] }) else { return false }
        for case .handleEvents(_, let session) in actions {
            link.send(.system(.transfer(.handleEvents(session: session))))
            // A session the process attached during its launch hears its events now.
            replay(app, session: session, known: entry.engine.transfers(session: session), engine: entry.engine)
        }
        return true
    }

    /// The app called a completion handler of `handleEventsForBackgroundURLSession`: when none
    /// is outstanding, its wake returns (it may be suspended again).
    func eventsHandled(_ app: AppID, session: String) {
        carryOut(wakes.withLock { $0.handlerCalled(app, session: session) })
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
                wakes.withLock { $0.forceQuit(app) }
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

    /// The app's process ended: its sessions have no destination until a new one attaches them,
    /// and what was sent to it and not acknowledged waits again, for a new wake.
    private func processEnded(_ app: AppID) {
        let waiting = apps.withLock { apps -> [String] in
            guard var entry = apps[app] else { return [] }
            for name in entry.sessions.keys.sorted() {
                guard var session = entry.sessions[name] else { continue }
                session.attachedBy = nil
                session.ready.formUnion(session.sent)
                session.sent = []
                entry.sessions[name] = session
            }
            apps[app] = entry
            return entry.sessions.keys.sorted().filter { name in
                guard let session = entry.sessions[name] else { return false }
                return !session.ready.isEmpty && session.options.sendsLaunchEvents
            }
        }
        let relaunchAt = relaunchTime(of: app)
        wakes.withLock { wakes in
            for session in waiting { wakes.eventsWaiting(app, session: session, relaunchAt: relaunchAt) }
            wakes.processEnded(app, relaunchAt: relaunchAt)
        }
        engine?.rearmWakeup()
    }
}
