import BackgroundCore
import Foundation
import GRDB

/// The user and group ids a root daemon runs apps under (`app_users`, migration v4).
///
/// An owner is an app's bundle identifier (its uid, also its gid) or `group:<path>` (the gid of
/// a shared container). Ids are only ever added: a row is never changed or deleted, so an id
/// stays with its first owner for good (its files may still exist), and the same app gets the
/// same uid after every restart.
extension BackgroundStore {
    /// Every id assigned so far, ordered by owner; every row is validated.
    ///
    /// - Throws: ``StoreError`` with code `invalidRow` naming the row, or `readFailed`.
    public func assignedIDs() throws(StoreError) -> [(owner: String, id: UInt32)] {
        let path = path
        let rows = try read { db in try Row.fetchAll(db, sql: "SELECT owner, id FROM app_users ORDER BY owner") }
        return try rows.map { row throws(StoreError) in
            // Through the value's storage, never `as String?`, which stops the process on a
            // BLOB that is not UTF-8; the key only names the row in an error.
            let owner: String
            if case .string(let text) = (row["owner"] as DatabaseValue).storage { owner = text } else { owner = "?" }
            let stored = StoredRow(
                row: row,
                table: "app_users",
                key: "owner '\(owner)'",
                path: path,
                clock: WallClock(unixSecondsAtOrigin: 0)
            )
            let id = try stored.integer("id")
            guard id > 0, id < Int(UInt32.max) else { throw stored.invalid("id \(id) is not a user id above 0") }
            return (try stored.text("owner"), UInt32(id))
        }
    }

    /// Records that `owner` has `id`, for good.
    ///
    /// - Throws: ``StoreError`` with code `writeFailed` if the owner already has an id or the id
    ///   already has an owner (nothing is replaced), `readOnly` or `corrupt`.
    public func assignID(_ id: UInt32, to owner: String) throws(StoreError) {
        try write("cannot record user id \(id) for \(owner) in") { db in
            try db.execute(
                sql: "INSERT INTO app_users (owner, id, assigned_unix_s) VALUES (?, ?, ?)",
                arguments: [owner, Int64(id), Date().timeIntervalSince1970]
            )
        }
    }
}
