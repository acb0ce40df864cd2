import BackgroundPosix
import CProcessSpawn
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The processes a controller started, and the thread that watches them end.
///
/// The watcher blocks in one `poll` on every live process's pidfd (readable when it exits), on
/// the `cgroup.events` of every cgroup waiting to become empty, and on a pipe that wakes it
/// when the table changes: no busy polling, no `SIGCHLD` handler, and no `waitpid(-1)` that
/// would steal the exits of children other code in the process started. Each exit is reaped
/// with `waitid(P_PIDFD)`; before that, while the exited process still holds its process group
/// id, whatever else the app left running (in its cgroup, or its process group) is killed.
final class ProcessTable: Sendable {
    struct Record {
        var process: AppProcess
        /// The pidfd, or -1 once reaped.
        var pidfd: Int32
        var leaf: CgroupLeaf?
        /// Whether this process is this process's child, to reap; false for adopted survivors.
        var isChild = true
        /// Its pid record (the SIGSTOP fallback, ``PidRecords``), removed once it is reaped.
        var pidRecord: LeafName?
        var exit: ProcessExit?
        var waiters: [CheckedContinuation<ProcessExit, Never>] = []
    }

    struct State {
        var records: [UInt64: Record] = [:]
        var subscribers: [UInt64: AsyncStream<ProcessExit>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        /// Cgroups of exited apps that still had processes; removed once `populated 0`.
        var emptying: [CgroupLeaf] = []
        /// The serials of exited processes whose records are kept, oldest first.
        var exited: [UInt64] = []
        var stopping = false
    }

    let state = Mutex(State())
    /// How many exited processes' records are kept, so that ``exit(of:)`` still answers for
    /// them; older ones are forgotten (a record is a few hundred bytes).
    let keptExits: Int
    /// Where the apps' pids are recorded (the SIGSTOP fallback), if they are.
    let pidRecords: PidRecords?
    /// The watcher polls `wake.read`; a byte written to `wake.write` wakes it.
    private let wake: (read: Int32, write: Int32)

    init(keptExits: Int = 4096, pidRecords: PidRecords? = nil) throws(ProcessControlError) {
        self.keptExits = max(1, keptExits)
        self.pidRecords = pidRecords
        do {
            wake = try SystemCall.nonBlockingPipe()
        } catch {
            throw ProcessControlError(.systemCallFailed, operation: "exit watcher", error)
        }
    }

    deinit {
        SystemCall.close(wake.read)
        SystemCall.close(wake.write)
        // Apps still running when their controller goes keep running, unwatched.
        for record in state.withLock({ $0.records.values.filter { $0.pidfd >= 0 } }) {
            SystemCall.close(record.pidfd)
        }
    }

    /// Starts the watcher thread; it holds the table until ``stop()``.
    func startWatcher() throws(ProcessControlError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread,
            nil,
            { context in
                let table = Unmanaged<ProcessTable>.fromOpaque(context!).takeRetainedValue()
                table.watch()
                return nil
            },
            context
        )
        guard result == 0 else {
            Unmanaged<ProcessTable>.fromOpaque(context).release()
            throw ProcessControlError(
                .systemCallFailed,
                operation: "exit watcher",
                reason: "pthread_create: errno \(result)",
                errno: result
            )
        }
        pthread_detach(thread)
    }

    /// Ends the watcher and every exit stream.
    func stop() {
        let subscribers = state.withLock { state in
            state.stopping = true
            defer { state.subscribers = [:] }
            return state.subscribers.sorted { $0.key < $1.key }.map(\.value)
        }
        for subscriber in subscribers { subscriber.finish() }
        notify()
    }

    /// Adds a started process and wakes the watcher so it polls its pidfd too.
    func add(_ record: Record) {
        state.withLock { $0.records[record.process.serial] = record }
        notify()
    }

    /// The record of `process`, if this table has it.
    func record(of process: AppProcess) -> Record? {
        state.withLock { $0.records[process.serial] }.flatMap { $0.process == process ? $0 : nil }
    }

    /// Whether a process of this table still runs in the cgroup at `path`.
    func watches(cgroup path: String) -> Bool {
        state.withLock { $0.records.values.contains { $0.exit == nil && $0.process.cgroup == path } }
    }

