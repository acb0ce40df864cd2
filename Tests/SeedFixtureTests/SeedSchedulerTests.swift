import BackgroundExecution
import BackgroundTestSupport
import Logging
import Synchronization
import Testing

/// Records the system's task deliveries with their virtual instants.
final class DeliveryLog: Sendable {
    private let entries = Mutex<[(Instant, TaskRun)]>([])

    func observe(_ instant: Instant, _ effect: Effect) {
        guard case .runTasks(_, let runs) = effect else { return }
        entries.withLock { $0 += runs.map { (instant, $0) } }
    }

    var deliveries: [(at: Instant, identifier: String)] {
        entries.withLock { $0.map { ($0.0, $0.1.request.identifier) } }
    }
}

extension SeedFixtureTests {
    /// `UIApplication.shared` on a manual clock, with a manifest and a phone's device.
    func bootstrapScheduler(
        manifest: AppManifest,
        device: DeviceConditions = DeviceConditions()
    ) -> (EmbeddedSystem, ManualClock, DeliveryLog) {
        let clock = ManualClock()
        let log = DeliveryLog()
        let system = EmbeddedSystem(
            configuration: .init(
                app: manifest.bundleIdentifier,
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false,
                logger: Logger(label: "seed", factory: { _ in SwiftLogNoOpLogHandler() }),
                effectObserver: { log.observe($0, $1) },
                manifest: manifest,
                device: device
            )
        )
        UIApplication.bootstrap(system)
        return (system, clock, log)
    }

    @Test(
        "Seed 000's BGTaskSchedulerExample: refresh not before its earliest date; processing only on power and network while idle"
    )
    func bgTaskSchedulerExample() async throws {
        let manifest = AppManifest(
            bundleIdentifier: "com.yourapp",
            permittedTaskIdentifiers: ["com.yourapp.apprefresh", "com.yourapp.dataprocessing"],
            backgroundModes: [.fetch, .processing]
        )
        let (system, clock, log) = bootstrapScheduler(manifest: manifest)
        let example = BGTaskSchedulerExample()
        example.registerBackgroundTasks()
        clock.runPending()  // the app finishes launching
        example.scheduleAppRefresh()
        example.scheduleProcessingTask()
        #expect(
            system.pendingTaskRequests().map(\.identifier).sorted() == [
                "com.yourapp.apprefresh", "com.yourapp.dataprocessing",
            ]
        )

        // The seed's handlers work in real time (Thread.sleep on an OperationQueue), so the test
        // waits for them at the instant of delivery instead of racing virtual time past them.
        clock.advance(by: .seconds(14 * 60))
        #expect(log.deliveries.isEmpty, "nothing before the refresh's earliest date (15 min)")
        clock.advance(to: .seconds(15 * 60))
        #expect(log.deliveries.map(\.identifier) == ["com.yourapp.apprefresh"])
        #expect(log.deliveries.first?.at == .seconds(15 * 60))
        #expect(await waitUntil { system.runningTasks.isEmpty }, "the handler completes after its 5 s of work")
        #expect(
            system.pendingTaskRequests().map(\.identifier).sorted() == [
                "com.yourapp.apprefresh", "com.yourapp.dataprocessing",
            ]
        )

        clock.advance(to: .seconds(30 * 60))  // both are due now; the refresh runs again
        #expect(log.deliveries.map(\.identifier) == ["com.yourapp.apprefresh", "com.yourapp.apprefresh"])
        #expect(await waitUntil { system.runningTasks.isEmpty })
        #expect(
            !log.deliveries.map(\.identifier).contains("com.yourapp.dataprocessing"),
            "on battery, in use: no processing"
        )
        let why = try #require(BGTaskScheduler.shared.eligibility(forTaskWithIdentifier: "com.yourapp.dataprocessing"))
        // Processing is rate limited too (WWDC20's factor table): the refresh ran at 30:00.
        #expect(why.unmet == [.requiresExternalPower, .deviceInUse, .rateLimited(until: .seconds(45 * 60))])
        #expect(why.decidingFactor == .requiresExternalPower)
        #expect(why.earliestRun == .seconds(45 * 60))

        system.setDevice(DeviceConditions(powerSource: .externalPower, network: .none, isIdle: true))
        clock.advance(to: .seconds(45 * 60))
        #expect(!log.deliveries.map(\.identifier).contains("com.yourapp.dataprocessing"), "no network: no processing")
        system.setDevice(DeviceConditions(powerSource: .externalPower, network: .wifi, isIdle: true))
        clock.runPending()
        // The processing request and the refresh resubmitted at 30:00 go in one batch (R2.16).
        #expect(
            log.deliveries.suffix(2).map(\.identifier).sorted() == [
                "com.yourapp.apprefresh", "com.yourapp.dataprocessing",
            ]
        )
        #expect(log.deliveries.last?.at == .seconds(45 * 60))
        #expect(system.terminationReports.isEmpty)
    }

    @Test("Seed 000's fetch AppDelegate: fetches after the system's minimum interval and completes within 30 s")
    func fetchAppDelegate() async throws {
        let manifest = AppManifest(bundleIdentifier: "com.yourapp.fetch", backgroundModes: [.fetch])
        let (system, clock, log) = bootstrapScheduler(manifest: manifest)
        let delegate = FetchAppDelegate()
        UIApplication.shared.delegate = delegate
        _ = delegate.application(UIApplication.shared, didFinishLaunchingWithOptions: nil)
        clock.runPending()
        clock.advance(by: .seconds(14 * 60))
        #expect(log.deliveries.isEmpty)
        clock.advance(by: .seconds(60))
        #expect(log.deliveries.map(\.identifier) == [BackgroundSystem.fetchIdentifier])
        // The seed's fetch takes 5 s of real time before it calls the completion handler.
        #expect(await waitUntil { system.runningTasks.isEmpty })
        #expect(system.terminationReports.isEmpty)
    }

    @Test("The same fetch delegate gets no fetch when BGTaskSchedulerPermittedIdentifiers is present (iOS 13+)")
    func fetchDisabledByTaskScheduler() {
        let manifest = AppManifest(
            bundleIdentifier: "com.yourapp.both",
            permittedTaskIdentifiers: ["com.yourapp.refresh"],
            backgroundModes: [.fetch]
        )
        let (_, clock, log) = bootstrapScheduler(manifest: manifest)
        let delegate = FetchAppDelegate()
        UIApplication.shared.delegate = delegate
        _ = delegate.application(UIApplication.shared, didFinishLaunchingWithOptions: nil)
        clock.runPending()
        clock.advance(by: .seconds(24 * 3600))
        #expect(log.deliveries.isEmpty)
    }
}
