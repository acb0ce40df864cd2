import BackgroundTestSupport
import Foundation
import Testing

/// One restart-recovery path for both kinds of app, with real processes: `daemon-api-test-app`
/// (Apple's API only) holds a background task and the `audio` mode when `backgroundd` is killed
/// with `kill -9` and started again. Whether the daemon started it (the restarted daemon adopts
/// the process from its cgroup, then applies what it declares) or the user did (it is taken
/// over from its declaration), it keeps both under the same identifier, ends the assertion with
/// its old identifier afterwards, and is not frozen while the mode is held; once the mode ends
/// it settles as any idle app (suspended), never killed.
@Suite("A restart keeps an app's assertions and modes", .serialized)
struct DeclaredRestartTests {
    static let app = "com.example.player"
    static let task = "com.example.player.work"

    /// A daemon with its own cgroup subtree (another daemon in the shared one would take the
    /// survivors over between a kill and the restart) and the player installed.
    final class Setup: @unchecked Sendable {  // used by one thread: the test's
        let directory: TemporaryDirectory
        let daemon: RealRestartTests.Restartable
        let log: String
        let commands: String

        init() throws {
            directory = try TemporaryDirectory()
            log = directory.path + "/player.log"
            commands = directory.path + "/player.commands"
            // Open to all: the daemon starts the app under a uid of its own when it runs as root.
            _ = FileManager.default.createFile(atPath: log, contents: nil, attributes: [.posixPermissions: 0o666])
            guard mkfifo(commands, 0o666) == 0, chmod(commands, 0o666) == 0 else { throw CocoaError(.fileWriteUnknown) }
            let manifest: [String: Any] = [
                "CFBundleIdentifier": DeclaredRestartTests.app,
                "BGTaskSchedulerPermittedIdentifiers": [DeclaredRestartTests.task],
                "UIBackgroundModes": ["processing", "audio"],
                "BackgroundLaunch": [
                    "Arguments": [
                        builtExecutable("daemon-api-test-app").path, "--task", DeclaredRestartTests.task, "--log", log,
                        "--commands", commands,
                    ]
                ],
            ]
            let state = try directory.daemonState(manifests: ["player.json": manifest])
            let subtree =
                "/sys/fs/cgroup/unified/backgroundd-declared-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            // A 30 s budget: a 10 s grace to connect again (15 s at most: the wake's limit), as
            // on iOS's numbers; a loaded machine can take seconds between the adoption and the
            // socket being served again.
            daemon = RealRestartTests.Restartable(state: state, subtree: subtree, backgroundTime: 30)
            try daemon.start()
        }

        /// Sends a command to the app the daemon started (through its named pipe).
        func command(_ line: String) {
            guard let handle = FileHandle(forWritingAtPath: commands) else { return }
            handle.write(Data((line + "\n").utf8))
            try? handle.close()
        }

        /// Whether the app's log has a line containing `text`, waiting up to `seconds`.
        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        /// Waits for a line of the app's log; 300 s is a bound for a loaded machine (60 s ran out
        /// at load 10–20 with two cold builds beside the suite), not an expected time.
        func logged(_ text: String, within seconds: Double = 300) -> Bool {
            RealAppTests.waitFor(seconds: seconds) {
                ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains(text)
            }
        }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func assertions() -> String { (try? daemon.bgctl(["assertions", "--json"]).output) ?? "" }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func modes() -> String { "\(daemon.row(DeclaredRestartTests.app)["modes"] ?? "")" }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func state() -> String { daemon.row(DeclaredRestartTests.app)["state"] as? String ?? "" }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func stop() {
            daemon.stop()
            RealRestartTests.removeSubtree(daemon.subtree)
            directory.remove()
        }
    }

    /// What a run saw, checked after it.
    struct Seen: Sendable {
        var cgroups = true
        var problems: [String] = []
    }

