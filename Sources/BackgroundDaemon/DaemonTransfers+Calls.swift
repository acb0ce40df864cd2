import BackgroundCore
import BackgroundProtocol
import BackgroundTransfers

/// An app's transfer calls, already checked against the protocol's bounds
/// (``TransferCall/problem(from:)``).
extension DaemonTransfers {
    /// The most sessions one app may attach.
    static let maximumSessions = 64
    /// The most transfers one app may hold at once, in all its sessions, not yet delivered
    /// (ours: Apple states no number), and the most bytes of request header fields they may
    /// carry together: each transfer is kept in memory and in the store until it is delivered,
    /// so one app cannot make the daemon hold more than this (issue 25, finding 4).
    static let maximumTransfersPerApp = 2_000
    static let maximumHeaderBytesPerApp = 4 << 20

    /// Carries out one call from `app`'s process on `link`.
    func call(_ call: TransferCall, from app: AppID, link: any ClientLink) {
        guard let entry = entry(for: app) else {
            if case .attach(let options) = call {
                link.send(
                    .system(.transfer(.attached(session: options.session, transfers: [], nextTask: 1, complete: true)))
                )
            }
            if case .submit(let transfer, _, _) = call { refuse(transfer, link: link, "the app has no container") }
            return
        }
        let engine = entry.engine
        switch call {
        case .attach(let options):
            attach(options, entry: entry, link: link)
        case .submit(var transfer, let uploadPath, let resumeData):
            let session = apps.withLock { $0[app]?.sessions[transfer.session] }
            guard let session, session.attachedBy == link.linkID else {
                return refuse(transfer, link: link, "the session is not attached")
            }
            if let why = quotaProblem(of: transfer, engine: engine) { return refuse(transfer, link: link, why) }
            transfer.sessionOptions = session.options  // kept with it: a restarted daemon runs the session so
            engine.submit(TransferOrder(transfer: transfer, uploadPath: uploadPath, resumeData: resumeData?.bytes))
            journalChanges(of: app)
        case .cancel(let session, let task, let wantsResumeData):
            var answer: (@Sendable ([UInt8]?) -> Void)?
            if wantsResumeData {
                answer = { bytes in
                    let notice = TransferNotice.resumeData(session: session, task: task, bytes.map(WireBytes.init))
                    link.send(.system(.transfer(notice)))
                }
            }
            engine.cancel(app: app, session: session, task: task, resumeData: answer)
        case .delivered(let session, let task):
            apps.withLock { apps in
                apps[app]?.sessions[session]?.sent.remove(task)
                apps[app]?.sessions[session]?.ready.remove(task)
            }
            heardIfNothingWaits(app, session: session)
            engine.delivered(app: app, session: session, task: task)
        case .detach(let session, let cancelling):
            engine.detach(app: app, session: session, cancelling: cancelling)
        case .eventsHandled(let session):
            eventsHandled(app, session: session)
        }
    }

    /// The app's process created a background session: it becomes the session's destination,
    /// gets its transfers (in parts), then what waited for it.
    private func attach(_ options: TransferSessionOptions, entry: AppEntry, link: any ClientLink) {
        let app = options.app
        let count = apps.withLock { $0[app]?.sessions.count ?? 0 }
        guard entry.sessions[options.session] != nil || count < Self.maximumSessions else {
            logger.warning("\(app): more than \(Self.maximumSessions) background sessions; \(options.session) refused")
            link.send(
                .system(.transfer(.attached(session: options.session, transfers: [], nextTask: 1, complete: true)))
            )
            return
        }
        let known = attachForDaemon(options, engine: entry.engine)
        apps.withLock { apps in
            apps[app]?.sessions[options.session]?.attachedBy = link.linkID
            apps[app]?.sessions[options.session]?.sent = []
        }
        let nextTask = (known.map(\.task).max() ?? 0) + 1
        var part: [TransferCheckpoint] = []
        var partBytes = 0
        for var transfer in known {
            transfer.headers = []
            transfer.outcome = nil
            transfer.sessionOptions = nil
            let size = transfer.url.utf8.count + (transfer.taskDescription?.utf8.count ?? 0) + 512
            if partBytes + size > TransferMessageLimits.maximumAttachedBytes, !part.isEmpty {
                link.send(
                    .system(
                        .transfer(
                            .attached(session: options.session, transfers: part, nextTask: nextTask, complete: false)
                        )
                    )
                )
                part = []
                partBytes = 0
            }
            part.append(transfer)
            partBytes += size
        }
        link.send(
            .system(.transfer(.attached(session: options.session, transfers: part, nextTask: nextTask, complete: true)))
        )
        // A process launched for this session's events hears them after handleEvents.
        let waits = wakes.withLock { $0.isWokenFor(app, session: options.session) }
        if !waits { replay(app, session: options.session, known: known, engine: entry.engine) }
    }

    /// Why the app may not queue `transfer` now, or nil: the app's quotas. Header bytes are summed only for an order that brings some, so a plain submit
    /// costs one step per session.
    private func quotaProblem(of transfer: TransferCheckpoint, engine: EmbeddedTransfers) -> String? {
        let adding = TransferHeader.bytes(of: transfer.headers)
        let held = engine.held(countingHeaderBytes: adding > 0)
        if held.transfers >= Self.maximumTransfersPerApp {
            return "the app holds \(held.transfers) transfers, its quota (\(Self.maximumTransfersPerApp))"
        }
        if held.headerBytes + adding > Self.maximumHeaderBytesPerApp {
            return "its header fields would bring the app's to \(held.headerBytes + adding) bytes, over its quota "
                + "(\(Self.maximumHeaderBytesPerApp))"
        }
        return nil
    }

    /// An order the daemon cannot take: it completes at once with an error, as the engine's own
    /// refusals do.
    private func refuse(_ transfer: TransferCheckpoint, link: any ClientLink, _ reason: String) {
        var failed = transfer
        failed.state = .completed
        failed.outcome = TransferOutcome(errorCode: -1, errorMessage: "backgroundd refused the transfer: \(reason)")
        let notice = Self.notice(.completed(failed, location: nil, resumeData: nil), session: transfer.session)
        link.send(.system(.transfer(notice)))
    }
}
