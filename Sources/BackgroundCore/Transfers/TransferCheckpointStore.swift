/// Where background transfers' checkpoints survive a crash.
///
/// The core only declares the contract; `BackgroundStore` implements it with SQLite (one row
/// per transfer, each write a transaction) and tests can use a dictionary. Every write replaces
/// the transfer's whole row, so a process killed mid-write leaves the previous checkpoint.
public protocol TransferCheckpointStore: Sendable {
    /// Writes a transfer's checkpoint, replacing the one with the same app, session and task.
    ///
    /// - Throws: The store's error; the previous checkpoint is kept then.
    func saveTransfer(_ checkpoint: TransferCheckpoint) throws

    /// Reads every transfer of an app, ordered by session and task.
    ///
    /// - Throws: The store's error if it cannot be read; never an empty list instead.
    func transfers(of app: AppID) throws -> [TransferCheckpoint]

    /// Reads the transfers of one session of an app, ordered by task: what a session's attach
    /// restores. A store that can select them reads only that session's rows, so that attaching
    /// every session of an app at a restart reads each row once, not once per session.
    ///
    /// - Throws: The store's error if it cannot be read; never an empty list instead.
    func transfers(of app: AppID, session: String) throws -> [TransferCheckpoint]

    /// Forgets a transfer (its events were delivered, or it was cancelled).
    ///
    /// - Throws: The store's error.
    func removeTransfer(app: AppID, session: String, task: Int) throws

    /// Writes several checkpoints and forgets several transfers at once: a store that can does it
    /// in one transaction (all or nothing), so that a batch costs one commit, not one per row.
    ///
    /// - Throws: The store's error; then none of the batch was written (one transaction), or
    ///   what was written before the failing row (the default, row by row).
    func applyTransferChanges(saving: [TransferCheckpoint], removing: [TransferKey]) throws
}

extension TransferCheckpointStore {
    /// The default: every transfer of the app, those of other sessions left out.
    public func transfers(of app: AppID, session: String) throws -> [TransferCheckpoint] {
        try transfers(of: app).filter { $0.session == session }.sorted { $0.task < $1.task }
    }

    /// The default: row by row, saves first.
    public func applyTransferChanges(saving: [TransferCheckpoint], removing: [TransferKey]) throws {
        for checkpoint in saving { try saveTransfer(checkpoint) }
        for key in removing { try removeTransfer(app: key.app, session: key.session, task: key.task) }
    }
}
