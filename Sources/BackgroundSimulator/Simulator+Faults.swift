public import BackgroundExecution

/// Faults: misuse iOS answers with a crash (a late or second registration, a submit without a
/// handler, an empty expiring-activity reason), raised on the simulator whose app made it.
///
/// A simulator keeps its faults in ``faults`` and the event log, and hands each to ``onFault``.
/// A fault no `onFault` handled fails the test that caused it, a Swift Testing test (an issue)
/// or an XCTest test case (a failure): this library does not depend on a test framework
/// (`bgctl` links it), but the `BackgroundSimulatorTesting` module, which the
/// `BackgroundSimulator` product includes, installs a recorder when a test binary loads
/// (``UnhandledFaultRecorder``). A test that expects faults sets its own `onFault` (or, in Swift
/// Testing, wraps the misuse in `withKnownIssue`).
extension Simulator {
    /// What a new simulator's ``onFault`` starts as: bound by hand with
    /// `Simulator.$defaultOnFault.withValue(_:operation:)` for the simulators a piece of code
    /// creates. `nil` by default, which fails the test (see ``raise(_:)``).
    @TaskLocal public static var defaultOnFault: (@MainActor @Sendable (BackgroundFault) -> Void)?

    /// Keeps a fault of one of this simulator's apps (or of code it cannot attribute) and hands
    /// it to ``onFault``; when that is `nil`, to the installed recorder, which records an issue
    /// in the test that created this simulator (held until its next step when raised where that
    /// test is not running, such as a main-queue block).
    public func raise(_ fault: BackgroundFault) {
        faults.append(fault)
        if let app = fault.app {
            record(.appCode(app, "fault: \(fault)"))
        } else {
            note("fault: \(fault)")
        }
        if let onFault {
            onFault(fault)
        } else {
            reportUnhandled(fault)
        }
    }
}
