import BackgroundPosix
import CProcessSpawn

#if canImport(Glibc)
import Glibc
#endif

extension LinuxProcessController {
    /// Takes a process the user started under control (``ProcessController/admit(pid:label:)``).
    ///
    /// Its pidfd is opened first, so a pid reused later is never the one frozen or killed. With
    /// cgroups, a cgroup of its own is made in the subtree and the process is moved into it by a
    /// write of its pid to `cgroup.procs` (the process and its threads; children it had already
    /// started stay where they were). The kernel allows the move only where the daemon may write
    /// the `cgroup.procs` of both cgroups' common ancestor: root may; an unprivileged daemon may
    /// for processes in its own delegated subtree only. Where the move is refused, or without
    /// cgroups, signals are the fallback, for a process that leads its own process group (as a
    /// shell with job control, `setsid` or systemd start it): the group is what SIGSTOP stops
    /// and what SIGKILL ends, and a group shared with the shell that started it is never
    /// signalled.
    ///
    /// A later run of the daemon (after a crash or `kill -9`) finds an admitted process by its
    /// cgroup or its pid record, marked as admitted: it is let run (thawed, or continued), never
    /// adopted or killed, and admitted again when the app connects again.
    ///
    /// - Throws: ``ProcessControlError``: `.notRunning` if the process is gone or a zombie,
    ///   `.unknownProcess` with both reasons when neither way can control it.
    public func admit(pid: Int32, label: String) throws(ProcessControlError) -> AppProcess {
        let operation = "admit \(label) (pid \(pid))"
        guard pid > 1 else {
            throw ProcessControlError(.unknownProcess, operation: operation, reason: "not an app's process id")
        }
        let pidfd = cps_pidfd_open(pid)
        guard pidfd >= 0 else {
            throw ProcessControlError(.notRunning, operation: operation, reason: "it has exited")
        }
        // Read after the pidfd is open: this status is of the process the pidfd is, or it ended.
        guard let status = ProcFileSystem.status(of: pid), status.state != "Z", status.state != "X" else {
            SystemCall.close(pidfd)
            throw ProcessControlError(.notRunning, operation: operation, reason: "it has exited")
        }
        let serial = ProcessSerial.next()
        var refusals: [String] = []
        if let tree {
            do {
                let leaf = try tree.makeLeaf(label: label, serial: serial, admitted: true)
                do {
                    try leaf.move(pid)
                    let process = AppProcess(label: label, pid: pid, serial: serial, cgroup: leaf.path)
                    table.add(.init(process: process, pidfd: pidfd, leaf: leaf, isChild: false))
                    return process
                } catch {
                    try? leaf.remove()
                    refusals.append("it cannot be moved into a cgroup of its own (\(error.reason))")
                }
            } catch {
                refusals.append("no cgroup can be made for it (\(error.reason))")
            }
        }
        guard status.processGroup == pid else {
            SystemCall.close(pidfd)
            refusals.append(
                "it does not lead its own process group (group \(status.processGroup)), so it cannot be stopped "
                    + "with signals without stopping what started it; start it with setsid, or with "
                    + "`bgctl daemon open`"
            )
            throw ProcessControlError(.unknownProcess, operation: operation, reason: refusals.joined(separator: "; "))
        }
        do {
            try SystemCall.send(0, to: -pid)
        } catch {
            SystemCall.close(pidfd)
            refusals.append("its process group cannot be signalled (errno \(error.code))")
            throw ProcessControlError(.unknownProcess, operation: operation, reason: refusals.joined(separator: "; "))
        }
        let process = AppProcess(label: label, pid: pid, serial: serial, cgroup: nil)
        // Recorded, where pids are, so that a later run continues it if it was stopped.
        let name = LeafName(label: label, serial: serial, admitted: true)
        let isRecorded: Bool
        do {
            try table.pidRecords?.record(name, pid: pid, startTime: status.startTime ?? 0)
            isRecorded = table.pidRecords != nil
        } catch {
            isRecorded = false  // it is controlled all the same; a later run will not find it
        }
        table.add(.init(process: process, pidfd: pidfd, leaf: nil, isChild: false, pidRecord: isRecorded ? name : nil))
        return process
    }
}
