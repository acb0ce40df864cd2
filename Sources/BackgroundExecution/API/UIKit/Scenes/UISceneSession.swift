public import Foundation

/// An object that represents one of the app's scenes while it exists, with UIKit's name.
///
/// Linux behaviour: a session lives as long as the app's process (iOS keeps sessions across
/// launches and tells the app of discarded ones with `application(_:didDiscardSceneSessions:)`,
/// which is not called here). Its ``persistentIdentifier`` is made from a counter, not random, so
/// a simulated run repeats.
@MainActor
open class UISceneSession: NSObject {
    /// The scene connected to the session, if any.
    public internal(set) weak var scene: UIScene?

    /// The session's role.
    public let role: Role

    /// The configuration the scene was created from (the manifest's, or what the app delegate's
    /// `application(_:configurationForConnecting:options:)` returned).
    public internal(set) var configuration: UISceneConfiguration

    /// An identifier unique among the app's sessions.
    public let persistentIdentifier: String

    /// Data the app keeps with the session.
    open var userInfo: [String: Any]?

    init(role: Role, configuration: UISceneConfiguration, persistentIdentifier: String) {
        self.role = role
        self.configuration = configuration
        self.persistentIdentifier = persistentIdentifier
        super.init()
    }

    /// A session's role, with UIKit's raw values.
    public struct Role: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The app's scenes on the device's main screen: the one role used here.
        public static let windowApplication = Role(rawValue: SceneManifest.windowApplicationRole)
        /// A non-interactive window on an external display.
        public static let windowExternalDisplayNonInteractive = Role(
            rawValue: "UIWindowSceneSessionRoleExternalDisplayNonInteractive"
        )
    }
}

/// What UIKit needs to create a scene: its class, its delegate's class, with UIKit's names.
///
/// ```swift
/// func application(
///     _ application: UIApplication,
///     configurationForConnecting connectingSceneSession: UISceneSession,
///     options: UIScene.ConnectionOptions
/// ) -> UISceneConfiguration {
///     let configuration = UISceneConfiguration(name: "Default Configuration", sessionRole: connectingSceneSession.role)
///     configuration.delegateClass = SceneDelegate.self
///     return configuration
/// }
/// ```
///
/// A configuration without a ``delegateClass`` whose ``name`` is listed in the manifest's
/// `UISceneConfigurations` for its role gets the manifest's `UISceneDelegateClassName`, as UIKit
/// fills it from `Info.plist`. ``sceneClass`` may only be `UIWindowScene` (or nil): the scene is
/// always a ``UIWindowScene`` here.
@MainActor
open class UISceneConfiguration: NSObject, NSCopying {
    /// The configuration's name (`UISceneConfigurationName`).
    public let name: String?
    /// The role of the sessions it creates.
    public let role: UISceneSession.Role
    /// The scene delegate's class: an NSObject subclass (usually of `UIResponder`) adopting
    /// ``UISceneDelegate``, created with its `init()`.
    open var delegateClass: AnyClass?
    /// The scene's class; the scene is a ``UIWindowScene`` whatever it says.
    open var sceneClass: AnyClass?

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - name: The app-specific name; for a configuration listed in the manifest, its
    ///     `UISceneConfigurationName`.
    ///   - sessionRole: The role of the sessions it creates.
    public init(name: String?, sessionRole: UISceneSession.Role) {
        self.name = name
        self.role = sessionRole
        super.init()
    }

    /// A copy with the same name, role and classes.
    nonisolated public func copy(with zone: NSZone? = nil) -> Any {
        let copy: UISceneConfiguration = MainActor.assumeIsolated {
            let copy = UISceneConfiguration(name: name, sessionRole: role)
            copy.delegateClass = delegateClass
            copy.sceneClass = sceneClass
            return copy
        }
        return copy
    }
}
