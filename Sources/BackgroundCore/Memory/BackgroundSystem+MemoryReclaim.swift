extension BackgroundSystem {
    /// The machine reported memory pressure (``Event/memoryPressure(_:)``): one reclaim step,
    /// the way iOS's jetsam does it. Shells send the event again while the pressure lasts.
    ///
    /// 1. A suspended app is ended (reason ``TerminationReason/systemReclaimed``, with a
    ///    report), the least recently used first (its last foreground launch; never opened
    ///    first; ties by bundle identifier).
    /// 2. Else every background app holding assertions whose expiration has not started gets
    ///    its expiration handlers now, before anything is killed.
    /// 3. Else, only at ``MemoryPressure/critical``, a background app whose expiration handlers
    ///    have run (or that holds none) is ended, least recently used first.
    ///
    /// The foreground app is never reclaimed. ``MemoryPressure/normal`` changes nothing.
    mutating func reclaimMemory(_ pressure: MemoryPressure, at now: Instant, into effects: inout [Effect]) {
        memoryPressure = pressure
        guard pressure > .normal else { return }
        let order = reclaimOrder()
        if let index = order.first(where: { apps[$0].state == .suspended }) {
            effects.append(.log(LogRecord(.notice, app: apps[index].id, "memory pressure (\(pressure)): reclaiming")))
            end(
                index,
                reason: .systemReclaimed,
                explanation: "the system reclaimed the suspended app under memory pressure (\(pressure))",
                at: now,
                into: &effects
            )
            return
        }
        let warned = order.filter { index in
            apps[index].state == .background && !apps[index].ledger.isEmpty && !apps[index].budget.expirationStarted
        }
        if !warned.isEmpty {
            for index in warned {
                let message = "memory pressure (\(pressure)): calling the expiration handlers early"
                effects.append(.log(LogRecord(.notice, app: apps[index].id, message)))
                startExpiration(of: index, at: now, into: &effects)
            }
            return
        }
        guard pressure == .critical,
            let index = order.first(where: { apps[$0].state == .background && apps[$0].expiration == nil })
        else {
            effects.append(.log(LogRecord(.info, app: nil, "memory pressure (\(pressure)): nothing to reclaim")))
            return
        }
        end(
            index,
            reason: .systemReclaimed,
            explanation: "the system reclaimed the background app under critical memory pressure",
            at: now,
            into: &effects
        )
    }

    /// The apps reclaim would end, in its order: suspended apps first, then background apps, each
    /// least recently used first (ties by bundle identifier). Foreground and not-running apps
    /// are never in it. `bgctl status` shows its head as "who would go next".
    public var reclaimCandidates: [AppID] { reclaimOrder().map { apps[$0].id } }

    /// The memory pressure last reported.
    public var currentMemoryPressure: MemoryPressure { memoryPressure }

    private func reclaimOrder() -> [Int] {
        let rank: (AppLifecycleState) -> Int? = { state in
            switch state {
            case .suspended: 0
            case .background: 1
            default: nil
            }
        }
        return apps.indices.compactMap { index in rank(apps[index].state).map { (index, $0) } }
            .sorted { lhs, rhs in
                let left = (lhs.1, apps[lhs.0].usage.lastLaunch ?? .zero, apps[lhs.0].id.bundleIdentifier)
                let right = (rhs.1, apps[rhs.0].usage.lastLaunch ?? .zero, apps[rhs.0].id.bundleIdentifier)
                if left.0 != right.0 { return left.0 < right.0 }
                if left.1 != right.1 { return left.1 < right.1 }
                return left.2 < right.2
            }
            .map(\.0)
    }
}
