import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Testing

/// The same explanations through the library: `BGTaskScheduler.explanation(forTaskWithIdentifier:)`
/// on the embedded system, on virtual time.
@Suite("BGTaskScheduler explanations: history, what-ifs, range")
struct ExplanationAPITests {
    @Test(
        "a clean-up that needs power waited 6 h for it, as the library tells; before that, plugging in is the what-if"
    )
    @MainActor
    func waitedForPower() async throws {
        let onBattery = DeviceConditions(powerSource: .battery, batteryLevel: 0.9, network: .wifi, isIdle: true)
        let harness = SchedulerHarness(device: onBattery)
        let inbox = TaskInbox()
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.cleanup, using: nil) { inbox.receive($0) }
        let request = BGProcessingTaskRequest(identifier: SchedulerHarness.cleanup)
        request.requiresExternalPower = true
        try harness.scheduler.submit(request)
        harness.clock.runPending()
        harness.clock.advance(by: .seconds(3 * 3600))

        let waiting = try #require(harness.scheduler.explanation(forTaskWithIdentifier: SchedulerHarness.cleanup))
        #expect(waiting.eligibility?.unmet == [.requiresExternalPower])
        #expect(waiting.history.waiting(for: .externalPower) == .seconds(3 * 3600))
        #expect(waiting.whatIfs.map(\.changes) == [[.plugIn]])
        #expect(waiting.whatIfs.first?.eligibility.isEligible == true)
        #expect(waiting.likelyRange?.latest == nil)

        harness.clock.advance(by: .seconds(3 * 3600))
        var charging = onBattery
        charging.powerSource = .externalPower
        harness.system.setDevice(charging)
        harness.clock.runPending()
        #expect(await waitUntil { inbox.count == 1 })
        for task in inbox.received { task.setTaskCompleted(success: true) }
        #expect(await waitUntil { harness.system.runningTasks.isEmpty })

        let done = try #require(harness.scheduler.explanation(forTaskWithIdentifier: SchedulerHarness.cleanup))
        #expect(done.eligibility == nil)
        let run = try #require(done.history.runs.last)
        #expect(run.waited(for: .externalPower) == .seconds(6 * 3600))
        #expect(run.outcome == .succeeded)
        #expect(harness.scheduler.explanation(forTaskWithIdentifier: "com.example.tests.nothing") == nil)
    }
}
