import BackgroundCore
import BackgroundExecution
import Synchronization

/// One app's side of the simulator's transfer engine: the ``TransferService`` its background
/// `URLSession`s talk to, in every process of the app.
///
/// Apps call it from any thread (`resume()` from their own queues): calls from the main actor
/// are applied at once, others at the simulator's next step, through its ``CallInbox``, as the
/// app's other calls are. What must answer at once (task identifiers, the transfers a session
/// finds when it is recreated) is kept here, under a lock.
final class SimulatedTransferService: TransferService, DelegateCallRunner {
    let app: AppID
    private let inbox: CallInbox
    private struct State {
        var nextTask: [String: Int] = [:]
        var known: [String: [Int: TransferCheckpoint]] = [:]
    }
    private let state = Mutex(State())

    init(app: AppID, inbox: CallInbox) {
        self.app = app
        self.inbox = inbox
    }

    /// Runs `body` on the simulator: now from the main actor, else at its next step.
    private func apply(_ body: @escaping @MainActor @Sendable (TransferSimulation) -> Void) {
        if MainActorThread.isCurrent {
            MainActor.assumeIsolated {
                guard let simulator = inbox.simulator else { return }
                body(simulator.transferSimulation)
            }
        } else {
            inbox.post { simulator in body(simulator.transferSimulation) }
        }
    }

    func attach(
        _ session: TransferSessionOptions,
        events: @escaping @Sendable (TransferEvent) -> Void
    ) -> [TransferCheckpoint] {
        guard session.app == app else { return [] }
        let known = state.withLock { state in
            (state.known[session.session] ?? [:]).values.sorted { $0.task < $1.task }
        }
        apply { $0.attach(session, events: events) }
        return known
    }

    func reserveTaskIdentifier(app: AppID, session: String) -> Int {
        state.withLock { state in
            let next = state.nextTask[session] ?? 1
            state.nextTask[session] = next + 1
            return next
        }
    }

    func submit(_ order: TransferOrder) {
        guard order.transfer.app == app else { return }
        apply { $0.submit(order) }
    }

    func cancel(app: AppID, session: String, task: Int, resumeData: (@Sendable ([UInt8]?) -> Void)?) {
        guard app == self.app else {
            resumeData?(nil)
            return
        }
        let key = TransferKey(app: app, session: session, task: task)
        guard let resumeData else {
            apply { $0.cancel(key) }
            return
        }
        // The partial file is kept, and the resume data names it (called on the main actor; with
        // nil if the simulator is gone first, so that an awaiting caller is never left hanging).
        let answer = ResumeDataAnswer(resumeData)
        apply { answer.give($0.cancelKeepingPartial(key)) }
    }

    func delivered(app: AppID, session: String, task: Int) {
        guard app == self.app else { return }
        apply { $0.delivered(TransferKey(app: app, session: session, task: task)) }
    }

    func detach(app: AppID, session: String, cancelling: Bool) {
        guard app == self.app else { return }
        apply { $0.detach(app: app, session: session, cancelling: cancelling) }
    }

    func runDelegateCall(_ call: @escaping @Sendable () -> Void) {
        let app = self.app
        apply { $0.simulator.runAsAppCode(app, call) }
    }

    func releaseWhenProcessEnds(_ release: @escaping @Sendable () -> Void) {
        let app = self.app
        apply { $0.releaseWhenProcessEnds(app, release) }
    }

    /// The app called a completion handler of `handleEventsForBackgroundURLSession`.
    func eventsHandled(session: String) {
        let app = self.app
        apply { $0.eventsHandled(app, session: session) }
    }

    // MARK: Kept for answers that cannot wait

    func remember(_ checkpoint: TransferCheckpoint) {
        state.withLock { $0.known[checkpoint.session, default: [:]][checkpoint.task] = checkpoint }
    }

    func forget(_ key: TransferKey) {
        state.withLock { _ = $0.known[key.session]?.removeValue(forKey: key.task) }
    }

}

/// A resume-data completion handler called exactly once: with the answer, or with `nil` when
/// the work that would answer it is dropped (the simulator went away).
private final class ResumeDataAnswer: Sendable {
    private let handler: Mutex<(@Sendable ([UInt8]?) -> Void)?>

    init(_ handler: @escaping @Sendable ([UInt8]?) -> Void) { self.handler = Mutex(handler) }

    func give(_ data: [UInt8]?) {
        let pending = handler.withLock { handler in
            defer { handler = nil }
            return handler
        }
        pending?(data)
    }

    deinit { give(nil) }
}
