public import BackgroundCore
import BackgroundExecution
import BackgroundPosix
public import BackgroundProcessControl
public import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Real process control for the daemon: apps started, frozen, thawed and killed through
/// `BackgroundProcessControl` (cgroup v2 freezer, or SIGSTOP/SIGCONT of the process group).
///
/// A launch makes a connected socket pair: the app gets one end as descriptor 3
/// (`BACKGROUND_CONNECTION_FD`), the daemon serves the other as that app's connection before the
/// app can write to it, so the app's identity holds by construction. Freezes and thaws of all
/// apps run in the order the engine asked for them. An exit reported by the controller is told
/// to the core (a crash as `128 + signal`), which releases what the process held.
public final class SpawnedAppProcesses: AppProcesses {
    private struct Table {
        var engine: DaemonEngine?
        var processes: [AppID: AppProcess] = [:]
        var incarnations: [AppID: Incarnation] = [:]
        /// The manifest's `SharedContainers` of each app: where a lock held at a freeze is `0xdead10cc`.
        var sharedContainers: [AppID: [String]] = [:]
        /// Each app's freezes and thaws, one after another; apps do not wait for each other.
        var chains: [AppID: Task<Void, Never>] = [:]
        var watcher: Task<Void, Never>?
        /// The apps whose process the user started, taken under control at its hello
        /// (``admit(_:peer:)``). Their end is their connection's close, not their exit.
        var admitted: Set<AppID> = []
    }

    private let controller: any ProcessController
    /// Subscribed at creation, so the exit of a survivor adopted before ``bind(_:)`` is not missed.
    private let exits: AsyncStream<ProcessExit>
    /// The daemon's socket, given to the apps it starts as `BACKGROUNDD_SOCKET` so that they can
    /// connect again after a restart of the daemon.
    private let socketPath: String?
    private let group: MultiThreadedEventLoopGroup
    private let limits: DaemonLimits
    private let logger: Logger
    private let table = Mutex(Table())
    /// With per-app uids, where the apps' containers are (`AppContainer`).
    private let isolation: AppIsolation

    /// Wraps `controller`; call ``bind(_:)`` with the engine before the first launch.
    ///
    /// - Parameter socketPath: The daemon's socket, passed to apps as `BACKGROUNDD_SOCKET`.
    public init(
        controller: any ProcessController,
        socketPath: String? = nil,
        limits: DaemonLimits = .standard,
        isolation: AppIsolation = .sharedWithDaemon,
        logger: Logger
    ) {
        self.isolation = isolation
        self.controller = controller
        self.exits = controller.exits()
        self.socketPath = socketPath
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.limits = limits
        self.logger = logger
    }

    deinit {
        table.withLock { $0.watcher?.cancel() }
        group.shutdownGracefully { _ in }
    }

    /// Connects the engine (launched apps' connections, exits) and starts watching exits.
    public func bind(_ engine: DaemonEngine) {
        let exits = self.exits
        let watcher = Task { [weak self] in
            for await exit in exits { self?.exited(exit) }
        }
        table.withLock {
            $0.engine = engine
            $0.watcher = watcher
        }
    }

    public var mechanism: String { controller.freezeMechanism.description }

