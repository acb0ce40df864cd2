import BackgroundProcessControl
import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Starting an app: its descriptors, environment, working directory, process group and cgroup.
/// Real child processes; the waits are for the app's lines on its socket, never sleeps.
@Suite("Spawning: the connection as descriptor 3, nothing else leaked, in its cgroup before it runs")
struct SpawnTests {
    @Test(
        "the app gets exactly 0, 1, 2 and its connection, its environment and its container",
        arguments: [true, false]
    )
    func descriptorsEnvironmentDirectory(cgroups: Bool) async throws {
        guard let controller = try cgroups ? AppFixture.cgroupController() : AppFixture.signalController() else {
            return
        }
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let socket = try AppFixture.socketPair()
        defer { close(socket.daemon) }
        // A canary the daemon has open without close-on-exec: it must not reach the app.
        let canary = open("/dev/null", O_RDONLY)
        defer { close(canary) }
        // The daemon ignores SIGPIPE (as NIO does) and this thread blocks SIGUSR2: neither may
        // reach the app, which starts with default dispositions and an empty mask.
        signal(SIGPIPE, SIG_IGN)
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR2)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let spawned = Result {
            try controller.spawn(
                AppFixture.request(["report", "sleep", "forever"], in: container, connection: socket.app)
            )
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let app = try spawned.get()
        close(socket.app)
        let line = try #require(await AppFixture.readLine(socket.daemon))
        #expect(line == "pid=\(app.pid) pgid=\(app.pid) cwd=\(container.path) connection=3 fds=0,1,2,3")
        #expect(try AppFixture.openDescriptors(of: app.pid) == [0, 1, 2, 3])
        let environ = try String(contentsOfFile: "/proc/\(app.pid)/environ", encoding: .utf8)
        #expect(environ.split(separator: "\0").sorted() == ["BACKGROUND_CONNECTION_FD=3", "LANG=C"])
        #expect(try String(contentsOfFile: "/proc/\(app.pid)/fdinfo/0", encoding: .utf8).contains("flags:\t0100002"))
        let status = try String(contentsOfFile: "/proc/\(app.pid)/status", encoding: .utf8)
        #expect(status.contains("SigIgn:\t0000000000000000"))
        #expect(status.contains("SigBlk:\t0000000000000000"))
        await AppFixture.finish(controller, app)
    }

    @Test("without a connection there is no descriptor 3 and no variable")
    func withoutConnection() async throws {
        let controller = try AppFixture.signalController()
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let output = container.appendingPathComponent("out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let file = open(output.path, O_WRONLY | O_CLOEXEC)
        defer { close(file) }
        var request = AppFixture.request(["report"], in: container)
        request.standardOutput = .descriptor(file)
        let app = try controller.spawn(request)
        #expect(await controller.exit(of: app).status == .exited(code: 0))
        let line = try String(contentsOf: output, encoding: .utf8)
        #expect(line == "pid=\(app.pid) pgid=\(app.pid) cwd=\(container.path) connection=none fds=0,1,2\n")
    }

    @Test(
        "the app is in its own cgroup at its first step, and so is what it forks at once (clone3, and the fork fallback)",
        arguments: [false, true]
    )
    func placedInItsCgroup(forcingFork: Bool) async throws {
        guard try AppFixture.cgroupController() != nil else { return }
        let controller = try LinuxProcessController(
            configuration: .init(subtreeName: AppFixture.subtreeName),
            forcingFork: forcingFork
        )
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let (app, socket) = try AppFixture.start(controller, ["cgroup", "fork", "sleep", "forever"], in: container)
        defer { close(socket) }
        let seen = try #require(await AppFixture.readLine(socket))
        let child = try await AppFixture.readChild(socket)
        let cgroup = try #require(app.cgroup)
        #expect(cgroup.hasPrefix("/") && cgroup.contains("/\(AppFixture.subtreeName)/com.example.testapp@"))
        // The app's own view, at its first step: the cgroup's path below the cgroup2 mount.
        let leafAndSubtree = "/" + cgroup.split(separator: "/").suffix(2).joined(separator: "/")
        #expect(seen.hasPrefix("cgroup /") && seen.hasSuffix(leafAndSubtree))
        #expect(try controller.members(of: app) == [app.pid, child].sorted())
        #expect(try AppFixture.openDescriptors(of: app.pid) == [0, 1, 2, 3])
        await AppFixture.finish(controller, app)
        #expect(await waitUntil { !FileManager.default.fileExists(atPath: cgroup) }, "removed once empty")
    }

    @Test("the app talks on its inherited socket")
    func echoOnConnection() async throws {
        let controller = try AppFixture.signalController()
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let socket = try AppFixture.socketPair()
        let app = try controller.spawn(AppFixture.request(["ready", "echo"], in: container, connection: socket.app))
        close(socket.app)
        #expect(await AppFixture.readLine(socket.daemon) == "ready")
        AppFixture.writeLine(socket.daemon, "hello from the daemon")
        #expect(await AppFixture.readLine(socket.daemon) == "hello from the daemon")
        close(socket.daemon)  // the app's echo ends at end of stream, and the app exits 0
        #expect(await controller.exit(of: app).status == .exited(code: 0))
    }

    @Test(
        "a missing program or working directory is a typed error, and nothing is left running",
        arguments: [true, false]
    )
    func spawnErrors(cgroups: Bool) throws {
        guard let controller = try cgroups ? AppFixture.cgroupController() : AppFixture.signalController() else {
            return
        }
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        var missingProgram = AppFixture.request([], in: container, label: "com.example.spawn-errors")
        missingProgram.executable = container.appendingPathComponent("no-such-app").path
        let error = #expect(throws: ProcessControlError.self) { try controller.spawn(missingProgram) }
        #expect(error?.code == .spawnFailed)
        #expect(error?.errno == ENOENT)
        #expect(error?.description.contains("no-such-app cannot be executed: No such file or directory") == true)
        var missingDirectory = AppFixture.request([], in: container, label: "com.example.spawn-errors")
        missingDirectory.workingDirectory = container.appendingPathComponent("gone").path
        let directoryError = #expect(throws: ProcessControlError.self) { try controller.spawn(missingDirectory) }
        #expect(directoryError?.description.contains("working directory \(container.path)/gone") == true)
        var relative = AppFixture.request([], in: container, label: "com.example.spawn-errors")
        relative.executable = "background-test-app"
        #expect(throws: ProcessControlError.self) { try controller.spawn(relative) }
        let closedConnection = AppFixture.request(
            [],
            in: container,
            connection: 9999,
            label: "com.example.spawn-errors"
        )
        let connectionError = #expect(throws: ProcessControlError.self) { try controller.spawn(closedConnection) }
        #expect(connectionError?.description.contains("passing its descriptors: Bad file descriptor") == true)
        var badVariable = AppFixture.request([], in: container, label: "com.example.spawn-errors")
        badVariable.environment["A=B"] = "c"
        let variableError = #expect(throws: ProcessControlError.self) { try controller.spawn(badVariable) }
        #expect(variableError?.description.contains("'A=B' is not an environment variable name") == true)
        if case .cgroupFreezer(let subtree) = controller.freezeMechanism {
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: subtree)
                .filter { $0.hasPrefix("com.example.spawn-errors@\(getpid()).") }
            #expect(leftovers.isEmpty, "cgroups of failed spawns are removed")
        }
    }
}
