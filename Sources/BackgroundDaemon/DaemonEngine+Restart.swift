import BackgroundCore

/// Carrying on after the daemon's own restart (it was killed, `kill -9` or a crash).
///
/// The app processes the previous run started keep running, or stay frozen, in their cgroups
/// (or their process groups, under the SIGSTOP fallback); process control takes them over
/// (``AppProcesses/adoptSurvivors(of:)``) and the engine tells the core they run, before the
/// store's records are restored and before anything can fall due, so a task that falls due
/// resumes the process that is there instead of starting another:
///
/// - the core sees each survivor launched in the background, with a handler registered for
///   each exact identifier its manifest permits and its launch finished, on its behalf (it did
///   both long ago, in the previous run, which does not record registrations; iOS requires
///   every permitted identifier to be registered). When it connects again and registers them,
///   or finishes launching, again, those calls are answered as the first ones were and do not
///   reach the core (``redeclared(_:by:)``);
/// - a frozen survivor was suspended: its background wake returns at once, so it is suspended
///   again (freezing a frozen cgroup changes nothing) and stays frozen until a task, an
///   expiration or the user thaws it;
/// - a survivor that was running was doing something the dead daemon knew and this one does
///   not (an assertion, a mode, a task, the foreground): its connection died with the daemon,
///   so it has lost nothing it can see yet. Its background wake stays open for the grace (half
///   the background budget, at most 10 s, and always well inside the wake's own time limit),
///   which keeps it running without holding anything in its name: it connects again and
///   declares what it holds (``AppDeclaration``), which is checked against the adopted process
///   and applied as for any process that declares (`DaemonEngine+Declarations.swift`): its
///   assertions under the identifiers its code holds, its modes, its handlers, the foreground.
///   Then, or at the grace's end if it declared nothing, the wake returns and the app settles
///   as any app does: suspended when it holds nothing, never killed. The gap was the daemon's,
///   not the app's.
///
/// An app that connects again is checked as any app that connects (peer credentials), gets
/// its welcome, and then whatever effects waited for it (a task that fell due while it was
/// frozen resumes it, and the tasks are sent once it is back).
extension DaemonEngine {
    /// The grace a running survivor gets to connect again: the configured one, else half the
    /// background budget, at most 10 s; never more than three quarters of the background
    /// wake's time limit (the wake stays open meanwhile, and its watchdog must not fire).
    var restartGrace: Duration {
        let configured = configuration.restartGrace ?? min(.seconds(10), configuration.policy.backgroundTimeBudget / 2)
        return min(configured, configuration.policy.backgroundWakeTimeLimit * 3 / 4)
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
            let permitted = preregistered(app)
            for identifier in permitted { deliver(.registerTaskHandler(app, identifier: identifier)) }
            deliver(.finishLaunching(app))
            if survivor.isFrozen { deliver(.backgroundWakeReturned(app)) }
            state.withLock { state in
                // The launch and the wake were the daemon's own: the app's welcome, when it
                // connects, carries the state they led to.
                state.awaitingConnection[app] = []
                state.redeclarable[app] = Set(permitted.map { Redeclaration.register($0) } + [.finishLaunching])
                let incarnation = state.core.incarnation(of: app)
                state.adopted[app] = AdoptedRecord(
                    pid: survivor.pid,
                    incarnation: incarnation,
                    processIdentity: survivor.processIdentity
                )
                if !survivor.isFrozen {
                    state.restartGraces[app] = RestartGrace(incarnation: incarnation, endsAt: clock() + restartGrace)
                }
            }
            logger.notice(
                "\(app): carried on after the restart (pid \(survivor.pid), \(survivor.isFrozen ? "frozen" : "running"))"
            )
        }
    }

    /// The identifiers registered for a survivor at its adoption: each exact one its manifest
    /// permits, sorted.
    func preregistered(_ app: AppID) -> [String] {
        state.withLock { state in
            (state.installed[app]?.manifest.permittedTaskIdentifiers ?? []).filter { !$0.contains("*") }.sorted()
        }
    }

    /// Ends the restart graces due by now (all of them with `all`): the background wake of each
    /// survivor still in the same process returns, and the app settles as any app whose wake
    /// returned (suspended, unless it declared assertions or modes of its own meanwhile).
    public func endRestartGraces(all: Bool = false) {
        let now = clock()
        let due = state.withLock { state -> [AppID] in
            let apps = state.restartGraces.keys.sorted().filter { all || state.restartGraces[$0]!.endsAt <= now }
            return apps.filter { app in
                guard let grace = state.restartGraces.removeValue(forKey: app) else { return false }
                return grace.incarnation == state.core.incarnation(of: app)
            }
        }
        for app in due {
            logger.info("\(app): the restart grace ended")
            deliver(.backgroundWakeReturned(app))
        }
    }

    /// Whether `app`'s current process is a running survivor still within its restart grace.
    func inRestartGrace(_ app: AppID, in state: State) -> Bool {
        state.restartGraces[app]?.incarnation == state.core.incarnation(of: app)
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

    /// When the daemon's timer must fire next: the soonest of the core's next deadline, a restart
    /// grace's end, and a wake for transfer events due or running out.
    func nextWake(in state: State) -> Instant? {
        let grace = state.restartGraces.values.map(\.endsAt).min()
        // The transfers' wakes are locked after the engine's state, never before.
        return [state.core.nextDeadline, grace, transfers?.nextWakeDeadline].compactMap { $0 }.min()
    }
}

/// A call made for a survivor at a restart, which its process may make again when it connects.
enum Redeclaration: Hashable {
    case register(String)
    case finishLaunching
}

/// The time a running survivor has to connect again, while its background wake stays open.
struct RestartGrace {
    var incarnation: Incarnation
    var endsAt: Instant
}

/// A process the previous run of the daemon started, adopted by this run: its declaration,
/// when it connects again, is applied only if it comes from this process.
struct AdoptedRecord {
    var pid: Int32
    var incarnation: Incarnation
    /// The process's ``ProcessIdentity``, where the kernel gives one.
    var processIdentity: UInt64?
}
