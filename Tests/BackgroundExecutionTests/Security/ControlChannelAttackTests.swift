import BackgroundTestSupport
import Foundation
import Testing

/// Issue 14, findings 2 to 4 (and issue 9's defect 1): a signal as the doorbell and request
/// files in a shared directory. The design is replaced by a socket per process; each test
/// performs the old attack and checks that it has nothing left to act on.
@Suite("Security: the control socket, addressed to one verified process")
struct ControlChannelAttackTests {
    static let app = "com.example.scheduler"

    func startService(in scratch: Scratch) async throws -> (RunningService, String) {
        let control = scratch.child("control")
        let running = try RunningService(["scheduler-example", "--control-directory", control])
        #expect(await running.waitFor("ready"))
        return (running, control)
    }

    func live(_ control: String, pid: Int32? = nil) -> [String] {
        ["--app", Self.app, "--control-directory", control] + (pid.map { ["--pid", String($0)] } ?? [])
    }

    @Test("Finding 2: a FIFO planted in the control directory cannot hold up SIGTERM")
    func fifoCannotBlockShutdown() async throws {
        let scratch = try Scratch()
        let (running, control) = try await startService(in: scratch)
        #expect(mkfifo(control + "/x.request", 0o600) == 0)
        #expect(mkfifo(control + "/1.abc.sock", 0o600) == 0)
        let status = try await runBgctl(["status"] + live(control))
        #expect(status.status == 0, "stderr: \(status.error)")
        kill(running.pid, SIGTERM)
        let (exit, timedOut) = await running.waitForExit(timeout: .seconds(10))
        #expect(!timedOut && exit == 0, "the service did not shut down: \(running.errorOutput)")
    }

    @Test("Finding 2: a client that connects and never writes cannot hold up SIGTERM")
    func stuckClientCannotBlockShutdown() async throws {
        let scratch = try Scratch()
        let (running, control) = try await startService(in: scratch)
        let socket = try #require(try FileManager.default.contentsOfDirectory(atPath: control).first)
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((control + "/" + socket).utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(connected == 0)
        kill(running.pid, SIGTERM)
        let (exit, timedOut) = await running.waitForExit(timeout: .seconds(10))
        #expect(!timedOut && exit == 0, "a stuck client delayed shutdown: \(running.errorOutput)")
    }

    @Test("Finding 3: directories, links and files in the control directory are never deleted")
    func nothingIsDeletedRecursively() async throws {
        let scratch = try Scratch()
        let control = scratch.child("control")
        try FileManager.default.createDirectory(atPath: control, withIntermediateDirectories: false)
        chmod(control, 0o700)
        let victim = scratch.child("victim")
        try "keep".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: control + "/x.request", withIntermediateDirectories: false)
        try "keep".write(toFile: control + "/x.request/file", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: control + "/2.abc.sock", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: control + "/3.abc.sock", withDestinationPath: victim)
        let running = try RunningService(["scheduler-example", "--control-directory", control])
        #expect(await running.waitFor("ready"))
        #expect(try await runBgctl(["status"] + live(control)).status == 0)
        #expect(FileManager.default.fileExists(atPath: control + "/x.request/file"))
        #expect(FileManager.default.fileExists(atPath: control + "/2.abc.sock"))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: control + "/3.abc.sock")) == victim)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
    }

    @Test("Finding 4 / issue 9 defect 1: a wrong --pid is never signalled")
    func wrongPidIsNeverSignalled() async throws {
        let scratch = try Scratch()
        let (running, control) = try await startService(in: scratch)
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["infinity"]  // killed below; a test slowed past any fixed length must not see it end
        sleeper.standardOutput = FileHandle.nullDevice
        sleeper.standardError = FileHandle.nullDevice
        try sleeper.run()
        defer { sleeper.killWithoutWaiting() }
        let result = try await runBgctl(["status", "--timeout", "1"] + live(control, pid: sleeper.processIdentifier))
        #expect(result.status == 69, "stderr: \(result.error)")
        #expect(result.error.contains("no control socket of process \(sleeper.processIdentifier) is listening"))
        #expect(sleeper.isRunning, "bgctl signalled an unrelated process")
        #expect(running.process.isRunning)
    }

    @Test("Finding 4: a socket whose listener is not the pid its name claims is refused")
    func impostorListenerIsRefused() async throws {
        let scratch = try Scratch()
        let (running, control) = try await startService(in: scratch)
        let socket = try #require(try FileManager.default.contentsOfDirectory(atPath: control).first)
        // The app's real socket, renamed to claim another process's pid.
        let impostor = "\(getpid()).beef.sock"
        try FileManager.default.moveItem(atPath: control + "/" + socket, toPath: control + "/" + impostor)
        let result = try await runBgctl(["status"] + live(control, pid: getpid()))
        #expect(result.status == 77, "stderr: \(result.error)")
        #expect(result.error.contains("the listener is process \(running.pid), not process \(getpid())"))
    }

    @Test("Finding 4: each process of an app answers for itself; with two running, --pid chooses")
    func requestsAreAddressed() async throws {
        let scratch = try Scratch()
        let (first, control) = try await startService(in: scratch)
        let second = try RunningService(["scheduler-example", "--control-directory", control])
        #expect(await second.waitFor("ready"))
        let ambiguous = try await runBgctl(["status"] + live(control))
        #expect(ambiguous.status == 64)
        #expect(ambiguous.error.contains("several processes of the app are running"))
        for service in [first, second] {
            let answer = try await runBgctl(["status"] + live(control, pid: service.pid))
            #expect(answer.status == 0, "stderr: \(answer.error)")
            #expect(answer.output.hasPrefix("\(Self.app) [pid \(service.pid)]: active"))
        }
        kill(second.pid, SIGKILL)
        _ = await second.waitForExit()
        // The dead process's socket is left behind; nobody listens there, so it is skipped.
        let answer = try await runBgctl(["status"] + live(control))
        #expect(answer.output.hasPrefix("\(Self.app) [pid \(first.pid)]: active"), "stderr: \(answer.error)")
    }

    @Test("Finding 4: SIGUSR1 is no longer a doorbell: bgctl sends no signal at all")
    func noSignalIsSent() async throws {
        let scratch = try Scratch()
        let (running, control) = try await startService(in: scratch)
        // Before, the app only answered after SIGUSR1; now bgctl only connects.
        let answer = try await runBgctl(["why", "com.example.scheduler.cleanup"] + live(control))
        #expect(answer.status == 0, "stderr: \(answer.error)")
        #expect(answer.output.contains("needs external power"))
        let unknown = try await runBgctl(["simulate-launch", "com.example.nope"] + live(control))
        #expect(unknown.status == 1)
        #expect(unknown.output == "no pending task request with identifier com.example.nope\n")
        #expect(running.process.isRunning)
    }

    @Test("bgctl against an app that is not running says so, with exit 69")
    func notRunning() async throws {
        let scratch = try Scratch()
        let result = try await runBgctl(["status"] + live(scratch.child("control")))
        #expect(result.status == 69)
        #expect(result.error.hasPrefix("bgctl status: app \(Self.app): "))
        #expect(result.error.contains("does not exist"))
        #expect(!FileManager.default.fileExists(atPath: scratch.child("control")), "a reading command created it")
    }
}
