import BackgroundCore
import Testing

@testable import BackgroundExecution

/// What the app's calls read of the system comes from one reading, `AppStatus`: from the core in
/// the process, or from what a system in another process pushed.
@Suite("AppStatus: one reading of the system's view of the app")
struct AppStatusTests {
    static let app: AppID = "com.example.status"

    @Test("The embedded system reads every field from its core, the GPU from its policy")
    func embedded() {
        var policy = SystemPolicy.iOS
        policy.scheduling.supportsBackgroundGPU = true
        let clock = ManualClock()
        let system = EmbeddedSystem(
            configuration: .init(app: Self.app, policy: policy, clock: .manual(clock), terminationBehavior: .record)
        )
        let status = system.status
        #expect(status.lifecycleState == .active)
        #expect(status.backgroundTimeRemaining == nil, "in the foreground")
        #expect(system.supportsBackgroundGPU && system.lifecycleState == .active)
        let plain = EmbeddedSystem(
            configuration: .init(app: Self.app, policy: .iOS, clock: .manual(clock), terminationBehavior: .record)
        )
        #expect(!plain.supportsBackgroundGPU)
    }

    @Test("A pushed view answers from what was pushed: not running and no time before any push, then the grant state's")
    func pushed() {
        var view = PushedView(refreshStatus: .available)
        #expect(
            view.status(at: .seconds(5))
                == AppStatus(
                    lifecycleState: .notRunning,
                    backgroundTimeRemaining: .zero,
                    refreshStatus: .available,
                    lowPowerMode: false,
                    supportsBackgroundGPU: false
                )
        )
        var core = BackgroundSystem(policy: .iOS)
        var effects: [Effect] = []
        _ = try? core.handle(.launch(Self.app, .background), at: .seconds(1), into: &effects)
        view.grant.update(core.grantState(of: Self.app, at: .seconds(1)))
        view.supportsBackgroundGPU = true
        view.lowPowerMode = true
        let status = view.status(at: .seconds(1))
        #expect(status.lifecycleState == .background)
        #expect(status.backgroundTimeRemaining == core.backgroundTimeRemaining(of: Self.app, at: .seconds(1)))
        #expect(status.supportsBackgroundGPU && status.lowPowerMode)
        view.hasEnded = true
        #expect(view.status(at: .seconds(2)).lifecycleState == .terminated(.exited(status: 0)))
        #expect(view.status(at: .seconds(2)).backgroundTimeRemaining == .zero)
    }
}
