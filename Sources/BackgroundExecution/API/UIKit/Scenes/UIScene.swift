public import Foundation

/// An object that represents one instance of the app's user interface, with UIKit's name; here
/// it has no user interface, and carries the scene's lifecycle.
///
/// A scene-based app (its manifest has `UIApplicationSceneManifest`, ``SceneManifest``) gets one
/// ``UIWindowScene`` when it launches into the foreground (or is first opened after a launch in
/// the background), and its ``UISceneDelegate`` receives the transitions the app delegate would
/// otherwise receive, in UIKit's order: the scene delegate, then `UIScene`'s notification, then
/// `UIApplication`'s.
///
/// ```swift
/// NotificationCenter.default.addObserver(
///     forName: UIScene.didEnterBackgroundNotification, object: nil, queue: .main
/// ) { _ in flush() }
/// ```
///
/// Linux behaviour: one scene per app (the `UIWindowSceneSessionRoleApplication` role), connected
/// as described above and disconnected when the app ends normally (`sceneDidDisconnect(_:)` before
/// `applicationWillTerminate(_:)`). iOS also disconnects a background scene to reclaim memory, and
/// connects more for an app that supports multiple scenes: neither happens here.
@MainActor
open class UIScene: UIResponder {
    /// The session the scene belongs to.
    public let session: UISceneSession

    /// The scene's delegate; the scene holds it strongly, as UIKit's does.
    open var delegate: (any UISceneDelegate)?

    /// The scene's state: ``ActivationState/unattached`` until it enters the foreground.
    public internal(set) var activationState: ActivationState = .unattached

    /// The scene's title (shown by iPadOS's app switcher; recorded here).
    open var title: String!

    /// The scene's subtitle (recorded here).
    open var subtitle: String = ""

    /// Creates a scene for `session`; UIKit creates scenes, apps do not.
    ///
    /// - Parameters:
    ///   - session: The session the scene belongs to.
    ///   - connectionOptions: Why the scene was connected.
    public init(session: UISceneSession, connectionOptions: UIScene.ConnectionOptions) {
        self.session = session
        super.init()
    }

    /// The activation states of a scene, with UIKit's raw values.
    public enum ActivationState: Int, Sendable, Hashable, CustomStringConvertible {
        /// Not connected to the app yet (or any more).
        case unattached = -1
        /// In the foreground, receiving events.
        case foregroundActive = 0
        /// In the foreground, not receiving events.
        case foregroundInactive = 1
        /// In the background.
        case background = 2

        public var description: String {
            switch self {
            case .unattached: return "unattached"
            case .foregroundActive: return "foregroundActive"
            case .foregroundInactive: return "foregroundInactive"
            case .background: return "background"
            }
        }
    }

    /// Why UIKit connected a scene: here always empty (no URL, user activity, notification
    /// response or shortcut starts an app on Linux), with UIKit's names.
    @MainActor
    open class ConnectionOptions: NSObject {
        /// The bundle identifier of the app that asked for the scene; `nil` here.
        public let sourceApplication: String? = nil
        /// The type of the user activity that asked for the scene (Handoff); `nil` here.
        public let handoffUserActivityType: String? = nil

        /// Creates empty options; UIKit creates them, apps do not.
        public override init() {
            super.init()
        }
    }

    /// Posted after UIKit added a scene to the app, after `scene(_:willConnectTo:options:)`;
    /// the object is the scene.
    public static let willConnectNotification = Notification.Name("UISceneWillConnectNotification")
    /// Posted when UIKit removed a scene from the app, after `sceneDidDisconnect(_:)`.
    public static let didDisconnectNotification = Notification.Name("UISceneDidDisconnectNotification")
    /// Posted when a scene became active, after `sceneDidBecomeActive(_:)`.
    public static let didActivateNotification = Notification.Name("UISceneDidActivateNotification")
    /// Posted when a scene is about to resign the active state, after `sceneWillResignActive(_:)`.
    public static let willDeactivateNotification = Notification.Name("UISceneWillDeactivateNotification")
    /// Posted when a scene is about to enter the foreground, after `sceneWillEnterForeground(_:)`.
    public static let willEnterForegroundNotification = Notification.Name("UISceneWillEnterForegroundNotification")
    /// Posted when a scene entered the background, after `sceneDidEnterBackground(_:)`.
    public static let didEnterBackgroundNotification = Notification.Name("UISceneDidEnterBackgroundNotification")
}

/// A scene that manages the app's windows, with UIKit's name: the scene class UIKit creates for
/// the `UIWindowSceneSessionRoleApplication` role. It draws nothing here.
@MainActor
open class UIWindowScene: UIScene {
    /// The windows created for this scene (``UIWindow/init(windowScene:)``) that are still alive.
    public var windows: [UIWindow] {
        attachedWindows.compactMap(\.window)
    }

    /// The window that last called ``UIWindow/makeKeyAndVisible()`` among ``windows``.
    public var keyWindow: UIWindow? {
        windows.last { $0.isKeyWindow }
    }

    private final class WeakWindow {
        weak var window: UIWindow?
        init(_ window: UIWindow) { self.window = window }
    }

    private var attachedWindows: [WeakWindow] = []

    func attach(_ window: UIWindow) {
        attachedWindows.removeAll { $0.window == nil || $0.window === window }
        attachedWindows.append(WeakWindow(window))
    }

    func makeKey(_ window: UIWindow) {
        for other in windows where other !== window { other.isKeyWindow = false }
    }
}
