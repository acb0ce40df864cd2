import BackgroundCore
import BackgroundTestSupport
import Testing

@Suite("Foreground fast path")
struct ForegroundFastPathTests {
    /// Replays the same seeded begins and ends through `handle` and through the fast entry
    /// points, in the foreground, and compares what each system ends up holding.
    @Test("beginAssertionInForeground and endAssertionInForeground give exactly handle's outcomes (seed 7)")
    func sameOutcomes() throws {
        var generator = SplitMix64(seed: 7)
        var slow = BackgroundSystem(policy: .iOS)
        try slow.handle(.launch(notes, .foreground), at: .zero)
        try slow.handle(.activate(notes), at: .zero)
        var fast = slow
        var now = Instant.zero
        for step in 0..<900 {  // fewer begins than the 1000-assertion limit: the fast path applies throughout
            now += .milliseconds(Int64(generator.next() % 50))
            if generator.next() % 3 == 0 {
                let id = AssertionID(rawValue: Int(generator.next() % 700))  // some unknown, some ended
                let slowEffects = try slow.handle(.endAssertion(notes, id), at: now)
                let ended = fast.endAssertionInForeground(notes, id, at: now)
                #expect(ended == slowEffects.isEmpty, "step \(step): end \(id)")
            } else {
                let name = "task \(step)"
                var slowEffects: [Effect] = []
                let reply = try slow.handle(
                    .beginAssertion(notes, name: name, origin: Site.upload, hasExpirationHandler: true),
                    at: now,
                    into: &slowEffects
                )
                let granted = fast.beginAssertionInForeground(
                    notes,
                    name: name,
                    origin: Site.upload,
                    hasExpirationHandler: true,
                    at: now
                )
                #expect(slowEffects.isEmpty, "step \(step)")
                #expect(reply == granted.map { .granted($0) }, "step \(step)")
            }
        }
        #expect(slow.assertions(of: notes) == fast.assertions(of: notes))
        #expect(!fast.assertions(of: notes).isEmpty)
        #expect(fast.checkInvariants().isEmpty)
    }

    @Test("The fast path declines outside the foreground, so the full rules apply there")
    func declinesInBackground() throws {
        var system = BackgroundSystem(policy: .iOS)
        try system.handle(.launch(notes, .foreground), at: .zero)
        try system.handle(.activate(notes), at: .zero)
        let granted = system.beginAssertionInForeground(
            notes,
            name: "a",
            origin: Site.upload,
            hasExpirationHandler: false,
            at: .zero
        )
        let id = try #require(granted)
        try system.handle(.deactivate(notes), at: .seconds(1))
        try system.handle(.enterBackground(notes), at: .seconds(1))
        #expect(
            system.beginAssertionInForeground(
                notes,
                name: "b",
                origin: Site.upload,
                hasExpirationHandler: false,
                at: .seconds(2)
            ) == nil
        )
        #expect(system.endAssertionInForeground(notes, id, at: .seconds(2)) == nil)
        #expect(
            system.beginAssertionInForeground(
                mail,
                name: "c",
                origin: Site.upload,
                hasExpirationHandler: false,
                at: .seconds(2)
            ) == nil
        )
    }
}
