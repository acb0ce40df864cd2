extension BackgroundSystem {
    /// Starts runs for requests the app can take now, as one batch.
    mutating func startRuns(_ index: Int, _ requests: [TaskRequest], at now: Instant, into effects: inout [Effect]) {
        var runs: [TaskRun] = []
        for request in requests {
            guard request.kind.isDelegateCallback || apps[index].registered.contains(request.identifier) else {
                effects.append(.fault(apps[index].id, message: Self.missingHandlerMessage(request.identifier)))
                continue
            }
            runCount += 1
            let runtime = policy.scheduling.runtime(of: request.kind)
            let run = TaskRun(
                id: TaskRunID(rawValue: runCount),
                request: request,
                startedAt: now,
                expiresAt: runtime.map { now + $0 - min($0, policy.scheduling.taskExpirationLeadTime) },
                killAt: runtime.map { now + $0 }
            )
            apps[index].running[run.id] = run
            if request.kind == .continuedProcessing { continuedRunning += 1 }
            if request.kind == .fetch { apps[index].lastFetchAt = now }
            runs.append(run)
        }
        refreshBusy(index)
        updateBudgetTicking(index, at: now)
        guard !runs.isEmpty else { return settle(index, at: now, into: &effects) }
        let names = runs.map { "\"\($0.request.identifier)\" (\($0.request.kind))" }.joined(separator: ", ")
        effects.append(.log(LogRecord(.notice, app: apps[index].id, "running \(names)")))
        effects.append(.runTasks(apps[index].id, runs))
    }

    mutating func completeTask(
        _ app: AppID,
        _ id: TaskRunID,
        success: Bool,
        at now: Instant,
        into effects: inout [Effect]
    ) {
        guard let index = appIndex[app], let run = apps[index].running[id] else {
            // R2.15: a second setTaskCompleted is ignored, with a log.
            let message = "setTaskCompleted for \(id), which is not running (completed already?); ignored"
            effects.append(.log(LogRecord(.warning, app: app, message)))
            return
        }
        finishRun(index, run, outcome: success ? .succeeded : .failed, at: now, into: &effects)
        settle(index, at: now, into: &effects)
        examineSlotWaiters(at: now, into: &effects)
    }

    /// Removes a finished run: spends the budget, rebuilds the fetch request, frees the slot.
    private mutating func finishRun(
        _ index: Int,
        _ run: TaskRun,
        outcome: TaskOutcome,
        at now: Instant,
        into effects: inout [Effect]
    ) {
        apps[index].running[run.id] = nil
        recordRun(index, run, outcome, at: now, into: &effects)
        updateBudgetTicking(index, at: now)
        if run.request.kind == .continuedProcessing { continuedRunning -= 1 }
        apps[index].runtimeBudget.spend(now - run.startedAt, at: now, capacity: policy.scheduling.dailyBackgroundBudget)
        refreshBusy(index)
        if run.request.kind == .fetch { scheduleNextFetch(index, at: now, into: &effects) }
        persistAppState(index, into: &effects)
        effects.append(.taskFinished(apps[index].id, run.id, outcome))
    }

    mutating func reportProgress(_ app: AppID, _ id: TaskRunID, fraction: Double, at now: Instant) {
        guard let index = appIndex[app], let run = apps[index].running[id] else { return }
        let clamped = min(1, max(0, fraction))
        guard clamped > run.progress else { return }
        apps[index].running[id]?.progress = clamped
        apps[index].running[id]?.progressUpdatedAt = now
    }

    /// Expires a run now: the user stopped it, the debugger asked, or the device is in use.
    mutating func expireNow(_ index: Int, _ id: TaskRunID, at now: Instant, into effects: inout [Effect]) {
        guard let run = apps[index].running[id], !run.expirationDelivered else { return }
        deliverExpiration(index, id, at: now, into: &effects)
    }

    /// Calls the run's expiration handler; the app then has the lead time to complete it.
    mutating func deliverExpiration(_ index: Int, _ id: TaskRunID, at now: Instant, into effects: inout [Effect]) {
        guard let run = apps[index].running[id] else { return }
        apps[index].running[id]?.expirationDelivered = true
        // The app has the lead time to complete it; early expiry (the user, the debugger, device
        // use) brings the kill forward, never back.
        let grace = now + policy.scheduling.taskExpirationLeadTime
        apps[index].running[id]?.killAt = run.killAt.map { min($0, grace) } ?? grace
        effects.append(.expireTask(apps[index].id, id))
    }

    /// The run's deadlines: expiration (or, for continued processing, a stall) and the kill.
    func deadline(of run: TaskRun) -> (at: Instant, kind: DeadlineKind)? {
        if !run.expirationDelivered {
            if let expires = run.expiresAt { return (expires, .taskExpiration(run.id)) }
            let stall = run.progressUpdatedAt + policy.scheduling.continuedProcessingStallTimeout
            return (stall, .taskExpiration(run.id))
        }
        return run.killAt.map { ($0, .taskKill(run.id)) }
    }

    mutating func fireTaskDeadline(_ kind: DeadlineKind, of index: Int, at time: Instant, into effects: inout [Effect])
    {
        switch kind {
        case .taskExpiration(let id):
            deliverExpiration(index, id, at: time, into: &effects)
        case .taskKill(let id):
            guard let run = apps[index].running[id] else { return }
            let explanation =
                "background task \"\(run.request.identifier)\" (\(run.request.kind)) was not completed before its time expired"
            end(index, reason: .watchdog(.watchdogTimeout), explanation: explanation, at: time, into: &effects)
        default:
            break
        }
    }

    /// Processing tasks end when the user starts using the device (S13).
    mutating func expireProcessingForDeviceUse(at now: Instant, into effects: inout [Effect]) {
        for index in busyApps.sorted() {
            for run in apps[index].running.values.sorted(by: { $0.id < $1.id }) where run.request.kind == .processing {
                expireNow(index, run.id, at: now, into: &effects)
            }
        }
    }

    mutating func simulateLaunch(_ app: AppID, identifier: String, at now: Instant, into effects: inout [Effect]) {
        guard let index = appIndex[app], let pending = apps[index].pending[identifier] else {
            effects.append(.log(LogRecord(.error, app: app, "No pending task request with identifier \(identifier)")))
            return
        }
        effects.append(.log(LogRecord(.notice, app: app, "Simulating launch for task with identifier \(identifier)")))
        deliver(index, [pending.request], at: now, into: &effects)
    }

    mutating func simulateExpiration(_ app: AppID, identifier: String, at now: Instant, into effects: inout [Effect]) {
        guard let index = appIndex[app],
            let run = apps[index].running.values.filter({ $0.request.identifier == identifier }).min(by: {
                $0.id < $1.id
            })
        else {
            effects.append(.log(LogRecord(.error, app: app, "No running task with identifier \(identifier)")))
            return
        }
        effects.append(
            .log(LogRecord(.notice, app: app, "Simulating expiration for task with identifier \(identifier)"))
        )
        expireNow(index, run.id, at: now, into: &effects)
    }
}