    /// The checks after the restart, common to both kinds of app. `say` sends a command and
    /// `logged` waits for the app's answer; `pid` is its process.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func afterRestart(
        _ setup: Setup,
        pid: Int,
        frozenByDaemon: Bool,
        say: (String) -> Void,
        logged: (String) -> Bool
    ) -> [String] {
        var problems: [String] = []
        let kept = RealAppTests.waitFor(seconds: 60) {
            setup.assertions().contains("\"id\":1") && setup.assertions().contains("\"name\":\"Keep\"")
                && setup.modes().contains("audio")
        }
        if !kept { problems.append("not re-declared: assertions \(setup.assertions()), modes \(setup.modes())") }
        say("end 1")
        if !logged("ended 1") { problems.append("the app did not end its task") }
        if !RealAppTests.waitFor(seconds: 30, { !setup.assertions().contains("Keep") }) {
            problems.append("its old identifier did not end Keep: \(setup.assertions())")
        }
        // Holding the mode alone: an idle app is frozen within milliseconds (DaemonBench frozen,
        // p99 1 ms), so two seconds unfrozen is the mode keeping it running.
        usleep(2_000_000)
        if setup.state() != "background" { problems.append("not kept running by its mode: \(setup.state())") }
        if RealAppTests.isFrozen(pid) { problems.append("frozen while it holds audio") }
        say("endmode audio")
        if !logged("mode audio ended") { problems.append("the app did not end its mode") }
        let settled = RealAppTests.waitFor(seconds: 30) {
            setup.state() == "suspended" && (!frozenByDaemon || RealAppTests.isFrozen(pid))
        }
        if !settled { problems.append("not suspended once the mode ended: \(setup.state())") }
        if !RealRestartTests.isAlive(pid) { problems.append("the app was ended") }
        let reports = (try? FileManager.default.contentsOfDirectory(atPath: setup.daemon.state + "/reports")) ?? []
        if !reports.isEmpty { problems.append("reports: \(reports)") }
        return problems
    }

    @Test(
        "an app the daemon started keeps its assertion and mode across kill -9: adopted, then its declaration applied"
    )
    func adoptedAppDeclares() async throws {
        let seen = try await onThread { () throws -> Seen in
            let setup = try Setup()
            defer { setup.stop() }
            var seen = Seen()
            seen.cgroups = try setup.daemon.bgctl(["status"]).output.contains("cgroup v2 freezer")
            guard seen.cgroups else { return seen }  // no cgroups here: nothing survives to adopt
            _ = try setup.daemon.bgctl(["open", Self.app])
            guard setup.logged("launched active") else {
                seen.problems.append("the daemon did not start the app")
                return seen
            }
            setup.command("begin Keep")
            setup.command("mode audio")
            if !setup.logged("begun Keep 1") || !setup.logged("mode audio held") {
                seen.problems.append("the app did not begin its task and mode")
                return seen
            }
            _ = try setup.daemon.bgctl(["home"])
            let pid = setup.daemon.row(Self.app)["pid"] as? Int ?? 0
            setup.daemon.killNine()
            try setup.daemon.start()
            if setup.daemon.row(Self.app)["pid"] as? Int != pid { seen.problems.append("not adopted (pid \(pid))") }
            seen.problems += Self.afterRestart(
                setup,
                pid: pid,
                frozenByDaemon: true,
                say: setup.command,
                logged: { setup.logged($0) }
            )
            return seen
        }.get()
        guard seen.cgroups else { return }  // reported by FreezeMechanismTests
        #expect(seen.problems.isEmpty, "\(seen.problems)")
    }

    @Test("an app the user started keeps its assertion and mode across kill -9: taken over from its declaration")
    func userStartedAppDeclares() async throws {
        let seen = try await onThread { () throws -> Seen in
            let setup = try Setup()
            defer { setup.stop() }
            var seen = Seen()
            let app = try APIAppProcess(
                app: Self.app,
                socket: setup.daemon.socket,
                arguments: ["--task", Self.task],
                home: setup.daemon.state,
                apps: try setup.daemon.bgctl(["apps", "--json"]).output
            )
            defer { app.stop() }
            guard app.line(startingWith: "launched active") != nil else {
                seen.problems.append("the app did not connect: \(app.seen)")
                return seen
            }
            app.send("begin Keep")
            app.send("mode audio")
            if app.line(startingWith: "begun Keep 1") == nil || app.line(startingWith: "mode audio held") == nil {
                seen.problems.append("the app did not begin its task and mode: \(app.seen)")
                return seen
            }
            _ = try setup.daemon.bgctl(["home"])
            setup.daemon.killNine()
            try setup.daemon.start()
            seen.problems += Self.afterRestart(
                setup,
                pid: Int(app.process.processIdentifier),
                frozenByDaemon: false,  // the user's process is in no cgroup of the daemon's
                say: app.send,
                logged: { app.line(startingWith: $0) != nil }
            )
            return seen
        }.get()
        #expect(seen.problems.isEmpty, "\(seen.problems)")
    }
}
