import BackgroundCore
import BackgroundDaemon
import BackgroundProcessControl
import Foundation
import Testing

/// Containers under per-app uids: made `0700` for the app's uid, never through a link, never
/// chowned when they exist, reachable only through root's searchable directories; shared
/// containers get their group and `02770`.
@Suite(
    "App containers with per-app uids",
    .enabled(if: geteuid() == 0, "skipped: needs root (to give directories to other uids; CI runs as root)")
)
struct AppContainerTests {
    static let user = ProcessUser(uid: 200_950, gid: 200_950, groups: [200_951])

    static func app(shared: [String] = []) -> InstalledApp {
        InstalledApp(
            manifest: AppManifest(bundleIdentifier: "com.example.boxed"),
            launch: LaunchCommand(executable: "/bin/true", sharedContainers: shared),
            file: "boxed.json",
            user: user
        )
    }

    /// A scratch directory root can walk through: `0711`.
    static func scratch() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        chmod(directory.path, 0o711)
        return directory
    }

    static func owner(_ path: String) -> String {
        var status = stat()
        guard lstat(path, &status) == 0 else { return "missing" }
        return "\(status.st_uid):\(status.st_gid) 0\(String(status.st_mode & 0o7777, radix: 8))"
    }

    @Test("a missing container is made 0700 for the app's uid and gid, the directories on the way 0711")
    func made() throws {
        let directory = try Self.scratch()
        defer { directory.remove() }
        let root = directory.path + "/var/containers"
        let path = try AppContainer.prepare(Self.app(), user: Self.user, containers: root)
        #expect(path == root + "/com.example.boxed")
        #expect(Self.owner(path) == "200950:200950 0700")
        #expect(Self.owner(directory.path + "/var") == "0:0 0711")
        // Again: the existing one is checked and kept.
        #expect(try AppContainer.prepare(Self.app(), user: Self.user, containers: root) == path)
        #expect(AppContainer.environment(path)["HOME"] == path)
        #expect(AppContainer.environment(path)["XDG_DATA_HOME"] == path + "/.local/share")
    }

    @Test("an existing container of another uid, or a link, is refused and left as it was")
    func refusedNotChanged() throws {
        let directory = try Self.scratch()
        defer { directory.remove() }
        let root = directory.path + "/containers"
        mkdir(root, 0o711)
        mkdir(root + "/com.example.boxed", 0o700)
        chown(root + "/com.example.boxed", 200_999, 200_999)
        #expect {
            try AppContainer.prepare(Self.app(), user: Self.user, containers: root)
        } throws: { error in
            "\(error)".contains("is owned by 200999:200999 with mode 0700, not 200950:200950 with mode 0700")
        }
        #expect(Self.owner(root + "/com.example.boxed") == "200999:200999 0700")
        rmdir(root + "/com.example.boxed")
        mkdir(directory.path + "/elsewhere", 0o700)
        symlink(directory.path + "/elsewhere", root + "/com.example.boxed")
        #expect {
            try AppContainer.prepare(Self.app(), user: Self.user, containers: root)
        } throws: { error in
            "\(error)".contains("com.example.boxed is not a directory (or is a link)")
        }
        #expect(Self.owner(directory.path + "/elsewhere") == "0:0 0700")
    }

    @Test(
        "a directory on the way that others cannot search, or may write, or that is not root's, is refused",
        arguments: [
            (mode_t(0o700), UInt32(0), "is not searchable by other users (mode 0700)"),
            (mode_t(0o777), UInt32(0), "is writable by other users (mode 0777) without the sticky bit"),
            (mode_t(0o711), UInt32(200_999), "is owned by uid 200999, not root"),
        ]
    )
    func unsafeAncestors(mode: mode_t, owner: UInt32, problem: String) throws {
        let directory = try Self.scratch()
        defer { directory.remove() }
        let middle = directory.path + "/middle"
        mkdir(middle, 0o700)
        chmod(middle, mode)
        chown(middle, owner, owner)
        #expect {
            try AppContainer.prepare(Self.app(), user: Self.user, containers: middle + "/containers")
        } throws: { error in
            "\(error)".contains("containers: \(middle) \(problem)")
        }
        #expect(Self.owner(middle + "/containers") == "missing")
    }

    @Test("a shared container is root's, with the group of the apps that share it, mode 02770")
    func shared() throws {
        let directory = try Self.scratch()
        defer { directory.remove() }
        let group = directory.path + "/groups/group.notes"
        _ = try AppContainer.prepare(Self.app(shared: [group]), user: Self.user, containers: directory.path + "/c")
        #expect(Self.owner(group) == "0:200951 02770")
    }

    @Test("the socket's directories: the first one others cannot search is named")
    func socketReach() throws {
        let directory = try Self.scratch()
        defer { directory.remove() }
        mkdir(directory.path + "/open", 0o711)
        mkdir(directory.path + "/closed", 0o700)
        #expect(AppContainer.unsearchableAncestor(of: directory.path + "/open/backgroundd.sock") == nil)
        #expect(
            AppContainer.unsearchableAncestor(of: directory.path + "/closed/backgroundd.sock")
                == directory.path + "/closed"
        )
    }
}
