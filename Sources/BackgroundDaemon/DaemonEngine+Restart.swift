import BackgroundCore

/// Carrying on after the daemon's own restart (it was killed, `kill -9` or a crash).
///
/// The app processes the previous run started keep running, or stay frozen, in their cgroups;
/// process control takes them over (``AppProcesses/adoptSurvivors(of:)``) and the engine tells
/// the core they run, before the store's records are restored and before anything can fall
/// due, so a task that falls due resumes the process that is there instead of starting another:
///
/// - the core sees each survivor launched in the background, with a handler registered for
///   each exact identifier its manifest permits and its launch finished, on its behalf (it did
///   both long ago, in the previous run, which does not record registrations; iOS requires
///   every permitted identifier to be registered). When it connects again and registers them,
///   or finishes launching, again, those calls are answered as the first ones were and do not
///   reach the core (``redeclared(_:by:)``);
/// - a frozen survivor was suspended: it is suspended again at once (freezing a frozen cgroup
///   changes nothing) and stays frozen until a task, an expiration or the user thaws it;
/// - a survivor that was running was doing something the dead daemon knew and this one does
///   not (an assertion, a task, the foreground): its connection died with the daemon, so it has
///   lost nothing it can see yet, and it gets time to connect again and re-declare what it
///   holds: an assertion the daemon holds for it, named ``restartGraceName``, for the
///   configured grace (half the background budget, at most 10 s, unless set), which always
///   ends before the budget does. After the grace an app that declared nothing is suspended,
///   never killed: the gap was the daemon's, not the app's.
///
/// An app that connects again is checked as any app that connects (peer credentials), gets
/// its welcome, and then whatever effects waited for it (a task that fell due while it was
/// frozen resumes it, and the tasks are sent once it is back).
extension DaemonEngine {
    /// The name of the assertion the daemon holds for a running survivor while it reconnects.
    public static let restartGraceName = "backgroundd restarted: time for the app to connect again"

    /// The grace a running survivor gets: the configured one, else half the background budget,
    /// at most 10 s.
    var restartGrace: Duration {
        configuration.restartGrace ?? min(.seconds(10), configuration.policy.backgroundTimeBudget / 2)
    }

    /// Tells the core that the survivors run (see the extension's discussion).
    func adopt(_ survivors: [AdoptedProcess]) {
        for survivor in survivors.sorted(by: { $0.app < $1.app }) {
            let app = survivor.app
            guard state.withLock({ $0.installed[app] != nil && !$0.core.state(of: app).isRunningProcess }) else {
                logger.error("\(app): adopted process \(survivor.pid) not carried on: not installed or running")
                continue
            }
            state.withLock { state in
                state.adopting.insert(app)  // the `.launch` is this process, not a spawn
                state.started.insert(app)  // the daemon started it: it watches and kills it
                state.awaitingConnection[app] = []  // effects wait for it to connect again
            }
            deliver(.launch(app, .background))
            state.withLock { _ = $0.adopting.remove(app) }
            let permitted = state.withLock { state in
                (state.installed[app]?.manifest.permittedTaskIdentifiers ?? []).filter { !$0.contains("*") }.sorted()
            }
            for identifier in permitted { deliver(.registerTaskHandler(app, identifier: identifier)) }
            var grace: AssertionID?
            if !survivor.isFrozen {
                let name = Self.restartGraceName
                if case .granted(let id)? = deliver(
                    .beginAssertion(app, name: name, origin: CallSite(), hasExpirationHandler: false)
                ) {
                    grace = id
                }
            }
            deliver(.backgroundWakeReturned(app))
            state.withLock { state in
                // The launch, the wake and the grant were the daemon's own: the app's welcome,
                // when it connects, carries the state they led to.
                state.awaitingConnection[app] = []
                state.redeclarable[app] = Set(permitted.map { Redeclaration.register($0) } + [.finishLaunching])
                if let grace {
                    state.restartGraces[app] = RestartGrace(
                        incarnation: state.core.incarnation(of: app),
                        assertion: grace,
                        endsAt: clock() + restartGrace
                    )
                }
            }
            logger.notice(
                "\(app): carried on after the restart (pid \(survivor.pid), \(survivor.isFrozen ? "frozen" : "running"))"
            )
        }
    }

    /// Ends the restart graces due by now (all of them with `all`): each grace assertion still
    /// held by the same process is ended, and the app settles as any app whose last assertion
    /// ended (suspended, unless it re-declared assertions of its own meanwhile).
    public func endRestartGraces(all: Bool = false) {
        let now = clock()
        let due = state.withLock { state -> [(AppID, AssertionID)] in
            let apps = state.restartGraces.keys.sorted().filter { all || state.restartGraces[$0]!.endsAt <= now }
            return apps.compactMap { app in
                guard let grace = state.restartGraces.removeValue(forKey: app),
                    grace.incarnation == state.core.incarnation(of: app),
                    state.core.assertions(of: app).contains(where: { $0.id == grace.assertion })
                else { return nil }
                return (app, grace.assertion)
            }
        }
        for (app, assertion) in due {
            logger.info("\(app): the restart grace ended")
            deliver(.endAssertion(app, assertion))
        }
    }

    /// The answer to a call a survivor that connected again makes a second time (a handler
    /// registration or the end of its launch, made for it at the restart), or nil for a call
    /// the core must handle. Each is answered once so; the app's process is the previous run's.
    func redeclared(_ event: Event, by app: AppID) -> Reply?? {
        let redeclaration: Redeclaration
        switch event {
        case .registerTaskHandler(_, let identifier): redeclaration = .register(identifier)
        case .finishLaunching: redeclaration = .finishLaunching
        default: return nil
        }
        return state.withLock { state -> Reply?? in
            guard state.redeclarable[app]?.remove(redeclaration) != nil else { return nil }
            switch redeclaration {
            case .register(let identifier): return .some(.registered(identifier: identifier))
            case .finishLaunching: return .some(nil)
            }
        }
    }

    /// When the daemon's timer must fire next: the core's next deadline, or a restart grace's
    /// end if that is sooner.
    func nextWake(in state: State) -> Instant? {
        let grace = state.restartGraces.values.map(\.endsAt).min()
        switch (state.core.nextDeadline, grace) {
        case (let core?, let grace?): return min(core, grace)
        case (let core, nil): return core
        case (nil, let grace): return grace
        }
    }
}

/// A call made for a survivor at a restart, which its process may make again when it connects.
enum Redeclaration: Hashable {
    case register(String)
    case finishLaunching
}

/// The assertion the daemon holds for a running survivor while it connects again.
struct RestartGrace {
    var incarnation: Incarnation
    var assertion: AssertionID
    var endsAt: Instant
}
