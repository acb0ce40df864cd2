import BackgroundExecution
import BackgroundStore
import BackgroundTestSupport
import Foundation
import Logging
import Testing

@Suite("Pending requests survive a restart of the process")
struct RestartTests {
    func makeSystem(store: BackgroundStore, clock: ManualClock) -> EmbeddedSystem {
        EmbeddedSystem(
            configuration: .init(
                app: "com.example.restart",
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false,
                logger: Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() }),
                manifest: AppManifest(
                    bundleIdentifier: "com.example.restart",
                    permittedTaskIdentifiers: ["com.example.restart.cleanup"],
                    backgroundModes: [.processing]
                ),
                store: store
            )
        )
    }

    @Test(
        "A request that fell due while the process was down is handed over once the next launch registers its handler"
    )
    @MainActor
    func deliveredAfterRestart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bg-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path

        // First process: submits a cleanup that is due at once, and goes away before it finishes
        // launching, so the request is still pending in the store.
        do {
            let system = makeSystem(store: try BackgroundStore(path: path), clock: ManualClock())
            let scheduler = BGTaskScheduler(connection: system)
            scheduler.register(forTaskWithIdentifier: "com.example.restart.cleanup", using: nil) { _ in }
            try scheduler.submit(BGProcessingTaskRequest(identifier: "com.example.restart.cleanup"))
            #expect(system.pendingTaskRequests().count == 1)
        }

        // Second process: the request is restored, and due; it runs once the handler is registered.
        let clock = ManualClock()
        let system = makeSystem(store: try BackgroundStore(path: path), clock: clock)
        #expect(system.pendingTaskRequests().map(\.identifier) == ["com.example.restart.cleanup"])
        let inbox = TaskInbox()
        BGTaskScheduler(connection: system).register(forTaskWithIdentifier: "com.example.restart.cleanup", using: nil) {
            inbox.receive($0)
        }
        clock.runPending()  // launch finishes
        #expect(await waitUntil { inbox.count == 1 })
        #expect(inbox.received.first is BGProcessingTask)
        inbox.received.first?.setTaskCompleted(success: true)
        #expect(await waitUntil { system.runningTasks.isEmpty })

        // A third process finds nothing left: the run consumed the one-shot request.
        let third = makeSystem(store: try BackgroundStore(path: path), clock: ManualClock())
        #expect(third.pendingTaskRequests().isEmpty)
    }
}
