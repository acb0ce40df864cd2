package import GRDB

/// Compares a database's schema with the one the migrations make, object by object.
///
/// A store's schema is input like any other: a trigger planted in it would run inside the
/// store's own transactions (writing another app's request, failing every write, stalling
/// start-up), and a view or an extra table could do the same on a read. So before any of the
/// file's SQL runs, every entry of `sqlite_schema` (type, name, table and SQL text) must be one
/// that the migrations the file records would have made, and every one of those must be there.
///
/// The expected set comes from running those same migrations on an empty in-memory database,
/// so a migration appended later is known without a list to keep in step.
package struct StoreSchemaCheck {
    /// One entry of `sqlite_schema`.
    struct Object: Hashable, Comparable {
        let type: String
        let name: String
        let table: String
        let sql: String?

        static func < (lhs: Object, rhs: Object) -> Bool { (lhs.type, lhs.name) < (rhs.type, rhs.name) }

        /// `trigger 'x' on table 'y'`, or `table 'y'`.
        var label: String {
            type == "table" || type == "view" || table == name
                ? "\(type) '\(name)'" : "\(type) '\(name)' on table '\(table)'"
        }
    }

    let path: String
    let migrator: DatabaseMigrator

    /// A check of the database at `path` against what `migrator`'s migrations make.
    package init(path: String, migrator: DatabaseMigrator) {
        self.path = path
        self.migrator = migrator
    }

    /// Throws ``StoreError/Code-swift.struct/unexpectedSchema`` naming the first few objects
    /// that differ.
    ///
    /// - Parameters:
    ///   - db: The database to check, which has recorded the migrations `applied`.
    ///   - applied: The identifiers of the migrations the database records (all known ones).
    package func check(_ db: Database, applied: Set<String>) throws {
        let known = migrator.migrations
        let lastIndex = known.lastIndex(where: applied.contains)
        let prefix = lastIndex.map { Array(known[...$0]) } ?? []
        guard Set(prefix) == applied else {
            let skipped = prefix.filter { !applied.contains($0) }.map { "'\($0)'" }.joined(separator: ", ")
            throw unexpected("it skips the migrations \(skipped)")
        }
        let expected = try expectedObjects(through: prefix.last)
        let actual = try Self.objects(in: db)
        let expectedByName = Dictionary(expected.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let actualNames = Set(actual.map(\.name))
        var problems: [String] = []
        for object in actual.sorted() where !Self.isGRDBIndex(object) {
            guard let wanted = expectedByName[object.name] else {
                problems.append("\(object.label) is not one the migrations made")
                continue
            }
            if !Self.matches(object, wanted) {
                problems.append("\(object.label) differs from the \(wanted.type) the migrations made")
            }
        }
        // GRDB creates its table with the first migration; before that it may be missing.
        for object in expected.sorted()
        where !actualNames.contains(object.name) && object.name != "grdb_migrations" && !Self.isGRDBIndex(object) {
            problems.append("\(object.label) is missing")
        }
        guard !problems.isEmpty else { return }
        let more = problems.count > 3 ? " (and \(problems.count - 3) more)" : ""
        throw unexpected(problems.prefix(3).joined(separator: "; ") + more)
    }

    /// GRDB's own table is compared by type and name only: its SQL text is GRDB's to choose,
    /// and a crash can leave it before the first migration (see `StoreOpening`).
    private static func matches(_ actual: Object, _ expected: Object) -> Bool {
        if actual.name == "grdb_migrations" { return actual.type == expected.type && actual.table == expected.table }
        return actual == expected
    }

    /// The index SQLite makes for the primary key of GRDB's table (no SQL; its name depends on
    /// how GRDB declared the table).
    private static func isGRDBIndex(_ object: Object) -> Bool {
        object.type == "index" && object.table == "grdb_migrations" && object.sql == nil
            && object.name.hasPrefix("sqlite_autoindex_grdb_migrations_")
    }

    /// What the migrations up to `last` make in an empty database, plus GRDB's table.
    private func expectedObjects(through last: String?) throws -> [Object] {
        let queue = try DatabaseQueue()
        if let last { try migrator.migrate(queue, upTo: last) }
        var objects = try queue.read { db in try Self.objects(in: db) }
        if !objects.contains(where: { $0.name == "grdb_migrations" }) {
            objects.append(Object(type: "table", name: "grdb_migrations", table: "grdb_migrations", sql: nil))
        }
        return objects
    }

    /// Every entry of `sqlite_schema` but SQLite's statistics tables, which `ANALYZE` and
    /// `PRAGMA optimize` create and which hold no SQL.
    private static func objects(in db: Database) throws -> [Object] {
        try Row.fetchAll(
            db,
            sql: "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\'"
        ).map { row in
            Object(type: row["type"] ?? "", name: row["name"] ?? "", table: row["tbl_name"] ?? "", sql: row["sql"])
        }
    }

    private func unexpected(_ reason: String) -> StoreError {
        StoreError(code: .unexpectedSchema, path: path, message: "unexpected schema in \(path): \(reason)")
    }
}
