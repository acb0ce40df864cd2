import BackgroundCore
import BackgroundDaemon
import BackgroundExecution
import BackgroundProcessControl
import BackgroundTestSupport
import Dispatch
import Logging
import Synchronization
import Testing

/// Issue 25, finding 6: the freeze of an app with shared containers reads every descriptor of
/// every one of its processes (100 processes × 2,000 descriptors took 4.7 s), and all apps
/// shared one queue of freezes and thaws, so the thaw of another app (the user opening it)
/// waited behind it. Each app's freezes and thaws now go in order on a queue of its own, and the
/// scan runs off the cooperative pool.
@Suite("Freezes and thaws: one queue per app")
struct FreezeQueueTests {
    /// A controller with no processes: `locksHeld` of the slow app blocks until released.
    final class SlowScanController: ProcessController {
        let slowLabel: String
        let release = DispatchSemaphore(value: 0)
        let thawed = Mutex<[String]>([])
        let scanning = Mutex(false)
        private let serial = Atomic<UInt64>(0)
        init(slowLabel: String) { self.slowLabel = slowLabel }

        var freezeMechanism: FreezeMechanism { .processGroupSignals(reason: "a test double") }
        func spawn(_ request: SpawnRequest) throws(ProcessControlError) -> AppProcess {
            let serial = serial.add(1, ordering: .relaxed).newValue
            return AppProcess(label: request.label, pid: 4_000_000 + Int32(serial), serial: serial, cgroup: nil)
        }
        func freeze(_ process: AppProcess) async throws(ProcessControlError) -> Duration { .zero }
        func thaw(_ process: AppProcess) throws(ProcessControlError) {
            thawed.withLock { $0.append(process.label) }
        }
        func kill(_ process: AppProcess) throws(ProcessControlError) {}
        func exit(of process: AppProcess) async -> ProcessExit {
            ProcessExit(process: process, status: .exited(code: 0))
        }
        func exits() -> AsyncStream<ProcessExit> { AsyncStream { _ in } }
        func locksHeld(
            by process: AppProcess,
            under sharedDirectories: [String]
        ) throws(ProcessControlError)
            -> [HeldLock]
        {
            guard process.label == slowLabel else { return [] }
            scanning.withLock { $0 = true }
            release.wait()
            return []
        }
    }

    @Test("a slow lock scan in one app's freeze does not delay another app's thaw")
    func appsDoNotWaitForEachOther() async throws {
        let slow: AppID = "com.example.shared"
        let other: AppID = "com.example.other"
        let controller = SlowScanController(slowLabel: slow.bundleIdentifier)
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let processes = SpawnedAppProcesses(controller: controller, logger: logger)
        let apps = [
            InstalledApp(
                manifest: AppManifest(bundleIdentifier: slow),
                launch: LaunchCommand(executable: "/usr/bin/true", sharedContainers: ["/tmp"]),
                file: "shared.json"
            ),
            InstalledApp(
                manifest: AppManifest(bundleIdentifier: other),
                launch: LaunchCommand(executable: "/usr/bin/true"),
                file: "other.json"
            ),
        ]
        let engine = try DaemonEngine(
            configuration: .init(logger: logger),
            store: .inMemory(),
            apps: apps,
            processes: processes,
            wakeups: RecordedWakeups()
        )
        processes.bind(engine)
        for app in apps { try processes.launch(app, reason: .user, incarnation: Incarnation(rawValue: 1)) }
        processes.freeze(slow)
        #expect(await waitUntil { controller.scanning.withLock { $0 } }, "the slow app's scan started")
        processes.thaw(other)
        let thawed = await waitUntil { controller.thawed.withLock { $0 } == [other.bundleIdentifier] }
        controller.release.signal()
        #expect(thawed, "the other app's thaw went ahead while the slow app's scan still ran")
    }
}
