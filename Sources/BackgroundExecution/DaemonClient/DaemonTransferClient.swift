import BackgroundCore
import BackgroundProtocol
import Dispatch
import Foundation
import Synchronization

/// The transfer service of system mode, in the app's process: background sessions hand their
/// tasks to `backgroundd` over the app's ``DaemonConnection`` (docs/daemon-protocol.md,
/// "Background transfers"), which runs them with the transfer engine while the app is frozen or
/// gone, and pushes their events back, in order.
///
/// `URLSession` uses it when the process runs under the daemon and nothing was bootstrapped
/// (``URLSession/bootstrap(_:)``). It is the daemon's engine that checks every order (URLs,
/// files inside the app's container, resume data); this side only forwards.
final class DaemonTransferClient: TransferService {
    struct Session {
        var options: TransferSessionOptions
        var events: @Sendable (TransferEvent) -> Void
        var nextTask: Int
        /// Completions received and not yet answered with `delivered`: a second one (the daemon
        /// restarted and sends it again) is not delivered twice.
        var completing: Set<Int> = []
    }

    struct State {
        var sessions: [String: Session] = [:]
        /// Parts of an attach's answer before its last.
        var attaching: [TransferCheckpoint] = []
        var resumeWanted: [TransferKey: @Sendable ([UInt8]?) -> Void] = [:]
        /// Sessions whose `handleEventsForBackgroundURLSession` has not returned yet: their
        /// events wait here, so the delegate hears them after it, as on iOS.
        var handling: [String: [TransferEvent]] = [:]
        /// Orders made while there was no connection, or while their session was being attached
        /// again, oldest first: sent once the session is attached to the daemon that welcomed
        /// this process, failed with -1004 when none did within the reconnection wait.
        var parked: [ParkedOrder] = []
        /// Parts of upload response bodies received before their completion, by transfer.
        var bodyParts: [TransferKey: [UInt8]] = [:]
        /// Sessions being attached again after a reconnection: their orders wait for it.
        var reattaching: Set<String> = []
        var nextParked = 0
    }

    struct ParkedOrder {
        var number: Int
        var order: TransferOrder
    }

    unowned let connection: DaemonConnection
    let state = Mutex(State())

    init(connection: DaemonConnection) {
        self.connection = connection
    }

    var app: AppID { connection.app }

    func attach(
        _ session: TransferSessionOptions,
        events: @escaping @Sendable (TransferEvent) -> Void
    ) -> [TransferCheckpoint] {
        guard session.app == app else { return [] }
        // The sink is in place before the answer: the daemon sends the session's events right after it.
        state.withLock { state in
            let next = state.sessions[session.session]?.nextTask ?? 1
            state.sessions[session.session] = Session(options: session, events: events, nextTask: next)
        }
        guard
            case .answered(.transfer(.attached(_, let transfers, let nextTask, _))) = connection.roundTrip(
                .transfer(.attach(session))
            )
        else {
            connection.logger.error("\(app): backgroundd did not answer the attach of \(session.session)")
            return []
        }
        return state.withLock { state in
            let all = state.attaching + transfers
            state.attaching = []
            if let entry = state.sessions[session.session] {
                // Bounded as the store bounds task identifiers: the `+ 1` of the next reserve
                // must not overflow, whatever the other side says.
                state.sessions[session.session]?.nextTask = max(entry.nextTask, min(nextTask, Int(Int32.max)))
            }
            return all
        }
    }

    func reserveTaskIdentifier(app: AppID, session: String) -> Int {
        state.withLock { state in
            let task = state.sessions[session]?.nextTask ?? 1
            state.sessions[session]?.nextTask = task + 1
            return task
        }
    }

    /// Sends the order; without a connection (or while its session is attached again) it waits
    /// for the reconnection, as calls that need the daemon's answer do, at most
    /// ``DaemonConnection/Configuration/reconnectionWait``, then completes with -1004
    /// (`cannotConnectToHost`).
    func submit(_ order: TransferOrder) {
        let parked = state.withLock { state -> Int? in
            guard state.reattaching.contains(order.transfer.session) else { return nil }
            return park(order, in: &state)
        }
        if let parked { return armParkedLimit(parked) }
        guard !connection.sendTransfer(Self.call(order)) else { return }
        let number = state.withLock { park(order, in: &$0) }
        connection.startReading()  // the reader thread connects again
        armParkedLimit(number)
        // A welcome may have come between the failed send and the park: send it now if so.
        if connection.isConnected, state.withLock({ $0.reattaching.isEmpty }) { sendParked() }
    }

