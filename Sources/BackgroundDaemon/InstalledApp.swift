public import BackgroundCore
public import BackgroundProcessControl

/// An app installed in the daemon: its `Info.plist` keys and how to start its process.
public struct InstalledApp: Sendable, Hashable {
    /// The `Info.plist` keys (identity, permitted task identifiers, background modes).
    public var manifest: AppManifest
    /// How the daemon starts the app's process; `nil` for an app that is only ever started by
    /// the user (the daemon cannot launch it for a task, and says so in `bgctl why`).
    public var launch: LaunchCommand?
    /// The manifest's file name in the manifests directory.
    public var file: String
    /// The app's own user and groups when the daemon runs apps under per-app uids
    /// (``AppIsolation/perAppUsers(_:containers:)``, assigned by ``AppUserTable``); nil when
    /// apps share the daemon's uid.
    public var user: ProcessUser?

    /// The app's identity.
    public var id: AppID { manifest.bundleIdentifier }

    /// Creates an installed app.
    public init(manifest: AppManifest, launch: LaunchCommand?, file: String, user: ProcessUser? = nil) {
        self.manifest = manifest
        self.launch = launch
        self.file = file
        self.user = user
    }
}

/// How to start an app's process: the manifest's `BackgroundLaunch` dictionary.
///
/// ```json
/// "BackgroundLaunch": {
///     "Arguments": ["/opt/notes/bin/notes", "--headless"],
///     "Environment": {"NOTES_LOG": "info"},
///     "WorkingDirectory": "/home/me/.local/share/notes",
///     "SharedContainers": ["/home/me/.local/share/group.notes"],
///     "UserID": 200042
/// }
/// ```
public struct LaunchCommand: Sendable, Hashable, Codable {
    /// The executable, an absolute path; what `/proc/<pid>/exe` of a process that connects
    /// as this app must resolve to.
    public var executable: String
    /// The arguments after the executable (`argv[1...]`).
    public var arguments: [String]
    /// Variables set for the process (on top of a minimal environment the daemon provides).
    public var environment: [String: String]
    /// The app's container: the process's working directory.
    public var workingDirectory: String?
    /// Directories shared with other apps (app groups), where a lock held at suspension is
    /// `0xdead10cc`.
    public var sharedContainers: [String]
    /// The uid the app asks for when the daemon runs apps under per-app uids: it must lie in the
    /// daemon's app user range and belong to no other app; nil lets the daemon choose (the
    /// usual case). Never 0.
    public var userID: UInt32?

    /// Creates a launch command.
    public init(
        executable: String,
        arguments: [String] = [],
        environment: [String: String] = [:],
        workingDirectory: String? = nil,
        sharedContainers: [String] = [],
        userID: UInt32? = nil
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.sharedContainers = sharedContainers
        self.userID = userID
    }
}
