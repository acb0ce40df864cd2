public import BackgroundExecution
import BackgroundPaths
import BackgroundPosix
public import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's Unix-domain socket: `0600`, in a `0700` directory checked by `SecureDirectory`
/// (with per-app uids, ``AppIsolation/perAppUsers(_:containers:)``: `0666` in a `0711` directory,
/// so that apps can connect as their own users; peer credentials decide what each may do).
/// The daemon binds it, or serves the one a service manager passed (``ActivatedSocket``), with
/// the same modes and checks; it removes only a socket it bound itself.
public final class DaemonServer: Sendable {
    /// The socket's path.
    public let path: String
    private let directory: SecureDirectory
    private let socketName: String
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    /// Whether the socket was passed by a service manager (which owns its file).
    private let activated: Bool

    private init(
        path: String,
        directory: SecureDirectory,
        socketName: String,
        channel: any Channel,
        group: MultiThreadedEventLoopGroup,
        activated: Bool
    ) {
        self.path = path
        self.directory = directory
        self.socketName = socketName
        self.channel = channel
        self.group = group
        self.activated = activated
    }

    /// Binds the socket, or takes `activated`, and serves `engine` on it.
    ///
    /// A socket left by a daemon that is gone (nothing accepts on it) is replaced; one that a
    /// running daemon serves is an error (``DaemonError/Code-swift.enum/alreadyRunning``). An
    /// activated socket must be bound to `paths.socket`; its directory, which the service
    /// manager made, is checked as the daemon's own (owned by the daemon's user, no link, nobody
    /// else may write it) and given the modes the daemon gives its own.
    public static func start(
        engine: DaemonEngine,
        paths: DaemonPaths,
        activated: ActivatedSocket? = nil,
        limits: DaemonLimits = .standard,
        logger: Logger
    ) async throws(DaemonError) -> DaemonServer {
        let directory: SecureDirectory
        // With per-app uids the apps connect (again, after a restart) as their own users: the
        // directory is searchable and the socket open to all, and SO_PEERCRED decides who is
        // who (`PeerIdentity.swift`). Otherwise only the daemon's user reaches it.
        let appUsers = engine.configuration.isolation.hasAppUsers
        if let activated, activated.path != paths.socket {
            throw DaemonError(
                .badConfiguration,
                "the socket passed by the service manager is \(activated.path), not \(paths.socket)"
            )
        }
        do {
            directory = try SecureDirectory.open(
                paths.socketDirectory,
                access: appUsers || activated != nil ? .ownerWritable : .privateToOwner,
                creating: activated == nil
            )
        } catch {
            throw DaemonError(.unsafeDirectory, "socket directory \(error)")
        }
        let name = paths.socketName
        let throughDescriptor = directory.pathThroughDescriptor(name)
        if activated == nil, (try? directory.status(of: name)) != nil {
            if SocketProbe.accepts(throughDescriptor) {
                throw DaemonError(.alreadyRunning, "another backgroundd serves \(paths.socket)")
            }
            try? directory.removeSocket(name)
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let counter = Atomic<Int>(0)
        let admission = Admission(limits: limits, logger: logger)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.allowRemoteHalfClosure, value: false)
            .childChannelInitializer { channel in
                let id = counter.add(1, ordering: .relaxed).newValue
                let link = SocketLink(linkID: id, channel: channel, limits: limits, logger: logger)
                return PeerCredentialsReader.read(channel).flatMapThrowing { peer in
                    guard admission.admit(channel, id: id, peer: peer) else { return }
                    engine.connected(link)
                    try channel.pipeline.syncOperations.addHandler(
                        FrameChannelHandler(engine: engine, link: link, peer: peer, limits: limits, logger: logger)
                    )
                }
            }
        let channel: any Channel
        do {
            if let activated {
                channel = try await bootstrap.withBoundSocket(activated.descriptor).get()
            } else {
                channel = try await bootstrap.bind(unixDomainSocketPath: throughDescriptor).get()
            }
            try SystemCall.changeModeAt(directory.descriptor, name, to: appUsers ? 0o666 : 0o600)
            try SystemCall.changeMode(of: directory.descriptor, to: appUsers ? 0o711 : 0o700)
        } catch {
            try? await group.shutdownGracefully()
            throw DaemonError(.socket, "cannot serve \(paths.socket): \(error)")
        }
        let passed = activated.map { " (passed by the service manager as descriptor \($0.descriptor))" } ?? ""
        logger.notice("listening on \(paths.socket)\(passed)")
        return DaemonServer(
            path: paths.socket,
            directory: directory,
            socketName: name,
            channel: channel,
            group: group,
            activated: activated != nil
        )
    }

