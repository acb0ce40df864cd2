import HeapModule

/// An app whose parked requests should be looked at again at an instant.
struct ParkedWake: Sendable, Comparable {
    let at: Instant
    let app: Int

    static func < (lhs: ParkedWake, rhs: ParkedWake) -> Bool { (lhs.at, lhs.app) < (rhs.at, rhs.app) }
}

extension BackgroundSystem {
    /// The device gates not met now.
    var unmetGates: DeviceGates {
        DeviceGates(unmetBy: deviceConditions, refresh: device, policy: policy.scheduling)
    }

    /// Moves due requests out of the queue and hands over every one whose app may run it now.
    ///
    /// Work is proportional to what falls due: open groups are found in O(groups), due entries
    /// are popped from their heaps, and apps parked on a time are woken from a heap.
    mutating func dispatch(at now: Instant, into effects: inout [Effect]) {
        var toExamine: [Int] = []
        var released: [QueueEntry] = []
        do {
            // A read-only view of the records for the staleness check; it ends with this scope,
            // before the records change, so the array is never copied.
            let records = apps.records
            released = queue.releaseDue(at: now, unmet: unmetGates) { Self.isCurrent($0, in: records) }
        }
        for entry in released {
            apps[entry.app].pending[entry.identifier]?.released = true
            toExamine.append(entry.app)
        }
        while let top = parkedWakes.min, top.at <= now {
            _ = parkedWakes.removeMin()
            if apps[top.app].parkedUntil == top.at {
                apps[top.app].parkedUntil = nil
                toExamine.append(top.app)
            }
        }
        guard !toExamine.isEmpty else { return }
        for index in Set(toExamine).sorted() {
            examine(index, at: now, into: &effects)
        }
    }

    /// Whether a queue entry still stands for its app's pending request.
    static func isCurrent(_ entry: QueueEntry, in apps: [AppRecord]) -> Bool {
        guard let pending = apps[entry.app].pending[entry.identifier] else { return false }
        return pending.sequence == entry.sequence && !pending.released
    }

    /// Looks at an app's released requests: hands over those it may run now, returns to the
    /// queue those the device blocks again, and parks the app on whatever else holds them.
    mutating func examine(_ index: Int, at now: Instant, into effects: inout [Effect]) {
        countVisits(1)
        if apps[index].state.isRunning && !apps[index].launchFinished {
            // Its process is still launching: requests stay pending until it finishes (and has
            // registered its handlers), then go out together.
            apps[index].parkedUntilEvent = true
            return
        }
        let gatesUnmet = unmetGates
        var deliverable: [TaskRequest] = []
        var retryAt: Instant?
        var waitsOnEvent = false
        var waitsOnSlot: Slot?
        for request in apps[index].releasedRequests {
            if !DeviceGates(for: request, policy: policy.scheduling).isDisjoint(with: gatesUnmet) {
                enqueue(index, request, into: &effects)  // blocked by the device again: back in the queue
                continue
            }
            let unmet = appConditions(for: request, of: index, at: now)
            let untimed = unmet.filter { $0.clearsAt == nil }
            if unmet.isEmpty {
                deliverable.append(request)
            } else if !untimed.isEmpty, untimed.allSatisfy({ $0 == .systemBusy || $0 == .concurrencyLimit }) {
                // Looked at again when a slot frees; timed conditions are checked then. Without
                // a place among the apps running tasks nothing of the app can run.
                waitsOnSlot = untimed.contains(.systemBusy) || waitsOnSlot == .app ? .app : .continued
            } else if untimed.isEmpty {
                let at = unmet.compactMap(\.clearsAt).reduce(now, max)
                retryAt = retryAt.map { min($0, at) } ?? at
            } else {
                waitsOnEvent = true
            }
        }
        if !deliverable.isEmpty { deliver(index, deliverable, at: now, into: &effects) }
        apps[index].parkedUntilEvent = waitsOnEvent
        if let slot = waitsOnSlot { slotLines.wait(index, for: slot) }
        if let retryAt { park(index, until: retryAt) }
    }

    mutating func park(_ index: Int, until instant: Instant) {
        if let current = apps[index].parkedUntil, current <= instant { return }
        apps[index].parkedUntil = instant
        parkedWakes.insert(ParkedWake(at: instant, app: index))
    }

    /// Looks again at apps waiting for a free slot, first come first served, while a slot is
    /// free: an app is looked at when the slot it waits for frees, and the others wait on
    /// unlooked-at, so the work is proportional to the slots freed, not to the apps waiting.
    mutating func examineSlotWaiters(at now: Instant, into effects: inout [Effect]) {
        for slot in [Slot.app, .continued] {
            // Only those waiting now: an app that waits again goes to the back, not round again.
            var turns = slotLines.count(for: slot)
            while turns > 0, isFree(slot), let index = slotLines.next(for: slot) {
                turns -= 1
                examine(index, at: now, into: &effects)
            }
        }
    }

