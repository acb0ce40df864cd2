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
        // On a thread of its own: the child process is waited for, not the cooperative pool.
        let result = try await onThread {
            try runBgctl(
                ["daemon", "timeline", "--since", "400d", "-o", html, "--state-dir", state, "--json"],
                environment: ["HOME": state]
            )
        }
        .get()
        #expect(result.status == 0, "\(result.error)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        #expect(summary?["deviceMarkers"] as? Int == 2, "\(result.output)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("memory warning"))
        #expect(page.contains("memory normal"))
    }
}
