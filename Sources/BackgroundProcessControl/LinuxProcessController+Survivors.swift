import BackgroundExecution
import CProcessSpawn

#if canImport(Glibc)
import Glibc
#endif

extension LinuxProcessController {
    /// Takes over the apps in the subtree's cgroups that a previous, dead run of the daemon
    /// started. With the SIGSTOP fallback there are no cgroups to find them by, and none are
    /// found (the daemon would have to have recorded their pids).
    ///
    /// A cgroup is named `<label>@<daemon pid>.<run>.<serial>`. One made by this run of this
    /// process, or whose daemon pid is another live process, belongs to a running controller
    /// and is left alone (one with this process's pid but another run is an earlier daemon
    /// that had the same pid, as a daemon that is pid 1 in a container always has). Of a dead
    /// run's cgroups: an empty one is removed; one whose main process (the member that leads
    /// its own process group and whose parent is not in the cgroup) is gone has what is left
    /// killed, as when an app's main process exits; the others are adopted. A label is found
    /// again from the name, as ``CgroupTree/safeName(_:)`` wrote it (bundle identifiers are
    /// kept as they are).
    public func adoptSurvivors() throws(ProcessControlError) -> [SurvivingApp] {
        guard let tree else { return [] }
        var adopted: [SurvivingApp] = []
        for name in try tree.leafNames() {
            guard let owner = LeafName(name), !owner.isThisRun else { continue }
            // Another process with the daemon's pid runs: a live controller's (or the pid was
            // reused, and the cgroup is left alone: the safe mistake). This process's pid with
            // another run is an earlier daemon that had the same pid.
            if owner.daemon != SystemCall.processID && Self.isAlive(owner.daemon) { continue }
            guard !table.watches(cgroup: tree.path + "/" + name), let leaf = try? tree.openLeaf(named: name) else {
                continue  // adopted already, or refused by the checks
            }
            let members = try leaf.members()
            guard !members.isEmpty else {
                try? leaf.remove()
                continue
            }
            guard let main = Self.mainProcess(of: members) else {
                try? leaf.killAll()
                continue  // removed by a later start-up once empty
            }
            let pidfd = cps_pidfd_open(main)
            guard pidfd >= 0 else { continue }  // it ended in between
            let process = AppProcess(label: owner.label, pid: main, serial: ProcessSerial.next(), cgroup: leaf.path)
            let frozen = (try? leaf.state().frozen) ?? false
            table.add(.init(process: process, pidfd: pidfd, leaf: leaf, isChild: false))
            adopted.append(SurvivingApp(process: process, isFrozen: frozen, startedBy: owner.daemon))
        }
        return adopted
    }

    /// Whether a process with this pid exists.
    private static func isAlive(_ pid: pid_t) -> Bool {
        Glibc.kill(pid, 0) == 0 || errno == EPERM
    }

    /// The member that leads its own process group and whose parent is not in the cgroup.
    private static func mainProcess(of members: [pid_t]) -> pid_t? {
        let inside = Set(members)
        return members.sorted().first { pid in
            guard let status = ProcFileSystem.status(of: pid) else { return false }
            return status.processGroup == pid && !inside.contains(status.parent) && status.state != "Z"
        }
    }
}

/// `<label>@<daemon pid>.<run>.<serial>`, the name of an app's cgroup: the label, the pid of
/// the daemon that made it, that daemon's run (8 hex digits, ``ProcessSerial/run``) and the
/// start's serial.
struct LeafName: Hashable {
    var label: String
    var daemon: pid_t
    var run: String
    var serial: UInt64

    /// The name of a cgroup this process makes.
    init(label: String, serial: UInt64) {
        self.label = label
        self.daemon = SystemCall.processID
        self.run = ProcessSerial.run
        self.serial = serial
    }

    /// Parses a name; nil for anything that is not an app's cgroup.
    init?(_ name: String) {
        guard let at = name.lastIndex(of: "@") else { return nil }
        let parts = name[name.index(after: at)...].split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let daemon = pid_t(parts[0]), daemon > 0, parts[1].count == 8,
            UInt32(parts[1], radix: 16) != nil, let serial = UInt64(parts[2])
        else { return nil }
        label = String(name[..<at])
        self.daemon = daemon
        run = String(parts[1])
        self.serial = serial
    }

    var text: String { "\(label)@\(daemon).\(run).\(serial)" }

    /// Made by this run of this process.
    var isThisRun: Bool { daemon == SystemCall.processID && run == ProcessSerial.run }
}
