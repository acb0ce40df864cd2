import BackgroundCore
import BackgroundExecution

extension Simulator {
    /// Carries out the system's effects, in order. App code never runs here: it is queued on
    /// the main actor at the current instant, behind what is already queued, as on a device.
    func perform(_ effects: [Effect]) {
        let changes = effects.compactMap { effect -> StoreChange? in
            if case .persist(let change) = effect { change } else { nil }
        }
        if !changes.isEmpty { store.apply(changes, clock: wallClock) }
        for effect in effects {
            switch effect {
            case .scheduleWakeup, .cancelWakeup, .persist: break
            default: record(.system(effect))
            }
            perform(effect)
        }
    }

    /// The mapping from the timeline to wall-clock time.
    var wallClock: WallClock { WallClock(unixSecondsAtOrigin: configuration.start.timeIntervalSince1970) }

    private func perform(_ effect: Effect) {
        switch effect {
        case .stateChanged(let app, let from, let to):
            changeState(app, from: from, to: to)
        case .suspend(let app):
            processes[app]?.isFrozen = true
        case .runTasks(let app, let runs):
            for run in runs where processes[app] != nil {
                runIndex[run.id] = runRecords.count
                runRecords.append(TaskRunRecord(app: app, run: run))
            }
        case .taskFinished(_, let id, let outcome):
            if let index = runIndex.removeValue(forKey: id) { runRecords[index].finish(outcome, at: now) }
        case .exit(let app, _, let report), .terminate(let app, let report):
            reports.append(report)
            endProcess(app)
        case .fault(let app, let message):
            raise(BackgroundFault(api: "BGTaskScheduler", message: message, app: app))
        case .launch(let app, let reason, _):
            startProcess(app, kind: reason == .user ? .foreground : .background)
        case .resume(let app, _):
            if let process = processes[app] { thaw(process) }
        case .assertionDenied, .assertionRevoked, .runExpirationHandler, .deliverDidEnterBackground,
            .deliverBackgroundWake,
            .backgroundRefreshStatusChanged, .expireTask, .powerStateChanged:
            break  // the app runtime's
        case .log, .scheduleWakeup, .cancelWakeup, .persist, .modeChanged:
            break  // bookkeeping (the timeline reads modes from the recorded effects)
        }
        // The app's own part, by the runtime users run (the process may have just ended).
        if let app = effect.app, let process = processes[app] {
            let denied = deniedHandler
            if case .assertionDenied = effect { deniedHandler = nil }
            process.connection.carryOut(effect, deniedHandler: denied)
            switch effect {
            case .stateChanged, .runExpirationHandler, .backgroundRefreshStatusChanged, .powerStateChanged:
                publish(process)
            default: break
            }
        }
    }

    private func changeState(_ app: AppID, from: AppLifecycleState, to: AppLifecycleState) {
        if to == .background { backgroundApps.insert(app) } else { backgroundApps.remove(app) }
        if from == .background && to != .background {
            // The budget lane's last point in the background: where it stood when the app left.
            let remaining = core.backgroundTimeRemaining(of: app, at: now) ?? .zero
            record(.budget(app, remaining: to.hasProcess ? remaining : .zero, depleting: false))
            lastBudgetSample[app] = nil
        }
        if !to.hasProcess {
            endProcess(app)
        } else if to == .suspended {
            processes[app]?.isFrozen = true
        }
    }

    /// Resumes a frozen process: the work that waited runs now, in its order.
    private func thaw(_ process: AppProcess) {
        process.isFrozen = false
        let waiting = process.deferred
        process.deferred = []
        for work in waiting { schedule(at: now, .app(process, work)) }
        // Transfer events that waited for the process (a session that sends no launch events).
        transferEngine?.deliverPending(process.app)
    }

    /// Ends the process's launch once its launch code and `didFinishLaunching` ran.
    func finishLaunching(_ process: AppProcess) {
        guard !process.hasFinishedLaunching else { return }
        process.hasFinishedLaunching = true
        send(.finishLaunching(process.app))
    }

    /// Queues app code on the process's main actor, then tells the system the callback returned
    /// (when the main thread is free again, if the code blocked it).
    func runOnMainActor(of process: AppProcess, returning event: Event?, _ work: @escaping @MainActor () -> Void) {
        schedule(
            at: now,
            .app(
                process,
                { [unowned self] in
                    work()
                    guard let event else { return }
                    if process.mainThreadFreeAt > self.now {
                        self.schedule(
                            at: process.mainThreadFreeAt,
                            .app(process, { [unowned self] in self.fromApp(process) { event } })
                        )
                    } else {
                        self.fromApp(process) { event }
                    }
                }
            )
        )
    }
}
