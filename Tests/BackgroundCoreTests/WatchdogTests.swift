import BackgroundCore
import Testing

@Suite("Watchdog")
struct WatchdogTests {
    private let killed = AppLifecycleState.terminated(.watchdog(.watchdogTimeout))

    @Test("A handler running longer than 1 s ends the app with 0x8badf00d; the explanation names the task")
    func handlerTooSlow() throws {
        var d = try Driver.inBackground(handlers: [true])
        try d.tick(at: .t(35))
        let effects = try d.tick(at: .t(36))
        let report = try #require(effects.reports.first)
        #expect(
            effects.withoutLogs == [
                .stateChanged(notes, from: .background, to: killed), .terminate(notes, report), .cancelWakeup,
            ]
        )
        #expect(report.code == .watchdogTimeout && report.at == .t(36))
        #expect(report.explanation.contains("\"Task 1\""))
        #expect(report.leakedAssertions.map(\.expirationDelivered) == [true])
    }

    @Test("A handler returning just within 1 s is fine")
    func handlerJustInTime() throws {
        var d = try Driver.inBackground(handlers: [true])
        try d.tick(at: .t(35))
        #expect(try d.handlerReturned(notes, 1, at: .t(35, 999)) == [.scheduleWakeup(at: .t(40))])
        #expect(d.state(notes) == .background)
    }

    @Test("A handler that ends its assertion but does not return is still named in the explanation")
    func hungHandlerNamed() throws {
        var d = try Driver.inBackground(handlers: [true])
        try d.tick(at: .t(35))
        try d.end(notes, 1, at: .t(35, 100))
        let report = try #require(try d.tick(at: .t(36)).reports.first)
        #expect(report.code == .watchdogTimeout && report.at == .t(36))
        #expect(report.explanation.contains("\"Task 1\""))
    }

    @Test("Handlers together may take at most 3 s: four handlers of 0.9 s each end the app at expiration + 3 s")
    func handlersTooSlowTogether() throws {
        var d = try Driver.inBackground(handlers: [true, true, true, true])
        #expect(
            try d.tick(at: .t(35)).withoutLogs == [.runExpirationHandler(notes, .id(1)), .scheduleWakeup(at: .t(36))]
        )
        #expect(
            try d.handlerReturned(notes, 1, at: .t(35, 900)) == [
                .runExpirationHandler(notes, .id(2)), .scheduleWakeup(at: .t(36, 900)),
            ]
        )
        #expect(
            try d.handlerReturned(notes, 2, at: .t(36, 800)) == [
                .runExpirationHandler(notes, .id(3)), .scheduleWakeup(at: .t(37, 800)),
            ]
        )
        #expect(
            try d.handlerReturned(notes, 3, at: .t(37, 700)) == [
                .runExpirationHandler(notes, .id(4)), .scheduleWakeup(at: .t(38)),
            ]
        )
        let effects = try d.handlerReturned(notes, 4, at: .t(38, 600))
        let report = try #require(effects.reports.first)
        #expect(
            effects.withoutLogs == [
                .stateChanged(notes, from: .background, to: killed), .terminate(notes, report), .cancelWakeup,
            ]
        )
        #expect(report.at == .t(38))
        #expect(report.explanation.contains("3.000 s in total"))
        #expect(report.leakedAssertions.count == 4)
    }

    @Test("At the budget's end every held assertion is a leak: 0x8badf00d, with each one in the report")
    func leakAtBudgetEnd() throws {
        var d = try Driver.inBackground(handlers: [true, false])
        try d.tick(at: .t(35))
        #expect(try d.handlerReturned(notes, 1, at: .t(35, 500)) == [.scheduleWakeup(at: .t(40))])
        let leaks = [
            Assertion(
                id: .id(1),
                name: "Task 1",
                origin: Site.upload,
                beganAt: .t(1),
                hasExpirationHandler: true,
                expirationDelivered: true
            ),
            Assertion(id: .id(2), name: "Task 2", origin: Site.upload, beganAt: .t(2), hasExpirationHandler: false),
        ]
        let report = TerminationReport(
            incident: 1,
            app: notes,
            reason: .watchdog(.watchdogTimeout),
            explanation: "has active assertions beyond permitted time",
            at: .t(40),
            stateBefore: .background,
            permittedBackgroundDuration: .seconds(30),
            leakedAssertions: leaks.map(TerminationReport.LeakedAssertion.init),
            policyName: "iOS"
        )
        let summary =
            "terminated with 0x8badf00d: has active assertions beyond permitted time; 2 assertion(s) held, 0 task(s) not completed"
        #expect(
            try d.tick(at: .t(40)) == [
                .stateChanged(notes, from: .background, to: killed), .log(LogRecord(.error, app: notes, summary)),
                .terminate(notes, report), .cancelWakeup,
            ]
        )
        #expect(d.heldIDs(notes) == [])
    }

    @Test("A late tick still reports the termination at the deadline's own instant")
    func lateTick() throws {
        var d = try Driver.inBackground(handlers: [false])
        let effects = try d.tick(at: .t(110))
        let report = try #require(effects.reports.first)
        #expect(
            effects.withoutLogs == [
                .stateChanged(notes, from: .background, to: killed), .terminate(notes, report), .cancelWakeup,
            ]
        )
        #expect(report.at == .t(40))
        #expect(report.explanation == "has active assertions beyond permitted time")
        #expect(d.system.now == .t(110))
    }

    @Test("An event is judged against the state left by the deadlines due before it")
    func eventAfterMissedDeadline() throws {
        var d = try Driver.inBackground(handlers: [false])
        // No tick arrived at T+40; the user opens the app again at T+50.
        let effects = try d.send(.launch(notes, .foreground), at: .t(50))
        #expect(effects.reports.first?.at == .t(40))
        #expect(effects.contains(.stateChanged(notes, from: killed, to: .inactive)))
        #expect(d.state(notes) == .inactive)
    }

    @Test("Under server(grace: 10 s) nothing runs past the budget: slow handlers are ended by T+budget")
    func serverHandlersWithinGrace() throws {
        var d = try Driver.inBackground(handlers: [true, true, true, true], policy: .server(grace: .seconds(10)))
        // Expiration at T+17.5 (lead 2.5 s), budget end at T+20; each handler takes 0.9 s.
        #expect(try d.tick(at: .t(17, 500)).withoutLogs.first == .runExpirationHandler(notes, .id(1)))
        try d.handlerReturned(notes, 1, at: .t(18, 400))
        try d.handlerReturned(notes, 2, at: .t(19, 300))
        let effects = try d.tick(at: .t(20))
        #expect(effects.reports.first?.at == .t(20))
        #expect(d.state(notes) == killed)
    }

    @Test("The 1001st outstanding assertion ends the app with 0xbada5e47, listing the 1000 held")
    func tooManyAssertions() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        for _ in 1...1000 { try d.begin(notes, at: .t(1)) }
        #expect(d.state(notes) == .active)
        let effects = try d.begin(notes, at: .t(2))
        let report = try #require(effects.reports.first)
        let tooMany = AppLifecycleState.terminated(.watchdog(.tooManyAssertions))
        #expect(effects.withoutLogs == [.stateChanged(notes, from: .active, to: tooMany), .terminate(notes, report)])
        #expect(report.code == .tooManyAssertions)
        #expect(report.code?.namespace == "ASSERTIOND")
        #expect(report.leakedAssertions.map(\.id.rawValue) == Array(1...1000))
        #expect(report.explanation.contains("1001"))
    }

    @Test("The limit counts outstanding assertions, not every one ever begun")
    func limitCountsOutstanding() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        for _ in 1...1000 { try d.begin(notes, at: .t(1)) }
        try d.end(notes, 500, at: .t(2))
        #expect(try d.begin(notes, at: .t(3)) == .granted(.id(1001)))
    }
}
