// swift-format-ignore-file
// A scene-based app's delegates, written the way Xcode's iOS App template and analytics SDKs'
// integration guides write them (Swift 5 language mode, `import UIKit` became
// `import BackgroundExecution`): a scene delegate with `var window: UIWindow?` that flushes an
// event queue under a background task when its scene enters the background.
import BackgroundExecution

class TemplateAppDelegate: UIResponder, UIApplicationDelegate {
    var discarded = 0

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        return true
    }

    // MARK: UISceneSession Lifecycle

    func application(_ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession, options: UIScene.ConnectionOptions) -> UISceneConfiguration {
        // Called when a new scene session is being created.
        return UISceneConfiguration(name: "Default Configuration", sessionRole: connectingSceneSession.role)
    }

    func application(_ application: UIApplication, didDiscardSceneSessions sceneSessions: Set<UISceneSession>) {
        discarded += sceneSessions.count
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        TemplateEvents.shared.record("applicationDidEnterBackground")  // not called: the app uses scenes
    }
}

class TemplateSceneDelegate: UIResponder, UIWindowSceneDelegate {

    var window: UIWindow?
    var flushTask: UIBackgroundTaskIdentifier = .invalid

    func scene(_ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions) {
        guard let windowScene = (scene as? UIWindowScene) else { return }
        window = UIWindow(windowScene: windowScene)
        window?.makeKeyAndVisible()
        TemplateEvents.shared.record("willConnectTo")
    }

    func sceneDidDisconnect(_ scene: UIScene) {
        TemplateEvents.shared.record("sceneDidDisconnect")
    }

    func sceneDidBecomeActive(_ scene: UIScene) {
        TemplateEvents.shared.record("sceneDidBecomeActive")
    }

    func sceneWillResignActive(_ scene: UIScene) {
        TemplateEvents.shared.record("sceneWillResignActive")
    }

    func sceneWillEnterForeground(_ scene: UIScene) {
        TemplateEvents.shared.record("sceneWillEnterForeground")
    }

    func sceneDidEnterBackground(_ scene: UIScene) {
        TemplateEvents.shared.record("sceneDidEnterBackground")
        flushTask = UIApplication.shared.beginBackgroundTask(withName: "AnalyticsFlush") { [weak self] in
            self?.endFlush()
        }
        TemplateEvents.shared.flush { [weak self] in
            self?.endFlush()
        }
    }

    func endFlush() {
        guard flushTask != .invalid else { return }
        UIApplication.shared.endBackgroundTask(flushTask)
        flushTask = .invalid
    }
}

/// The SDK's event queue: `flush` sends what is queued and calls back when the upload is done
/// (here, when the test says so).
final class TemplateEvents {
    static let shared = TemplateEvents()
    var recorded: [String] = []
    var pendingUpload: (() -> Void)?

    func record(_ event: String) { recorded.append(event) }

    func flush(completion: @escaping () -> Void) {
        pendingUpload = completion
    }
}
