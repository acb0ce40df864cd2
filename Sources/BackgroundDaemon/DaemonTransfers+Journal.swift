import BackgroundCore
import BackgroundProtocol
import BackgroundTransfers
import Foundation

/// The daemon's transfers in its journal, for `bgctl daemon timeline`'s transfers lane: a line
/// when a transfer starts waiting (with why), starts running, or ends (completed with its
/// status, or failed with its error). Phases are read from the app's engine after what can
/// change them (an order, a device change, the first progress, a restart) and written only when
/// they changed.
extension DaemonTransfers {
    /// Writes the changes of `app`'s transfers since the last look.
    func journalChanges(of app: AppID) {
        guard let engine, engine.journal != nil, let status = transferStatus(of: app) else { return }
        let readings = status.transfers.sorted { $0.key < $1.key }.map { transfer in
            JournalEntry.TransferReading(
                app: app,
                session: transfer.key.session,
                task: transfer.key.task,
                phase: transfer.isRunning ? .running : .waiting,
                detail: transfer.isRunning
                    ? "running" : Self.words(transfer.eligibility.unmet, origin: status.originUnixSeconds)
            )
        }
        let changed = journaled.withLock { journaled in
            readings.filter { reading in
                let key = TransferKey(app: app, session: reading.session, task: reading.task)
                guard journaled[key] != reading else { return false }
                journaled[key] = reading
                return true
            }
        }
        record(changed)
    }

    /// Whether a transfer's progress is news to the journal (it was not journaled as running).
    func journalsAsRunning(_ key: TransferKey) -> Bool {
        engine?.journal != nil && journaled.withLock { $0[key]?.phase } != .running
    }

    /// Writes a transfer's end.
    func journalCompletion(_ transfer: TransferCheckpoint) {
        guard engine?.journal != nil else { return }
        let key = TransferKey(app: transfer.app, session: transfer.session, task: transfer.task)
        journaled.withLock { _ = $0.removeValue(forKey: key) }
        let phase: JournalEntry.TransferReading.Phase
        let detail: String
        if let code = transfer.outcome?.errorCode {
            phase = .failed
            detail = "error \(code)" + (transfer.outcome?.errorMessage.map { " (\($0))" } ?? "")
        } else {
            phase = .completed
            detail = (transfer.outcome?.statusCode.map { "HTTP \($0), " } ?? "") + "\(transfer.bytesDone) bytes"
        }
        let reading = JournalEntry.TransferReading(
            app: transfer.app,
            session: transfer.session,
            task: transfer.task,
            phase: phase,
            detail: detail
        )
        record([reading])
    }

    private func record(_ readings: [JournalEntry.TransferReading]) {
        guard let engine, let journal = engine.journal, !readings.isEmpty else { return }
        let time = engine.wallClock.unixSeconds(of: engine.clock())
        for reading in readings { journal.record(transfer: reading, at: time) }
        journal.flush()
    }

    /// Why a transfer waits, in `bgctl why`'s words; "its turn" when nothing is unmet.
    static func words(_ unmet: [UnmetCondition], origin: Double) -> String {
        unmet.isEmpty ? "waiting for its turn" : unmet.map { words($0, origin: origin) }.joined(separator: "; ")
    }

    /// One condition in words, a time it clears at as a wall-clock date (the engine's instants
    /// count from `origin`, seconds since 1970), not the engine's own `T+` offset.
    static func words(_ condition: UnmetCondition, origin: Double) -> String {
        guard let at = condition.clearsAt else { return condition.description }
        let date = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: origin + at.seconds))
        switch condition {
        case .notBefore: return "not before \(date), its earliestBeginDate"
        case .rateLimited: return "rate limited until \(date)"
        default: return "\(condition.description.prefix { $0 != "(" }) (clears at \(date))"
        }
    }
}
