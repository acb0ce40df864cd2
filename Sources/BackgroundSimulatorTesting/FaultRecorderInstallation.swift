package import BackgroundSimulator
import CSimulatorTestingLoad
import Testing

/// Installs the recorder that turns a simulator fault no `onFault` handled into an issue of the
/// running Swift Testing test or a failure of the running XCTest test case. Called once, when
/// the binary that links this module loads, by the C constructor in `CSimulatorTestingLoad`
/// (Swift has no load-time code of its own); not for callers.
@_cdecl("background_simulator_testing_install")
public func _installSimulatorFaultRecorder() {
    XCTestFaultFailure.observe()
    UnhandledFaultRecorder.installed = SimulatorFaultIssue.recorder
}

/// A simulator fault as a Swift Testing issue, or as a failure of an XCTest test case.
package enum SimulatorFaultIssue {
    /// The recorder the simulator calls. The running test is the XCTest test case running on the
    /// main thread, if any (XCTest runs one at a time, see ``XCTestFaultFailure``), else
    /// `Test.current`, a task-local value, so parallel Swift Testing tests each get their own
    /// simulators' faults.
    package static let recorder = UnhandledFaultRecorder(
        currentTest: { XCTestFaultFailure.current?.identity ?? Test.current.map { "\($0.id)" } },
        record: { fault, owner in record(fault, owner: owner) }
    )

    /// Whether the load-time installation ran in this process.
    package static var isInstalledAtLoad: Bool { background_simulator_testing_loaded() != 0 }

    /// The issue's text: the app, the call and Apple's message.
    package static func comment(for fault: BackgroundFault, owner: String? = nil) -> String {
        let app = fault.app.map { "\($0)" } ?? "an app the simulator cannot tell"
        var text = "BackgroundSimulator: \(app) faulted (a crash on iOS): \(fault)."
        if let owner {
            text += " Raised where its test was not running, in a simulator created by \(owner)."
        }
        return text + " Set `simulator.onFault` in a test that expects faults."
    }

    /// Records the failure of the XCTest test case running on this thread, else the issue at
    /// the running Swift Testing test's declaration (the fault's own place is in app code the
    /// simulator cannot see), or, with no test running, at no test's.
    static func record(_ fault: BackgroundFault, owner: String?) {
        let text = comment(for: fault, owner: owner)
        if XCTestFaultFailure.record(comment: text) { return }
        let comment = Comment(rawValue: text)
        if let location = Test.current?.sourceLocation {
            Issue.record(comment, sourceLocation: location)
        } else {
            Issue.record(comment)
        }
    }
}
