extension TransferQueue {
    /// Why a transfer waits, through the same ``Eligibility`` as task requests: the device's
    /// conditions first (power, network, the network's kind), then `earliestBeginDate`, then
    /// the app's (force quit, the relaunch delay). The eligibility's request names the transfer
    /// `<session>#<task>` with the kind ``TaskKind/transfer``.
    ///
    /// - Returns: `nil` if the queue does not hold the transfer.
    public func eligibility(of key: TransferKey, at now: Instant) -> Eligibility? {
        guard let entry = entries[key] else { return nil }
        let request = TaskRequest(
            identifier: key.identifier,
            kind: .transfer,
            earliestBegin: entry.earliestBegin,
            requiresNetworkConnectivity: true,
            requiresExternalPower: entry.requirements.isDiscretionary,
            submittedAt: entry.submittedAt
        )
        return Eligibility(app: key.app, request: request, at: now, unmet: unmetConditions(of: entry, at: now))
    }

    /// What a transfer waits for, the rules of ``eligibility(of:at:)`` without the explanation
    /// around them: ``decide(at:)`` asks this for every candidate, often (at every timer and
    /// device change), and needs no request or name.
    func unmetConditions(of entry: Entry, at now: Instant) -> [UnmetCondition] {
        var unmet = deviceConditions(for: entry.requirements)
        if let begin = entry.earliestBegin, begin > now, !entry.isRunning { unmet.append(.notBefore(begin)) }
        if isForceQuit(entry.key.app) { unmet.append(.forceQuit) }
        if entry.requirements.createdInBackground, !entry.isRunning, let until = relaunchDelayEnd(of: entry.key.app),
            until > now
        {
            unmet.append(.rateLimited(until: until))
        }
        return unmet
    }

    /// What the device and the network do not give a transfer with these requirements.
    public func deviceConditions(for requirements: TransferRequirements) -> [UnmetCondition] {
        var unmet: [UnmetCondition] = []
        if requirements.isDiscretionary && device.powerSource != .externalPower { unmet.append(.requiresExternalPower) }
        guard network.network != .none else { return unmet + [.requiresNetwork] }
        if network.network == .cellular && !requirements.allowsCellularAccess { unmet.append(.cellularNotAllowed) }
        if network.isExpensive && !requirements.allowsExpensiveNetworkAccess {
            unmet.append(.expensiveNetworkNotAllowed)
        }
        if network.isConstrained && !requirements.allowsConstrainedNetworkAccess {
            unmet.append(.constrainedNetworkNotAllowed)
        }
        if requirements.isDiscretionary && !network.isUnmetered { unmet.append(.requiresUnmeteredNetwork) }
        if requirements.isDiscretionary && device.lowPowerMode { unmet.append(.lowPowerMode) }
        return unmet
    }

    /// Starts what may start and pauses what may no longer run, and says when to ask again.
    /// Transfers the decision starts count as running from now on.
    ///
    /// A decision costs in proportion to what may have changed, not to what waits: after the
    /// device or the network changed it looks at every transfer; otherwise only at the waiting
    /// ones that were submitted, stopped, or whose app was opened or relaunched since, and at
    /// those whose timed condition (`earliestBeginDate`, the relaunch delay) has cleared by
    /// `now`. A waiting transfer that none of these touched is held by what still holds it.
    public mutating func decide(at now: Instant) -> Decision {
        var decision = Decision()
        // Every key is ordered below (priority, then age, then key), so no Set's or
        // Dictionary's order reaches the decision.
        let candidates: [TransferKey] = deviceChanged ? Array(entries.keys) : Array(takeDue(at: now))
        deviceChanged = false
        unsettled = []
        lookedAtLastDecision = candidates.count
        let ordered = candidates.compactMap { entries[$0] }.sorted { lhs, rhs in
            if lhs.requirements.priority != rhs.requirements.priority {
                return lhs.requirements.priority > rhs.requirements.priority
            }
            if lhs.submittedAt != rhs.submittedAt { return lhs.submittedAt < rhs.submittedAt }
            return lhs.key < rhs.key
        }
        for entry in ordered {
            let unmet = unmetConditions(of: entry, at: now)
            clearsAt[entry.key] = nil
            if entry.isRunning {
                guard !unmet.isEmpty else { continue }
                decision.pause.append(entry.key)
                setRunning(entry.key, false)
                // Waiting now: what holds it may clear at a time (a date set while it ran).
                if let waiting = entries[entry.key] {
                    holdUntilItClears(entry.key, unmetConditions(of: waiting, at: now), now: now)
                }
            } else if unmet.isEmpty {
                decision.start.append(entry.key)
                setRunning(entry.key, true)
            } else {
                holdUntilItClears(entry.key, unmet, now: now)
            }
        }
        decision.pause.sort()
        decision.wakeAt = nextClearing()
        return decision
    }

