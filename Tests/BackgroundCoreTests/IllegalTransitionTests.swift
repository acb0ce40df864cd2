import BackgroundCore
import Testing

/// A state to reach and an event that is not allowed there.
struct IllegalCase: Sendable, CustomTestStringConvertible {
    let setup: [Event]
    let event: Event
    let from: AppLifecycleState
    let name: String

    var testDescription: String { "\(name) from \(from)" }

    static let all: [IllegalCase] = [
        IllegalCase(setup: [], event: .activate(notes), from: .notRunning, name: "activate"),
        IllegalCase(setup: [], event: .enterBackground(notes), from: .notRunning, name: "enterBackground"),
        IllegalCase(setup: [], event: .enterForeground(notes), from: .notRunning, name: "enterForeground"),
        IllegalCase(setup: opened, event: .activate(notes), from: .active, name: "activate"),
        IllegalCase(setup: opened, event: .enterForeground(notes), from: .active, name: "enterForeground"),
        IllegalCase(setup: opened, event: .resumeInBackground(notes), from: .active, name: "resumeInBackground"),
        IllegalCase(
            setup: [.launch(notes, .foreground)],
            event: .deactivate(notes),
            from: .inactive,
            name: "deactivate"
        ),
        IllegalCase(setup: left, event: .deactivate(notes), from: .background, name: "deactivate"),
        IllegalCase(setup: left, event: .enterBackground(notes), from: .background, name: "enterBackground"),
        IllegalCase(setup: left, event: .resumeInBackground(notes), from: .background, name: "resumeInBackground"),
        IllegalCase(setup: suspended, event: .activate(notes), from: .suspended, name: "activate"),
        IllegalCase(setup: suspended, event: .launch(notes, .foreground), from: .suspended, name: "launch"),
    ]

    private static let opened: [Event] = [.launch(notes, .foreground), .activate(notes)]
    private static let left: [Event] = opened + [.deactivate(notes), .enterBackground(notes)]
    private static let suspended: [Event] = left + [.didEnterBackgroundReturned(notes)]
}

@Suite("Illegal transitions")
struct IllegalTransitionTests {
    /// Sends `event` to a driver in a known state and checks it is refused without any change.
    private func expectRefused(
        _ event: Event,
        in d: inout Driver,
        code: BackgroundSystemError.Code,
        name: String
    ) {
        let state = d.state(notes)
        let now = d.system.now
        let held = d.heldIDs(notes)
        let deadline = d.system.nextDeadline
        let error = #expect(throws: BackgroundSystemError.self) { try d.send(event, at: now + .seconds(1)) }
        #expect(error == BackgroundSystemError(code: code, app: notes, state: state, event: name))
        #expect(d.state(notes) == state)
        #expect(d.system.now == now)
        #expect(d.heldIDs(notes) == held)
        #expect(d.system.nextDeadline == deadline)
        #expect(d.system.checkInvariants() == [])
    }

    @Test("enterBackground from active is an illegal transition and changes nothing")
    func enterBackgroundFromActive() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        expectRefused(.enterBackground(notes), in: &d, code: .illegalTransition, name: "enterBackground")
    }

    @Test("activate from the background is an illegal transition and changes nothing")
    func activateFromBackground() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        try d.background(notes, at: .t(2))
        expectRefused(.activate(notes), in: &d, code: .illegalTransition, name: "activate")
    }

    @Test("Launching an app that is already running is an illegal transition and changes nothing")
    func launchWhileRunning() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        expectRefused(.launch(notes, .foreground), in: &d, code: .illegalTransition, name: "launch")
        expectRefused(.launch(notes, .background), in: &d, code: .illegalTransition, name: "launch")
    }

    @Test("Every other illegal transition throws illegalTransition and changes nothing", arguments: IllegalCase.all)
    func table(_ illegal: IllegalCase) throws {
        var d = Driver()
        for event in illegal.setup { try d.send(event, at: .zero) }
        #expect(d.state(notes) == illegal.from)
        expectRefused(illegal.event, in: &d, code: .illegalTransition, name: illegal.name)
    }

    @Test("Terminating an app that was never launched throws appNotRunning")
    func terminateNotRunning() {
        var d = Driver()
        expectRefused(.terminate(notes, .userForceQuit), in: &d, code: .appNotRunning, name: "terminate")
        #expect(d.system.knownApps == [])
    }

    @Test("Terminating an app that has already ended throws appNotRunning")
    func terminateTerminated() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.send(.terminate(notes, .userForceQuit), at: .t(1))
        expectRefused(.terminate(notes, .systemReclaimed), in: &d, code: .appNotRunning, name: "terminate")
    }

    @Test("Another app's overdue deadline does not run for a refused event, and runs first for an accepted one")
    func refusedWithAnotherAppsDeadlineOverdue() throws {
        // Notes holds an assertion in the background: its budget ends at T+40 (the watchdog).
        var d = try Driver.inBackground(handlers: [false])
        let deadline = d.system.nextDeadline
        #expect(throws: BackgroundSystemError.self) { try d.send(.activate(mail), at: .t(60)) }
        #expect(d.state(notes) == .background, "the overdue deadline did not run")
        #expect(d.heldIDs(notes) == [1])
        #expect(d.system.nextDeadline == deadline)
        #expect(d.system.checkInvariants() == [])
        let effects = try d.send(.launch(mail, .foreground), at: .t(60))
        #expect(d.state(notes) == .terminated(.watchdog(.watchdogTimeout)))
        #expect(d.state(mail) == .inactive)
        let firstForMail = try #require(
            effects.firstIndex { if case .stateChanged(mail, _, _) = $0 { true } else { false } }
        )
        let notesEnded = try #require(effects.firstIndex { if case .terminate(notes, _) = $0 { true } else { false } })
        #expect(notesEnded < firstForMail, "the overdue deadline's effects come first")
    }

    @Test("An event its app's own overdue deadline makes illegal is refused, and the deadline does not run")
    func refusedAfterOwnDeadline() throws {
        var d = try Driver.inBackground(handlers: [false])
        // At T+60 the watchdog has ended Notes (T+40): entering the foreground is illegal then.
        let error = #expect(throws: BackgroundSystemError.self) { try d.send(.enterForeground(notes), at: .t(60)) }
        #expect(error?.code == .illegalTransition)
        #expect(d.state(notes) == .background)
        #expect(d.heldIDs(notes) == [1])
        #expect(d.system.checkInvariants() == [])
    }

    @Test("A suspended app can be terminated: the system reclaims it")
    func terminateSuspended() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.background(notes, at: .t(1))
        let effects = try d.send(.terminate(notes, .systemReclaimed), at: .t(2))
        let report = try #require(effects.reports.first)
        #expect(
            effects == [
                .stateChanged(notes, from: .suspended, to: .terminated(.systemReclaimed)), .terminate(notes, report),
            ]
        )
        #expect(report.leakedAssertions == [])
    }
}
