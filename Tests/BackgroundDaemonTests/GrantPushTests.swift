import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import Testing

/// The daemon's side of "no round trip for the common case": the welcome carries the grant
/// state, a change the app decides on is pushed before anything else about it, one-way events
/// are not answered, and a process that declares what it holds is taken over.
@Suite("The daemon's grant pushes and one-way events")
struct GrantPushTests {
    let fixture: EngineFixture
    let app = EngineFixture.notes

    init() throws {
        fixture = try EngineFixture()
    }

    /// A connection of the app's own process, as an app the user started says hello.
    private func connected(declaring declaration: AppDeclaration? = nil) -> RecordingLink {
        let link = RecordingLink()
        fixture.engine.connected(link)
        fixture.engine.received(.hello(ClientHello(role: .app(app), declaration: declaration)), from: link, peer: nil)
        return link
    }

    private func oneWay(_ event: Event, from link: RecordingLink) {
        fixture.engine.received(.app(.oneWay(event)), from: link, peer: nil)
    }

    @Test("the welcome carries the app's grant state, its refresh status and its next identifier")
    func welcomeCarriesGrant() throws {
        let link = connected()
        guard case .welcome(let welcome)? = link.sent.withLock({ $0.first }) else {
            Issue.record("no welcome: \(link.sent.withLock { $0 })")
            return
        }
        let grant = try #require(welcome.grant)
        #expect(grant.lifecycleState == .active)
        #expect(grant.nextAssertionID == welcome.nextAssertionID)
        #expect(grant.incarnation == welcome.incarnation)
        #expect(welcome.refreshStatus == .available)
    }

    @Test("begins and ends in the foreground are sent one way: nothing is answered or pushed")
    func foregroundBeginEndIsSilent() {
        let link = connected()
        let before = link.sent.withLock { $0.count }
        for id in 1...5 {
            let assertion = AssertionID(rawValue: id)
            oneWay(
                .assertionBegun(app, assertion, name: "Upload", origin: CallSite(), hasExpirationHandler: true),
                from: link
            )
            oneWay(.endAssertion(app, assertion), from: link)
        }
        #expect(link.sent.withLock { $0.count } == before, "\(link.sent.withLock { $0.dropFirst(before) })")
        #expect(fixture.engine.answer(.assertions(app)).text == "no assertions held")
    }

