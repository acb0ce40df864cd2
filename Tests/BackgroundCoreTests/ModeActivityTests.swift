import BackgroundCore
import Testing

@Suite("Background modes as activities: audio, location, voip, accessories, Bluetooth, push to talk (issue 11 §1)")
struct ModeActivityTests {
    /// Notes declaring `audio` and `location`, opened at T+0 with its launch finished.
    static func opened(modes: Set<BackgroundMode> = [.audio, .location]) throws -> Driver {
        var d = Driver()
        try d.send(.install(AppManifest(bundleIdentifier: notes, backgroundModes: modes)), at: .zero)
        try d.send(.launch(notes, .foreground), at: .zero)
        try d.send(.finishLaunching(notes), at: .zero)
        try d.send(.activate(notes), at: .zero)
        return d
    }

    @Test("A declared mode held in the background keeps the app running for hours, with no budget ticking")
    func declaredModeKeepsAppRunning() throws {
        var d = try Self.opened()
        try d.send(.beginModeActivity(notes, .audio), at: .t(5))
        #expect(d.lastReply == .modeHeld(.audio))
        try d.begin(notes, at: .t(6))  // an assertion too: its budget must not tick while audio plays
        try d.background(notes, at: .t(10))
        #expect(try d.tick(at: .t(3 * 3600)).reports.isEmpty)
        #expect(d.state(notes) == .background)
        #expect(d.remaining(notes, at: .t(3 * 3600)) == .seconds(30))
        #expect(d.system.modeKeepingAwake(notes) == ModeActivity(mode: .audio, since: .t(5)))
        #expect(d.system.modeKeepingAwake(notes)?.heldFor(at: .t(3 * 3600)) == .seconds(3 * 3600 - 5))
        #expect(d.system.checkInvariants().isEmpty)
    }

    @Test("When the mode ends the app is any background app: a full budget for its assertions, then suspension")
    func endingTheModeStartsTheBudget() throws {
        var d = try Self.opened()
        try d.send(.beginModeActivity(notes, .audio), at: .t(5))
        try d.begin(notes, at: .t(6))
        try d.background(notes, at: .t(10))
        let ended = try d.send(.endModeActivity(notes, .audio), at: .t(3600))
        #expect(ended.contains(.modeChanged(notes, .audio, held: false)))
        #expect(d.state(notes) == .background)
        #expect(d.remaining(notes, at: .t(3610)) == .seconds(20))
        try d.end(notes, 1, at: .t(3615))
        #expect(d.state(notes) == .suspended)
    }

    @Test("Ending the last mode with nothing else to do suspends the app at once")
    func endingTheModeSuspends() throws {
        var d = try Self.opened()
        try d.send(.beginModeActivity(notes, .location), at: .t(1))
        try d.send(.beginModeActivity(notes, .audio), at: .t(2))
        try d.background(notes, at: .t(10))
        #expect(d.system.modeActivities(of: notes).map(\.mode) == [.audio, .location])  // by name
        #expect(d.system.modeKeepingAwake(notes)?.mode == .location)  // held longest
        try d.send(.endModeActivity(notes, .location), at: .t(100))
        #expect(d.state(notes) == .background)  // audio still plays
        let effects = try d.send(.endModeActivity(notes, .audio), at: .t(200))
        #expect(effects.contains(.suspend(notes)))
        #expect(d.state(notes) == .suspended)
    }

    @Test(
        "Undeclared audio does not keep the app running: not held, a warning naming the mode, suspended in the background"
    )
    func undeclaredAudio() throws {
        var d = try Self.opened(modes: [.location])
        let effects = try d.send(.beginModeActivity(notes, .audio), at: .t(1))
        guard case .modeNotHeld(.audio, let reason) = d.lastReply else {
            Issue.record("expected modeNotHeld, got \(String(describing: d.lastReply))")
            return
        }
        #expect(reason.contains("UIBackgroundModes does not declare 'audio'"))
        #expect(effects.logs.contains { $0.level == .warning && $0.message.contains("'audio'") })
        #expect(d.system.modeActivities(of: notes).isEmpty)
        try d.background(notes, at: .t(10))
        #expect(d.state(notes) == .suspended)
    }

    @Test("Undeclared location in the background is refused, as iOS refuses background location updates")
    func undeclaredLocationRefused() throws {
        var d = try Self.opened(modes: [.audio])
        try d.begin(notes, at: .t(1))
        try d.background(notes, at: .t(10))
        try d.send(.beginModeActivity(notes, .location), at: .t(12))
        guard case .modeNotHeld(.location, let reason) = d.lastReply else {
            Issue.record("expected modeNotHeld, got \(String(describing: d.lastReply))")
            return
        }
        #expect(reason.contains("background location updates are refused"))
        #expect(d.remaining(notes, at: .t(12)) == .seconds(28))  // the budget still ticks
    }

    @Test("Modes that are not activities, and apps that are not running, hold nothing")
    func notActivities() throws {
        var d = try Self.opened(modes: [.audio, .fetch])
        try d.send(.beginModeActivity(notes, .fetch), at: .t(1))
        #expect(d.lastReply.map { if case .modeNotHeld(.fetch, _) = $0 { true } else { false } } == true)
        try d.send(.beginModeActivity(news, .audio), at: .t(1))
        #expect(d.lastReply.map { if case .modeNotHeld(.audio, _) = $0 { true } else { false } } == true)
    }

    @Test("Beginning a held mode again changes nothing; a process that ends drops its modes")
    func idempotentAndDroppedAtTermination() throws {
        var d = try Self.opened()
        try d.send(.beginModeActivity(notes, .audio), at: .t(1))
        let again = try d.send(.beginModeActivity(notes, .audio), at: .t(2))
        #expect(d.lastReply == .modeHeld(.audio))
        #expect(again.withoutLogs.isEmpty)
        #expect(d.system.modeActivities(of: notes) == [ModeActivity(mode: .audio, since: .t(1))])
        try d.background(notes, at: .t(10))
        let ended = try d.send(.terminate(notes, .userForceQuit), at: .t(20))
        #expect(ended.contains(.modeChanged(notes, .audio, held: false)))
        #expect(d.system.modeActivities(of: notes).isEmpty)
        #expect(d.system.checkInvariants().isEmpty)
    }

    @Test("Every activity mode can be held when declared", arguments: BackgroundMode.activityModes)
    func everyActivityMode(_ mode: BackgroundMode) throws {
        var d = try Self.opened(modes: [mode])
        try d.send(.beginModeActivity(notes, mode), at: .t(1))
        #expect(d.lastReply == .modeHeld(mode))
        try d.background(notes, at: .t(10))
        try d.tick(at: .t(7200))
        #expect(d.state(notes) == .background)
    }
}
