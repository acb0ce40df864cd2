import CSQLiteSettings
import GRDB

/// The safety settings every connection of a store runs with, as SQLite reports them.
///
/// Each connection the store opens (the writer and every reader) is set up before its first
/// statement with `SQLITE_DBCONFIG_DEFENSIVE` on (no `writable_schema`, no writes to shadow
/// tables, no corrupting `PRAGMA`s) and `SQLITE_DBCONFIG_TRUSTED_SCHEMA` off (the SQL in a
/// file's schema may call only innocuous functions). The settings are read back, and a
/// connection where SQLite did not take them is refused.
///
/// ```swift
/// let settings = try store.connectionSettings()
/// assert(settings.defensive && !settings.trustedSchema)
/// ```
public struct ConnectionSettings: Sendable, Hashable {
    /// Whether `SQLITE_DBCONFIG_DEFENSIVE` is on.
    public var defensive: Bool
    /// Whether `SQLITE_DBCONFIG_TRUSTED_SCHEMA` is on (the store turns it off).
    public var trustedSchema: Bool

    /// Creates a value, for comparing with what a store reports.
    public init(defensive: Bool, trustedSchema: Bool) {
        self.defensive = defensive
        self.trustedSchema = trustedSchema
    }

    /// Turns the settings on for a connection and checks that SQLite took them.
    ///
    /// - Throws: `DatabaseError` if SQLite refuses one of them.
    static func secure(_ db: Database) throws {
        let settings = try read(db, defensive: 1, trustedSchema: 0)
        guard settings.defensive, !settings.trustedSchema else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "SQLite did not take defensive settings: \(settings)"
            )
        }
    }

    /// The settings of a connection, after setting them (`-1` leaves one as it is).
    static func read(_ db: Database, defensive: Int32 = -1, trustedSchema: Int32 = -1) throws -> ConnectionSettings {
        var isDefensive: Int32 = -1
        var isTrusted: Int32 = -1
        let connection = db.sqliteConnection
        let first = csqlite_db_config_flag(connection, CSQLiteSettingDefensive, defensive, &isDefensive)
        let second = csqlite_db_config_flag(connection, CSQLiteSettingTrustedSchema, trustedSchema, &isTrusted)
        for code in [first, second] where code != 0 {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "sqlite3_db_config failed")
        }
        return ConnectionSettings(defensive: isDefensive == 1, trustedSchema: isTrusted == 1)
    }
}
