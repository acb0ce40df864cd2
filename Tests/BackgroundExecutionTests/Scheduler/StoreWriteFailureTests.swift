import BackgroundExecution
import BackgroundStore
import BackgroundTestSupport
import Foundation
import GRDB
import Logging
import Testing

/// Issue 14, finding 6: a write the store refuses fails the call that caused it, and nothing is
/// lost. The store is opened clean; then a trigger is planted through another connection, as
/// another process with write access (or a full disk) would make writes fail after start-up.
@Suite("A failed store write fails the call that caused it, and nothing is lost")
struct StoreWriteFailureTests {
    static let cleanup = "com.example.failing.cleanup"
    static let refresh = "com.example.failing.refresh"

    func makeSystem(store: BackgroundStore) -> EmbeddedSystem {
        EmbeddedSystem(
            configuration: .init(
                app: "com.example.failing",
                policy: .iOS,
                clock: .manual(ManualClock()),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false,
                logger: Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() }),
                manifest: AppManifest(
                    bundleIdentifier: "com.example.failing",
                    permittedTaskIdentifiers: [Self.cleanup, Self.refresh],
                    backgroundModes: [.processing, .fetch]
                ),
                store: store
            )
        )
    }

    func withStore(_ body: (String, EmbeddedSystem, BGTaskScheduler) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bg-failing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let system = makeSystem(store: try BackgroundStore(path: path))
        let scheduler = BGTaskScheduler(connection: system)
        for identifier in [Self.cleanup, Self.refresh] {
            scheduler.register(forTaskWithIdentifier: identifier, using: nil) { _ in }
        }
        try body(path, system, scheduler)
    }

    /// Runs `sql` on the file through a connection of its own.
    func plant(_ sql: String, in path: String) throws {
        try DatabaseQueue(path: path).write { db in try db.execute(sql: sql) }
    }

    func stored(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM pending_requests ORDER BY identifier")
        }
    }

    func laterCleanup() -> BGProcessingTaskRequest {
        let request = BGProcessingTaskRequest(identifier: Self.cleanup)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
        return request
    }

    @Test(
        "submit throws BGTaskScheduler.Error.unavailable when the store refuses the write; the request is not pending"
    )
    func submitFails() throws {
        try withStore { path, system, scheduler in
            try scheduler.submit(laterCleanup())
            try plant(
                "CREATE TRIGGER refuse BEFORE INSERT ON pending_requests BEGIN SELECT RAISE(ABORT, 'refused'); END",
                in: path
            )
            let refresh = BGAppRefreshTaskRequest(identifier: Self.refresh)
            refresh.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
            var caught: BGTaskScheduler.Error?
            do { try scheduler.submit(refresh) } catch let error as BGTaskScheduler.Error { caught = error }
            #expect(caught?.code == .unavailable)
            #expect(caught?.failureReason?.contains("refused") == true)
            #expect(caught?.failureReason?.contains(path) == true)
            #expect(system.pendingTaskRequests().map(\.identifier) == [Self.cleanup])
            #expect(try stored(path) == [Self.cleanup])

            // Once the store takes writes again, the same submit succeeds.
            try plant("DROP TRIGGER refuse", in: path)
            try scheduler.submit(refresh)
            #expect(system.pendingTaskRequests().map(\.identifier).sorted() == [Self.cleanup, Self.refresh])
            #expect(try stored(path) == [Self.cleanup, Self.refresh])
        }
    }

    @Test("A cancel the store could not write is kept and written with the next write, not lost")
    func cancelRetried() throws {
        try withStore { path, system, scheduler in
            try scheduler.submit(laterCleanup())
            try plant(
                "CREATE TRIGGER keep BEFORE DELETE ON pending_requests BEGIN SELECT RAISE(ABORT, 'kept'); END",
                in: path
            )
            scheduler.cancel(taskRequestWithIdentifier: Self.cleanup)
            #expect(system.pendingTaskRequests().isEmpty)
            #expect(try stored(path) == [Self.cleanup], "the delete failed")

            try plant("DROP TRIGGER keep", in: path)
            let refresh = BGAppRefreshTaskRequest(identifier: Self.refresh)
            refresh.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
            try scheduler.submit(refresh)
            #expect(try stored(path) == [Self.refresh], "the kept delete went in with the next write")
        }
    }
}
