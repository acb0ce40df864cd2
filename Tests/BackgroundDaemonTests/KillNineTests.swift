import BackgroundCore
import BackgroundDaemon
import BackgroundExecution
import BackgroundProtocol
import BackgroundTestSupport
import Foundation
import Testing

/// `kill -9` of the real `backgroundd` at random points, over and over: every request the daemon
/// acknowledged is there after the restart, every acknowledged cancellation stays done, and the
/// daemon starts again each time.
@Suite("backgroundd survives kill -9")
struct KillNineTests {
    static let app: AppID = "com.example.self"
    static let identifiers = (0..<10).map { "com.example.self.task\($0)" }

    /// What the loop saw, checked after it.
    struct Outcome: Sendable {
        var kills = 0
        var acknowledged = 0
        var problems: [String] = []
    }

    @Test("100 kills at random points lose no acknowledged request")
    func killLoop() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let manifest: [String: Any] = [
            "CFBundleIdentifier": Self.app.bundleIdentifier,
            "BGTaskSchedulerPermittedIdentifiers": Self.identifiers,
            "UIBackgroundModes": ["processing"],
            "BackgroundLaunch": ["Arguments": [me]],
        ]
        let state = try directory.daemonState(manifests: ["self.json": manifest])
        let seed = UInt64(Date().timeIntervalSince1970)
        print("KillNineTests.killLoop seed \(seed)")
        let result = await onThread { () throws -> Outcome in
            try Self.loop(state: state, kills: 100, seed: seed)
        }
        let outcome = try result.get()
        #expect(outcome.kills == 100)
        #expect(outcome.acknowledged > 100, "too few requests were acknowledged to prove anything")
        #expect(outcome.problems.isEmpty, "\(outcome.problems.prefix(5))")
    }

    /// The loop: start, check what survived, change requests until killed at a random moment.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func loop(state: String, kills: Int, seed: UInt64) throws -> Outcome {
        var random = SplitMix64(seed: seed)
        var outcome = Outcome()
        // What must be pending: acknowledged submits minus acknowledged cancels. The one change in
        // flight when the daemon died may or may not have been applied.
        var expected: Set<String> = []
        var inFlight: (identifier: String, submit: Bool)?
        let socket = state + "/run/backgroundd.sock"
        for round in 0..<kills {
            let daemon = try startDaemon(state: state)
            defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
            guard waitForSocket(socket) else {
                outcome.problems.append("round \(round): the daemon did not start")
                return outcome
            }
            let client = try SocketClient(path: socket, timeout: 10)
            guard case .welcome? = try client.hello(.app(app)) else {
                outcome.problems.append("round \(round): no welcome")
                return outcome
            }
            let pending = try pendingIdentifiers(socket: socket)
            var allowed = [expected]
            if let inFlight {
                var other = expected
                if inFlight.submit { other.insert(inFlight.identifier) } else { other.remove(inFlight.identifier) }
                allowed.append(other)
            }
            if !allowed.contains(pending) {
                outcome.problems.append("round \(round): pending \(pending.sorted()), expected \(expected.sorted())")
            }
            expected = pending
            inFlight = nil
            try client.send(.app(.event(.registerTaskHandler(app, identifier: identifiers[0]))))
            for identifier in identifiers.dropFirst() {
                try client.send(.app(.event(.registerTaskHandler(app, identifier: identifier))))
            }
            try client.send(.app(.event(.finishLaunching(app))))
            for _ in 0..<(identifiers.count + 1) { _ = try nextAnswer(client) }  // their answers
            // Kill after a random number of changes, while one may be in flight.
            let changes = Int(random.next() % 12)
            for change in 0...changes {
                let identifier = identifiers[Int(random.next() % UInt64(identifiers.count))]
                let submit = random.next() % 3 != 0
                let event: Event =
                    submit
                    ? .submitTaskRequest(
                        app,
                        TaskRequest(identifier: identifier, kind: .processing, earliestBegin: .seconds(1 << 40))
                    )
                    : .cancelTaskRequest(app, identifier: identifier)
                try client.send(.app(.event(event)))
                inFlight = (identifier, submit)
                if change == changes { break }  // killed before the answer arrives
                guard let (reply, _) = try nextAnswer(client) else {
                    outcome.problems.append("round \(round): no answer")
                    return outcome
                }
                if submit {
                    guard case .accepted? = reply else {
                        outcome.problems.append("round \(round): submit answered \(String(describing: reply))")
                        return outcome
                    }
                    expected.insert(identifier)
                } else {
                    expected.remove(identifier)
                }
                inFlight = nil
                outcome.acknowledged += 1
            }
            usleep(UInt32(random.next() % 3000))  // the last change is being written, or not
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
            outcome.kills += 1
        }
        return outcome
    }

    /// The next answer, skipping pushed effects; nil if the connection ended.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func nextAnswer(_ client: SocketClient) throws -> (Reply?, [Effect])? {
        while let response = try client.receive() {
            if case .system(.answer(let reply, let effects)) = response { return (reply, effects) }
        }
        return nil
    }

    static func startDaemon(state: String) throws -> Process {
        let process = Process()
        process.executableURL = builtExecutable("backgroundd")
        // This process speaks as the app: every app under the daemon's uid (as root, per-app
        // uids would require the app's own uid of a process the daemon did not start).
        process.arguments = [
            "--state-dir", state, "--process-control", "none", "--app-users", "off", "--log-level", "error",
        ]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": state]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func waitForSocket(_ path: String) -> Bool {
        for _ in 0..<3000 {
            if let client = try? SocketClient(path: path, timeout: 1), (try? client.hello(.control)) != nil {
                return true
            }
            usleep(10_000)
        }
        return false
    }

    /// The app's pending requests, asked with `bgctl daemon tasks --json` (a control client:
    /// this test process is the app, and an app's process is never one).
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func pendingIdentifiers(socket: String) throws -> Set<String> {
        let result = try runBgctlBlocking([
            "daemon", "tasks", "--app", app.bundleIdentifier, "--json", "--socket", socket,
        ])
        guard result.status == 0,
            let document = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            let tasks = document["tasks"] as? [[String: Any]]
        else {
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [NSLocalizedDescriptionKey: "bgctl: \(result.status) \(result.error)"]
            )
        }
        return Set(tasks.filter { $0["state"] as? String == "pending" }.compactMap { $0["identifier"] as? String })
    }
}
