import BackgroundExecution
import Foundation
import Synchronization

/// An app on a manual clock with a manifest, its scheduler, and a record of what was delivered.
struct SchedulerHarness {
    static let refresh = "com.example.tests.refresh"
    static let cleanup = "com.example.tests.cleanup"
    static let export = "com.example.tests.export"

    let clock: ManualClock
    let system: EmbeddedSystem
    let application: UIApplication
    let scheduler: BGTaskScheduler
    let log: EffectLog

    init(
        device: DeviceConditions = EmbeddedSystem.serverDevice,
        modes: Set<BackgroundMode> = [.fetch, .processing],
        policy: SystemPolicy = .iOS
    ) {
        let clock = ManualClock()
        let log = EffectLog()
        let manifest = AppManifest(
            bundleIdentifier: "com.example.tests",
            permittedTaskIdentifiers: [Self.refresh, Self.cleanup, "com.example.tests.continued.*"],
            backgroundModes: modes
        )
        self.clock = clock
        self.log = log
        self.system = EmbeddedSystem(
            configuration: .test(
                app: manifest.bundleIdentifier,
                policy: policy,
                clock: clock,
                log: log,
                manifest: manifest,
                device: device
            )
        )
        self.application = UIApplication(connection: system)
        self.scheduler = BGTaskScheduler(connection: system)
    }

    /// Registers `handler` for the refresh identifier, submits a refresh due at once, and lets
    /// the launch finish, so the task is handed to the handler (on a background queue).
    @MainActor
    func runRefresh(_ handler: @escaping (BGTask) -> Void) throws {
        scheduler.register(forTaskWithIdentifier: Self.refresh, using: nil, launchHandler: handler)
        try scheduler.submit(BGAppRefreshTaskRequest(identifier: Self.refresh))
        clock.runPending()
    }

    /// The runs the system handed over, in order.
    var deliveries: [TaskRun] {
        log.effects.flatMap { effect -> [TaskRun] in
            if case .runTasks(_, let runs) = effect { return runs }
            return []
        }
    }
}

/// Collects the tasks handed to a launch handler, from any thread.
final class TaskInbox: Sendable {
    private let tasks = Mutex<[UncheckedTask]>([])

    struct UncheckedTask: @unchecked Sendable {
        let task: BGTask
        let thread: UInt
    }

    func receive(_ task: BGTask) {
        let thread = UInt(bitPattern: Int(bitPattern: pthread_self()))
        tasks.withLock { $0.append(UncheckedTask(task: task, thread: thread)) }
    }

    var received: [BGTask] { tasks.withLock { $0.map(\.task) } }
    var threads: [UInt] { tasks.withLock { $0.map(\.thread) } }
    var count: Int { tasks.withLock { $0.count } }
}