    /// Whether the server's event loop runs and the engine's lock can be taken there: what a
    /// watchdog ping vouches for (``ServiceWatchdog``). Never returns while either is stuck.
    public func responds(for engine: DaemonEngine) async -> Bool {
        (try? await channel.eventLoop.submit { engine.isResponsive() }.get()) ?? false
    }

    /// Stops accepting, closes every connection and removes the socket (one the service
    /// manager passed stays: its file is the manager's, and it queues connections while the
    /// daemon is away).
    public func stop() async {
        try? await channel.close()
        if !activated { try? directory.removeSocket(socketName) }
        try? await group.shutdownGracefully()
    }
}

/// The connection quota of a server (``ConnectionQuota``), applied at accept, with its
/// refusals logged sparingly (``RefusalLog``).
final class Admission: Sendable {
    private let state: Mutex<(quota: ConnectionQuota, refusals: RefusalLog)>
    private let logger: Logger

    init(limits: DaemonLimits, logger: Logger) {
        let quota = ConnectionQuota(
            limits: .init(
                maximumConnections: limits.maximumConnections,
                maximumPerUser: limits.maximumConnectionsPerUser,
                reservedForPrivileged: limits.reservedConnections
            ),
            privileged: limits.privilegedUserIDs ?? [0, SystemCall.effectiveUserID]
        )
        state = Mutex((quota, RefusalLog()))
        self.logger = logger
    }

    /// Counts the connection against its uid until it closes, or closes it at once. A peer
    /// without credentials counts as a uid nobody has.
    func admit(_ channel: any Channel, id: Int, peer: PeerIdentity?) -> Bool {
        let uid = peer?.uid ?? UInt32.max
        let (decision, logged) = state.withLock { state -> (ConnectionQuota.Decision, Int?) in
            let decision = state.quota.admit(uid: uid)
            guard case .refused = decision else { return (decision, nil) }
            return (decision, state.refusals.refused(uid: uid))
        }
        guard case .refused(let reason) = decision else {
            channel.closeFuture.whenComplete { [self] _ in state.withLock { $0.quota.release(uid: uid) } }
            return true
        }
        if let logged {
            logger.warning("connection \(id) refused (\(logged) of uid \(uid) so far): \(reason)")
        }
        channel.close(promise: nil)
        return false
    }
}

/// Reads `SO_PEERCRED` of a connected channel.
enum PeerCredentialsReader {
    /// `struct ucred`: { pid_t pid; uid_t uid; gid_t gid; } (Glibc's module map hides it).
    struct Credentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    static func read(_ channel: any Channel) -> EventLoopFuture<PeerIdentity?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let future: EventLoopFuture<Credentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        )
        return future.flatMap { credentials in
            // SO_PEERPIDFD (77, Linux 6.5): a pidfd of the process that connected. Older kernels
            // refuse the option (ENOPROTOOPT): no identity, the pid alone.
            let pidfd: EventLoopFuture<Int32> = provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET),
                name: SocketOptionName(77)
            )
            return pidfd.map { descriptor -> UInt64? in
                defer { close(descriptor) }
                return ProcessIdentity.of(pidfd: descriptor)
            }
            .recover { _ in nil }
            .map { PeerIdentity.reading(pid: credentials.pid, uid: credentials.uid, identity: $0) }
        }
    }
}

/// Whether something accepts connections on a socket path (a live daemon), without speaking.
enum SocketProbe {
    static func accepts(_ path: String) -> Bool {
        guard let socket = try? SystemCall.unixStreamSocket() else { return false }
        defer { SystemCall.close(socket) }
        do {
            try SystemCall.connect(socket, to: path)
            return true
        } catch {
            return false
        }
    }
}