    /// The unsettled transfers and those whose timed condition has cleared by `now`, taken out
    /// of the time index.
    private mutating func takeDue(at now: Instant) -> Set<TransferKey> {
        var due = unsettled
        while let next = clearing.min, next.at <= now {
            clearing.removeMin()
            if clearsAt[next.key] == next.at {
                clearsAt[next.key] = nil
                due.insert(next.key)
            }
        }
        return due
    }

    /// Indexes a waiting transfer held by a timed condition, to be looked at again when it clears.
    private mutating func holdUntilItClears(_ key: TransferKey, _ unmet: [UnmetCondition], now: Instant) {
        guard let clears = unmet.compactMap(\.clearsAt).filter({ $0 > now }).min() else { return }
        clearsAt[key] = clears
        clearing.insert(Clearing(at: clears, key: key))
    }

    /// When the next waiting transfer's timed condition clears (stale index entries dropped).
    mutating func nextClearing() -> Instant? {
        while let next = clearing.min {
            if clearsAt[next.key] == next.at { return next.at }
            clearing.removeMin()
        }
        return nil
    }

    /// Every waiting transfer's eligibility, in key order (`bgctl why` without an identifier).
    public func waiting(at now: Instant) -> [Eligibility] {
        transfers.filter { !$0.isRunning }.compactMap { eligibility(of: $0.key, at: now) }
    }
}

extension TransferQueue {
    mutating func setRunning(_ key: TransferKey, _ running: Bool) {
        guard entries[key] != nil else { return }
        entries[key]?.isRunning = running
        if running {
            waitingKeys.remove(key)
            clearsAt[key] = nil
        } else {
            waitingKeys.insert(key)
        }
    }

    /// When the app's relaunch delay ends, if one was set.
    public func relaunchDelayEnd(of app: AppID) -> Instant? { launchDelays[app]?.until }

    /// When the system may launch or resume the app to deliver transfer events that became
    /// ready at `ready`: then, or when its relaunch delay ends; `nil` after a force quit (nothing
    /// relaunches the app until the user opens it).
    public func relaunchTime(of app: AppID, readyAt ready: Instant) -> Instant? {
        guard !isForceQuit(app) else { return nil }
        guard let until = launchDelays[app]?.until, until > ready else { return ready }
        return until
    }

    /// The system launched or resumed the app in the background for its transfers: the delay
    /// doubles (60 s, 120 s, 240 s…); a delay that passed without a relaunch starts again at
    /// 60 s (reference §5.6). Transfers that complete while the app runs do not count.
    public mutating func relaunched(_ app: AppID, at now: Instant) {
        var state = launchDelays[app] ?? LaunchDelay()
        if let until = state.until, now > until { state.delay = .zero }
        state.delay =
            state.delay == .zero ? policy.firstRelaunchDelay : min(state.delay * 2, policy.maximumRelaunchDelay)
        state.until = now + state.delay
        launchDelays[app] = state
        unsettle(app)  // a transfer created in the background now waits for the new delay
    }
}
