public import BackgroundCore

/// What the daemon asks of the machine's process control: start, freeze, thaw and kill an app's
/// processes.
///
/// The daemon carries out the core's `.launch`, `.suspend`, `.resume` and `.terminate` effects
/// through this protocol: ``SpawnedAppProcesses`` (cgroup v2 freezer with a SIGSTOP fallback,
/// spawning with an inherited connected socket, exit watching, survivors adopted after a
/// restart) in `backgroundd`, ``UnmanagedProcesses`` with `--process-control none`, which
/// starts nothing and freezes nothing and says so in `bgctl status`.
public protocol AppProcesses: Sendable {
    /// The name `bgctl status` shows for the mechanism in use ("cgroup v2 freezer", "SIGSTOP").
    var mechanism: String { get }

    /// Starts the app's process for `incarnation`. The started process must connect back (the
    /// controller passes it a connected socket, given to the engine with
    /// ``DaemonEngine/attachInherited(_:app:incarnation:)``).
    ///
    /// - Throws: Any error; the engine records the launch as failed (the app stays not running).
    func launch(_ app: InstalledApp, reason: LaunchReason, incarnation: Incarnation) throws

    /// Stops the app's processes from running.
    func freeze(_ app: AppID)

    /// Lets the app's processes run again.
    func thaw(_ app: AppID)

    /// Kills the app's processes (SIGKILL).
    func kill(_ app: AppID)

    /// The process id of the app's main process, if the daemon started one that runs.
    func pid(of app: AppID) -> Int32?

    /// Takes over the app processes a previous run of the daemon started that still run (it was
    /// killed, `kill -9` or a crash, and they were not): from now on they are frozen, thawed,
    /// killed and watched as if this run had started them. A survivor of an app that is not in
    /// `installed` (its manifest was removed) is killed. Called once, before the engine exists.
    func adoptSurvivors(of installed: [InstalledApp]) -> [AdoptedProcess]

    /// Takes the process of an app the user started (it connected on the socket, `peer`) under
    /// control, so that the app's `.suspend` freezes it as it freezes one the daemon started;
    /// a process of the app admitted before is let go (``release(_:)``).
    ///
    /// - Returns: nil once the process is under control; otherwise why it cannot be, which the
    ///   daemon reports instead of `suspended` (`bgctl daemon apps` and `status`).
    func admit(_ app: InstalledApp, peer: PeerIdentity?) -> String?

    /// Lets go of the process of an app the user started, thawed, without killing it: its
    /// connection closed, so to the system it has exited.
    func release(_ app: AppID)
}

extension AppProcesses {
    /// None known.
    public func pid(of app: AppID) -> Int32? { nil }

    /// None: process control that starts nothing leaves nothing behind.
    public func adoptSurvivors(of installed: [InstalledApp]) -> [AdoptedProcess] { [] }

    /// Refuses: this process control freezes nothing it did not start.
    public func admit(_ app: InstalledApp, peer: PeerIdentity?) -> String? {
        "\(mechanism) freezes only the processes the daemon starts"
    }

    /// Nothing was admitted.
    public func release(_ app: AppID) {}
}

/// An app process a previous run of the daemon started, taken over by this run
/// (``AppProcesses/adoptSurvivors(of:)``); the engine carries on with it
/// (`DaemonEngine+Restart.swift`).
public struct AdoptedProcess: Sendable, Hashable {
    /// Whose process it is.
    public var app: AppID
    /// Its main process.
    public var pid: Int32
    /// Whether it was frozen when found (the app was suspended); it is left as it was.
    public var isFrozen: Bool
    /// Its ``ProcessIdentity`` when adopted, or nil where the kernel gives none: a declaration
    /// must come from this very process, not from another given its pid since.
    public var processIdentity: UInt64?

    /// Creates one.
    public init(app: AppID, pid: Int32, isFrozen: Bool, processIdentity: UInt64? = nil) {
        self.app = app
        self.pid = pid
        self.isFrozen = isFrozen
        self.processIdentity = processIdentity
    }
}

/// Process control that starts, freezes and kills nothing: the daemon tracks states only.
///
/// For a daemon run with `--process-control none`, or tests of the protocol alone.
/// `bgctl status` shows its ``mechanism``.
public struct UnmanagedProcesses: AppProcesses {
    /// Creates it.
    public init() {}

    public var mechanism: String { "none (states are tracked, processes are not frozen or started)" }

    public func launch(_ app: InstalledApp, reason: LaunchReason, incarnation: Incarnation) throws {
        throw DaemonError(.socket, "this daemon cannot start processes (no process control)")
    }

    public func freeze(_ app: AppID) {}
    public func thaw(_ app: AppID) {}
    public func kill(_ app: AppID) {}

    public func admit(_ app: InstalledApp, peer: PeerIdentity?) -> String? {
        "there is no process control (--process-control none): processes are not frozen"
    }
}
