import BackgroundCore
import Testing

@Suite("Silent pushes: remote-notification wakes the app for 30 s, within a budget (issue 11 §2, reference §3.2, §4)")
struct RemoteNotificationTests {
    static let pushID = BackgroundSystem.remoteNotificationIdentifier

    /// Notes with the given modes, opened at T+0 and suspended from T+10.
    static func suspended(modes: Set<BackgroundMode> = [.remoteNotification]) throws -> Driver {
        var d = Driver()
        try d.send(.install(AppManifest(bundleIdentifier: notes, backgroundModes: modes)), at: .zero)
        try d.send(.launch(notes, .foreground), at: .zero)
        try d.send(.finishLaunching(notes), at: .zero)
        try d.send(.activate(notes), at: .zero)
        try d.background(notes, at: .t(10))
        return d
    }

    @Test("A push resumes a suspended app, hands it the payload with 30 s, and completion suspends it again")
    func resumesSuspendedApp() throws {
        var d = try Self.suspended()
        #expect(d.state(notes) == .suspended)
        let effects = try d.send(.remoteNotification(notes, payload: #"{"id":7}"#), at: .t(100))
        #expect(effects.contains(.resume(notes, Incarnation(rawValue: 1))))
        let run = try #require(effects.taskRuns.first)
        #expect(run.request.kind == .remoteNotification)
        #expect(run.request.payload == #"{"id":7}"#)
        #expect(run.killAt == .t(130))
        try d.complete(notes, run.id, at: .t(105))
        #expect(d.state(notes) == .suspended)
        #expect(d.system.silentPushesRemaining(of: notes, at: .t(105)) == 2)
        #expect(d.system.pendingRequests(of: notes).isEmpty)  // never shown as a BGTaskScheduler request
        let stored = d.persisted.contains { if case .recordRun = $0 { true } else { false } }
        #expect(!stored)  // the store's schema admits only the four request kinds
    }

    @Test("A push launches a not-running app in the background; its run starts once the launch finishes")
    func launchesNotRunningApp() throws {
        var d = try Self.suspended()
        try d.send(.terminate(notes, .systemReclaimed), at: .t(20))
        let effects = try d.send(.remoteNotification(notes, payload: "{}"), at: .t(100))
        #expect(effects.contains(.launch(notes, .tasks, Incarnation(rawValue: 2))))
        #expect(effects.taskRuns.isEmpty)
        let woken = try d.send(.backgroundWakeReturned(notes), at: .t(101))
        #expect(woken.taskRuns.map(\.request.kind) == [.remoteNotification])
    }

    @Test("A completion handler never called ends the app with 0x8badf00d at 30 s (enforced)")
    func completionEnforced() throws {
        var d = try Self.suspended()
        try d.send(.remoteNotification(notes, payload: "{}"), at: .t(100))
        #expect(try d.tick(at: .t(129)).reports.isEmpty)
        let report = try #require(try d.tick(at: .t(130)).reports.first)
        #expect(report.code == .watchdogTimeout)
        #expect(report.uncompletedTasks.map(\.identifier) == [Self.pushID])
    }

    @Test("Three pushes an hour: the fourth waits for the window, and a fifth meanwhile replaces it (coalesced)")
    func budgetHolds() throws {
        var d = try Self.suspended()
        for (offset, at) in [100, 200, 300].enumerated() {
            let effects = try d.send(.remoteNotification(notes, payload: "{\"n\":\(offset)}"), at: .t(Int64(at)))
            let run = try #require(effects.taskRuns.first)
            try d.complete(notes, run.id, at: .t(Int64(at + 1)))
        }
        #expect(d.system.silentPushesRemaining(of: notes, at: .t(400)) == 0)
        #expect(try d.send(.remoteNotification(notes, payload: #"{"n":3}"#), at: .t(400)).taskRuns.isEmpty)
        let coalesced = try d.send(.remoteNotification(notes, payload: #"{"n":4}"#), at: .t(500))
        #expect(coalesced.taskRuns.isEmpty)
        #expect(coalesced.logs.contains { $0.message.contains("coalesced") })
        #expect(try d.tick(at: .t(3699)).taskRuns.isEmpty)
        let released = try d.tick(at: .t(3700))
        #expect(released.taskRuns.map(\.request.payload) == [#"{"n":4}"#])
    }

    @Test("No push wakes a force-quit app (S10), and none is kept for later")
    func forceQuitGetsNone() throws {
        var d = try Self.suspended()
        try d.send(.terminate(notes, .userForceQuit), at: .t(20))
        let effects = try d.send(.remoteNotification(notes, payload: "{}"), at: .t(100))
        #expect(effects.withoutBookkeeping.isEmpty)
        #expect(effects.logs.contains { $0.message.contains("force-quit") })
        #expect(try d.tick(at: .t(86_400)).taskRuns.isEmpty)
    }

    @Test("A known app force-quit while not running (its card swiped away) gets no push either, until opened")
    func forceQuitWhileNotRunning() throws {
        var d = Driver()
        try d.send(.install(AppManifest(bundleIdentifier: notes, backgroundModes: [.remoteNotification])), at: .zero)
        let quit = try d.send(.terminate(notes, .userForceQuit), at: .t(5))
        #expect(!quit.contains { if case .terminate = $0 { return true } else { return false } })
        #expect(d.state(notes) == .notRunning)
        let effects = try d.send(.remoteNotification(notes, payload: "{}"), at: .t(100))
        #expect(!effects.contains { if case .launch = $0 { return true } else { return false } })
        #expect(effects.logs.contains { $0.message.contains("force-quit") })
        try d.send(.launch(notes, .foreground), at: .t(200))
        try d.send(.finishLaunching(notes), at: .t(200))
        try d.send(.activate(notes), at: .t(200))
        try d.background(notes, at: .t(210))
        let woken = try d.send(.remoteNotification(notes, payload: "{}"), at: .t(300))
        #expect(woken.taskRuns.map(\.request.kind) == [.remoteNotification])
    }

    @Test(
        "Without 'remote-notification' a push does not wake the app (a warning names the mode); in the foreground it is delivered"
    )
    func undeclaredMode() throws {
        var d = try Self.suspended(modes: [.audio])
        let effects = try d.send(.remoteNotification(notes, payload: "{}"), at: .t(100))
        #expect(effects.withoutBookkeeping.isEmpty)
        #expect(effects.logs.contains { $0.level == .warning && $0.message.contains("'remote-notification'") })
        try d.send(.enterForeground(notes), at: .t(200))
        try d.send(.activate(notes), at: .t(200))
        let foreground = try d.send(.remoteNotification(notes, payload: "{}"), at: .t(201))
        #expect(foreground.taskRuns.map(\.request.kind) == [.remoteNotification])
        #expect(d.system.silentPushesRemaining(of: notes, at: .t(201)) == 3)  // the foreground spends no budget
    }

    @Test("Background App Refresh off holds a push until it is back on")
    func backgroundAppRefreshDefers() throws {
        var d = try Self.suspended()
        try d.send(.setBackgroundRefresh(.appSwitch(notes, false)), at: .t(50))
        #expect(try d.send(.remoteNotification(notes, payload: "{}"), at: .t(100)).taskRuns.isEmpty)
        let on = try d.send(.setBackgroundRefresh(.appSwitch(notes, true)), at: .t(200))
        #expect(on.taskRuns.map(\.request.kind) == [.remoteNotification])
    }
}
