import BackgroundCore
import Foundation

/// The scenes and sessions of a scene-based app's process: what ``UIApplication/connectedScenes``
/// and ``UIApplication/openSessions`` answer, in connection order.
@MainActor
struct SceneTable {
    var scenes: [UIScene] = []
    var sessions: [UISceneSession] = []
    /// How many sessions this process made: the next one's ``UISceneSession/persistentIdentifier``.
    var sessionCount = 0
}

/// The scene half of lifecycle delivery (``UIApplication/deliverTransition(from:to:)``, which the
/// app runtime calls for every transport): for a scene-based app, each transition reaches the
/// scene delegate, then `UIScene`'s notification; the caller then posts `UIApplication`'s, and
/// calls none of the four app-delegate methods the scene's replace.
extension UIApplication {
    /// Whether the app is scene-based: its manifest has `UIApplicationSceneManifest`.
    var usesScenes: Bool { connection.sceneManifest != nil }

    /// The scene the app has, connecting it first if it has none (a launch into the foreground,
    /// or the first opening after a launch in the background): the session from the manifest's
    /// default configuration for `UIWindowSceneSessionRoleApplication`, the app delegate's
    /// `application(_:configurationForConnecting:options:)`, the scene delegate created from the
    /// configuration's class, `scene(_:willConnectTo:options:)`, `willConnectNotification`.
    @MainActor
    func connectedScene() -> UIScene? {
        if let scene = sceneTable.scenes.first { return scene }
        guard let manifest = connection.sceneManifest else { return nil }
        let role = UISceneSession.Role.windowApplication
        sceneTable.sessionCount += 1
        let session = UISceneSession(
            role: role,
            configuration: configuration(role: role, named: nil, manifest: manifest),
            persistentIdentifier: "\(connection.app.bundleIdentifier).session-\(sceneTable.sessionCount)"
        )
        sceneTable.sessions.append(session)
        let options = UIScene.ConnectionOptions()
        if let delegate {
            let chosen = delegate.application(self, configurationForConnecting: session, options: options)
            session.configuration = completed(chosen, manifest: manifest)
        }
        let scene = UIWindowScene(session: session, connectionOptions: options)
        session.scene = scene
        scene.delegate = makeSceneDelegate(session.configuration)
        sceneTable.scenes.append(scene)
        scene.delegate?.scene(scene, willConnectTo: session, options: options)
        NotificationCenter.default.post(name: UIScene.willConnectNotification, object: scene)
        return scene
    }

    /// Moves every connected scene to `state`: sets it, calls the scene delegate, posts the
    /// scene's notification.
    @MainActor
    func deliverSceneTransition(to state: UIScene.ActivationState) {
        if state != .background, state != .unattached { _ = connectedScene() }
        for scene in sceneTable.scenes {
            let old = scene.activationState
            scene.activationState = state
            let center = NotificationCenter.default
            switch (old, state) {
            case (.unattached, .foregroundInactive), (.background, .foregroundInactive):
                scene.delegate?.sceneWillEnterForeground(scene)
                center.post(name: UIScene.willEnterForegroundNotification, object: scene)
            case (.foregroundInactive, .foregroundActive):
                scene.delegate?.sceneDidBecomeActive(scene)
                center.post(name: UIScene.didActivateNotification, object: scene)
            case (.foregroundActive, .foregroundInactive):
                scene.delegate?.sceneWillResignActive(scene)
                center.post(name: UIScene.willDeactivateNotification, object: scene)
            case (_, .background) where old != .background:
                scene.delegate?.sceneDidEnterBackground(scene)
                center.post(name: UIScene.didEnterBackgroundNotification, object: scene)
            case (_, .unattached) where old != .unattached:
                scene.delegate?.sceneDidDisconnect(scene)
                center.post(name: UIScene.didDisconnectNotification, object: scene)
            default:
                break
            }
        }
        if state == .unattached { sceneTable.scenes.removeAll() }
    }

    /// The manifest's configuration for `role` (named `name`, or the role's first), as UIKit
    /// makes it from `Info.plist`.
    @MainActor
    private func configuration(
        role: UISceneSession.Role,
        named name: String?,
        manifest: SceneManifest
    )
        -> UISceneConfiguration
    {
        let entry = manifest.configuration(forRole: role.rawValue, named: name)
        let configuration = UISceneConfiguration(name: entry?.name ?? name, sessionRole: role)
        configuration.sceneClass = UIWindowScene.self
        if let className = entry?.delegateClassName {
            configuration.delegateClass = sceneDelegateClass(named: className, configuration: entry?.name)
        }
        return configuration
    }

    /// What the app delegate returned, with the manifest's delegate class filled in when it set
    /// none and named a configuration the manifest lists (UIKit fills it from `Info.plist`).
    @MainActor
    private func completed(_ chosen: UISceneConfiguration, manifest: SceneManifest) -> UISceneConfiguration {
        guard let copy = chosen.copy() as? UISceneConfiguration else { return chosen }
        if copy.delegateClass == nil, let name = copy.name {
            copy.delegateClass = configuration(role: copy.role, named: name, manifest: manifest).delegateClass
        }
        return copy
    }

    /// The class `UISceneDelegateClassName` names (`Module.Class`; `$(PRODUCT_MODULE_NAME)`, left
    /// unexpanded outside Xcode, stands for the app delegate's module), or nil, logged as UIKit
    /// logs it, when there is none.
    @MainActor
    private func sceneDelegateClass(named name: String, configuration: String?) -> AnyClass? {
        var name = name
        let variable = "$(PRODUCT_MODULE_NAME)."
        if name.hasPrefix(variable), let delegate {
            let module = String(reflecting: type(of: delegate)).prefix { $0 != "." }
            name = module + "." + name.dropFirst(variable.count)
        }
        if let found = NSClassFromString(name) { return found }
        connection.log(
            .error,
            "Info.plist configuration \"\(configuration ?? "(no name)")\" for \(SceneManifest.windowApplicationRole) "
                + "contained UISceneDelegateClassName key, but could not load class with name \"\(name)\"."
        )
        return nil
    }

    /// The scene delegate, created as UIKit creates it: with its class's `init()`, as the `@main`
    /// app delegate is (``NSObjectInit``); nil, logged, for a class that is not an NSObject
    /// subclass adopting ``UISceneDelegate``.
    @MainActor
    private func makeSceneDelegate(_ configuration: UISceneConfiguration) -> (any UISceneDelegate)? {
        guard let delegateClass = configuration.delegateClass else { return nil }
        guard delegateClass is any UISceneDelegate.Type, let objectType = delegateClass as? NSObject.Type,
            let delegate = NSObjectInit.make(objectType) as? any UISceneDelegate
        else {
            connection.log(.error, "\(delegateClass) does not adopt UISceneDelegate: the scene has no delegate")
            return nil
        }
        return delegate
    }
}
