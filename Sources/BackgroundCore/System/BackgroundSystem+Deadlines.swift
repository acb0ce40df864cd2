/// What falls due at a deadline.
enum DeadlineKind: Sendable, Hashable {
    /// `applicationDidEnterBackground(_:)`, or the launch or resume callbacks, ran out of time.
    case callbacksTimeout
    /// Time to call the expiration handlers.
    case expirationStart
    /// The running expiration handler ran out of time.
    case expirationHandlerTimeout
    /// The budget ran out.
    case budgetEnd
    /// A task run's time is nearly up (or a continued task stalled): call its expiration handler.
    case taskExpiration(TaskRunID)
    /// A task run was not completed in time: the watchdog ends the app.
    case taskKill(TaskRunID)
}

extension BackgroundSystem {
    /// The earliest deadline of one app, if it has any.
    ///
    /// It reads the record's fields in place: a copy of the whole record (its dictionaries,
    /// ledger and history) for each app the deadline search visits was most of its cost.
    func deadline(ofAppAt index: Int) -> (at: Instant, kind: DeadlineKind)? {
        var best: (at: Instant, kind: DeadlineKind)?
        func consider(_ at: Instant?, _ kind: DeadlineKind) {
            guard let at else { return }
            if best == nil || at < best!.at { best = (at, kind) }
        }
        // On a tie the first considered wins: expiration comes before the budget's end.
        consider(apps[index].callbacks?.deadline, .callbacksTimeout)
        let budget = apps[index].budget
        if let endsAt = budget.endsAt, !budget.expirationStarted {
            consider(max(budget.tickingSince ?? endsAt, endsAt - policy.expirationLeadTime), .expirationStart)
        }
        if apps[index].expiration != nil {
            consider(apps[index].expiration?.currentDeadline, .expirationHandlerTimeout)
        } else if let endsAt = budget.endsAt {
            // The budget's end waits while handlers run: their own watchdog bounds the wait.
            consider(endsAt, .budgetEnd)
        }
        guard !apps[index].running.isEmpty else { return best }
        // Running tasks' deadlines tie by run identifier, never by the dictionary's order
        // (Swift seeds hashing per process: the same seed must give the same run anywhere).
        var earliestRun: (at: Instant, kind: DeadlineKind, id: TaskRunID)?
        for run in apps[index].running.values {
            guard let due = deadline(of: run) else { continue }
            if earliestRun == nil || (due.at, run.id) < (earliestRun!.at, earliestRun!.id) {
                earliestRun = (due.at, due.kind, run.id)
            }
        }
        if let earliestRun { consider(earliestRun.at, earliestRun.kind) }
        return best
    }

    /// The deadline the index keeps for an app: its earliest, if it is in the background or
    /// running tasks (no other app can have one).
    func indexedDeadline(ofAppAt index: Int) -> Instant? {
        guard backgroundApps.contains(index) || busyApps.contains(index) else { return nil }
        return deadline(ofAppAt: index)?.at
    }

    /// Brings the deadline index up to date with the records changed since it last looked,
    /// counting each as a visit.
    mutating func refreshDeadlineIndex() {
        guard apps.hasChangesForDeadlines else { return }
        let changed = apps.takeChangedForDeadlines()
        countVisits(changed.count)
        for index in changed {
            deadlineIndex.set(indexedDeadline(ofAppAt: index), forAppAt: index)
        }
    }

    /// The earliest deadline of all apps, and whose it is, from the index: the apps whose
    /// records changed since the last search, then the one whose deadline it is. Ties go to the
    /// lower record index.
    mutating func searchDeadlines() -> (at: Instant, kind: DeadlineKind, index: Int)? {
        refreshDeadlineIndex()
        guard let entry = deadlineIndex.earliest(), let found = deadline(ofAppAt: entry.app) else { return nil }
        assert(found.at == entry.at, "the deadline index is stale for \(apps[entry.app].id)")
        countVisits(1)
        return (found.at, found.kind, entry.app)
    }

    /// The earliest deadline of all apps by visiting every app that can have one: what the
    /// index must agree with (the full invariant check compares them).
    func scanEarliestDeadline() -> (at: Instant, kind: DeadlineKind, index: Int)? {
        var best: (at: Instant, kind: DeadlineKind, index: Int)?
        for index in backgroundApps.union(busyApps) {
            guard let found = deadline(ofAppAt: index) else { continue }
            if best == nil || (found.at, index) < (best!.at, best!.index) { best = (found.at, found.kind, index) }
        }
        return best
    }

