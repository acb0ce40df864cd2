import BackgroundCore
import BackgroundExecution
import BackgroundPosix

#if canImport(Glibc)
import Glibc
#endif

/// Whether an executable a manifest names can be rewritten by someone other than root and the
/// daemon's user: the file, every directory above it, and the same for the file a link leads
/// to. The daemon runs it as the app's uid (as itself with `--app-users off`, root included), so
/// a file another user may replace is a way for that user into the app, or into the daemon's
/// uid.
///
/// Trusted: owned by root or by the daemon's user, and not writable by group or others; the
/// directories above meet `SecureDirectory`'s rule for ancestors (writable by others only
/// with the sticky bit, as `/tmp`). The check is made on
/// paths (`lstat`), at install and again at each launch; a file changed between the check and
/// the `execve` is not caught (SECURITY.md).
enum ExecutableTrust {
    /// What is wrong with `path` for a daemon running as `daemonUID`, or nil if nothing is. A
    /// file that does not exist is nil when `missingIsAllowed` (an app installed before its
    /// executable), with its directories still checked.
    static func problem(of path: String, daemonUID: UInt32, missingIsAllowed: Bool = false) -> String? {
        guard path.hasPrefix("/") else { return "\(path) is not an absolute path" }
        if let problem = problemOnPath(path, daemonUID: daemonUID, missingIsAllowed: missingIsAllowed) {
            return problem
        }
        guard let real = realpath(path, nil) else { return nil }  // missing: checked above
        defer { free(real) }
        let resolved = String(cString: real)
        guard resolved != path else { return nil }
        return problemOnPath(resolved, daemonUID: daemonUID, missingIsAllowed: false)
    }

    /// Checks each of `/`, `/a`, `/a/b`, … `path` without following links.
    private static func problemOnPath(_ path: String, daemonUID: UInt32, missingIsAllowed: Bool) -> String? {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        var prefix = ""
        for index in -1..<components.count {
            prefix = index < 0 ? "/" : (prefix == "/" ? "" : prefix) + "/" + components[index]
            let isLast = index == components.count - 1
            let status: stat
            do {
                status = try SystemCall.statusAt(AT_FDCWD, prefix)
            } catch {
                if error.code == ENOENT && missingIsAllowed { return nil }
                return "\(ControlCharacters.escaped(prefix)) cannot be checked: \(error.reason)"
            }
            if let problem = problem(with: status, at: prefix, isLast: isLast, daemonUID: daemonUID) {
                return problem
            }
        }
        return nil
    }

    private static func problem(with status: stat, at path: String, isLast: Bool, daemonUID: UInt32) -> String? {
        let shown = ControlCharacters.escaped(path)
        let writable = "\(shown) can be written by other users (mode \(String(status.st_mode & 0o7777, radix: 8)))"
        let type = status.st_mode & S_IFMT
        if type == S_IFDIR, !isLast {
            // The directories above: SecureDirectory's rule for ancestors, sticky bit included.
            switch SecureDirectory.ancestorProblem(status, owner: daemonUID) {
            case .ownedByAnother(let uid)?: return "\(shown) is owned by uid \(uid), who could replace the executable"
            case .writableByOthers?: return writable
            case nil: return nil
            }
        }
        guard status.st_uid == 0 || status.st_uid == daemonUID else {
            return "\(shown) is owned by uid \(status.st_uid), who could replace the executable"
        }
        if type == S_IFLNK { return nil }  // a link's own mode means nothing; where it leads is checked
        guard isLast, type == S_IFREG else { return "\(shown) is not a regular file" }
        return status.st_mode & 0o022 == 0 ? nil : writable
    }
}