    public func launch(_ app: InstalledApp, reason: LaunchReason, incarnation: Incarnation) throws {
        guard let command = app.launch else {
            throw DaemonError(.badManifest, "\(app.id) has no BackgroundLaunch in \(app.file): it cannot be launched")
        }
        // Checked again at each launch: the file or a directory above it may have changed hands.
        // A missing one is left to the spawn, which says so with its errno.
        if let problem = ExecutableTrust.problem(
            of: command.executable,
            daemonUID: SystemCall.effectiveUserID,
            missingIsAllowed: true
        ) {
            throw DaemonError(.badManifest, "\(app.id) is not launched: \(problem)")
        }
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw DaemonError(.socket, "socketpair: \(String(cString: strerror(errno)))")
        }
        let process: AppProcess
        do {
            var request = SpawnRequest(
                label: app.id.bundleIdentifier,
                executable: command.executable,
                arguments: command.arguments,
                workingDirectory: command.workingDirectory ?? "/",
                connection: ends[1]
            )
            var environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
            if case .perAppUsers(_, let containers) = isolation {
                try runAsItsUser(app, containers: containers, &request, &environment)
            }
            environment.merge(command.environment) { _, manifest in manifest }
            environment["BACKGROUND_APP"] = app.id.bundleIdentifier
            environment["BACKGROUND_LAUNCH_REASON"] = reason.rawValue
            if let socketPath { environment["BACKGROUNDD_SOCKET"] = socketPath }
            request.environment = environment
            process = try controller.spawn(request)
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[1])
        let engine = table.withLock { table -> DaemonEngine? in
            table.processes[app.id] = process
            table.admitted.remove(app.id)
            table.incarnations[app.id] = incarnation
            table.sharedContainers[app.id] = command.sharedContainers
            return table.engine
        }
        guard let engine else {
            close(ends[0])
            return
        }
        serve(ends[0], for: app.id, incarnation: incarnation, engine: engine)
    }

    /// With per-app uids: the app runs as its own user, with umask `007`, in its container
    /// (unless its manifest names a working directory), `HOME` and the XDG directories in it.
    /// An app without a uid (it could not get one) is never started as the daemon's user.
    private func runAsItsUser(
        _ app: InstalledApp,
        containers: String,
        _ request: inout SpawnRequest,
        _ environment: inout [String: String]
    ) throws(DaemonError) {
        guard let user = app.user else {
            throw DaemonError(
                .badConfiguration,
                "\(app.id) has no uid of its own, and is never started as the daemon's user"
            )
        }
        let container = try AppContainer.prepare(app, user: user, containers: containers)
        request.user = user
        request.umask = 0o007
        if app.launch?.workingDirectory == nil { request.workingDirectory = container }
        environment.merge(AppContainer.environment(container)) { _, container in container }
    }

    public func adoptSurvivors(of installed: [InstalledApp]) -> [AdoptedProcess] {
        let survivors: [SurvivingApp]
        do {
            survivors = try controller.adoptSurvivors()
        } catch {
            logger.error("the apps a previous run started cannot be looked for: \(error)")
            return []
        }
        let apps = Dictionary(installed.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var adopted: [AdoptedProcess] = []
        for survivor in survivors.sorted(by: { ($0.process.label, $0.process.pid) < ($1.process.label, $1.process.pid) }
        ) {
            let app = AppID(survivor.process.label)
            let taken = table.withLock { table -> Bool in
                guard apps[app] != nil, table.processes[app] == nil else { return true }
                table.processes[app] = survivor.process
                table.sharedContainers[app] = apps[app]?.launch?.sharedContainers ?? []
                return false
            }
            guard !taken else {
                let why =
                    apps[app] == nil ? "the app is not installed any more" : "another process of the app was adopted"
                logger.notice("\(survivor): killed: \(why)")
                do { try controller.kill(survivor.process) } catch { logger.error("\(app): kill failed: \(error)") }
                continue
            }
            logger.notice("\(app): adopted \(survivor)")
            // Its identity now: the controller has just checked that the pid is still this process.
            adopted.append(
                AdoptedProcess(
                    app: app,
                    pid: survivor.process.pid,
                    isFrozen: survivor.isFrozen,
                    processIdentity: ProcessIdentity.of(pid: survivor.process.pid)
                )
            )
        }
        return adopted
    }

    /// Serves the daemon's end of a launched app's socket (on the event loop, never inline:
    /// the engine's lock may be held by the caller).
    private func serve(_ descriptor: Int32, for app: AppID, incarnation: Incarnation, engine: DaemonEngine) {
        let limits = self.limits
        let logger = self.logger
        let loop = group.next()
        loop.execute {
            let bootstrap = NIOPipeBootstrap(group: loop).channelInitializer { channel in
                let link = SocketLink(linkID: SocketLinkIDs.next(), channel: channel, limits: limits, logger: logger)
                engine.attachInherited(link, app: app, incarnation: incarnation)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        FrameChannelHandler(engine: engine, link: link, peer: nil, limits: limits, logger: logger)
                    )
                }
            }
            bootstrap.takingOwnershipOfDescriptor(inputOutput: descriptor).whenFailure { error in
                logger.error("\(app): its connection cannot be served: \(error)")
            }
        }
    }

    /// Freezes the app's processes, unless they hold a lock on a file in one of its shared
    /// containers: then the engine is told (``DaemonEngine/suspendedHoldingLocks(_:_:)``), which
    /// ends the app with `0xdead10cc` through the core, and the app is not frozen.
    public func freeze(_ app: AppID) {
        let (shared, engine) = table.withLock { ($0.sharedContainers[app] ?? [], $0.engine) }
        inOrder(app) { controller, process in
            if !shared.isEmpty, let engine {
                // Reads every descriptor of every process of the app: as long as the app makes it
                // (issue 25, finding 6), so on a thread of its own, never the cooperative pool's.
                let locks = try await LinuxProcessController.offThread { () throws(ProcessControlError) in
                    try controller.locksHeld(by: process, under: shared)
                }.get()
                if !locks.isEmpty {
                    engine.suspendedHoldingLocks(app, locks.map(\.reportEntry))
                    return "not frozen: it holds \(locks.count) lock(s) in its shared containers"
                }
            }
            let took = try await controller.freeze(process)
            return "frozen in \(took)"
        }
    }

    public func thaw(_ app: AppID) {
        inOrder(app) { controller, process in
            try controller.thaw(process)
            return "thawed"
        }
    }

    /// Admits the process of an app the user started (``AppProcesses/admit(_:peer:)``): through
    /// the controller (its own cgroup, or signals to the group it leads), then checked to be the
    /// process that connected, not another given its pid since.
    public func admit(_ app: InstalledApp, peer: PeerIdentity?) -> String? {
        release(app.id)
        guard let peer else { return "its process is not known to the daemon (no peer credentials)" }
        let process: AppProcess
        do {
            process = try controller.admit(pid: peer.pid, label: app.id.bundleIdentifier)
        } catch {
            logger.warning("\(app.id): pid \(peer.pid) is not frozen when suspended: \(error.reason)")
            return error.reason
        }
        if let expected = peer.processIdentity, ProcessIdentity.of(pid: peer.pid) != expected {
            try? controller.thaw(process)
            return "pid \(peer.pid) is another process than the one that connected"
        }
        table.withLock { table in
            table.processes[app.id] = process
            table.admitted.insert(app.id)
            table.sharedContainers[app.id] = app.launch?.sharedContainers ?? []
        }
        logger.info(
            "\(app.id): pid \(peer.pid), started by the user, is under control (\(process.cgroup ?? "signals"))"
        )
        return nil
    }

    /// Lets an admitted process go, thawed after the freezes and thaws asked before.
    public func release(_ app: AppID) {
        let wasAdmitted = table.withLock { $0.admitted.contains(app) }
        guard wasAdmitted else { return }
        inOrder(app) { controller, process in
            try controller.thaw(process)
            return "let go (thawed)"
        }
        table.withLock { table in
            table.admitted.remove(app)
            table.processes[app] = nil
            table.sharedContainers[app] = nil
        }
    }

    public func pid(of app: AppID) -> Int32? {
        table.withLock { $0.processes[app]?.pid }
    }

    public func kill(_ app: AppID) {
        guard let process = table.withLock({ $0.processes[app] }) else { return }
        do {
            try controller.kill(process)
        } catch {
            logger.error("\(app): kill failed: \(error)")
        }
    }

    /// Runs an app's freezes and thaws one after another, in the order asked; another app's
    /// never waits for them (a slow lock scan of one app cannot delay the thaw of the app the
    /// user opens).
    private func inOrder(
        _ app: AppID,
        _ operation: @escaping @Sendable (any ProcessController, AppProcess) async throws -> String
    ) {
        let controller = self.controller
        let logger = self.logger
        table.withLock { table in
            guard let process = table.processes[app] else { return }
            let previous = table.chains[app]
            table.chains[app] = Task {
                await previous?.value
                do {
                    let done = try await operation(controller, process)
                    logger.debug("\(app): \(done)")
                } catch {
                    logger.error("\(app): \(error)")
                }
            }
        }
    }

    private func exited(_ exit: ProcessExit) {
        let found = table.withLock { table -> (AppID, DaemonEngine?)? in
            guard let (app, _) = table.processes.first(where: { $0.value == exit.process }) else { return nil }
            table.processes[app] = nil
            table.incarnations[app] = nil
            table.sharedContainers[app] = nil
            // A process the user started ends with its connection, which the engine saw close
            // or will: its status is unknown here (not this process's child).
            if table.admitted.remove(app) != nil { return (app, nil) }
            return (app, table.engine)
        }
        guard let (app, engine) = found, let engine else { return }
        let status: Int32
        switch exit.status {
        case .exited(let code): status = code
        case .signaled(let signal, _): status = 128 + signal
        }
        logger.info("\(app): its process \(exit.status)")
        engine.processExited(app, status: status)
    }
}

/// Connection numbers for links the daemon makes itself (launched apps), apart from accepted ones.
enum SocketLinkIDs {
    private static let counter = Atomic<Int>(1 << 40)
    static func next() -> Int { counter.add(1, ordering: .relaxed).newValue }
}