    mutating func countVisits(_ apps: Int) {
        appsVisited &+= apps
    }

    /// Judges `event` (an illegal lifecycle transition is refused) against the state the
    /// deadlines due before `now` leave, and runs those deadlines unless it is refused.
    ///
    /// A refused event changes nothing, not even the overdue deadlines. When they cannot change
    /// the verdict (``overdueDeadlinesKeepVerdict(on:before:)``), the event is judged first and
    /// they run in place; otherwise they run on a copy, kept only if the event is accepted. The
    /// copy costs in proportion to the state (it counts as visiting every app), so only the
    /// rare event whose verdict they may change pays for it.
    mutating func runOverdueDeadlines(
        judging event: Event,
        before now: Instant,
        into effects: inout [Effect]
    ) throws(BackgroundSystemError) {
        guard let next = nextDeadline, next < now else {
            if let error = validate(event) { throw error }
            return
        }
        guard !event.canBeRefused || overdueDeadlinesKeepVerdict(on: event, before: now) else {
            countVisits(apps.count)
            var advanced = self
            var overdue: [Effect] = []
            advanced.runDeadlines(before: now, into: &overdue)
            if let error = advanced.validate(event) { throw error }
            self = advanced
            effects.append(contentsOf: overdue)
            return
        }
        if let error = validate(event) { throw error }
        runDeadlines(before: now, into: &effects)
        #if DEBUG
        let verdict = validate(event)
        assert(verdict == nil, "overdue deadlines changed the verdict on \(event): \(String(describing: verdict))")
        #endif
    }

    /// Whether the deadlines due before `now` leave the verdict on a lifecycle event as it is.
    ///
    /// The verdict reads only the event's app (its state, its force-quit mark). A deadline
    /// changes the app whose deadline it is, and, when it ends a process that held a task
    /// slot, the apps waiting in the slot lines (one may be launched). So an app with no
    /// deadline of its own before `now` keeps its state through them if it waits for no slot,
    /// or if no app holding a slot (at most ``SchedulingPolicy/maximumAppsRunningTasks``) has a
    /// deadline before `now`. (Debug builds check the verdict again after the deadlines ran.)
    func overdueDeadlinesKeepVerdict(on event: Event, before now: Instant) -> Bool {
        let app: AppID
        switch event {
        case .launch(let id, _), .activate(let id), .deactivate(let id), .enterBackground(let id),
            .enterForeground(let id), .resumeInBackground(let id), .terminate(let id, _):
            app = id
        default:
            return true  // never refused
        }
        guard let index = appIndex[app] else { return true }  // no deadline creates an app
        if let due = deadline(ofAppAt: index), due.at < now { return false }
        guard slotLines.isWaiting(index) else { return true }
        return busyApps.allSatisfy { busy in deadline(ofAppAt: busy).map { $0.at >= now } ?? true }
    }

    /// Processes every deadline strictly before `now`, each at its own instant, earliest first.
    mutating func runDeadlines(before now: Instant, into effects: inout [Effect]) {
        while let due = searchDeadlines(), due.at < now {
            fire(due.kind, of: due.index, at: due.at, into: &effects)
        }
        appDeadline = searchDeadlines()?.at
    }

    /// Processes every deadline at or before `now`, each at its own instant, earliest first,
    /// and refreshes ``nextDeadline``.
    mutating func runDeadlines(through now: Instant, into effects: inout [Effect]) {
        while let due = searchDeadlines(), due.at <= now {
            fire(due.kind, of: due.index, at: due.at, into: &effects)
        }
        appDeadline = searchDeadlines()?.at
    }

