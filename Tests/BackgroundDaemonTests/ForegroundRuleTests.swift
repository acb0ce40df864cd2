import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import BackgroundTestSupport
import Foundation
import Synchronization
import Testing

@testable import BackgroundExecution

/// One app in the foreground at a time, whoever started it, and only the user brings an app
/// there: the daemon's engine in this process, with the apps' connections recorded, or with a
/// real `DaemonConnection` on a socket pair (the app's side as a launched process runs it).
@Suite("backgroundd: one foreground app, one activation")
struct ForegroundRuleTests {
    static let notes = EngineFixture.notes
    static let mail = EngineFixture.mail

    /// `bgctl daemon open mail`, and mail's process (which the daemon started) says hello on
    /// its inherited connection.
    static func openedByDaemon(_ fixture: EngineFixture) -> RecordingLink {
        _ = fixture.engine.answer(.open(mail))
        let link = RecordingLink()
        fixture.engine.attachInherited(link, app: mail, incarnation: Incarnation(rawValue: 1))
        fixture.engine.received(.hello(ClientHello(role: .app(mail))), from: link, peer: nil)
        return link
    }

    /// A process of `app` that connects on its own (the user started it), declaring `declaration`.
    static func userStarted(
        _ app: AppID,
        _ fixture: EngineFixture,
        declaring declaration: AppDeclaration? = nil
    )
        -> RecordingLink
    {
        let link = RecordingLink()
        fixture.engine.connected(link)
        fixture.engine.received(.hello(ClientHello(role: .app(app), declaration: declaration)), from: link, peer: nil)
        return link
    }

    /// The app's state as `bgctl daemon apps --json` reports it.
    static func state(_ app: AppID, _ fixture: EngineFixture) -> String? {
        let json = fixture.engine.answer(.apps).json
        let document = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let rows = document?["apps"] as? [[String: Any]] ?? []
        return rows.first { $0["app"] as? String == app.bundleIdentifier }?["state"] as? String
    }

    static func pushedEffects(_ link: RecordingLink) -> [Effect] {
        link.sent.withLock { sent in
            sent.flatMap { response -> [Effect] in
                guard case .system(.pushed(let effects)) = response else { return [] }
                return effects
            }
        }
    }

    static let declaredActive = AppDeclaration(
        lifecycleState: .active,
        launchFinished: true,
        registeredIdentifiers: [],
        assertions: []
    )

    @Test("the user starts an app while the daemon's opened app is active: that one resigns and its budget starts")
    func userStartedAppTakesTheForeground() throws {
        let fixture = try EngineFixture()
        let mailLink = Self.openedByDaemon(fixture)
        #expect(Self.state(Self.mail, fixture) == "active")
        // An assertion begun in the foreground: dormant until mail is in the background (R1.7).
        let begun = Event.assertionBegun(
            Self.mail,
            AssertionID(rawValue: 1),
            name: "Upload",
            origin: CallSite(),
            hasExpirationHandler: true
        )
        fixture.engine.received(.app(.oneWay(begun)), from: mailLink, peer: nil)
        _ = Self.userStarted(Self.notes, fixture)
        #expect(Self.state(Self.notes, fixture) == "active")
        #expect(Self.state(Self.mail, fixture) == "background", "two apps in the foreground")
        let resign: [Effect] = [
            .stateChanged(Self.mail, from: .active, to: .inactive),
            .stateChanged(Self.mail, from: .inactive, to: .background),
            .deliverDidEnterBackground(Self.mail),
        ]
        let pushed = Self.pushedEffects(mailLink).filter { resign.contains($0) }
        #expect(pushed == resign, "mail was not told it resigned: \(Self.pushedEffects(mailLink))")
        let grant = mailLink.sent.withLock { sent in
            sent.reversed().lazy.compactMap { response -> GrantState? in
                guard case .system(.state(let grant)) = response else { return nil }
                return grant
            }.first
        }
        #expect(grant?.budgetTicking == true, "mail's background budget did not start: \(String(describing: grant))")
    }

    @Test("a declaration saying active does not take the foreground from the app in it: taken over in the background")
    func declarationDoesNotTakeTheForeground() throws {
        let fixture = try EngineFixture()
        _ = Self.openedByDaemon(fixture)
        let notesLink = Self.userStarted(Self.notes, fixture, declaring: Self.declaredActive)
        #expect(!notesLink.isClosed)
        #expect(Self.state(Self.mail, fixture) == "active", "the declaration sent the app in the foreground away")
        let notes = Self.state(Self.notes, fixture)
        #expect(notes == "background" || notes == "suspended", "notes is \(String(describing: notes))")
    }

    @Test("a force-quit app's declaration saying active is refused: it stays out of the foreground")
    func forceQuitDeclarationRefused() throws {
        let fixture = try EngineFixture()
        #expect(fixture.engine.answer(.forceQuit(Self.notes)).outcome == .ok)
        _ = Self.openedByDaemon(fixture)
        let notesLink = Self.userStarted(Self.notes, fixture, declaring: Self.declaredActive)
        #expect(notesLink.refusal?.code == .notPermitted, "\(notesLink.sent.withLock { $0 })")
        #expect(notesLink.refusal?.message.contains("force-quit") == true)
        let notes = Self.state(Self.notes, fixture)
        #expect(notes != "active" && notes != "inactive", "notes is \(String(describing: notes))")
        #expect(Self.state(Self.mail, fixture) == "active")
    }

    @Test("an app the daemon opens gets applicationDidBecomeActive once, however main() and the pushes meet")
    @MainActor
    func becomesActiveOnce() async throws {
        let fixture = try EngineFixture()
        _ = fixture.engine.answer(.open(Self.notes))
        let link = try SocketPairLink(engine: fixture.engine, app: Self.notes, incarnation: Incarnation(rawValue: 1))
        defer { link.close(reason: "the test ended") }
        let connection = await link.appConnection(Self.notes)
        let delegate = ConformanceDelegate()  // records its lifecycle calls in `log`
        let application = UIApplication(connection: connection)
        application.delegate = delegate
        // What `main()` does before the main queue runs: the launch, from the welcome's state.
        ApplicationMain.deliverLaunch(application)
        // The pushes queued behind it (the launch's own word, then the way home) run as this
        // test waits; willResignActive comes after every push of the launch.
        _ = fixture.engine.answer(.home)
        let log = delegate.log
        let arrived = await waitUntil(timeout: .seconds(60)) { log.calls.contains("didEnterBackground") }
        #expect(arrived, "\(log.calls)")
        #expect(log.calls == ["didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground"])
        withExtendedLifetime((connection, application)) {}
    }
}

/// Lifecycle calls, in order, readable from any thread.
final class CallLog: Sendable {
    private let recorded = Mutex<[String]>([])
    var calls: [String] { recorded.withLock { $0 } }
    func record(_ call: String) { recorded.withLock { $0.append(call) } }
}