    @Test("a request is still answered; a one-way event's effects for the app are pushed")
    func requestAnsweredOneWayPushed() {
        let link = connected()
        fixture.engine.received(
            .app(.event(.registerTaskHandler(app, identifier: "com.example.notes.refresh"))),
            from: link,
            peer: nil
        )
        guard case .registered? = link.lastAnswer?.0 else {
            Issue.record("register was not answered: \(String(describing: link.last))")
            return
        }
        // Suspended while a begin the app's runtime granted was on its way: revoked on arrival,
        // and the revocation reaches the app as a push.
        fixture.engine.deliver(.deactivate(app))
        fixture.engine.deliver(.enterBackground(app))
        oneWay(.didEnterBackgroundReturned(app), from: link)
        #expect(fixture.engine.answer(.apps).json.contains("\"state\":\"suspended\""))
        oneWay(
            .assertionBegun(app, AssertionID(rawValue: 7), name: "A", origin: CallSite(), hasExpirationHandler: true),
            from: link
        )
        let last = link.last
        guard case .system(.pushed(let effects))? = last else {
            Issue.record("the refusal was not pushed: \(String(describing: last))")
            return
        }
        #expect(
            effects.contains { if case .assertionRevoked(_, AssertionID(rawValue: 7), _) = $0 { true } else { false } }
        )
    }

    @Test("going to the background pushes the new grant state before the callbacks it asks for")
    func statePushedBeforeEffects() throws {
        let link = connected()
        let before = link.sent.withLock { $0.count }
        fixture.engine.deliver(.deactivate(app))
        fixture.engine.deliver(.enterBackground(app))
        let sent = link.sent.withLock { Array($0.dropFirst(before)) }
        let states = sent.enumerated().compactMap { index, message -> (Int, GrantState)? in
            if case .system(.state(let grant)) = message { return (index, grant) }
            return nil
        }
        let background = try #require(states.last { $0.1.lifecycleState == .background })
        let callback = try #require(
            sent.firstIndex {
                if case .system(.pushed(let effects)) = $0 {
                    return effects.contains { if case .deliverDidEnterBackground = $0 { true } else { false } }
                }
                return false
            }
        )
        #expect(background.0 < callback)
        // In the background, the budget starting to run down is pushed too: once.
        let count = link.sent.withLock { $0.count }
        oneWay(
            .assertionBegun(
                app,
                AssertionID(rawValue: 1),
                name: "Save",
                origin: CallSite(),
                hasExpirationHandler: true
            ),
            from: link
        )
        let ticking = link.sent.withLock { Array($0.dropFirst(count)) }
        #expect(ticking.count == 1)
        guard case .system(.state(let grant))? = ticking.first else {
            Issue.record("no push when the budget started: \(ticking)")
            return
        }
        #expect(grant.budgetTicking)
    }

    @Test("a process that declares what it holds is taken over with its identifiers and handlers")
    func declarationTakenOver() throws {
        let declaration = AppDeclaration(
            lifecycleState: .background,
            launchFinished: true,
            registeredIdentifiers: ["com.example.notes.refresh"],
            assertions: [
                DeclaredAssertion(
                    id: AssertionID(rawValue: 4),
                    name: "Sync",
                    origin: CallSite(),
                    hasExpirationHandler: true
                ),
                DeclaredAssertion(
                    id: AssertionID(rawValue: 9),
                    name: "Save",
                    origin: CallSite(),
                    hasExpirationHandler: false
                ),
            ]
        )
        let link = connected(declaring: declaration)
        guard case .welcome(let welcome)? = link.sent.withLock({ $0.first }) else {
            Issue.record("no welcome: \(link.sent.withLock { $0 })")
            return
        }
        #expect(welcome.state == .background)
        #expect(welcome.nextAssertionID == AssertionID(rawValue: 10))
        let grant = try #require(welcome.grant)
        #expect(grant.budgetTicking)
        let held = fixture.engine.answer(.assertions(app)).json
        #expect(held.contains("\"name\":\"Sync\"") && held.contains("\"name\":\"Save\""))
        // Nothing of the launch reaches the process, which started long ago; the daemon spawned nothing.
        #expect(!link.sent.withLock { $0 }.contains { if case .system(.pushed) = $0 { true } else { false } })
        #expect(fixture.processes.calls.withLock { $0 }.isEmpty)
        // Its handler is registered: a second registration of it is the fault Apple crashes on.
        oneWay(.endAssertion(app, AssertionID(rawValue: 4)), from: link)
        #expect(!fixture.engine.answer(.assertions(app)).json.contains("\"name\":\"Sync\""))
    }

    @Test("an app's query about its own requests is answered")
    func queryAnswered() {
        let link = connected()
        fixture.engine.received(
            .app(.event(.registerTaskHandler(app, identifier: "com.example.notes.refresh"))),
            from: link,
            peer: nil
        )
        oneWay(.finishLaunching(app), from: link)
        let request = TaskRequest(
            identifier: "com.example.notes.refresh",
            kind: .appRefresh,
            earliestBegin: .seconds(100_000)
        )
        fixture.engine.received(.app(.event(.submitTaskRequest(app, request))), from: link, peer: nil)
        fixture.engine.received(.app(.query(.pendingTaskRequests)), from: link, peer: nil)
        guard case .system(.queryAnswer(.pendingTaskRequests(let pending)))? = link.last else {
            Issue.record("no answer: \(String(describing: link.last))")
            return
        }
        #expect(pending.map(\.identifier) == ["com.example.notes.refresh"])
        fixture.engine.received(
            .app(.query(.eligibility(identifier: "com.example.notes.refresh"))),
            from: link,
            peer: nil
        )
        guard case .system(.queryAnswer(.eligibility(let eligibility?)))? = link.last else {
            Issue.record("no eligibility: \(String(describing: link.last))")
            return
        }
        #expect(!eligibility.unmet.isEmpty)
    }
}
