import BackgroundSimulator
public import Testing

/// A Swift Testing trait: a fault of a simulator created in the test (misuse iOS answers with a
/// crash, such as a second registration of a task identifier) fails the test, with an issue
/// naming the app and the call. On a suite, it applies to every test in it.
///
/// ```swift
/// import BackgroundSimulator
/// import BackgroundSimulatorTesting
/// import Testing
///
/// @Suite(.simulatorFaultsFailTheTest)
/// @MainActor struct RefreshTests {
///     @Test func registersOnce() {
///         let simulator = Simulator()   // its onFault records an issue in this test
///         ...
///     }
/// }
/// ```
///
/// It binds ``BackgroundSimulator/Simulator/defaultOnFault`` for the test, so a simulator
/// created in the test starts with an `onFault` that records the issue. A test that expects
/// faults sets its simulator's `onFault` (or reads `simulator.faults`). This module is the only
/// part of the simulator that depends on Swift Testing: the `BackgroundSimulator` library does
/// not (command-line tools link it). With XCTest, set `simulator.onFault = { XCTFail("\($0)") }`.
public struct SimulatorFaultsTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite it is on.
    public var isRecursive: Bool { true }

    /// Runs the test with simulator faults recorded as its issues.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Simulator.$defaultOnFault.withValue(Self.recordIssue) {
            try await function()
        }
    }

    /// Records the fault as an issue of the running test.
    @MainActor static func recordIssue(_ fault: BackgroundFault) {
        let app = fault.app.map { "\($0)" } ?? "an app the simulator cannot tell"
        Issue.record(
            "BackgroundSimulator: \(app) faulted (a crash on iOS): \(fault). Set `simulator.onFault` in a test that expects faults."
        )
    }
}

extension Trait where Self == SimulatorFaultsTrait {
    /// Faults of the simulators created in the test (or every test of the suite) fail the test.
    public static var simulatorFaultsFailTheTest: Self { SimulatorFaultsTrait() }
}
