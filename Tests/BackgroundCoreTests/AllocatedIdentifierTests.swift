import BackgroundCore
import BackgroundTestSupport
import Testing

/// No round trip for the common case: begins whose identifier the app's runtime allocated from
/// the pushed grant state (`Event.assertionBegun`), and the one grant rule on both sides.
@Suite("App-allocated assertion identifiers")
struct AllocatedIdentifierTests {
    static func begun(_ id: Int, _ name: String = "Upload") -> Event {
        .assertionBegun(notes, AssertionID(rawValue: id), name: name, origin: Site.upload, hasExpirationHandler: true)
    }

    static func running() throws -> BackgroundSystem {
        var system = BackgroundSystem(policy: .iOS)
        try system.handle(.launch(notes, .foreground), at: .zero)
        try system.handle(.activate(notes), at: .zero)
        return system
    }

    @Test("A begin with the pushed next identifier is granted as is, and allocation goes on from it")
    func granted() throws {
        var system = try Self.running()
        let state = system.grantState(of: notes, at: .t(1))
        #expect(state.nextAssertionID == AssertionID(rawValue: 1))
        #expect(state.incarnation == Incarnation(rawValue: 1))
        var effects: [Effect] = []
        #expect(try system.handle(Self.begun(1), at: .t(1), into: &effects) == .granted(AssertionID(rawValue: 1)))
        #expect(effects.isEmpty)
        // The app may skip identifiers (allocated for begins it denied itself is not a case, but
        // a gap is harmless); it may never go back.
        #expect(try system.handle(Self.begun(5), at: .t(2), into: &effects) == .granted(AssertionID(rawValue: 5)))
        #expect(system.nextAssertionID(of: notes) == AssertionID(rawValue: 6))
        #expect(system.assertions(of: notes).map(\.id.rawValue) == [1, 5])
        // An ordinary begin goes on after the app's identifiers.
        #expect(
            try system.handle(
                .beginAssertion(notes, name: "Sync", origin: Site.sync, hasExpirationHandler: false),
                at: .t(3),
                into: &effects
            )
                == .granted(AssertionID(rawValue: 6))
        )
    }

    @Test("An identifier already used, from an earlier process, or invalid is refused and nothing is recorded")
    func refused() throws {
        var system = try Self.running()
        _ = try system.handle(Self.begun(1), at: .t(1))
        for bad in [1, 0, -3, Int.max] {
            var effects: [Effect] = []
            let reply = try system.handle(Self.begun(bad, "Again"), at: .t(2), into: &effects)
            guard case .denied(let reason) = reply else {
                Issue.record("identifier \(bad): \(String(describing: reply))")
                continue
            }
            #expect(reason.contains("is not new"), "\(reason)")
            #expect(effects.contains { if case .log(let record) = $0 { record.level == .error } else { false } })
            #expect(!effects.contains { if case .assertionRevoked = $0 { true } else { false } })
        }
        #expect(system.assertions(of: notes).map(\.name) == ["Upload"])
        // A new process's identifiers go on from the last one's: an identifier of the ended
        // process is refused in the new one.
        try system.handle(.terminate(notes, .exited(status: 0)), at: .t(3))
        try system.handle(.launch(notes, .foreground), at: .t(4))
        #expect(system.grantState(of: notes, at: .t(4)).incarnation == Incarnation(rawValue: 2))
        #expect(system.grantState(of: notes, at: .t(4)).nextAssertionID == AssertionID(rawValue: 2))
        var ignored: [Effect] = []
        guard case .denied = try system.handle(Self.begun(1), at: .t(5), into: &ignored) else {
            Issue.record("an ended process's identifier was accepted")
            return
        }
    }

    @Test(
        "A begin the system would not grant on arrival is revoked: the identifier is used up, the handler is due, its end is quiet"
    )
    func revoked() throws {
        var system = try Self.running()
        try system.handle(.deactivate(notes), at: .t(1))
        try system.handle(.enterBackground(notes), at: .t(1))
        try system.handle(.didEnterBackgroundReturned(notes), at: .t(1))
        // The app saw "background, 30 s left" and granted itself #1; the system suspended the app
        // before the begin arrived (no assertion held, callbacks returned).
        #expect(system.state(of: notes) == .suspended)
        var effects: [Effect] = []
        let reply = try system.handle(Self.begun(1), at: .t(2), into: &effects)
        #expect(reply == .denied(reason: "the app is suspended"))
        #expect(
            effects.withoutLogs == [.assertionRevoked(notes, AssertionID(rawValue: 1), reason: "the app is suspended")]
        )
        #expect(system.nextAssertionID(of: notes) == AssertionID(rawValue: 2))
        #expect(system.assertions(of: notes).isEmpty)
        // The app ends it from its expiration handler, as for any expired assertion: no error.
        try system.handle(.enterForeground(notes), at: .t(3))
        #expect(try system.handle(.endAssertion(notes, AssertionID(rawValue: 1)), at: .t(4)).isEmpty)
        // A second end is an unknown identifier again (UIKit's message).
        let again = try system.handle(.endAssertion(notes, AssertionID(rawValue: 1)), at: .t(5))
        #expect(again.contains { if case .log(let record) = $0 { record.level == .error } else { false } })
    }

    @Test("The pushed state's verdict is the core's verdict at the same instant (seeded, 3000 steps)")
    func oneRuleOnBothSides() throws {
        var generator = SplitMix64(seed: 88)
        print("seed 88")
        var system = try Self.running()
        var now = Instant.zero
        var held: [AssertionID] = []
        for step in 0..<3000 {
            now += .milliseconds(Int64(generator.next() % 4000))
            let state = system.state(of: notes)
            // A deadline passed on the way to `now` can change the state first: such a step is
            // refused, and that is fine here.
            switch generator.next() % 6 {
            case 0 where state == .active: _ = try? system.handle(.deactivate(notes), at: now)
            case 0 where state == .inactive: _ = try? system.handle(.enterBackground(notes), at: now)
            case 1 where state == .background || state == .suspended:
                _ = try? system.handle(.enterForeground(notes), at: now)
            case 1 where state == .inactive: _ = try? system.handle(.activate(notes), at: now)
            case 2 where !held.isEmpty: try system.handle(.endAssertion(notes, held.removeFirst()), at: now)
            case 3 where !state.hasProcess: _ = try? system.handle(.launch(notes, .foreground), at: now)
            default:
                try system.handle(.tick, at: now)
                let pushed = system.grantState(of: notes, at: now)
                // A later instant with no deadline in between (a deadline that passes is a change
                // the system pushes; a begin decided before the push arrives may be revoked).
                var later = now + .milliseconds(Int64(generator.next() % 3000))
                if let deadline = system.nextDeadline, deadline <= later { later = now }
                let appSide = pushed.verdict(at: later, held: system.assertions(of: notes).count)
                // The core decides at `later` with no event in between: the same state.
                var copy = system
                var ignored: [Effect] = []
                let reply = try copy.handle(
                    .beginAssertion(notes, name: "probe", origin: Site.sync, hasExpirationHandler: false),
                    at: later,
                    into: &ignored
                )
                switch (appSide, reply) {
                case (.grant, .granted?), (.deny, .denied?), (.tooMany, nil): break
                default:
                    Issue.record("step \(step): app side \(appSide), core \(String(describing: reply)) in \(pushed)")
                }
                if case .grant = appSide, held.count < 5 {
                    let id = pushed.nextAssertionID
                    let begun = Event.assertionBegun(
                        notes,
                        id,
                        name: "w",
                        origin: Site.sync,
                        hasExpirationHandler: true
                    )
                    if case .granted = try system.handle(begun, at: now, into: &ignored) { held.append(id) }
                }
            }
            held.removeAll { !system.assertions(of: notes).map(\.id).contains($0) }
        }
    }
}
