import Testing

@testable import BackgroundCore
@testable import BackgroundSimulator

/// Each invariant, broken on purpose with a hand-made stream of events and effects: the checker
/// must say so (and stay quiet on the matching correct stream).
@Suite("Invariant checker: every rule can fail")
struct InvariantCheckerTests {
    static let app: AppID = "com.example.checked"
    static let core = BackgroundSystem(policy: .iOS, device: DeviceConditions())

    static func checker() -> InvariantChecker { InvariantChecker(policy: .iOS, enabled: true) }

    static func begin(_ checker: inout InvariantChecker, _ raw: Int, handler: Bool = true, at seconds: Int = 0) {
        checker.observe(
            .beginAssertion(app, name: "Upload \(raw)", origin: .unknown, hasExpirationHandler: handler),
            reply: .granted(AssertionID(rawValue: raw)),
            [],
            core: core,
            at: .seconds(seconds)
        )
    }

    static func report(
        _ reason: TerminationReason,
        leaking raws: [Int] = [],
        tasks: [TaskRun] = []
    ) -> TerminationReport {
        TerminationReport(
            incident: 1,
            app: app,
            reason: reason,
            explanation: "test",
            at: .seconds(40),
            stateBefore: .background,
            permittedBackgroundDuration: .seconds(30),
            leakedAssertions: raws.map {
                .init(
                    Assertion(
                        id: AssertionID(rawValue: $0),
                        name: "Upload \($0)",
                        origin: .unknown,
                        beganAt: .zero,
                        hasExpirationHandler: true
                    )
                )
            },
            policyName: "iOS",
            uncompletedTasks: tasks.map { .init($0) }
        )
    }

    static func terminate(_ checker: inout InvariantChecker, _ report: TerminationReport) {
        checker.observe(.tick, [.terminate(app, report)], core: core, at: report.at)
    }

    static func run(_ request: TaskRequest, id: Int = 1) -> TaskRun {
        TaskRun(id: TaskRunID(rawValue: id), request: request, startedAt: .seconds(10), expiresAt: nil, killAt: nil)
    }

    @Test("A termination that does not name a held assertion is a violation; one that names it is not")
    func terminationNamesHeldAssertions() {
        var checker = Self.checker()
        Self.begin(&checker, 1)
        Self.terminate(&checker, Self.report(.userForceQuit))
        #expect(checker.violations.map(\.invariant) == [.assertionEndsOnce])

        var correct = Self.checker()
        Self.begin(&correct, 1)
        Self.terminate(&correct, Self.report(.userForceQuit, leaking: [1]))
        #expect(correct.violations.isEmpty)
    }

    @Test("The same assertion granted twice in one process is a violation")
    func grantedTwice() {
        var checker = Self.checker()
        Self.begin(&checker, 1)
        Self.begin(&checker, 1)
        #expect(checker.violations.map(\.invariant) == [.assertionEndsOnce])
    }

    @Test("A watchdog kill with no expiration delivered first is a violation")
    func expirationBeforeWatchdog() {
        var checker = Self.checker()
        Self.begin(&checker, 1)
        Self.terminate(&checker, Self.report(.watchdog(.watchdogTimeout), leaking: [1]))
        #expect(checker.violations.map(\.invariant) == [.expirationBeforeWatchdog])

        var correct = Self.checker()
        Self.begin(&correct, 1)
        correct.observe(
            .tick,
            [.runExpirationHandler(Self.app, AssertionID(rawValue: 1))],
            core: Self.core,
            at: .seconds(25)
        )
        Self.terminate(&correct, Self.report(.watchdog(.watchdogTimeout), leaking: [1]))
        #expect(correct.violations.isEmpty)
    }

    @Test("An expiration delivered for one assertion does not excuse killing another without one")
    func expirationIsPerAssertion() {
        var checker = Self.checker()
        Self.begin(&checker, 1)
        checker.observe(
            .tick,
            [.runExpirationHandler(Self.app, AssertionID(rawValue: 1))],
            core: Self.core,
            at: .seconds(25)
        )
        checker.observe(.endAssertion(Self.app, AssertionID(rawValue: 1)), [], core: Self.core, at: .seconds(25))
        Self.begin(&checker, 2, at: 30)
        Self.terminate(&checker, Self.report(.watchdog(.watchdogTimeout), leaking: [2]))
        #expect(checker.violations.map(\.invariant) == [.expirationBeforeWatchdog])
    }

