extension BackgroundSystem {
    /// Checks the rules that must hold between any two events, over every app, and returns
    /// each one broken.
    ///
    /// Debug builds (`#if DEBUG`, as swift-collections' `_checkInvariants` and TigerBeetle's
    /// `defer self.invariants()`) check after every event, whoever drives the core: the apps
    /// whose records the event changed (``checkInvariants(ofAppsAt:)``), and every
    /// ``fullCheckInterval``-th event all of them with this check, so a rule broken outside the
    /// records (a stale set or index) is found too. Release builds, the simulator's included,
    /// do not run it; the simulator's own invariant checker (`InvariantViolation`) checks the
    /// rules visible from outside the core after every event, in every build.
    ///
    /// - Returns: One sentence per broken rule; empty when all hold.
    public func checkInvariants() -> [String] {
        var found: [String] = []
        if appIndex.count != apps.count {
            found.append("app index has \(appIndex.count) entries for \(apps.count) apps")
        }
        found += checkInvariants(ofAppsAt: Array(apps.indices))
        let background = Set(apps.indices.filter { apps[$0].state == .background })
        if backgroundApps != background { found.append("the set of apps in the background is stale") }
        let busy = Set(apps.indices.filter { !apps[$0].running.isEmpty || !apps[$0].awaitingLaunch.isEmpty })
        if busyApps != busy { found.append("the set of apps running tasks is stale") }
        if appDeadline != scanEarliestDeadline()?.at { found.append("cached next app deadline is stale") }
        for index in apps.indices where !apps.isPendingForDeadlines(index) {
            if deadlineIndex.deadline(ofAppAt: index) != indexedDeadline(ofAppAt: index) {
                found.append("\(apps[index].id): the deadline index is stale")
            }
        }
        return found
    }

    /// Checks the rules of the apps at `indices` (their records, their membership in the sets
    /// of apps that can have deadlines, the cached next deadline against theirs) and the
    /// system-wide ones that cost no scan; returns each one broken.
    func checkInvariants(ofAppsAt indices: [Int]) -> [String] {
        var found: [String] = []
        for position in indices {
            let record = apps[position]
            if appIndex[record.id] != position { found.append("\(record.id): index does not point at its record") }
            found += record.ledger.violations().map { "\(record.id): \($0)" }
            found += violations(of: record).map { "\(record.id): \($0)" }
            if backgroundApps.contains(position) != (record.state == .background) {
                found.append("\(record.id): the set of apps in the background is stale")
            }
            if busyApps.contains(position) != (!record.running.isEmpty || !record.awaitingLaunch.isEmpty) {
                found.append("\(record.id): the set of apps running tasks is stale")
            }
            if let due = indexedDeadline(ofAppAt: position), appDeadline.map({ due < $0 }) ?? true {
                found.append("\(record.id): its deadline \(due) is before the cached next app deadline")
            }
        }
        if let next = nextDeadline, let app = appDeadline, next > app {
            found.append("next deadline is after an app deadline")
        }
        return found
    }

    #if DEBUG
    /// How often the check after an event covers every app (``checkInvariants()``).
    static let fullCheckInterval = 256

    /// The check after an event: the apps it changed, and every app every
    /// ``fullCheckInterval``-th event.
    mutating func checkInvariantsAfterEvent() -> [String] {
        eventsChecked &+= 1
        let changed = apps.takeChangedForInvariants()
        if eventsChecked % Self.fullCheckInterval == 0 { return checkInvariants() }
        return checkInvariants(ofAppsAt: changed)
    }
    #endif

    private func violations(of record: AppRecord) -> [String] {
        var found: [String] = []
        let state = record.state
        if !state.isRunning {
            if !record.ledger.isEmpty { found.append("\(state) app holds \(record.ledger.count) assertion(s)") }
            if record.budget.isTicking { found.append("\(state) app's budget is ticking") }
            if record.expiration != nil { found.append("\(state) app has an expiration in progress") }
            if record.callbacks != nil { found.append("\(state) app awaits its background callbacks") }
            if !record.modeActivities.isEmpty { found.append("\(state) app holds a background mode") }
        }
        found += modeViolations(of: record)
        if state.isForeground && record.budget.isTicking { found.append("foreground app's budget is ticking") }
        if !state.isRunning && !record.running.isEmpty {
            found.append("\(state) app has \(record.running.count) task(s) running")
        }
        if !record.awaitingLaunch.isEmpty && (record.launchFinished || !state.isRunning) {
            found.append("tasks wait for a launch that is not under way")
        }
        for pending in record.pending.values.sorted(by: { $0.request.identifier < $1.request.identifier })
        where !pending.request.kind.isDelegateCallback {
            if let manifest = record.manifest, !manifest.permits(taskIdentifier: pending.request.identifier) {
                found.append("pending request \(pending.request.identifier) is not permitted by the manifest")
            }
        }
        if state != .background && record.callbacks != nil { found.append("\(state) app awaits background callbacks") }
        if state == .background {
            if !record.ledger.isEmpty && record.running.isEmpty && !record.budget.isTicking && record.expiration == nil
                && record.modeActivities.isEmpty
            {
                found.append("background app holds assertions but its budget is not ticking")
            }
            if !record.running.isEmpty && record.budget.isTicking {
                found.append("the budget ticks while a task runs (the task's runtime governs)")
            }
            if record.ledger.isEmpty && record.callbacks == nil && record.expiration == nil && record.running.isEmpty
                && record.awaitingLaunch.isEmpty && record.modeActivities.isEmpty
            {
                found.append("background app needs no time but was neither suspended nor ended")
            }
        }
        if record.ledger.count > policy.maximumOutstandingAssertions {
            found.append("holds \(record.ledger.count) assertions, above the limit")
        }
        if let run = record.expiration, let current = run.current, !record.ledger.contains(current),
            run.currentDeadline == nil
        {
            found.append("running expiration handler #\(current) has no deadline")
        }
        return found
    }

    /// Background modes: only declared activity modes are held, each once, in name order, and
    /// no budget ticks while one is held.
    private func modeViolations(of record: AppRecord) -> [String] {
        var found: [String] = []
        for held in record.modeActivities {
            if !held.mode.isActivity { found.append("holds '\(held.mode)', which is not an activity") }
            if record.manifest?.backgroundModes.contains(held.mode) != true {
                found.append("holds '\(held.mode)', which its UIBackgroundModes does not declare")
            }
        }
        let names = record.modeActivities.map(\.mode.rawValue)
        if names != names.sorted() || Set(names).count != names.count {
            found.append("held modes are not unique and in name order")
        }
        if !record.modeActivities.isEmpty && record.budget.isTicking {
            found.append("the budget ticks while a background mode is held")
        }
        if record.silentPushes.count > policy.scheduling.silentPushesPerWindow {
            found.append("\(record.silentPushes.count) silent pushes kept, above the budget")
        }
        return found
    }
}
