import BackgroundCore
import BackgroundStore
import Foundation
import GRDB
import Testing

/// Issue 14, finding 6: every connection runs with SQLite's defensive mode on and
/// `trusted_schema` off, read back from SQLite itself.
@Suite("Connection settings: defensive mode on, trusted_schema off")
struct ConnectionSettingsTests {
    @Test("A file store, a read-only store and an in-memory store report defensive on and trusted_schema off")
    func settingsReadBack() throws {
        try withScratchDirectory { directory throws in
            let path = directory.file("store.sqlite")
            let stores = [
                try BackgroundStore(path: path), try BackgroundStore.openForReading(path: path),
                try BackgroundStore.inMemory(),
            ]
            for store in stores {
                #expect(try store.connectionSettings() == ConnectionSettings(defensive: true, trustedSchema: false))
                let trusted = try store.withConnection { db in try Int.fetchOne(db, sql: "PRAGMA trusted_schema") }
                #expect(trusted == 0)
            }
        }
    }

    @Test("Defensive mode stops writable_schema: the store's own connection cannot rewrite its schema")
    func writableSchemaRefused() throws {
        let store = try BackgroundStore.inMemory()
        #expect(throws: DatabaseError.self) {
            try store.withConnection { db in
                try db.execute(sql: "PRAGMA writable_schema = ON")
                try db.execute(sql: "UPDATE sqlite_schema SET sql = 'CREATE TABLE apps (x)' WHERE name = 'apps'")
            }
        }
    }
}
