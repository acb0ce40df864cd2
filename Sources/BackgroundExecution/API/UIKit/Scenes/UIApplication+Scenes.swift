extension UIApplication {
    /// The scenes connected to the app: for a scene-based app, its one scene while it is connected
    /// (from its first time in the foreground to its end); empty otherwise.
    @MainActor
    public var connectedScenes: Set<UIScene> {
        Set(sceneTable.scenes)
    }

    /// The app's scene sessions: those of its connected scenes here (sessions do not outlive the
    /// process on Linux).
    @MainActor
    public var openSessions: Set<UISceneSession> {
        Set(sceneTable.sessions)
    }

    /// Whether the app may show several scenes at once: the manifest's
    /// `UIApplicationSupportsMultipleScenes`. Recorded only: one scene is connected here.
    public var supportsMultipleScenes: Bool {
        connection.sceneManifest?.supportsMultipleScenes ?? false
    }
}
