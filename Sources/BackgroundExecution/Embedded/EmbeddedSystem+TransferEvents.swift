import BackgroundCore
import Synchronization

/// Background-session events in embedded mode while the app is suspended: a state the system
/// tracks (the process cannot freeze itself), in which app code would not run on iOS.
///
/// - While the app is not suspended, a session's events reach it at once.
/// - While it is suspended they are held, in order.
/// - A completion of a session that sends launch events (`sessionSendsLaunchEvents`, the
///   default) resumes the app in the background, as iOS does (reference §5.3): on the main actor,
///   the app is resumed, an assertion named `URLSession events` keeps it running,
///   `application(_:handleEventsForBackgroundURLSession:completionHandler:)` is called for each
///   session that woke it, then the held events are delivered (`urlSessionDidFinishEvents`
///   last). The assertion ends when every completion handler was called, or when its time runs
///   out; then the app may suspend again.
/// - A session with `sessionSendsLaunchEvents = false` never resumes the app: its events wait
///   until the app leaves the suspended state for another reason (the user opens it, a task
///   launch resumes it).
///
/// Embedded mode never launches the app for events (its process is the app's): a transfer that
/// completes after the process ended is delivered when the next launch recreates the session.
struct TransferEventHold: Sendable {
    /// Deliveries held, in the order the events came.
    var deliveries: [@Sendable () -> Void] = []
    /// The sessions to call `handleEventsForBackgroundURLSession` for, in the order they woke it.
    var sessions: [String] = []
    /// A wake for events is under way: deliveries wait for its `handleEvents` calls.
    var waking = false
}

extension EmbeddedSystem {
    /// Delivers an event of `session` now, or holds it while the app is suspended (and after,
    /// until the held ones are delivered, to keep the order); `wakes` (a completion of a session
    /// that sends launch events) resumes a suspended app for it.
    func routeTransferEvent(session: String, wakes: Bool, _ deliver: @escaping @Sendable () -> Void) {
        enum Route { case now, flush, held, wake }
        let route = state.withLock { state -> Route in
            let suspended = state.core.state(of: app) == .suspended
            var hold = state.transferHold
            defer { state.transferHold = hold }
            if !suspended && !hold.waking && hold.deliveries.isEmpty { return .now }
            hold.deliveries.append(deliver)
            if !suspended && !hold.waking { return .flush }
            if wakes && !hold.sessions.contains(session) { hold.sessions.append(session) }
            guard wakes && suspended && !hold.waking else { return .held }
            hold.waking = true
            return .wake
        }
        switch route {
        case .now: deliver()
        case .flush: flushTransferEvents()
        case .held: break
        case .wake: onMainActor { [self] in wakeForTransferEvents() }
        }
    }

    /// Delivers what was held, in order, once the app is not suspended and no wake is under way.
    func flushTransferEvents() {
        while true {
            let batch = state.withLock { state -> [@Sendable () -> Void] in
                guard !state.transferHold.waking, state.core.state(of: app) != .suspended else { return [] }
                defer {
                    state.transferHold.deliveries = []
                    state.transferHold.sessions = []
                }
                return state.transferHold.deliveries
            }
            if batch.isEmpty { return }
            for deliver in batch { deliver() }
        }
    }

    /// Resumes the app in the background for its sessions' events, on the main actor: the
    /// resume's own callbacks, which it schedules, run after this returns, so the assertion is
    /// held before the core could suspend the app again.
    @MainActor
    private func wakeForTransferEvents() {
        deliver(.resumeInBackground(app))
        let (sessions, application) = state.withLock { ($0.transferHold.sessions, $0.tables.application) }
        if state.withLock({ $0.core.state(of: app) }) != .suspended, let application, !sessions.isEmpty {
            let window = TransferEventsWindow.open(on: self, handlers: sessions.count)
            for session in sessions {
                application.delegate?.application(application, handleEventsForBackgroundURLSession: session) {
                    window.handlerCalled()
                }
            }
        }
        state.withLock {
            $0.transferHold.waking = false
            $0.transferHold.sessions = []
        }
        flushTransferEvents()
    }
}
