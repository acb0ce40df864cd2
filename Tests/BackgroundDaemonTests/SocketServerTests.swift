import BackgroundCore
import BackgroundDaemon
import BackgroundExecution
import BackgroundProtocol
import BackgroundStore
import Foundation
import Logging
import Testing

/// The daemon's socket with real connections: framing, limits, identity and stuck clients.
@Suite("Daemon socket server")
struct SocketServerTests {
    static let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/proc/self/exe"

    /// A served engine in a temporary state directory; `body` gets the socket's path and runs on
    /// a thread of its own (its socket calls block, and must not hold the test pool's threads),
    /// returning what it saw for the test to check.
    static func withServer<Seen: Sendable>(
        limits: DaemonLimits = .standard,
        installingThisProcess: Bool = false,
        manifest: AppManifest = AppManifest(bundleIdentifier: "com.example.self"),
        _ body: @escaping @Sendable (String, DaemonEngine) throws -> Seen
    ) async throws -> Seen {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let paths = DaemonPaths(state: directory.path + "/state")
        // The test process is com.example.self's process only when asked: an app's process is
        // never a control client.
        let this = InstalledApp(
            manifest: manifest,
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
        // The journal is on, as in the real daemon: encoding an event's instants is one of the
        // places an instant from outside once trapped.
        let engine = try DaemonEngine(
            configuration: .init(journalPath: directory.path + "/journal", logger: logger),
            store: .inMemory(),
            apps: apps,
            processes: RecordingProcesses()
        )
        let server = try await DaemonServer.start(engine: engine, paths: paths, limits: limits, logger: logger)
        let result = await onThread { try body(paths.socket, engine) }
        await server.stop()
        return try result.get()
    }

    @Test("the socket is 0600 in a 0700 directory, and a control client gets its answers")
    func permissionsAndStatus() async throws {
        let (socketMode, directoryMode, welcome, status) = try await Self.withServer { path, _ in
            let socketMode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            let directory = (path as NSString).deletingLastPathComponent
            let directoryMode = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
            let client = try SocketClient(path: path)
            let welcome = try client.hello(.control)
            return (socketMode, directoryMode, welcome, try client.control(.status))
        }
        #expect(socketMode == 0o600)
        #expect(directoryMode == 0o700)
        #expect(welcome?.isWelcome == true)
        #expect(status?.outcome == .ok)
        #expect(status?.json.contains("\"installedApps\":2") == true)
    }

    @Test("a malformed frame closes that connection only; the daemon goes on serving")
    func malformedFrame() async throws {
        let (garbageClosed, truncatedClosed, later) = try await Self.withServer { path, _ in
            let bad = try SocketClient(path: path)
            try bad.sendRaw(Frame.encode(Array("not a message".utf8)))
            let truncated = try SocketClient(path: path)
            var message = try ProtocolCodec.encode(DaemonRequest.hello(ClientHello(role: .control)))
            message.removeLast(3)
            try truncated.sendRaw(Frame.encode(message))
            let good = try SocketClient(path: path)
            return (bad.waitForClose(), truncated.waitForClose(), try good.hello(.control))
        }
        #expect(garbageClosed)
        #expect(truncatedClosed)
        #expect(later?.isWelcome == true, "a later client was not served")
    }

    @Test("an oversized frame is refused from its header alone")
    func oversizedFrame() async throws {
        let closed = try await Self.withServer(limits: DaemonLimits(maximumFrameBytes: 1024)) { path, _ in
            let client = try SocketClient(path: path)
            try client.sendRaw([0, 0, 4, 1])  // announces 1025 bytes, sends none
            return client.waitForClose()
        }
        #expect(closed)
    }

    @Test("a client that never says hello is closed after the hello timeout")
    func helloTimeout() async throws {
        let closed = try await Self.withServer(limits: DaemonLimits(helloTimeout: .milliseconds(200))) { path, _ in
            try SocketClient(path: path).waitForClose()
        }
        #expect(closed)
    }

    @Test("a client that does not read is disconnected; another is served meanwhile")
    func stuckClient() async throws {
        let limits = DaemonLimits(maximumPendingBytesPerClient: 16 * 1024)
        let (welcome, otherStatus, stuckClosed) = try await Self.withServer(limits: limits) { path, _ in
            let stuck = try SocketClient(path: path)
            let welcome = try stuck.hello(.control)
            let request = try Frame.encode(ProtocolCodec.encode(DaemonRequest.control(.apps)))
            // Thousands of requests, no reads: the replies pile up past the kernel's buffer.
            for _ in 0..<3000 { try? stuck.sendRaw(request) }
            let other = try SocketClient(path: path)
            _ = try other.hello(.control)
            let status = try other.control(.status)
            return (welcome, status, stuck.waitForClose())
        }
        #expect(welcome?.isWelcome == true)
        #expect(otherStatus?.outcome == .ok, "another client was not served while one was stuck")
        #expect(stuckClosed)
    }

    @Test("peer credentials: the real executable is the app, another is not")
    func peerCredentials() async throws {
        let (genuine, impostor, impostorClosed, apps) = try await Self.withServer(installingThisProcess: true) {
            path,
            engine in
            let genuine = try SocketClient(path: path)
            let welcome = try genuine.hello(.app("com.example.self"))
            let impostor = try SocketClient(path: path)
            let refusal = try impostor.hello(.app("com.example.other"))
            return (welcome, refusal, impostor.waitForClose(), engine.answer(.apps).json)
        }
        guard case .welcome(let welcome)? = genuine else {
            Issue.record("the genuine app was not welcomed: \(String(describing: genuine))")
            return
        }
        #expect(welcome.incarnation == Incarnation(rawValue: 1))
        guard case .refused(let refusal)? = impostor else {
            Issue.record("the impostor was not refused: \(String(describing: impostor))")
            return
        }
        #expect(refusal.code == .notTheApp)
        #expect(impostorClosed)
        #expect(apps.contains("\"connected\":true"))
    }

    @Test("an app's begin and end over the socket are answered")
    func beginEnd() async throws {
        let (grant, during, endAnswer, after) = try await Self.withServer(installingThisProcess: true) { path, engine in
            let app = try SocketClient(path: path)
            _ = try app.hello(.app("com.example.self"))
            let begin = Event.beginAssertion(
                "com.example.self",
                name: "Upload",
                origin: CallSite(),
                hasExpirationHandler: true
            )
            try app.send(.app(.event(begin)))
            let grant = try app.receive()
            let during = engine.answer(.assertions(nil)).text
            if case .system(.answer(.granted(let id)?, _))? = grant {
                try app.send(.app(.event(.endAssertion("com.example.self", id))))
            }
            return (grant, during, try app.receive(), engine.answer(.assertions(nil)).text)
        }
        guard case .system(.answer(.granted?, _))? = grant else {
            Issue.record("no grant: \(String(describing: grant))")
            return
        }
        #expect(during.contains("Upload"))
        guard case .system(.answer(nil, _))? = endAnswer else {
            Issue.record("no answer to the end: \(String(describing: endAnswer))")
            return
        }
        #expect(after == "no assertions held")
    }

    /// Issue 25, finding 2: each of these one-way messages from an installed app trapped in the
    /// (root) daemon, in `Instant.+` and in the journal's encoding of an instant; the app could
    /// send it again after every restart.
    @Test(
        "an app's message with a duration or instant past the timeline closes its connection only",
        arguments: [Int128.max, Int128.max / 2, Int128.min, Int128(Int64.max) * 1_000_000_000_000_000_000]
    )
    func durationsPastTheTimeline(attoseconds: Int128) async throws {
        let app: AppID = "com.example.self"
        let huge = Duration(attoseconds: attoseconds)
        let manifest = AppManifest(bundleIdentifier: app, backgroundModes: [.fetch])
        let (fetchClosed, submitClosed, later) = try await Self.withServer(
            installingThisProcess: true,
            manifest: manifest
        ) { path, _ in
            let fetch = try SocketClient(path: path)
            _ = try fetch.hello(.app(app))
            try fetch.send(.app(.oneWay(.setMinimumBackgroundFetchInterval(app, huge))))
            let fetchClosed = fetch.waitForClose()
            let submit = try SocketClient(path: path)
            _ = try submit.hello(.app(app))
            var request = TaskRequest(identifier: "com.example.not-permitted", kind: .appRefresh)
            request.submittedAt = Instant(offset: .zero)
            // The instant as the wire carries it (two integers), set past the timeline by hand:
            // no Instant in this process can be built there any more.
            var bytes = try ProtocolCodec.encode(DaemonRequest.app(.oneWay(.submitTaskRequest(app, request))))
            try Self.replaceFirstZeroDuration(in: &bytes, with: huge)
            try submit.sendRaw(Frame.encode(bytes))
            let submitClosed = submit.waitForClose()
            // This process is the app's, so never a control client: the app connects again.
            return (fetchClosed, submitClosed, try SocketClient(path: path).hello(.app(app)))
        }
        #expect(fetchClosed && submitClosed)
        #expect(later?.isWelcome == true, "the daemon goes on serving")
    }

    /// Replaces the first encoded `Duration.zero` (two zero integers) in a message's bytes.
    static func replaceFirstZeroDuration(in bytes: inout [UInt8], with duration: Duration) throws {
        let zero = try ProtocolCodec.encode(Duration.zero).dropFirst(4)
        let replacement = try ProtocolCodec.encode(duration).dropFirst(4)
        let start = try #require(
            (0...(bytes.count - zero.count)).first { Array(bytes[$0..<($0 + zero.count)]) == Array(zero) }
        )
        bytes.replaceSubrange(start..<(start + zero.count), with: replacement)
    }

    @Test("a second daemon on the same socket refuses to start")
    func alreadyRunning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let paths = DaemonPaths(state: directory.path)
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let engine = try DaemonEngine(
            configuration: .init(logger: logger),
            store: .inMemory(),
            apps: [],
            processes: RecordingProcesses()
        )
        let first = try await DaemonServer.start(engine: engine, paths: paths, logger: logger)
        await #expect(throws: DaemonError.self) {
            _ = try await DaemonServer.start(engine: engine, paths: paths, logger: logger)
        }
        await first.stop()
    }
}

extension DaemonResponse {
    var isWelcome: Bool {
        if case .welcome = self { return true }
        return false
    }
}
