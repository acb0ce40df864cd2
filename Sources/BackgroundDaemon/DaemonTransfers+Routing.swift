import BackgroundCore
import BackgroundProtocol
import BackgroundTransfers

/// Where an app's transfer events go: to the process that attached the session when it can run,
/// else kept (progress coalesced, completions in the store) for the next process or the next thaw.
extension DaemonTransfers {
    /// One engine event of `app`'s `session`.
    func engineEvent(_ event: TransferEvent, app: AppID, session: String) {
        switch event {
        case .completed(let transfer, _, _):
            journalCompletion(transfer)
        case .wroteData(let task, _, _, _), .sentData(let task, _, _, _):
            if journalsAsRunning(TransferKey(app: app, session: session, task: task)) { journalChanges(of: app) }
        }
        let route = engine?.transferRoute(app)
        let notices = Self.notices(event, session: session)
        let completedTask: Int? = if case .completed(let transfer, _, _) = event { transfer.task } else { nil }
        let relaunch = apps.withLock { apps -> Bool in
            guard var entry = apps[app], var sessionEntry = entry.sessions[session] else { return false }
            defer {
                entry.sessions[session] = sessionEntry
                apps[app] = entry
            }
            if let route, route.canRun, let link = route.link, sessionEntry.attachedBy == link.linkID {
                if let task = completedTask {
                    flushProgress(of: task, in: &sessionEntry, to: link)
                    sessionEntry.sent.insert(task)
                    sessionEntry.ready.remove(task)
                }
                for notice in notices { link.send(.system(.transfer(notice))) }
                return false
            }
            if let task = completedTask {
                sessionEntry.ready.insert(task)
                return sessionEntry.options.sendsLaunchEvents
            }
            for notice in notices { Self.coalesce(notice, into: &sessionEntry.progress) }
            return false
        }
        if relaunch {
            eventsWaiting(app, session: session)
        } else if completedTask != nil {
            heardIfNothingWaits(app, session: session)
        }
    }

    /// A session whose completions were all sent to a process no longer waits for a wake.
    func heardIfNothingWaits(_ app: AppID, session: String) {
        guard apps.withLock({ $0[app]?.sessions[session]?.ready.isEmpty ?? true }) else { return }
        wakes.withLock { $0.eventsHeard(app, session: session) }
    }

    /// The notices of an engine event, in order: a completion's upload response body travels
    /// beside the checkpoint, in parts of ``TransferMessageLimits/maximumPushedResponseBody``
    /// (the last with the completion, the others just before it), and the request's header
    /// fields stay behind.
    static func notices(_ event: TransferEvent, session: String) -> [TransferNotice] {
        guard case .completed(let transfer, let location, let resumeData) = event,
            let body = transfer.outcome?.responseBody, body.count > TransferMessageLimits.maximumPushedResponseBody
        else { return [notice(event, session: session)] }
        let size = TransferMessageLimits.maximumPushedResponseBody
        let lastStart = (body.count - 1) / size * size
        var notices = stride(from: 0, to: lastStart, by: size).map { start in
            TransferNotice.responseBodyPart(
                session: session,
                task: transfer.task,
                WireBytes(Array(body[start..<(start + size)]))
            )
        }
        var last = transfer
        last.outcome?.responseBody = Array(body[lastStart...])
        notices.append(notice(.completed(last, location: location, resumeData: resumeData), session: session))
        return notices
    }

    /// The notice of an engine event whose upload response body fits one message
    /// (``notices(_:session:)`` splits the others).
    static func notice(_ event: TransferEvent, session: String) -> TransferNotice {
        switch event {
        case .wroteData(let task, let written, let total, let expected):
            return .wroteData(
                session: session,
                task: task,
                bytesWritten: written,
                totalWritten: total,
                totalExpected: expected
            )
        case .sentData(let task, let sent, let total, let expected):
            return .sentData(session: session, task: task, bytesSent: sent, totalSent: total, totalExpected: expected)
        case .completed(var transfer, let location, let resumeData):
            let body = transfer.outcome?.responseBody ?? []
            transfer.outcome?.responseBody = []
            transfer.headers = []
            transfer.sessionOptions = nil
            return .completed(
                session: session,
                transfer,
                location: location,
                resumeData: resumeData.map(WireBytes.init),
                responseBody: WireBytes(Array(body.prefix(TransferMessageLimits.maximumPushedResponseBody)))
            )
        }
    }

    /// Keeps the latest progress of a task, with the bytes of every one replaced added up.
    static func coalesce(_ notice: TransferNotice, into progress: inout [Int: TransferNotice]) {
        switch notice {
        case .wroteData(let session, let task, let written, let total, let expected):
            var sum = written
            if case .wroteData(_, _, let earlier, _, _)? = progress[task] { sum += earlier }
            progress[task] = .wroteData(
                session: session,
                task: task,
                bytesWritten: sum,
                totalWritten: total,
                totalExpected: expected
            )
        case .sentData(let session, let task, let sent, let total, let expected):
            var sum = sent
            if case .sentData(_, _, let earlier, _, _)? = progress[task] { sum += earlier }
            progress[task] = .sentData(
                session: session,
                task: task,
                bytesSent: sum,
                totalSent: total,
                totalExpected: expected
            )
        default:
            break
        }
    }

    func flushProgress(of task: Int, in session: inout SessionEntry, to link: any ClientLink) {
        if let pending = session.progress.removeValue(forKey: task) { link.send(.system(.transfer(pending))) }
    }

    /// Sends what waits for a session to the process that attached it: progress, then each
    /// completion not sent to it, by task.
    func replay(_ app: AppID, session: String, known: [TransferCheckpoint], engine: EmbeddedTransfers) {
        guard let route = self.engine?.transferRoute(app), let link = route.link else { return }
        apps.withLock { apps in
            guard var sessionEntry = apps[app]?.sessions[session], sessionEntry.attachedBy == link.linkID else {
                return
            }
            for transfer in known.sorted(by: { $0.task < $1.task }) {
                flushProgress(of: transfer.task, in: &sessionEntry, to: link)
                guard transfer.state == .completed, !sessionEntry.sent.contains(transfer.task) else { continue }
                sessionEntry.sent.insert(transfer.task)
                sessionEntry.ready.remove(transfer.task)
                let location = transfer.outcome?.bodyFile.flatMap {
                    try? engine.configuration.container.absolutePath(of: $0)
                }
                let resumeData = transfer.outcome?.errorCode != nil ? TransferResumeData(transfer)?.encoded() : nil
                let event = TransferEvent.completed(transfer, location: location, resumeData: resumeData)
                for notice in Self.notices(event, session: session) { link.send(.system(.transfer(notice))) }
            }
            for task in sessionEntry.progress.keys.sorted() { flushProgress(of: task, in: &sessionEntry, to: link) }
            apps[app]?.sessions[session] = sessionEntry
        }
        heardIfNothingWaits(app, session: session)
    }

    /// The app's process can run again (thawed, or brought to the foreground): what waited for
    /// its attached sessions is sent.
    func appCanRun(_ app: AppID) {
        guard let entry = apps.withLock({ $0[app] }) else { return }
        for (name, session) in entry.sessions.sorted(by: { $0.key < $1.key }) where session.attachedBy != nil {
            replay(app, session: name, known: entry.engine.transfers(session: name), engine: entry.engine)
        }
    }
}
