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
        // Held by its open background wake: nothing in its name, no identifier taken.
        #expect(after.engine.answer(.assertions(Self.notes)).json.contains("\"assertions\":[]"))
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

    /// What a survivor that held the assertions 1 and 3 and the audio mode declares.
    static let heldDeclaration = AppDeclaration(
        lifecycleState: .background,
        launchFinished: true,
        registeredIdentifiers: [refresh],
        assertions: [
            DeclaredAssertion(
                id: AssertionID(rawValue: 1),
                name: "Upload",
                origin: CallSite(),
                hasExpirationHandler: true
            ),
            DeclaredAssertion(
                id: AssertionID(rawValue: 3),
                name: "Sync",
                origin: CallSite(),
                hasExpirationHandler: false
            ),
        ],
        modes: [.audio]
    )

    static func declare(
        _ declaration: AppDeclaration,
        to fixture: EngineFixture,
        peer: PeerIdentity? = nil
    ) -> RecordingLink {
        let link = RecordingLink()
        fixture.engine.connected(link)
        fixture.engine.received(
            .hello(ClientHello(role: .app(notes), declaration: declaration)),
            from: link,
            peer: peer
        )
        return link
    }

    @Test(
        "a running survivor declares its assertions and mode: kept under their identifiers, never frozen while the mode is held"
    )
    func survivorDeclarationApplied() throws {
        let clock = TestClock()
        let after = try EngineFixture(
            survivors: [AdoptedProcess(app: Self.notes, pid: 4242, isFrozen: false)],
            clock: clock,
            modes: [Self.notes: [.audio]]
        )
        let link = Self.declare(Self.heldDeclaration, to: after)
        guard case .welcome(let welcome)? = link.sent.withLock({ $0.first }) else {
            Issue.record("no welcome first: \(link.sent.withLock { $0 })")
            return
        }
        #expect(welcome.state == .background)
        #expect(welcome.nextAssertionID == AssertionID(rawValue: 4), "identifiers go on after the declared ones")
        let assertions = after.engine.answer(.assertions(Self.notes)).json
        #expect(assertions.contains("\"name\":\"Upload\"") && assertions.contains("\"name\":\"Sync\""))
        #expect(Self.row(after, Self.notes)["modes"].map { "\($0)".contains("audio") } == true)

        // Past the grace and the whole budget: the mode keeps it running, nothing is frozen.
        clock.advance(by: .seconds(60))
        after.engine.tick()
        #expect(Self.state(after, Self.notes) == "background")
        // Its old identifiers end its assertions.
        after.engine.received(.app(.oneWay(.endAssertion(Self.notes, AssertionID(rawValue: 1)))), from: link, peer: nil)
        after.engine.received(.app(.oneWay(.endAssertion(Self.notes, AssertionID(rawValue: 3)))), from: link, peer: nil)
        #expect(after.engine.answer(.assertions(Self.notes)).json.contains("\"assertions\":[]"))
        #expect(Self.state(after, Self.notes) == "background", "the mode is held")
        #expect(after.processes.calls.withLock { $0 }.isEmpty)
        // The mode ends: it settles, suspended and frozen, never killed.
        after.engine.received(.app(.oneWay(.endModeActivity(Self.notes, .audio))), from: link, peer: nil)
        #expect(Self.state(after, Self.notes) == "suspended")
        #expect(after.processes.calls.withLock { $0 } == ["freeze com.example.notes"])
        #expect(after.engine.answer(.reports).json.contains("\"reports\":[]"), "no termination report")
    }

    @Test("a survivor that was in the foreground declares it and is in the foreground again")
    func survivorForegroundDeclared() throws {
        let after = try EngineFixture(survivors: [AdoptedProcess(app: Self.notes, pid: 4242, isFrozen: false)])
        var declaration = Self.heldDeclaration
        declaration.lifecycleState = .active
        declaration.modes = []
        _ = Self.declare(declaration, to: after)
        #expect(Self.state(after, Self.notes) == "active")
        #expect(after.engine.answer(.assertions(Self.notes)).json.contains("\"name\":\"Upload\""))
    }

    @Test("a declaration for the adopted app from another process is refused, and the survivor is kept")
    func declarationFromAnotherProcessRefused() throws {
        let after = try EngineFixture(survivors: [AdoptedProcess(app: Self.notes, pid: 4242, isFrozen: false)])
        let impostor = PeerIdentity(pid: 4243, uid: getuid(), executable: "/usr/bin/com.example.notes")
        let link = Self.declare(Self.heldDeclaration, to: after, peer: impostor)
        guard case .refused(let refusal)? = link.sent.withLock({ $0.first }) else {
            Issue.record("not refused: \(link.sent.withLock { $0 })")
            return
        }
        #expect(refusal.code == .notTheApp)
        #expect(link.isClosed)
        #expect(after.engine.answer(.assertions(Self.notes)).json.contains("\"assertions\":[]"))
        // The adopted process itself is accepted.
        let own = Self.declare(
            Self.heldDeclaration,
            to: after,
            peer: PeerIdentity(pid: 4242, uid: getuid(), executable: "/usr/bin/com.example.notes")
        )
        #expect(!own.isClosed)
        #expect(after.engine.answer(.assertions(Self.notes)).json.contains("\"name\":\"Upload\""))
    }

    /// Issue 25, finding 9: the pid `SO_PEERCRED` gives names whoever has it when read; a
    /// process given the adopted one's pid after it ended must not pass for it. Where the kernel
    /// gives a pidfd's identity (`SO_PEERPIDFD`, pidfs), it decides.
    @Test("a declaration from the adopted pid but another process (another pidfs identity) is refused")
    func reusedPidRefused() throws {
        let adopted = AdoptedProcess(app: Self.notes, pid: 4242, isFrozen: false, processIdentity: 111)
        let after = try EngineFixture(survivors: [adopted])
        let reused = PeerIdentity(
            pid: 4242,
            uid: getuid(),
            executable: "/usr/bin/com.example.notes",
            processIdentity: 222
        )
        let link = Self.declare(Self.heldDeclaration, to: after, peer: reused)
        guard case .refused(let refusal)? = link.sent.withLock({ $0.first }) else {
            Issue.record("not refused: \(link.sent.withLock { $0 })")
            return
        }
        #expect(refusal.code == .notTheApp)
        let own = Self.declare(
            Self.heldDeclaration,
            to: after,
            peer: PeerIdentity(pid: 4242, uid: getuid(), executable: "/usr/bin/com.example.notes", processIdentity: 111)
        )
        #expect(!own.isClosed)
        #expect(after.engine.answer(.assertions(Self.notes)).json.contains("\"name\":\"Upload\""))
    }

    @Test("a frozen survivor thawed for its task declares what it holds once back")
    func frozenSurvivorDeclaresAfterThaw() throws {
        let store = try BackgroundStore.inMemory()
        let clock = TestClock()
        try Self.previousRun(store: store, clock: clock)
        let after = try EngineFixture(
            store: store,
            survivors: [AdoptedProcess(app: Self.notes, pid: 4242, isFrozen: true)],
            clock: clock
        )
        clock.advance(by: .seconds(61))
        after.engine.tick()
        var declaration = Self.heldDeclaration
        declaration.assertions = []
        declaration.modes = []
        let link = Self.declare(declaration, to: after)
        var runs: [TaskRun] = []
        for case .system(.pushed(let effects)) in link.sent.withLock({ $0 }) {
            for case .runTasks(_, let batch) in effects { runs += batch }
        }
        #expect(runs.map(\.request.identifier) == [Self.refresh], "the task it was thawed for still comes")
        for run in runs {
            after.engine.received(
                .app(.oneWay(.completeTask(Self.notes, run.id, success: true))),
                from: link,
                peer: nil
            )
        }
        #expect(Self.state(after, Self.notes) == "suspended")
        #expect(!link.isClosed)
    }

    @Test("a survivor of an app that is not installed any more is not carried on")
    func survivorOfUninstalledApp() throws {
        let after = try EngineFixture(survivors: [AdoptedProcess(app: "com.example.gone", pid: 4242, isFrozen: true)])
        #expect(after.engine.answer(.apps).json.contains("com.example.gone") == false)
        #expect(after.processes.calls.withLock { $0 }.isEmpty)
    }
}
