import BackgroundCore
import BackgroundExecution
import BackgroundSimulator
import Foundation
import Testing

/// A scene-based app on the simulator: the rules that apply to `applicationDidEnterBackground(_:)`
/// apply to `sceneDidEnterBackground(_:)`, which replaces it (the order on every transport is in
/// the daemon tests' conformance suite).
@Suite("Scenes on the simulator")
@MainActor
struct SceneLifecycleTests {
    static let manifest = AppManifest(
        bundleIdentifier: "com.example.scenes",
        sceneManifest: SceneManifest(
            configurations: [.init(role: SceneManifest.windowApplicationRole, name: "Default Configuration")]
        )
    )

    @Test("sceneDidEnterBackground that blocks the main thread past 5 s is killed with 0x8badf00d naming it")
    func slowSceneDidEnterBackgroundIsKilled() {
        let simulator = Simulator()
        let app = simulator.install("com.example.scenes", manifest: Self.manifest) { process in
            process.delegate = SceneAppDelegate(process: process)
        }
        simulator.user.open(app)
        simulator.user.goHome()
        simulator.advance(by: .seconds(10))
        #expect(simulator.reports.first?.code == .watchdogTimeout)
        #expect(
            simulator.reports.first?.explanation == "sceneDidEnterBackground(_:) did not return within 5.000 s",
            "\(simulator.reports.first?.explanation ?? "no report")"
        )
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }
}

/// What the app's delegates heard, shared by the app delegate and the scene delegate it chose.
@MainActor
final class SceneCalls {
    var values: [String] = []
}

/// An app delegate that names its scene delegate class in code, as apps that do not use the
/// manifest's `UISceneDelegateClassName` do, and hands it the process through the session.
@MainActor
final class SceneAppDelegate: NSObject, UIApplicationDelegate {
    let process: AppProcess
    let calls: SceneCalls
    init(process: AppProcess, calls: SceneCalls = SceneCalls()) {
        self.process = process
        self.calls = calls
    }

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        calls.values.append("didFinishLaunching")
        return true
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        calls.values.append("applicationDidEnterBackground (not for a scene-based app)")
    }

    func application(
        _ application: UIApplication,
        configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        calls.values.append("configurationForConnecting")
        connectingSceneSession.userInfo = ["process": process, "calls": calls]
        let configuration = UISceneConfiguration(
            name: "Default Configuration",
            sessionRole: connectingSceneSession.role
        )
        configuration.delegateClass = SlowSceneDelegate.self
        return configuration
    }
}

/// A scene delegate whose `sceneDidEnterBackground(_:)` keeps the main thread 7 s.
final class SlowSceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?
    private var process: AppProcess?
    private var calls: SceneCalls?

    func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    ) {
        process = session.userInfo?["process"] as? AppProcess
        calls = session.userInfo?["calls"] as? SceneCalls
        calls?.values.append("willConnectTo")
    }

    func sceneWillEnterForeground(_ scene: UIScene) { calls?.values.append("sceneWillEnterForeground") }
    func sceneDidBecomeActive(_ scene: UIScene) { calls?.values.append("sceneDidBecomeActive") }

    func sceneDidEnterBackground(_ scene: UIScene) {
        process?.blockMainThread(for: .seconds(7))
    }
}
