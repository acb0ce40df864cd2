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

    /// Whether the app's events wait: relaunched, its `handleEventsForBackgroundURLSession` not run yet.
    func isHeld(_ app: AppID) -> Bool { awaitingHandler.contains(app) }

    /// Delivers the app's completed transfers to its listening sessions, or arms a relaunch.
    func deliverPending(_ app: AppID) {
        let waiting = undelivered.filter { $0.app == app }
        guard !waiting.isEmpty, !isHeld(app) else { return }
        var unheard: [TransferKey] = []
        for key in waiting {
            guard let transfer = transfers[key], !transfer.deliveredToApp else { continue }
            guard let link = liveLink(SessionKey(app: app, session: key.session)) else {
                unheard.append(key)
                continue
            }
            transfers[key]?.deliveredToApp = true
            link.events(
                .completed(transfer.checkpoint, location: downloadedFile(transfer), resumeData: transfer.resumeData)
            )
        }
        // Only a session that sends launch events relaunches the app (`sessionSendsLaunchEvents`);
        // the others' events wait for a process of the app that attaches them, or is resumed.
        if unheard.contains(where: { sendsLaunchEvents(SessionKey(app: app, session: $0.session)) }) {
            armRelaunch(app)
        }
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

    /// Arms the app's relaunch for its events, when its relaunch delay allows; never after a force quit.
    func armRelaunch(_ app: AppID) {
        guard !relaunchArmed.contains(app), let at = queue.relaunchTime(of: app, readyAt: simulator.now) else { return }
        relaunchArmed.insert(app)
        simulator.schedule(at: at, .driver({ [weak self] in self?.relaunch(app) }))
    }

    /// Launches or resumes the app in the background, keeps it running with an assertion until
    /// it calls the completion handlers, and calls `handleEventsForBackgroundURLSession` for
    /// each session with events, before the events.
    func relaunch(_ app: AppID) {
        relaunchArmed.remove(app)
        let sessions = Set(
            undelivered.filter { $0.app == app && !(transfers[$0]?.deliveredToApp ?? true) }.map(\.session)
        ).filter { sendsLaunchEvents(SessionKey(app: app, session: $0)) }.sorted()
        guard !sessions.isEmpty, !queue.isForceQuit(app) else { return }
        // Held from here: the resumed process must not hear the events before handleEvents.
        awaitingHandler.insert(app)
        switch simulator.state(of: app) {
        case .suspended:
            simulator.send(.resumeInBackground(app))
        case .notRunning, .terminated:
            simulator.send(.launch(app, .background))
        case .background, .inactive, .active:
            awaitingHandler.remove(app)
            deliverPending(app)  // running: its sessions hear the events when they attach
            return
        }
        guard let process = simulator.processes[app], process.isAlive else {
            awaitingHandler.remove(app)
            return
        }
        queue.relaunched(app, at: simulator.now)
        record(.relaunched(app, sessions: sessions))
        if let assertion = simulator.beginAssertion(
            process,
            name: "URLSession events",
            site: CallSite(),
            handler: { [weak self] in self?.closeEventWindow(app, session: nil) }
        ) {
            eventWindows[app] = (assertion, Set(sessions))
        }
        simulator.schedule(
            at: simulator.now,
            .app(process, { [weak self] in self?.callHandlers(app, sessions, process) })
        )
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
                closeEventWindow(app, session: session)
            }
        }
        awaitingHandler.remove(app)
        deliverPending(app)
    }

    /// A completion handler was called (or the window's assertion expired: `session` nil).
    func closeEventWindow(_ app: AppID, session: String?) {
        if let session { record(.eventsHandled(app, session: session)) }
        guard var window = eventWindows[app] else { return }
        if let session { window.sessions.remove(session) } else { window.sessions = [] }
        if window.sessions.isEmpty {
            eventWindows[app] = nil
            if let process = simulator.processes[app] {
                simulator.fromApp(process) { .endAssertion(app, window.assertion) }
            }
        } else {
            eventWindows[app] = window
        }
    }
}
