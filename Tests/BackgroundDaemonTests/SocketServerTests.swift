import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import BackgroundStore
import Foundation
import Logging
import Testing

/// The daemon's socket with real connections: framing, limits, identity and stuck clients.
@Suite("Daemon socket server")
struct SocketServerTests {
    static let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/proc/self/exe"

    /// A served engine in a temporary state directory; `body` gets the socket's path.
    static func withServer(
        limits: DaemonLimits = .standard,
        installingThisProcess: Bool = false,
        _ body: (String, DaemonEngine) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let paths = DaemonPaths(state: directory.path + "/state")
        // The test process is com.example.self's process only when asked: an app's process is
        // never a control client.
        let this = InstalledApp(
            manifest: AppManifest(bundleIdentifier: "com.example.self"),
            launch: LaunchCommand(executable: installingThisProcess ? me : "/usr/bin/true"),
            file: "self.json"
        )
        let apps = [
            this,
            InstalledApp(
                manifest: AppManifest(bundleIdentifier: "com.example.other"),
                launch: LaunchCommand(executable: "/bin/false"),
                file: "other.json"
            ),
        ]
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let engine = try DaemonEngine(
            configuration: .init(logger: logger),
            store: .inMemory(),
            apps: apps,
            processes: RecordingProcesses()
        )
        let server = try await DaemonServer.start(engine: engine, paths: paths, limits: limits, logger: logger)
        do {
            try await body(paths.socket, engine)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("the socket is 0600 in a 0700 directory, and a control client gets its answers")
    func permissionsAndStatus() async throws {
        try await Self.withServer { path, _ in
            let socketMode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            let directory = (path as NSString).deletingLastPathComponent
            let directoryMode = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
            #expect(socketMode == 0o600)
            #expect(directoryMode == 0o700)
            let client = try SocketClient(path: path)
            let answer = try client.hello(.control)
            guard case .welcome? = answer else {
                Issue.record("no welcome: \(String(describing: answer))")
                return
            }
            let status = try #require(try client.control(.status))
            #expect(status.outcome == .ok)
            #expect(status.json.contains("\"installedApps\":2"))
        }
    }

    @Test("a malformed frame closes that connection only; the daemon goes on serving")
    func malformedFrame() async throws {
        try await Self.withServer { path, _ in
            let bad = try SocketClient(path: path)
            try bad.sendRaw(Frame.encode(Array("not a message".utf8)))
            #expect(bad.waitForClose())
            let truncated = try SocketClient(path: path)
            var message = try ProtocolCodec.encode(DaemonRequest.hello(ClientHello(role: .control)))
            message.removeLast(3)
            try truncated.sendRaw(Frame.encode(message))
            #expect(truncated.waitForClose())
            let good = try SocketClient(path: path)
            guard case .welcome? = try good.hello(.control) else {
                Issue.record("a later client was not served")
                return
            }
        }
    }

    @Test("an oversized frame is refused from its header alone")
    func oversizedFrame() async throws {
        try await Self.withServer(limits: DaemonLimits(maximumFrameBytes: 1024)) { path, _ in
            let client = try SocketClient(path: path)
            try client.sendRaw([0, 0, 4, 1])  // announces 1025 bytes, sends none
            #expect(client.waitForClose())
        }
    }

    @Test("a client that never says hello is closed after the hello timeout")
    func helloTimeout() async throws {
        try await Self.withServer(limits: DaemonLimits(helloTimeout: .milliseconds(200))) { path, _ in
            let client = try SocketClient(path: path)
            #expect(client.waitForClose())
        }
    }

    @Test("a client that does not read is disconnected; another is served meanwhile")
    func stuckClient() async throws {
        try await Self.withServer(limits: DaemonLimits(maximumPendingBytesPerClient: 16 * 1024)) { path, _ in
            let stuck = try SocketClient(path: path)
            guard case .welcome? = try stuck.hello(.control) else {
                Issue.record("no welcome")
                return
            }
            let request = try Frame.encode(ProtocolCodec.encode(DaemonRequest.control(.apps)))
            // Thousands of requests, no reads: the replies pile up past the kernel's buffer.
            for _ in 0..<3000 { try? stuck.sendRaw(request) }
            let other = try SocketClient(path: path)
            guard case .welcome? = try other.hello(.control) else {
                Issue.record("another client was not served while one was stuck")
                return
            }
            #expect(try other.control(.status)?.outcome == .ok)
            #expect(stuck.waitForClose())
        }
    }

    @Test("peer credentials: the real executable is the app, another is not")
    func peerCredentials() async throws {
        try await Self.withServer(installingThisProcess: true) { path, engine in
            let genuine = try SocketClient(path: path)
            guard case .welcome(let welcome)? = try genuine.hello(.app("com.example.self")) else {
                Issue.record("the genuine app was not welcomed")
                return
            }
            #expect(welcome.incarnation == Incarnation(rawValue: 1))
            let impostor = try SocketClient(path: path)
            guard case .refused(let refusal)? = try impostor.hello(.app("com.example.other")) else {
                Issue.record("the impostor was not refused")
                return
            }
            #expect(refusal.code == .notTheApp)
            #expect(impostor.waitForClose())
            #expect(engine.answer(.apps).json.contains("\"connected\":true"))
        }
    }

    @Test("an app's begin and end over the socket are answered")
    func beginEnd() async throws {
        try await Self.withServer(installingThisProcess: true) { path, engine in
            let app = try SocketClient(path: path)
            _ = try app.hello(.app("com.example.self"))
            let begin = Event.beginAssertion(
                "com.example.self",
                name: "Upload",
                origin: CallSite(),
                hasExpirationHandler: true
            )
            try app.send(.app(.event(begin)))
            guard case .system(.answer(.granted(let id)?, _))? = try app.receive() else {
                Issue.record("no grant")
                return
            }
            #expect(engine.answer(.assertions(nil)).text.contains("Upload"))
            try app.send(.app(.event(.endAssertion("com.example.self", id))))
            guard case .system(.answer(nil, _))? = try app.receive() else {
                Issue.record("no answer to the end")
                return
            }
            #expect(engine.answer(.assertions(nil)).text == "no assertions held")
        }
    }

    @Test("a second daemon on the same socket refuses to start")
    func alreadyRunning() async throws {
        try await Self.withServer { path, engine in
            let directory = (path as NSString).deletingLastPathComponent
            let state = (directory as NSString).deletingLastPathComponent
            await #expect(throws: DaemonError.self) {
                _ = try await DaemonServer.start(
                    engine: engine,
                    paths: DaemonPaths(state: state),
                    logger: Logger(label: "test")
                )
            }
        }
    }
}
