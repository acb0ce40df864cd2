import BackgroundPosix
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// The real ``ProcessController``: app processes on this Linux machine.
///
/// At start-up it decides how to freeze (``freezeMechanism``): the cgroup v2 freezer if it
/// can create a subtree in its own cgroup (or the configured delegated one), create a child
/// cgroup there, freeze and thaw it and start a process in it; otherwise SIGSTOP/SIGCONT of each
/// app's process group, with the reason. Each app it starts is in its own cgroup from its first
/// instruction (see ``Spawner``), leads its own process group, and is watched through a pidfd.
///
/// When an app's main process ends, whatever else it left running is killed (its cgroup, or
/// its process group), its cgroup is removed once empty, and the exit is reported: an app is
/// its main process, as on iOS.
public final class LinuxProcessController: ProcessController {
    public let freezeMechanism: FreezeMechanism
    private let configuration: ProcessControlConfiguration
    let tree: CgroupTree?
    let table: ProcessTable
    /// Tests only: start every app by the fork fallback, as where `clone3` is refused.
    private let forcingFork: Bool

    /// Detects the freezing mechanism and starts the exit watcher.
    ///
    /// - Throws: ``ProcessControlError`` only if the watcher cannot start (no pipe, no
    ///   thread); a machine without usable cgroups gives a controller that uses signals.
    public convenience init(configuration: ProcessControlConfiguration = .init()) throws(ProcessControlError) {
        try self.init(configuration: configuration, forcingFork: false)
    }

    /// Tests only: `forcingFork` starts every app by the fork fallback (the child moves itself
    /// into its cgroup through `cgroup.procs`), the path taken where `clone3` is refused.
    ///
    /// `keptExits`: how many exited apps' exits ``exit(of:)`` still answers for (4096 unless
    /// set); beyond that the oldest are forgotten and answered as `.exited(code: -1)`.
    package init(
        configuration: ProcessControlConfiguration,
        forcingFork: Bool,
        keptExits: Int = 4096
    ) throws(ProcessControlError) {
        self.configuration = configuration
        self.forcingFork = forcingFork
        switch configuration.freezer {
        case .processGroupSignals:
            tree = nil
            freezeMechanism = .processGroupSignals(reason: "configured (freezer: process-group-signals)")
        case .automatic:
            switch CgroupTree.detect(configuration) {
            case .available(let found):
                tree = found
                freezeMechanism = .cgroupFreezer(subtree: found.path)
            case .unavailable(let reason):
                tree = nil
                freezeMechanism = .processGroupSignals(reason: reason)
            }
        }
        // Without cgroups, only pid records find the apps again after a restart.
        let records = try tree == nil ? configuration.pidRecordDirectory.map(PidRecords.init(path:)) : nil
        table = try ProcessTable(keptExits: keptExits, pidRecords: records)
        try table.startWatcher()
    }

    deinit { table.stop() }

    public func spawn(_ request: SpawnRequest) throws(ProcessControlError) -> AppProcess {
        let serial = ProcessSerial.next()
        let leaf = try tree?.makeLeaf(label: request.label, serial: serial)
        let started: Spawner.Started
        do {
            started = try Spawner.spawn(request, in: leaf, forcingFork: forcingFork)
        } catch {
            try? leaf?.remove()
            throw error
        }
        let process = AppProcess(label: request.label, pid: started.pid, serial: serial, cgroup: leaf?.path)
        guard let records = table.pidRecords else {
            table.add(.init(process: process, pidfd: started.pidfd, leaf: leaf))
            return process
        }
        // Recorded before anything else can happen to it (it is not reaped before it is in the
        // table, so its /proc entry is its own); an app that cannot be recorded is not started.
        let name = LeafName(label: request.label, serial: serial)
        let recorded = Result { () throws(ProcessControlError) in
            try records.record(
                name,
                pid: started.pid,
                startTime: ProcFileSystem.status(of: started.pid)?.startTime ?? 0
            )
        }
        table.add(.init(process: process, pidfd: started.pidfd, leaf: leaf, pidRecord: name))
        if case .failure(let error) = recorded {
            try? kill(process)
            throw ProcessControlError(.spawnFailed, operation: "spawn \(request.label)", reason: error.description)
        }
        return process
    }

