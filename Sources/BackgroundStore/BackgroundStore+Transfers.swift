public import BackgroundCore
import Foundation
import GRDB

/// Background transfers' checkpoints: one row per transfer, replaced at every checkpoint in its
/// own transaction, so a process killed mid-write leaves the previous checkpoint.
extension BackgroundStore: TransferCheckpointStore {
    /// Writes a transfer's checkpoint, replacing the previous one.
    ///
    /// - Throws: ``StoreError`` with code `writeFailed`, `readOnly` or `corrupt`.
    public func saveTransfer(_ checkpoint: TransferCheckpoint) throws(StoreError) {
        try applyTransferChanges(saving: [checkpoint], removing: [])
    }

    /// Writes checkpoints and forgets transfers in one transaction: all of the batch, or none.
    ///
    /// - Throws: ``StoreError`` with code `writeFailed`, `readOnly` or `corrupt`.
    public func applyTransferChanges(saving: [TransferCheckpoint], removing: [TransferKey]) throws(StoreError) {
        let encoder = JSONEncoder()
        var rows: [(TransferCheckpoint, String)] = []
        rows.reserveCapacity(saving.count)
        for checkpoint in saving {
            do {
                rows.append((checkpoint, String(decoding: try encoder.encode(checkpoint), as: UTF8.self)))
            } catch {
                throw StoreError(
                    code: .writeFailed,
                    path: path,
                    message: "cannot encode transfer \(checkpoint.task): \(error)"
                )
            }
        }
        let now = Date().timeIntervalSince1970
        try write("cannot write to") { db in
            for (checkpoint, json) in rows {
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO transfers (bundle_id, session, task, state, checkpoint_json, updated_unix_s)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        checkpoint.app.bundleIdentifier, checkpoint.session, checkpoint.task,
                        checkpoint.state.rawValue, json, now,
                    ]
                )
            }
            for key in removing {
                try db.execute(
                    sql: "DELETE FROM transfers WHERE bundle_id = ? AND session = ? AND task = ?",
                    arguments: [key.app.bundleIdentifier, key.session, key.task]
                )
            }
        }
    }

    /// Reads every transfer of an app, ordered by session and task; every row is validated.
    ///
    /// - Throws: ``StoreError`` with code `invalidRow` naming the row, or `readFailed`.
    public func transfers(of app: AppID) throws(StoreError) -> [TransferCheckpoint] {
        try transferRows(
            of: app,
            sql: "SELECT * FROM transfers WHERE bundle_id = ? ORDER BY session, task",
            arguments: [app.bundleIdentifier]
        )
    }

    /// Reads the transfers of one session of an app, ordered by task; every row is validated.
    /// Only that session's rows are read (the table's key starts with the app and the session),
    /// so a restart that attaches every session reads each row once.
    ///
    /// - Throws: ``StoreError`` with code `invalidRow` naming the row, or `readFailed`.
    public func transfers(of app: AppID, session: String) throws(StoreError) -> [TransferCheckpoint] {
        try transferRows(
            of: app,
            sql: "SELECT * FROM transfers WHERE bundle_id = ? AND session = ? ORDER BY task",
            arguments: [app.bundleIdentifier, session]
        )
    }

    private func transferRows(
        of app: AppID,
        sql: String,
        arguments: StatementArguments
    ) throws(StoreError) -> [TransferCheckpoint] {
        let path = path
        let rows = try read { db in try Row.fetchAll(db, sql: sql, arguments: arguments) }
        return try rows.map { row throws(StoreError) in
            let stored = StoredRow(
                row: row,
                table: "transfers",
                key: "bundle_id '\(app.bundleIdentifier)'",
                path: path,
                clock: WallClock(unixSecondsAtOrigin: 0)
            )
            let session = try stored.text("session")
            let task = try stored.integer("task")
            // The next task's identifier is the largest restored one + 1: an identifier near
            // Int.max would make that overflow (issue 25). URLSession's are small and positive.
            guard (1...Int(Int32.max)).contains(task) else {
                throw stored.invalid("task \(task) is not within 1...\(Int32.max)")
            }
            var checkpoint: TransferCheckpoint
            do {
                checkpoint = try JSONDecoder().decode(
                    TransferCheckpoint.self,
                    from: Data(try stored.text("checkpoint_json").utf8)
                )
            } catch let error as StoreError {
                throw error
            } catch {
                throw stored.invalid("checkpoint_json is not a transfer checkpoint")
            }
            guard checkpoint.app == app, checkpoint.session == session, checkpoint.task == task,
                checkpoint.state.rawValue == (try stored.text("state"))
            else {
                throw stored.invalid("checkpoint_json names another transfer than its row")
            }
            checkpoint.clampCounts()  // negative counts from a damaged row: lengths again
            return checkpoint
        }
    }

    /// Forgets a transfer.
    ///
    /// - Throws: ``StoreError`` with code `writeFailed`, `readOnly` or `corrupt`.
    public func removeTransfer(app: AppID, session: String, task: Int) throws(StoreError) {
        try applyTransferChanges(saving: [], removing: [TransferKey(app: app, session: session, task: task)])
    }
}
