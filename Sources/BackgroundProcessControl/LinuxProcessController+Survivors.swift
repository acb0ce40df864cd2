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
    /// A cgroup is named `<label>@<daemon pid>.<serial>`. One whose daemon pid is this process,
    /// or a process still alive, belongs to a running controller and is left alone. Of a dead
    /// run's cgroups: an empty one is removed; one whose main process (the member that leads
    /// its own process group and whose parent is not in the cgroup) is gone has what is left
    /// killed, as when an app's main process exits; the others are adopted. A label is found
    /// again from the name, as ``CgroupTree/safeName(_:)`` wrote it (bundle identifiers are
    /// kept as they are).
    public func adoptSurvivors() throws(ProcessControlError) -> [SurvivingApp] {
        guard let tree else { return [] }
        var adopted: [SurvivingApp] = []
        for name in try tree.leafNames() {
            guard let owner = LeafName(name), owner.daemon != SystemCall.processID, !Self.isAlive(owner.daemon) else {
                continue
            }
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

    /// Whether a process with this pid exists (a reused pid counts: the cgroup is then left
    /// alone, which is the safe mistake).
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

/// `<label>@<daemon pid>.<serial>`, the name of an app's cgroup.
struct LeafName: Hashable {
    var label: String
    var daemon: pid_t
    var serial: UInt64

    init?(_ name: String) {
        guard let at = name.lastIndex(of: "@") else { return nil }
        let numbers = name[name.index(after: at)...].split(separator: ".")
        guard numbers.count == 2, let daemon = pid_t(numbers[0]), daemon > 0, let serial = UInt64(numbers[1]) else {
            return nil
        }
        label = String(name[..<at])
        self.daemon = daemon
        self.serial = serial
    }
}
