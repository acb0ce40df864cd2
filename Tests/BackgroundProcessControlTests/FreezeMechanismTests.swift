import BackgroundProcessControl
import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Detection at start-up: which mechanism, and why not cgroups. The cgroup root is a path
/// another user might control, so a hostile one must be refused, never used.
@Suite("Freeze mechanism detection: cgroups when they work, the reason when they do not")
struct FreezeMechanismTests {
    @Test("a configured fallback never tries cgroups and says so")
    func configuredFallback() throws {
        let controller = try LinuxProcessController(configuration: .init(freezer: .processGroupSignals))
        #expect(
            controller.freezeMechanism == .processGroupSignals(reason: "configured (freezer: process-group-signals)")
        )
    }

    @Test("automatic detection on this machine finds the cgroup v2 freezer in the daemon's own cgroup")
    func automaticFindsCgroups() throws {
        guard try AppFixture.cgroupController() != nil else { return }
        // A subtree of its own: other tests' controllers probe in the shared one meanwhile.
        let name = "background-process-control-detection-\(getpid())"
        let controller = try LinuxProcessController(configuration: .init(subtreeName: name))
        guard case .cgroupFreezer(let subtree) = controller.freezeMechanism else {
            Issue.record("detected once, then not: \(controller.freezeMechanism)")
            return
        }
        defer { rmdir(subtree) }
        #expect(subtree.hasSuffix("/\(name)"))
        let mounts = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
        #expect(mounts.contains(" - cgroup2 "))
        let entries = try FileManager.default.contentsOfDirectory(atPath: subtree)
        #expect(entries.filter { $0.hasPrefix("probe@") }.isEmpty, "the start-up probe cleans up")
        #expect(entries.contains("cgroup.freeze"), "the subtree is a cgroup")
    }

    @Test("a root that is not a cgroup falls back, with the reason")
    func rootThatIsNotACgroup() throws {
        let directory = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let controller = try LinuxProcessController(
            configuration: .init(cgroupRoot: directory.path, subtreeName: "tree")
        )
        guard case .processGroupSignals(let reason) = controller.freezeMechanism else {
            Issue.record("a plain directory is not a cgroup: \(controller.freezeMechanism)")
            return
        }
        #expect(reason.contains("cgroup.procs"))
    }

    @Test("a symbolic link as the root, or a root another user can write, is refused")
    func hostileRoots() throws {
        let directory = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let link = directory.appendingPathComponent("cgroup-link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/sys/fs/cgroup")
        let linked = try LinuxProcessController(configuration: .init(cgroupRoot: link.path, subtreeName: "tree"))
        #expect(linked.freezeMechanism.description.contains("is a symbolic link, not a directory"))
        let open = directory.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        chmod(open.path, 0o777)
        let writable = try LinuxProcessController(configuration: .init(cgroupRoot: open.path, subtreeName: "tree"))
        #expect(writable.freezeMechanism.description.contains("writable by other users"))
        let planted = directory.appendingPathComponent("planted")
        try FileManager.default.createDirectory(
            at: planted.appendingPathComponent("tree"),
            withIntermediateDirectories: true
        )
        if geteuid() == 0 {
            chown(planted.appendingPathComponent("tree").path, 65534, 65534)
            let foreign = try LinuxProcessController(
                configuration: .init(cgroupRoot: planted.path, subtreeName: "tree")
            )
            #expect(foreign.freezeMechanism.description.contains("is owned by uid 65534"))
        }
        let badName = try LinuxProcessController(configuration: .init(subtreeName: "../escape"))
        #expect(badName.freezeMechanism.description.contains("is not one cgroup name"))
    }
}
