public import Foundation

/// The lifecycle calls a scene's delegate receives, with UIKit's names; every method is optional.
///
/// A scene-based app (its manifest has `UIApplicationSceneManifest`) receives its transitions
/// here, and its app delegate's `applicationDidBecomeActive(_:)`, `applicationWillResignActive(_:)`,
/// `applicationDidEnterBackground(_:)` and `applicationWillEnterForeground(_:)` are not called
/// (Apple: "If your app uses scenes, UIKit delivers the scene-based equivalents instead");
/// `UIApplication`'s notifications are still posted, after the scene's.
///
/// ```swift
/// class SceneDelegate: UIResponder, UIWindowSceneDelegate {
///     var window: UIWindow?
///     func sceneDidEnterBackground(_ scene: UIScene) {
///         // five seconds to save state and return, as applicationDidEnterBackground(_:)
///     }
/// }
/// ```
@MainActor
public protocol UISceneDelegate: NSObjectProtocol {
    /// The scene was added to the app (before `UIScene.willConnectNotification`).
    func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    )
    /// The scene was removed from the app.
    func sceneDidDisconnect(_ scene: UIScene)
    /// The scene became active.
    func sceneDidBecomeActive(_ scene: UIScene)
    /// The scene is about to become inactive.
    func sceneWillResignActive(_ scene: UIScene)
    /// The scene is about to enter the foreground.
    func sceneWillEnterForeground(_ scene: UIScene)
    /// The scene entered the background; return within five seconds (S3), or the watchdog ends
    /// the app, as for `applicationDidEnterBackground(_:)`.
    func sceneDidEnterBackground(_ scene: UIScene)
}

extension UISceneDelegate {
    public func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    ) {}
    public func sceneDidDisconnect(_ scene: UIScene) {}
    public func sceneDidBecomeActive(_ scene: UIScene) {}
    public func sceneWillResignActive(_ scene: UIScene) {}
    public func sceneWillEnterForeground(_ scene: UIScene) {}
    public func sceneDidEnterBackground(_ scene: UIScene) {}
}

/// The delegate of a ``UIWindowScene``, with UIKit's name: a ``UISceneDelegate`` with a window.
@MainActor
public protocol UIWindowSceneDelegate: UISceneDelegate {
    /// The scene's main window (every template scene delegate declares `var window: UIWindow?`).
    var window: UIWindow? { get set }
}

extension UIWindowSceneDelegate {
    public var window: UIWindow? {
        get { nil }
        set {}  // a delegate without a window keeps none (UIKit's property is optional)
    }
}
