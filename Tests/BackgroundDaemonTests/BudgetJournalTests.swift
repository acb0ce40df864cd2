import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import BackgroundTestSupport
import Foundation
import Testing

/// The daemon's journal reads each app's background time when it changes course, and
/// `bgctl daemon timeline` draws them as the budget lane.
@Suite("backgroundd: the budget lane of the timeline")
struct BudgetJournalTests {
    static let notes = EngineFixture.notes

    @Test("readings when the budget starts going down in the background and when the app leaves it")
    func readings() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = try directory.daemonState(manifests: [:])
        let journal = state + "/journal.jsonl"
        let clock = TestClock()
        let fixture = try EngineFixture(clock: clock, journalPath: journal)
        let link = fixture.connect(Self.notes)
        fixture.send(
            .beginAssertion(Self.notes, name: "Upload", origin: CallSite(), hasExpirationHandler: true),
            from: link
        )
        guard case .granted(let id)? = link.lastAnswer?.0 else {
            Issue.record("not granted: \(String(describing: link.lastAnswer?.0))")
            return
        }
        _ = fixture.engine.answer(.home)
        fixture.send(.didEnterBackgroundReturned(Self.notes), from: link)
        clock.advance(by: .seconds(10))
        fixture.send(.endAssertion(Self.notes, id), from: link)  // the last one: it is suspended

        let lines = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n")
        let readings = try lines.compactMap { try JSONDecoder().decode(JournalEntry.self, from: Data($0.utf8)).budget }
        #expect(readings.map(\.app) == [Self.notes, Self.notes])
        // 30 s going down from the home press; a suspended app has none (as the simulator draws it).
        #expect(readings.map(\.remainingSeconds) == [30, 0])
        #expect(readings.map(\.depleting) == [true, false])
        #expect(readings.allSatisfy { $0.limitSeconds == 30 })

        // bgctl daemon timeline draws them: two readings and the foreground's unlimited time.
        let html = directory.path + "/day.html"
        let (result, summary) = try await daemonTimeline(state: state, html: html)
        #expect(result.status == 0, "\(result.error)")
        // Unlimited at inactive, active and inactive again (the home press), and the 2 readings.
        #expect(summary?["budgetSamples"] as? Int == 5, "\(result.output)")
        #expect(try String(contentsOfFile: html, encoding: .utf8).contains("background time remaining"))
    }
}
