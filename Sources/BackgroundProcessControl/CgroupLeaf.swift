import BackgroundPosix

#if canImport(Glibc)
import Glibc
#endif

/// One app's cgroup: its directory held open, and its control files opened once, relative to
/// that descriptor, without following links.
final class CgroupLeaf: Sendable {
    /// The cgroup's name in the subtree.
    let name: String
    /// The cgroup directory (`clone3(CLONE_INTO_CGROUP)` takes its descriptor).
    let directory: SecureDirectory
    /// `cgroup.procs`, open for writing (the fork fallback moves the child with it).
    let procs: Int32
    private let parent: SecureDirectory
    private let freezeControl: Int32
    private let events: Int32
    /// `cgroup.events`, for a `poll` (`POLLPRI`) that wakes when it changes.
    var eventsDescriptor: Int32 { events }
    /// `cgroup.kill` (Linux 5.14 and later), or -1.
    private let killControl: Int32

    /// The cgroup's absolute path.
    var path: String { directory.path }

    init(name: String, directory: SecureDirectory, parent: SecureDirectory) throws(ProcessControlError) {
        self.name = name
        self.directory = directory
        self.parent = parent
        var opened: [Int32] = []
        do {
            for (file, flags) in [("cgroup.procs", O_WRONLY), ("cgroup.freeze", O_WRONLY), ("cgroup.events", O_RDONLY)]
            {
                opened.append(try Self.openControl(file, flags, in: directory))
            }
        } catch {
            for descriptor in opened { SystemCall.close(descriptor) }
            throw ProcessControlError(.cgroupFailed, operation: "cgroup \(directory.path)", error)
        }
        procs = opened[0]
        freezeControl = opened[1]
        events = opened[2]
        killControl = (try? Self.openControl("cgroup.kill", O_WRONLY, in: directory)) ?? -1
    }

    deinit {
        for descriptor in [procs, freezeControl, events, killControl] where descriptor >= 0 {
            SystemCall.close(descriptor)
        }
    }

    /// Opens a control file of the cgroup: a regular file owned by root or the daemon's user.
    private static func openControl(
        _ name: String,
        _ flags: Int32,
        in directory: SecureDirectory
    ) throws(SystemCallError) -> Int32 {
        let descriptor = try SystemCall.openAt(directory.descriptor, name, flags | O_NOFOLLOW)
        do throws(SystemCallError) {
            let status = try SystemCall.status(of: descriptor)
            let owner = status.st_uid
            guard status.st_mode & S_IFMT == S_IFREG, owner == 0 || owner == SystemCall.effectiveUserID else {
                throw SystemCallError(call: "check", subject: name, code: EPERM)
            }
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Writes `cgroup.freeze`: 1 freezes every process in the cgroup, 0 thaws them.
    func setFrozen(_ frozen: Bool) throws(ProcessControlError) {
        do {
            try SystemCall.writeAll(freezeControl, Array((frozen ? "1" : "0").utf8))
        } catch {
            throw ProcessControlError(.cgroupFailed, operation: "\(frozen ? "freeze" : "thaw") \(path)", error)
        }
    }

    /// Moves a running process (all its threads) into this cgroup: its pid written to
    /// `cgroup.procs`.
    func move(_ pid: pid_t) throws(ProcessControlError) {
        do {
            try SystemCall.writeAll(procs, Array(String(pid).utf8))
        } catch {
            throw ProcessControlError(.cgroupFailed, operation: "move pid \(pid) into \(path)", error)
        }
    }

    /// What `cgroup.events` says now.
    func state() throws(ProcessControlError) -> (populated: Bool, frozen: Bool) {
        let text: String
        do {
            text = try SystemCall.readFromStart(events)
        } catch {
            throw ProcessControlError(.cgroupFailed, operation: "read \(path)/cgroup.events", error)
        }
        var populated = false
        var frozen = false
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            if parts[0] == "populated" { populated = parts[1] == "1" }
            if parts[0] == "frozen" { frozen = parts[1] == "1" }
        }
        return (populated, frozen)
    }

    /// Waits for `frozen 1` in `cgroup.events`.
    ///
    /// The kernel wakes a `poll` (`POLLPRI`) on `cgroup.events` when it changes, but at most once
    /// per 10 ms per file (`CGROUP_FILE_NOTIFY_MIN_INTV`, `HZ/100`, in `kernel/cgroup/cgroup.c`):
    /// a freeze shortly after a thaw would be seen up to 10 ms late. The file itself is current,
    /// so the wait re-reads it after each wake-up and after short timeouts that grow from 50 µs
    /// to 1 ms; a freeze is seen at most about 1 ms after it happened.
    ///
    /// - Returns: whether the cgroup was frozen before `timeout` passed.
    func waitUntilFrozen(timeout: Duration) throws(ProcessControlError) -> Bool {
        try waitForEvents(timeout: timeout) { $0.frozen }
    }

    /// Waits until no process is left in the cgroup (`populated 0`).
    func waitUntilEmpty(timeout: Duration) throws(ProcessControlError) -> Bool {
        try waitForEvents(timeout: timeout) { !$0.populated }
    }

    private func waitForEvents(
        timeout: Duration,
        until condition: ((populated: Bool, frozen: Bool)) -> Bool
    ) throws(ProcessControlError) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var step = Duration.microseconds(50)
        while true {
            // Reading first re-arms the notification; a change after this read wakes the poll.
            if condition(try state()) { return true }
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { return false }
            var descriptors = [pollfd(fd: events, events: Int16(POLLPRI), revents: 0)]
            do {
                _ = try SystemCall.poll(&descriptors, timeout: min(left, step))
            } catch {
                throw ProcessControlError(.cgroupFailed, operation: "poll \(path)/cgroup.events", error)
            }
            step = min(step * 2, .milliseconds(1))
        }
    }

    /// The processes in the cgroup, from `cgroup.procs`.
    func members() throws(ProcessControlError) -> [pid_t] {
        do {
            let text = try SystemCall.readFile(directory.descriptor, "cgroup.procs")
            return text.split(separator: "\n").compactMap { pid_t($0) }.sorted()
        } catch {
            throw ProcessControlError(.cgroupFailed, operation: "read \(path)/cgroup.procs", error)
        }
    }

    /// Kills every process in the cgroup: `cgroup.kill`, or where the kernel has none, the
    /// cgroup frozen (so nothing forks) and each member sent `SIGKILL`.
    func killAll() throws(ProcessControlError) {
        if killControl >= 0 {
            do {
                try SystemCall.writeAll(killControl, Array("1".utf8))
                return
            } catch {
                throw ProcessControlError(.cgroupFailed, operation: "kill \(path)", error)
            }
        }
        try setFrozen(true)
        for pid in try members() {
            try? SystemCall.send(SIGKILL, to: pid)
        }
    }

    /// Removes the cgroup; it must be empty.
    func remove() throws(ProcessControlError) {
        do {
            try SystemCall.removeDirectoryAt(parent.descriptor, name)
        } catch {
            throw ProcessControlError(.cgroupFailed, operation: "remove \(path)", error)
        }
    }
}
