/// How a controller freezes apps: detected once at start-up, shown by `bgctl status`.
public enum FreezeMechanism: Sendable, Hashable, CustomStringConvertible {
    /// The cgroup v2 freezer: each app in its own cgroup under `subtree`, frozen by writing
    /// `cgroup.freeze` and confirmed by `frozen 1` in `cgroup.events`. Invisible to the app,
    /// covers every process it forks, and a frozen app can still be killed.
    case cgroupFreezer(subtree: String)
    /// `SIGSTOP` and `SIGCONT` to each app's process group, confirmed by state `T` in
    /// `/proc/<pid>/stat`; used when cgroups cannot be, for the reason given. An app can see
    /// these signals, and a process that leaves its process group escapes them.
    case processGroupSignals(reason: String)

    /// A short name for `--json`: `cgroup-freezer` or `process-group-signals`.
    public var name: String {
        switch self {
        case .cgroupFreezer: return "cgroup-freezer"
        case .processGroupSignals: return "process-group-signals"
        }
    }

    /// `cgroup v2 freezer in /sys/fs/cgroup/unified/backgroundd`, or
    /// `SIGSTOP/SIGCONT of each app's process group (cgroups not used: <reason>)`.
    public var description: String {
        switch self {
        case .cgroupFreezer(let subtree):
            return "cgroup v2 freezer in \(subtree)"
        case .processGroupSignals(let reason):
            return "SIGSTOP/SIGCONT of each app's process group (cgroups not used: \(reason))"
        }
    }
}
