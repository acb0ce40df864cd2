public import BackgroundExecution

/// Faults: misuse iOS answers with a crash (a late or second registration, a submit without a
/// handler, an empty expiring-activity reason), raised on the simulator whose app made it.
///
/// This library does not depend on a test framework (`bgctl` links it). A simulator keeps its
/// faults in ``faults`` and the event log, and hands each to ``onFault``. A new simulator's
/// `onFault` is ``defaultOnFault``, a task-local value: the `BackgroundSimulatorTesting`
/// module's trait `.simulatorFaultsFailTheTest` binds it to record an issue in the running
/// Swift Testing test; an XCTest test sets `simulator.onFault = { XCTFail("\($0)") }`.
extension Simulator {
    /// What a new simulator's ``onFault`` starts as: bound for the duration of a test (or a
    /// suite) by the `BackgroundSimulatorTesting` trait `.simulatorFaultsFailTheTest`, or by
    /// hand with `Simulator.$defaultOnFault.withValue(_:operation:)`. `nil` by default.
    @TaskLocal public static var defaultOnFault: (@MainActor @Sendable (BackgroundFault) -> Void)?

    /// Keeps a fault of one of this simulator's apps (or of code it cannot attribute) and hands
    /// it to ``onFault``, if set.
    public func raise(_ fault: BackgroundFault) {
        faults.append(fault)
        if let app = fault.app {
            record(.appCode(app, "fault: \(fault)"))
        } else {
            note("fault: \(fault)")
        }
        onFault?(fault)
    }
}
