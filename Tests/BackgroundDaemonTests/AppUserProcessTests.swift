import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `backgroundd` as root with per-app uids, with real app processes (`daemon-test-app`): each
/// app runs under its own uid in its own `0700` container; a process of app A's uid cannot read
/// or write B's container, signal B or read B's memory (`/proc/<pid>/environ` needs ptrace
/// access); it cannot connect as B; and the uids survive a restart of the daemon.
@Suite(
    "backgroundd with per-app uids: real app processes",
    .serialized,
    .enabled(
        if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
        "skipped: needs root (to start apps under their own uids) and setpriv (CI runs as root)"
    )
)
struct AppUserProcessTests {
    static let apps = ["com.example.alpha", "com.example.beta"]
    static let range = "210000-210099"

    struct Daemon {
        let root: String
        /// `bgctl daemon` and `apps()` against it, as `RealAppTests` has them.
        let base: RealAppTests.Daemon
        var state: String { base.state }
        var socket: String { base.socket }
        var containers: String { root + "/containers" }
        var shared: String { root + "/groups/group.example" }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func bgctl(_ arguments: [String]) throws -> ChildProcessResult { try base.bgctl(arguments) }
        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func apps() throws -> [String: [String: Any]] { try base.apps() }

        /// Opens `app` and waits until its process runs and is connected: its pid and uid.
        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func open(_ app: String) throws -> (pid: Int32, uid: UInt32)? {
            _ = try bgctl(["open", app])
            var found: (Int32, UInt32)?
            _ = try RealAppTests.waitFor(seconds: 60) {
                let row = try apps()[app]
                guard row?["connected"] as? Bool == true, let pid = row?["pid"] as? Int, let uid = row?["uid"] as? Int
                else { return false }
                found = (Int32(pid), UInt32(uid))
                return true
            }
            return found
        }
    }

