// A scene delegate as iOS apps write it, compiled in the Swift 6 language mode: UIKit's delegate
// protocols are main-actor isolated, so its methods and its `window` are too, and the
// expiration handler (`@MainActor @Sendable`) may use `self`.

import BackgroundCore
import BackgroundExecution
import Foundation
import Testing

final class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?
    private var saveTask: UIBackgroundTaskIdentifier = .invalid
    private(set) var events: [String] = []
    /// The app's application object. iOS code writes `UIApplication.shared`; here the app
    /// delegate passes it through the session, because tests of other targets own `shared` in
    /// this test process.
    private var application: UIApplication?

    func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    ) {
        guard let windowScene = scene as? UIWindowScene else { return }
        application = session.userInfo?["application"] as? UIApplication
        window = UIWindow(windowScene: windowScene)
        events.append("connected \(scene.activationState)")
    }

    func sceneDidEnterBackground(_ scene: UIScene) {
        saveTask =
            application?.beginBackgroundTask(withName: "SaveDrafts") {
                self.finishSave()
            } ?? .invalid
        events.append("saving")
        Task { @MainActor in
            self.finishSave()
        }
    }

    func finishSave() {
        guard saveTask != .invalid else { return }
        events.append("saved")
        application?.endBackgroundTask(saveTask)
        saveTask = .invalid
    }
}

final class SceneAppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        connectingSceneSession.userInfo = ["application": application]
        let configuration = UISceneConfiguration(name: nil, sessionRole: connectingSceneSession.role)
        configuration.delegateClass = SceneDelegate.self
        return configuration
    }
}

/// Leaves `UIApplication.shared` alone: the seed fixtures' suite owns it in this test process.
@Suite("A scene delegate in the Swift 6 language mode")
@MainActor
struct SceneDelegateSwift6Tests {
    @Test("delegateClass set in code: the scene delegate is created, connected, and its save ends the background task")
    func sceneDelegateRuns() async {
        let clock = ManualClock()
        let system = EmbeddedSystem(
            configuration: .init(
                app: "com.example.drafts",
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false,
                manifest: AppManifest(bundleIdentifier: "com.example.drafts", sceneManifest: SceneManifest())
            )
        )
        let application = UIApplication(connection: system)
        let appDelegate = SceneAppDelegate()
        application.delegate = appDelegate
        ApplicationMain.deliverLaunch(application)
        clock.runPending()
        let sceneDelegate = application.connectedScenes.first?.delegate as? SceneDelegate
        #expect(sceneDelegate != nil)
        system.moveToBackground()
        clock.runPending()
        for _ in 0..<1000 where sceneDelegate?.events.last != "saved" { await Task.yield() }
        #expect(sceneDelegate?.events == ["connected unattached", "saving", "saved"])
        #expect(system.assertions.isEmpty)
        clock.runPending()
        #expect(system.lifecycleState == .suspended)
    }
}
