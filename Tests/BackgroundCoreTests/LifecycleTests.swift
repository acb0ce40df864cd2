import BackgroundCore
import Testing

@Suite("Lifecycle")
struct LifecycleTests {
    @Test("A foreground launch makes the app inactive")
    func foregroundLaunch() throws {
        var d = Driver()
        let effects = try d.send(.launch(notes, .foreground), at: .zero)
        #expect(effects == [.launch(notes, .user, .first), .stateChanged(notes, from: .notRunning, to: .inactive)])
        #expect(d.state(notes) == .inactive)
    }

    @Test("Activating an inactive app makes it active")
    func activate() throws {
        var d = Driver()
        try d.send(.launch(notes, .foreground), at: .zero)
        let effects = try d.send(.activate(notes), at: .t(1))
        #expect(effects == [.stateChanged(notes, from: .inactive, to: .active)])
        #expect(d.state(notes) == .active)
    }

    @Test("Deactivating an active app makes it inactive")
    func deactivate() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        let effects = try d.send(.deactivate(notes), at: .t(1))
        #expect(effects == [.stateChanged(notes, from: .active, to: .inactive)])
        #expect(d.state(notes) == .inactive)
    }

    @Test("Entering the background delivers applicationDidEnterBackground and arms its 5 s watchdog")
    func enterBackground() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        let effects = try d.leave(notes, at: .t(10))
        #expect(
            effects == [
                .stateChanged(notes, from: .inactive, to: .background),
                .deliverDidEnterBackground(notes),
                .scheduleWakeup(at: .t(15)),
            ]
        )
        #expect(d.state(notes) == .background)
    }

    @Test("When applicationDidEnterBackground returns and no assertion is held, iOS suspends the app")
    func suspendAfterDelegateReturns() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.leave(notes, at: .t(10))
        let effects = try d.send(.didEnterBackgroundReturned(notes), at: .t(11))
        #expect(
            effects == [
                .stateChanged(notes, from: .background, to: .suspended), .suspend(notes), .cancelWakeup,
            ]
        )
        #expect(d.state(notes) == .suspended)
    }

    @Test("Entering the foreground from the background makes the app inactive and disarms the delegate watchdog")
    func enterForegroundFromBackground() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.leave(notes, at: .t(10))
        let effects = try d.send(.enterForeground(notes), at: .t(12))
        #expect(effects == [.stateChanged(notes, from: .background, to: .inactive), .cancelWakeup])
        #expect(try d.tick(at: .t(60)) == [])
        #expect(d.state(notes) == .inactive)
    }

    @Test("Entering the foreground from suspended makes the app inactive")
    func enterForegroundFromSuspended() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.background(notes, at: .t(10))
        let effects = try d.send(.enterForeground(notes), at: .t(100))
        // The process is thawed (the same incarnation), then becomes inactive.
        #expect(effects == [.resume(notes, .first), .stateChanged(notes, from: .suspended, to: .inactive)])
        #expect(d.state(notes) == .inactive)
    }

    @Test("A suspended app resumed in the background runs there and can begin a background task")
    func resumeInBackground() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.background(notes, at: .t(10))
        let effects = try d.send(.resumeInBackground(notes), at: .t(100))
        #expect(
            Array(effects.prefix(2)) == [
                .resume(notes, .first), .stateChanged(notes, from: .suspended, to: .background),
            ]
        )
        #expect(!effects.contains(.suspend(notes)))
        #expect(d.state(notes) == .background)
        #expect(try d.begin(notes, at: .t(101)).reply == .granted(.id(1)))
    }

    @Test("A background launch starts the app in the background, where it can begin a background task")
    func backgroundLaunch() throws {
        var d = Driver()
        let effects = try d.send(.launch(notes, .background), at: .zero)
        #expect(
            Array(effects.prefix(2)) == [
                .launch(notes, .system, .first), .stateChanged(notes, from: .notRunning, to: .background),
            ]
        )
        #expect(!effects.contains(.suspend(notes)))
        #expect(d.state(notes) == .background)
        #expect(try d.begin(notes, at: .t(1)).reply == .granted(.id(1)))
    }

    @Test("The whole trip foreground, background, suspended, foreground reads as one timeline")
    func wholeTrip() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.background(notes, at: .t(10))
        try d.send(.enterForeground(notes), at: .t(20))
        try d.send(.activate(notes), at: .t(20))
        #expect(
            d.timeline == [
                TimedEffect(at: .zero, effect: .launch(notes, .user, .first)),
                TimedEffect(at: .zero, effect: .stateChanged(notes, from: .notRunning, to: .inactive)),
                TimedEffect(at: .zero, effect: .stateChanged(notes, from: .inactive, to: .active)),
                TimedEffect(at: .t(10), effect: .stateChanged(notes, from: .active, to: .inactive)),
                TimedEffect(at: .t(10), effect: .stateChanged(notes, from: .inactive, to: .background)),
                TimedEffect(at: .t(10), effect: .deliverDidEnterBackground(notes)),
                TimedEffect(at: .t(10), effect: .scheduleWakeup(at: .t(15))),
                TimedEffect(at: .t(10), effect: .stateChanged(notes, from: .background, to: .suspended)),
                TimedEffect(at: .t(10), effect: .suspend(notes)),
                TimedEffect(at: .t(10), effect: .cancelWakeup),
                TimedEffect(at: .t(20), effect: .resume(notes, .first)),
                TimedEffect(at: .t(20), effect: .stateChanged(notes, from: .suspended, to: .inactive)),
                TimedEffect(at: .t(20), effect: .stateChanged(notes, from: .inactive, to: .active)),
            ]
        )
    }

    @Test("An applicationDidEnterBackground that returns within 5 s keeps the app alive")
    func delegateReturnsInTime() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.leave(notes, at: .t(10))
        let effects = try d.send(.didEnterBackgroundReturned(notes), at: .t(14, 999))
        #expect(
            effects.withoutLogs == [
                .stateChanged(notes, from: .background, to: .suspended), .suspend(notes), .cancelWakeup,
            ]
        )
    }

    @Test("applicationDidEnterBackground not returning within 5 s ends the app with 0x8badf00d")
    func delegateTimeout() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.leave(notes, at: .t(10))
        let effects = try d.tick(at: .t(15))
        let report = try #require(effects.reports.first)
        let killed = AppLifecycleState.terminated(.watchdog(.watchdogTimeout))
        #expect(
            effects.withoutLogs == [
                .stateChanged(notes, from: .background, to: killed), .terminate(notes, report), .cancelWakeup,
            ]
        )
        #expect(report.code == .watchdogTimeout)
        #expect(report.at == .t(15))
        #expect(report.stateBefore == .background)
        #expect(report.explanation.contains("applicationDidEnterBackground"))
        #expect(effects.logs.map(\.level) == [.error])
        #expect(d.state(notes) == killed)
    }

    @Test("A delegate returning after the watchdog ended the app is ignored")
    func delegateReturnsTooLate() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.leave(notes, at: .t(10))
        try d.tick(at: .t(15))
        let effects = try d.send(.didEnterBackgroundReturned(notes), at: .t(16))
        #expect(effects.withoutLogs == [])
        #expect(d.state(notes) == .terminated(.watchdog(.watchdogTimeout)))
    }

    @Test("A user force quit terminates the app and its report lists every held assertion")
    func userForceQuit() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, "Upload", at: .t(1))
        try d.begin(notes, "Sync", handler: false, origin: Site.sync, at: .t(2))
        let held = d.system.assertions(of: notes)
        let effects = try d.send(.terminate(notes, .userForceQuit), at: .t(5))
        let expected = TerminationReport(
            incident: 1,
            app: notes,
            reason: .userForceQuit,
            explanation: "the user removed the app from the app switcher",
            at: .t(5),
            stateBefore: .active,
            permittedBackgroundDuration: .seconds(30),
            leakedAssertions: held.map(TerminationReport.LeakedAssertion.init),
            policyName: "iOS"
        )
        #expect(
            effects == [
                .stateChanged(notes, from: .active, to: .terminated(.userForceQuit)), .terminate(notes, expected),
            ]
        )
        #expect(expected.leakedAssertions.map(\.name) == ["Upload", "Sync"])
        #expect(d.state(notes) == .terminated(.userForceQuit))
        #expect(d.heldIDs(notes) == [])
    }

    @Test("After a force quit the system may not launch the app in the background until the user opens it")
    func forceQuitBlocksBackgroundLaunch() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.send(.terminate(notes, .userForceQuit), at: .t(1))
        let error = #expect(throws: BackgroundSystemError.self) {
            try d.send(.launch(notes, .background), at: .t(2))
        }
        #expect(error?.code == .illegalTransition)
        #expect(d.state(notes) == .terminated(.userForceQuit))
        #expect(
            try d.send(.launch(notes, .foreground), at: .t(3)).first == .launch(notes, .user, Incarnation(rawValue: 2))
        )
    }

    @Test(
        "A relaunched app starts with an empty ledger in a new incarnation; its identifiers go on from the last process's, so a stale end cannot end a new assertion"
    )
    func relaunchStartsFresh() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        #expect(d.system.incarnation(of: notes) == .first)
        try d.send(.terminate(notes, .userForceQuit), at: .t(2))
        try d.open(notes, at: .t(3))
        #expect(d.system.incarnation(of: notes) == Incarnation(rawValue: 2))
        #expect(d.system.assertions(of: notes).isEmpty)
        #expect(d.system.nextAssertionID(of: notes) == .id(2))
        #expect(try d.begin(notes, at: .t(4)) == .granted(.id(2)))
        // The ended process's identifier 1 ends nothing in this one.
        #expect(try d.end(notes, 1, at: .t(5)).logs.count == 1)
        #expect(d.system.assertions(of: notes).map(\.id) == [.id(2)])
    }
}
