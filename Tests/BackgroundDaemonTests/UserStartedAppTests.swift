import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import Foundation
import Testing

/// Issue 22, Deliver 4: an app the user started (it connected on the daemon's socket) is frozen
/// like one the daemon started, or the daemon says it is not, and why; never `suspended` for a
/// process that runs on. The engine in this process, its process control recorded.
@Suite("backgroundd: an app the user started is frozen like one the daemon started, or says why not")
struct UserStartedAppTests {
    static let notes = EngineFixture.notes

    /// Notes started by the user, sent home; its didEnterBackground returned with nothing held.
    static func startedAndSentHome(_ fixture: EngineFixture) -> RecordingLink {
        let link = fixture.connect(notes)
        fixture.send(.finishLaunching(notes), from: link)
        fixture.engine.received(.control(.home), from: fixture.control(), peer: nil)
        fixture.send(.didEnterBackgroundReturned(notes), from: link)
        return link
    }

    static func row(_ app: AppID, _ fixture: EngineFixture) throws -> [String: Any] {
        let json = fixture.engine.answer(.apps).json
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let rows = try #require(document["apps"] as? [[String: Any]])
        return try #require(rows.first { $0["app"] as? String == app.bundleIdentifier })
    }

    @Test("taken under control at its hello: its suspension freezes it; its connection's close lets it go, unkilled")
    func admittedAndReleased() throws {
        let fixture = try EngineFixture()
        let link = Self.startedAndSentHome(fixture)
        #expect(fixture.processes.admissions.withLock { $0 } == ["admit com.example.notes"])
        let row = try Self.row(Self.notes, fixture)
        #expect(row["state"] as? String == "suspended")
        #expect(row["whyNotFrozen"] is NSNull)
        #expect(fixture.processes.calls.withLock { $0 }.contains("freeze com.example.notes"))

        fixture.engine.disconnected(link)
        #expect(
            fixture.processes.admissions.withLock { $0 } == ["admit com.example.notes", "release com.example.notes"]
        )
        #expect(!fixture.processes.calls.withLock { $0 }.contains("kill com.example.notes"), "it exited by itself")
    }

    @Test("ended by the system (a force quit): killed, as a process the daemon started is")
    func killedWhenTheSystemEndsIt() throws {
        let fixture = try EngineFixture()
        let link = Self.startedAndSentHome(fixture)
        #expect(fixture.engine.answer(.forceQuit(Self.notes)).outcome == .ok)
        #expect(fixture.processes.calls.withLock { $0 }.contains("kill com.example.notes"))
        #expect(link.isClosed)
        #expect(!fixture.processes.admissions.withLock { $0 }.contains("release com.example.notes"))
    }

    @Test("one the process control cannot freeze is reported not-frozen, never suspended, and status says why")
    func notFrozenIsSaid() throws {
        let fixture = try EngineFixture()
        let reason = "it does not lead its own process group (group 7)"
        fixture.processes.admission.withLock { $0 = reason }
        let link = Self.startedAndSentHome(fixture)
        let row = try Self.row(Self.notes, fixture)
        #expect(row["state"] as? String == "not-frozen")
        #expect(row["whyNotFrozen"] as? String == reason)
        let apps = fixture.engine.answer(.apps).text
        #expect(apps.contains("com.example.notes  not-frozen"), "\(apps)")
        #expect(apps.contains("(suspended by the system, but not frozen: \(reason))"), "\(apps)")
        let status = fixture.engine.answer(.status)
        #expect(status.text.contains("not frozen when suspended: com.example.notes: \(reason)"), "\(status.text)")
        #expect(status.json.contains(#""notFrozen":[{"#))

        // Its process gone, nothing is left to say.
        fixture.engine.disconnected(link)
        #expect(!fixture.engine.answer(.status).text.contains("not frozen"))
        #expect(try Self.row(Self.notes, fixture)["whyNotFrozen"] is NSNull)
    }

    @Test("the mail app the daemon launches is not admitted: its process is the daemon's already")
    func launchedAppIsNotAdmitted() throws {
        let fixture = try EngineFixture()
        _ = ForegroundRuleTests.openedByDaemon(fixture)
        #expect(fixture.processes.admissions.withLock { $0 }.isEmpty)
        #expect(try Self.row(EngineFixture.mail, fixture)["whyNotFrozen"] is NSNull)
    }
}
