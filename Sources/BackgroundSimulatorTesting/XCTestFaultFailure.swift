import BackgroundSimulator
import Foundation
import Synchronization
import XCTest

/// A simulator fault as a failure of the running XCTest test case.
///
/// XCTest has no task-local "current test" as Swift Testing has, and its current test case is
/// internal to it, so an observer (``Observer``, added to `XCTestObservationCenter` when the test
/// binary loads) notes the test case between `testCaseWillStart` and `testCaseDidFinish`. XCTest
/// runs one test case at a time in a process, on the main thread, so the test case running while
/// the main thread (or the main queue) raises a fault is the one that caused it. On another
/// thread the recorder says no test runs: the simulator holds the fault and reports it at its
/// next step, which the test drives from the main actor.
package enum XCTestFaultFailure {
    /// The running test case and a number that tells two runs of one test case apart.
    private struct Running: @unchecked Sendable {
        // XCTestCase is not Sendable; it is only touched on the main thread (see `current`).
        var testCase: XCTestCase?
        var run = 0
    }

    private static let running = Mutex(Running())

    /// Notes the running test case for ``current``.
    final class Observer: NSObject, XCTestObservation {
        func testCaseWillStart(_ testCase: XCTestCase) {
            XCTestFaultFailure.running.withLock {
                $0.testCase = testCase
                $0.run += 1
            }
        }

        func testCaseDidFinish(_ testCase: XCTestCase) {
            XCTestFaultFailure.running.withLock {
                if $0.testCase === testCase { $0.testCase = nil }
            }
        }
    }

    private static let observer = Mutex<Observer?>(nil)

    /// Adds the observer to XCTest's observation center, once. Called when the test binary
    /// loads, before XCTest starts the first test case.
    static func observe() {
        observer.withLock { installed in
            guard installed == nil else { return }
            let new = Observer()
            XCTestObservationCenter.shared.addTestObserver(new)
            installed = new
        }
    }

    /// Whether the caller runs where XCTest runs its test cases: the main thread or the main queue.
    private static var onTheMainThread: Bool { Thread.isMainThread || MainActorThread.isCurrent }

    /// The running XCTest test case with the identity the simulator keeps as a fault's owner;
    /// `nil` when none runs, or when the caller is not on the main thread.
    static var current: (testCase: XCTestCase, identity: String)? {
        guard onTheMainThread else { return nil }
        return running.withLock { running in
            running.testCase.map { ($0, "XCTest \($0.name) (run \(running.run))") }
        }
    }

    /// Records the fault as a failure of the running test case; returns `false` when none runs
    /// on this thread.
    static func record(comment: String) -> Bool {
        guard let testCase = current?.testCase else { return false }
        testCase.recordFailure(
            withDescription: comment,
            inFile: "BackgroundSimulator",
            atLine: 0,
            expected: true
        )
        return true
    }
}
