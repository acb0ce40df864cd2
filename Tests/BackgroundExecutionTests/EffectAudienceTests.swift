import BackgroundCore
import Testing

@testable import BackgroundExecution

/// Which effects are the app's is said once, by `Effect.audience` in the core: the app
/// runtime's one interpreter (`RuntimeHost.carryOut`) takes exactly the `.appRuntime` ones and
/// leaves every other to its transport, and the daemon pushes to an app exactly the effects
/// with an `audienceApp`.
@MainActor
@Suite("Effect audience: the one list of the app's effects")
struct EffectAudienceTests {
    static let app: AppID = "com.example.audience"

    /// One effect of each of Effect's 22 cases. A new case must choose its audience (the switch
    /// in `Effect.audience` is exhaustive); add a sample of it here too.
    static var everyCase: [Effect] {
        let report = TerminationReport(
            incident: 1,
            app: app,
            reason: .exited(status: 0),
            explanation: "",
            at: .zero,
            stateBefore: .background,
            permittedBackgroundDuration: .seconds(30),
            leakedAssertions: [],
            policyName: "iOS"
        )
        let id = AssertionID(rawValue: 7)
        return [
            .assertionDenied(app, name: "A", reason: "r"),
            .assertionRevoked(app, id, reason: "r"),
            .launch(app, .user, Incarnation(rawValue: 1)),
            .resume(app, Incarnation(rawValue: 1)),
            .runExpirationHandler(app, id),
            .deliverDidEnterBackground(app),
            .deliverBackgroundWake(app),
            .stateChanged(app, from: .background, to: .background),
            .suspend(app),
            .exit(app, status: 0, report),
            .terminate(app, report),
            .backgroundRefreshStatusChanged(app, .available),
            .scheduleWakeup(at: .seconds(1)),
            .cancelWakeup,
            .log(LogRecord(.info, app: app, "m")),
            .fault(app, message: "m"),
            .runTasks(app, []),
            .expireTask(app, TaskRunID(rawValue: 1)),
            .taskFinished(app, TaskRunID(rawValue: 1), .succeeded),
            .persist(.deletePendingRequest(app, identifier: "x")),
            .modeChanged(app, .audio, held: true),
            .powerStateChanged(app, lowPowerMode: false),
        ]
    }

    @Test("The runtime's interpreter carries out exactly the effects whose audience is the app's runtime")
    func interpreterMatchesTheAudience() {
        let clock = ManualClock()
        let system = EmbeddedSystem(
            configuration: .init(app: Self.app, policy: .iOS, clock: .manual(clock), terminationBehavior: .record)
        )
        for effect in Self.everyCase {
            #expect(system.carryOut(effect) == (effect.audience == .appRuntime), "\(effect)")
        }
    }

    @Test("An effect has an audience app exactly when its audience is the app's runtime or process")
    func audienceApp() {
        for effect in Self.everyCase {
            #expect((effect.audienceApp != nil) == (effect.audience != .system), "\(effect)")
            #expect(effect.audienceApp == nil || effect.audienceApp == Self.app)
        }
    }
}
