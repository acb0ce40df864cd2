import BackgroundCore
import BackgroundStore
import Foundation
import Logging
import Synchronization
import Testing
import TransferTestServer

@testable import BackgroundTransfers

/// Checkpoints are written in batches, one transaction each, the latest of a transfer winning;
/// a completion is in the store before the app hears it.
@Suite("Checkpoints written in batches")
struct CheckpointBatchTests {
    /// A store that keeps each batch it is asked to write, in memory.
    final class RecordingStore: TransferCheckpointStore, Sendable {
        let batches = Mutex<[(saving: [TransferCheckpoint], removing: [TransferKey])]>([])
        let rows = Mutex<[TransferKey: TransferCheckpoint]>([:])

        func saveTransfer(_ checkpoint: TransferCheckpoint) throws {
            try applyTransferChanges(saving: [checkpoint], removing: [])
        }

        func transfers(of app: AppID) throws -> [TransferCheckpoint] {
            rows.withLock { rows in rows.keys.sorted().filter { $0.app == app }.compactMap { rows[$0] } }
        }

        func removeTransfer(app: AppID, session: String, task: Int) throws {
            try applyTransferChanges(saving: [], removing: [TransferKey(app: app, session: session, task: task)])
        }

        func applyTransferChanges(saving: [TransferCheckpoint], removing: [TransferKey]) throws {
            batches.withLock { $0.append((saving, removing)) }
            rows.withLock { rows in
                for checkpoint in saving {
                    rows[TransferKey(app: checkpoint.app, session: checkpoint.session, task: checkpoint.task)] =
                        checkpoint
                }
                for key in removing { rows[key] = nil }
            }
        }
    }

    static func checkpoint(_ task: Int, bytes: Int64) -> TransferCheckpoint {
        TransferCheckpoint(
            app: "com.example.batch",
            session: "s",
            task: task,
            kind: .download,
            method: "GET",
            url: "https://e.com/\(task)",
            bytesDone: bytes
        )
    }

    @Test("300 changes to 100 transfers are one transaction: the latest checkpoint of each; a removal cancels them")
    func oneTransaction() throws {
        let store = RecordingStore()
        let writer = CheckpointWriter(store: store, logger: Logger(label: "test"), flushesByItself: false)
        for task in 1...100 {
            writer.save(Self.checkpoint(task, bytes: 1))
            writer.save(Self.checkpoint(task, bytes: 2))
        }
        for task in 1...50 { writer.remove(TransferKey(app: "com.example.batch", session: "s", task: task)) }
        writer.save(Self.checkpoint(50, bytes: 3))  // a save after a removal wins
        writer.flush()
        let batches = store.batches.withLock { $0 }
        #expect(batches.count == 1)
        #expect(batches.first?.saving.map(\.task) == Array(50...100), "in key order")
        #expect(batches.first?.saving.map(\.bytesDone) == [3] + Array(repeating: 2, count: 50))
        #expect(batches.first?.removing.map(\.task) == Array(1...49))
        writer.flush()
        #expect(store.batches.withLock { $0.count } == 1, "nothing pending: no empty transaction")
        #expect(try store.transfers(of: "com.example.batch").map(\.task) == Array(50...100))
    }

    @Test("A real store takes a batch in one transaction and reads it back")
    func realStore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("batch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try BackgroundStore(path: directory + "/store.sqlite")
        try store.applyTransferChanges(saving: (1...20).map { Self.checkpoint($0, bytes: Int64($0)) }, removing: [])
        try store.applyTransferChanges(
            saving: [Self.checkpoint(3, bytes: 99)],
            removing: (1...2).map { TransferKey(app: "com.example.batch", session: "s", task: $0) }
        )
        let rows = try store.transfers(of: "com.example.batch")
        #expect(rows.map(\.task) == Array(3...20))
        #expect(rows.first?.bytesDone == 99)
    }

    @Test("A completion is committed to the store before its event reaches the session")
    func completionDurableBeforeDelivery() async throws {
        let server = try await LoopbackServer.start()
        server.set("/small", LoopbackRoute(size: 1024))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("durable-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try BackgroundStore(path: directory + "/store.sqlite")
        let app = AppID("com.example.batch")
        let transfers = EmbeddedTransfers(
            configuration: .init(
                app: app,
                container: try TransferContainer(root: directory + "/Container"),
                store: store
            )
        )
        let seen = Mutex<[TransferState?]>([])
        let done = AsyncStream<Void>.makeStream()
        _ = transfers.attach(TransferSessionOptions(app: app, session: "s")) { event in
            guard case .completed(let transfer, _, _) = event else { return }
            // Read from the store itself, as a process started after a kill -9 would.
            let stored = try? store.transfers(of: app).first { $0.task == transfer.task }
            seen.withLock { $0.append(stored?.state) }
            transfers.delivered(app: app, session: "s", task: transfer.task)
            done.continuation.yield()
        }
        for _ in 1...3 {
            let task = transfers.reserveTaskIdentifier(app: app, session: "s")
            transfers.submit(
                TransferOrder(
                    transfer: TransferCheckpoint(
                        app: app,
                        session: "s",
                        task: task,
                        kind: .download,
                        method: "GET",
                        url: server.url("/small")
                    )
                )
            )
        }
        var count = 0
        for await _ in done.stream {
            count += 1
            if count == 3 { break }
        }
        #expect(seen.withLock { $0 } == [.completed, .completed, .completed])
        transfers.flushCheckpoints()
        #expect(try store.transfers(of: app).isEmpty, "delivered: forgotten once the removals are written")
        await transfers.shutdown()
        try await server.shutdown()
    }
}
