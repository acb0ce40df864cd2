import BackgroundExecution
import BackgroundServiceLifecycle
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// The bridge in a real `ServiceGroup`: the group's graceful shutdown moves the app to the
/// background, work under background tasks finishes within the budget, expiration handlers
/// run, and the service returns when the last task ends (or the group's escalation ends it).
// The time limit is generous: these tests wait for the main actor, which a loaded full run's
// other suites share and held past 1 minute (they pass in seconds focused), as OffMainActorCallsTests.
@Suite("ServiceLifecycle: the embedded system as a Service in a real ServiceGroup", .timeLimit(.minutes(10)))
struct BackgroundExecutionServiceTests {
    static let quiet = Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A service on virtual time (or the real clock), its application, and a stream of the
    /// states the app moves through.
    struct Fixture {
        let clock: ManualClock
        let service: BackgroundExecutionService
        let application: UIApplication
        let states: AsyncStream<AppLifecycleState>

        init(grace: Duration = .seconds(20), realClock: Bool = false) {
            let clock = ManualClock()
            let (states, continuation) = AsyncStream.makeStream(of: AppLifecycleState.self)
            self.clock = clock
            self.states = states
            var policy = SystemPolicy.server(grace: grace)
            if realClock {
                // On the real clock, applicationDidEnterBackground's 5 s is real time on the main
                // actor, which this process's other suites share: a full run under load held it
                // longer, and the watchdog (0x8badf00d) ended the app before the escalation did.
                // Only the escalation may end a real-clock run, so that limit is as long as the budget.
                policy.didEnterBackgroundTimeLimit = grace
            }
            self.service = BackgroundExecutionService(
                configuration: .init(
                    app: "com.example.service",
                    policy: policy,
                    clock: realClock ? .continuous : .manual(clock),
                    terminationBehavior: .record,  // an unclean end throws Terminated: this process goes on
                    reportsDirectory: nil,
                    printsReportsToStandardError: false,
                    logger: BackgroundExecutionServiceTests.quiet,
                    effectObserver: { _, effect in
                        if case .stateChanged(_, _, let to) = effect { continuation.yield(to) }
                    }
                )
            )
            self.application = UIApplication(connection: service.system)
        }

        func group(escalateAfter: Duration? = nil) -> ServiceGroup {
            var configuration = ServiceGroupConfiguration(
                services: [service],
                gracefulShutdownSignals: [],
                logger: BackgroundExecutionServiceTests.quiet
            )
            configuration.maximumGracefulShutdownDuration = escalateAfter
            return ServiceGroup(configuration: configuration)
        }

        func waitFor(_ state: AppLifecycleState) async {
            for await next in states where next == state { return }
        }
    }

    @Test("Graceful shutdown moves the app to the background; the service returns when the last task ends")
    func workFinishes() async throws {
        let fixture = Fixture()
        await MainActor.run { fixture.clock.runPending() }  // the launch ends
        let task = fixture.application.beginBackgroundTask(withName: "Nightly export")
        let group = fixture.group()
        let finished = Mutex(false)
        let running = Task {
            try await group.run()
            finished.withLock { $0 = true }
        }
        await group.triggerGracefulShutdown()
        await fixture.waitFor(.background)
        await MainActor.run { fixture.clock.advance(by: .seconds(10)) }  // work goes on within the budget
        #expect(!finished.withLock { $0 }, "the service waits for the task")
        #expect(fixture.service.system.terminationReports.isEmpty)
        fixture.application.endBackgroundTask(task)
        try await running.value
        #expect(finished.withLock { $0 })
        let report = try #require(fixture.service.system.terminationReports.last)
        #expect(report.isClean)
        #expect(report.reason == .exited(status: 0))
    }

    @Test("Expiration handlers run before the budget ends, and the service returns after them")
    func expirationHandlers() async throws {
        let fixture = Fixture(grace: .seconds(20))
        await MainActor.run { fixture.clock.runPending() }
        let expiredAt = Mutex<Instant?>(nil)
        let application = fixture.application
        let clock = fixture.clock
        let holder = Mutex(UIBackgroundTaskIdentifier.invalid)
        let task = application.beginBackgroundTask(withName: "Upload") {
            expiredAt.withLock { $0 = clock.now }
            application.endBackgroundTask(holder.withLock { $0 })
        }
        holder.withLock { $0 = task }
        let group = fixture.group()
        let running = Task { try await group.run() }
        await group.triggerGracefulShutdown()
        await fixture.waitFor(.background)
        await MainActor.run { fixture.clock.advance(by: .seconds(30)) }
        try await running.value
        #expect(expiredAt.withLock { $0 } == .seconds(15), "5 s before the 20 s budget ends")
        #expect(fixture.service.system.terminationReports.last?.isClean == true)
    }

    @Test("A leaked task ends in the watchdog's report, which the service throws under .record")
    func leak() async throws {
        let fixture = Fixture(grace: .seconds(20))
        await MainActor.run { fixture.clock.runPending() }
        _ = fixture.application.beginBackgroundTask(withName: "Leaky export")
        let group = fixture.group()
        let running = Task { try await group.run() }
        await group.triggerGracefulShutdown()
        await fixture.waitFor(.background)
        await MainActor.run { fixture.clock.advance(by: .seconds(30)) }
        do {
            try await running.value
            Issue.record("a leak must not look like a clean shutdown")
        } catch let error as BackgroundExecutionService.Terminated {
            #expect(error.report.code?.rawValue == 0x8bad_f00d)
            #expect(error.report.leakedAssertions.map(\.name) == ["Leaky export"])
        }
    }

    @Test("The group's escalation takes over: the app is ended at once with a report of what was held")
    func escalation() async throws {
        // Real clock: the group's escalation timer runs on it. The budget (an hour) is far
        // longer than the escalation (200 ms) and the suite's time limit, so only the
        // escalation can end this run (seen once on a machine loaded 11×: the escalation's
        // task waited 58 s for a thread, and a 60 s budget ended the run first).
        let fixture = Fixture(grace: .seconds(3600), realClock: true)
        fixture.service.system.finishLaunching()
        _ = fixture.application.beginBackgroundTask(withName: "Slow export")
        let group = fixture.group(escalateAfter: .milliseconds(200))
        let running = Task { try await group.run() }
        await group.triggerGracefulShutdown()
        do {
            try await running.value
            Issue.record("an escalated shutdown must not look clean")
        } catch let error as BackgroundExecutionService.Terminated {
            #expect(error.report.reason == .userForceQuit)
            #expect(error.report.leakedAssertions.map(\.name) == ["Slow export"])
        }
    }
}
