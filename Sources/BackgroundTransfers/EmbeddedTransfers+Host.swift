public import BackgroundCore
import Foundation

/// What a host that runs transfers for an app out of its process (`backgroundd`) asks the
/// engine: a session's transfers, and the app's relaunch delay and force quit, which the core's
/// ``TransferQueue`` keeps (reference §5.4, §5.6).
extension EmbeddedTransfers {
    /// The transfers of an attached session not yet delivered to the app, by task; empty for a
    /// session not attached.
    public func transfers(session: String) -> [TransferCheckpoint] {
        state.withLock { state in
            (state.sessions[session]?.transfers.values).map { $0.sorted { $0.task < $1.task } } ?? []
        }
    }

    /// How many transfers the app holds, in every session, not yet delivered, and the bytes of
    /// their request header fields (names and values): what a host's quota counts. The count
    /// costs one step per session; the bytes one per transfer, only when `countingHeaderBytes`.
    public func held(countingHeaderBytes: Bool) -> (transfers: Int, headerBytes: Int) {
        state.withLock { state in
            var transfers = 0
            var bytes = 0
            for session in state.sessions.values {
                transfers += session.transfers.count
                guard countingHeaderBytes else { continue }
                for transfer in session.transfers.values { bytes += TransferHeader.bytes(of: transfer.headers) }
            }
            return (transfers, bytes)
        }
    }

    /// How long from now until the app may be launched or resumed for transfer events that are
    /// ready now: zero, or what is left of its relaunch delay; `nil` after a force quit until the
    /// user opens the app.
    public func relaunchDelay() -> Duration? {
        let now = now()
        guard let at = state.withLock({ $0.queue.relaunchTime(of: configuration.app, readyAt: now) }) else {
            return nil
        }
        return at > now ? at - now : .zero
    }

    /// The app was launched or resumed in the background for its transfers: the delay doubles.
    public func relaunched() {
        let now = now()
        state.withLock { $0.queue.relaunched(configuration.app, at: now) }
    }

    /// Whether the user force-quit the app and has not opened it since.
    public var isForceQuit: Bool {
        state.withLock { $0.queue.isForceQuit(configuration.app) }
    }
}

extension EmbeddedTransfers {
    /// How often an attach looks for unused partial files: a file becomes one only after
    /// `TransferResumeData.partialFileLifetime` (7 days), so looking more often finds nothing
    /// more, while looking at every attach made a restart that attaches every session of an app
    /// visit every partial file once per session (issue 25, finding 4).
    static let partialFileSweepInterval: Duration = .seconds(3600)

    /// ``removeUnusedPartialFiles()`` at the first attach, then at an attach at most once an hour.
    func sweepPartialFilesIfDue() {
        let now = now()
        let due = state.withLock { state -> Bool in
            if let last = state.partialFilesSweptAt, now - last < Self.partialFileSweepInterval { return false }
            state.partialFilesSweptAt = now
            return true
        }
        if due { removeUnusedPartialFiles() }
    }

    /// Removes the partial files kept for resume data that no transfer of the app uses (running,
    /// waiting, or completed and not yet delivered, in this process or the store) and that were
    /// last written more than `TransferResumeData.partialFileLifetime` (7 days) ago. Resume data
    /// naming a removed file is refused. Called at a session's attach (the first, then at most
    /// once an hour: ``sweepPartialFilesIfDue()``); a host may call it more often. Removes
    /// nothing when the stored transfers cannot be read.
    public func removeUnusedPartialFiles() {
        let lifetime = TransferResumeData.partialFileLifetime.components
        let cutoff = Date().timeIntervalSince1970 - Double(lifetime.seconds)
        let candidates = configuration.container.partialFiles(writtenBefore: cutoff)
        guard !candidates.isEmpty else { return }
        var inUse = Set(
            state.withLock { state in state.sessions.values.flatMap { $0.transfers.values.compactMap(\.partialFile) } }
        )
        if let store = configuration.store {
            checkpoints?.flush()
            guard let stored = try? store.transfers(of: configuration.app) else { return }
            inUse.formUnion(stored.compactMap(\.partialFile))
        }
        for path in candidates where !inUse.contains(path) {
            configuration.container.remove(path)
            configuration.logger.info("removed \(path): a partial file of resume data not used for 7 days")
        }
    }
}