    @Test("App code running while the app is suspended or ended is a violation")
    func suspendedAppRunsNoCode() {
        var checker = Self.checker()
        checker.appCodeRuns(Self.app, state: .background, at: .zero)
        #expect(checker.violations.isEmpty)
        checker.appCodeRuns(Self.app, state: .suspended, at: .zero)
        checker.appCodeRuns(Self.app, state: .notRunning, at: .zero)
        #expect(checker.violations.map(\.invariant) == [.suspendedAppRunsNoCode, .suspendedAppRunsNoCode])
    }

    @Test("A task run before its earliest date, or needing power on battery, is a violation")
    func taskConditions() {
        var checker = Self.checker()
        let early = TaskRequest(identifier: "refresh", kind: .appRefresh, earliestBegin: .seconds(3600))
        let power = TaskRequest(identifier: "cleanup", kind: .processing, requiresExternalPower: true)
        checker.observe(
            .tick,
            [.runTasks(Self.app, [Self.run(early), Self.run(power, id: 2)])],
            core: Self.core,
            at: .seconds(10)
        )
        #expect(checker.violations.map(\.invariant) == [.taskConditionsHold, .taskConditionsHold])

        var debug = Self.checker()
        debug.observe(
            .simulateLaunch(Self.app, identifier: "refresh"),
            [.runTasks(Self.app, [Self.run(early)])],
            core: Self.core,
            at: .seconds(10)
        )
        #expect(debug.violations.isEmpty, "the debugger's launch ignores conditions, as Apple's does")
    }

    @Test("More apps running tasks than the policy allows is a violation")
    func concurrencyLimit() {
        var checker = Self.checker()
        for index in 0..<5 {
            let request = TaskRequest(identifier: "refresh", kind: .appRefresh)
            checker.observe(
                .tick,
                [.runTasks(AppID("com.example.app\(index)"), [Self.run(request, id: index)])],
                core: Self.core,
                at: .zero
            )
        }
        #expect(checker.violations.map(\.invariant) == [.limitsHold])
    }

    @Test("A request pending before a reboot and missing after it is a violation")
    func rebootKeepsRequests() {
        var checker = Self.checker()
        let request = TaskRequest(identifier: "refresh", kind: .appRefresh)
        checker.checkRestored([(Self.app, [request])], core: Self.core, at: .zero)
        #expect(checker.violations.map(\.invariant) == [.rebootKeepsRequests])
    }

    @Test("A run earlier than the request's explanation promised is a violation")
    func honestExplanations() throws {
        var core = BackgroundSystem(policy: .iOS, device: DeviceConditions())
        let manifest = AppManifest(
            bundleIdentifier: Self.app,
            permittedTaskIdentifiers: ["refresh"],
            backgroundModes: [.fetch]
        )
        var checker = Self.checker()
        let request = TaskRequest(identifier: "refresh", kind: .appRefresh, earliestBegin: .seconds(3600))
        let events: [(Event, Int)] = [
            (.install(manifest), 0), (.launch(Self.app, .foreground), 0), (.activate(Self.app), 0),
            (.registerTaskHandler(Self.app, identifier: "refresh"), 0), (.submitTaskRequest(Self.app, request), 1),
        ]
        for (event, at) in events {
            let effects = try core.handle(event, at: .seconds(at))
            checker.observe(event, effects, core: core, at: .seconds(at))
        }
        #expect(checker.violations.isEmpty)
        let accepted = try #require(core.pendingRequests(of: Self.app).first)
        checker.observe(.tick, [.runTasks(Self.app, [Self.run(accepted)])], core: core, at: .seconds(1800))
        #expect(checker.violations.map(\.invariant).contains(.honestExplanations))
    }
}