    private static func call(_ order: TransferOrder) -> TransferCall {
        .submit(order.transfer, uploadPath: order.uploadPath, resumeData: order.resumeData.map(WireBytes.init))
    }

    private func park(_ order: TransferOrder, in state: inout State) -> Int {
        state.nextParked += 1
        state.parked.append(ParkedOrder(number: state.nextParked, order: order))
        return state.nextParked
    }

    /// Fails a parked order that is still waiting when the reconnection wait is over.
    private func armParkedLimit(_ number: Int) {
        let wait = connection.configuration.reconnectionWait.dispatchInterval
        DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [weak self] in
            guard let self else { return }
            let expired = state.withLock { state -> TransferOrder? in
                guard let index = state.parked.firstIndex(where: { $0.number == number }) else { return nil }
                return state.parked.remove(at: index).order
            }
            guard let transfer = expired?.transfer else { return }
            var failed = transfer
            failed.state = .completed
            failed.outcome = TransferOutcome(
                errorCode: URLError.cannotConnectToHost.rawValue,
                errorMessage: "backgroundd is not reachable"
            )
            sink(transfer.session)?(.completed(failed, location: nil, resumeData: nil))
        }
    }

    /// Sends the parked orders whose sessions are attached, oldest first; one that cannot be
    /// sent stays parked.
    private func sendParked() {
        let ready = state.withLock { state -> [ParkedOrder] in
            let ready = state.parked.filter { !state.reattaching.contains($0.order.transfer.session) }
            state.parked.removeAll { !state.reattaching.contains($0.order.transfer.session) }
            return ready
        }
        var unsent: [ParkedOrder] = []
        for parked in ready where !unsent.isEmpty || !connection.sendTransfer(Self.call(parked.order)) {
            unsent.append(parked)
        }
        if !unsent.isEmpty {
            state.withLock { state in
                state.parked = (unsent + state.parked).sorted { $0.number < $1.number }
            }
        }
    }

    func cancel(app: AppID, session: String, task: Int, resumeData: (@Sendable ([UInt8]?) -> Void)?) {
        let key = TransferKey(app: app, session: session, task: task)
        let parked = state.withLock { state -> TransferOrder? in
            let index = state.parked.firstIndex {
                $0.order.transfer.session == session && $0.order.transfer.task == task
            }
            return index.map { state.parked.remove(at: $0).order }
        }
        if let transfer = parked?.transfer {
            // Never sent: it ends here, with no resume data (nothing was transferred).
            var cancelled = transfer
            cancelled.state = .completed
            cancelled.outcome = TransferOutcome(errorCode: URLError.cancelled.rawValue, errorMessage: "cancelled")
            resumeData?(nil)
            sink(session)?(.completed(cancelled, location: nil, resumeData: nil))
            return
        }
        if let resumeData { state.withLock { $0.resumeWanted[key] = resumeData } }
        let sent = connection.sendTransfer(.cancel(session: session, task: task, wantsResumeData: resumeData != nil))
        if !sent, let wanted = state.withLock({ $0.resumeWanted.removeValue(forKey: key) }) { wanted(nil) }
    }

    func delivered(app: AppID, session: String, task: Int) {
        state.withLock { _ = $0.sessions[session]?.completing.remove(task) }
        connection.sendTransfer(.delivered(session: session, task: task))
    }

    func detach(app: AppID, session: String, cancelling: Bool) {
        connection.sendTransfer(.detach(session: session, cancelling: cancelling))
    }

    /// The app called the completion handler of `handleEventsForBackgroundURLSession`.
    func eventsHandled(session: String) {
        connection.sendTransfer(.eventsHandled(session: session))
    }

    private func sink(_ session: String) -> (@Sendable (TransferEvent) -> Void)? {
        state.withLock { $0.sessions[session]?.events }
    }

    /// A notice from the daemon, on the connection's reader thread, in order.
    func receive(_ notice: TransferNotice) {
        switch notice {
        case .attached(_, let transfers, _, _):
            state.withLock { $0.attaching += transfers }  // a part before the last
        case .wroteData(let session, let task, let written, let total, let expected):
            deliver(
                .wroteData(task: task, bytesWritten: written, totalWritten: total, totalExpected: expected),
                session
            )
        case .sentData(let session, let task, let sent, let total, let expected):
            deliver(.sentData(task: task, bytesSent: sent, totalSent: total, totalExpected: expected), session)
        case .completed(let session, var transfer, let location, let resumeData, let body):
            let key = TransferKey(app: app, session: session, task: transfer.task)
            let (first, parts) = state.withLock { state in
                let parts = state.bodyParts.removeValue(forKey: key) ?? []
                return (state.sessions[session]?.completing.insert(transfer.task).inserted ?? false, parts)
            }
            guard first else { return }
            transfer.outcome?.responseBody = parts + body.bytes
            deliver(.completed(transfer, location: location, resumeData: resumeData?.bytes), session)
        case .resumeData(let session, let task, let bytes):
            let key = TransferKey(app: app, session: session, task: task)
            state.withLock { $0.resumeWanted.removeValue(forKey: key) }?(bytes?.bytes)
        case .handleEvents(let session):
            handleEvents(session)
        case .responseBodyPart(let session, let task, let bytes):
            let key = TransferKey(app: app, session: session, task: task)
            state.withLock { state in
                var parts = state.bodyParts[key] ?? []
                // The engine keeps at most this much; a daemon sending more is cut there.
                parts += bytes.bytes.prefix(max(0, TransferOutcome.maximumResponseBody - parts.count))
                state.bodyParts[key] = parts
            }
        }
    }

    /// Hands an event to its session, or keeps it while the session's `handleEvents` runs.
    private func deliver(_ event: TransferEvent, _ session: String) {
        let sink = state.withLock { state -> (@Sendable (TransferEvent) -> Void)? in
            if state.handling[session] != nil {
                state.handling[session]?.append(event)
                return nil
            }
            return state.sessions[session]?.events
        }
        sink?(event)
    }

    /// The daemon launched or resumed the app for the session's events: the app delegate's
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` on the main
    /// actor, after the launch callbacks (queued before it on the main queue); the session's
    /// events follow its return.
    ///
    /// The app holds the `URLSession events` assertion from now until the completion handler
    /// is called (``TransferEventsWindow``), begun here, on the reader thread, before anything
    /// is queued on the main queue: a daemon restarted while the handler waits there takes the
    /// app over with the assertion it declares, and does not freeze it first.
    private func handleEvents(_ session: String) {
        state.withLock { state in
            if state.handling[session] == nil { state.handling[session] = [] }
        }
        let window = TransferEventsWindow.open(on: connection, handlers: 1)
        DispatchQueue.main.async { [self] in
            MainActor.assumeIsolated {
                if let application = connection.runtimeApplication, let delegate = application.delegate {
                    delegate.application(application, handleEventsForBackgroundURLSession: session) { [self] in
                        eventsHandled(session: session)
                        window.handlerCalled()
                    }
                } else {
                    eventsHandled(session: session)
                    window.handlerCalled()
                }
            }
            flushHandled(session)
        }
    }

    /// Delivers what waited for `handleEvents`, in order, then lets events through.
    private func flushHandled(_ session: String) {
        while true {
            let (events, sink) = state.withLock { state -> ([TransferEvent], (@Sendable (TransferEvent) -> Void)?) in
                let events = state.handling[session] ?? []
                state.handling[session] = events.isEmpty ? nil : []
                return (events, state.sessions[session]?.events)
            }
            if events.isEmpty { return }
            for event in events { sink?(event) }
        }
    }

    /// After a reconnection (the daemon restarted): the sessions attach again, off the reader
    /// thread, so the new daemon pushes their events to this process.
    /// Orders made meanwhile (parked) are sent after their session's attach.
    func reattach() {
        let sessions = state.withLock { state in
            let sessions = state.sessions.keys.sorted().compactMap { state.sessions[$0]?.options }
            state.reattaching.formUnion(sessions.map(\.session))
            return sessions
        }
        guard !sessions.isEmpty else { return sendParked() }
        DispatchQueue.global().async { [self] in
            for options in sessions {
                _ = connection.roundTrip(.transfer(.attach(options)))
                state.withLock { state in
                    state.attaching = []
                    state.reattaching.remove(options.session)
                }
                sendParked()
            }
        }
    }
}
