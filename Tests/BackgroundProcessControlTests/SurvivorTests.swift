import BackgroundProcessControl
import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A daemon restarted after `kill -9` takes over the apps its previous run left in the subtree.
/// The previous run is played by hand: its cgroups are made as it named them, with the pid of a
/// process that has ended as the daemon's, and a running test app is moved into one.
@Suite("Survivors: apps a dead daemon run started are adopted; empty leftovers are removed")
struct SurvivorTests {
    func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    @Test("a frozen survivor is adopted frozen, then thawed, killed and watched; stale and live cgroups are told apart")
    func adoptAfterRestart() async throws {
        guard try AppFixture.cgroupController() != nil else { return }
        let subtreeName = "background-process-control-survivors-\(getpid())"
        let signals = try AppFixture.signalController()
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        // The "previous daemon": a pid above any pid_max, so no process can have it.
        let dead: Int32 = 2_147_483_000
        let first = try LinuxProcessController(configuration: .init(subtreeName: subtreeName))
        guard case .cgroupFreezer(let subtree) = first.freezeMechanism else { return }
        defer { removeCgroupTree(subtree) }  // bottom-up, whatever the test left
        // The app the previous run started, moved into its cgroup and frozen there.
        let (app, socket) = try AppFixture.start(signals, ["fork", "ready", "echo"], in: container)
        defer { close(socket) }
        let child = try await AppFixture.readChild(socket)
        #expect(await AppFixture.readLine(socket) == "ready")
        let survivorCgroup = "\(subtree)/com.example.survivor@\(dead).0badf00d.7"
        let staleCgroup = "\(subtree)/com.example.gone@\(dead).0badf00d.8"
        // An earlier daemon that had this very pid (as pid 1 in a container always does).
        let samePidCgroup = "\(subtree)/com.example.earlier@\(getpid()).\(AppFixture.otherRun).9"
        for path in [survivorCgroup, staleCgroup, samePidCgroup] { mkdir(path, 0o755) }
        for pid in [app.pid, child] { try write("\(pid)", to: survivorCgroup + "/cgroup.procs") }
        try write("1", to: survivorCgroup + "/cgroup.freeze")
        #expect(await waitUntil { (try? AppFixture.cgroupFrozen(survivorCgroup)) == true })
        // A running controller's app in the same subtree is not a survivor.
        let live = try first.spawn(AppFixture.request(["sleep", "forever"], in: container, label: "com.example.live"))

        let restarted = try LinuxProcessController(configuration: .init(subtreeName: subtreeName))
        let survivors = try restarted.adoptSurvivors()
        #expect(survivors.count == 1)
        let survivor = try #require(survivors.first)
        #expect(survivor.process.label == "com.example.survivor")
        #expect(survivor.process.pid == app.pid)
        #expect(survivor.process.cgroup == survivorCgroup)
        #expect(survivor.isFrozen)
        #expect(survivor.startedBy == dead)
        #expect(!FileManager.default.fileExists(atPath: staleCgroup), "an empty leftover is removed")
        #expect(!FileManager.default.fileExists(atPath: samePidCgroup), "an earlier run with this pid is dead too")
        #expect(FileManager.default.fileExists(atPath: try #require(live.cgroup)), "a live controller's is left alone")
        #expect(try restarted.members(of: survivor.process) == [app.pid, child].sorted())
        #expect(try restarted.adoptSurvivors().isEmpty, "adopted once")

        try restarted.thaw(survivor.process)
        AppFixture.writeLine(socket, "after the restart")
        #expect(await AppFixture.readLine(socket) == "after the restart")
        try await restarted.freeze(survivor.process)
        #expect(try AppFixture.cgroupFrozen(survivorCgroup))
        try restarted.kill(survivor.process)
        // Not this process's child: how it ended cannot be known, and -1 says so.
        #expect(await restarted.exit(of: survivor.process).status == .exited(code: -1))
        #expect(await signals.exit(of: app).status == .signaled(signal: SIGKILL, coreDumped: false))
        #expect(await waitUntil { !FileManager.default.fileExists(atPath: survivorCgroup) }, "removed once empty")
        await AppFixture.finish(first, live)
        #expect(
            await waitUntil {
                (try? FileManager.default.contentsOfDirectory(atPath: subtree).filter { $0.contains("@") }.isEmpty)
                    == true
            }
        )
    }

    @Test("cgroup names give back the label, the daemon's pid and run, and the serial; anything else is not an app's")
    func leafNames() {
        #expect(
            AppFixture.parseLeaf("com.example.news@4242.0badf00d.17") == ["com.example.news", "4242", "0badf00d", "17"]
        )
        #expect(AppFixture.parseLeaf("odd@name@12.00000000.3") == ["odd@name", "12", "00000000", "3"])
        #expect(AppFixture.parseLeaf("cgroup.procs") == nil)
        #expect(AppFixture.parseLeaf("no-at.12") == nil)
        #expect(AppFixture.parseLeaf("x@12.3") == nil, "no run")
        #expect(AppFixture.parseLeaf("x@12.0bad.3") == nil, "a run is 8 hex digits")
        #expect(AppFixture.parseLeaf("x@12.0badf00z.3") == nil)
        #expect(AppFixture.parseLeaf("x@-1.0badf00d.2") == nil)
    }
}
