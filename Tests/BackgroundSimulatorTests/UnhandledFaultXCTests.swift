import BackgroundSimulatorTesting
import BackgroundTestSupport
import Foundation
import Testing
import XCTest

@testable import BackgroundSimulator

// A simulator fault with no `onFault` fails the XCTest test case that caused it, as it fails a
// Swift Testing test (UnhandledFaultTests): BackgroundSimulatorTesting's C constructor adds an
// XCTest observer when this binary loads, and the recorder records a failure in the test case
// XCTest is running on the main thread.

/// Runs in XCTest's own runner (`swift test` runs this binary's XCTest cases in a pass of their own).
final class UnhandledFaultXCTests: XCTestCase {
    /// The app of ``SimulatorTestKitTests/misusingApp(in:)`` faults on its launch. (XCTest on
    /// Linux cannot call a `@MainActor` test method; it runs test methods on the main thread.)
    func testTheRunningTestCaseOwnsItsSimulatorsFaults() {
        MainActor.assumeIsolated { Self.ownsItsSimulatorsFaults() }
    }

    @MainActor
    private static func ownsItsSimulatorsFaults() {
        let current = UnhandledFaultRecorder.currentTest
        XCTAssertEqual(current?.contains("testTheRunningTestCaseOwnsItsSimulatorsFaults"), true, "\(current ?? "nil")")
        XCTAssertEqual(Simulator().faultOwner, current)
        // A test that expects the fault handles it: no failure.
        let simulator = Simulator()
        var seen: [BackgroundFault] = []
        simulator.onFault = { seen.append($0) }
        let app = SimulatorTestKitTests.misusingApp(in: simulator)
        simulator.user.open(app)
        simulator.runPending()
        XCTAssertEqual(seen.map(\.app), [app])
    }

    /// The whole path in XCTest's runner: with `BACKGROUND_XCTEST_FAULT_PROBE=1` (set by
    /// ``TestCaseFaultTests/runnerFailsTheTestCase()`` in a child process) the fault has no
    /// `onFault` and must fail this test case; without it the fault is handled and checked.
    func testFaultProbe() {
        MainActor.assumeIsolated { Self.faultProbe() }
    }

    @MainActor
    private static func faultProbe() {
        let simulator = Simulator()
        let probing = ProcessInfo.processInfo.environment["BACKGROUND_XCTEST_FAULT_PROBE"] == "1"
        var seen: [BackgroundFault] = []
        if !probing { simulator.onFault = { seen.append($0) } }
        let app = SimulatorTestKitTests.misusingApp(in: simulator)
        simulator.user.open(app)
        simulator.runPending()
        XCTAssertEqual(simulator.faults.map(\.app), [app])
        if !probing { XCTAssertEqual(seen.map(\.app), [app]) }
    }
}

/// An XCTest test case run by hand from a Swift Testing test (it has no `test` methods, so XCTest's
/// runner never runs it): its one method makes an app fault with no `onFault`.
final class FaultingXCTestCase: XCTestCase {
    nonisolated(unsafe) var failures: [String] = []
    nonisolated(unsafe) var faults: [BackgroundFault] = []

    static func make() -> FaultingXCTestCase {
        FaultingXCTestCase(name: "causesAFault") { testCase in
            guard let faulting = testCase as? FaultingXCTestCase else { return }
            faulting.causesAFault()
        }
    }

    func causesAFault() {
        let faults = MainActor.assumeIsolated { () -> [BackgroundFault] in
            let simulator = Simulator()
            let app = SimulatorTestKitTests.misusingApp(in: simulator)
            simulator.user.open(app)
            simulator.runPending()
            return simulator.faults
        }
        self.faults = faults
    }

    override func recordFailure(
        withDescription description: String,
        inFile filePath: String,
        atLine lineNumber: Int,
        expected: Bool
    ) {
        failures.append(description)
        super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
}

@MainActor
@Suite("A fault with no hook fails the XCTest test case that caused it")
struct TestCaseFaultTests {
    @Test("The XCTest observer is added when the test binary loads")
    func observerAddedAtLoad() {
        #expect(SimulatorFaultIssue.isInstalledAtLoad)
        // No XCTest test case runs in Swift Testing's pass: the running test is Swift Testing's.
        #expect(UnhandledFaultRecorder.currentTest?.hasPrefix("XCTest ") == false)
    }

    @Test("A fault with no onFault fails the running XCTest test case, naming the app and the call")
    func faultFailsTheTestCase() throws {
        let testCase = FaultingXCTestCase.make()
        testCase.run()
        let run = try #require(testCase.testRun)
        #expect(!run.hasSucceeded)
        #expect(run.failureCount == 1)
        #expect(testCase.faults.map(\.api) == ["performExpiringActivity(withReason:using:)"])
        let failure = try #require(testCase.failures.first)
        #expect(failure.contains("com.example.misuse faulted"))
        #expect(failure.contains("performExpiringActivity(withReason:using:)"))
        #expect(failure.contains("Set `simulator.onFault`"))
        #expect(UnhandledFaultRecorder.currentTest?.hasPrefix("XCTest ") == false, "the test case ended")
    }

    @Test("XCTest's own runner fails the test case that caused the fault (a child process of this binary)")
    func runnerFailsTheTestCase() async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0])
        let filter = "BackgroundSimulatorTests.UnhandledFaultXCTests/testFaultProbe"
        let failing = try await Self.run(binary, filter, probing: true)
        #expect(failing.status == 1, "\(failing.output)")
        #expect(failing.output.contains("com.example.misuse faulted"), "\(failing.output)")
        #expect(failing.output.contains("with 1 failure"), "\(failing.output)")
        let passing = try await Self.run(binary, filter, probing: false)
        #expect(passing.status == 0, "\(passing.output)")
        #expect(passing.output.contains("with 0 failures"), "\(passing.output)")
    }

    nonisolated static func run(
        _ binary: URL,
        _ filter: String,
        probing: Bool
    ) async throws -> (
        status: Int32, output: String
    ) {
        var environment = ProcessInfo.processInfo.environment
        environment["BACKGROUND_XCTEST_FAULT_PROBE"] = probing ? "1" : "0"
        let result = try await runChildProcess(binary, [filter], environment: environment)
        return (result.status, result.output + result.error)
    }
}
