import BackgroundTestSupport
import Foundation
import Testing

/// `backgroundd` with real app processes (`daemon-test-app`) under its process control: a task
/// launches an app that exited, an idle app in the background is frozen and thawed, a leak is
/// killed with a report on disk, and `bgctl daemon timeline` draws what happened.
@Suite("backgroundd with real app processes", .serialized)
struct RealAppTests {
    struct Daemon {
        let state: String
        let socket: String
        let process: Process

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func bgctl(_ arguments: [String]) throws -> ChildProcessResult {
            try runBgctlBlocking(["daemon"] + arguments, environment: ["BACKGROUNDD_SOCKET": socket, "HOME": state])
        }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func apps() throws -> [String: [String: Any]] {
            let result = try bgctl(["apps", "--json"])
            let document = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
            let rows = document?["apps"] as? [[String: Any]] ?? []
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["app"] as? String ?? "", $0) })
        }
    }

    /// Starts a daemon with the worker, the leaky app and the two lock holders of
    /// `SharedLockTests` installed; `body` runs on a thread.
    static func withDaemon<Seen: Sendable>(_ body: @escaping @Sendable (Daemon) throws -> Seen) async throws -> Seen {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let app = builtExecutable("daemon-test-app").path
        let worker: [String: Any] = [
            "CFBundleIdentifier": "com.example.worker",
            "BGTaskSchedulerPermittedIdentifiers": ["com.example.worker.work"],
            "UIBackgroundModes": ["processing"],
            "BackgroundLaunch": [
                "Arguments": [
                    app, "register", "com.example.worker.work", "finish", "user:later", "2", "com.example.worker.work",
                    "user:exit",
                ]
            ],
        ]
        let leaky: [String: Any] = [
            "CFBundleIdentifier": "com.example.leaky",
            "BackgroundLaunch": ["Arguments": [app, "leak", "Nightly export"]],
        ]
        var manifests: [String: [String: Any]] = ["worker.json": worker, "leaky.json": leaky]
        let group = directory.path + "/state/group"
        // The private lock's file: sticky and open to all, as /tmp, since the app may run as its own uid.
        let scratch = directory.path + "/scratch"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        chmod(scratch, 0o1777)
        for (name, file) in [("locker", group + "/notes.db"), ("private", scratch + "/private.db")] {
            // Both share state/group; the locker locks a file in it, the private one outside it.
            manifests[name + ".json"] = [
                "CFBundleIdentifier": "com.example.\(name)",
                "BackgroundLaunch": ["Arguments": [app, "lock", file], "SharedContainers": [group]],
            ]
        }
        let state = try directory.daemonState(manifests: manifests)
        try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = builtExecutable("backgroundd")
        process.arguments = ["--state-dir", state, "--background-time", "2", "--log-level", "error"]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": state]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let daemon = Daemon(state: state, socket: state + "/run/backgroundd.sock", process: process)
        let result = await onThread { () throws -> Seen in
            guard waitFor(seconds: 60, { FileManager.default.fileExists(atPath: daemon.socket) }) else {
                throw CocoaError(.fileNoSuchFile)
            }
            return try body(daemon)
        }
        process.terminate()
        await process.ended()
        return try result.get()
    }

    /// Polls `condition` every 20 ms until it holds or `seconds` pass.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func waitFor(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    /// Whether the process is frozen: its cgroup says `frozen 1`, or (the SIGSTOP fallback) its
    /// state is `T`.
    static func isFrozen(_ pid: Int) -> Bool {
        let cgroup = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
        if let line = cgroup.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) {
            let path = line.dropFirst(3)
            for mount in ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"] {
                if let events = try? String(contentsOfFile: "\(mount)\(path)/cgroup.events", encoding: .utf8) {
                    return events.contains("frozen 1")
                }
            }
        }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "T"
    }

    struct WorkerSeen: Sendable {
        var launchedForTask = false
        var incarnation = 0
        var uid = -1
        var frozenWhenIdle = false
        var thawedWhenOpened = false
        var frozenAgain = false
        var timeline = ""
        var timelineStatus: Int32 = -1
    }

    @Test("an app that exited is launched for its due task, then frozen when idle, thawed when opened")
    func launchFreezeThaw() async throws {
        let seen = try await Self.withDaemon { daemon -> WorkerSeen in
            var seen = WorkerSeen()
            // The user opens the worker: it registers, submits work due in 2 s, and exits.
            _ = try daemon.bgctl(["open", "com.example.worker"])
            seen.launchedForTask = try Self.waitFor(seconds: 60) {
                let worker = try daemon.apps()["com.example.worker"]
                return worker?["incarnation"] as? Int == 2 && worker?["state"] as? String == "suspended"
            }
            let worker = try daemon.apps()["com.example.worker"]
            seen.incarnation = worker?["incarnation"] as? Int ?? 0
            seen.uid = worker?["uid"] as? Int ?? -1
            guard let pid = worker?["pid"] as? Int else { return seen }
            seen.frozenWhenIdle = Self.waitFor(seconds: 10) { Self.isFrozen(pid) }
            _ = try daemon.bgctl(["open", "com.example.worker"])
            seen.thawedWhenOpened = Self.waitFor(seconds: 10) { !Self.isFrozen(pid) }
            _ = try daemon.bgctl(["home"])
            seen.frozenAgain = Self.waitFor(seconds: 10) { Self.isFrozen(pid) }
            let html = daemon.state + "/day.html"
            let timeline = try runBgctlBlocking(
                ["daemon", "timeline", "--since", "2h", "-o", html, "--state-dir", daemon.state, "--json"],
                environment: ["HOME": daemon.state]
            )
            seen.timelineStatus = timeline.status
            seen.timeline = (try? String(contentsOfFile: html, encoding: .utf8)) ?? ""
            return seen
        }
        #expect(seen.launchedForTask, "the worker was not launched for its task (incarnation \(seen.incarnation))")
        // The daemon's default: as root, the app runs under a uid of its own (SECURITY.md).
        #expect(geteuid() != 0 || seen.uid >= 200_000, "uid \(seen.uid)")
        #expect(seen.frozenWhenIdle)
        #expect(seen.thawedWhenOpened)
        #expect(seen.frozenAgain)
        #expect(seen.timelineStatus == 0)
        #expect(seen.timeline.contains("com.example.worker"))
        #expect(seen.timeline.contains("com.example.worker.work"))
    }

    @Test("a leaked background task is killed by the watchdog with a report on disk")
    func leakKilled() async throws {
        let (state, reports, report) = try await Self.withDaemon { daemon -> (String, [String], String) in
            _ = try daemon.bgctl(["open", "com.example.leaky"])
            _ = Self.waitFor(seconds: 30) {
                let connected = (try? daemon.apps())?["com.example.leaky"]?["connected"] as? Bool
                return connected == true
            }
            _ = try daemon.bgctl(["home"])
            _ = try Self.waitFor(seconds: 60) {
                (try daemon.apps()["com.example.leaky"]?["state"] as? String ?? "").contains("0x8badf00d")
            }
            let state = try daemon.apps()["com.example.leaky"]?["state"] as? String ?? ""
            let files = (try? FileManager.default.contentsOfDirectory(atPath: daemon.state + "/reports")) ?? []
            let json = files.first { $0.hasSuffix(".json") }.flatMap {
                try? String(contentsOfFile: daemon.state + "/reports/" + $0, encoding: .utf8)
            }
            return (state, files.sorted(), json ?? "")
        }
        #expect(state.contains("watchdog 0x8badf00d"))
        #expect(reports.count == 2, "\(reports)")
        #expect(report.contains("0x8badf00d"))
        #expect(report.contains("Nightly export"))
    }
}
