import BackgroundCore
import BackgroundTestSupport
import Dispatch
import Testing

@testable import BackgroundExecution

/// One record of a registration (docs/core-contract.md): the embedded system, the simulator and
/// the daemon's client hand the system's answer to `RuntimeTables.recordRegistration`, the one
/// place a launch handler enters the tables (`taskHandlers` is `private(set)` to
/// `AppRuntime.swift`). The simulator's side is `RegistrationRecordTests` in
/// BackgroundSimulatorTests.
@Suite("One record of a registration")
struct RegistrationRecordTests {
    @Test("Only a .registered reply records the handler; a refusal and a fault leave the tables as they were")
    func theRecord() {
        var tables = RuntimeTables()
        let first = DispatchQueue(label: "first")
        let handler = RegisteredTaskHandler(queue: first) { _ in }
        let registered = tables.recordRegistration(.registered(identifier: "refresh"), identifier: "refresh", handler)
        let refused = tables.recordRegistration(.refused(identifier: "other"), identifier: "other", handler)
        let again = RegisteredTaskHandler(queue: DispatchQueue(label: "again")) { _ in }
        let duplicate = tables.recordRegistration(nil, identifier: "refresh", again)  // a fault: no reply
        #expect(registered && !refused && !duplicate)
        #expect(tables.taskHandlers.keys.sorted() == ["refresh"])
        #expect(tables.taskHandlers["refresh"]?.queue === first)
        tables.removeAll()
        #expect(tables.taskHandlers.isEmpty)
    }

    @Test("The embedded system records registered handlers only: not a refused, duplicate or late one")
    @MainActor
    func embedded() {
        BackgroundFault.hook = { _ in }  // the duplicate and the late registration are faults
        defer { BackgroundFault.hook = nil }
        let harness = SchedulerHarness()
        let first = DispatchQueue(label: "refresh.first")
        let scheduler = harness.scheduler
        #expect(scheduler.register(forTaskWithIdentifier: SchedulerHarness.refresh, using: first) { _ in })
        #expect(!scheduler.register(forTaskWithIdentifier: "com.example.tests.unlisted", using: nil) { _ in })
        let again = DispatchQueue(label: "refresh.again")
        #expect(!scheduler.register(forTaskWithIdentifier: SchedulerHarness.refresh, using: again) { _ in })
        harness.clock.runPending()  // launch finishes
        #expect(!scheduler.register(forTaskWithIdentifier: SchedulerHarness.cleanup, using: nil) { _ in })
        let recorded = harness.system.withTables { tables in
            (tables.taskHandlers.keys.sorted(), tables.taskHandlers[SchedulerHarness.refresh]?.queue === first)
        }
        #expect(recorded.0 == [SchedulerHarness.refresh])
        #expect(recorded.1, "the first registration is kept")
    }
}
