import BackgroundTestSupport
import Foundation
import Testing

@testable import BackgroundProcessControl

#if canImport(Glibc)
import Glibc
#endif

/// The SIGSTOP fallback has no cgroups to find a dead daemon's apps by: the controller records
/// each app's pid and start time, and a restarted one adopts the recorded processes that still
/// run as recorded. The previous run is played by hand, as in `SurvivorTests`: records named
/// with a pid no process can have as the daemon's.
@Suite("Pid records: the SIGSTOP fallback finds a dead daemon's apps again")
struct PidRecordTests {
    /// The "previous daemon": a pid above any pid_max, so no process can have it.
    static let dead: Int32 = 2_147_483_000

    static func startTime(of pid: Int32) throws -> UInt64 {
        try #require(ProcFileSystem.status(of: pid)?.startTime)
    }

    static func records(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    @Test("a start is recorded (pid and start time, 0600 in a 0700 directory) and the record goes with the exit")
    func recordedWhileRunning() async throws {
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let directory = container.path + "/processes"
        let controller = try LinuxProcessController(
            configuration: .init(freezer: .processGroupSignals, pidRecordDirectory: directory)
        )
        let app = try controller.spawn(AppFixture.request(["sleep", "forever"], in: container))
        let name = try #require(Self.records(in: directory).first)
        #expect(Self.records(in: directory).count == 1)
        let leaf = try #require(LeafName(name))
        #expect(leaf.label == app.label && leaf.daemon == getpid() && leaf.serial == app.serial && leaf.isThisRun)
        let text = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
        #expect(text == "\(app.pid) \(try Self.startTime(of: app.pid))\n")
        var status = stat()
        #expect(stat(directory, &status) == 0 && status.st_mode & 0o777 == 0o700)
        #expect(stat(directory + "/" + name, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try controller.adoptSurvivors().isEmpty, "this run's own app is no survivor")
        await AppFixture.finish(controller, app)
        #expect(await waitUntil { Self.records(in: directory).isEmpty }, "removed once reaped")
    }

    @Test("a stopped survivor is adopted stopped, then thawed, frozen, killed and watched; stale records are removed")
    func adoptAfterRestart() async throws {
        let signals = try AppFixture.signalController()  // the previous run's spawner (its records are by hand)
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let directory = container.path + "/processes"
        mkdir(directory, 0o700)
        let (app, socket) = try AppFixture.start(signals, ["fork", "ready", "echo"], in: container)
        defer { close(socket) }
        let child = try await AppFixture.readChild(socket)
        #expect(await AppFixture.readLine(socket) == "ready")
        kill(-app.pid, SIGSTOP)
        #expect(await waitUntil { AppFixture.state(of: app.pid) == "T" && AppFixture.state(of: child) == "T" })
        // Another process that now has a recorded pid: its start time differs, it is left alone.
        let other = try signals.spawn(
            AppFixture.request(["sleep", "forever"], in: container, label: "com.example.other")
        )
        let gone = try signals.spawn(AppFixture.request(["exit", "0"], in: container, label: "com.example.gone"))
        _ = await signals.exit(of: gone)
        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: directory + "/" + name, atomically: false, encoding: .utf8)
        }
        let survivor = "com.example.survivor@\(Self.dead).0badf00d.7"
        try write(survivor, "\(app.pid) \(try Self.startTime(of: app.pid))\n")
        try write(
            "com.example.reused@\(Self.dead).0badf00d.8",
            "\(other.pid) \(try Self.startTime(of: other.pid) + 1)\n"
        )
        try write("com.example.gone@\(Self.dead).0badf00d.9", "\(gone.pid) 12345\n")
        try write("com.example.malformed@\(Self.dead).0badf00d.10", "not a record\n")
        try write(".com.example.half@\(Self.dead).0badf00d.11.new", "\(app.pid)")
        // A live daemon's record (pid 1 runs): not a survivor, left as it is.
        let live = "com.example.live@1.0badf00d.12"
        try write(live, "\(other.pid) \(try Self.startTime(of: other.pid))\n")

