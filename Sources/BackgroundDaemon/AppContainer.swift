import BackgroundExecution
package import BackgroundProcessControl

#if canImport(Glibc)
import Glibc
#endif

/// An app's container under per-app uids: `<containers>/<bundle identifier>`, a directory
/// `0700` owned by the app's uid and gid, made by the daemon (root) before the app starts; and
/// the app's shared containers, `02770`, owned by the daemon's user with the container's group.
///
/// Every path is reached from `/` one component at a time with `openat(O_NOFOLLOW |
/// O_DIRECTORY)` and checked with `fstat` on the descriptor (no link is followed, no path is
/// looked at twice): each directory on the way is owned by root, writable by nobody else
/// (unless sticky, as `/tmp`), and searchable by others, since the app, not root, must reach its
/// container by its path. What is missing on the way is made `0711` (searchable, not listable).
/// An existing container is never chowned: one that is not a directory `0700` owned by the
/// app's uid is refused, and the app is not started.
package enum AppContainer {
    /// The container of `app` (made if missing, checked if not) and its shared containers (made
    /// if missing, given their group and `02770`): the container's path.
    package static func prepare(
        _ app: InstalledApp,
        user: ProcessUser,
        containers root: String
    ) throws(DaemonError) -> String {
        let name = app.id.bundleIdentifier
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..",
            !name.unicodeScalars.contains(where: ControlCharacters.needsEscape)
        else {
            throw DaemonError(.unsafeDirectory, "\(app.id): cannot name a container directory")
        }
        let parent = try openWalkable(root)
        defer { close(parent) }
        let path = root + "/" + name
        let container = try openOrMake(name, in: parent, path: path, owner: user.uid, group: user.gid, mode: 0o700)
        defer { close(container) }
        try check(container, path: path, owner: user.uid, group: user.gid, mode: 0o700)
        let shared = Set(app.launch?.sharedContainers ?? []).sorted()
        for (path, gid) in zip(shared, user.groups) {
            try prepareShared(path, group: gid)
        }
        return path
    }

    /// Makes the containers' directory `root` if missing and checks it and every directory on
    /// the way (root's, writable by nobody else, searchable by the apps), as ``prepare(_:user:containers:)``
    /// will: the daemon checks it at start-up.
    package static func checkRoot(_ root: String) throws(DaemonError) {
        close(try openWalkable(root))
    }

    /// The variables that put the app's files in its container: `HOME` and the XDG base
    /// directories (which the app creates as it needs them, as the specification says).
    package static func environment(_ container: String) -> [String: String] {
        [
            "HOME": container,
            "XDG_DATA_HOME": container + "/.local/share",
            "XDG_STATE_HOME": container + "/.local/state",
            "XDG_CONFIG_HOME": container + "/.config",
            "XDG_CACHE_HOME": container + "/.cache",
        ]
    }

    /// The first directory above `path` (an absolute path) that other users cannot search, or
    /// nil: with per-app uids, apps reach the daemon's socket only when there is none.
    package static func unsearchableAncestor(of path: String) -> String? {
        var walked = ""
        for component in path.split(separator: "/").dropLast() {
            walked += "/" + component
            var status = stat()
            if stat(walked, &status) != 0 || status.st_mode & 0o001 == 0 { return walked }
        }
        return nil
    }

    /// A shared container: owned by the daemon's user (root), its group the container's, mode
    /// `02770` (new files inherit the group; apps start with umask `007`, so they can be shared).
    private static func prepareShared(_ path: String, group: UInt32) throws(DaemonError) {
        let cut = path.lastIndex(of: "/") ?? path.startIndex
        let parentPath = cut == path.startIndex ? "/" : String(path[..<cut])
        let name = String(path[path.index(after: cut)...])
        let parent = try openWalkable(parentPath)
        defer { close(parent) }
        let directory = try openOrMake(name, in: parent, path: path, owner: 0, group: group, mode: 0o2770)
        defer { close(directory) }
        guard fchown(directory, uid_t.max, gid_t(group)) == 0, fchmod(directory, 0o2770) == 0 else {
            throw DaemonError(.unsafeDirectory, "shared container \(path): \(String(cString: strerror(errno)))")
        }
        try check(directory, path: path, owner: 0, group: group, mode: 0o2770)
    }

    /// Opens `path` from `/`, component by component, making missing ones `0711`; each must be
    /// owned by root, writable by nobody else (or sticky) and searchable by others.
    private static func openWalkable(_ path: String) throws(DaemonError) -> Int32 {
        guard path.hasPrefix("/"), !path.split(separator: "/").contains(".."),
            !path.unicodeScalars.contains(where: ControlCharacters.needsEscape)
        else {
            throw DaemonError(.unsafeDirectory, "\(path) is not an absolute path without '..'")
        }
        var current = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { throw DaemonError(.unsafeDirectory, "/ cannot be opened") }
        var walked = ""
        for component in path.split(separator: "/").map(String.init) where component != "." {
            walked += "/" + component
            let next: Int32
            do {
                next = try openOrMake(component, in: current, path: walked, owner: 0, group: 0, mode: 0o711)
            } catch {
                close(current)
                throw error
            }
            close(current)
            current = next
            var status = stat()
            guard fstat(current, &status) == 0 else {
                close(current)
                throw DaemonError(.unsafeDirectory, "\(walked) cannot be checked")
            }
            let mode = status.st_mode & 0o7777
            let problem: String? =
                status.st_uid != 0
                ? "is owned by uid \(status.st_uid), not root"
                : mode & 0o022 != 0 && mode & S_ISVTX == 0
                    ? "is writable by other users (mode 0\(String(mode, radix: 8))) without the sticky bit"
                    : mode & 0o001 == 0
                        ? "is not searchable by other users (mode 0\(String(mode, radix: 8))), so apps cannot reach their containers (chmod o+x it)"
                        : nil
            if let problem {
                close(current)
                throw DaemonError(.unsafeDirectory, "containers: \(ControlCharacters.escaped(walked)) \(problem)")
            }
        }
        return current
    }

    /// Opens directory `name` in `parent` without following a link, or makes it with `mode`,
    /// `owner` and `group` (set on the new directory's descriptor before anyone can use it).
    private static func openOrMake(
        _ name: String,
        in parent: Int32,
        path: String,
        owner: UInt32,
        group: UInt32,
        mode: mode_t
    ) throws(DaemonError) -> Int32 {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        var descriptor = openat(parent, name, flags)
        if descriptor < 0, errno == ENOENT {
            guard mkdirat(parent, name, 0o700) == 0 || errno == EEXIST else {
                throw DaemonError(.unsafeDirectory, "\(path) cannot be made: \(String(cString: strerror(errno)))")
            }
            descriptor = openat(parent, name, flags)
            if descriptor >= 0, fchown(descriptor, uid_t(owner), gid_t(group)) != 0 || fchmod(descriptor, mode) != 0 {
                let error = String(cString: strerror(errno))
                close(descriptor)
                throw DaemonError(.unsafeDirectory, "\(path) cannot be given to uid \(owner): \(error)")
            }
        }
        guard descriptor >= 0 else {
            let why =
                errno == ELOOP || errno == ENOTDIR
                ? "is not a directory (or is a link)" : String(cString: strerror(errno))
            throw DaemonError(.unsafeDirectory, "\(ControlCharacters.escaped(path)) \(why)")
        }
        return descriptor
    }

    /// The directory open at `descriptor` is owned by `owner` and `group` with exactly `mode`.
    private static func check(
        _ descriptor: Int32,
        path: String,
        owner: UInt32,
        group: UInt32,
        mode: mode_t
    ) throws(DaemonError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw DaemonError(.unsafeDirectory, "\(ControlCharacters.escaped(path)) is not a directory")
        }
        let actual = status.st_mode & 0o7777
        guard status.st_uid == owner, status.st_gid == group, actual == mode else {
            throw DaemonError(
                .unsafeDirectory,
                "\(ControlCharacters.escaped(path)) is owned by \(status.st_uid):\(status.st_gid) with mode 0\(String(actual, radix: 8)), not \(owner):\(group) with mode 0\(String(mode, radix: 8)); it is not changed, and the app is not started"
            )
        }
    }
}
