import BackgroundCore
import BackgroundTestSupport
import Foundation
import Testing

/// `kill -9` of a `backgroundd` with real process control and real app processes: the apps it
/// started outlive it in their cgroups, and the restarted daemon carries on with the same
/// processes (a frozen one stays frozen and is thawed for its task, a running one connects
/// again and is suspended after its grace), never killing one for the gap its restart made.
///
/// Each test has a cgroup subtree of its own (`--cgroup-subtree`): another daemon in the shared
/// one would take the survivors over between a kill and the restart.
@Suite("backgroundd with real apps survives kill -9", .serialized)
struct RealRestartTests {
    static let keeper = "com.example.keeper"
    static let front = "com.example.front"
    static let work = "com.example.keeper.work"

    /// A daemon started, killed and started again over one state directory and cgroup subtree.
    final class Restartable: @unchecked Sendable {  // used by one thread: the test's
        let state: String
        let socket: String
        let subtree: String
        /// The background budget in seconds (`--background-time`); the restart grace is half.
        let backgroundTime: Int
        /// `--process-control`: auto (cgroups here) or signals (SIGSTOP/SIGCONT, pids recorded).
        let processControl: String
        var process: Process?

        init(state: String, subtree: String, backgroundTime: Int = 10, processControl: String = "auto") {
            self.state = state
            self.socket = state + "/run/backgroundd.sock"
            self.subtree = subtree
            self.backgroundTime = backgroundTime
            self.processControl = processControl
        }

        /// Whether the app's process is frozen by this daemon's mechanism: its cgroup's
        /// `frozen 1`, or state `T` under signals (the process stays in the test's cgroup).
        func isFrozen(_ pid: Int) -> Bool {
            guard processControl == "signals" else { return RealAppTests.isFrozen(pid) }
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            return stat.split(separator: ")").last?.split(separator: " ").first == "T"
        }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func start() throws {
            let process = Process()
            process.executableURL = builtExecutable("backgroundd")
            process.arguments = [
                "--state-dir", state, "--background-time", "\(backgroundTime)", "--cgroup-subtree",
                (subtree as NSString).lastPathComponent, "--log-level", "error", "--process-control", processControl,
            ]
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": state]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            self.process = process
            guard KillNineTests.waitForSocket(socket) else { throw CocoaError(.fileNoSuchFile) }
        }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func killNine() {
            guard let process else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            self.process = nil
        }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func stop() {
            guard let process else { return }
            process.terminate()
            process.waitUntilExit()
            self.process = nil
        }

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

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func row(_ app: String) -> [String: Any] { ((try? apps()) ?? [:])[app] ?? [:] }

        /// The pids in the subtree's cgroups of `app` (every run's).
        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func members(of app: String) -> [Int] {
            let cgroups = (try? FileManager.default.contentsOfDirectory(atPath: subtree)) ?? []
            return cgroups.filter { $0.hasPrefix(app + "@") }.flatMap { name -> [Int] in
                let procs = (try? String(contentsOfFile: "\(subtree)/\(name)/cgroup.procs", encoding: .utf8)) ?? ""
                return procs.split(separator: "\n").compactMap { Int($0) }
            }
        }
    }

    /// Starts a daemon with the keeper (opened by the user it registers, finishes and submits
    /// `work` due in `due` seconds) and the front app installed, both connecting again when
    /// the daemon goes away; `body` runs on a thread. The daemon is stopped, and the subtree
    /// removed, after it.
    static func withDaemon<Seen: Sendable>(
        due: Int,
        processControl: String = "auto",
        _ body: @escaping @Sendable (Restartable) throws -> Seen
    ) async throws -> Seen {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let app = builtExecutable("daemon-test-app").path
        let keeper: [String: Any] = [
            "CFBundleIdentifier": keeper,
            "BGTaskSchedulerPermittedIdentifiers": [work],
            "UIBackgroundModes": ["processing"],
            "BackgroundLaunch": [
                "Arguments": [app, "reconnect", "register", work, "finish", "user:later", "\(due)", work]
            ],
        ]
        let front: [String: Any] = [
            "CFBundleIdentifier": front,
            "BackgroundLaunch": ["Arguments": [app, "reconnect", "finish"]],
        ]
        let state = try directory.daemonState(manifests: ["keeper.json": keeper, "front.json": front])
        let root = "/sys/fs/cgroup/unified"
        let subtreeName = "backgroundd-restart-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let daemon = Restartable(state: state, subtree: "\(root)/\(subtreeName)", processControl: processControl)
        let result = await onThread { () throws -> Seen in
            defer {
                daemon.stop()
                removeSubtree(daemon.subtree)
            }
            try daemon.start()
            return try body(daemon)
        }
        return try result.get()
    }

    static func isAlive(_ pid: Int) -> Bool { kill(pid_t(pid), 0) == 0 }

