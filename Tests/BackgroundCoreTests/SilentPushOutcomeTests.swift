import BackgroundCore
import Testing

@Suite("What became of a silent push: delivered, launching, waiting or refused with the reason (bgctl push)")
struct SilentPushOutcomeTests {
    typealias Base = RemoteNotificationTests

    @Test("A suspended app is resumed and the push delivered; the budget shows in the remaining count")
    func delivered() throws {
        var d = try Base.suspended()
        try d.send(.remoteNotification(notes, payload: "{}"), at: .t(100))
        #expect(d.system.silentPushOutcome(of: notes, since: .t(100)) == .delivered)
        #expect(d.system.silentPushesRemaining(of: notes, at: .t(100)) == 2)
    }

    @Test("A handler that completed at once still reads as delivered for the push that was just handed over")
    func deliveredAndCompleted() throws {
        var d = try Base.suspended()
        let effects = try d.send(.remoteNotification(notes, payload: "{}"), at: .t(100))
        try d.complete(notes, try #require(effects.taskRuns.first).id, at: .t(100))
        #expect(d.system.silentPushOutcome(of: notes, since: .t(100)) == .delivered)
        #expect(d.system.silentPushOutcome(of: notes, since: .t(101)) != .delivered, "an older push is not this one")
    }

    @Test("A not-running app is launched in the background; the push waits for the launch")
    func launching() throws {
        var d = try Base.suspended()
        try d.send(.terminate(notes, .systemReclaimed), at: .t(20))
        try d.send(.remoteNotification(notes, payload: "{}"), at: .t(100))
        #expect(d.system.silentPushOutcome(of: notes, since: .t(100)) == .launching)
        try d.send(.backgroundWakeReturned(notes), at: .t(101))
        #expect(d.system.silentPushOutcome(of: notes, since: .t(100)) == .delivered)
    }

    @Test("The fourth push in an hour waits, with the budget's end as its earliest run")
    func waitingForTheBudget() throws {
        var d = try Base.suspended()
        for at in [100, 200, 300] {
            let effects = try d.send(.remoteNotification(notes, payload: "{}"), at: .t(Int64(at)))
            try d.complete(notes, try #require(effects.taskRuns.first).id, at: .t(Int64(at + 1)))
        }
        try d.send(.remoteNotification(notes, payload: "{}"), at: .t(400))
        let outcome = d.system.silentPushOutcome(of: notes, since: .t(400))
        guard case .waiting(let explanation) = outcome else {
            Issue.record("expected waiting, got \(outcome)")
            return
        }
        #expect(explanation?.eligibility?.earliestRun == .t(3700))
        #expect(outcome.earliest == .t(3700))
        #expect(outcome.reason != nil)
        #expect(outcome.name == "waiting")
    }

    @Test("Refusals name their reason: undeclared mode, force quit, not installed")
    func refused() throws {
        var undeclared = try Base.suspended(modes: [.audio])
        try undeclared.send(.remoteNotification(notes, payload: "{}"), at: .t(100))
        #expect(
            undeclared.system.silentPushOutcome(of: notes, since: .t(100))
                == .refused("UIBackgroundModes does not declare 'remote-notification'")
        )
        var quit = try Base.suspended()
        try quit.send(.terminate(notes, .userForceQuit), at: .t(20))
        try quit.send(.remoteNotification(notes, payload: "{}"), at: .t(100))
        let outcome = quit.system.silentPushOutcome(of: notes, since: .t(100))
        #expect(outcome.reason?.contains("force-quit") == true)
        #expect(outcome.name == "refused")
        #expect(quit.system.silentPushRefusal(of: "com.example.nobody") == "the app is not installed")
    }

    @Test("The mode that keeps an app awake is said with how long: kept running ... by 'audio' for 10m")
    func keptAwakeText() {
        let activity = ModeActivity(mode: .audio, since: .t(100))
        #expect(activity.keepsAwakeText(at: .t(700)) == "kept running in the background by 'audio' for 10m")
    }
}
