import BackgroundProcessControl
import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The daemon as an ordinary user (uid 65534), run by `setpriv`: without delegation it cannot
/// create cgroups and falls back to signals, saying why; in a subtree delegated to it (the
/// directory and its `cgroup.procs`, `cgroup.subtree_control` and `cgroup.threads` chowned to
/// it, as the kernel's delegation model and systemd's `Delegate=yes` do) and running inside
/// it, it uses the cgroup freezer.
@Suite(
    "Delegation: an unprivileged daemon uses the freezer in a delegated subtree, and falls back without one",
    .enabled(
        if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
        "skipped: needs root and setpriv to run as uid 65534 (CI runs as root)"
    )
)
struct DelegationTests {
    static let user = "65534"
    static let check = builtExecutable("process-control-check").path
    static let setpriv = ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups"]

    /// The cgroup2 mount, from where the tests' own controller put its subtree.
    func cgroupMount() throws -> String? {
        guard let controller = try AppFixture.cgroupController(),
            case .cgroupFreezer(let subtree) = controller.freezeMechanism
        else { return nil }
        return URL(fileURLWithPath: subtree).deletingLastPathComponent().path
    }

    /// A cgroup delegated to the user, removed with what is left in it at the end.
    func delegatedCgroup(in mount: String) throws -> String {
        let path = "\(mount)/background-process-control-delegated-\(getpid())-\(UInt32.random(in: 0..<1_000_000))"
        guard mkdir(path, 0o755) == 0 else { throw FixtureError("mkdir \(path): errno \(errno)") }
        for file in ["", "/cgroup.procs", "/cgroup.subtree_control", "/cgroup.threads"] {
            guard chown(path + file, 65534, 65534) == 0 else {
                throw FixtureError("chown \(path)\(file): errno \(errno)")
            }
        }
        return path
    }

    func removeCgroup(_ path: String) async {
        _ = await waitUntil(timeout: .seconds(10)) {
            rmdir(path + "/tree")
            return rmdir(path) == 0 || errno == ENOENT
        }
    }

    @Test("uid 65534 without delegation: SIGSTOP/SIGCONT, because the subtree cannot be created")
    func withoutDelegation() async throws {
        guard let mount = try cgroupMount() else { return }
        let run = try await runChildProcess(
            URL(fileURLWithPath: Self.setpriv[0]),
            Array(Self.setpriv.dropFirst()) + [
                Self.check, mount, "background-process-control-unprivileged", AppFixture.testApp,
            ]
        )
        #expect(run.status == 0, "\(run.output)\(run.error)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("mechanism process-group-signals") == true)
        #expect(lines.first?.contains("cannot be created: Permission denied") == true)
        #expect(lines.last == "exit was killed by signal 9 (SIGKILL)")
    }

    @Test(
        "uid 65534 with a delegated subtree it does not run in: the start-up probe finds it cannot move processes there"
    )
    func delegatedButOutside() async throws {
        guard let mount = try cgroupMount() else { return }
        let delegated = try delegatedCgroup(in: mount)
        let run = try await runChildProcess(
            URL(fileURLWithPath: Self.setpriv[0]),
            Array(Self.setpriv.dropFirst()) + [Self.check, delegated, "tree", AppFixture.testApp]
        )
        await removeCgroup(delegated)
        #expect(run.status == 0, "\(run.output)\(run.error)")
        let first = run.output.split(separator: "\n").first ?? ""
        #expect(first.hasPrefix("mechanism process-group-signals"))
        #expect(first.contains("a process cannot be started in it: Permission denied"))
        #expect(first.contains("the daemon must itself run inside it"))
    }

    @Test("uid 65534 running inside its delegated subtree: the cgroup v2 freezer, frozen 1, killed")
    func delegatedAndInside() async throws {
        guard let mount = try cgroupMount() else { return }
        let delegated = try delegatedCgroup(in: mount)
        // A root shell moves itself into the delegated cgroup, then becomes uid 65534 and runs the check.
        let script = "echo $$ > \"$1/cgroup.procs\" && shift && exec \"$@\""
        let run = try await runChildProcess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", script, "sh", delegated] + Self.setpriv + [Self.check, delegated, "tree", AppFixture.testApp]
        )
        await removeCgroup(delegated)
        #expect(run.status == 0, "\(run.output)\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first == "mechanism cgroup-freezer cgroup v2 freezer in \(delegated)/tree")
        #expect(lines.dropFirst().first?.contains(" \(delegated)/tree/com.example.delegated@") == true)
        #expect(lines.dropFirst(2).first == "frozen 1")
        #expect(lines.last == "exit was killed by signal 9 (SIGKILL)")
    }
}
