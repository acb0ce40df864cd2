import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import BackgroundStore
import Foundation
import Testing

/// The engine after the daemon's own restart carries on with the app processes the previous
/// run started (``AdoptedProcess``): a frozen one stays suspended and is resumed, not started
/// again, for its task; a running one gets a grace to connect again and is suspended after it,
/// never killed. Real processes: `RealRestartTests`.
@Suite("backgroundd carries on with the apps its previous run started")
struct RestartTests {
    static let notes = EngineFixture.notes
    static let refresh = "com.example.notes.refresh"

    static func row(_ fixture: EngineFixture, _ app: AppID) -> [String: Any] {
        let json = fixture.engine.answer(.apps).json
        let document = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let rows = document?["apps"] as? [[String: Any]] ?? []
        return rows.first { $0["app"] as? String == app.bundleIdentifier } ?? [:]
    }

    static func state(_ fixture: EngineFixture, _ app: AppID) -> String {
        row(fixture, app)["state"] as? String ?? "?"
    }

    /// The previous run: notes opened by the user, its handler registered, a processing request
    /// due in 60 s submitted, then sent to the background and suspended.
    static func previousRun(store: BackgroundStore, clock: TestClock) throws {
        let before = try EngineFixture(store: store, clock: clock)
        let link = before.connect(notes)
        before.send(.registerTaskHandler(notes, identifier: refresh), from: link)
        before.send(.finishLaunching(notes), from: link)
        let request = TaskRequest(identifier: refresh, kind: .processing, earliestBegin: clock.now + .seconds(60))
        before.send(.submitTaskRequest(notes, request), from: link)
        guard case .accepted? = link.lastAnswer?.0 else {
            Issue.record("the submit was not accepted: \(String(describing: link.lastAnswer?.0))")
            return
        }
    }

    @Test("a frozen survivor is suspended, not started again; its task resumes it and waits for it to connect again")
    func frozenSurvivorResumedForItsTask() throws {
        let store = try BackgroundStore.inMemory()
        let clock = TestClock()
        try Self.previousRun(store: store, clock: clock)
        let after = try EngineFixture(
            store: store,
            survivors: [AdoptedProcess(app: Self.notes, pid: 4242, isFrozen: true)],
            clock: clock
        )
        #expect(Self.state(after, Self.notes) == "suspended")
        #expect(after.processes.calls.withLock { $0 } == ["freeze com.example.notes"], "frozen again, never launched")

        clock.advance(by: .seconds(61))
        after.engine.tick()
        #expect(Self.state(after, Self.notes) == "background")
        #expect(after.processes.calls.withLock { $0 } == ["freeze com.example.notes", "thaw com.example.notes"])

        // The thawed process finds its connection gone and connects again: welcome, then its task.
        let link = after.connect(Self.notes)
        guard case .welcome(let welcome)? = link.sent.withLock({ $0.first }) else {
            Issue.record("no welcome first: \(link.sent.withLock { $0 })")
            return
        }
        #expect(welcome.state == .background)
        var pushed: [Effect] = []
        for case .system(.pushed(let effects)) in link.sent.withLock({ $0 }) { pushed += effects }
        var runs: [TaskRun] = []
        for case .runTasks(_, let batch) in pushed { runs += batch }
        #expect(runs.map(\.request.identifier) == [Self.refresh])

        // Its runtime registers and finishes launching again: answered as the first time, no fault.
        after.send(.registerTaskHandler(Self.notes, identifier: Self.refresh), from: link)
        #expect(link.lastAnswer?.0 == .registered(identifier: Self.refresh))
        after.send(.finishLaunching(Self.notes), from: link)
        #expect(!link.isClosed)
        for run in runs { after.send(.completeTask(Self.notes, run.id, success: true), from: link) }
        #expect(Self.state(after, Self.notes) == "suspended")
        #expect(after.processes.calls.withLock { $0 }.last == "freeze com.example.notes")
        #expect(!after.processes.calls.withLock { $0 }.contains { $0.hasPrefix("launch") || $0.hasPrefix("kill") })
    }

    @Test("a running survivor is held for the grace, then suspended, never killed")
    func runningSurvivorSuspendedAfterGrace() throws {
        let clock = TestClock()
        let after = try EngineFixture(
            survivors: [AdoptedProcess(app: Self.notes, pid: 4242, isFrozen: false)],
            clock: clock
        )
        #expect(Self.state(after, Self.notes) == "background")
        #expect(after.engine.answer(.assertions(Self.notes)).json.contains(DaemonEngine.restartGraceName))
        #expect(after.processes.calls.withLock { $0 }.isEmpty)

        clock.advance(by: .seconds(9))  // iOS's budget is 30 s: the grace is 10 s
        after.engine.tick()
        #expect(Self.state(after, Self.notes) == "background")
        clock.advance(by: .seconds(1))
        after.engine.tick()
        #expect(Self.state(after, Self.notes) == "suspended")
        #expect(after.processes.calls.withLock { $0 } == ["freeze com.example.notes"])
        #expect(after.engine.answer(.reports).json.contains("\"reports\":[]"), "no termination report")
    }

    @Test("a running survivor that connects again and re-declares its assertion keeps running after the grace")
    func survivorThatRedeclaresKeepsRunning() throws {
        let clock = TestClock()
        let after = try EngineFixture(
            survivors: [AdoptedProcess(app: Self.notes, pid: 4242, isFrozen: false)],
            clock: clock
        )
        let link = after.connect(Self.notes)
        after.send(
            .beginAssertion(Self.notes, name: "Upload", origin: CallSite(), hasExpirationHandler: true),
            from: link
        )
        guard case .granted? = link.lastAnswer?.0 else {
            Issue.record("not granted: \(String(describing: link.lastAnswer?.0))")
            return
        }
        clock.advance(by: .seconds(10))
        after.engine.tick()
        #expect(Self.state(after, Self.notes) == "background")
        let assertions = after.engine.answer(.assertions(Self.notes)).json
        #expect(assertions.contains("Upload"))
        #expect(!assertions.contains(DaemonEngine.restartGraceName))
        #expect(after.processes.calls.withLock { $0 }.isEmpty)
    }

    @Test("a survivor of an app that is not installed any more is not carried on")
    func survivorOfUninstalledApp() throws {
        let after = try EngineFixture(survivors: [AdoptedProcess(app: "com.example.gone", pid: 4242, isFrozen: true)])
        #expect(after.engine.answer(.apps).json.contains("com.example.gone") == false)
        #expect(after.processes.calls.withLock { $0 }.isEmpty)
    }
}
