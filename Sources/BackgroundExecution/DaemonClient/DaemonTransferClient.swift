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
            case .transfer(.attached(_, let transfers, let nextTask, _))? = connection.roundTrip(
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
                state.sessions[session.session]?.nextTask = max(entry.nextTask, nextTask)
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

    func submit(_ order: TransferOrder) {
        let transfer = order.transfer
        let call = TransferCall.submit(
            transfer,
            uploadPath: order.uploadPath,
            resumeData: order.resumeData.map(WireBytes.init)
        )
        guard connection.sendTransfer(call) else {
            // Partial: an order made while the daemon is unreachable fails at once, it does not wait.
            var failed = transfer
            failed.state = .completed
            failed.outcome = TransferOutcome(
                errorCode: URLError.cannotConnectToHost.rawValue,
                errorMessage: "backgroundd is not reachable"
            )
            sink(transfer.session)?(.completed(failed, location: nil, resumeData: nil))
            return
        }
    }

    func cancel(app: AppID, session: String, task: Int, resumeData: (@Sendable ([UInt8]?) -> Void)?) {
        let key = TransferKey(app: app, session: session, task: task)
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
            let first = state.withLock { $0.sessions[session]?.completing.insert(transfer.task).inserted ?? false }
            guard first else { return }
            transfer.outcome?.responseBody = body.bytes
            deliver(.completed(transfer, location: location, resumeData: resumeData?.bytes), session)
        case .resumeData(let session, let task, let bytes):
            let key = TransferKey(app: app, session: session, task: task)
            state.withLock { $0.resumeWanted.removeValue(forKey: key) }?(bytes?.bytes)
        case .handleEvents(let session):
            handleEvents(session)
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
    private func handleEvents(_ session: String) {
        state.withLock { state in
            if state.handling[session] == nil { state.handling[session] = [] }
        }
        DispatchQueue.main.async { [self] in
            MainActor.assumeIsolated {
                if let application = connection.runtimeApplication, let delegate = application.delegate {
                    delegate.application(application, handleEventsForBackgroundURLSession: session) { [self] in
                        eventsHandled(session: session)
                    }
                } else {
                    eventsHandled(session: session)
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
    func reattach() {
        let sessions = state.withLock { state in state.sessions.keys.sorted().compactMap { state.sessions[$0]?.options }
        }
        guard !sessions.isEmpty else { return }
        DispatchQueue.global().async { [self] in
            for options in sessions {
                _ = connection.roundTrip(.transfer(.attach(options)))
                state.withLock { $0.attaching = [] }
            }
        }
    }
}