    @discardableResult
    public func freeze(_ process: AppProcess) async throws(ProcessControlError) -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        let leaf = try running(process, "freeze").leaf
        let timeout = configuration.freezeTimeout
        let result = await Self.offThread { () throws(ProcessControlError) -> Bool in
            if let leaf {
                try leaf.setFrozen(true)
                return try leaf.waitUntilFrozen(timeout: timeout)
            }
            return try SignalFreezer.stop(group: process.pid, timeout: timeout)
        }
        guard try result.get() else {
            try? thaw(process)
            throw ProcessControlError(
                .freezeTimedOut,
                operation: "freeze \(process)",
                reason: "not frozen within \(timeout); thawed again"
            )
        }
        return start.duration(to: clock.now)
    }

    public func thaw(_ process: AppProcess) throws(ProcessControlError) {
        guard let leaf = try running(process, "thaw").leaf else {
            try SignalFreezer.signal(SIGCONT, group: process.pid, operation: "thaw \(process)")
            try StrayProcesses.signal(SIGCONT, descendantsOf: process.pid, outside: process.pid)
            return
        }
        try leaf.setFrozen(false)
    }

    public func kill(_ process: AppProcess) throws(ProcessControlError) {
        guard let record = table.record(of: process) else {
            throw ProcessControlError(
                .unknownProcess,
                operation: "kill \(process)",
                reason: "not started by this controller"
            )
        }
        guard record.exit == nil else { return }
        if let leaf = record.leaf {
            try leaf.killAll()
        } else {
            // The strays first: once the main process is killed they are init's, out of reach.
            try StrayProcesses.signal(SIGKILL, descendantsOf: process.pid, outside: process.pid)
            try SignalFreezer.signal(SIGKILL, group: process.pid, operation: "kill \(process)")
        }
    }

    public func exit(of process: AppProcess) async -> ProcessExit {
        await table.exit(of: process)
    }

    public func exits() -> AsyncStream<ProcessExit> {
        table.exits()
    }

    public func locksHeld(
        by process: AppProcess,
        under sharedDirectories: [String]
    ) throws(ProcessControlError) -> [HeldLock] {
        _ = try running(process, "locks of")
        return LockScanner.locks(heldBy: try members(of: process), under: sharedDirectories)
    }

    /// The processes of the app now: its cgroup's, or its process group's.
    public func members(of process: AppProcess) throws(ProcessControlError) -> [Int32] {
        guard let leaf = try running(process, "members of").leaf else {
            return try ProcFileSystem.members(ofGroup: process.pid)
        }
        return try leaf.members()
    }

    /// The record of a process that has not exited yet.
    private func running(_ process: AppProcess, _ verb: String) throws(ProcessControlError) -> ProcessTable.Record {
        guard let record = table.record(of: process) else {
            throw ProcessControlError(
                .unknownProcess,
                operation: "\(verb) \(process)",
                reason: "not started by this controller"
            )
        }
        guard record.exit == nil else {
            throw ProcessControlError(.notRunning, operation: "\(verb) \(process)", reason: "it has exited")
        }
        return record
    }

    /// Runs blocking work (a `poll` on `cgroup.events`, reads of `/proc`) on a Dispatch
    /// thread, never on the caller's cooperative thread.
    package static func offThread<Value: Sendable>(
        _ work: @escaping @Sendable () throws(ProcessControlError) -> Value
    ) async -> Result<Value, ProcessControlError> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(ProcessControlError) -> Value in try work() })
            }
        }
    }
}