    /// Removes a test's cgroup subtree once its daemon stopped: the daemon ended its apps and
    /// removes their cgroups once empty; what it left (a daemon killed at the wrong moment) is
    /// killed and removed bottom-up, then the subtree, so no test leaves a cgroup behind.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func removeSubtree(_ subtree: String) {
        _ = RealAppTests.waitFor(seconds: 10) {
            let left = (try? FileManager.default.contentsOfDirectory(atPath: subtree)) ?? []
            return !left.contains { $0.contains("@") }
        }
        let left = removeCgroupTree(subtree)
        if !left.isEmpty { print("cgroups left behind: \(left)") }
    }

    struct Seen: Sendable {
        var mechanism = ""
        var keeperPid = 0
        var frontPid = 0
        var keeperFrozenBefore = false
        var keeperFrozenAfterRestart = false
        var keeperStateAfterRestart = ""
        var frontStateAfterRestart = ""
        var frontHeldForGrace = false
        var frontReconnected = false
        var frontSuspendedAfterGrace = false
        var keeperThawedForTask = false
        var workDone = false
        var keeperFrozenAgain = false
        var pidsAfter: [Int] = []
        var alive = false
        var reports: [String] = []
    }

    @Test(
        "after kill -9 the restarted daemon carries on with the same processes: frozen stays frozen, running reconnects",
        arguments: ["auto", "signals"]
    )
    func restartCarriesOn(processControl: String) async throws {
        // Under signals the apps are found again by their pid records; with auto, by their cgroups.
        let mechanism = processControl == "signals" ? "SIGSTOP" : "cgroup v2 freezer"
        let seen = try await Self.withDaemon(due: 25, processControl: processControl) { daemon -> Seen in
            var seen = Seen()
            let status = try daemon.bgctl(["status", "--json"]).output
            seen.mechanism = status
            guard status.contains(mechanism) else { return seen }  // no cgroups here: reported elsewhere
            _ = try daemon.bgctl(["open", Self.keeper])
            _ = RealAppTests.waitFor(seconds: 30) {
                daemon.row(Self.keeper)["connected"] as? Bool == true
                    && (try? daemon.bgctl(["tasks", "--json"]).output.contains(Self.work)) == true
            }
            _ = try daemon.bgctl(["open", Self.front])  // the keeper goes to the background
            _ = RealAppTests.waitFor(seconds: 30) { daemon.row(Self.front)["connected"] as? Bool == true }
            seen.keeperPid = daemon.row(Self.keeper)["pid"] as? Int ?? 0
            seen.frontPid = daemon.row(Self.front)["pid"] as? Int ?? 0
            guard seen.keeperPid > 0, seen.frontPid > 0 else { return seen }
            seen.keeperFrozenBefore = RealAppTests.waitFor(seconds: 20) { daemon.isFrozen(seen.keeperPid) }

            daemon.killNine()
            try daemon.start()
            seen.keeperFrozenAfterRestart = daemon.isFrozen(seen.keeperPid)
            seen.keeperStateAfterRestart = daemon.row(Self.keeper)["state"] as? String ?? ""
            seen.frontStateAfterRestart = daemon.row(Self.front)["state"] as? String ?? ""
            seen.frontHeldForGrace = daemon.row(Self.front)["restartGrace"] as? Bool == true
            seen.frontReconnected = RealAppTests.waitFor(seconds: 30) {
                daemon.row(Self.front)["connected"] as? Bool == true
            }
            seen.frontSuspendedAfterGrace = RealAppTests.waitFor(seconds: 30) {
                daemon.row(Self.front)["state"] as? String == "suspended" && daemon.isFrozen(seen.frontPid)
            }
            // The keeper's work falls due 25 s after it was submitted: the frozen keeper is thawed
            // (the journal records the resume: the thaw, run and freeze again are too quick to poll).
            seen.workDone = RealAppTests.waitFor(seconds: 90) {
                (try? daemon.bgctl(["tasks", "--json"]).output.contains(Self.work)) == false
            }
            let journal = (try? String(contentsOfFile: daemon.state + "/journal.jsonl", encoding: .utf8)) ?? ""
            seen.keeperThawedForTask = journal.split(separator: "\n").contains {
                $0.contains("\"resume\"") && $0.contains(Self.keeper)
            }
            seen.keeperFrozenAgain = RealAppTests.waitFor(seconds: 30) {
                daemon.row(Self.keeper)["state"] as? String == "suspended" && daemon.isFrozen(seen.keeperPid)
            }
            seen.pidsAfter = [daemon.row(Self.keeper)["pid"] as? Int ?? 0, daemon.row(Self.front)["pid"] as? Int ?? 0]
            seen.alive = Self.isAlive(seen.keeperPid) && Self.isAlive(seen.frontPid)
            seen.reports = (try? FileManager.default.contentsOfDirectory(atPath: daemon.state + "/reports")) ?? []
            return seen
        }
        guard seen.mechanism.contains(mechanism) else {  // no cgroups: reported by FreezeMechanismTests
            #expect(processControl == "auto", "signals are always available: \(seen.mechanism)")
            return
        }
        // Without a cgroup subtree to remove, what the daemon left is ended here.
        for pid in [seen.keeperPid, seen.frontPid] where processControl == "signals" && pid > 0 {
            let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
            if command.contains("daemon-test-app") { kill(-pid_t(pid), SIGKILL) }
        }
        #expect(seen.keeperPid > 0 && seen.frontPid > 0, "the apps did not start")
        #expect(seen.keeperFrozenBefore)
        #expect(seen.keeperFrozenAfterRestart, "a frozen app stays frozen through the restart")
        #expect(seen.keeperStateAfterRestart == "suspended")
        #expect(seen.frontStateAfterRestart == "background")
        #expect(seen.frontHeldForGrace, "the running app is held while it connects again")
        #expect(seen.frontReconnected)
        #expect(seen.frontSuspendedAfterGrace, "suspended after the grace, not killed")
        #expect(seen.keeperThawedForTask, "the frozen survivor is thawed for its task")
        #expect(seen.workDone, "its task ran in the same process")
        #expect(seen.keeperFrozenAgain)
        #expect(seen.pidsAfter == [seen.keeperPid, seen.frontPid], "the same processes, never started again")
        #expect(seen.alive)
        #expect(seen.reports.isEmpty, "no app was ended: \(seen.reports)")
    }

    /// What the loop saw, checked after it.
    struct LoopOutcome: Sendable {
        var cgroups = false
        var kills = 0
        var problems: [String] = []
        var settled = false
        var reports: [String] = []
    }

    @Test(
        "20 kills at random points with real apps: the same processes carry on, frozen ones stay frozen, none is ended"
    )
    func killLoop() async throws {
        let seed = UInt64(Date().timeIntervalSince1970)
        print("RealRestartTests.killLoop seed \(seed)")
        let outcome = try await Self.withDaemon(due: 3600) { daemon -> LoopOutcome in
            var outcome = LoopOutcome()
            outcome.cgroups = try daemon.bgctl(["status"]).output.contains("cgroup v2 freezer")
            guard outcome.cgroups else { return outcome }
            var random = SplitMix64(seed: seed)
            _ = try daemon.bgctl(["open", Self.keeper])
            _ = try daemon.bgctl(["open", Self.front])
            _ = RealAppTests.waitFor(seconds: 30) {
                daemon.row(Self.keeper)["connected"] as? Bool == true
                    && daemon.row(Self.front)["connected"] as? Bool == true
            }
            var pids: [String: Int] = [:]
            for app in [Self.keeper, Self.front] { pids[app] = daemon.row(app)["pid"] as? Int }
            guard pids.count == 2 else {
                outcome.problems.append("the apps did not start: \(pids)")
                return outcome
            }
            for round in 0..<20 {
                // Something happens, then the daemon dies at a random moment during what follows.
                switch random.next() % 4 {
                case 0: _ = try daemon.bgctl(["open", Self.keeper])
                case 1: _ = try daemon.bgctl(["open", Self.front])
                case 2: _ = try daemon.bgctl(["home"])
                default: break
                }
                usleep(UInt32(random.next() % 1_500_000))
                let frozen = pids.filter { RealAppTests.isFrozen($0.value) }.keys.sorted()
                daemon.killNine()
                outcome.kills += 1
                try daemon.start()
                for app in [Self.keeper, Self.front] {
                    let pid = pids[app]!
                    if !Self.isAlive(pid) { outcome.problems.append("round \(round): \(app) (pid \(pid)) ended") }
                    let row = daemon.row(app)
                    if row["pid"] as? Int != pid {
                        outcome.problems.append(
                            "round \(round): \(app) is pid \(String(describing: row["pid"])), not \(pid)"
                        )
                    }
                    if daemon.members(of: app) != [pid] {
                        outcome.problems.append("round \(round): \(app)'s cgroups hold \(daemon.members(of: app))")
                    }
                    if frozen.contains(app), !RealAppTests.isFrozen(pid) {
                        outcome.problems.append(
                            "round \(round): \(app) was frozen before the kill, not after the restart"
                        )
                    }
                }
                if outcome.problems.count > 5 { return outcome }
            }
            // Left alone, both settle: suspended and frozen, the same processes.
            outcome.settled = RealAppTests.waitFor(seconds: 60) {
                [Self.keeper, Self.front].allSatisfy { app in
                    let row = daemon.row(app)
                    return row["state"] as? String == "suspended" && row["pid"] as? Int == pids[app]
                        && RealAppTests.isFrozen(pids[app]!)
                }
            }
            outcome.reports = (try? FileManager.default.contentsOfDirectory(atPath: daemon.state + "/reports")) ?? []
            return outcome
        }
        guard outcome.cgroups else { return }  // no cgroups here: nothing survives to adopt
        #expect(outcome.kills == 20)
        #expect(outcome.problems.isEmpty, "\(outcome.problems.prefix(5))")
        #expect(outcome.settled, "both apps end suspended and frozen, in the processes they started in")
        #expect(outcome.reports.isEmpty, "no app was ended: \(outcome.reports)")
    }
}
