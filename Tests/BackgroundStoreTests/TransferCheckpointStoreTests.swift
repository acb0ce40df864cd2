import BackgroundCore
import BackgroundStore
import Foundation
import GRDB
import Testing

@Suite("Transfer checkpoints in the store")
struct TransferCheckpointStoreTests {
    static let app = AppID("com.example.reader")

    static func checkpoint(task: Int, bytes: Int64 = 0, app: AppID = app) -> TransferCheckpoint {
        TransferCheckpoint(
            app: app,
            session: "downloads",
            task: task,
            kind: .download,
            state: .running,
            method: "GET",
            url: "https://example.com/\(task)",
            headers: [TransferHeader(name: "Accept", value: "*/*")],
            partialFile: "Transfers/downloads/\(task).partial",
            bytesDone: bytes,
            entityTag: "\"v1\""
        )
    }

    @Test("a checkpoint replaces the previous one; transfers come back per app, ordered; removal forgets")
    func roundTrip() throws {
        try withScratchDirectory { directory in
            let path = directory.file("store.sqlite")
            let store = try BackgroundStore(path: path)
            try store.saveTransfer(Self.checkpoint(task: 2))
            try store.saveTransfer(Self.checkpoint(task: 1, bytes: 10))
            try store.saveTransfer(Self.checkpoint(task: 1, bytes: 4 << 20))
            try store.saveTransfer(Self.checkpoint(task: 1, app: "com.example.other"))
            let reopened = try BackgroundStore(path: path)
            #expect(
                try reopened.transfers(of: Self.app) == [
                    Self.checkpoint(task: 1, bytes: 4 << 20), Self.checkpoint(task: 2),
                ]
            )
            try reopened.removeTransfer(app: Self.app, session: "downloads", task: 1)
            #expect(try reopened.transfers(of: Self.app).map(\.task) == [2])
            try reopened.deleteApp(Self.app)
            #expect(try reopened.transfers(of: Self.app).isEmpty)
            #expect(try reopened.transfers(of: "com.example.other").count == 1)
        }
    }

    @Test("a row whose JSON names another transfer, or is not a checkpoint, is reported, not used")
    func invalidRows() throws {
        let store = try BackgroundStore.inMemory()
        try store.saveTransfer(Self.checkpoint(task: 1))
        try store.withConnection { db in
            try db.execute(sql: "UPDATE transfers SET task = 7")
        }
        #expect(throws: StoreError.self) { try store.transfers(of: Self.app) }
        try store.withConnection { db in
            try db.execute(sql: "UPDATE transfers SET task = 1, checkpoint_json = '{\"app\": 1}'")
        }
        let error = try #require(throws: StoreError.self) { try store.transfers(of: Self.app) }
        #expect(error.code == .invalidRow)
    }

    @Test("negative counts in a stored row come back as lengths: nothing held, the length unknown")
    func negativeCounts() throws {
        let store = try BackgroundStore.inMemory()
        var damaged = Self.checkpoint(task: 1, bytes: -5)
        damaged.expectedLength = -1
        try store.saveTransfer(damaged)
        let restored = try #require(try store.transfers(of: Self.app).first)
        #expect(restored.bytesDone == 0 && restored.expectedLength == nil)
        #expect(try store.transfers(of: Self.app, session: "downloads") == [restored])
    }

    @Test("one session's transfers are read alone, ordered by task")
    func oneSession() throws {
        let store = try BackgroundStore.inMemory()
        var other = Self.checkpoint(task: 1)
        other.session = "uploads"
        try store.applyTransferChanges(
            saving: [Self.checkpoint(task: 3), other, Self.checkpoint(task: 2)],
            removing: []
        )
        #expect(try store.transfers(of: Self.app, session: "downloads").map(\.task) == [2, 3])
        #expect(try store.transfers(of: Self.app, session: "uploads") == [other])
        #expect(try store.transfers(of: Self.app, session: "none").isEmpty)
    }
}
