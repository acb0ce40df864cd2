import BackgroundSimulator
public import Testing

/// A Swift Testing trait: a fault of a simulator created in the test (misuse iOS answers with a
/// crash, such as a second registration of a task identifier) fails the test, with an issue
/// naming the app and the call. On a suite, it applies to every test in it.
///
/// That is what a fault with no `onFault` does anyway in a test binary that links this module
/// (every test target that uses the `BackgroundSimulator` product does: see
/// ``_installSimulatorFaultRecorder()``). The trait states it on the suite, and restores it
/// inside code that bound `Simulator.defaultOnFault` to something else: it binds
/// `defaultOnFault` to `nil` for the test.
///
/// ```swift
/// @Suite(.simulatorFaultsFailTheTest)
/// @MainActor struct RefreshTests {
///     @Test func registersOnce() {
///         let simulator = Simulator()   // a fault of its apps records an issue in this test
///         ...
///     }
/// }
/// ```
public struct SimulatorFaultsTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite it is on.
    public var isRecursive: Bool { true }

    /// Runs the test with simulator faults recorded as its issues.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Simulator.$defaultOnFault.withValue(nil) {
            try await function()
        }
    }
}

extension Trait where Self == SimulatorFaultsTrait {
    /// Faults of the simulators created in the test (or every test of the suite) fail the test.
    public static var simulatorFaultsFailTheTest: Self { SimulatorFaultsTrait() }
}
