import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Synchronization
import Testing

@Suite("ProcessInfo.performExpiringActivity")
struct ExpiringActivityTests {
    @Test("In the foreground the block runs once with expired == false, under an assertion named by the reason")
    func foregroundRunsOnce() async {
        let harness = ManualHarness()
        let calls = Recorder<Bool>()
        let names = Recorder<[String]>()
        let system = harness.system
        ProcessInfo.processInfo.performExpiringActivity(withReason: "Save draft", application: harness.application) {
            expired in
            names.append(system.assertions.map(\.name))
            calls.append(expired)
        }
        #expect(await waitUntil { calls.all.count == 1 && system.assertions.isEmpty })
        #expect(calls.all == [false])
        #expect(names.all == [["Save draft"]])
    }

    @Test("The assertion's origin (what a termination report names) is the caller's line, not the package's")
    func originIsTheCaller() async {
        let harness = ManualHarness()
        let origins = Recorder<String>()
        let system = harness.system
        let line = #line + 1
        ProcessInfo.processInfo.performExpiringActivity(withReason: "Upload", application: harness.application) { _ in
            origins.append(system.assertions.map { "\($0.origin.fileID):\($0.origin.line)" }.joined())
        }
        #expect(await waitUntil { origins.all.count == 1 && system.assertions.isEmpty })
        #expect(origins.all == ["BackgroundExecutionTests/ExpiringActivityTests.swift:\(line)"])
    }

    @Test(
        "When time runs out the block is called again with expired == true, on another thread, while the first call still runs"
    )
    @MainActor
    func secondCallWhileFirstRuns() async {
        let harness = ManualHarness()
        let expiredSeen = DispatchSemaphore(value: 0)
        let threads = Recorder<(Bool, UInt)>()
        ProcessInfo.processInfo.performExpiringActivity(withReason: "Long work", application: harness.application) {
            expired in
            threads.append((expired, UInt(bitPattern: Int(bitPattern: pthread_self()))))
            if expired {
                expiredSeen.signal()
                return
            }
            // The first call works until told to stop by the second.
            expiredSeen.wait()
            threads.append((false, 0))  // marks the first call's return
        }
        let system = harness.system
        #expect(await waitUntil { system.assertions.count == 1 })
        harness.moveToBackground()
        harness.clock.advance(by: .seconds(25))  // expiration: the handler dispatches block(true)
        #expect(await waitUntil { system.lifecycleState == .suspended })
        let calls = threads.all
        #expect(calls.map(\.0) == [false, true, false])
        #expect(calls[0].1 != calls[1].1, "the second call runs on another thread")
    }

    @Test("If no assertion can be taken, the block runs once with expired == true")
    func deniedRunsExpiredOnce() async {
        var policy = SystemPolicy.iOS
        policy.grantsAssertions = false
        let harness = ManualHarness(policy: policy)
        await MainActor.run { harness.clock.runPending() }  // the launch's own notifications
        let calls = Recorder<Bool>()
        ProcessInfo.processInfo.performExpiringActivity(withReason: "Refused", application: harness.application) {
            calls.append($0)
        }
        let clock = harness.clock
        #expect(await waitUntil { clock.pendingCount == 1 })
        await MainActor.run { clock.runPending() }
        #expect(await waitUntil { calls.all.count == 1 })
        #expect(calls.all == [true])
    }

    @Test("An empty reason is a fault, reported through the fault hook")
    func emptyReasonFaults() {
        let harness = ManualHarness()
        let faults = Recorder<BackgroundFault>()
        BackgroundFault.hook = { faults.append($0) }
        defer { BackgroundFault.hook = nil }
        ProcessInfo.processInfo.performExpiringActivity(withReason: "", application: harness.application) { _ in }
        #expect(faults.all.map(\.message) == ["reason must not be nil or an empty string"])
    }
}

@Suite("withBackgroundTask(named:)")
struct WithBackgroundTaskTests {
    @Test("The assertion ends exactly once when the operation returns")
    func endsOnReturn() async throws {
        let harness = ManualHarness()
        let system = harness.system
        let value = try await harness.application.withBackgroundTask(named: "Compute") {
            #expect(system.assertions.map(\.name) == ["Compute"])
            return 42
        }
        #expect(value == 42)
        #expect(system.assertions.isEmpty)
        #expect(harness.log.messages.isEmpty, "no double end was logged")
    }

    @Test("The assertion ends exactly once when the operation throws")
    func endsOnThrow() async {
        struct Failure: Error {}
        let harness = ManualHarness()
        await #expect(throws: Failure.self) {
            try await harness.application.withBackgroundTask(named: "Fails") { throw Failure() }
        }
        #expect(harness.system.assertions.isEmpty)
        #expect(harness.log.messages.isEmpty)
    }

    @Test("Expiration cancels the work and ends the assertion once; the app is then suspended")
    @MainActor
    func expirationCancels() async {
        let harness = ManualHarness()
        let system = harness.system
        let started = Atomic<Bool>(false)
        let outcome = Task {
            try await harness.application.withBackgroundTask(named: "Sync") {
                started.store(true, ordering: .sequentiallyConsistent)
                while !Task.isCancelled { await Task.yield() }
                throw CancellationError()
            }
        }
        #expect(await waitUntil { started.load(ordering: .sequentiallyConsistent) })
        harness.moveToBackground()
        harness.clock.advance(by: .seconds(25))
        await #expect(throws: CancellationError.self) { try await outcome.value }
        #expect(system.lifecycleState == .suspended)
        #expect(harness.log.messages.filter { $0.contains("Can't end") }.isEmpty, "ended exactly once")
    }
}
