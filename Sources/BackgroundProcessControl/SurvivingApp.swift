/// An app a previous run of the daemon started that was still running when this controller
/// started: found in the cgroup subtree, and taken over by ``ProcessController/adoptSurvivors()``.
public struct SurvivingApp: Sendable, Hashable, CustomStringConvertible {
    /// The handle, now this controller's: freeze, thaw, kill, locks and exits work on it. Its
    /// exit status cannot be known (it is not this process's child): it ends as
    /// `.exited(code: -1)`.
    public let process: AppProcess
    /// Whether its cgroup was frozen when it was found; it is left as it was.
    public let isFrozen: Bool
    /// The pid of the daemon run that started it.
    public let startedBy: Int32

    public init(process: AppProcess, isFrozen: Bool, startedBy: Int32) {
        self.process = process
        self.isFrozen = isFrozen
        self.startedBy = startedBy
    }

    /// `com.example.news (pid 4242), frozen, started by daemon pid 17`.
    public var description: String {
        "\(process)\(isFrozen ? ", frozen" : ""), started by daemon pid \(startedBy)"
    }
}
