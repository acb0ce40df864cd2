import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A loopback HTTP/1.1 server for transfer tests and benchmarks: ranges, ETags, connections
/// dropped mid-body, slow bodies, 5xx, redirects, a resource that changes, lies about lengths and
/// ranges, and byte counters per path. It listens on 127.0.0.1, or on a socket made elsewhere
/// (in another network namespace: ``NamespacedHost``).
///
/// ```swift
/// let server = try await LoopbackServer.start()
/// server.set("/book", LoopbackRoute(size: 1 << 20))
/// // … download server.url("/book") …
/// server.counters("/book").bytesSent
/// try await server.shutdown()
/// ```
public final class LoopbackServer: Sendable {
    let state = Mutex(ServerState())
    private let channel: any Channel
    /// The port it listens on.
    public let port: Int
    /// The address it listens on, as a URL's host writes it.
    public let host: String

    struct ServerState {
        var routes: [String: LoopbackRoute] = [:]
        var counters: [String: LoopbackCounters] = [:]
        var served: [String: Int] = [:]
    }

    private init(channel: any Channel, port: Int, host: String) {
        self.channel = channel
        self.port = port
        self.host = host
    }

    /// Starts a server on 127.0.0.1 and a free port (or `port`).
    public static func start(port: Int = 0) async throws -> LoopbackServer {
        try await start(host: "127.0.0.1") { bootstrap in
            bootstrap.serverChannelOption(.socketOption(.so_reuseaddr), value: 1).bind(host: "127.0.0.1", port: port)
        }
    }

    /// Starts a server on `socket`, a stream socket already bound and listening (its descriptor is
    /// the server's from then on), reached at `host` (an IPv4 address).
    public static func start(listeningSocket socket: Int32, host: String) async throws -> LoopbackServer {
        try await start(host: host) { $0.withBoundSocket(socket) }
    }

    private static func start(
        host: String,
        _ bind: (ServerBootstrap) -> EventLoopFuture<any Channel>
    ) async throws -> LoopbackServer {
        let box = Mutex<LoopbackServer?>(nil)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMapThrowing {
                    guard let server = box.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    try channel.pipeline.syncOperations.addHandler(LoopbackHandler(server: server))
                }
            }
        let channel = try await bind(bootstrap).get()
        let server = LoopbackServer(channel: channel, port: channel.localAddress?.port ?? 0, host: host)
        box.withLock { $0 = server }
        return server
    }

    /// `http://<host>:<port><path>` (`http://127.0.0.1:<port><path>` unless started elsewhere).
    public func url(_ path: String) -> String { "http://\(host):\(port)\(path)" }

    /// Serves `route` on `path` (replacing what was there).
    public func set(_ path: String, _ route: LoopbackRoute) {
        state.withLock { $0.routes[path] = route }
    }

    /// Changes the route on `path`.
    public func change(_ path: String, _ body: (inout LoopbackRoute) -> Void) {
        state.withLock { state in
            guard var route = state.routes[path] else { return }
            body(&route)
            state.routes[path] = route
        }
    }

    /// What was counted on `path`.
    public func counters(_ path: String) -> LoopbackCounters {
        state.withLock { $0.counters[path] ?? LoopbackCounters() }
    }

    /// Stops listening (open connections end with their answers).
    public func shutdown() async throws {
        try await channel.close()
    }
}
