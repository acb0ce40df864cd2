import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import Testing

/// `bgctl daemon force-quit` of an app that is not running sets the force-quit flag, as swiping
/// its card away does on iOS: a silent push then does not launch it, until the user opens it.
@Suite("backgroundd: force quit of a not-running app")
struct ForceQuitNotRunningTests {
    static let notes = EngineFixture.notes

    @Test("force-quit while not running: a silent push launches nothing and says force-quit; open clears it")
    func pushAfterForceQuit() throws {
        let fixture = try EngineFixture(modes: [Self.notes: [.remoteNotification]])
        let quit = fixture.engine.answer(.forceQuit(Self.notes))
        #expect(quit.outcome == .ok)

        let push = fixture.engine.answer(.push(Self.notes, payload: #"{"aps":{"content-available":1}}"#))
        #expect(push.outcome == .notFound, "\(push.text)")
        #expect(push.text.contains("force"), "\(push.text)")
        #expect(!fixture.processes.calls.withLock { $0 }.contains { $0.hasPrefix("launch \(Self.notes)") })

        _ = fixture.engine.answer(.open(Self.notes))
        _ = fixture.engine.answer(.home)
        let calls = fixture.processes.calls.withLock { $0 }
        #expect(calls.contains("launch \(Self.notes) user 1"), "\(calls)")
    }

    @Test("without the force quit the same push launches the app in the background")
    func pushLaunches() throws {
        let fixture = try EngineFixture(modes: [Self.notes: [.remoteNotification]])
        let push = fixture.engine.answer(.push(Self.notes, payload: #"{"aps":{"content-available":1}}"#))
        #expect(push.outcome == .ok, "\(push.text)")
        let calls = fixture.processes.calls.withLock { $0 }
        #expect(calls.contains { $0.hasPrefix("launch \(Self.notes) ") }, "\(calls)")
    }
}
