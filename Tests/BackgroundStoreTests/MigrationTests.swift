import BackgroundCore
import BackgroundStore
import Foundation
import GRDB
import Testing

@Suite("Schema and file lifecycle")
struct MigrationTests {
    static let v1 = "v1: apps, pending requests, launches"
    static let v2 = "v2: task run history, device condition intervals"
    static let v3 = "v3: background transfers' checkpoints"
    static let v4 = "v4: per-app user and group ids"

    @Test("Opening a file twice applies each migration once, and migration identifiers never change")
    func migrationsIdempotent() throws {
        try withScratchDirectory { directory in
            let path = directory.file("store.sqlite")
            _ = try BackgroundStore(path: path)
            _ = try BackgroundStore(path: path)
            let applied = try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
            }
            #expect(applied == [Self.v1, Self.v2, Self.v3, Self.v4])
        }
    }

    @Test("Reopening a file keeps every change; the file is in WAL mode")
    func reopenKeepsData() throws {
        try withScratchDirectory { directory in
            let path = directory.file("store.sqlite")
            let changes: [StoreChange] = [
                .savePendingRequest(news, fullRequest("r", kind: .processing, submittedAt: .seconds(2))),
                .recordLaunch(news, at: .seconds(1)), .saveAppState(news, fullState()),
            ]
            do {
                let store = try BackgroundStore(path: path)
                try store.apply(changes, clock: clock)
            }
            var reference = ReferenceStore()
            reference.apply(changes)
            #expect(try BackgroundStore(path: path).load(clock: clock) == reference.restored)
            let mode = try DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
        }
    }

    @Test("A database that records a migration this version does not know fails with schemaTooNew, untouched")
    func schemaTooNew() throws {
        try withScratchDirectory { directory in
            let path = directory.file("store.sqlite")
            try BackgroundStore(path: path).apply([.recordLaunch(news, at: .zero)], clock: clock)
            try DatabaseQueue(path: path).writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let error = storeError { try BackgroundStore(path: path) }
            #expect(error?.code == .schemaTooNew)
            #expect(error?.path == path)
            #expect(error?.message.contains("v99: from the future") == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test("Another program's SQLite database is refused with cannotOpen and left untouched")
    func foreignDatabase() throws {
        try withScratchDirectory { directory in
            let path = directory.file("other.sqlite")
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')")
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let error = storeError { try BackgroundStore(path: path) }
            #expect(error?.code == .cannotOpen)
            #expect(error?.message.contains("not a background store") == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test("A file left with only an empty grdb_migrations table (killed before v1 committed) opens and migrates")
    func interruptedFirstMigration() throws {
        try withScratchDirectory { directory in
            let path = directory.file("store.sqlite")
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            }
            let store = try BackgroundStore(path: path)
            try store.apply([.recordLaunch(news, at: .zero)], clock: clock)
            #expect(try store.load(clock: clock) == [PersistedApp(app: news, launches: [.zero])])
        }
    }

    @Test("A path in a directory that does not exist fails with cannotOpen and SQLite's result code")
    func missingDirectory() throws {
        try withScratchDirectory { directory in
            let path = directory.file("missing/store.sqlite")
            let error = storeError { try BackgroundStore(path: path) }
            #expect(error?.code == .cannotOpen)
            #expect(error?.sqlitePrimaryResultCode == 14)  // SQLITE_CANTOPEN
            #expect(error?.message.contains(path) == true)
            let files = try directory.listing()
            #expect(files.isEmpty)
        }
    }

    @Test("Two stores on one file (the daemon and an app) write at the same time without busy errors")
    func sharedFile() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.file("store.sqlite")
        let daemon = try BackgroundStore(path: path)
        let app = try BackgroundStore(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (store, owner) in [(daemon, news), (app, notes)] {
                group.addTask {
                    for n in 0..<200 {
                        let request = TaskRequest(identifier: "r\(n)", kind: .processing, submittedAt: .seconds(n))
                        try store.apply(
                            [.savePendingRequest(owner, request), .recordLaunch(owner, at: .seconds(n))],
                            clock: clock
                        )
                    }
                }
            }
            try await group.waitForAll()
        }
        let apps = try daemon.load(clock: clock)
        #expect(apps.map(\.pendingRequests.count) == [200, 200])
        #expect(apps.map(\.launches.count) == [200, 200])
    }
}
