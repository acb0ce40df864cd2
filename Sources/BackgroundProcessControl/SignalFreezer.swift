import BackgroundPosix

#if canImport(Glibc)
import Glibc
#endif

/// The fallback freezer: `SIGSTOP` and `SIGCONT` to an app's process group.
///
/// The kernel tells a non-parent nothing when a process stops, so `stop` confirms by reading
/// each member's state in `/proc/<pid>/stat` until every one shows `T`. The members are listed
/// once, right after the signal: a process forking at that moment either finished the fork
/// before the signal (and its child is listed) or has its fork restarted after the stop. The
/// checks back off from 50 µs to 2 ms, bounded by the timeout; a stop usually takes effect
/// before the first check.
enum SignalFreezer {
    /// Sends `signal` to every process of the group; a group that no longer exists is not an error.
    static func signal(_ signal: Int32, group: pid_t, operation: String) throws(ProcessControlError) {
        do {
            try SystemCall.send(signal, to: -group)
        } catch  where error.code == ESRCH {
            return
        } catch {
            throw ProcessControlError(.systemCallFailed, operation: operation, error)
        }
    }

    /// Stops the group and the app's processes that left it (``StrayProcesses``: the group's
    /// leader is the app's main process), and waits until each is stopped.
    ///
    /// - Returns: whether they all were before `timeout`.
    static func stop(group: pid_t, timeout: Duration) throws(ProcessControlError) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        try signal(SIGSTOP, group: group, operation: "freeze process group \(group)")
        let strays = try StrayProcesses.signal(SIGSTOP, descendantsOf: group, outside: group)
        let members = try ProcFileSystem.members(ofGroup: group) + strays
        var pause = Duration.microseconds(50)
        while true {
            if members.allSatisfy(ProcFileSystem.isStoppedOrGone) { return true }
            guard clock.now < deadline else { return false }
            let nanoseconds = pause.components.attoseconds / 1_000_000_000 + pause.components.seconds * 1_000_000_000
            var time = timespec(tv_sec: 0, tv_nsec: Int(nanoseconds))
            _ = nanosleep(&time, nil)
            pause = min(pause * 2, .milliseconds(2))
        }
    }
}
