public import BackgroundCore
import BackgroundExecution
public import BackgroundPaths
import BackgroundPosix
public import BackgroundStore
public import Logging
public import ServiceLifecycle

/// `backgroundd` as a swift-service-lifecycle `Service`: opens the directories, the store and
/// the manifests, restores, serves the socket until graceful shutdown, then checkpoints the store.
public struct DaemonService: Service {
    /// The paths.
    public var paths: DaemonPaths
    /// The numbers in force.
    public var policy: SystemPolicy
    /// Process control.
    public var processes: any AppProcesses
    /// Limits on clients.
    public var limits: DaemonLimits
    /// Whether apps run under uids of their own (``AppIsolation``).
    public var isolation: AppIsolation
    /// The logger.
    public var logger: Logger
    /// Where the device's conditions are read and whether overrides are accepted
    /// (`backgroundd` passes the machine's probes; by default none).
    public var deviceSettings = DaemonDevice.Settings()
    /// Called once the socket is served, with the engine (tests, benchmarks).
    public var onReady: (@Sendable (DaemonEngine) -> Void)?
    /// The listening socket a service manager passed (socket activation), served instead of
    /// one the daemon binds; it must be bound to ``paths``' socket.
    public var activatedSocket: ActivatedSocket?
    /// The service manager's notification socket: told `READY=1` once the socket is served,
    /// `STOPPING=1` at the stop, `STATUS=` on the way, and `WATCHDOG=1` every
    /// ``watchdogInterval``.
    public var notifySocket: NotifySocket?
    /// How often the service manager's watchdog is pinged (``ServiceWatchdog``); nil: never.
    public var watchdogInterval: Duration?
    /// How long the apps the daemon started have, at the stop, between their
    /// `applicationWillTerminate(_:)` and the kill (``DaemonEngine/endStartedApps(within:)``).
    public var stopGrace: Duration = DaemonEngine.willTerminateTimeLimit

    /// Creates the service.
    public init(
        paths: DaemonPaths,
        policy: SystemPolicy = .iOS,
        processes: any AppProcesses = UnmanagedProcesses(),
        limits: DaemonLimits = .standard,
        isolation: AppIsolation = .sharedWithDaemon,
        logger: Logger = Logger(label: "backgroundd"),
        onReady: (@Sendable (DaemonEngine) -> Void)? = nil
    ) {
        self.paths = paths
        self.isolation = isolation
        self.policy = policy
        self.processes = processes
        self.limits = limits
        self.logger = logger
        self.onReady = onReady
    }

    public func run() async throws {
        notify(["STATUS=Starting: opening \(paths.state)"])
        let (engine, store) = try open()
        let server = try await DaemonServer.start(
            engine: engine,
            paths: paths,
            activated: activatedSocket,
            limits: limits,
            logger: logger
        )
        // After the start: the server makes the socket's own directory 0711.
        if isolation.hasAppUsers, let closed = AppContainer.unsearchableAncestor(of: paths.socket) {
            logger.warning(
                "apps under their own uids cannot reach the socket \(paths.socket) (\(closed) is not searchable by them): they keep the connection they start with, but cannot connect again after a restart; pass --socket in a searchable directory"
            )
        }
        engine.armTimer()
        engine.device.start(engine)
        let watcher = watchManifests(engine)
        onReady?(engine)
        let installed = engine.state.withLock { $0.installed.count }
        notify(["READY=1", "STATUS=Serving \(server.path): \(installed) apps installed"])
        await withTaskGroup(of: Void.self) { tasks in
            if let notifySocket, let watchdogInterval {
                logger.notice(
                    "watchdog: telling the service manager every \(watchdogInterval) that the daemon is alive"
                )
                tasks.addTask {
                    await pingWatchdog(notifySocket, every: watchdogInterval, server: server, engine: engine)
                }
            }
            try? await gracefulShutdown()
            tasks.cancelAll()
        }
        logger.notice("shutting down")
        notify(["STOPPING=1", "STATUS=Stopping"])
        watcher?.stop()
        // Before the server stops: the apps hear of their end on their connections.
        await engine.endStartedApps(within: stopGrace)
        await server.stop()
        engine.device.stop()
        do {
            try store.checkpoint()
        } catch {
            logger.error("the store could not be checkpointed: \(error)")
        }
    }