        let restarted = try LinuxProcessController(
            configuration: .init(freezer: .processGroupSignals, pidRecordDirectory: directory)
        )
        let survivors = try restarted.adoptSurvivors()
        #expect(survivors.count == 1)
        let adopted = try #require(survivors.first)
        #expect(adopted.process.label == "com.example.survivor")
        #expect(adopted.process.pid == app.pid)
        #expect(adopted.process.cgroup == nil)
        #expect(adopted.isFrozen, "stopped when found, and left so")
        #expect(adopted.startedBy == Self.dead)
        #expect(AppFixture.state(of: app.pid) == "T")
        let renamed = "com.example.survivor@\(getpid()).\(ProcessSerial.run).\(adopted.process.serial)"
        #expect(
            Self.records(in: directory) == [renamed, live].sorted(),
            "stale records removed, the survivor's renamed"
        )
        #expect(AppFixture.state(of: other.pid) != nil, "a reused pid's process is not touched")
        #expect(try restarted.adoptSurvivors().isEmpty, "adopted once")
        #expect(try restarted.members(of: adopted.process) == [app.pid, child].sorted())

        try restarted.thaw(adopted.process)
        AppFixture.writeLine(socket, "after the restart")
        #expect(await AppFixture.readLine(socket) == "after the restart")
        try await restarted.freeze(adopted.process)
        #expect(AppFixture.state(of: app.pid) == "T" && AppFixture.state(of: child) == "T")
        try restarted.kill(adopted.process)
        // Not this process's child: how it ended cannot be known, and -1 says so.
        #expect(await restarted.exit(of: adopted.process).status == .exited(code: -1))
        #expect(await signals.exit(of: app).status == .signaled(signal: SIGKILL, coreDumped: false))
        #expect(await waitUntil { AppFixture.state(of: child) == nil }, "the whole group is ended")
        #expect(await waitUntil { Self.records(in: directory) == [live] }, "its record goes with it")
        await AppFixture.finish(signals, other)
    }

    /// Issue 25, finding 10: a killed daemon that its parent has not reaped yet is a zombie,
    /// and `kill(pid, 0)` still succeeds for it; its apps were then taken for a live run's and
    /// never adopted, and reported suspended while nothing held them.
    @Test("a survivor of a daemon that is still an unreaped zombie is adopted")
    func zombieDaemon() async throws {
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let directory = container.path + "/processes"
        mkdir(directory, 0o700)
        // The "previous daemon": a child of this process that has exited and is not reaped.
        var spawned: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { for argument in argv { free(argument) } }
        #expect(posix_spawn(&spawned, "/bin/true", nil, nil, argv, environ) == 0)
        let daemon = spawned
        #expect(await waitUntil { AppFixture.state(of: daemon) == "Z" }, "the daemon is a zombie")
        #expect(kill(daemon, 0) == 0, "a zombie answers kill(pid, 0)")
        let previous = try AppFixture.signalController()
        let app = try previous.spawn(
            AppFixture.request(["sleep", "forever"], in: container, label: "com.example.kept")
        )
        try "\(app.pid) \(try Self.startTime(of: app.pid))\n".write(
            toFile: directory + "/com.example.kept@\(daemon).0badf00d.4",
            atomically: false,
            encoding: .utf8
        )
        let restarted = try LinuxProcessController(
            configuration: .init(freezer: .processGroupSignals, pidRecordDirectory: directory)
        )
        let survivors = try restarted.adoptSurvivors()
        #expect(survivors.map(\.process.pid) == [app.pid])
        #expect(survivors.first?.startedBy == daemon)
        #expect(LinuxProcessController.isAlive(getpid()) && !LinuxProcessController.isAlive(daemon))
        var status: Int32 = 0
        #expect(waitpid(daemon, &status, 0) == daemon)
        if let adopted = survivors.first { try restarted.kill(adopted.process) }
        await AppFixture.finish(previous, app)
    }

    @Test("a recorded app whose main process is gone has what its group left killed, and its record removed")
    func leftoversOfAGoneApp() async throws {
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let directory = container.path + "/processes"
        mkdir(directory, 0o700)
        // The previous run started an app that left a child in its group; then the run went
        // (its controller with it, so nothing watches the app any more).
        var started: (app: AppProcess, socket: Int32)?
        do {
            let previous = try AppFixture.signalController()
            started = try AppFixture.start(previous, ["fork", "ready", "sleep", "forever"], in: container)
        }
        let (app, socket) = try #require(started)
        defer { close(socket) }
        let child = try await AppFixture.readChild(socket)
        #expect(await AppFixture.readLine(socket) == "ready")
        try "\(app.pid) \(try Self.startTime(of: app.pid))\n".write(
            toFile: directory + "/com.example.leaver@\(Self.dead).0badf00d.3",
            atomically: false,
            encoding: .utf8
        )
        // Its main process ends, unseen, and is reaped: only the child is left in its group.
        kill(app.pid, SIGKILL)
        var status: Int32 = 0
        #expect(waitpid(app.pid, &status, 0) == app.pid)
        #expect(try ProcFileSystem.members(ofGroup: app.pid) == [child])

        let restarted = try LinuxProcessController(
            configuration: .init(freezer: .processGroupSignals, pidRecordDirectory: directory)
        )
        #expect(try restarted.adoptSurvivors().isEmpty)
        #expect(Self.records(in: directory).isEmpty)
        #expect(
            await waitUntil { AppFixture.state(of: child) == nil || AppFixture.state(of: child) == "Z" },
            "what the app left is killed"
        )
    }

    @Test("a record is '<pid> <start time>' and one line; anything else is not one")
    func parsing() {
        #expect(PidRecords.parse("4242 987654\n")?.pid == 4242)
        #expect(PidRecords.parse("4242 987654\n")?.startTime == 987654)
        #expect(PidRecords.parse("4242 987654") == nil, "cut short")
        #expect(PidRecords.parse("0 1\n") == nil)
        #expect(PidRecords.parse("-3 1\n") == nil)
        #expect(PidRecords.parse("12 x\n") == nil)
        #expect(PidRecords.parse("12  3\n") == nil)
        #expect(PidRecords.parse("12 3 4\n") == nil)
        let line = "4242 (a) b) S 1 4242 4242 0 -1 4194560 93 0 0 0 0 0 0 0 20 0 1 0 778899 1 2\n"
        #expect(ProcFileSystem.parseStatus(Array(line.utf8))?.startTime == 778899)
    }
}
