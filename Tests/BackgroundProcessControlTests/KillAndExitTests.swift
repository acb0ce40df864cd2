import BackgroundProcessControl
import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Kills and exits, reported as values from the pidfd (no busy polling, no SIGCHLD handler).
@Suite("Kill and exit watching: SIGKILL of the whole app, exit codes and signals as values")
struct KillAndExitTests {
    @Test("kill ends the app and what it forked, frozen or not", arguments: [true, false], [true, false])
    func killWholeApp(cgroups: Bool, frozenFirst: Bool) async throws {
        guard let controller = try cgroups ? AppFixture.cgroupController() : AppFixture.signalController() else {
            return
        }
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let (app, socket) = try AppFixture.start(controller, ["fork", "sleep", "forever"], in: container)
        defer { close(socket) }
        let child = try await AppFixture.readChild(socket)
        if frozenFirst { try await controller.freeze(app) }
        try controller.kill(app)
        let exit = await controller.exit(of: app)
        #expect(exit.process == app)
        #expect(exit.status == .signaled(signal: SIGKILL, coreDumped: false))
        // The child was reparented when the app died; whoever reaps it, it is gone or a zombie.
        #expect(await waitUntil { AppFixture.state(of: child) == nil || AppFixture.state(of: child) == "Z" })
        if let cgroup = app.cgroup {
            #expect(await waitUntil { !FileManager.default.fileExists(atPath: cgroup) }, "removed once empty")
        }
    }

    @Test("exit codes and crashes are reported as values, to exit(of:) and to every exits() stream")
    func exitStatuses() async throws {
        let controller = try AppFixture.signalController()
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let first = controller.exits()
        let second = controller.exits()
        let exited = try controller.spawn(AppFixture.request(["exit", "3"], in: container, label: "com.example.exits"))
        #expect(await controller.exit(of: exited).status == .exited(code: 3))
        let crashed = try controller.spawn(
            AppFixture.request(["crash", "6"], in: container, label: "com.example.exits")
        )
        let crash = await controller.exit(of: crashed)
        guard case .signaled(let signal, _) = crash.status else {
            Issue.record("a crash is a signal, not \(crash.status)")
            return
        }
        #expect(signal == SIGABRT)
        #expect(await controller.exit(of: exited).status == .exited(code: 3), "asked again, answered at once")
        for stream in [first, second] {
            var iterator = stream.makeAsyncIterator()
            var seen: [ProcessExit] = []
            while seen.count < 2, let exit = await iterator.next() {
                if exit.process.label == "com.example.exits" { seen.append(exit) }
            }
            #expect(seen.map(\.process) == [exited, crashed])
        }
    }

    @Test("an app that exits leaves nothing running: its forked child is killed with it", arguments: [true, false])
    func exitTakesTheRestAlong(cgroups: Bool) async throws {
        guard let controller = try cgroups ? AppFixture.cgroupController() : AppFixture.signalController() else {
            return
        }
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let (app, socket) = try AppFixture.start(controller, ["fork", "ready", "echo"], in: container)
        defer { close(socket) }
        let child = try await AppFixture.readChild(socket)
        #expect(await AppFixture.readLine(socket) == "ready")
        shutdown(socket, Int32(SHUT_RDWR))  // echo ends, the app exits 0
        #expect(await controller.exit(of: app).status == .exited(code: 0))
        #expect(await waitUntil { AppFixture.state(of: child) == nil || AppFixture.state(of: child) == "Z" })
    }

    @Test("the most recent exits are kept; older ones are forgotten and answered as unknown, not kept for ever")
    func exitsAreBounded() async throws {
        let controller = try LinuxProcessController(
            configuration: .init(freezer: .processGroupSignals),
            forcingFork: false,
            keptExits: 2
        )
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        var apps: [AppProcess] = []
        for code in [3, 4, 5] {
            let app = try controller.spawn(AppFixture.request(["exit", "\(code)"], in: container))
            #expect(await controller.exit(of: app).status == .exited(code: Int32(code)))
            apps.append(app)
        }
        #expect(await controller.exit(of: apps[0]).status == .exited(code: -1), "forgotten")
        #expect(await controller.exit(of: apps[1]).status == .exited(code: 4))
        #expect(await controller.exit(of: apps[2]).status == .exited(code: 5))
        #expect(throws: ProcessControlError.self) { try controller.kill(apps[0]) }
        try controller.kill(apps[1])  // kept: killing an app that has ended does nothing
    }
}
