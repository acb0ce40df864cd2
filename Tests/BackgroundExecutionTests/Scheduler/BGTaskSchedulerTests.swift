import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Synchronization
import Testing

/// A namespace subclass, as apps write them: compiling it proves the class is `open`.
final class NewsRefreshTask: BGAppRefreshTask {}

final class Refresher {
    let inbox = TaskInbox()
    func handle(_ task: BGTask) { inbox.receive(task) }
}

@Suite("BGTaskScheduler on virtual time")
struct BGTaskSchedulerTests {
    @Test("register returns false for an identifier not permitted, and is @discardableResult with a method reference")
    func registerShapes() {
        let harness = SchedulerHarness()
        let refresher = Refresher()
        #expect(
            harness.scheduler.register(forTaskWithIdentifier: "com.example.tests.unlisted", using: nil) { _ in }
                == false
        )
        harness.scheduler.register(
            forTaskWithIdentifier: SchedulerHarness.refresh,
            using: .main,
            launchHandler: refresher.handle
        )
        harness.scheduler.register(
            forTaskWithIdentifier: SchedulerHarness.cleanup,
            using: DispatchQueue(label: "cleanup"),
            launchHandler: refresher.handle
        )
    }

    @Test("Registering after launch finished, twice, or submitting without a handler are faults with Apple's messages")
    @MainActor
    func registrationFaults() throws {
        let faults = Recorder<String>()
        BackgroundFault.hook = { faults.append($0.message) }
        defer { BackgroundFault.hook = nil }
        let harness = SchedulerHarness()
        try? harness.scheduler.submit(BGAppRefreshTaskRequest(identifier: SchedulerHarness.refresh))
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.refresh, using: nil) { _ in }
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.refresh, using: nil) { _ in }
        harness.clock.runPending()  // launch finishes
        let late = harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.cleanup, using: nil) { _ in }
        #expect(late == false)
        #expect(
            faults.all == [
                "No launch handler registered for task with identifier com.example.tests.refresh",
                "Launch handler for task with identifier com.example.tests.refresh has already been registered",
                "All launch handlers must be registered before application finishes launching",
            ]
        )
    }

    @Test("Pending requests come back as copies; changing a copy changes nothing")
    func pendingCopies() async throws {
        let harness = SchedulerHarness()
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.cleanup, using: nil) { _ in }
        let request = BGProcessingTaskRequest(identifier: SchedulerHarness.cleanup)
        request.requiresExternalPower = true
        request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
        try harness.scheduler.submit(request)
        request.requiresExternalPower = false
        let pending = await harness.scheduler.pendingTaskRequests()
        let copy = try #require(pending.first as? BGProcessingTaskRequest)
        #expect(pending.count == 1)
        #expect(copy !== request)
        #expect(copy.requiresExternalPower)
        #expect(abs((copy.earliestBeginDate ?? .distantPast).timeIntervalSinceNow - 3600) < 1)
        copy.requiresExternalPower = false
        let again = await harness.scheduler.pendingTaskRequests()
        #expect((again.first as? BGProcessingTaskRequest)?.requiresExternalPower == true)
    }

    @Test("submit works inside a running launch handler and inside a getPendingTaskRequests callback")
    @MainActor
    func submitFromCallbacks() async throws {
        let harness = SchedulerHarness()
        let scheduler = harness.scheduler
        let resubmitted = Atomic<Bool>(false)
        scheduler.register(forTaskWithIdentifier: SchedulerHarness.refresh, using: nil) { task in
            let next = BGAppRefreshTaskRequest(identifier: SchedulerHarness.refresh)
            next.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
            resubmitted.store((try? scheduler.submit(next)) != nil, ordering: .sequentiallyConsistent)
            task.setTaskCompleted(success: true)
        }
        scheduler.register(forTaskWithIdentifier: SchedulerHarness.cleanup, using: nil) { task in
            task.setTaskCompleted(success: true)
        }
        harness.clock.runPending()
        try scheduler.submit(BGAppRefreshTaskRequest(identifier: SchedulerHarness.refresh))
        let fromCallback = Atomic<Bool>(false)
        scheduler.getPendingTaskRequests { _ in
            fromCallback.store(
                (try? scheduler.submit(BGProcessingTaskRequest(identifier: SchedulerHarness.cleanup))) != nil,
                ordering: .sequentiallyConsistent
            )
        }
        #expect(await waitUntil { fromCallback.load(ordering: .sequentiallyConsistent) })
        harness.clock.runPending()  // the refresh is due now
        #expect(await waitUntil { resubmitted.load(ordering: .sequentiallyConsistent) })
        let pending = await scheduler.pendingTaskRequests()
        #expect(pending.map(\.identifier).contains(SchedulerHarness.refresh))
    }

    @Test("Several due tasks are handed over in one launch, each to its handler, as the concrete class")
    @MainActor
    func batch() async throws {
        let harness = SchedulerHarness()
        let inbox = TaskInbox()
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.refresh, using: nil) { inbox.receive($0) }
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.cleanup, using: nil) { inbox.receive($0) }
        try harness.scheduler.submit(BGAppRefreshTaskRequest(identifier: SchedulerHarness.refresh))
        try harness.scheduler.submit(BGProcessingTaskRequest(identifier: SchedulerHarness.cleanup))
        harness.clock.runPending()
        #expect(await waitUntil { inbox.count == 2 })
        #expect(harness.log.effects.filter { if case .runTasks = $0 { true } else { false } }.count == 1)
        #expect(inbox.received.contains { $0 is BGAppRefreshTask })
        #expect(inbox.received.contains { $0 is BGProcessingTask })
        for task in inbox.received { task.setTaskCompleted(success: true) }
        #expect(await waitUntil { harness.system.runningTasks.isEmpty })
    }

    @Test("A launch handler on the nil queue may block its thread; expiration still arrives on another thread")
    @MainActor
    func expirationWhileBlocked() async throws {
        let harness = SchedulerHarness()
        let inbox = TaskInbox()
        let expiredOn = Atomic<UInt>(0)
        let expired = DispatchSemaphore(value: 0)
        try harness.runRefresh { task in
            inbox.receive(task)
            task.expirationHandler = {
                expiredOn.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .sequentiallyConsistent)
                task.setTaskCompleted(success: false)
                expired.signal()
            }
            // Block this thread until expiration has been delivered elsewhere.
            expired.wait()
        }
        #expect(await waitUntil { inbox.count == 1 })
        #expect(await waitUntil { inbox.received.first?.expirationHandler != nil })
        harness.clock.advance(by: .seconds(25))  // refresh: expiration 5 s before its 30 s
        #expect(await waitUntil { expiredOn.load(ordering: .sequentiallyConsistent) != 0 })
        #expect(expiredOn.load(ordering: .sequentiallyConsistent) != inbox.threads.first)
        #expect(await waitUntil { harness.system.runningTasks.isEmpty })
        #expect(inbox.received.first?.expirationHandler == nil, "cleared after it ran")
        #expect(harness.system.terminationReports.isEmpty)
    }

    @Test("Without an expiration handler the task is marked complete and unsuccessful at expiry")
    @MainActor
    func noExpirationHandler() async throws {
        let harness = SchedulerHarness()
        let inbox = TaskInbox()
        try harness.runRefresh { inbox.receive($0) }
        #expect(await waitUntil { inbox.count == 1 })
        harness.clock.advance(by: .seconds(25))
        #expect(await waitUntil { harness.system.runningTasks.isEmpty })
        #expect(harness.log.effects.contains { if case .taskFinished(_, _, .failed) = $0 { true } else { false } })
        harness.clock.advance(by: .seconds(60))
        #expect(harness.system.terminationReports.isEmpty)
    }

    @Test("A task never completed ends the app with 0x8badf00d, and the report names it")
    @MainActor
    func neverCompleted() async throws {
        let harness = SchedulerHarness()
        let inbox = TaskInbox()
        try harness.runRefresh { task in
            task.expirationHandler = {}  // ignores expiry and never completes
            inbox.receive(task)
        }
        #expect(await waitUntil { inbox.count == 1 })
        harness.clock.advance(by: .seconds(31))
        let report = try #require(harness.system.terminationReports.last)
        #expect(report.code == .watchdogTimeout)
        #expect(report.uncompletedTasks.map(\.identifier) == [SchedulerHarness.refresh])
        #expect(report.renderText().contains("\"com.example.tests.refresh\" (appRefresh"))
    }

    @Test("A second setTaskCompleted is ignored with a log; apps may subclass BGAppRefreshTask and hold tasks weakly")
    @MainActor
    func completedTwice() async throws {
        let harness = SchedulerHarness()
        let inbox = TaskInbox()
        try harness.runRefresh { inbox.receive($0) }
        #expect(await waitUntil { inbox.count == 1 })
        weak let held = inbox.received.first
        held?.setTaskCompleted(success: true)
        held?.setTaskCompleted(success: true)
        #expect(await waitUntil { harness.system.runningTasks.isEmpty })
        #expect(harness.log.effects.filter { if case .taskFinished = $0 { true } else { false } }.count == 1)
    }

    @Test("Debug hooks: simulate launch runs a pending request now; simulate expiration expires it")
    @MainActor
    func debugHooks() async throws {
        let harness = SchedulerHarness(device: DeviceConditions())  // on battery, in use
        let inbox = TaskInbox()
        let expired = Atomic<Bool>(false)
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.cleanup, using: nil) { task in
            task.expirationHandler = {
                expired.store(true, ordering: .sequentiallyConsistent)
                task.setTaskCompleted(success: false)
            }
            inbox.receive(task)
        }
        let request = BGProcessingTaskRequest(identifier: SchedulerHarness.cleanup)
        request.requiresExternalPower = true
        try harness.scheduler.submit(request)
        harness.clock.advance(by: .seconds(3600))
        #expect(inbox.count == 0)
        harness.scheduler._simulateLaunchForTaskWithIdentifier(SchedulerHarness.cleanup)
        #expect(await waitUntil { inbox.count == 1 && inbox.received.first?.expirationHandler != nil })
        harness.scheduler._simulateExpirationForTaskWithIdentifier(SchedulerHarness.cleanup)
        #expect(await waitUntil { expired.load(ordering: .sequentiallyConsistent) })
        #expect(harness.log.messages.contains("Simulating launch for task with identifier com.example.tests.cleanup"))
        #expect(
            harness.log.messages.contains("Simulating expiration for task with identifier com.example.tests.cleanup")
        )
    }

    @Test("Continued processing reports progress through a Foundation Progress and can change its title")
    @MainActor
    func continuedProcessing() async throws {
        let harness = SchedulerHarness()
        let identifier = "com.example.tests.continued.export-42"
        let inbox = TaskInbox()
        harness.scheduler.register(forTaskWithIdentifier: identifier, using: nil) { inbox.receive($0) }
        harness.clock.runPending()  // launch finished: continued identifiers may still register
        let request = BGContinuedProcessingTaskRequest(identifier: identifier, title: "Exporting", subtitle: "0 of 10")
        try harness.scheduler.submit(request)
        #expect(await waitUntil { inbox.count == 1 })
        let task = try #require(inbox.received.first as? BGContinuedProcessingTask)
        let progress: Progress = task.progress
        progress.totalUnitCount = 10
        progress.completedUnitCount = 5
        task.updateTitle("Exporting", subtitle: "5 of 10")
        #expect(task.subtitle == "5 of 10")
        harness.clock.advance(by: .seconds(59))
        let run = try #require(harness.system.runningTasks.first)
        #expect(run.progress == 0.5)
        harness.clock.advance(by: .seconds(60))  // no progress for 60 s: stalled, expired
        #expect(harness.log.effects.contains { if case .expireTask = $0 { true } else { false } })
    }
}
