import BackgroundTestSupport
import Foundation
import Testing

@testable import BackgroundProcessControl

#if canImport(Glibc)
import Glibc
#endif

/// Freezing and thawing real processes with each mechanism, checked the way the kernel shows
/// it: `frozen 1` in `cgroup.events`, or state `T` in `/proc/<pid>/stat`.
@Suite("Freezing: the cgroup v2 freezer, and SIGSTOP/SIGCONT of the process group as the fallback")
struct FreezeTests {
    /// An app that forked a child and then echoes, with its socket; the child's pid.
    func startForkingApp(
        _ controller: LinuxProcessController,
        in container: URL
    ) async throws -> (app: AppProcess, child: Int32, socket: Int32) {
        let (app, socket) = try AppFixture.start(controller, ["fork", "echo"], in: container)
        return (app, try await AppFixture.readChild(socket), socket)
    }

    @Test("cgroup: frozen 1 after freeze (app and its child), frozen 0 after thaw; the app answers only when thawed")
    func cgroupFreezeAndThaw() async throws {
        guard let controller = try AppFixture.cgroupController() else { return }
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let (app, child, socket) = try await startForkingApp(controller, in: container)
        defer { close(socket) }
        let cgroup = try #require(app.cgroup)
        #expect(try !AppFixture.cgroupFrozen(cgroup))
        let took = try await controller.freeze(app)
        #expect(took > .zero)
        #expect(try AppFixture.cgroupFrozen(cgroup))
        // v2-frozen tasks sleep in the freezer (state S), never T: the app cannot tell.
        #expect(AppFixture.state(of: app.pid) != "T" && AppFixture.state(of: child) != "T")
        // A frozen app does not answer. 300 ms of real time is the test's only sleep: proving
        // that nothing happens needs a wait; a thawed app answers at once, below.
        AppFixture.writeLine(socket, "while frozen")
        #expect(await AppFixture.readLine(socket, timeout: .milliseconds(300)) == nil)
        try controller.thaw(app)
        #expect(try !AppFixture.cgroupFrozen(cgroup))
        #expect(await AppFixture.readLine(socket) == "while frozen")
        try controller.thaw(app)  // thawing a running app does nothing
        await AppFixture.finish(controller, app)
    }

    @Test("signals: every process of the group in state T after freeze, running after thaw")
    func signalFreezeAndThaw() async throws {
        let controller = try AppFixture.signalController()
        #expect(controller.freezeMechanism.name == "process-group-signals")
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let (app, child, socket) = try await startForkingApp(controller, in: container)
        defer { close(socket) }
        #expect(app.cgroup == nil)
        try await controller.freeze(app)
        #expect(AppFixture.state(of: app.pid) == "T")
        #expect(AppFixture.state(of: child) == "T")
        AppFixture.writeLine(socket, "while stopped")
        #expect(await AppFixture.readLine(socket, timeout: .milliseconds(300)) == nil)  // the same 300 ms as above
        try controller.thaw(app)
        #expect(await AppFixture.readLine(socket) == "while stopped")
        #expect(AppFixture.state(of: app.pid) != "T")
        #expect(AppFixture.state(of: child) != "T")
        await AppFixture.finish(controller, app)
    }

    /// Issue 25, finding 7: under the SIGSTOP fallback, a process the app started outside its
    /// process group (setsid, then a second fork, as a daemonizer does) was neither frozen nor
    /// killed, and kept running after a force quit.
    @Test("signals: a process the app started outside its group is frozen, thawed and killed with it")
    func signalsReachWhatLeftTheGroup() async throws {
        let controller = try AppFixture.signalController()
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let (app, socket) = try AppFixture.start(controller, ["escape", "ready", "echo"], in: container)
        defer { close(socket) }
        let stray = try await AppFixture.readChild(socket)
        // Should the controller miss it, it is ended here all the same: it holds this test
        // process's standard output, and `swift test` would wait for it for ever.
        let strayStart = ProcFileSystem.status(of: stray)?.startTime
        defer { if ProcFileSystem.status(of: stray)?.startTime == strayStart { kill(stray, SIGKILL) } }
        #expect(await AppFixture.readLine(socket) == "ready")
        #expect(getpgid(stray) != app.pid, "outside the app's process group")
        #expect(ProcFileSystem.status(of: stray)?.parent == app.pid, "kept as the app's child (a subreaper)")
        try await controller.freeze(app)
        #expect(AppFixture.state(of: app.pid) == "T")
        #expect(AppFixture.state(of: stray) == "T")
        try controller.thaw(app)
        #expect(AppFixture.state(of: stray) != "T")
        try controller.kill(app)
        _ = await controller.exit(of: app)
        #expect(
            await waitUntil { ["Z", "X", nil].contains(AppFixture.state(of: stray)) },
            "the stray is ended with the app"
        )
    }

    @Test("freezing, thawing or reading locks of an app that has exited is a typed error", arguments: [true, false])
    func actingOnAnExitedApp(cgroups: Bool) async throws {
        guard let controller = try cgroups ? AppFixture.cgroupController() : AppFixture.signalController() else {
            return
        }
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        let app = try controller.spawn(AppFixture.request(["exit", "0"], in: container))
        _ = await controller.exit(of: app)
        await #expect(throws: ProcessControlError.self) { try await controller.freeze(app) }
        #expect(throws: ProcessControlError.self) { try controller.thaw(app) }
        #expect(throws: ProcessControlError.self) { try controller.locksHeld(by: app, under: [container.path]) }
        try controller.kill(app)  // killing an app that has ended does nothing
        let stranger = AppProcess(label: "com.example.other", pid: app.pid, serial: app.serial + 1_000_000, cgroup: nil)
        let error = #expect(throws: ProcessControlError.self) { try controller.kill(stranger) }
        #expect(error?.code == .unknownProcess)
    }
}
