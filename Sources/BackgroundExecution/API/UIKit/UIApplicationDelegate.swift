public import Foundation

/// The lifecycle calls an app receives, with UIKit's names; every method is optional.
///
/// ```swift
/// final class AppDelegate: UIResponder, UIApplicationDelegate {
///     func applicationDidEnterBackground(_ application: UIApplication) {
///         // five seconds to save state and return
///     }
/// }
/// ```
@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {
    /// The app finished launching.
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool
    /// The app became active.
    func applicationDidBecomeActive(_ application: UIApplication)
    /// The app is about to become inactive.
    func applicationWillResignActive(_ application: UIApplication)
    /// The app moved to the background; return within five seconds (S3) or the watchdog ends it.
    func applicationDidEnterBackground(_ application: UIApplication)
    /// The app is about to come back to the foreground.
    func applicationWillEnterForeground(_ application: UIApplication)
    /// The app is about to end.
    func applicationWillTerminate(_ application: UIApplication)
    /// Legacy background fetch (S17): download new content and call `completionHandler`
    /// within 30 s, or the app is ended.
    func application(
        _ application: UIApplication,
        performFetchWithCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    )
    /// The system launched or resumed the app for the events of the background session
    /// `identifier` (reference §5.3): keep `completionHandler`, recreate the session with that
    /// identifier, and call the handler on the main queue from
    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`. (Called by the simulator's relaunch
    /// and, in system mode, when `backgroundd` launches or resumes the app for the session's
    /// events, after the launch callbacks; in embedded mode the app recreates its session at launch.)
    func application(
        _ application: UIApplication,
        handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    )
    /// A silent push arrived (`UIBackgroundModes` `remote-notification` to receive it in the
    /// background): `userInfo` is the payload; call `completionHandler` within 30 s, or the app
    /// is ended with `0x8badf00d`.
    func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    )
    /// The system is low on memory: free what can be recreated. Declared only: nothing on Linux
    /// calls it yet (see ``UIApplication/didReceiveMemoryWarningNotification``).
    func applicationDidReceiveMemoryWarning(_ application: UIApplication)
    /// The time changed significantly (midnight, time zone, daylight saving). Declared only:
    /// nothing on Linux calls it.
    func applicationSignificantTimeChange(_ application: UIApplication)
    /// Protected files are about to become inaccessible. Declared only: nothing on Linux calls it.
    func applicationProtectedDataWillBecomeUnavailable(_ application: UIApplication)
    /// Protected files are available again. Declared only: nothing on Linux calls it.
    func applicationProtectedDataDidBecomeAvailable(_ application: UIApplication)
    /// A scene-based app is about to connect a scene: return the configuration to create it
    /// from. By default, the session's own (from the manifest's `UISceneConfigurations`).
    func application(
        _ application: UIApplication,
        configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration
    /// The user closed scenes' sessions. Declared for source compatibility: sessions do not
    /// outlive the process here, so it is not called.
    func application(_ application: UIApplication, didDiscardSceneSessions sceneSessions: Set<UISceneSession>)
}

extension UIApplicationDelegate {
    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { true }
    public func applicationDidBecomeActive(_ application: UIApplication) {}
    public func applicationWillResignActive(_ application: UIApplication) {}
    public func applicationDidEnterBackground(_ application: UIApplication) {}
    public func applicationWillEnterForeground(_ application: UIApplication) {}
    public func applicationWillTerminate(_ application: UIApplication) {}
    public func application(
        _ application: UIApplication,
        performFetchWithCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    ) {
        completionHandler(.noData)
    }
    public func application(
        _ application: UIApplication,
        handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) {
        completionHandler()
    }
    public func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    ) {
        completionHandler(.noData)
    }
    public func applicationDidReceiveMemoryWarning(_ application: UIApplication) {}
    public func applicationSignificantTimeChange(_ application: UIApplication) {}
    public func applicationProtectedDataWillBecomeUnavailable(_ application: UIApplication) {}
    public func applicationProtectedDataDidBecomeAvailable(_ application: UIApplication) {}
    public func application(
        _ application: UIApplication,
        configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        connectingSceneSession.configuration
    }
    public func application(_ application: UIApplication, didDiscardSceneSessions sceneSessions: Set<UISceneSession>) {}
}

/// UIKit's base class for objects that handle events, here so that
/// `class AppDelegate: UIResponder, UIApplicationDelegate` compiles unchanged; it adds nothing.
///
/// As in UIKit, `init()` is a plain designated initializer: a subclass may inherit it, override
/// it (`override init()`, `required override init()`, `override convenience init()`), or declare
/// only initializers of its own (`init(store:)`). An `@main` app delegate is created as
/// `UIApplicationMain` creates it, with its `init()` (see ``UIApplicationDelegate/main()``), so
/// an `@main` delegate must have one, as on iOS.
@MainActor
open class UIResponder: NSObject {
    /// Creates a responder.
    public override init() {
        super.init()
    }
}

extension UIApplication {
    /// Keys of the launch options dictionary.
    public struct LaunchOptionsKey: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}
