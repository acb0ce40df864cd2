import BackgroundCore

/// Bytes on virtual time: the queue's decisions carried out, bytes counted at the shared rate,
/// scripted failures and retries, and one timer for the next thing that happens.
extension TransferSimulation {
    /// Counts the bytes that moved since the last count, at the rate each flowing transfer had.
    func count() {
        let now = simulator.now
        defer { countedAt = now }
        guard now > countedAt else { return }
        let flowing = transfers.indices.count { transfers[position: $0].sharesBandwidth }
        guard flowing > 0 else { return }
        let rate = Double(network.bandwidth) / Double(flowing)
        for position in transfers.indices where transfers[position: position].sharesBandwidth {
            let since = max(countedAt, transfers[position: position].dataFrom ?? now)
            let seconds = since < now ? (now - since).seconds : 0
            let mark = Double(transfers[position: position].nextMark)
            transfers[position: position].done = min(mark, transfers[position: position].done + rate * max(0, seconds))
        }
    }

    /// Carries out the queue's decision and re-arms the timer.
    func reschedule() {
        count()
        let now = simulator.now
        let decision = queue.decide(at: now)
        queueWake = decision.wakeAt
        for key in decision.pause {
            guard var transfer = transfers[key], transfer.phase == .running else { continue }
            transfer.phase = .waiting
            transfer.dataFrom = nil
            transfer.retryAt = nil
            transfer.failsAt = nil
            transfers[key] = transfer
            record(.paused(key, bytes: transfer.bytes, queue.eligibility(of: key, at: now)?.unmet ?? []))
        }
        for key in decision.start {
            guard transfers[key]?.phase == .waiting else {
                queue.stopped(key)
                continue
            }
            transfers[key]?.phase = .running
            startAttempt(key)
        }
        arm()
    }

    /// A new attempt: a server error answers it after the latency, else bytes flow from then.
    func startAttempt(_ key: TransferKey) {
        guard var transfer = transfers[key] else { return }
        let now = simulator.now
        transfer.retryAt = nil
        if case .serverError(let status, let attempts) = transfer.failures.first, attempts > 0 {
            transfer.failsAt = now + network.latency
            transfer.failures[0] = .serverError(status: status, attempts: attempts - 1)
            transfers[key] = transfer
            return
        }
        if case .serverError = transfer.failures.first { transfer.failures.removeFirst() }
        transfer.dataFrom = now + network.latency
        transfers[key] = transfer
        record(.started(key, from: transfer.bytes))
    }

    /// When the next thing happens: an attempt's answer, a retry, a mark of a flowing transfer.
    func nextEvent() -> Instant? {
        let now = simulator.now
        let flowingCount = transfers.indices.count { transfers[position: $0].sharesBandwidth }
        let rate = Double(network.bandwidth) / Double(max(1, flowingCount))
        var next: Instant?
        func consider(_ instant: Instant) { next = min(next ?? instant, instant) }
        for position in transfers.indices where transfers[position: position].phase == .running {
            if let retry = transfers[position: position].retryAt {
                consider(retry)
            } else if let fails = transfers[position: position].failsAt {
                consider(fails)
            } else if let from = transfers[position: position].dataFrom {
                let remaining = max(
                    0,
                    Double(transfers[position: position].nextMark) - transfers[position: position].done
                )
                // Rounded up to the microsecond, so that the mark is reached when the timer fires.
                let micros = (remaining / rate * 1_000_000).rounded(.up)
                consider(max(from, now) + .microseconds(Int64(micros)))
            }
        }
        if let wake = queueWake { consider(wake) }
        return next
    }

    /// Arms the one timer for the next event (a later arming replaces it).
    func arm() {
        guard let at = nextEvent() else {
            armedAt = nil
            return
        }
        guard at != armedAt else { return }
        armedAt = at
        timerGeneration += 1
        simulator.schedule(at: at, .transfers(timerGeneration))
    }

    /// The timer fired: count, then handle what is due, in key order.
    func fire(_ generation: UInt64) {
        guard generation == timerGeneration else { return }
        armedAt = nil
        count()
        let now = simulator.now
        for key in transfers.keys {
            guard let position = transfers.index(of: key), transfers[position: position].phase == .running else {
                continue
            }
            if let retry = transfers[position: position].retryAt, retry <= now {
                startAttempt(key)
            } else if let fails = transfers[position: position].failsAt, fails <= now {
                serverError(key)
            } else if transfers[position: position].isFlowing(at: now) {
                reachedMark(key)
            }
        }
        reschedule()
    }

    private func reachedMark(_ key: TransferKey) {
        guard var transfer = transfers[key] else { return }
        if let byte = transfer.nextFailureByte, transfer.done >= Double(min(byte, transfer.size)), byte < transfer.size
        {
            let failure = transfer.failures.removeFirst()
            if case .changesAt = failure {
                transfer.done = 0
                transfer.quarters = 0
                revisions[transfer.checkpoint.url, default: 0] += 1
            }
            transfers[key] = transfer
            interrupt(key, reason: failure.description)
            return
        }
        if transfer.done >= Double(transfer.size) {
            transfer.done = Double(transfer.size)
            transfers[key] = transfer
            queue.remove(key)
            let status = 200
            finish(key, outcome: TransferOutcome(statusCode: status, responseURL: transfer.checkpoint.url))
            return
        }
        let reported = transfer.quarters
        while transfer.quarters < 3, transfer.done >= Double(transfer.size * Int64(transfer.quarters + 1) / 4) {
            transfer.quarters += 1
        }
        guard transfer.quarters > reported else { return }  // nothing changed: no write back
        transfers[key] = transfer
        progressed(key)
    }

    private func serverError(_ key: TransferKey) {
        guard let transfer = transfers[key], case .serverError(let status, _) = transfer.failures.first else { return }
        if transfer.failedAttempts + 1 >= Self.maximumAttempts {
            queue.remove(key)
            // Apple delivers a lasting 5xx as a response, not an error.
            finish(key, outcome: TransferOutcome(statusCode: status, responseURL: transfer.checkpoint.url))
            return
        }
        interrupt(key, reason: "HTTP \(status)")
    }

    /// An attempt failed: a retry after the backoff (1 s, doubling, at most 60 s).
    private func interrupt(_ key: TransferKey, reason: String) {
        guard var transfer = transfers[key] else { return }
        transfer.failedAttempts += 1
        var backoff = Self.firstBackoff
        for _ in 1..<max(1, transfer.failedAttempts) { backoff = min(backoff * 2, Self.maximumBackoff) }
        transfer.retryAt = simulator.now + backoff
        transfer.dataFrom = nil
        transfer.failsAt = nil
        transfers[key] = transfer
        record(.interrupted(key, reason: reason, retryAfter: backoff))
    }
}
