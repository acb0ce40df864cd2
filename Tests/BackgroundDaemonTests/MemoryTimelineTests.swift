import BackgroundCore
import BackgroundDaemon
import BackgroundTestSupport
import Foundation
import Testing

/// The memory pressure the daemon reports to the core is journaled, and `bgctl daemon timeline`
/// draws it in the device lane.
@Suite("backgroundd: memory pressure in the timeline's device lane")
struct MemoryTimelineTests {
    @Test("memory warning and normal reported by the daemon are device markers in bgctl daemon timeline")
    func memoryMarkers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = try directory.daemonState(manifests: [:])
        let journal = state + "/journal.jsonl"
        let clock = TestClock()
        let fixture = try EngineFixture(clock: clock, journalPath: journal)
        fixture.engine.deliver(.memoryPressure(.warning))
        clock.advance(by: .seconds(2))
        fixture.engine.deliver(.memoryPressure(.normal))

        let html = directory.path + "/day.html"
        let (result, summary) = try await daemonTimeline(state: state, html: html)
        #expect(result.status == 0, "\(result.error)")
        #expect(summary?["deviceMarkers"] as? Int == 2, "\(result.output)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("memory warning"))
        #expect(page.contains("memory normal"))
    }
}
