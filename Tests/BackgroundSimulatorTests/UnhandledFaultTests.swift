import BackgroundSimulatorTesting
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import BackgroundSimulator

// A simulator fault with no `onFault` fails the test that caused it: BackgroundSimulatorTesting's
// C constructor installs a recorder when this binary loads, and the recorder records a Swift
// Testing issue in `Test.current`. These tests assert the issue with `withKnownIssue` (which
// fails if none is recorded) and its text; the routing between tests (held faults, parallel
// tests, contextless code) is checked in a child process with a recorder of our own.

@MainActor
@Suite("A fault with no hook fails the test that caused it")
struct UnhandledFaultTests {
    /// The text of the issue the app of ``SimulatorTestKitTests/misusingApp(in:)`` causes.
    nonisolated static func isMisuseIssue(_ issue: Issue) -> Bool {
        let text = issue.comments.map(\.rawValue).joined()
        return text.contains("com.example.misuse faulted")
            && text.contains("performExpiringActivity(withReason:using:)")
            && text.contains("Set `simulator.onFault`")
    }

    @Test("The recorder is installed when the test binary loads, by the C constructor")
    func installedAtLoad() {
        #expect(SimulatorFaultIssue.isInstalledAtLoad)
        #expect(UnhandledFaultRecorder.installed != nil)
        #expect(UnhandledFaultRecorder.currentTest != nil, "a test runs on this task")
    }

    @Test("A fault with no onFault records an issue in the test that caused it, naming the app and the call")
    func unhandledFaultFailsItsTest() {
        let simulator = Simulator()
        #expect(simulator.onFault == nil)
        let app = SimulatorTestKitTests.misusingApp(in: simulator)
        withKnownIssue("an empty reason is a fault on iOS: with no onFault it fails this test") {
            simulator.user.open(app)
            simulator.runPending()
        } matching: {
            Self.isMisuseIssue($0)
        }
        #expect(simulator.faults.map(\.api) == ["performExpiringActivity(withReason:using:)"])
        #expect(simulator.faults.map(\.app) == [app])
    }

    @Test("The fault is still kept in faults and the log, and onFault replaces the issue")
    func faultWithoutAHookIsKept() {
        let simulator = Simulator()
        let app = SimulatorTestKitTests.misusingApp(in: simulator)
        withKnownIssue {
            simulator.user.open(app)
            simulator.runPending()
        } matching: {
            Self.isMisuseIssue($0)
        }
        #expect(simulator.faults.map(\.app) == [app])
        #expect(
            simulator.events.contains {
                if case .appCode(app, let text) = $0.kind { text.hasPrefix("fault:") } else { false }
            }
        )
        // A test that expects the fault handles it: no issue (an issue here would fail this test).
        let handled = Simulator()
        var seen: [BackgroundFault] = []
        handled.onFault = { seen.append($0) }
        let other = SimulatorTestKitTests.misusingApp(in: handled)
        handled.user.open(other)
        handled.runPending()
        #expect(seen.map(\.app) == [other])
    }

    @Test("A fault raised in a main-queue block (no test runs there) fails the test at the simulator's next step")
    func faultInAMainQueueBlock() async {
        let simulator = Simulator()
        let app = simulator.install("com.example.misuse") { _ in
            DispatchQueue.main.async {
                ProcessInfo.processInfo.performExpiringActivity(withReason: "") { _ in }
            }
        }
        simulator.user.open(app)
        await withKnownIssue {
            await simulator.run(for: .seconds(1))
        } matching: {
            Self.isMisuseIssue($0)
        }
        #expect(simulator.faults.map(\.app) == [app])
        #expect(simulator.heldFaults.isEmpty, "reported, not held")
    }

    @Test("Parallel tests' simulators never report each other's faults, even from main-queue blocks")
    func parallelTestsKeepTheirFaults() async {
        await #expect(processExitsWith: .success) {
            let ok = await FaultRouting.parallelTests()
            if !ok { exit(1) }
        }
    }

    @Test("Contextless code's fault goes to the running test's simulators, not another test's")
    func contextlessFaultStaysInItsTest() async {
        await #expect(processExitsWith: .success) {
            let ok = await FaultRouting.contextlessCall()
            if !ok { exit(1) }
        }
    }

    @Test("A simulator that goes away with a fault held reports it, naming the test that created it")
    func heldFaultIsReportedAtTheEnd() async {
        await #expect(processExitsWith: .success) {
            let ok = await FaultRouting.heldUntilTheEnd()
            if !ok { exit(1) }
        }
    }
}

