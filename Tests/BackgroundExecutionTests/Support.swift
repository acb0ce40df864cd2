import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Logging
import Synchronization

/// Everything the system did, recorded in order with its instant.
final class EffectLog: Sendable {
    private let entries = Mutex<[(Instant, Effect)]>([])

    func record(_ instant: Instant, _ effect: Effect) {
        entries.withLock { $0.append((instant, effect)) }
    }

    var effects: [Effect] { entries.withLock { $0.map(\.1) } }

    /// The messages of every `.log` effect.
    var messages: [String] {
        effects.compactMap { effect in
            if case .log(let record) = effect { return record.message }
            return nil
        }
    }

    /// The instants at which expiration handlers were asked to run, with their identifiers.
    var expirations: [(Instant, AssertionID)] {
        entries.withLock { entries in
            entries.compactMap { instant, effect in
                if case .runExpirationHandler(_, let id) = effect { return (instant, id) }
                return nil
            }
        }
    }
}

extension EmbeddedSystem.Configuration {
    /// A test's system: virtual time, reports kept in memory, nothing printed or written, every
    /// effect recorded in `log`.
    static func test(
        app: AppID,
        policy: SystemPolicy,
        clock: ManualClock,
        log: EffectLog,
        manifest: AppManifest? = nil,
        device: DeviceConditions = EmbeddedSystem.serverDevice
    ) -> Self {
        .init(
            app: app,
            policy: policy,
            clock: .manual(clock),
            terminationBehavior: .record,
            reportsDirectory: nil,
            printsReportsToStandardError: false,
            logger: Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() }),
            effectObserver: { instant, effect in log.record(instant, effect) },
            manifest: manifest,
            device: device
        )
    }
}

/// A system on a manual clock, its application and its effect log.
struct ManualHarness {
    let clock: ManualClock
    let system: EmbeddedSystem
    let application: UIApplication
    let log: EffectLog

    init(policy: SystemPolicy = .iOS, app: AppID = "com.example.tests") {
        let clock = ManualClock()
        let log = EffectLog()
        self.clock = clock
        self.log = log
        self.system = EmbeddedSystem(configuration: .test(app: app, policy: policy, clock: clock, log: log))
        self.application = UIApplication(connection: system)
    }

    /// Presses Home and lets the delegate return (all at the current instant).
    @MainActor
    func moveToBackground() {
        system.moveToBackground()
        clock.runPending()
    }
}

/// Records values from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] { values.withLock { $0 } }
}

extension EmbeddedSystem {
    /// An app on a manual clock that has registered `identifier` and submitted a refresh for it,
    /// due an hour from now: the state `bgctl status` and `why` answer about.
    @MainActor
    static func withPendingRefresh(_ identifier: String, app: AppID = "com.example.tests") throws -> EmbeddedSystem {
        let clock = ManualClock()
        let manifest = AppManifest(
            bundleIdentifier: app,
            permittedTaskIdentifiers: [identifier],
            backgroundModes: [.fetch, .processing]
        )
        let system = EmbeddedSystem(
            configuration: .test(app: app, policy: .iOS, clock: clock, log: EffectLog(), manifest: manifest)
        )
        let scheduler = BGTaskScheduler(connection: system)
        scheduler.register(forTaskWithIdentifier: identifier, using: nil) { $0.setTaskCompleted(success: true) }
        clock.runPending()
        let request = BGAppRefreshTaskRequest(identifier: identifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
        try scheduler.submit(request)
        return system
    }
}
