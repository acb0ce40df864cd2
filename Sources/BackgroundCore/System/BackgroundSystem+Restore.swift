extension BackgroundSystem {
    /// Restores an app's durable state from the store, without writing it back.
    mutating func restore(_ saved: PersistedApp, at now: Instant, into effects: inout [Effect]) {
        let index = recordIndex(for: saved.app, at: now)
        if let manifest = saved.manifest { apps[index].manifest = manifest }
        // Merged with what this run already knows: a launch recorded before the restore stays.
        let merged = (saved.launches + apps[index].usage.launches).sorted()
        apps[index].usage = UsageHistory(launches: Array(merged.suffix(policy.scheduling.usageHistoryLimit)))
        if let state = saved.state {
            // An app in the foreground now was opened by the user, which clears the flag (S10).
            apps[index].forceQuit = state.forceQuit && !apps[index].state.isForeground
            apps[index].refreshSwitch = state.refreshSwitch
            // Stored values are input: a budget computed later than now counts as computed now.
            apps[index].runtimeBudget = state.runtimeBudget.restored(at: now)
            apps[index].lastBackgroundRunAt = state.lastBackgroundRunAt
            apps[index].fetchInterval = state.fetchInterval
            apps[index].lastFetchAt = state.lastFetchAt
        }
        for request in saved.pendingRequests where !request.kind.isDelegateCallback {
            if let manifest = apps[index].manifest, !manifest.permits(taskIdentifier: request.identifier) {
                let message = "dropped restored request \"\(request.identifier)\": the manifest no longer permits it"
                effects.append(.log(LogRecord(.warning, app: saved.app, message)))
                effects.append(.persist(.deletePendingRequest(saved.app, identifier: request.identifier)))
                continue
            }
            enqueue(index, request, into: &effects)
        }
        restoreHistory(saved)
        scheduleNextFetch(index, at: now, into: &effects)
        let message =
            "restored \(saved.pendingRequests.count) pending request(s) and \(saved.launches.count) launch(es)"
        effects.append(.log(LogRecord(.info, app: saved.app, message)))
    }

    /// Restores an app's saved state only to look at it (`bgctl why --store`): the state comes
    /// back as `handle(.restore(saved), at: now)` brings it, but nothing is dispatched and no
    /// deadline runs, so a request that would run now stays pending and can be explained.
    ///
    /// ```swift
    /// var system = BackgroundSystem(policy: .iOS, device: device)
    /// _ = system.restoreForInspection(saved, at: .zero)
    /// let why = system.eligibility(of: saved.app, identifier: "com.example.cleanup", at: .zero)
    /// ```
    ///
    /// - Returns: The restore's own effects (logs, and deletions of requests the manifest no
    ///   longer permits), for a caller that wants to show them; an inspector carries out none.
    public mutating func restoreForInspection(_ saved: PersistedApp, at now: Instant) -> [Effect] {
        moveClock(to: now)
        var effects: [Effect] = []
        restore(saved, at: self.now, into: &effects)
        return effects
    }
}
