import BackgroundCore
import BackgroundExecution
import Foundation

/// Events to the app, in Apple's order: progress while a session listens; completions to a
/// session attached in a running process, else a background relaunch (or resume) that calls
/// `handleEventsForBackgroundURLSession` first, then the events, then `urlSessionDidFinishEvents`.
extension TransferSimulation {
    /// A transfer ended: its events wait for the app.
    func finish(_ key: TransferKey, outcome: TransferOutcome) {
        guard var transfer = transfers[key] else { return }
        transfer.phase = .completed
        transfer.dataFrom = nil
        transfer.retryAt = nil
        transfer.failsAt = nil
        transfer.checkpoint.state = .completed
        transfer.checkpoint.bytesDone = transfer.bytes
        transfer.checkpoint.expectedLength = transfer.size
        transfer.checkpoint.outcome = outcome
        transfers[key] = transfer
        services[key.app]?.remember(transfer.checkpoint)
        undelivered.append(key)
        if let code = outcome.errorCode {
            record(.failed(key, code: code, reason: outcome.errorMessage ?? ""))
        } else {
            record(.completed(key, status: outcome.statusCode ?? 0, bytes: transfer.bytes))
        }
        simulator.checkTransferCompletion(transfer, outcome: outcome, forceQuit: forceQuitCancelled.contains(key))
        deliverPending(key.app)
    }

    /// A quarter of a transfer moved: the listening session hears it.
    func progressed(_ key: TransferKey) {
        guard let transfer = transfers[key] else { return }
        record(.progress(key, bytes: transfer.bytes, size: transfer.size))
        guard let link = liveLink(SessionKey(app: key.app, session: key.session)), !isHeld(key.app) else { return }
        let event: TransferEvent =
            transfer.checkpoint.kind == .download
            ? .wroteData(
                task: key.task,
                bytesWritten: transfer.bytes,
                totalWritten: transfer.bytes,
                totalExpected: transfer.size
            )
            : .sentData(
                task: key.task,
                bytesSent: transfer.bytes,
                totalSent: transfer.bytes,
                totalExpected: transfer.size
            )
        link.events(event)
    }

    /// The session's link, if it was attached in the app's running, unfrozen process.
    func liveLink(_ session: SessionKey) -> SessionLink? {
        guard let link = links[session], let process = simulator.processes[session.app], process.isAlive,
            process.serial == link.serial, !process.isFrozen
        else { return nil }
        return link
    }

    /// Whether the app's events wait: woken for them, its `handleEventsForBackgroundURLSession`
    /// not run yet.
    func isHeld(_ app: AppID) -> Bool { wakes.awaitsLaunchCallbacks(app) }

    /// Delivers the app's completed transfers to its listening sessions, or arms a wake for
    /// them (the core's rule, ``TransferEventWakes``).
    func deliverPending(_ app: AppID) {
        let waiting = undelivered.filter { $0.app == app }
        guard !waiting.isEmpty, !isHeld(app) else { return }
        var unheard: Set<String> = []
        var handed: Set<String> = []
        for key in waiting {
            guard let transfer = transfers[key], !transfer.deliveredToApp else { continue }
            guard let link = liveLink(SessionKey(app: app, session: key.session)) else {
                unheard.insert(key.session)
                continue
            }
            transfers[key]?.deliveredToApp = true
            handed.insert(key.session)
            link.events(
                .completed(transfer.checkpoint, location: downloadedFile(transfer), resumeData: transfer.resumeData)
            )
        }
        for session in handed.subtracting(unheard).sorted() { wakes.eventsHeard(app, session: session) }
        // Only a session that sends launch events wakes the app (`sessionSendsLaunchEvents`); the
        // others' events wait for a process of the app that attaches them, or is resumed.
        let waking = unheard.filter { sendsLaunchEvents(SessionKey(app: app, session: $0)) }.sorted()
        guard !waking.isEmpty else { return }
        let relaunchAt = queue.relaunchTime(of: app, readyAt: simulator.now)
        for session in waking { wakes.eventsWaiting(app, session: session, relaunchAt: relaunchAt) }
        armWakes()
    }

    /// Whether the session's completions launch or resume the app (Apple's default: yes).
    func sendsLaunchEvents(_ session: SessionKey) -> Bool {
        sessionOptions[session]?.sendsLaunchEvents ?? true
    }