    /// Opens the state directory, the store and the manifests, and builds the engine.
    public func open() throws(DaemonError) -> (DaemonEngine, BackgroundStore) {
        try openStateDirectories()
        let store: BackgroundStore
        do {
            store = try BackgroundStore(path: paths.store)
        } catch {
            throw DaemonError(.store, "the store \(paths.store): \(error)")
        }
        let loader = manifestLoader(store: store)
        let manifests = try loader()
        for problem in manifests.problems {
            logger.error("manifest \(problem.file) not loaded: \(problem.reason)")
        }
        logger.notice(
            "\(manifests.apps.count) apps installed from \(paths.manifests)\(manifests.problems.isEmpty ? "" : " (\(manifests.problems.count) manifests not loaded)")"
        )
        let survivors = processes.adoptSurvivors(of: manifests.apps)
        var configuration = DaemonEngine.Configuration(
            policy: policy,
            reportsDirectory: paths.reports,
            journalPath: paths.state + "/journal.jsonl",
            logger: logger,
            isolation: isolation
        )
        configuration.deviceSettings = deviceSettings
        configuration.manifestLoader = loader
        let engine = try DaemonEngine(
            configuration: configuration,
            store: store,
            apps: manifests.apps,
            processes: processes,
            survivors: survivors
        )
        (processes as? SpawnedAppProcesses)?.bind(engine)
        logger.notice("process control: \(processes.mechanism); isolation: \(isolation)")
        if case .sharedUser(uid: 0, _) = isolation {
            logger.warning(
                "backgroundd runs as root and starts every app as root: --app-users auto gives each app a uid of its own (SECURITY.md)"
            )
        }
        // With per-app uids, transfers use the apps' own containers (owned by their uids).
        var containers = paths.state + "/containers"
        if case .perAppUsers(_, let appContainers) = isolation { containers = appContainers }
        engine.runTransfers(DaemonTransfers(configuration: .init(containers: containers, logger: logger), store: store))
        return (engine, store)
    }
}

extension DaemonService {
    /// Reads the manifests directory with every check of the start (``ManifestDirectory``), and
    /// with per-app uids gives each app its uid (``AppUserTable``): at the start and at each
    /// reload.
    func manifestLoader(store: BackgroundStore) -> @Sendable () throws(DaemonError) -> ManifestDirectory {
        let path = paths.manifests
        let isolation = self.isolation
        return { () throws(DaemonError) -> ManifestDirectory in
            var manifests = try ManifestDirectory.load(from: path)
            if case .perAppUsers(let range, _) = isolation {
                let users = try AppUserTable.assign(manifests.apps, range: range, store: store)
                manifests.apps = users.apps
                manifests.problems = (manifests.problems + users.problems).sorted {
                    ($0.file, $0.reason) < ($1.file, $1.reason)
                }
            }
            return manifests
        }
    }

    /// The state and reports directories, checked (made if missing). With per-app uids the state
    /// directory is `0711` (searchable, not listable), and the containers' directory is made and
    /// checked now, so that a place the apps cannot reach stops the daemon at start-up, naming
    /// the directory, rather than each app's launch.
    func openStateDirectories() throws(DaemonError) {
        let state: SecureDirectory
        do {
            state = try SecureDirectory.open(
                paths.state,
                access: isolation.hasAppUsers ? .ownerWritable : .privateToOwner
            )
            if isolation.hasAppUsers { try SystemCall.changeMode(of: state.descriptor, to: 0o711) }
            _ = try SecureDirectory.open(paths.reports, access: .ownerWritable)
        } catch {
            throw DaemonError(.unsafeDirectory, "\(error)")
        }
        if case .perAppUsers(_, let containers) = isolation {
            try AppContainer.checkRoot(containers)
        }
    }
}

extension DaemonService {
    /// Watches the manifests directory (``ManifestWatcher``) and reloads the apps after each
    /// change; nil, logged, where it cannot be watched (`bgctl daemon reload` still works).
    func watchManifests(_ engine: DaemonEngine) -> ManifestWatcher? {
        let logger = self.logger
        do {
            return try ManifestWatcher.start(watching: paths.manifests, logger: logger) {
                engine.reloadManifestsLogged(cause: "the manifests directory changed")
            }
        } catch {
            logger.warning("\(error); manifests are read again only with bgctl daemon reload")
            return nil
        }
    }

    /// Sends `assignments` to the service manager, if one listens; a failure is logged, never
    /// fatal (the daemon serves its apps whether or not the manager hears it).
    func notify(_ assignments: [String]) {
        guard let notifySocket else { return }
        do {
            try notifySocket.send(assignments)
        } catch {
            logger.warning("\(error)")
        }
    }

    /// `WATCHDOG=1` every `interval` for as long as the server's event loop runs and the
    /// engine's lock can be taken (``DaemonServer/responds(for:)``): a daemon stuck in either
    /// stops pinging, and the service manager ends and restarts it. Returns when cancelled.
    func pingWatchdog(
        _ socket: NotifySocket,
        every interval: Duration,
        server: DaemonServer,
        engine: DaemonEngine
    ) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            guard await server.responds(for: engine), !Task.isCancelled else { continue }
            do {
                try socket.send(["WATCHDOG=1"])
            } catch {
                logger.warning("\(error)")
            }
        }
    }
}

extension DaemonEngine {
    /// Whether the engine's lock can be taken (it never returns while the lock is stuck).
    func isResponsive() -> Bool {
        state.withLock { _ in true }
    }

    /// Arms the timer at the core's next deadline (after a restore).
    public func armTimer() {
        wakeups.arm(at: state.withLock { nextWake(in: $0) }, engine: self)
    }
}
