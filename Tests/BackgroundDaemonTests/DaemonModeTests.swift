import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import Foundation
import Testing

/// Issue 11 through the daemon: `bgctl daemon status`, `apps` and `why` say which mode keeps an
/// app awake and for how long, the freezer leaves an app holding a mode alone, and
/// `bgctl daemon push` (the local push agent's socket) resumes or launches an app for a silent push.
@Suite("backgroundd: background modes and silent pushes")
struct DaemonModeTests {
    static let notes = EngineFixture.notes
    static let mail = EngineFixture.mail

    /// Notes declares audio and remote-notification; mail neither.
    static func fixture() throws -> EngineFixture {
        try EngineFixture(modes: [notes: [.audio, .remoteNotification]])
    }

    /// Notes connected, in the foreground, sent home; its didEnterBackground returned.
    static func backgrounded(_ fixture: EngineFixture, holding mode: BackgroundMode?) -> RecordingLink {
        let link = fixture.connect(notes)
        fixture.send(.finishLaunching(notes), from: link)
        if let mode { fixture.send(.beginModeActivity(notes, mode), from: link) }
        fixture.engine.received(.control(.home), from: fixture.control(), peer: nil)
        fixture.send(.didEnterBackgroundReturned(notes), from: link)
        return link
    }

    static func document(_ reply: ControlReply) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(reply.json.utf8)) as? [String: Any])
    }

    @Test("an app holding 'audio' is not frozen; status and apps say the mode and how long, in text and JSON")
    func statusSaysTheMode() throws {
        let fixture = try Self.fixture()
        _ = Self.backgrounded(fixture, holding: .audio)
        fixture.clock.advance(by: .seconds(725))
        fixture.engine.tick()
        #expect(!fixture.processes.calls.withLock { $0 }.contains("freeze \(Self.notes)"))

        let status = fixture.engine.answer(.status)
        #expect(status.text.contains("com.example.notes: kept running in the background by 'audio' for 12m 5s"))
        let awake = try #require(try Self.document(status)["keptAwake"] as? [[String: Any]])
        #expect(awake.first?["app"] as? String == "com.example.notes")
        #expect(awake.first?["mode"] as? String == "audio")
        #expect(awake.first?["heldSeconds"] as? Double == 725)

        let apps = fixture.engine.answer(.apps)
        #expect(apps.text.contains("modes audio 12m 5s"))
        #expect(apps.json.contains("\"mode\":\"audio\""))
    }

    @Test("without a mode the same app is frozen, and status names no mode")
    func withoutAModeItIsFrozen() throws {
        let fixture = try Self.fixture()
        _ = Self.backgrounded(fixture, holding: nil)
        #expect(fixture.processes.calls.withLock { $0 }.contains("freeze \(Self.notes)"))
        #expect(!fixture.engine.answer(.status).text.contains("kept running"))
    }

    @Test("why on a pending request of an app kept awake starts with the mode")
    func whySaysTheMode() throws {
        let fixture = try Self.fixture()
        let link = fixture.connect(Self.notes)
        fixture.send(.registerTaskHandler(Self.notes, identifier: "com.example.notes.refresh"), from: link)
        fixture.send(.finishLaunching(Self.notes), from: link)
        let request = TaskRequest(
            identifier: "com.example.notes.refresh",
            kind: .appRefresh,
            earliestBegin: .seconds(90_000)
        )
        fixture.send(.submitTaskRequest(Self.notes, request), from: link)
        fixture.send(.beginModeActivity(Self.notes, .audio), from: link)
        fixture.engine.received(.control(.home), from: fixture.control(), peer: nil)
        fixture.send(.didEnterBackgroundReturned(Self.notes), from: link)
        fixture.clock.advance(by: .seconds(60))
        let why = fixture.engine.answer(.why(identifier: "com.example.notes.refresh", app: Self.notes))
        #expect(why.text.hasPrefix("com.example.notes: kept running in the background by 'audio' for 1m\n"))
        let awake = try #require(try Self.document(why)["keptAwakeBy"] as? [String: Any])
        #expect(awake["mode"] as? String == "audio")
    }

    @Test("push launches a not-running app in the background; the answer says launching")
    func pushLaunches() throws {
        let fixture = try Self.fixture()
        let reply = fixture.engine.answer(.push(Self.notes, payload: #"{"aps":{"content-available":1}}"#))
        #expect(reply.outcome == .ok)
        #expect(reply.text.contains("launching the app in the background"))
        #expect(try Self.document(reply)["push"] as? String == "launching")
        #expect(fixture.processes.calls.withLock { $0 }.contains { $0.hasPrefix("launch com.example.notes") })
    }

    @Test("push resumes a frozen app and delivers; refusals and bad payloads are answered, nothing launched")
    func pushResumesAndRefuses() throws {
        let fixture = try Self.fixture()
        _ = Self.backgrounded(fixture, holding: nil)
        let delivered = fixture.engine.answer(.push(Self.notes, payload: "{}"))
        #expect(delivered.text.contains("delivered"))
        #expect(try Self.document(delivered)["silentPushesRemaining"] as? Int == 2)
        #expect(fixture.processes.calls.withLock { $0 }.contains("thaw \(Self.notes)"))

        let undeclared = fixture.engine.answer(.push(Self.mail, payload: "{}"))
        #expect(undeclared.outcome == .notFound)
        #expect(undeclared.text.contains("does not declare 'remote-notification'"))
        #expect(fixture.engine.answer(.push(Self.notes, payload: "[]")).outcome == .invalid)
        #expect(fixture.engine.answer(.push("com.example.none", payload: "{}")).outcome == .notFound)
        #expect(!fixture.processes.calls.withLock { $0 }.contains { $0.hasPrefix("launch com.example.mail") })
    }

    @Test("no push launches a force-quit app")
    func forceQuit() throws {
        let fixture = try Self.fixture()
        _ = fixture.connect(Self.notes)
        _ = fixture.engine.answer(.forceQuit(Self.notes))
        let reply = fixture.engine.answer(.push(Self.notes, payload: "{}"))
        #expect(reply.outcome == .notFound)
        #expect(reply.text.contains("force-quit"))
        #expect(try Self.document(reply)["push"] as? String == "refused")
        let launches = fixture.processes.calls.withLock { $0 }.filter { $0.hasPrefix("launch com.example.notes") }
        #expect(launches.isEmpty)
    }
}
