extension BackgroundSystem {
    /// Why a pending request has not run, and the earliest it could.
    ///
    /// ```swift
    /// if let why = system.eligibility(of: app, identifier: "com.example.cleanup", at: now) {
    ///     print(why.unmet, why.earliestRun)
    /// }
    /// ```
    ///
    /// - Returns: `nil` if the app has no pending request with that identifier.
    public func eligibility(of app: AppID, identifier: String, at now: Instant) -> Eligibility? {
        guard let index = appIndex[app], let pending = apps[index].pending[identifier] else { return nil }
        let request = pending.request
        var unmet = deviceConditions(for: request)
        if let earliest = request.earliestBegin, earliest > now { unmet.append(.notBefore(earliest)) }
        unmet += appConditions(for: request, of: index, at: max(now, self.now))
        return Eligibility(app: app, request: request, at: now, unmet: unmet)
    }

    /// Each pending request of the app (fetch is not one), with the earliest instant its
    /// explanation names: ``Eligibility/earliestRun`` of ``eligibility(of:identifier:at:)`` for
    /// each, in no particular order, found with one lookup of the app.
    ///
    /// For the simulator's invariant checker, which asks after every event for every app the
    /// event touched: device conditions never clear at a known instant, so they are skipped.
    package func pendingRequestsWithEarliestRun(
        of app: AppID,
        at now: Instant
    ) -> [(request: TaskRequest, earliestRun: Instant)] {
        guard let index = appIndex[app] else { return [] }
        var found: [(request: TaskRequest, earliestRun: Instant)] = []
        for pending in apps[index].pending.values where pending.request.kind != .fetch {
            var earliest = now
            if let begin = pending.request.earliestBegin, begin > earliest { earliest = begin }
            for condition in appConditions(for: pending.request, of: index, at: max(now, self.now)) {
                if let clears = condition.clearsAt, clears > earliest { earliest = clears }
            }
            found.append((pending.request, earliest))
        }
        return found
    }

    /// The device conditions the request needs and the device does not meet.
    func deviceConditions(for request: TaskRequest) -> [UnmetCondition] {
        let blocked = DeviceGates(for: request, policy: policy.scheduling).intersection(unmetGates)
        var unmet: [UnmetCondition] = []
        if blocked.contains(.unlocked) { unmet.append(.notUnlockedSinceBoot) }
        if blocked.contains(.externalPower) { unmet.append(.requiresExternalPower) }
        if blocked.contains(.network) { unmet.append(.requiresNetwork) }
        if blocked.contains(.idle) { unmet.append(.deviceInUse) }
        if blocked.contains(.batteryNotCritical) {
            unmet.append(.batteryCriticallyLow(level: deviceConditions.batteryLevel))
        }
        if blocked.contains(.notLowPower) { unmet.append(.lowPowerMode) }
        if blocked.contains(.refreshAllowed), !blocked.contains(.notLowPower) {
            unmet.append(.backgroundAppRefreshOff(device.restricted ? .restricted : .denied))
        }
        return unmet
    }

    /// The conditions that belong to the app rather than the device, per the kind's factors.
    func appConditions(for request: TaskRequest, of index: Int, at now: Instant) -> [UnmetCondition] {
        // Fields read in place: a copy of the whole record costs more than the rest.
        let scheduling = policy.scheduling
        let factors = scheduling.factors(for: request.kind)
        var unmet: [UnmetCondition] = []
        if factors.contains(.appSwitcher) && apps[index].forceQuit { unmet.append(.forceQuit) }
        if factors.contains(.backgroundAppRefresh) && !apps[index].refreshSwitch {
            unmet.append(.backgroundAppRefreshOff(.denied))
        }
        if factors.contains(.appUsage) { unmet += usageConditions(for: request, apps[index].usage, at: now) }
        if factors.contains(.systemBudget), let runtime = scheduling.runtime(of: request.kind) {
            let again = apps[index].runtimeBudget.availableAgain(
                runtime,
                after: now,
                capacity: scheduling.dailyBackgroundBudget
            )
            if again > now { unmet.append(.budgetExhausted(until: again)) }
        }
        // Tasks join a batch already running (R2.16): rate limiting spaces launches, not tasks.
        let batching = !apps[index].running.isEmpty || !apps[index].awaitingLaunch.isEmpty
        // Inside a batch, only the request's own last run counts: a task that resubmits itself
        // from its completion must not run again at once, for ever (a livelock the simulator's
        // fuzzer found: a 0-second refresh resubmitting itself while another run kept the batch open).
        let lastRun = batching ? apps[index].lastRunOfIdentifier[request.identifier] : apps[index].lastBackgroundRunAt
        if factors.contains(.rateLimiting), let last = lastRun {
            let next = last + scheduling.minimumBackgroundLaunchInterval
            if next > now { unmet.append(.rateLimited(until: next)) }
        }
        if request.kind == .remoteNotification, let again = silentPushAvailableAgain(index, at: now) {
            unmet.append(.rateLimited(until: again))
        }
        if request.kind == .continuedProcessing && continuedRunning >= scheduling.maximumConcurrentContinuedTasks {
            unmet.append(.concurrencyLimit)
        }
        if !busyApps.contains(index) && busyApps.count >= scheduling.maximumAppsRunningTasks {
            unmet.append(.systemBusy)
        }
        return unmet
    }

    private func usageConditions(for request: TaskRequest, _ usage: UsageHistory, at now: Instant) -> [UnmetCondition] {
        let scheduling = policy.scheduling
        if request.kind == .processing {
            return usage.wasUsed(within: scheduling.processingUsageHorizon, before: now) ? [] : [.appNotUsedRecently]
        }
        guard let window = usage.refreshWindow(at: now, policy: scheduling) else { return [.appNotUsedRecently] }
        return window > now ? [.awaitingPredictedUse(window)] : []
    }
}