    /// Runs `command` with `sh -c` as `uid` (and its gid), no supplementary groups.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func asUser(
        _ uid: UInt32,
        _ command: String,
        groups: String? = nil,
        environment: [String: String] = [:]
    ) throws -> ChildProcessResult {
        try runChildProcessBlocking(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid", "\(uid)", "--regid", "\(uid)"] + (groups.map { ["--groups", $0] } ?? ["--clear-groups"])
                + ["/bin/sh", "-c", command],
            environment: ["PATH": "/usr/bin:/bin"].merging(environment) { _, new in new },
            timeout: .seconds(60)
        )
    }

    /// `Uid:` of `/proc/<pid>/status`: real, effective, saved, filesystem.
    static func uids(of pid: Int32) -> String {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Uid:") } ?? ""
        return line.dropFirst(4).split(whereSeparator: { $0 == "\t" || $0 == " " }).joined(separator: " ")
    }

    /// A daemon as root with per-app uids from ``range``, two apps installed; `body` runs on a
    /// thread, and may run more than once: `runs` daemons, one after another, on one state.
    static func withDaemon<Seen: Sendable>(
        runs: Int = 1,
        _ body: @escaping @Sendable (Daemon, Int) throws -> Seen
    ) async throws -> [Seen] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o711)  // the apps reach their containers through it
        let executable = builtExecutable("daemon-test-app").path
        let shared = directory.path + "/groups/group.example"
        var manifests: [String: [String: Any]] = [:]
        for app in apps {
            manifests[app + ".json"] = [
                "CFBundleIdentifier": app,
                "BackgroundLaunch": ["Arguments": [executable, "finish"], "SharedContainers": [shared]],
            ]
        }
        let state = try directory.daemonState(manifests: manifests)
        let socket = directory.path + "/run/backgroundd.sock"
        let containers = directory.path + "/containers"
        var seen: [Seen] = []
        for run in 0..<runs {
            let process = Process()
            let daemon = Daemon(
                root: directory.path,
                base: RealAppTests.Daemon(state: state, socket: socket, process: process)
            )
            process.executableURL = builtExecutable("backgroundd")
            process.arguments = [
                "--state-dir", state, "--socket", socket, "--app-users", range, "--containers", containers,
                "--log-level", "error",
            ]
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": state]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let result = await onThread { () throws -> Seen in
                guard RealAppTests.waitFor(seconds: 60, { FileManager.default.fileExists(atPath: daemon.socket) })
                else { throw CocoaError(.fileNoSuchFile) }
                return try body(daemon, run)
            }
            process.terminate()
            await process.ended()
            seen.append(try result.get())
        }
        return seen
    }

    struct Seen: Sendable {
        var isolation = ""
        var alpha: (pid: Int32, uid: UInt32)?
        var beta: (pid: Int32, uid: UInt32)?
        var alphaUids = ""
        var betaUids = ""
        var alphaHome = false
        var containerMode = ""
        var attempts: [String: ChildProcessResult] = [:]
        var alphaStatus = ""
        var sharedMode = ""
    }

    @Test(
        "each app runs under its own uid in its own container; uid A cannot read, write, signal or trace B; a shared container is theirs"
    )
    func isolated() async throws {
        let runs = try await Self.withDaemon { daemon, _ -> Seen in
            var seen = Seen()
            seen.isolation = try daemon.bgctl(["status"]).output
            seen.alpha = try daemon.open(Self.apps[0])
            seen.beta = try daemon.open(Self.apps[1])
            guard let alpha = seen.alpha, let beta = seen.beta else { return seen }
            seen.alphaUids = Self.uids(of: alpha.pid)
            seen.betaUids = Self.uids(of: beta.pid)
            let environ = (try? String(contentsOfFile: "/proc/\(alpha.pid)/environ", encoding: .utf8)) ?? ""
            seen.alphaHome = environ.split(separator: "\0").contains("HOME=\(daemon.containers)/\(Self.apps[0])")
            let betaContainer = "\(daemon.containers)/\(Self.apps[1])"
            var status = stat()
            if stat(betaContainer, &status) == 0 {
                seen.containerMode = "\(status.st_uid):\(status.st_gid) 0\(String(status.st_mode & 0o7777, radix: 8))"
            }
            // A file of beta's, written by beta's uid (the control: beta can, alpha cannot).
            seen.attempts["beta writes"] = try Self.asUser(beta.uid, "echo secret > '\(betaContainer)/secret'")
            seen.attempts["alpha reads"] = try Self.asUser(alpha.uid, "cat '\(betaContainer)/secret'")
            seen.attempts["alpha lists"] = try Self.asUser(alpha.uid, "ls '\(betaContainer)'")
            seen.attempts["alpha writes"] = try Self.asUser(alpha.uid, "echo x > '\(betaContainer)/planted'")
            seen.attempts["alpha signals"] = try Self.asUser(alpha.uid, "kill -0 \(beta.pid)")
            seen.attempts["alpha traces"] = try Self.asUser(alpha.uid, "cat /proc/\(beta.pid)/environ")
            seen.attempts["beta signals itself"] = try Self.asUser(beta.uid, "kill -0 \(beta.pid)")
            // The shared container: both apps have its group; what one writes the other reads.
            seen.alphaStatus = (try? String(contentsOfFile: "/proc/\(alpha.pid)/status", encoding: .utf8)) ?? ""
            if stat(daemon.shared, &status) == 0 {
                seen.sharedMode = "\(status.st_uid):\(status.st_gid) 0\(String(status.st_mode & 0o7777, radix: 8))"
            }
            let group = seen.sharedMode.split(separator: ":").dropFirst().first?.split(separator: " ").first ?? "0"
            seen.attempts["alpha shares"] = try Self.asUser(
                alpha.uid,
                "umask 007 && echo shared > '\(daemon.shared)/note'",
                groups: String(group)
            )
            seen.attempts["beta reads shared"] = try Self.asUser(
                beta.uid,
                "cat '\(daemon.shared)/note' && echo more >> '\(daemon.shared)/note'",
                groups: String(group)
            )
            seen.attempts["outsider reads shared"] = try Self.asUser(210_099, "cat '\(daemon.shared)/note'")
            // A process of alpha's uid that runs beta's executable and claims to be beta.
            seen.attempts["alpha claims beta"] = try Self.asUser(
                alpha.uid,
                "exec '\(builtExecutable("daemon-test-app").path)' exit",
                environment: ["BACKGROUNDD_SOCKET": daemon.socket, "BACKGROUND_APP": Self.apps[1]]
            )
            return seen
        }
        let seen = try #require(runs.first)
        #expect(seen.isolation.contains("isolation: per-app uids (210000-210099"), "\(seen.isolation)")
        let alpha = try #require(seen.alpha, "alpha did not start")
        let beta = try #require(seen.beta, "beta did not start")
        #expect(alpha.uid != beta.uid)
        #expect(alpha.uid >= 210_000 && alpha.uid <= 210_099 && beta.uid >= 210_000 && beta.uid <= 210_099)
        #expect(seen.alphaUids == Array(repeating: "\(alpha.uid)", count: 4).joined(separator: " "))
        #expect(seen.betaUids == Array(repeating: "\(beta.uid)", count: 4).joined(separator: " "))
        #expect(seen.alphaHome)
        #expect(seen.containerMode == "\(beta.uid):\(beta.uid) 0700")
        #expect(seen.attempts["beta writes"]?.status == 0, "\(seen.attempts["beta writes"]?.error ?? "")")
        #expect(seen.attempts["beta signals itself"]?.status == 0)
        for attempt in ["alpha reads", "alpha lists", "alpha writes", "alpha traces"] {
            #expect(seen.attempts[attempt]?.status != 0, "\(attempt) succeeded")
            #expect(seen.attempts[attempt]?.error.contains("Permission denied") == true, "\(attempt)")
        }
        #expect(seen.attempts["alpha signals"]?.status != 0)
        #expect(seen.attempts["alpha signals"]?.error.contains("Operation not permitted") == true)
        let group = try #require(seen.sharedMode.split(separator: ":").dropFirst().first?.split(separator: " ").first)
        #expect(seen.sharedMode == "0:\(group) 02770")
        #expect(seen.alphaStatus.contains("Groups:\t\(group)"), "\(seen.alphaStatus)")
        #expect(seen.alphaStatus.contains("Umask:\t0007"))
        #expect(seen.attempts["alpha shares"]?.status == 0, "\(seen.attempts["alpha shares"]?.error ?? "")")
        #expect(seen.attempts["beta reads shared"]?.output == "shared\n")
        #expect(seen.attempts["beta reads shared"]?.status == 0, "\(seen.attempts["beta reads shared"]?.error ?? "")")
        #expect(seen.attempts["outsider reads shared"]?.error.contains("Permission denied") == true)
        let claim = try #require(seen.attempts["alpha claims beta"])
        #expect(claim.status == 64)
        #expect(
            claim.error.contains(
                "refused: notTheApp: uid \(alpha.uid) may not connect as \(Self.apps[1])"
            ),
            "\(claim.error)"
        )
    }

    @Test("a restarted daemon gives every app the uid it had")
    func restartKeepsUids() async throws {
        let runs = try await Self.withDaemon(runs: 2) { daemon, _ -> [String: Int] in
            let opened = try daemon.open(Self.apps[1])
            var uids = try daemon.apps().compactMapValues { $0["uid"] as? Int }
            if let opened {
                uids["running"] =
                    Self.uids(of: opened.pid) == "\(opened.uid) \(opened.uid) \(opened.uid) \(opened.uid)"
                    ? Int(opened.uid) : -1
            }
            return uids
        }
        #expect(runs.count == 2)
        #expect(runs[0].count == 3, "\(runs[0])")
        #expect(runs[0] == runs[1])
        #expect(runs[0]["running"] == runs[0][Self.apps[1]])
    }

    struct UserStarted: Sendable {
        var asRoot: ChildProcessResult?
        var connected = false
        var suspended: String?
        var frozen = false
        var thawed = false
        var apps = ""
    }

    /// Issue 22, Deliver 4: an app the user started was reported `suspended` and ran on (no
    /// cgroup of the daemon's, no SIGSTOP), and as root it ran as uid 0 while `apps` reported
    /// its own uid.
    @Test(
        "an app its user starts under its own uid is frozen when suspended and thawed when opened; run as root, refused"
    )
    func userStartedAppIsFrozen() async throws {
        let runs = try await Self.withDaemon { daemon, _ -> UserStarted in
            var seen = UserStarted()
            let app = Self.apps[0]
            let executable = builtExecutable("daemon-test-app").path
            let environment = ["PATH": "/usr/bin:/bin", "BACKGROUNDD_SOCKET": daemon.socket, "BACKGROUND_APP": app]
            guard let uid = try daemon.apps()[app]?["uid"] as? Int else { return seen }
            seen.asRoot = try runChildProcessBlocking(
                URL(fileURLWithPath: executable),
                ["finish", "exit"],
                environment: environment,
                timeout: .seconds(60)
            )
            let user = Process()
            user.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            user.arguments = ["--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups", executable, "finish"]
            user.environment = environment
            user.standardInput = FileHandle.nullDevice
            user.standardOutput = FileHandle.nullDevice
            user.standardError = FileHandle.nullDevice
            try user.run()
            defer { kill(user.processIdentifier, SIGKILL) }
            let pid = user.processIdentifier  // setpriv executes the app in its place
            func state() -> String? { (try? daemon.apps()[app]?["state"]) as? String }
            seen.connected = RealAppTests.waitFor(seconds: 60) {
                (try? daemon.apps()[app]?["connected"]) as? Bool == true && state() == "active"
            }
            guard seen.connected else { return seen }
            _ = try daemon.bgctl(["home"])
            _ = RealAppTests.waitFor(seconds: 60) { ["suspended", "not-frozen"].contains(state()) }
            seen.suspended = state()
            seen.frozen = RealAppTests.waitFor(seconds: 60) { RealAppTests.isFrozen(Int(pid)) }
            _ = try daemon.bgctl(["open", app])
            seen.thawed = RealAppTests.waitFor(seconds: 60) { !RealAppTests.isFrozen(Int(pid)) && state() == "active" }
            seen.apps = (try? daemon.bgctl(["apps"]).output) ?? ""
            return seen
        }
        let seen = try #require(runs.first)
        let asRoot = try #require(seen.asRoot, "no uid for \(Self.apps[0])")
        #expect(asRoot.status == 64, "\(asRoot)")
        #expect(asRoot.error.contains("runs as uid 0, but \(Self.apps[0]) runs as its own uid"), "\(asRoot.error)")
        #expect(seen.connected, "the app its user started did not connect: \(seen.apps)")
        #expect(seen.suspended == "suspended", "\(seen.apps)")
        #expect(seen.frozen, "suspended, but not frozen: \(seen.apps)")
        #expect(seen.thawed, "opened, but not thawed: \(seen.apps)")
    }

    @Test("a bad --app-users is a usage error naming it; a range without root is refused, before anything is written")
    func badConfiguration() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o711)
        let state = directory.path + "/state"
        let zero = try await runChildProcess(
            builtExecutable("backgroundd"),
            ["--state-dir", state, "--app-users", "0-10"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path]
        )
        #expect(zero.status == 64)
        #expect(zero.error.contains("--app-users: app user range 0-10: it includes uid 0 (root)"), "\(zero.error)")
        // asUser blocks its thread (a child run to its end): on a thread of its own.
        let unprivileged = try await onDedicatedThread {
            try Self.asUser(
                65534,
                "exec '\(builtExecutable("backgroundd").path)' --state-dir '\(state)' --app-users 300000-300009"
            )
        }
        #expect(unprivileged.status == 64)
        #expect(unprivileged.error.contains("needs root (this daemon runs as uid 65534)"), "\(unprivileged.error)")
        #expect(!FileManager.default.fileExists(atPath: state))
    }
}
