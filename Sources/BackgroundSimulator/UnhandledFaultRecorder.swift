package import BackgroundExecution
import Synchronization

/// What a simulator hands a fault no ``Simulator/onFault`` handled: the test framework's way to
/// fail the test that caused it.
///
/// This library cannot depend on a test framework (`bgctl` links it), so the recorder is
/// installed from outside: the `BackgroundSimulatorTesting` module (in the `BackgroundSimulator`
/// product, so every test target that uses the simulator links it) installs one when the test
/// binary loads, through a C constructor. Its recorder records a failure in the XCTest test case
/// running on the main thread, else a Swift Testing issue in the running test. Without one (a
/// command-line tool), a fault stays in ``Simulator/faults`` and the log.
package struct UnhandledFaultRecorder: Sendable {
    /// The test running on the current task, as an identity that tells tests (and parallel
    /// tests) apart; `nil` where no test is running (a main-queue block, a thread).
    package var currentTest: @Sendable () -> String?
    /// Records the fault as an issue of the test running on the current task. `owner` is the
    /// test that created the simulator, when the fault is recorded where that test is not
    /// running (a simulator that went away with a fault still held): the issue names it.
    package var record: @Sendable (_ fault: BackgroundFault, _ owner: String?) -> Void

    /// Creates a recorder.
    package init(
        currentTest: @escaping @Sendable () -> String?,
        record: @escaping @Sendable (_ fault: BackgroundFault, _ owner: String?) -> Void
    ) {
        self.currentTest = currentTest
        self.record = record
    }

    private static let slot = Mutex<UnhandledFaultRecorder?>(nil)

    /// The recorder installed in this process, if any.
    package static var installed: UnhandledFaultRecorder? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }

    /// The test running on the current task, if a recorder is installed and a test runs.
    package static var currentTest: String? { installed?.currentTest() }
}

extension Simulator {
    /// Reports a fault no `onFault` handled to the installed recorder: at once when the test
    /// that created this simulator is the one running (or the simulator was created outside
    /// any test and some test runs); otherwise (a main-queue block or a thread, where no test
    /// runs) it is held and reported at this simulator's next step, which its test drives.
    func reportUnhandled(_ fault: BackgroundFault) {
        guard let recorder = UnhandledFaultRecorder.installed else { return }
        if let current = recorder.currentTest(), faultOwner == nil || faultOwner == current {
            recorder.record(fault, nil)
        } else {
            heldFaults.append(fault)
        }
    }

    /// Reports the held faults if this simulator's test is the one running now.
    func reportHeldFaults() {
        guard let recorder = UnhandledFaultRecorder.installed,
            let current = recorder.currentTest(), faultOwner == nil || faultOwner == current
        else { return }
        let held = heldFaults
        heldFaults = []
        for fault in held { recorder.record(fault, nil) }
    }

    /// A simulator going away reports what it still holds: in its test if that test is running
    /// (the usual case: it goes away at the end of the test's scope), else as an issue naming
    /// the test that created it, which Swift Testing attributes to whichever test runs on the
    /// current task, or to none (the run then fails with an issue of no test).
    func reportHeldFaultsAtTheEnd() {
        guard !heldFaults.isEmpty else { return }
        reportHeldFaults()
        guard let recorder = UnhandledFaultRecorder.installed else { return }
        for fault in heldFaults { recorder.record(fault, faultOwner) }
        heldFaults = []
    }
}
