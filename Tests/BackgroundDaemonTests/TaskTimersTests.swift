import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import Foundation
import Testing

/// `bgctl daemon tasks` as `systemctl list-timers` shows timers: each pending request's next
/// possible run (a wall-clock time, how long until it, what it waits for), each running one's
/// start, and the last run with its result, in text and JSON. Hand-driven time, no I/O.
@Suite("backgroundd: tasks with their next and last runs (list-timers)")
struct TaskTimersTests {
    static let notes = EngineFixture.notes
    static let refresh = "com.example.notes.refresh"

    static func rows(_ reply: ControlReply) throws -> [[String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(reply.json.utf8)) as? [String: Any])
        return try #require(document["tasks"] as? [[String: Any]])
    }

    @Test("pending: the next run at earliestBeginDate, in 15m; running: its start; then the last run's result")
    func nextAndLastRun() throws {
        let fixture = try EngineFixture()
        let link = fixture.connect(Self.notes)
        fixture.send(.registerTaskHandler(Self.notes, identifier: Self.refresh), from: link)
        fixture.send(.finishLaunching(Self.notes), from: link)
        // The clock reads 1000 s; the wall clock's origin is 2026-01-01T00:00:00Z.
        let request = TaskRequest(identifier: Self.refresh, kind: .appRefresh, earliestBegin: .seconds(1900))
        fixture.send(.submitTaskRequest(Self.notes, request), from: link)

        let pending = fixture.engine.answer(.tasks(nil))
        let row = try #require(try Self.rows(pending).first)
        #expect(row["state"] as? String == "pending")
        let next = try #require(row["nextRun"] as? [String: Any])
        #expect(next["at"] as? String == "2026-01-01T00:31:40Z")
        #expect(next["inSeconds"] as? Double == 900)
        #expect(next["eligibleNow"] as? Bool == false)
        #expect((next["waitingFor"] as? [String])?.contains("earliestBeginDate") == true)
        #expect(row["lastRun"] is NSNull)
        let lines = pending.text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("NEXT") == true, "\(pending.text)")
        #expect(lines.count == 2 && lines[1].hasPrefix("2026-01-01T00:31:40Z  in 15m"), "\(pending.text)")

        fixture.clock.advance(by: .seconds(60))
        #expect(fixture.engine.answer(.simulateLaunch(identifier: Self.refresh, app: Self.notes)).outcome == .ok)
        let running = try #require(try Self.rows(fixture.engine.answer(.tasks(nil))).first)
        #expect(running["state"] as? String == "running")
        #expect(running["startedAt"] as? String == "2026-01-01T00:17:40Z")
        let run = try #require(running["run"] as? Int)

        fixture.clock.advance(by: .seconds(5))
        fixture.send(.completeTask(Self.notes, TaskRunID(rawValue: run), success: true), from: link)
        fixture.send(.submitTaskRequest(Self.notes, request), from: link)
        fixture.clock.advance(by: .seconds(30))
        let again = fixture.engine.answer(.tasks(nil))
        let resubmitted = try #require(try Self.rows(again).first)
        let last = try #require(resubmitted["lastRun"] as? [String: Any])
        #expect(last["outcome"] as? String == "succeeded")
        #expect(last["startedAt"] as? String == "2026-01-01T00:17:40Z")
        #expect(last["endedAt"] as? String == "2026-01-01T00:17:45Z")
        #expect(last["durationSeconds"] as? Double == 5)
        #expect(again.text.contains("2026-01-01T00:17:45Z  30s ago  succeeded  pending"), "\(again.text)")
    }

    @Test("nothing pending or running says so, and an app that is not installed is not found")
    func emptyAndUnknown() throws {
        let fixture = try EngineFixture()
        #expect(fixture.engine.answer(.tasks(nil)).text == "no pending or running tasks")
        #expect(try Self.rows(fixture.engine.answer(.tasks(nil))).isEmpty)
        #expect(fixture.engine.answer(.tasks("com.example.none")).outcome == .notFound)
    }
}
