import BackgroundCore
import BackgroundTestSupport
import Testing

@testable import BackgroundExecution

/// `beginBackgroundTask` across a process boundary (the encoding transport stands for one):
/// answered at once from the pushed grant state with an identifier the app's side allocates,
/// sent one way; denials decided app-side send nothing; a revocation runs the handler.
@MainActor
@Suite("No round trip: begins decided app-side from the pushed state")
struct NoRoundTripTests {
    static let app: AppID = "com.example.oneway"

    static func system(_ clock: ManualClock, _ log: EffectLog) -> EmbeddedSystem {
        var configuration = EmbeddedSystem.Configuration.test(app: app, policy: .iOS, clock: clock, log: log)
        configuration.encodesMessages = true
        return EmbeddedSystem(configuration: configuration)
    }

    @Test("Granted begins take the pushed next identifiers in order, and the core records exactly those")
    func allocatesInOrder() {
        let clock = ManualClock()
        let system = Self.system(clock, EffectLog())
        let application = UIApplication(connection: system)
        let first = application.beginBackgroundTask(withName: "One") {}
        let second = application.beginBackgroundTask(withName: "Two") {}
        #expect(first.rawValue == 1 && second.rawValue == 2)
        #expect(system.assertions.map(\.id.rawValue) == [1, 2])
        application.endBackgroundTask(first)
        #expect(system.assertions.map(\.name) == ["Two"])
        let third = application.beginBackgroundTask(withName: "Three") {}
        #expect(third.rawValue == 3)
    }

    @Test("A denial decided from the pushed state calls the handler and sends nothing to the system")
    func deniedAppSide() {
        let clock = ManualClock()
        let log = EffectLog()
        let system = Self.system(clock, log)
        let application = UIApplication(connection: system)
        clock.runPending()
        system.moveToBackground()
        clock.advance(by: .seconds(6))  // didEnterBackground returned, nothing held: suspended
        #expect(system.lifecycleState == .suspended)
        let before = system.connectionNextIdentifier
        let called = Recorder<String>()
        let id = application.beginBackgroundTask(withName: "Late") { called.append("Late") }
        clock.runPending()
        #expect(id == .invalid)
        #expect(called.all == ["Late"])
        #expect(system.connectionNextIdentifier == before, "nothing reached the system")
        #expect(
            log.effects.contains {
                if case .assertionDenied(_, "Late", "the app is suspended") = $0 { true } else { false }
            }
        )
    }

    @Test("A revocation from the system runs the assertion's expiration handler once, on the main actor")
    func revocationRunsHandler() {
        let clock = ManualClock()
        let system = Self.system(clock, EffectLog())
        let application = UIApplication(connection: system)
        let called = Recorder<String>()
        let id = application.beginBackgroundTask(withName: "Upload") { called.append("Upload") }
        let raw = AssertionID(rawValue: id.rawValue)
        system.carryOut(.assertionRevoked(Self.app, raw, reason: "the app is suspended"))
        system.carryOut(.assertionRevoked(Self.app, raw, reason: "the app is suspended"))
        clock.runPending()
        #expect(called.all == ["Upload"])
    }
}

extension EmbeddedSystem {
    /// The identifier the core would issue next: unchanged when nothing reached it.
    fileprivate var connectionNextIdentifier: AssertionID {
        state.withLock { $0.core.nextAssertionID(of: app) }
    }
}