    /// The file of a completed download for `didFinishDownloadingTo`, of the body's length (the
    /// bytes are counted, not kept): a real sparse file where app code may open it, else a file
    /// in memory (``TransferFiles``).
    func downloadedFile(_ transfer: SimulatedTransfer) -> String? {
        guard transfer.checkpoint.kind == .download, transfer.checkpoint.outcome?.errorCode == nil else { return nil }
        return files.download(transfer.key, size: transfer.size, onDisk: simulator.writesDownloadedFiles)
    }

    /// Schedules the wakes' next deadline on the simulator's clock, unless it is scheduled.
    func armWakes() {
        guard let next = wakes.nextDeadline, next != wakesArmedAt else { return }
        wakesArmedAt = next
        simulator.schedule(at: next, .driver({ [weak self] in self?.wakesDue(at: next) }))
    }

    /// The wakes' deadline came: apps are woken, wakes that ran out end.
    private func wakesDue(at deadline: Instant) {
        if wakesArmedAt == deadline { wakesArmedAt = nil }
        let actions = wakes.tick(at: simulator.now) { [simulator] in simulator.state(of: $0) }
        carryOut(actions)
        armWakes()
    }

    /// Does what the wakes decided, in their order.
    private func carryOut(_ actions: [TransferEventWakes.Action]) {
        for action in actions {
            switch action {
            case .wake(let app, let sessions, let launching):
                wake(app, sessions: sessions, launching: launching)
            case .handleEvents(let app, let session):
                // A running background app: asked at once, with no launch callbacks to wait for.
                guard let process = simulator.processes[app], process.isAlive else { continue }
                simulator.schedule(
                    at: simulator.now,
                    .app(process, { [weak self] in self?.callHandlers(app, [session], process) })
                )
            case .endWake(let app, _):
                endEventAssertion(app)
            }
        }
    }

    /// Launches or resumes the app in the background, keeps it running with an assertion until
    /// it calls the completion handlers, and calls `handleEventsForBackgroundURLSession` for
    /// each session after its launch callbacks, before the events.
    private func wake(_ app: AppID, sessions: [String], launching: Bool) {
        simulator.send(launching ? .launch(app, .background) : .resumeInBackground(app))
        guard let process = simulator.processes[app], process.isAlive else {
            wakes.wakeCutShort(app)
            return
        }
        queue.relaunched(app, at: simulator.now)
        record(.relaunched(app, sessions: sessions))
        if let assertion = simulator.beginAssertion(
            process,
            name: "URLSession events",
            site: CallSite(),
            handler: { [weak self] in self?.eventAssertionExpired(app) }
        ) {
            eventAssertions[app] = assertion
        }
        simulator.schedule(
            at: simulator.now,
            .app(process, { [weak self] in self?.launchCallbacksReturned(app, process) })
        )
    }

    /// The woken app's launch callbacks ran: `handleEvents` for each session, then the events.
    private func launchCallbacksReturned(_ app: AppID, _ process: AppProcess) {
        let sessions = wakes.launchCallbacksReturned(app).compactMap { action -> String? in
            if case .handleEvents(_, let session) = action { session } else { nil }
        }
        callHandlers(app, sessions, process)
    }

    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` for each session,
    /// then the events.
    private func callHandlers(_ app: AppID, _ sessions: [String], _ process: AppProcess) {
        let service = service(for: app)
        for session in sessions {
            let done: () -> Void = { service.eventsHandled(session: session) }
            if let delegate = process.application.delegate {
                delegate.application(
                    process.application,
                    handleEventsForBackgroundURLSession: session,
                    completionHandler: done
                )
            } else {
                eventsHandled(app, session: session)
            }
        }
        deliverPending(app)
    }

    /// A completion handler of `handleEventsForBackgroundURLSession` was called.
    func eventsHandled(_ app: AppID, session: String) {
        record(.eventsHandled(app, session: session))
        carryOut(wakes.handlerCalled(app, session: session))
    }

    /// The assertion that kept the woken app running expired before its handlers were called.
    private func eventAssertionExpired(_ app: AppID) {
        wakes.wakeCutShort(app)
        endEventAssertion(app)
    }

    /// Ends the assertion that kept the woken app running.
    private func endEventAssertion(_ app: AppID) {
        guard let assertion = eventAssertions.removeValue(forKey: app), let process = simulator.processes[app] else {
            return
        }
        simulator.fromApp(process) { .endAssertion(app, assertion) }
    }
}
