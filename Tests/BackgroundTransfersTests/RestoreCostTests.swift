import BackgroundCore
import BackgroundStore
import Foundation
import Logging
import Synchronization
import Testing

@testable import BackgroundTransfers

/// A restart restores every stored transfer at a cost in proportion to how many there are, not
/// to how many there are times how many sessions hold them (issue 25, finding 4: 1,260 stored
/// transfers took 23 s before `backgroundd` served). Counted, not timed: the rows read from the
/// store while every session of an app attaches, as `DaemonTransfers.start` attaches them.
@Suite("Restoring stored transfers reads each row once")
struct RestoreCostTests {
    static let app: AppID = "com.example.restore"

    /// The SQLite store, with a count of the checkpoints it hands back.
    final class CountingStore: TransferCheckpointStore, Sendable {
        let store: BackgroundStore
        let rowsRead = Atomic<Int>(0)
        let reads = Atomic<Int>(0)

        init(_ store: BackgroundStore) { self.store = store }

        func saveTransfer(_ checkpoint: TransferCheckpoint) throws { try store.saveTransfer(checkpoint) }

        func transfers(of app: AppID) throws -> [TransferCheckpoint] {
            let rows = try store.transfers(of: app)
            count(rows)
            return rows
        }

        func transfers(of app: AppID, session: String) throws -> [TransferCheckpoint] {
            let rows = try store.transfers(of: app, session: session)
            count(rows)
            return rows
        }

        func removeTransfer(app: AppID, session: String, task: Int) throws {
            try store.removeTransfer(app: app, session: session, task: task)
        }

        func applyTransferChanges(saving: [TransferCheckpoint], removing: [TransferKey]) throws {
            try store.applyTransferChanges(saving: saving, removing: removing)
        }

        private func count(_ rows: [TransferCheckpoint]) {
            rowsRead.add(rows.count, ordering: .relaxed)
            reads.add(1, ordering: .relaxed)
        }
    }

    /// `sessions` sessions of `perSession` downloads each, waiting for a date a day ahead (so
    /// nothing connects anywhere), in a new store; and the engine a restart makes over it.
    static func restart(sessions: Int, perSession: Int) throws -> (CountingStore, EmbeddedTransfers, [String]) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("restore-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try BackgroundStore(path: directory + "/store.sqlite")
        let names = (1...sessions).map { "com.example.restore.s\($0)" }
        let tomorrow = Date().timeIntervalSince1970 + 86_400
        var rows: [TransferCheckpoint] = []
        for session in names {
            for task in 1...perSession {
                rows.append(
                    TransferCheckpoint(
                        app: app,
                        session: session,
                        task: task,
                        kind: .download,
                        method: "GET",
                        url: "http://127.0.0.1:9/\(task)",
                        headers: [TransferHeader(name: "X-Request", value: String(repeating: "h", count: 200))],
                        earliestBeginUnixSeconds: tomorrow
                    )
                )
            }
        }
        try store.applyTransferChanges(saving: rows, removing: [])
        let counting = CountingStore(store)
        let engine = EmbeddedTransfers(
            configuration: .init(
                app: app,
                container: try TransferContainer(root: directory + "/Container"),
                store: counting,
                logger: Logger(label: "restore-cost") { _ in SwiftLogNoOpLogHandler() }
            )
        )
        return (counting, engine, names)
    }

    @Test("2,000 transfers in 20 sessions: attaching every session reads each stored row once")
    func eachRowOnce() async throws {
        let (store, engine, sessions) = try Self.restart(sessions: 20, perSession: 100)
        var restored = 0
        for session in sessions {
            restored += engine.attach(TransferSessionOptions(app: Self.app, session: session)) { _ in }.count
        }
        #expect(restored == 2_000)
        // Before: each attach read the app's every row (20 × 2,000 = 40,000).
        #expect(store.rowsRead.load(ordering: .relaxed) == 2_000)
        #expect(store.reads.load(ordering: .relaxed) == 20)
        let status = engine.transferStatus()?.transfers ?? []
        #expect(status.count == 2_000 && status.allSatisfy { !$0.isRunning }, "every one waits for its date")
        await engine.shutdown()
    }
}
