import BackgroundCore
import Testing

@Suite("Budget")
struct BudgetTests {
    @Test("A task begun in the foreground stays dormant: no remaining time, no wake-up, no expiry for hours")
    func dormantInForeground() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        #expect(try d.begin(notes, at: .t(1)) == .granted(.id(1)))
        #expect(d.remaining(notes, at: .t(1)) == nil)
        #expect(d.system.nextDeadline == nil)
        #expect(try d.tick(at: .t(3 * 3600)) == [])
        #expect(d.state(notes) == .active)
        #expect(d.heldIDs(notes) == [1])
        #expect(d.remaining(notes, at: .t(3 * 3600)) == nil)
    }

    @Test("In the background without an assertion the budget does not tick")
    func noAssertionNoTicking() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.leave(notes, at: .t(10))
        #expect(d.remaining(notes, at: .t(14)) == .seconds(30))
    }

    @Test("The budget starts ticking when an assertion is begun in the background, and decreases linearly")
    func ticksLinearly() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.leave(notes, at: .t(10))
        #expect(try d.begin(notes, at: .t(12)) == .granted(.id(1)))
        #expect(try d.send(.didEnterBackgroundReturned(notes), at: .t(13)) == [.scheduleWakeup(at: .t(37))])
        #expect(d.remaining(notes, at: .t(13)) == .seconds(29))
        #expect(d.remaining(notes, at: .t(22)) == .seconds(20))
        #expect(d.remaining(notes, at: .t(27, 500)) == .milliseconds(14_500))
        #expect(d.remaining(notes, at: .t(32)) == .seconds(10))
    }

    @Test("Dormant assertions become effective on entering the background: the budget ticks from then")
    func dormantBecomesEffective() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        try d.background(notes, at: .t(100))
        #expect(d.remaining(notes, at: .t(100)) == .seconds(30))
        #expect(d.remaining(notes, at: .t(110)) == .seconds(20))
    }

    @Test("Holding no assertion pauses the budget: time without one costs nothing")
    func pausesWithoutAssertions() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.leave(notes, at: .t(10))
        try d.begin(notes, at: .t(10))
        try d.end(notes, 1, at: .t(12))
        #expect(d.remaining(notes, at: .t(14)) == .seconds(28))
        try d.begin(notes, at: .t(14))
        #expect(d.remaining(notes, at: .t(15)) == .seconds(27))
    }

    @Test("The budget belongs to the app: two assertions do not give 60 s")
    func oneBudgetPerApp() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        try d.begin(notes, at: .t(2))
        #expect(try d.background(notes, at: .t(10)) == [.scheduleWakeup(at: .t(35))])
        try d.end(notes, 1, at: .t(20))
        #expect(try d.begin(notes, at: .t(20)) == .granted(.id(3)))
        #expect(d.remaining(notes, at: .t(20)) == .seconds(20))
        #expect(d.system.nextDeadline == .t(35))
    }

    @Test("Each app has its own budget: one app's background time does not use up another's")
    func budgetsPerApp() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.open(mail, at: .zero)
        try d.begin(notes, at: .t(1))
        try d.begin(mail, at: .t(1))
        try d.background(notes, at: .t(10))
        try d.background(mail, at: .t(20))
        #expect(d.remaining(notes, at: .t(25)) == .seconds(15))
        #expect(d.remaining(mail, at: .t(25)) == .seconds(25))
        #expect(d.system.nextDeadline == .t(35))
    }

    @Test("The budget is refilled to 30 s on each entry to the background")
    func refilledOnEachEntry() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        try d.background(notes, at: .t(10))
        #expect(d.remaining(notes, at: .t(30)) == .seconds(10))
        try d.send(.enterForeground(notes), at: .t(30))
        #expect(d.remaining(notes, at: .t(30)) == nil)
        #expect(try d.send(.enterBackground(notes), at: .t(40)).last == .scheduleWakeup(at: .t(45)))
        #expect(d.remaining(notes, at: .t(40)) == .seconds(30))
        #expect(try d.send(.didEnterBackgroundReturned(notes), at: .t(40)) == [.scheduleWakeup(at: .t(65))])
    }

    @Test("A wake-up is requested for the expiration instant, budget end − 5 s")
    func wakeupAtExpiration() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        #expect(try d.leave(notes, at: .t(10)).last == .scheduleWakeup(at: .t(15)))
        #expect(try d.send(.didEnterBackgroundReturned(notes), at: .t(11)) == [.scheduleWakeup(at: .t(35))])
        #expect(d.system.nextDeadline == .t(35))
    }

    @Test("Ending the last assertion in the background suspends the app under iOS")
    func lastEndSuspends() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        try d.background(notes, at: .t(10))
        let effects = try d.end(notes, 1, at: .t(20))
        #expect(
            effects == [.stateChanged(notes, from: .background, to: .suspended), .suspend(notes), .cancelWakeup]
        )
        #expect(d.state(notes) == .suspended)
    }

    @Test("Ending the last assertion under server(grace:) exits with status 0 and a clean report")
    func lastEndExitsOnServer() throws {
        var d = Driver(policy: .server(grace: .seconds(10)))
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        #expect(try d.background(notes, at: .t(10)) == [.scheduleWakeup(at: .t(17, 500))])
        let effects = try d.end(notes, 1, at: .t(15))
        let report = TerminationReport(
            incident: 1,
            app: notes,
            reason: .exited(status: 0),
            explanation: "the last background task ended",
            at: .t(15),
            stateBefore: .background,
            permittedBackgroundDuration: .seconds(10),
            leakedAssertions: [],
            policyName: "server(grace: 10.000s)"
        )
        #expect(
            effects == [
                .stateChanged(notes, from: .background, to: .terminated(.exited(status: 0))),
                .exit(notes, status: 0, report), .cancelWakeup,
            ]
        )
        #expect(report.isClean)
    }

    @Test("Under server(grace:) an app with nothing to finish exits as soon as its delegate returns")
    func serverExitsWhenIdle() throws {
        var d = Driver(policy: .server(grace: .seconds(10)))
        try d.open(notes, at: .zero)
        let effects = try d.background(notes, at: .t(10))
        #expect(effects.withoutLogs.count == 3)
        #expect(effects.reports.map(\.isClean) == [true])
        #expect(effects.last == .cancelWakeup)
        #expect(d.state(notes) == .terminated(.exited(status: 0)))
    }
}
