import BackgroundCore
import BackgroundStore
import Foundation
import GRDB
import Testing

/// Issue 9, defect 3: a store opened to read it is never written and nothing is created.
@Suite("Reading a store: read-only, never creates, refuses empty files")
struct ReadingTests {
    @Test("A missing path is notFound and nothing is created")
    func missingPath() throws {
        try withScratchDirectory { directory throws in
            let path = directory.file("typo.sqlite")
            let error = storeError { try BackgroundStore.openForReading(path: path) }
            #expect(error?.code == .notFound)
            #expect(error?.message == "no such file: \(path)")
            #expect(try directory.listing().isEmpty)
        }
    }

    @Test("A zero-length file is notAStore and stays zero-length, with no -wal or -shm beside it")
    func emptyFile() throws {
        try withScratchDirectory { directory throws in
            let path = directory.file("empty.sqlite")
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let error = storeError { try BackgroundStore.openForReading(path: path) }
            #expect(error?.code == .notAStore)
            #expect(error?.message.contains("empty") == true)
            #expect(try directory.listing() == ["empty.sqlite"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
        }
    }

    @Test("Reading a cleanly closed store changes no byte and creates no file; writing through it is refused")
    func readingChangesNothing() throws {
        try withScratchDirectory { directory throws in
            let path = directory.file("store.sqlite")
            let changes: [StoreChange] = [
                .savePendingRequest(news, fullRequest("r", kind: .processing, submittedAt: .seconds(2))),
                .saveAppState(news, fullState()),
            ]
            do {
                let store = try BackgroundStore(path: path)
                try store.apply(changes, clock: clock)
                try store.checkpoint()
            }
            let listing = try directory.listing()
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let reader = try BackgroundStore.openForReading(path: path)
            var reference = ReferenceStore()
            reference.apply(changes)
            #expect(try reader.load(clock: clock) == reference.restored)
            #expect(reader.isReadOnly)
            let error = storeError { try reader.apply([.recordLaunch(news, at: .zero)], clock: clock) }
            #expect(error?.code == .readOnly)
            #expect(try directory.listing() == listing)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test("A database without the store's tables is notAStore for reading")
    func emptyDatabase() throws {
        try withScratchDirectory { directory throws in
            let path = directory.file("other.sqlite")
            // An SQLite file with no tables at all: its header, written by SQLite.
            try DatabaseQueue(path: path).write { db in try db.execute(sql: "PRAGMA user_version = 1") }
            #expect(storeError { try BackgroundStore.openForReading(path: path) }?.code == .notAStore)
        }
    }

    @Test("checkpoint() leaves everything in the main file: a copy of it alone loads the same")
    func checkpointMainFileHoldsEverything() throws {
        try withScratchDirectory { directory throws in
            let path = directory.file("store.sqlite")
            let store = try BackgroundStore(path: path)
            try store.apply([.recordLaunch(news, at: .seconds(3))], clock: clock)
            try store.checkpoint()
            let copy = directory.file("copy.sqlite")
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            #expect(try BackgroundStore.openForReading(path: copy).load(clock: clock) == store.load(clock: clock))
        }
    }
}
