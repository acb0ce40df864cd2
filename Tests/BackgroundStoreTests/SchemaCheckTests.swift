import BackgroundCore
import BackgroundStore
import Foundation
import GRDB
import Testing

/// Issue 14, finding 6: a store's schema is input. Each test plants an object with SQLite, as
/// an attacker with write access to the file would, and the store must refuse the file before
/// any of its SQL runs, naming the object, and leave the file as it was.
@Suite("Schema check: planted triggers, views, tables and indexes are refused")
struct SchemaCheckTests {
    /// A store holding one request, with `sql` run on it through a plain connection, then
    /// checkpointed so the main file holds everything.
    func plantedStore(_ sql: String, in directory: ScratchDirectory) throws -> String {
        let path = directory.file("store.sqlite")
        try BackgroundStore(path: path).apply(
            [.savePendingRequest(news, fullRequest("r", kind: .processing, submittedAt: .seconds(1)))],
            clock: clock
        )
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: sql)
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return path
    }

    /// Opens `path`, expecting an `unexpectedSchema` error naming `object`, the file unchanged.
    func expectRefused(_ path: String, naming object: String) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = storeError { try BackgroundStore(path: path) }
        #expect(error?.code == .unexpectedSchema)
        #expect(error?.message.contains(object) == true, "\(String(describing: error))")
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains("\n") == false)
        let readError = storeError { try BackgroundStore.openForReading(path: path) }
        #expect(readError?.code == .unexpectedSchema)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("A trigger that plants another app's request is refused, and never runs")
    func triggerPlantingRequest() throws {
        try withScratchDirectory { directory throws in
            let path = try plantedStore(
                """
                CREATE TRIGGER plant AFTER INSERT ON pending_requests BEGIN
                    INSERT OR IGNORE INTO apps (bundle_id) VALUES ('com.evil');
                    INSERT OR REPLACE INTO pending_requests SELECT 'com.evil', 'steal', kind, earliest_begin_unix_s,
                        requires_network, requires_power, title, subtitle, strategy, requires_gpu, submitted_unix_s
                    FROM pending_requests WHERE rowid = NEW.rowid;
                END
                """,
                in: directory
            )
            try expectRefused(path, naming: "trigger 'plant' on table 'pending_requests'")
        }
    }

    @Test("A RAISE(ABORT) trigger that would fail every write is refused at open")
    func abortingTrigger() throws {
        try withScratchDirectory { directory throws in
            let path = try plantedStore(
                "CREATE TRIGGER refuse BEFORE INSERT ON launches BEGIN SELECT RAISE(ABORT, 'no'); END",
                in: directory
            )
            try expectRefused(path, naming: "trigger 'refuse'")
        }
    }

    @Test("A slow trigger cannot hold start-up: it is refused before any statement that would fire it")
    func slowTrigger() throws {
        try withScratchDirectory { directory throws in
            let path = try plantedStore(
                """
                CREATE TRIGGER stall BEFORE INSERT ON apps BEGIN
                    SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c
                        LIMIT 30000000) SELECT x FROM c);
                END
                """,
                in: directory
            )
            try expectRefused(path, naming: "trigger 'stall'")
        }
    }

    @Test("Views, extra tables and extra indexes are refused, each named")
    func otherObjects() throws {
        let plants = [
            ("CREATE VIEW peek AS SELECT * FROM pending_requests", "view 'peek'"),
            ("CREATE TABLE extra (x)", "table 'extra'"),
            ("CREATE INDEX by_title ON pending_requests (title)", "index 'by_title' on table 'pending_requests'"),
        ]
        for (sql, name) in plants {
            try withScratchDirectory { directory throws in
                try expectRefused(try plantedStore(sql, in: directory), naming: name)
            }
        }
    }

    @Test("A table replaced by one without its constraints, or a missing index, is refused")
    func changedObjects() throws {
        try withScratchDirectory { directory throws in
            let path = try plantedStore(
                "DROP TABLE launches; CREATE TABLE launches (bundle_id TEXT, launched_unix_s REAL)",
                in: directory
            )
            let error = storeError { try BackgroundStore(path: path) }
            #expect(error?.code == .unexpectedSchema)
            #expect(error?.message.contains("table 'launches' differs") == true, "\(String(describing: error))")
            #expect(error?.message.contains("index 'launches_by_app_and_time' on table 'launches' is missing") == true)
        }
    }

    @Test("The expected schema comes from the migrations themselves: an appended migration is known")
    func appendedMigrationIsKnown() throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a (x)") }
        migrator.registerMigration("v2: history") { db in
            try db.execute(sql: "CREATE TABLE history (y); CREATE INDEX history_y ON history (y)")
        }
        let queue = try DatabaseQueue()
        try migrator.migrate(queue)
        try queue.read { db in
            let applied = try migrator.appliedIdentifiers(db)
            try StoreSchemaCheck(path: "test", migrator: migrator).check(db, applied: applied)
        }
        // The same database checked against v1 alone has objects v1 did not make.
        var first = DatabaseMigrator()
        first.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a (x)") }
        #expect(throws: StoreError.self) {
            try queue.read { db in try StoreSchemaCheck(path: "test", migrator: first).check(db, applied: ["v1"]) }
        }
    }
}
