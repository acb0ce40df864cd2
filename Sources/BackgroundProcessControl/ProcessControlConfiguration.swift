/// How a ``LinuxProcessController`` freezes apps and where it puts their cgroups.
public struct ProcessControlConfiguration: Sendable, Hashable {
    /// Which freezing mechanism to use.
    public enum Freezer: Sendable, Hashable {
        /// The cgroup v2 freezer if a child cgroup can be created and frozen at start-up,
        /// otherwise SIGSTOP/SIGCONT of process groups (the reason is kept in
        /// ``FreezeMechanism/processGroupSignals(reason:)``).
        case automatic
        /// SIGSTOP/SIGCONT of process groups, without trying cgroups.
        case processGroupSignals
    }

    /// Which freezing mechanism to use; `.automatic` unless set.
    public var freezer: Freezer
    /// The delegated cgroup directory to create the subtree in (a systemd `Delegate=yes`
    /// unit's cgroup, or one chowned to the daemon's user). Nil: the daemon's own cgroup, found
    /// from `/proc/self/cgroup` under the cgroup2 mount in `/proc/self/mountinfo`.
    public var cgroupRoot: String?
    /// The name of the subtree the controller creates in the root; one name, no `/`.
    public var subtreeName: String
    /// How long ``ProcessController/freeze(_:)`` waits for the kernel's confirmation.
    public var freezeTimeout: Duration
    /// With SIGSTOP/SIGCONT (no cgroups), the directory where each app started is recorded (its
    /// pid and start time, one file per start, `0700`/`0600`), so that a controller started after
    /// this one died finds the apps again (``ProcessController/adoptSurvivors()``). Nil: nothing
    /// is recorded, and after a restart on the fallback no survivor is found. Unused with cgroups
    /// (their names are the record).
    public var pidRecordDirectory: String?

    public init(
        freezer: Freezer = .automatic,
        cgroupRoot: String? = nil,
        subtreeName: String = "backgroundd",
        freezeTimeout: Duration = .seconds(2),
        pidRecordDirectory: String? = nil
    ) {
        self.freezer = freezer
        self.cgroupRoot = cgroupRoot
        self.subtreeName = subtreeName
        self.freezeTimeout = freezeTimeout
        self.pidRecordDirectory = pidRecordDirectory
    }
}
