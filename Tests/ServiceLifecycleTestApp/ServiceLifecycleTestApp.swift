import BackgroundExecution
import BackgroundServiceLifecycle
import Dispatch
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

// A service process for BackgroundServiceLifecycleTests: the bridge in a real ServiceGroup, in
// a process of its own, ended by a real SIGTERM. Not a product. Its lines on standard output
// are the events the tests wait for.
//
//   service-lifecycle-test-app leak <grace seconds>
//       The README's ExportServiceLifecycle with one background task never ended: prints
//       "ready" once the group runs; after SIGTERM the watchdog ends the app once the grace is
//       over.
//   service-lifecycle-test-app server
//       The bridge and a loopback HTTP server in one group, the bridge first: prints
//       "listening on <port>". `POST /export` begins a background task that finishes on SIGUSR1
//       (so the test, not the clock, decides when); every answer closes its connection.

func say(_ line: String) {
    print(line)
    fflush(nil)
}

/// SIGUSR1, as an event the export awaits.
final class Release: Sendable {
    private struct SourceBox: @unchecked Sendable { let source: any DispatchSourceSignal }

    private final class Waiters: Sendable {
        let state = Mutex<(released: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func release() {
            let waiting = state.withLock { state in
                state.released = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    private let waiters = Waiters()
    private let source: SourceBox

    init() {
        signal(SIGUSR1, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
        let waiters = self.waiters
        source.setEventHandler { waiters.release() }
        source.resume()
        self.source = SourceBox(source: source)
    }

    func wait() async {
        let waiters = self.waiters
        await withCheckedContinuation { continuation in
            let now = waiters.state.withLock { state in
                if !state.released { state.waiting.append(continuation) }
                return state.released
            }
            if now { continuation.resume() }
        }
    }
}

/// Says "ready" once the group runs (its signal handlers are installed before any service
/// starts), then waits for the graceful shutdown.
struct Ready: Service {
    func run() async throws {
        say("ready")
        try? await gracefulShutdown()
    }
}

/// A loopback HTTP/1.1 server as a Service: graceful shutdown closes the listener (new
/// connections are refused) and the service returns once it is closed.
final class ExportServer: Service, Sendable {
    let onExport: @Sendable () -> Void

    init(onExport: @escaping @Sendable () -> Void) { self.onExport = onExport }

    func run() async throws {
        let onExport = self.onExport
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(ExportHandler(onExport: onExport))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        say("listening on \(channel.localAddress?.port ?? 0)")
        try await withGracefulShutdownHandler {
            try await channel.closeFuture.get()
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
        say("listener closed")
    }
}

final class ExportHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let onExport: @Sendable () -> Void
    private var head: HTTPRequestHead?

    init(onExport: @escaping @Sendable () -> Void) { self.onExport = onExport }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request): head = request
        case .body: break
        case .end:
            let found = head?.method == .POST && head?.uri == "/export"
            if found { onExport() }
            let body = found ? "export started\n" : "not found\n"
            let headers = HTTPHeaders([("Content-Length", "\(body.utf8.count)"), ("Connection", "close")])
            let status: HTTPResponseStatus = found ? .accepted : .notFound
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                promise: nil
            )
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

@main
enum ServiceLifecycleTestApp {
    static func main() async throws {
        let logger = Logger(label: "service-lifecycle-test-app")
        let arguments = CommandLine.arguments.dropFirst()
        let mode = arguments.first ?? ""
        let grace = Int(arguments.dropFirst().first ?? "") ?? 30
        let background = BackgroundExecutionService(
            configuration: .init(
                app: "com.example.exporter",
                policy: .server(grace: .seconds(grace)),
                effectObserver: { _, effect in
                    if case .stateChanged(_, _, let to) = effect, to == .background {
                        say("app entered the background")
                    }
                }
            )
        )
        let app = UIApplication.bootstrap(background.system)
        switch mode {
        case "leak":
            _ = app.beginBackgroundTask(withName: "Nightly export")  // never ended
            // "ready" comes from a service: the group traps its signals before it starts them.
            let group = ServiceGroup(
                configuration: .init(
                    services: [background, Ready()],
                    gracefulShutdownSignals: [.sigterm],
                    logger: logger
                )
            )
            try await group.run()
            say("group returned")
        case "server":
            let release = Release()
            let server = ExportServer {
                let task = app.beginBackgroundTask(withName: "Export")
                say("export started")
                Task {
                    await release.wait()
                    say("export finished")
                    app.endBackgroundTask(task)
                }
            }
            // The bridge first: the group stops the server (last) first, then moves the app to the
            // background.
            let group = ServiceGroup(
                configuration: .init(
                    services: [background, server],
                    gracefulShutdownSignals: [.sigterm],
                    logger: logger
                )
            )
            try await group.run()
            say("group returned")
        default:
            FileHandle.standardError.write(Data("usage: service-lifecycle-test-app leak <grace> | server\n".utf8))
            exit(64)
        }
    }
}
