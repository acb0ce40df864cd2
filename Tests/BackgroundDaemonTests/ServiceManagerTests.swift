import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 26: `backgroundd` as a systemd service, tested without systemd as PID 1: the real
/// daemon, started by the test as the service manager would start it, talks to a notification
/// socket the test binds (readiness, stopping, the watchdog), serves a socket passed to it
/// (`systemd-socket-activate`, or descriptors the test passes itself), and writes its log for the
/// journal when its standard error is the journal. docs/systemd.md lists what is not tested here.
@Suite("backgroundd under a service manager: notifications, watchdog, socket activation, journal")
struct ServiceManagerTests {
    /// Waits until `listener` has a notification holding `line`, or `daemon` has ended.
    static func wait(for line: String, from listener: NotifyListener, of daemon: ManagedDaemon) async -> Bool {
        await waitUntil(timeout: .seconds(120)) { listener.count(line) > 0 || daemon.child.hasEnded }
            && listener.count(line) > 0
    }

    /// The daemon's pid in `bgctl daemon status --json`.
    static func pid(inStatus json: String) -> Int? {
        let document = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return document?["pid"] as? Int
    }

    @Test(
        "READY=1 once the socket is served, STATUS= on the way, STOPPING=1 at SIGTERM; NOTIFY_SOCKET a path or @abstract",
        arguments: [false, true]
    )
    func readinessAndStopping(abstract: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let address =
            abstract ? "@backgroundd-test-notify-\(getpid())-\(UUID().uuidString)" : directory.path + "/notify.sock"
        let listener = try NotifyListener(address: address)
        defer { listener.close() }
        let daemon = try ManagedDaemon(in: directory, environment: ["NOTIFY_SOCKET": address])
        defer { daemon.child.process.killWithoutWaiting() }
        let ready = await Self.wait(for: "READY=1", from: listener, of: daemon)
        try #require(ready, "no READY=1: \(listener.notifications) \(daemon.logText)")
        // It serves when it says so: a control request is answered at once.
        let status = try await runBgctl(
            ["daemon", "status", "--json"],
            environment: ["BACKGROUNDD_SOCKET": daemon.socket, "HOME": directory.path]
        )
        #expect(status.status == 0, "\(status.error)")
        #expect(Self.pid(inStatus: status.output) == Int(daemon.pid), "\(status.output)")
        #expect(await daemon.stop() == 0, "\(daemon.logText)")
        let stopped = await waitUntil(timeout: .seconds(30)) { listener.count("STOPPING=1") > 0 }
        #expect(stopped, "no STOPPING=1: \(listener.notifications)")
        let notifications = listener.notifications
        let readyAt = try #require(notifications.firstIndex { $0.contains("READY=1") })
        #expect(
            notifications[readyAt].contains("STATUS=Serving \(daemon.socket): 0 apps installed"),
            "\(notifications)"
        )
        #expect(
            notifications.prefix(readyAt).contains { $0.contains { $0.hasPrefix("STATUS=Starting") } },
            "a status before the readiness: \(notifications)"
        )
        #expect((notifications.firstIndex { $0.contains("STOPPING=1") } ?? -1) > readyAt)
        #expect(!notifications.joined().contains("WATCHDOG=1"), "no watchdog was asked for: \(notifications)")
    }

    @Test(
        "WATCHDOG=1 at half WATCHDOG_USEC once ready; none without WATCHDOG_USEC or with another process's WATCHDOG_PID"
    )
    func watchdogOnlyWhenAsked() async throws {
        let cases: [(name: String, environment: [String: String])] = [
            ("asked", ["WATCHDOG_USEC": "200000"]),
            ("not-asked", [:]),
            ("asked-of-another-process", ["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"]),
        ]
        var runs: [(name: String, directory: TemporaryDirectory, listener: NotifyListener, daemon: ManagedDaemon)] = []
        defer {
            for run in runs {
                run.daemon.child.process.killWithoutWaiting()
                run.listener.close()
                run.directory.remove()
            }
        }
        for (name, environment) in cases {
            let directory = try TemporaryDirectory()
            let listener = try NotifyListener(address: directory.path + "/notify.sock")
            let daemon = try ManagedDaemon(
                in: directory,
                environment: environment.merging(["NOTIFY_SOCKET": listener.address]) { $1 }
            )
            runs.append((name, directory, listener, daemon))
        }
        for run in runs {
            let ready = await Self.wait(for: "READY=1", from: run.listener, of: run.daemon)
            try #require(ready, "\(run.name): no READY=1: \(run.daemon.logText)")
        }
        // All three are serving: the asked one's pings are the clock. Three more pings are at
        // least two of its intervals, in which the others would have pinged too.
        let asked = runs[0]
        let pingsAtReady = asked.listener.count("WATCHDOG=1")
        let pinged = await waitUntil(timeout: .seconds(120)) { asked.listener.count("WATCHDOG=1") >= pingsAtReady + 3 }
        #expect(pinged, "pings: \(asked.listener.notifications)")
        for run in runs {
            #expect(await run.daemon.stop() == 0, "\(run.name): \(run.daemon.logText)")
        }
        let notifications = asked.listener.notifications
        let readyAt = try #require(notifications.firstIndex { $0.contains("READY=1") })
        #expect(!notifications.prefix(readyAt).contains { $0.contains("WATCHDOG=1") }, "pings only once ready")
        #expect(asked.daemon.logText.contains("watchdog: telling the service manager every 0.1 seconds"))
        for run in runs.dropFirst() {
            #expect(run.listener.count("WATCHDOG=1") == 0, "\(run.name): \(run.listener.notifications)")
            #expect(!run.daemon.logText.contains("watchdog:"), "\(run.name): \(run.daemon.logText)")
        }
    }

    static let socketActivate = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")

    @Test(
        "systemd-socket-activate: bgctl reaches the daemon through the passed socket, which it serves, gives its modes and leaves",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: socketActivate.path) || OptionalTools.required,
            "systemd-socket-activate is missing (apt-get install systemd)"
        )
    )
    func socketActivation() async throws {
        let activate = Self.socketActivate
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let listener = try NotifyListener(address: directory.path + "/notify.sock")
        defer { listener.close() }
        // The socket's directory is there before the manager binds in it (a socket unit makes it).
        let state = try directory.daemonState(manifests: [:])
        try FileManager.default.createDirectory(atPath: state + "/run", withIntermediateDirectories: false)
        // systemd-socket-activate passes only the variables it is given (-E) and execs the
        // program in its own place at the first connection: the daemon's pid is its pid.
        let passed = ["HOME=\(directory.path)", "PATH=/usr/bin:/bin", "NOTIFY_SOCKET=\(listener.address)"]
        let daemon = try ManagedDaemon(
            in: directory,
            launcher: [activate.path, "--listen=\(state)/run/backgroundd.sock", "--fdname=backgroundd"]
                + passed.flatMap { ["-E", $0] }
        )
        defer {
            if daemon.pid > 0 { kill(daemon.pid, SIGKILL) }
            daemon.child.process.killWithoutWaiting()
        }
        let listening = await waitUntil(timeout: .seconds(60)) {
            (FileManager.default.fileExists(atPath: daemon.socket) && daemon.pid > 0) || daemon.child.hasEnded
        }
        try #require(listening && !daemon.child.hasEnded, "\(daemon.logText)")
        #expect(listener.notifications.isEmpty, "nothing runs before the first connection")
        // The first connection starts the daemon; it waits in the socket meanwhile.
        let status = try await runBgctl(
            ["daemon", "status", "--json", "--timeout", "120"],
            environment: ["BACKGROUNDD_SOCKET": daemon.socket, "HOME": directory.path]
        )
        #expect(status.status == 0, "\(status.error) \(daemon.logText)")
        #expect(Self.pid(inStatus: status.output) == Int(daemon.pid), "\(status.output)")
        #expect(
            daemon.logText.contains("listening on \(daemon.socket) (passed by the service manager as descriptor 3)")
        )
        #expect(await Self.wait(for: "READY=1", from: listener, of: daemon))
        // The daemon's modes, whatever the manager made (a shared uid: 0600 in a 0700 directory).
        let socketMode = try FileManager.default.attributesOfItem(atPath: daemon.socket)[.posixPermissions] as? Int
        #expect(socketMode == 0o600)
        let directoryMode = try FileManager.default.attributesOfItem(atPath: state + "/run")[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        #expect(await daemon.stop() == 0, "\(daemon.logText)")
        #expect(FileManager.default.fileExists(atPath: daemon.socket), "the manager's socket file is left to it")
    }

    @Test(
        "a passed socket other than the one --socket or $BACKGROUNDD_SOCKET names stops the daemon with one line (64)",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: socketActivate.path) || OptionalTools.required,
            "systemd-socket-activate is missing (apt-get install systemd)"
        )
    )
    func passedSocketNotTheNamedOne() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = try directory.daemonState(manifests: [:])
        try FileManager.default.createDirectory(atPath: state + "/run", withIntermediateDirectories: false)
        let named = directory.path + "/elsewhere.sock"
        let daemon = try ManagedDaemon(
            in: directory,
            launcher: [
                Self.socketActivate.path, "--listen=\(state)/run/backgroundd.sock", "-E", "PATH=/usr/bin:/bin",
                "-E", "HOME=\(directory.path)", "-E", "BACKGROUNDD_SOCKET=\(named)",
            ]
        )
        defer { daemon.child.process.killWithoutWaiting() }
        let listening = await waitUntil(timeout: .seconds(60)) {
            FileManager.default.fileExists(atPath: daemon.socket) || daemon.child.hasEnded
        }
        try #require(listening && !daemon.child.hasEnded, "\(daemon.logText)")
        // The connection that starts the daemon is closed when it stops.
        let status = try await runBgctl(
            ["daemon", "status", "--socket", daemon.socket, "--timeout", "120"],
            environment: ["HOME": directory.path]
        )
        #expect(status.status != 0)
        let ended = await daemon.child.end(within: .seconds(120)) { daemon.child.process.killWithoutWaiting() }
        #expect(!ended && daemon.child.process.terminationStatus == 64, "\(daemon.logText)")
        let line =
            "backgroundd: socket activation: the service manager passed \(daemon.socket), but the socket is \(named) "
            + "(--socket, $BACKGROUNDD_SOCKET)\n"
        #expect(daemon.logText.hasSuffix(line), "\(daemon.logText)")
        #expect(!FileManager.default.fileExists(atPath: state + "/store.sqlite"), "refused before anything is opened")
    }

    @Test(
        "descriptors passed by hand: a file as the socket stops the daemon with one line (64); another process's LISTEN_PID is ignored"
    )
    func passedDescriptors() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = try directory.daemonState(manifests: [:])
        let daemonArguments = [
            "--state-dir", state, "--process-control", "none", "--device-probes", "none", "--app-users", "off",
            "--log-level", "notice",
        ]
        // The shell passes /dev/null as descriptor 3 and names its own pid, which the exec keeps.
        let script = "export LISTEN_FDS=1 LISTEN_PID=$$ LISTEN_FDNAMES=backgroundd; exec \"$0\" \"$@\" 3</dev/null"
        let refused = try await runChildProcess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", script, builtExecutable("backgroundd").path] + daemonArguments,
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path]
        )
        #expect(refused.status == 64, "\(refused.error)")
        #expect(
            refused.error == "backgroundd: socket activation: descriptor 3 is not a socket\n",
            "\(refused.error)"
        )
        #expect(!FileManager.default.fileExists(atPath: state + "/store.sqlite"), "refused before anything is opened")

        // Variables for another process: the daemon binds its own socket, as without them.
        let other = try ManagedDaemon(
            in: try TemporaryDirectory(),
            environment: ["LISTEN_FDS": "1", "LISTEN_PID": "1", "LISTEN_FDNAMES": "backgroundd"]
        )
        defer {
            other.child.process.killWithoutWaiting()
            try? FileManager.default.removeItem(atPath: (other.state as NSString).deletingLastPathComponent)
        }
        let served = await waitUntil(timeout: .seconds(120)) {
            other.logText.contains("listening on") || other.child.hasEnded
        }
        #expect(served && other.logText.contains("listening on \(other.socket)\n"), "\(other.logText)")
        #expect(await other.stop() == 0, "\(other.logText)")
        #expect(!FileManager.default.fileExists(atPath: other.socket), "a socket it bound itself is removed")
    }

    @Test(
        "standard error is the journal (JOURNAL_STREAM is its device:inode): <N> priorities, no timestamp; else swift-log's lines"
    )
    func journalLines() async throws {
        var runs: [(journal: Bool, directory: TemporaryDirectory, daemon: ManagedDaemon)] = []
        defer {
            for run in runs {
                run.daemon.child.process.killWithoutWaiting()
                run.directory.remove()
            }
        }
        for journal in [true, false] {
            let directory = try TemporaryDirectory()
            // The log file is made first, so its device and inode are known before the start;
            // the other run names a file that is not its standard error.
            let log = directory.path + "/daemon.log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let named = journal ? log : directory.path + "/elsewhere"
            _ = FileManager.default.createFile(atPath: named, contents: nil)
            var status = stat()
            try #require(stat(named, &status) == 0)
            let daemon = try ManagedDaemon(
                in: directory,
                environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]
            )
            runs.append((journal, directory, daemon))
        }
        for run in runs {
            let served = await waitUntil(timeout: .seconds(120)) {
                run.daemon.logText.contains("listening on") || run.daemon.child.hasEnded
            }
            #expect(served, "\(run.daemon.logText)")
            #expect(await run.daemon.stop() == 0, "\(run.daemon.logText)")
        }
        let timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/
        for line in runs[0].daemon.logText.split(separator: "\n") {
            #expect(line.hasPrefix("<5>") || line.hasPrefix("<4>") || line.hasPrefix("<6>"), "\(line)")
            #expect(line.firstMatch(of: timestamp) == nil, "\(line)")
        }
        #expect(runs[0].daemon.logText.contains("<5>listening on \(runs[0].daemon.socket)\n"))
        for line in runs[1].daemon.logText.split(separator: "\n") {
            #expect(line.firstMatch(of: timestamp) != nil, "\(line)")
            #expect(!line.hasPrefix("<"), "\(line)")
        }
        #expect(runs[1].daemon.logText.contains(" notice backgroundd: [BackgroundDaemon] listening on"))
    }
}
