import BackgroundProcessControl
import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Starting an app under its own uid (what a root daemon does with per-app uids): the ids the
/// kernel records for the process, its groups and umask, a failure after the drop reported to
/// the parent, root refused, and the app unable to thaw itself through its cgroup's files.
@Suite(
    "Spawning under the app's own uid",
    .enabled(
        if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
        "skipped: needs root (to change uids) and setpriv (CI runs as root)"
    )
)
struct ProcessUserTests {
    static let user = ProcessUser(uid: 200_900, gid: 200_900, groups: [200_901])

    /// A container owned by `user`, mode 0700.
    static func container(owner: UInt32) throws -> URL {
        let directory = try AppFixture.scratch()
        guard chown(directory.path, owner, owner) == 0, chmod(directory.path, 0o700) == 0 else {
            throw FixtureError("chown/chmod \(directory.path): errno \(errno)")
        }
        return directory
    }

    /// `Uid:`/`Gid:`/`Groups:`/`Umask:` of `/proc/<pid>/status`, tabs as spaces.
    static func ids(of pid: Int32) throws -> [String: String] {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        var fields: [String: String] = [:]
        for line in status.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, ["Uid", "Gid", "Groups", "Umask"].contains(String(parts[0])) else { continue }
            fields[String(parts[0])] = parts[1].split(whereSeparator: { $0 == "\t" || $0 == " " }).joined(
                separator: " "
            )
        }
        return fields
    }

    @Test(
        "the app runs with every uid and gid of its own, only its groups, the umask asked for",
        arguments: ["clone3 into its cgroup", "the fork fallback into its cgroup", "SIGSTOP mode"]
    )
    func runsAsItsUser(mode: String) async throws {
        let controller: LinuxProcessController
        switch mode {
        case "SIGSTOP mode":
            controller = try AppFixture.signalController()
        default:
            guard try AppFixture.cgroupController() != nil else { return }
            controller = try LinuxProcessController(
                configuration: .init(subtreeName: AppFixture.subtreeName),
                forcingFork: mode.contains("fork")
            )
        }
        let container = try Self.container(owner: Self.user.uid)
        defer { try? FileManager.default.removeItem(at: container) }
        let socket = try AppFixture.socketPair()
        defer { close(socket.daemon) }
        var request = AppFixture.request(["report", "sleep", "forever"], in: container, connection: socket.app)
        request.user = Self.user
        request.umask = 0o007
        let app = try controller.spawn(request)
        close(socket.app)
        // The inherited connection still works after the drop.
        let line = try #require(await AppFixture.readLine(socket.daemon))
        #expect(line == "pid=\(app.pid) pgid=\(app.pid) cwd=\(container.path) connection=3 fds=0,1,2,3")
        let ids = try Self.ids(of: app.pid)
        #expect(ids["Uid"] == "200900 200900 200900 200900")
        #expect(ids["Gid"] == "200900 200900 200900 200900")
        #expect(ids["Groups"] == "200901")
        #expect(ids["Umask"] == "0007")
        if mode != "SIGSTOP mode" {
            // Placed before it ran (the fork fallback's child writes cgroup.procs before it drops).
            #expect(try controller.members(of: app) == [app.pid])
        }
        await AppFixture.finish(controller, app)
    }

    @Test("in its cgroup, the app cannot write its cgroup.freeze (the files stay root's)")
    func cannotThawItself() async throws {
        guard let controller = try AppFixture.cgroupController() else { return }
        let container = try Self.container(owner: Self.user.uid)
        defer { try? FileManager.default.removeItem(at: container) }
        let socket = try AppFixture.socketPair()
        defer { close(socket.daemon) }
        var request = AppFixture.request(["cgroup", "sleep", "forever"], in: container, connection: socket.app)
        request.user = Self.user
        let app = try controller.spawn(request)
        close(socket.app)
        let line = try #require(await AppFixture.readLine(socket.daemon))
        let cgroup = String(line.dropFirst("cgroup ".count))
        // Placed in its own cgroup by clone3 before it ran, as without a uid of its own.
        #expect(cgroup.split(separator: "/").last?.hasPrefix("com.example.testapp@") == true, "\(cgroup)")
        let freezeFile = try #require(
            CgroupFiles.mount.map { $0 + cgroup + "/cgroup.freeze" },
            "no cgroup2 mount"
        )
        // The same uid as the app, from another process: what a hostile app could do.
        let attempt = try await runChildProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid", "200900", "--regid", "200900", "--clear-groups", "/bin/sh", "-c",
                "echo 0 > '\(freezeFile)'",
            ]
        )
        #expect(attempt.status != 0)
        #expect(attempt.error.contains("Permission denied"), "\(attempt.error)")
        await AppFixture.finish(controller, app)
    }

    @Test("a working directory the app's uid cannot enter fails the spawn, reported from after the drop")
    func failureAfterTheDropIsReported() throws {
        let controller = try AppFixture.signalController()
        let container = try Self.container(owner: 0)  // root's, 0700: not the app's
        defer { try? FileManager.default.removeItem(at: container) }
        var request = AppFixture.request(["report"], in: container)
        request.user = Self.user
        #expect {
            try controller.spawn(request)
        } throws: { error in
            let text = "\(error)"
            return text.contains("working directory \(container.path)") && text.contains("errno 13")
        }
    }

    @Test("root is never a user to drop to")
    func rootIsRefused() throws {
        let controller = try AppFixture.signalController()
        let container = try AppFixture.scratch()
        defer { try? FileManager.default.removeItem(at: container) }
        for user in [
            ProcessUser(uid: 0, gid: 200_900), ProcessUser(uid: 200_900, gid: 0),
            ProcessUser(uid: 200_900, gid: 200_900, groups: [0]),
        ] {
            var request = AppFixture.request(["report"], in: container)
            request.user = user
            #expect {
                try controller.spawn(request)
            } throws: { error in
                "\(error)".contains("names root (0): an app is never started as root")
            }
        }
    }
}

/// Where cgroup v2 is mounted (`/proc/self/mountinfo`).
enum CgroupFiles {
    static var mount: String? {
        guard let info = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        for line in info.split(separator: "\n") {
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
            let fields = halves[0].split(separator: " ")
            if fields.count > 4 { return String(fields[4]) }
        }
        return nil
    }
}
