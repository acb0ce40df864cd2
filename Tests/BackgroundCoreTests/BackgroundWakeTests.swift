import BackgroundCore
import Testing

@Suite("Launch and resume in the background")
struct BackgroundWakeTests {
    @Test("An app launched in the background is asked to run its launch code, then suspended when it returns")
    func launchThenSuspend() throws {
        var d = Driver()
        let launched = try d.send(.launch(notes, .background), at: .zero)
        #expect(
            launched == [
                .launch(notes, .system, .first), .stateChanged(notes, from: .notRunning, to: .background),
                .deliverBackgroundWake(notes),
                .scheduleWakeup(at: .t(20)),
            ]
        )
        let returned = try d.send(.backgroundWakeReturned(notes), at: .t(2))
        #expect(
            returned.withoutLogs == [
                .stateChanged(notes, from: .background, to: .suspended), .suspend(notes), .cancelWakeup,
            ]
        )
    }

    @Test("Launch code that does not return within 20 s ends the app with 0x8badf00d")
    func launchWatchdog() throws {
        var d = Driver()
        try d.send(.launch(notes, .background), at: .zero)
        let report = try #require(try d.tick(at: .t(20)).reports.first)
        #expect(report.code == .watchdogTimeout)
        #expect(report.at == .t(20))
        #expect(report.explanation == "the launch or resume in the background did not finish within 20.000 s")
    }

    @Test("A task begun during a resume keeps the app in the background after the resume returns")
    func resumeWithWork() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.background(notes, at: .t(10))
        try d.send(.resumeInBackground(notes), at: .t(100))
        try d.begin(notes, at: .t(101))
        try d.send(.backgroundWakeReturned(notes), at: .t(102))
        #expect(d.state(notes) == .background)
        #expect(d.system.backgroundTimeRemaining(of: notes, at: .t(111)) == .seconds(20))
    }

    @Test("A stale callback return (from a previous trip to the background) is ignored")
    func staleReturnIgnored() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        try d.background(notes, at: .t(2))
        let effects = try d.send(.backgroundWakeReturned(notes), at: .t(3))
        #expect(effects.withoutLogs.isEmpty)
        #expect(d.state(notes) == .background)
    }

    @Test("Ending the last task at the very instant the budget runs out is not a leak")
    func endAtTheInstantOfTheDeadline() throws {
        var d = try Driver.inBackground(handlers: [false])
        let effects = try d.end(notes, 1, at: .t(40))
        #expect(effects.reports.isEmpty)
        #expect(d.state(notes) == .suspended)
    }
}