    private func notify() {
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)  // a full pipe already wakes the watcher
    }

    // MARK: The watcher thread

    private func watch() {
        while true {
            let (stopping, live, emptying) = state.withLock { state in
                (
                    state.stopping,
                    // In start order, so exits that arrive together are reported in that order.
                    state.records.values.filter { $0.pidfd >= 0 }.map { ($0.process.serial, $0.pidfd) }
                        .sorted { $0.0 < $1.0 },
                    state.emptying
                )
            }
            if stopping { return }
            var descriptors = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            descriptors += live.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
            descriptors += emptying.map { pollfd(fd: $0.eventsDescriptor, events: Int16(POLLPRI), revents: 0) }
            do {
                _ = try SystemCall.poll(&descriptors, timeout: nil)
            } catch {
                // Only a bug or exhausted resources (EINVAL above RLIMIT_NOFILE descriptors,
                // ENOMEM) get here; wait a little rather than spin, then try again.
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                _ = nanosleep(&pause, nil)
                continue
            }
            if descriptors[0].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 512)
                while read(wake.read, &drained, drained.count) > 0 {}
            }
            for (index, entry) in live.enumerated() where descriptors[1 + index].revents != 0 {
                reap(serial: entry.0)
            }
            for (index, leaf) in emptying.enumerated() where descriptors[1 + live.count + index].revents != 0 {
                removeIfEmpty(leaf)
            }
        }
    }

    /// The main process of `serial` has exited: end the rest of the app, reap it, report it.
    private func reap(serial: UInt64) {
        guard let record = state.withLock({ $0.records[serial] }), record.pidfd >= 0 else { return }
        if let leaf = record.leaf {
            try? leaf.killAll()
        } else {
            try? SystemCall.send(SIGKILL, to: -record.process.pid)  // the zombie still holds the group id
        }
        var signaled: Int32 = 0
        var value: Int32 = 0
        var coreDumped: Int32 = 0
        let error = record.isChild ? cps_reap(record.pidfd, &signaled, &value, &coreDumped) : ECHILD
        SystemCall.close(record.pidfd)
        if let name = record.pidRecord { pidRecords?.remove(name) }
        // ECHILD: not ours to reap (an adopted survivor), or someone else reaped it (SIGCHLD
        // ignored, or a waitpid(-1) elsewhere in the process); the status is lost, -1 says so.
        let status: TerminationStatus =
            error != 0
            ? .exited(code: -1)
            : signaled != 0 ? .signaled(signal: value, coreDumped: coreDumped != 0) : .exited(code: value)
        let exit = ProcessExit(process: record.process, status: status)
        let (waiters, subscribers) = state.withLock { state in
            state.records[serial]?.pidfd = -1
            state.records[serial]?.exit = exit
            let waiters = state.records[serial]?.waiters ?? []
            state.records[serial]?.waiters = []
            state.records[serial]?.leaf = nil
            if let leaf = record.leaf { state.emptying.append(leaf) }
            state.exited.append(serial)
            if state.exited.count > keptExits { state.records[state.exited.removeFirst()] = nil }
            return (waiters, state.subscribers.sorted { $0.key < $1.key }.map(\.value))
        }
        if let leaf = record.leaf { removeIfEmpty(leaf) }
        for waiter in waiters { waiter.resume(returning: exit) }
        for subscriber in subscribers { subscriber.yield(exit) }
    }

    private func removeIfEmpty(_ leaf: CgroupLeaf) {
        guard let populated = try? leaf.state().populated, !populated else { return }
        try? leaf.remove()
        state.withLock { $0.emptying.removeAll { $0 === leaf } }
    }

    // MARK: Waiting for exits

    /// Returns `process`'s exit, waiting for it if it is still running.
    func exit(of process: AppProcess) async -> ProcessExit {
        await withCheckedContinuation { continuation in
            let done: ProcessExit? = state.withLock { state in
                guard let record = state.records[process.serial], record.process == process else {
                    // Not ours, or exited long ago and forgotten: ended, the status unknown (-1).
                    return ProcessExit(process: process, status: .exited(code: -1))
                }
                if let exit = record.exit { return exit }
                state.records[process.serial]?.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// A new stream of every exit from now on.
    func exits() -> AsyncStream<ProcessExit> {
        let (stream, continuation) = AsyncStream<ProcessExit>.makeStream()
        let added = state.withLock { state -> UInt64? in
            guard !state.stopping else { return nil }
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        guard let added else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: added) }
        }
        return stream
    }
}
