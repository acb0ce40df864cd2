import BackgroundCore
import Synchronization

#if canImport(Glibc)
package import Glibc
#endif

/// A directory reached without following symbolic links and checked to belong to this user,
/// held open so that everything done in it afterwards is relative to what was checked.
///
/// The path is walked from `/` one component at a time with
/// `openat(O_NOFOLLOW | O_DIRECTORY)`, and each directory is checked with `fstat` on the
/// descriptor just opened (never on the path again):
///
/// - every ancestor is owned by root or by the effective user, and is not writable by group or
///   others unless its sticky bit is set (`/tmp`), so nobody else can swap what lies below it
///   (the rule OpenSSH applies to `authorized_keys`);
/// - the directory itself is owned by the effective user; under ``Access/privateToOwner``
///   (control directories) its mode must be exactly `0700`, under ``Access/ownerWritable``
///   (reports) nobody else may write it;
/// - what is missing is created with `mkdirat(0700)` and then `fchmod(0700)`, so the mode is
///   `0700` from the start under any umask, as the XDG base directory specification asks.
///
/// Files, sockets and removals then go through `openat`, `renameat`, `unlinkat` and
/// `/proc/self/fd/<descriptor>/<name>` relative to the descriptor, so swapping a path
/// component for a symbolic link after the check changes nothing. The daemon reuses this type
/// for its own directories.
package final class SecureDirectory: Sendable {
    /// Who may use the directory.
    package enum Access: Sendable {
        /// Only the owner: mode exactly `0700` (control directories, sockets).
        case privateToOwner
        /// The owner writes it; nobody else may (reports). Read bits are left as they are.
        case ownerWritable
    }

    /// The path as given.
    package let path: String
    /// The open directory, `O_RDONLY | O_DIRECTORY | O_CLOEXEC`; closed when this value goes.
    package let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { SystemCall.close(descriptor) }

    private static let walkHook = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sets a function called after each directory of a walk is checked and before the next is
    /// opened, with the path checked so far: lets tests swap a component between check and
    /// use. Tests only; nil removes it.
    package static func setWalkHook(_ hook: (@Sendable (String) -> Void)?) {
        walkHook.withLock { $0 = hook }
    }

    /// Opens (and, with `creating`, creates) the directory at `path` and checks it.
    ///
    /// - Throws: ``SecureDirectoryError`` naming the component at fault and why.
    package static func open(
        _ path: String,
        access: Access = .privateToOwner,
        creating: Bool = true
    ) throws(SecureDirectoryError) -> SecureDirectory {
        let components = try Self.components(of: path)
        let owner = SystemCall.effectiveUserID
        var current = try openRoot()
        var walked = ""
        for (index, name) in components.enumerated() {
            let isLast = index == components.count - 1
            let checked = walked.isEmpty ? "/" : walked
            if let hook = walkHook.withLock({ $0 }) { hook(checked) }
            walked += "/" + name
            let next: Int32
            let created: Bool
            do {
                (next, created) = try openOrCreate(name, in: current, creating: creating, at: walked)
            } catch {
                SystemCall.close(current)
                throw error
            }
            SystemCall.close(current)
            current = next
            do {
                try check(current, at: walked, owner: owner, created: created, final: isLast ? access : nil)
            } catch {
                SystemCall.close(current)
                throw error
            }
        }
        return SecureDirectory(path: path, descriptor: current)
    }

    /// The components of an absolute path; refuses relative paths, `..`, and control characters.
    static func components(of path: String) throws(SecureDirectoryError) -> [String] {
        guard path.hasPrefix("/") else {
            throw SecureDirectoryError(path: path, problem: "is not an absolute path")
        }
        guard !path.unicodeScalars.contains(where: ControlCharacters.needsEscape) else {
            throw SecureDirectoryError(path: path, problem: "contains control characters")
        }
        let components = path.split(separator: "/").map(String.init).filter { $0 != "." }
        guard !components.contains("..") else {
            throw SecureDirectoryError(path: path, problem: "contains '..'")
        }
        guard !components.isEmpty else {
            throw SecureDirectoryError(path: path, problem: "is the root directory")
        }
        return components
    }

    private static func openRoot() throws(SecureDirectoryError) -> Int32 {
        do {
            let root = try SystemCall.openAt(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY)
            return root
        } catch {
            throw SecureDirectoryError(path: "/", problem: "cannot be opened", cause: error)
        }
    }

    /// Opens `name` in `parent` without following a link; creates it (0700) when missing.
    private static func openOrCreate(
        _ name: String,
        in parent: Int32,
        creating: Bool,
        at path: String
    ) throws(SecureDirectoryError) -> (Int32, created: Bool) {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW
        var created = false
        while true {
            do {
                return (try SystemCall.openAt(parent, name, flags), created)
            } catch  where error.code == ENOENT && creating && !created {
                do {
                    try SystemCall.makeDirectoryAt(parent, name, mode: 0o700)
                    created = true
                } catch  where error.code == EEXIST {
                    continue  // made by someone else in between: open and check it like any other
                } catch {
                    throw SecureDirectoryError(path: path, problem: "cannot be created", cause: error)
                }
            } catch  where error.code == ENOENT {
                throw SecureDirectoryError(path: path, problem: "does not exist", cause: error)
            } catch  where error.code == ELOOP || error.code == ENOTDIR {
                let kind = (try? SystemCall.statusAt(parent, name)).map(kindName) ?? "not a directory"
                throw SecureDirectoryError(path: path, problem: "is \(kind), not a directory")
            } catch {
                throw SecureDirectoryError(path: path, problem: "cannot be opened", cause: error)
            }
        }
    }

    /// Why a directory lets someone other than root and `owner` replace what lies below it,
    /// if it does (OpenSSH's rule for the directories above `authorized_keys`).
    package enum AncestorProblem: Sendable, Hashable {
        /// Owned by this uid, neither root nor `owner`.
        case ownedByAnother(uid: uid_t)
        /// Writable by group or others, without the sticky bit.
        case writableByOthers
    }

    /// The rule every directory above a trusted path meets: owned by root or `owner`, and not
    /// writable by group or others unless it has the sticky bit (`/tmp`: others may add
    /// entries there, not replace one they do not own). Nil when `status` meets it.
    package static func ancestorProblem(_ status: stat, owner: uid_t) -> AncestorProblem? {
        guard status.st_uid == owner || status.st_uid == 0 else { return .ownedByAnother(uid: status.st_uid) }
        guard status.st_mode & 0o022 == 0 || status.st_mode & S_ISVTX != 0 else { return .writableByOthers }
        return nil
    }

    /// Checks ownership and mode of the directory open at `descriptor`.
    private static func check(
        _ descriptor: Int32,
        at path: String,
        owner: uid_t,
        created: Bool,
        final access: Access?
    ) throws(SecureDirectoryError) {
        let status: stat
        do {
            if created { try SystemCall.changeMode(of: descriptor, to: 0o700) }
            status = try SystemCall.status(of: descriptor)
        } catch {
            throw SecureDirectoryError(path: path, problem: "cannot be checked", cause: error)
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw SecureDirectoryError(path: path, problem: "is not a directory")
        }
        let mode = status.st_mode & 0o7777
        let octal = "0" + String(mode, radix: 8)
        guard let access else {
            switch ancestorProblem(status, owner: owner) {
            case .ownedByAnother(let uid)?:
                throw SecureDirectoryError(
                    path: path,
                    problem:
                        "is owned by uid \(uid), neither root nor uid \(owner), so its owner could replace what lies below it"
                )
            case .writableByOthers?:
                throw SecureDirectoryError(
                    path: path,
                    problem:
                        "is writable by other users (mode \(octal)) without the sticky bit, so they could replace what lies below it"
                )
            case nil:
                return
            }
        }
        guard status.st_uid == owner else {
            throw SecureDirectoryError(path: path, problem: "is owned by uid \(status.st_uid), not by uid \(owner)")
        }
        switch access {
        case .privateToOwner where mode & 0o077 != 0:
            throw SecureDirectoryError(path: path, problem: "has mode \(octal); it must be 0700 (chmod 700 it)")
        case .ownerWritable where mode & 0o022 != 0:
            throw SecureDirectoryError(path: path, problem: "is writable by other users (mode \(octal))")
        default:
            return
        }
    }

    /// How a file type is named in messages.
    static func kindName(_ status: stat) -> String {
        switch status.st_mode & S_IFMT {
        case S_IFLNK: return "a symbolic link"
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "not a regular file"
        }
    }
}

/// A directory that failed its checks: which path, and why it is not trusted.
package struct SecureDirectoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path of the component at fault.
    package let path: String
    /// What is wrong with it, in a phrase: `is a symbolic link, not a directory`.
    package let problem: String
    /// The system call that failed, if one did.
    package let cause: SystemCallError?

    package init(path: String, problem: String, cause: SystemCallError? = nil) {
        self.path = path
        self.problem = problem
        self.cause = cause
    }

    /// Whether the directory is simply not there (as opposed to refused).
    package var isMissing: Bool { cause?.code == ENOENT }

    package var description: String {
        let reason = isMissing ? "" : cause.map { ": \($0.reason)" } ?? ""
        return "\(ControlCharacters.escaped(path)) \(problem)\(reason)"
    }
}