/// The "test" running on the current task, as `FaultRouting`'s recorder sees it.
enum RoutingTest {
    @TaskLocal static var name: String?
}

/// Runs in a child process, with a recorder of our own that stands for the test framework: the
/// running "test" is a task-local value, and each record says which test was running.
@MainActor
enum FaultRouting {
    struct Record: Equatable, Sendable {
        var runningTest: String?
        var app: AppID?
        var owner: String?
    }

    nonisolated static let records = Mutex<[Record]>([])

    static func install() {
        UnhandledFaultRecorder.installed = UnhandledFaultRecorder(
            currentTest: { RoutingTest.name },
            record: { fault, owner in
                let record = Record(runningTest: RoutingTest.name, app: fault.app, owner: owner)
                FaultRouting.records.withLock { $0.append(record) }
            }
        )
    }

    /// Two "tests" run at once on the main actor, each with its own simulator; one app faults
    /// in a main-queue block, where no test runs. The fault is recorded in its own test only.
    static func parallelTests() async -> Bool {
        install()
        let first = Task { @MainActor in await RoutingTest.$name.withValue("A") { await faultingTest() } }
        let second = Task { @MainActor in await RoutingTest.$name.withValue("B") { await quietTest() } }
        let (a, b) = (await first.value, await second.value)
        let all = records.withLock { $0 }
        return a && b && all == [Record(runningTest: "A", app: "com.example.a", owner: nil)]
    }

    private static func faultingTest() async -> Bool {
        let simulator = Simulator()
        let app = simulator.install("com.example.a") { _ in
            DispatchQueue.main.async {
                ProcessInfo.processInfo.performExpiringActivity(withReason: "") { _ in }
            }
        }
        simulator.user.open(app)
        for _ in 0..<20 { await simulator.run(for: .seconds(1)) }
        return simulator.faults.map(\.app) == [app] && simulator.heldFaults.isEmpty
    }

    private static func quietTest() async -> Bool {
        let simulator = Simulator()
        let app = simulator.install("com.example.b") { _ in }
        simulator.user.open(app)
        for _ in 0..<20 { await simulator.run(for: .seconds(1)) }
        return simulator.faults.isEmpty
    }

    /// Code no app can be told for, run by test B while test A's simulator lives: only B's
    /// simulator gets the fault.
    static func contextlessCall() async -> Bool {
        install()
        let (first, second) = (
            RoutingTest.$name.withValue("A") { Simulator() }, RoutingTest.$name.withValue("B") { Simulator() }
        )
        let outcome = RoutingTest.$name.withValue("B") {
            UIApplication.shared.beginBackgroundTask(withName: "From a test, not an app")
        }
        let all = records.withLock { $0 }
        return outcome == .invalid && first.faults.isEmpty
            && second.faults.map(\.api) == ["beginBackgroundTask(withName:expirationHandler:)"]
            && all == [Record(runningTest: "B", app: nil, owner: nil)]
    }

    /// A fault raised where no test runs, in a simulator that goes away before its next step:
    /// reported when it goes, naming the test that created it if another (or none) runs then.
    static func heldUntilTheEnd() async -> Bool {
        install()
        var simulator: Simulator? = RoutingTest.$name.withValue("A") { Simulator() }
        simulator?.raise(BackgroundFault(api: "register", message: "twice", app: "com.example.a"))
        let held = simulator?.heldFaults.count == 1
        simulator = nil
        let all = records.withLock { $0 }
        return held && all == [Record(runningTest: nil, app: "com.example.a", owner: "A")]
    }
}
