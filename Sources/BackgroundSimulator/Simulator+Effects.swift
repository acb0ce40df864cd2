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
        case .deliverDidEnterBackground(let app):
            onMainActor(of: app, returning: .didEnterBackgroundReturned(app)) {
                $0.application.deliverDidEnterBackground()
            }
        case .deliverBackgroundWake(let app):
            onMainActor(of: app, returning: .backgroundWakeReturned(app)) { process in
                process.application.deliverBackgroundWake()
                self.finishLaunching(process)
            }
        case .runExpirationHandler(let app, let id):
            onMainActor(of: app, returning: .expirationHandlerReturned(app, id)) { process in
                process.expirationHandlers.removeValue(forKey: id)?()
            }
        case .backgroundRefreshStatusChanged(let app, _):
            onMainActor(of: app) { $0.application.deliverBackgroundRefreshStatusChange() }
        case .runTasks(let app, let runs):
            startRuns(app, runs)
        case .expireTask(let app, let id):
            onMainActor(of: app) { process in Self.expire(id, in: process) }
        case .taskFinished(_, let id, let outcome):
            if let index = runIndex.removeValue(forKey: id) { runRecords[index].finish(outcome, at: now) }
        case .exit(let app, _, let report), .terminate(let app, let report):
            reports.append(report)
            endProcess(app)
        case .fault(let app, let message):
            faults.append((app, message))
        case .launch(let app, let reason, _):
            startProcess(app, kind: reason == .user ? .foreground : .background)
        case .resume(let app, _):
            if let process = processes[app] { thaw(process) }
        case .assertionDenied(let app, _, _):
            // S2: "If the system is unable to grant the task assertion, it calls your expiration
            // handler": the handler of the begin this answers, queued as app code.
            if let handler = deniedHandler, let process = processes[app] { schedule(at: now, .app(process, handler)) }
            deniedHandler = nil
        case .log, .scheduleWakeup, .cancelWakeup, .persist:
            break  // bookkeeping
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
            return
        }
        if !from.hasProcess {
            // The process was started by the `.launch` effect before this one.
            if to.isForeground {
                onMainActor(of: app) { process in
                    process.application.deliverTransition(from: from, to: to)
                    self.finishLaunching(process)
                }
            }
            return
        }
        guard let process = processes[app] else { return }
        if to == .suspended {
            process.isFrozen = true
            return
        }
        onMainActor(of: app) { $0.application.deliverTransition(from: from, to: to) }
    }

    /// Resumes a frozen process: the work that waited runs now, in its order.
    private func thaw(_ process: AppProcess) {
        process.isFrozen = false
        let waiting = process.deferred
        process.deferred = []
        for work in waiting { schedule(at: now, .app(process, work)) }
    }

    /// Ends the process's launch once its launch code and `didFinishLaunching` ran.
    func finishLaunching(_ process: AppProcess) {
        guard !process.hasFinishedLaunching else { return }
        process.hasFinishedLaunching = true
        send(.finishLaunching(process.app))
    }

    /// Queues app code on the app's main actor, then tells the system the callback returned
    /// (when the main thread is free again, if the code blocked it).
    private func onMainActor(
        of app: AppID,
        returning event: Event? = nil,
        _ work: @escaping @MainActor (AppProcess) -> Void
    ) {
        guard let process = processes[app] else { return }
        schedule(
            at: now,
            .app(
                process,
                {
                    work(process)
                    guard let event else { return }
                    if process.mainThreadFreeAt > self.now {
                        self.schedule(at: process.mainThreadFreeAt, .app(process, { self.fromApp(process) { event } }))
                    } else {
                        self.fromApp(process) { event }
                    }
                }
            )
        )
    }

    private func startRuns(_ app: AppID, _ started: [TaskRun]) {
        guard let process = processes[app] else { return }
        for run in started {
            runIndex[run.id] = runRecords.count
            runRecords.append(TaskRunRecord(app: app, run: run))
            if run.request.kind == .fetch {
                onMainActor(of: app) { process in
                    let completion = FetchCompletion(connection: process.application.connection, run: run.id)
                    if let delegate = process.application.delegate {
                        delegate.application(process.application, performFetchWithCompletionHandler: completion.call)
                    } else {
                        completion.call(.noData)
                    }
                }
                continue
            }
            let task = BGTask.make(for: run, connection: process.application.connection)
            process.liveTasks[run.id] = task
            onMainActor(of: app) { process in
                // Launch handlers run on the main actor whatever queue they named: one thread
                // keeps the run deterministic.
                process.taskHandlers[run.request.identifier]?.handler(task)
            }
        }
    }

    /// Calls the task's expiration handler, or, without one, completes it unsuccessfully (R2.14).
    private static func expire(_ id: TaskRunID, in process: AppProcess) {
        guard let task = process.liveTasks[id] else { return }
        let handler = task.takeExpirationHandler()
        if let handler = handler.value {
            handler()
        } else {
            task.setTaskCompleted(success: false)
        }
    }
}
