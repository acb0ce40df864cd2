import BackgroundPosix
import CProcessSpawn

#if canImport(Glibc)
import Glibc
#endif

extension LinuxProcessController {
    /// Takes over the apps in the subtree's cgroups that a previous, dead run of the daemon
    /// started. With the SIGSTOP fallback there are no cgroups to find them by: they are found
    /// by their pid records (``ProcessControlConfiguration/pidRecordDirectory``, see
    /// ``adoptRecordedSurvivors(_:)``), and without records none are.
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
        guard let tree else { return try table.pidRecords.map(adoptRecordedSurvivors) ?? [] }
        var adopted: [SurvivingApp] = []
        for name in try tree.leafNames() {
            // This process's pid with another run is an earlier daemon that had the same pid.
            guard let owner = LeafName(name), Self.isDeadRun(owner) else { continue }
            guard !table.watches(cgroup: tree.path + "/" + name), let leaf = try? tree.openLeaf(named: name) else {
                continue  // adopted already, or refused by the checks
            }
            let members = try leaf.members()
            guard !members.isEmpty else {
                try? leaf.remove()
                continue
            }
            guard !owner.admitted else {
                // The user started it: it runs on, thawed, and is admitted again when it
                // connects again; its cgroup is removed by a later start-up once empty.
                try? leaf.setFrozen(false)
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

    /// Whether a leaf name is a dead run's: not this run's, and its daemon's pid is not another
    /// live process (a live controller's, or the pid was reused: the safe mistake).
    private static func isDeadRun(_ owner: LeafName) -> Bool {
        !owner.isThisRun && (owner.daemon == SystemCall.processID || !isAlive(owner.daemon))
    }

    /// Whether a process with this pid exists and has not ended: a zombie (a killed daemon its
    /// parent has not reaped yet) answers `kill(pid, 0)` but is dead, and its apps survivors.
    /// Where its status cannot be read it counts as alive (the safe mistake).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard Glibc.kill(pid, 0) == 0 || errno == EPERM else { return false }
        let state = ProcFileSystem.status(of: pid)?.state
        return state != "Z" && state != "X"
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

extension LinuxProcessController {
    /// The SIGSTOP fallback's survivors: the processes a dead run recorded (``PidRecords``) that
    /// still run as the process recorded (the pid with the same start time, not a zombie). Each
    /// is watched through a pidfd opened before its start time is checked, so a pid reused in
    /// between is never taken; its record is renamed to this run's. A record whose process is
    /// gone is removed, and what its process group left running is killed, as when an app's
    /// main process exits (while a process group has members its id is not given to another
    /// process, so the group is still the app's). A record of a live run is left alone.
    func adoptRecordedSurvivors(_ records: PidRecords) throws(ProcessControlError) -> [SurvivingApp] {
        var adopted: [SurvivingApp] = []
        for entry in try records.entries() where Self.isDeadRun(entry.name) {
            if entry.name.admitted {
                // The user started it: continued if it still runs as recorded (its group is its
                // own, checked at its admission), never killed; admitted again when it connects.
                if ProcFileSystem.status(of: entry.pid)?.startTime == entry.startTime {
                    try? SystemCall.send(SIGCONT, to: -entry.pid)
                }
                records.remove(entry.name)
                continue
            }
            let pidfd = cps_pidfd_open(entry.pid)
            let opening = errno
            guard pidfd >= 0 || opening == ESRCH else {
                throw ProcessControlError(
                    .systemCallFailed,
                    operation: "adopt \(entry.name.label) (pid \(entry.pid))",
                    reason: "pidfd_open: errno \(opening)",
                    errno: opening
                )
            }
            // Read after the pidfd is open: the pidfd is the process this start time is of, or
            // one that has ended since.
            let status = ProcFileSystem.status(of: entry.pid)
            let isRecorded = status != nil && status?.startTime == entry.startTime
            guard pidfd >= 0, let status, isRecorded, status.state != "Z" else {
                if pidfd >= 0 { SystemCall.close(pidfd) }
                // Gone, or a zombie: its group's members are what it left. Another process with
                // its pid: the recorded one's group ended before the pid was given again.
                if status == nil || isRecorded { try? SystemCall.send(SIGKILL, to: -entry.pid) }
                records.remove(entry.name)
                continue
            }
            let serial = ProcessSerial.next()
            let renamed = LeafName(label: entry.name.label, serial: serial)
            do {
                try records.rename(entry.name, to: renamed)
            } catch {
                SystemCall.close(pidfd)
                throw error
            }
            let process = AppProcess(label: entry.name.label, pid: entry.pid, serial: serial, cgroup: nil)
            table.add(.init(process: process, pidfd: pidfd, leaf: nil, isChild: false, pidRecord: renamed))
            adopted.append(SurvivingApp(process: process, isFrozen: status.state == "T", startedBy: entry.name.daemon))
        }
        return adopted
    }
}

/// `<label>@<daemon pid>.<run>.<serial>`, the name of an app's cgroup: the label, the pid of
/// the daemon that made it, that daemon's run (8 hex digits, ``ProcessSerial/run``) and the
/// start's serial.
///
/// A process the user started and the daemon admitted (``LinuxProcessController/admit(pid:label:)``)
/// has its serial written `u<serial>`: a later run of the daemon neither adopts it (the app
/// connects again and is admitted again) nor kills it; it only lets it run.
struct LeafName: Hashable {
    var label: String
    var daemon: pid_t
    var run: String
    var serial: UInt64
    /// Whether the process was started by the user and admitted, not started by the daemon.
    var admitted = false

    /// The name of a cgroup (or pid record) this process makes.
    init(label: String, serial: UInt64, admitted: Bool = false) {
        self.label = label
        self.daemon = SystemCall.processID
        self.run = ProcessSerial.run
        self.serial = serial
        self.admitted = admitted
    }

    /// Parses a name; nil for anything that is not an app's cgroup.
    init?(_ name: String) {
        guard let at = name.lastIndex(of: "@") else { return nil }
        let parts = name[name.index(after: at)...].split(separator: ".", omittingEmptySubsequences: false)
        let admitted = parts.count == 3 && parts[2].hasPrefix("u")
        guard parts.count == 3, let daemon = pid_t(parts[0]), daemon > 0, parts[1].count == 8,
            UInt32(parts[1], radix: 16) != nil, let serial = UInt64(parts[2].dropFirst(admitted ? 1 : 0))
        else { return nil }
        label = String(name[..<at])
        self.daemon = daemon
        run = String(parts[1])
        self.serial = serial
        self.admitted = admitted
    }

    var text: String { "\(label)@\(daemon).\(run).\(admitted ? "u" : "")\(serial)" }

    /// Made by this run of this process.
    var isThisRun: Bool { daemon == SystemCall.processID && run == ProcessSerial.run }
}
