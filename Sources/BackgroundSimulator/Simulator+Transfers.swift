public import BackgroundCore

extension Simulator {
    /// The transfer engine (created at first use).
    var transferSimulation: TransferSimulation {
        if let engine = transferEngine { return engine }
        let engine = TransferSimulation(simulator: self)
        transferEngine = engine
        return engine
    }

    /// The virtual network background transfers run on: bandwidth, latency, what the servers
    /// hold and how they fail. Whether the device is connected is ``DeviceDriver/setNetwork(_:metered:)``'s.
    ///
    /// ```swift
    /// simulator.network.bandwidth = 125_000    // 1 Mbit/s
    /// simulator.network.serve("https://example.com/a.zip", VirtualResource(size: 10_000_000))
    /// ```
    public var network: VirtualNetwork {
        get { transferSimulation.network }
        set {
            let engine = transferSimulation
            engine.count()  // bytes so far moved at the old rate
            engine.network = newValue
            engine.reschedule()
        }
    }

    /// Changes the virtual network's bandwidth (bytes per second) or latency, noted in the log.
    public func setNetwork(bandwidth: Int64? = nil, latency: Duration? = nil) {
        var changed = network
        if let bandwidth { changed.bandwidth = bandwidth }
        if let latency { changed.latency = latency }
        note("network: \(changed.bandwidth) bytes/s, latency \(changed.latency.formattedSeconds) s")
        network = changed
    }

    /// The app's background transfers the system holds (waiting, running, or completed with
    /// events not yet delivered), ordered by session and task.
    public func transfers(of app: AppID) -> [SimulatedTransfer] {
        guard let engine = transferEngine else { return [] }
        return engine.transfers.values.filter { $0.checkpoint.app == app }
    }

    /// Why a transfer (`<session>#<task>`) waits, by the core's transfer rules; `nil` if the
    /// system does not hold it or it has completed.
    public func transferEligibility(of app: AppID, identifier: String) -> Eligibility? {
        guard let engine = transferEngine,
            let key = engine.transfers.keys.first(where: { $0.app == app && $0.identifier == identifier })
        else { return nil }
        return engine.queue.eligibility(of: key, at: now)
    }

    /// The invariants of transfers, checked at each completion: none completes while the network
    /// is down, bytes never exceed the size, a force-quit app's transfers never complete.
    func checkTransferCompletion(_ transfer: SimulatedTransfer, outcome: TransferOutcome, forceQuit: Bool) {
        guard configuration.checksInvariants else { return }
        let key = transfer.key
        if outcome.errorCode == nil && deviceState.network == .none {
            checker.add(
                InvariantViolation(.transfersHold, "\(key.identifier) completed with no network", at: now, app: key.app)
            )
        }
        if transfer.bytes > transfer.size {
            checker.add(
                InvariantViolation(
                    .transfersHold,
                    "\(key.identifier) moved \(transfer.bytes) bytes of \(transfer.size)",
                    at: now,
                    app: key.app
                )
            )
        }
        if forceQuit && outcome.errorCode != -999 {
            checker.add(
                InvariantViolation(
                    .transfersHold,
                    "\(key.identifier) completed after its app was force-quit",
                    at: now,
                    app: key.app
                )
            )
        }
        flushViolations()
    }
}
