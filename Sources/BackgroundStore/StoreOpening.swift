import GRDB

/// The checks a store makes when it opens a database, and the migrations it then runs.
///
/// The checks only read, and run before anything may write (before the file is even switched
/// to WAL mode), so a file that fails one is left exactly as it was. In order: the file's
/// structure must pass `PRAGMA quick_check` (damage is found at open, not halfway through a
/// write); it must be this store's database (its `application_id`) or hold no tables of another
/// program; it must record no migration this version does not know; its schema must be exactly
/// what the migrations it records made (``StoreSchemaCheck``), so no trigger or view planted in
/// it ever runs. Then a store that writes checks that it can, and only then are the missing
/// migrations applied.
struct StoreOpening {
    let path: String

    /// Checks the database without writing to it.
    ///
    /// - Parameters:
    ///   - reader: A connection to the database.
    ///   - requiresTables: Whether a database with no migration applied yet is refused (for
    ///     reading: it has nothing to read) rather than accepted (for writing: it is new).
    /// - Throws: ``StoreError`` with code `corrupt`, `cannotOpen`, `schemaTooNew`,
    ///   `unexpectedSchema` or `notAStore`.
    func check(_ reader: any DatabaseReader, requiresTables: Bool = false) throws(StoreError) {
        do {
            try reader.read { db in
                try checkIntegrity(db)
                try checkOwner(db)
                let migrator = StoreSchema.migrator
                try checkVersion(db, migrator: migrator)
                let applied = try migrator.appliedIdentifiers(db)
                try StoreSchemaCheck(path: path, migrator: migrator).check(db, applied: applied)
                if requiresTables && applied.isEmpty {
                    throw StoreError(
                        code: .notAStore,
                        path: path,
                        message: "\(path) is not a background store: it has none of the store's tables"
                    )
                }
            }
        } catch {
            throw StoreError(wrapping: error, as: .cannotOpen, path: path, action: "cannot open")
        }
    }

    /// Applies the migrations the database lacks.
    ///
    /// - Throws: ``StoreError`` with code `cannotOpen` or `corrupt`.
    func migrate(_ writer: any DatabaseWriter) throws(StoreError) {
        let migrator = StoreSchema.migrator
        do {
            try migrator.migrate(writer)
        } catch {
            // Another process may have applied the same migration between our check and our
            // write; then the schema is complete and there is nothing to report.
            let completed = try? writer.read { db in try migrator.hasCompletedMigrations(db) }
            guard completed == true else {
                throw StoreError(wrapping: error, as: .cannotOpen, path: path, action: "cannot migrate")
            }
        }
    }

    /// Checks that the process can write the database: it takes the write lock and lets it go
    /// (`BEGIN IMMEDIATE`, `ROLLBACK`), which fails on a read-only file, or when the directory
    /// does not let SQLite create its `-wal` file.
    ///
    /// - Throws: ``StoreError`` with code `readOnly`.
    func checkWritable(_ writer: any DatabaseWriter) throws(StoreError) {
        do {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "ROLLBACK")
            }
        } catch {
            throw readOnly(error)
        }
    }

    /// The error for a database this process cannot write.
    func readOnly(_ error: any Error) -> StoreError {
        let reason = (error as? DatabaseError)?.message ?? "\(error)"
        return StoreError(
            code: .readOnly,
            path: path,
            sqliteResultCode: (error as? DatabaseError)?.extendedResultCode.rawValue,
            message: "cannot write to \(path): \(reason) (check the permissions of the file and its directory)"
        )
    }

    private func checkIntegrity(_ db: Database) throws {
        // Rows that break a CHECK constraint are not damage: `load` reports them as invalid
        // rows, naming the table and the row. So the check looks at the file's structure only.
        try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
        defer { try? db.execute(sql: "PRAGMA ignore_check_constraints = OFF") }
        let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
        guard problems != ["ok"] else { return }
        throw StoreError(
            code: .corrupt,
            path: path,
            sqliteResultCode: ResultCode.SQLITE_CORRUPT.rawValue,
            message: "damaged database \(path): \(problems.prefix(3).joined(separator: "; "))"
        )
    }

    private func checkOwner(_ db: Database) throws {
        let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        if applicationID == StoreSchema.applicationID { return }
        if applicationID != 0 {
            throw notOurs("its application_id is \(applicationID), not \(StoreSchema.applicationID)")
        }
        // Without our application_id the file may hold only `grdb_migrations`: GRDB creates that
        // table before the first migration's transaction, so a crash can leave it alone.
        let tables = try String.fetchAll(
            db,
            sql: """
                SELECT name FROM sqlite_master
                WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
                ORDER BY name
                """
        )
        if !tables.isEmpty {
            throw notOurs("it has the tables \(tables.prefix(5).joined(separator: ", ")) and no application_id")
        }
    }

    private func checkVersion(_ db: Database, migrator: DatabaseMigrator) throws {
        let applied = try migrator.appliedIdentifiers(db)
        let unknown = applied.subtracting(migrator.migrations).sorted()
        guard !unknown.isEmpty else { return }
        throw StoreError(
            code: .schemaTooNew,
            path: path,
            message: """
                database \(path) was written by a newer version: it has migrations \
                \(unknown.map { "'\($0)'" }.joined(separator: ", ")) that this version does not know
                """
        )
    }

    private func notOurs(_ reason: String) -> StoreError {
        StoreError(code: .cannotOpen, path: path, message: "\(path) is not a background store: \(reason)")
    }
}
