import BackgroundCore

/// Background-session events in embedded mode while the app is suspended: a state the system
/// tracks (the process cannot freeze itself), in which app code would not run on iOS.
///
/// The events of a session with `sessionSendsLaunchEvents = false` are held while the app is
/// suspended, in order, and reach the session when the app leaves that state for any reason
/// (the user opens it, a task launch resumes it): the session never resumes the app.
///
/// Partial: a session that sends launch events (the default) hears its events at once, as
/// before, even while the app is suspended: embedded mode does not resume the app in the
/// background for them nor call `handleEventsForBackgroundURLSession` (the simulator and
/// `backgroundd` do).
struct TransferEventHold: Sendable {
    /// Deliveries held, in the order the events came.
    var deliveries: [@Sendable () -> Void] = []
}

extension EmbeddedSystem {
    /// Delivers an event of a session that sends no launch events now, or holds it while the
    /// app is suspended (and after, until the held ones are flushed, to keep the order).
    func routeTransferEvent(_ deliver: @escaping @Sendable () -> Void) {
        enum Route { case now, flush, held }
        let route = state.withLock { state -> Route in
            let suspended = state.core.state(of: app) == .suspended
            if !suspended && state.transferHold.deliveries.isEmpty { return .now }
            state.transferHold.deliveries.append(deliver)
            return suspended ? .held : .flush
        }
        switch route {
        case .now: deliver()
        case .flush: flushTransferEvents()
        case .held: break
        }
    }

    /// Delivers what was held, in order, once the app is not suspended.
    func flushTransferEvents() {
        while true {
            let batch = state.withLock { state -> [@Sendable () -> Void] in
                guard state.core.state(of: app) != .suspended else { return [] }
                defer { state.transferHold.deliveries = [] }
                return state.transferHold.deliveries
            }
            if batch.isEmpty { return }
            for deliver in batch { deliver() }
        }
    }
}
