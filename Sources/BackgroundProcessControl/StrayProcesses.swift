import BackgroundPosix
import CProcessSpawn

#if canImport(Glibc)
import Glibc
#endif

/// The processes of an app that left its process group, for the `SIGSTOP` fallback, which has
/// no cgroup to hold them: a child that calls `setsid` or `setpgid`, or forks twice, is out of
/// reach of the group's signals (issue 25, finding 7).
///
/// Without a cgroup the app is started as a child subreaper (`cps_request.subreaper`), so
/// whatever its descendants leave behind becomes its child rather than init's, and every process
/// it starts stays its descendant while it runs. Its strays are its descendants outside its
/// process group, found by parentage in `/proc`. Each is signalled through a pidfd opened first
/// and its parent and start read again after, so a pid given to another process in between is
/// never signalled. Once the app's main process has ended, what it left outside its group is
/// init's and no longer found (SECURITY.md).
enum StrayProcesses {
    /// Sends `signal` to every descendant of `root` outside process group `group`; returns
    /// those it reached, sorted.
    @discardableResult
    static func signal(
        _ signal: Int32,
        descendantsOf root: pid_t,
        outside group: pid_t
    ) throws(ProcessControlError)
        -> [pid_t]
    {
        guard let rootStart = ProcFileSystem.status(of: root)?.startTime else { return [] }
        var reached: [pid_t] = []
        for (pid, parent) in try descendants(of: root) where getpgid(pid) != group {
            let pidfd = cps_pidfd_open(pid)
            guard pidfd >= 0 else { continue }  // ended in between
            defer { SystemCall.close(pidfd) }
            // Read after the pidfd is open: still the process found, not a later one with its pid.
            guard let status = ProcFileSystem.status(of: pid), status.parent == parent,
                let start = status.startTime, start >= rootStart, cps_pidfd_send_signal(pidfd, signal) == 0
            else { continue }
            reached.append(pid)
        }
        return reached.sorted()
    }

    /// Every descendant of `root` with its parent, from one pass over `/proc`.
    static func descendants(of root: pid_t) throws(ProcessControlError) -> [(pid: pid_t, parent: pid_t)] {
        var children: [pid_t: [pid_t]] = [:]
        for pid in try ProcFileSystem.processes() {
            guard let parent = ProcFileSystem.status(of: pid)?.parent else { continue }
            children[parent, default: []].append(pid)
        }
        var found: [(pid_t, pid_t)] = []
        var queue = [root]
        while let parent = queue.popLast() {
            for child in children[parent] ?? [] where child != root {
                found.append((child, parent))
                queue.append(child)
            }
        }
        return found.sorted { $0.0 < $1.0 }
    }
}