    private mutating func fire(_ kind: DeadlineKind, of index: Int, at time: Instant, into effects: inout [Effect]) {
        let limit = policy.didEnterBackgroundTimeLimit.formattedSeconds
        switch kind {
        case .callbacksTimeout:
            let explanation: String
            switch apps[index].callbacks?.kind {
            case .backgroundWake?:
                let wake = policy.backgroundWakeTimeLimit.formattedSeconds
                explanation = "the launch or resume in the background did not finish within \(wake) s"
            default:
                // A scene-based app hears of the move from its scene delegate (the same 5 s).
                let callback =
                    apps[index].manifest?.sceneManifest == nil
                    ? "applicationDidEnterBackground(_:)" : "sceneDidEnterBackground(_:)"
                explanation = "\(callback) did not return within \(limit) s"
            }
            end(index, reason: .watchdog(.watchdogTimeout), explanation: explanation, at: time, into: &effects)
        case .expirationStart:
            startExpiration(of: index, at: time, into: &effects)
        case .expirationHandlerTimeout:
            expirationHandlerTimedOut(index, at: time, into: &effects)
        case .budgetEnd:
            apps[index].budget.stopTicking(at: time)
            guard !apps[index].ledger.isEmpty else { return settle(index, at: time, into: &effects) }
            end(
                index,
                reason: .watchdog(.watchdogTimeout),
                explanation: "has active assertions beyond permitted time",
                at: time,
                into: &effects
            )
        case .taskExpiration, .taskKill:
            fireTaskDeadline(kind, of: index, at: time, into: &effects)
        }
    }

    mutating func startExpiration(of index: Int, at time: Instant, into effects: inout [Effect]) {
        apps[index].budget.expirationStarted = true
        let handlers = apps[index].ledger.takeUndeliveredHandlers()
        let remaining = apps[index].budget.remaining(at: time).formattedSeconds
        let message = "background time expiring (\(remaining) s left): calling \(handlers.count) expiration handler(s)"
        effects.append(.log(LogRecord(.notice, app: apps[index].id, message)))
        guard !handlers.isEmpty else { return }
        apps[index].expiration = ExpirationRun(startedAt: time, pending: handlers)
        callNextHandler(of: index, at: time, into: &effects)
    }

    /// Calls the next pending handler whose assertion is still held; finishes the run if none is.
    private mutating func callNextHandler(of index: Int, at time: Instant, into effects: inout [Effect]) {
        guard var run = apps[index].expiration else { return }
        while !run.pending.isEmpty {
            let id = run.pending.removeFirst()
            guard apps[index].ledger.contains(id) else { continue }
            run.current = id
            run.currentName = apps[index].ledger.assertion(id)?.name ?? ""
            // No handler may run past the budget's end: the tightest of the three limits wins.
            var deadline = min(
                time + policy.expirationHandlerTimeLimit,
                run.startedAt + policy.expirationHandlersTotalTimeLimit
            )
            if let budgetEnd = apps[index].budget.endsAt { deadline = min(deadline, max(budgetEnd, time)) }
            run.currentDeadline = deadline
            apps[index].expiration = run
            effects.append(.runExpirationHandler(apps[index].id, id))
            return
        }
        apps[index].expiration = nil
        settle(index, at: time, into: &effects)
    }

    mutating func expirationHandlerReturned(
        _ app: AppID,
        _ id: AssertionID,
        at now: Instant,
        into effects: inout [Effect]
    ) {
        guard let index = appIndex[app], apps[index].expiration?.current == id else {
            effects.append(.log(LogRecord(.debug, app: app, "expiration handler of \(id) returned late; ignored")))
            return
        }
        callNextHandler(of: index, at: now, into: &effects)
    }

    private mutating func expirationHandlerTimedOut(_ index: Int, at time: Instant, into effects: inout [Effect]) {
        guard let run = apps[index].expiration, let id = run.current else { return }
        let name = run.currentName
        let explanation: String
        if let budgetEnd = apps[index].budget.endsAt, time >= budgetEnd {
            explanation =
                "expiration handler of background task \"\(name)\" #\(id) was still running when the background time ran out"
        } else if time - run.startedAt >= policy.expirationHandlersTotalTimeLimit {
            let total = policy.expirationHandlersTotalTimeLimit.formattedSeconds
            explanation = "expiration handlers did not finish within \(total) s in total (running: \"\(name)\" #\(id))"
        } else {
            let each = policy.expirationHandlerTimeLimit.formattedSeconds
            explanation = "expiration handler of background task \"\(name)\" #\(id) did not return within \(each) s"
        }
        end(index, reason: .watchdog(.watchdogTimeout), explanation: explanation, at: time, into: &effects)
    }
}
