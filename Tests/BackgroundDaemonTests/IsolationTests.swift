import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import Testing

/// One app can never see or act on another app's assertions, tasks or state through the daemon:
/// every attempt is refused and the connection closed, and the other app is untouched.
@Suite("Isolation between apps")
struct IsolationTests {
    let fixture: EngineFixture
    let notes: RecordingLink
    let mail: RecordingLink

    init() throws {
        fixture = try EngineFixture()
        notes = fixture.connect(EngineFixture.notes)
        mail = fixture.connect(EngineFixture.mail)
    }

    /// Mail registers its refresh handler, finishes launching and submits a refresh request.
    private func submitMailRefresh() {
        fixture.send(.registerTaskHandler(EngineFixture.mail, identifier: "com.example.mail.refresh"), from: mail)
        fixture.send(.finishLaunching(EngineFixture.mail), from: mail)
        let request = TaskRequest(
            identifier: "com.example.mail.refresh",
            kind: .appRefresh,
            earliestBegin: .seconds(100_000)
        )
        fixture.send(.submitTaskRequest(EngineFixture.mail, request), from: mail)
    }

    private func beginMailAssertion() throws -> AssertionID {
        fixture.send(
            .beginAssertion(EngineFixture.mail, name: "Sync", origin: CallSite(), hasExpirationHandler: true),
            from: mail
        )
        let answer = try #require(mail.lastAnswer)
        guard case .granted(let id)? = answer.0 else {
            Issue.record("mail's begin was not granted: \(String(describing: answer.0))")
            return AssertionID(rawValue: 0)
        }
        return id
    }

    @Test("an app cannot end another app's assertion")
    func endAnotherAppsAssertion() throws {
        let id = try beginMailAssertion()
        fixture.send(.endAssertion(EngineFixture.mail, id), from: notes)
        #expect(notes.refusal?.code == .notPermitted)
        #expect(notes.isClosed)
        #expect(fixture.engine.answer(.assertions(EngineFixture.mail)).json.contains("\"name\":\"Sync\""))
        #expect(!mail.isClosed)
    }

    @Test("an app cannot cancel another app's request")
    func cancelAnotherAppsRequest() throws {
        submitMailRefresh()
        guard case .accepted? = mail.lastAnswer?.0 else {
            Issue.record("mail's submit was not accepted: \(String(describing: mail.lastAnswer?.0))")
            return
        }
        fixture.send(.cancelTaskRequest(EngineFixture.mail, identifier: "com.example.mail.refresh"), from: notes)
        fixture.send(.cancelAllTaskRequests(EngineFixture.mail), from: notes)
        #expect(notes.refusal?.code == .notPermitted)
        let tasks = fixture.engine.answer(.tasks(EngineFixture.mail))
        #expect(tasks.json.contains("com.example.mail.refresh"))
    }

    @Test("an app cannot simulate another app's launch or expiration")
    func simulateAnotherAppsLaunch() throws {
        submitMailRefresh()
        fixture.send(.simulateLaunch(EngineFixture.mail, identifier: "com.example.mail.refresh"), from: notes)
        #expect(notes.refusal?.code == .notPermitted)
        let tasks = fixture.engine.answer(.tasks(EngineFixture.mail))
        #expect(tasks.json.contains("\"state\":\"pending\""))
        let other = fixture.connect(EngineFixture.notes)
        fixture.send(.simulateExpiration(EngineFixture.mail, identifier: "com.example.mail.refresh"), from: other)
        #expect(other.refusal?.code == .notPermitted)
    }

    @Test("an app cannot read another app's status: control requests are refused to apps")
    func readAnotherAppsStatus() {
        fixture.engine.received(.control(.apps), from: notes, peer: nil)
        #expect(notes.refusal?.code == .notPermitted)
        let sawApps = notes.sent.withLock { sent in
            sent.contains { if case .control = $0 { return true } else { return false } }
        }
        #expect(!sawApps)
    }

    @Test("an app cannot report system events (lifecycle, device, installs, another app's termination)")
    func systemEvents() {
        let attempts: [Event] = [
            .terminate(EngineFixture.mail, .userForceQuit),
            .enterForeground(EngineFixture.notes),
            .setDevice(DeviceConditions()),
            .install(AppManifest(bundleIdentifier: "com.example.evil")),
            .setBackgroundRefresh(.systemSwitch(false)),
        ]
        for event in attempts {
            let link = fixture.connect(EngineFixture.notes)
            fixture.send(event, from: link)
            #expect(link.refusal?.code == .notPermitted, "\(event)")
        }
        #expect(fixture.engine.answer(.apps).json.contains("\"state\":\"active\""))
        #expect(!mail.isClosed)
    }

    @Test("an app's pushed effects go to its own connection only")
    func pushesStayWithTheirApp() throws {
        fixture.engine.received(.control(.home), from: fixture.control(), peer: nil)
        let mailPushes = mail.sent.withLock { sent in
            sent.compactMap { response -> [Effect]? in
                if case .system(.pushed(let effects)) = response { return effects }
                return nil
            }.flatMap { $0 }
        }
        #expect(!mailPushes.isEmpty)
        #expect(mailPushes.allSatisfy { "\($0)".contains("com.example.mail") })
    }

    @Test("a hello for an app that is not installed is refused")
    func notInstalled() {
        let link = fixture.connect("com.example.unknown")
        #expect(link.refusal?.code == .notInstalled)
        #expect(link.isClosed)
    }

    @Test("messages before the hello, and another protocol version, are refused")
    func helloRules() {
        let early = RecordingLink()
        fixture.engine.connected(early)
        fixture.engine.received(.control(.status), from: early, peer: nil)
        #expect(early.refusal?.code == .protocolViolation)
        let old = RecordingLink()
        fixture.engine.connected(old)
        fixture.engine.received(.hello(ClientHello(role: .control, protocolVersion: 99)), from: old, peer: nil)
        #expect(old.refusal?.code == .unsupportedVersion)
    }
}
