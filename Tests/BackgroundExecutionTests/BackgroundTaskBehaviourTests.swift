import BackgroundExecution
import Foundation
import Testing

@Suite("UIApplication background tasks on virtual time")
@MainActor
struct BackgroundTaskBehaviourTests {
    @Test("backgroundTimeRemaining is Double.greatestFiniteMagnitude in the foreground")
    func remainingInForeground() {
        let harness = ManualHarness()
        harness.application.beginBackgroundTask(withName: "Dormant")
        harness.clock.advance(by: .seconds(3600))
        #expect(harness.application.backgroundTimeRemaining == .greatestFiniteMagnitude)
        #expect(harness.application.applicationState == .active)
    }

    @Test("In the background the app's one budget of 30 s ticks while a task is held")
    func remainingInBackground() {
        let harness = ManualHarness()
        harness.application.beginBackgroundTask(withName: "One")
        harness.application.beginBackgroundTask(withName: "Two")
        harness.moveToBackground()
        #expect(harness.application.applicationState == .background)
        #expect(harness.application.backgroundTimeRemaining == 30)
        harness.clock.advance(by: .seconds(10))
        #expect(harness.application.backgroundTimeRemaining == 20)
    }

    @Test("Expiration handlers run on the main actor, one by one in begin order, 5 s before the end")
    func expirationOrder() {
        let harness = ManualHarness()
        let app = harness.application
        let calls = Recorder<String>()
        var ids: [UIBackgroundTaskIdentifier] = []
        for name in ["first", "second", "third"] {
            let id = app.beginBackgroundTask(withName: name) {
                MainActor.assertIsolated()
                calls.append(name)
            }
            ids.append(id)
        }
        harness.moveToBackground()
        harness.clock.advance(by: .seconds(24))
        #expect(calls.all.isEmpty)
        harness.clock.advance(by: .seconds(1))
        #expect(calls.all == ["first", "second", "third"])
        #expect(harness.log.expirations.map(\.0) == [.seconds(25), .seconds(25), .seconds(25)])
        for id in ids { app.endBackgroundTask(id) }
        #expect(harness.system.lifecycleState == .suspended)
    }

    @Test("A leaked task ends the app with 0x8badf00d and a report naming it and its source line")
    func leakIsReported() throws {
        let harness = ManualHarness()
        let line = #line + 1
        harness.application.beginBackgroundTask(withName: "Leaky") {}
        harness.moveToBackground()
        harness.clock.advance(by: .seconds(31))
        let report = try #require(harness.system.terminationReports.last)
        #expect(report.code == .watchdogTimeout)
        #expect(report.at == .seconds(30))
        let leak = try #require(report.leakedAssertions.first)
        #expect(leak.name == "Leaky")
        #expect(leak.origin.fileID == "BackgroundExecutionTests/BackgroundTaskBehaviourTests.swift")
        #expect(leak.origin.line == UInt(line))
        #expect(leak.origin.function == "leakIsReported()")
        #expect(report.renderText().contains("BackgroundExecutionTests/BackgroundTaskBehaviourTests.swift:\(line)"))
    }

    @Test("An assertion that cannot be granted returns .invalid and its expiration handler is called")
    func deniedCallsHandler() {
        var policy = SystemPolicy.iOS
        policy.grantsAssertions = false
        let harness = ManualHarness(policy: policy)
        let called = Recorder<Bool>()
        let id = harness.application.beginBackgroundTask(withName: "Refused") { called.append(true) }
        #expect(id == .invalid)
        harness.clock.runPending()
        #expect(called.all == [true])
    }

    @Test("Ending an unknown or already-ended identifier logs UIKit's exact message and does not crash")
    func unknownEndLogs() {
        let harness = ManualHarness()
        let id = harness.application.beginBackgroundTask(withName: "Once")
        harness.application.endBackgroundTask(id)
        harness.application.endBackgroundTask(id)
        harness.application.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: 42))
        #expect(
            harness.log.messages == [
                "Can't end BackgroundTask: no background task exists with identifier 1 (0x1), or it may have already been ended. Break in UIApplicationEndBackgroundTaskError() to debug.",
                "Can't end BackgroundTask: no background task exists with identifier 42 (0x2a), or it may have already been ended. Break in UIApplicationEndBackgroundTaskError() to debug.",
            ]
        )
    }

    @Test("Ending .invalid does nothing")
    func endingInvalid() {
        let harness = ManualHarness()
        harness.application.endBackgroundTask(.invalid)
        #expect(harness.log.messages.isEmpty)
    }

    @Test("A nil name is generated from the calling function")
    func generatedName() {
        let harness = ManualHarness()
        harness.application.beginBackgroundTask(withName: nil)
        harness.application.beginBackgroundTask()
        let names = harness.system.assertions.map(\.name)
        #expect(names == Array(repeating: "Called by BackgroundExecutionTests, from generatedName()", count: 2))
    }

    @Test("Identifiers are small integers increasing from 1")
    func identifiersIncrease() {
        let harness = ManualHarness()
        let ids = (0..<5).map { _ in harness.application.beginBackgroundTask(withName: "n").rawValue }
        #expect(ids == [1, 2, 3, 4, 5])
    }

    @Test("Two apps' systems are separate: one app cannot end another's task")
    func appsAreIsolated() {
        let notes = ManualHarness(app: "com.example.notes")
        let mail = ManualHarness(app: "com.example.mail")
        let noteTask = notes.application.beginBackgroundTask(withName: "Notes")
        mail.application.endBackgroundTask(noteTask)
        #expect(notes.system.assertions.map(\.name) == ["Notes"])
        #expect(mail.log.messages.count == 1)
    }

    @Test("The server profile exits cleanly with status 0 when the last task ends in the background")
    func serverExitsCleanly() throws {
        let harness = ManualHarness(policy: .server(grace: .seconds(10)))
        let id = harness.application.beginBackgroundTask(withName: "Flush")
        harness.moveToBackground()
        harness.clock.advance(by: .seconds(2))
        harness.application.endBackgroundTask(id)
        let report = try #require(harness.system.terminationReports.last)
        #expect(report.isClean)
        #expect(harness.system.lifecycleState == .terminated(.exited(status: 0)))
    }
}
