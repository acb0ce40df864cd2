import BackgroundCore
import Dispatch
import Logging
import Synchronization

/// Writes transfers' checkpoints to the store in batches: each change waits (milliseconds) for
/// the next flush, which writes every change made since the last one in one transaction (the
/// latest checkpoint of a transfer replaces earlier ones not yet written; a removal cancels them).
///
/// What this keeps across `kill -9`: a committed transaction survives the process (SQLite's
/// WAL), so a transfer is durable from the flush after its `resume()`; a checkpoint is written
/// after the partial file was `fsync`ed to its byte count, so whichever checkpoint the store
/// holds, the file holds at least its bytes; a completion is flushed before its events reach
/// the app (``flush()``), so a delivered body is never downloaded again; a removal after
/// delivery may be lost, and the completion is then delivered again at the next attach, as
/// docs/transfers.md says.
final class CheckpointWriter: Sendable {
    private let store: any TransferCheckpointStore
    private let logger: Logger
    private struct Pending {
        var saves: [TransferKey: TransferCheckpoint] = [:]
        var removals: Set<TransferKey> = []
        var flushQueued = false
        var isEmpty: Bool { saves.isEmpty && removals.isEmpty }
    }
    private let pending = Mutex(Pending())
    /// Held while a batch is written: a caller of ``flush()`` that finds nothing pending waits
    /// here until the batch that took its change is committed.
    private let writing = Mutex(())
    private let queue = DispatchQueue(label: "background-transfers.checkpoints")
    /// Whether a change schedules a flush by itself (tests turn it off to see one batch).
    private let flushesByItself: Bool

    init(store: any TransferCheckpointStore, logger: Logger, flushesByItself: Bool = true) {
        self.store = store
        self.logger = logger
        self.flushesByItself = flushesByItself
    }

    /// Writes the checkpoint at the next flush.
    func save(_ checkpoint: TransferCheckpoint) {
        let key = TransferKey(app: checkpoint.app, session: checkpoint.session, task: checkpoint.task)
        enqueue { pending in
            pending.saves[key] = checkpoint
            pending.removals.remove(key)
        }
    }

    /// Forgets the transfer at the next flush.
    func remove(_ key: TransferKey) {
        enqueue { pending in
            pending.saves[key] = nil
            pending.removals.insert(key)
        }
    }

    private func enqueue(_ change: (inout Pending) -> Void) {
        let schedule = pending.withLock { pending -> Bool in
            change(&pending)
            defer { pending.flushQueued = true }
            return !pending.flushQueued
        }
        if schedule && flushesByItself { queue.async { self.flush() } }
    }

    /// Writes every change made so far and returns once it is committed (or failed, logged).
    func flush() {
        writing.withLock { _ in
            let batch = pending.withLock { pending -> Pending in
                defer { pending = Pending() }
                return pending
            }
            guard !batch.isEmpty else { return }
            let saving = batch.saves.keys.sorted().compactMap { batch.saves[$0] }
            do {
                try store.applyTransferChanges(saving: saving, removing: batch.removals.sorted())
            } catch {
                logger.error("cannot checkpoint \(saving.count) transfers, forget \(batch.removals.count): \(error)")
            }
        }
    }
}