    /// Whether a slot of this kind is free now.
    func isFree(_ slot: Slot) -> Bool {
        switch slot {
        case .app: busyApps.count < policy.scheduling.maximumAppsRunningTasks
        case .continued: continuedRunning < policy.scheduling.maximumConcurrentContinuedTasks
        }
    }

    /// Looks again at an app parked on an event (foreground use, a switch turned on).
    mutating func examineIfParked(_ index: Int, at now: Instant, into effects: inout [Effect]) {
        guard apps[index].parkedUntilEvent else { return }
        apps[index].parkedUntilEvent = false
        examine(index, at: now, into: &effects)
    }

    /// Hands requests to the app: at once if its process is running and launched, after a
    /// launch (or resume) in the background otherwise. One batch per app (R2.16).
    mutating func deliver(_ index: Int, _ requests: [TaskRequest], at now: Instant, into effects: inout [Effect]) {
        for request in requests { removePending(index, identifier: request.identifier, into: &effects) }
        let factors = requests.reduce(SchedulingFactors()) { $0.union(policy.scheduling.factors(for: $1.kind)) }
        if factors.contains(.rateLimiting) { apps[index].lastBackgroundRunAt = now }
        for request in requests where policy.scheduling.factors(for: request.kind).contains(.rateLimiting) {
            apps[index].lastRunOfIdentifier[request.identifier] = now
        }
        if requests.contains(where: { $0.kind == .remoteNotification }) { spendSilentPush(index, at: now) }
        persistAppState(index, into: &effects)
        switch apps[index].state {
        case .notRunning, .terminated:
            launchForTasks(index, requests, at: now, into: &effects)
        case .suspended:
            setState(index, .background)
            effects.append(.resume(apps[index].id, apps[index].incarnation))
            effects.append(.stateChanged(apps[index].id, from: .suspended, to: .background))
            startRuns(index, requests, at: now, into: &effects)
        case .active, .inactive, .background:
            startRuns(index, requests, at: now, into: &effects)  // examine() waited for the launch to finish
        }
        refreshBusy(index)
    }

    private mutating func launchForTasks(
        _ index: Int,
        _ requests: [TaskRequest],
        at now: Instant,
        into effects: inout [Effect]
    ) {
        let previous = apps[index].state
        resetProcess(index)
        setState(index, .background)
        apps[index].budget.refill(policy.backgroundTimeBudget)
        apps[index].callbacks = PendingCallbacks(kind: .backgroundWake, deadline: now + policy.backgroundWakeTimeLimit)
        apps[index].awaitingLaunch = requests
        effects.append(.launch(apps[index].id, .tasks, nextIncarnation(index)))
        effects.append(.stateChanged(apps[index].id, from: previous, to: .background))
        effects.append(.deliverBackgroundWake(apps[index].id))
    }

    /// Counts a new process for the app and returns its incarnation.
    mutating func nextIncarnation(_ index: Int) -> Incarnation {
        apps[index].incarnation = Incarnation(rawValue: apps[index].incarnation.rawValue + 1)
        return apps[index].incarnation
    }

    /// Clears what belongs to a process: a new one starts with no handlers registered.
    mutating func resetProcess(_ index: Int) {
        apps[index].ledger = AssertionLedger(continuingFrom: apps[index].ledger.nextID)
        apps[index].registered = []
        apps[index].launchFinished = false
        apps[index].awaitingLaunch = []
        apps[index].running = [:]
        apps[index].expiration = nil
        apps[index].callbacks = nil
        apps[index].modeActivities = []
    }

    /// Keeps ``busyApps`` (apps with tasks running or waiting for their launch) up to date.
    mutating func refreshBusy(_ index: Int) {
        let busy = !apps[index].running.isEmpty || !apps[index].awaitingLaunch.isEmpty
        guard busy != busyApps.contains(index) else { return }
        apps.markChanged(index)  // whether it can have deadlines changed
        if busy { busyApps.insert(index) } else { busyApps.remove(index) }
    }

    mutating func persistAppState(_ index: Int, into effects: inout [Effect]) {
        let state = PersistedAppState(
            forceQuit: apps[index].forceQuit,
            refreshSwitch: apps[index].refreshSwitch,
            runtimeBudget: apps[index].runtimeBudget,
            lastBackgroundRunAt: apps[index].lastBackgroundRunAt,
            fetchInterval: apps[index].fetchInterval,
            lastFetchAt: apps[index].lastFetchAt
        )
        effects.append(.persist(.saveAppState(apps[index].id, state)))
    }

    /// The earliest instant the queue or a parked app needs the system again.
    mutating func nextSchedulingWakeup() -> Instant? {
        while let top = parkedWakes.min, apps[top.app].parkedUntil != top.at { _ = parkedWakes.removeMin() }
        var queued: Instant?
        do {
            let records = apps.records
            queued = queue.nextDue(unmet: unmetGates) { Self.isCurrent($0, in: records) }
        }
        switch (queued, parkedWakes.min?.at) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }
}
