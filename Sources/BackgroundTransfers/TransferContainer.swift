#if canImport(Glibc)
import Glibc
#endif

/// The app's container: the one directory whose files an app's transfers may read and write.
///
/// Uploads read only files inside it, downloads write only inside its `Transfers/` directory,
/// and a path from resume data or a stored checkpoint is checked again before it is used.
/// Every file is reached component by component with `openat(2)` and `O_NOFOLLOW`, so a
/// symbolic link planted anywhere below the root leads nowhere; directories are made 0700 and
/// files 0600 whatever the umask; the root must belong to this user and be writable by no one
/// else.
///
/// **Another user's container** (`owner`: `backgroundd` as root, the app under a uid of its
/// own): the root must exist, belong to `owner` and be writable by no one else; every directory
/// and file the engine makes is given to `owner` (`fchown` on the descriptor), and a directory or
/// file that already exists must be `owner`'s: the app cannot make the engine read or write a
/// file it does not own (a hard link to another user's file is refused).
///
/// ```swift
/// let container = try TransferContainer(root: "/home/me/.local/share/background-execution/com.example.reader")
/// let relative = try container.relativePath(of: "/home/me/.local/share/background-execution/com.example.reader/Documents/a.pdf")
/// // "Documents/a.pdf"
/// ```
public struct TransferContainer: Sendable, Hashable {
    /// The container's absolute path, without a trailing slash.
    public let root: String

    /// Where the engine keeps the bodies it downloads, relative to the root.
    public static let transfersDirectory = "Transfers"

    /// The user and group whose container this is, when it is not this process's
    /// (``init(root:owner:)``); nil: this process's own.
    public let owner: Owner?

    /// The user and group a container belongs to.
    public struct Owner: Sendable, Hashable {
        /// The uid.
        public var uid: UInt32
        /// The gid.
        public var gid: UInt32

        /// Creates an owner.
        public init(uid: UInt32, gid: UInt32) {
            self.uid = uid
            self.gid = gid
        }
    }

    /// Opens a container, creating its root (0700) if it is missing.
    ///
    /// - Throws: ``TransferContainerError`` if the root is relative, is not a directory, is a
    ///   symbolic link, belongs to another user or is writable by others.
    public init(root: String) throws(TransferContainerError) {
        let trimmed = try Self.absolute(root)
        self.root = trimmed
        self.owner = nil
        try Self.makeRoot(trimmed)
    }

    /// Opens the container of another user, `owner` (a daemon running transfers for an app
    /// under a uid of its own): its root must exist already (made by the daemon for the app),
    /// be a directory owned by `owner`, and be writable by no one else.
    ///
    /// - Throws: ``TransferContainerError`` if the root is relative, missing, not a directory,
    ///   a symbolic link, another user's, or writable by others.
    public init(root: String, owner: Owner) throws(TransferContainerError) {
        let trimmed = try Self.absolute(root)
        self.root = trimmed
        self.owner = owner
        var status = stat()
        guard lstat(trimmed, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw TransferContainerError(path: trimmed, reason: "the container is not a directory")
        }
        guard status.st_uid == owner.uid, status.st_mode & 0o022 == 0 else {
            throw TransferContainerError(
                path: trimmed,
                reason: "the container is not uid \(owner.uid)'s, or others can write it"
            )
        }
    }

    /// The path of `absolute` relative to the root, after checking that it names a file inside it.
    ///
    /// - Throws: ``TransferContainerError`` for a path outside the container, with `.` or `..`
    ///   components, or that is not a regular file reached without symbolic links.
    public func relativePath(of absolute: String) throws(TransferContainerError) -> String {
        guard absolute.hasPrefix(root + "/") else {
            throw TransferContainerError(path: absolute, reason: "the file is outside the app's container \(root)")
        }
        let relative = String(absolute.dropFirst(root.count + 1))
        _ = try components(of: relative)
        return relative
    }

    /// The absolute path of a relative one, after checking its form (not the file).
    public func absolutePath(of relative: String) throws(TransferContainerError) -> String {
        root + "/" + (try components(of: relative)).joined(separator: "/")
    }

    /// Opens a file below the root for reading, refusing symbolic links and non-regular files.
    public func openForReading(_ relative: String) throws(TransferContainerError) -> Int32 {
        let parts = try components(of: relative)
        let directory = try openDirectory(Array(parts.dropLast()), creating: false, for: relative)
        defer { close(directory) }
        let descriptor = openat(directory, parts[parts.count - 1], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw failure(relative, "cannot open it") }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw TransferContainerError(path: relative, reason: "it is not a regular file")
        }
        if let owner, status.st_uid != owner.uid {
            close(descriptor)
            throw TransferContainerError(path: relative, reason: "it is not uid \(owner.uid)'s file")
        }
        return descriptor
    }

    /// Opens (creating, 0600) a file below the root for writing, making missing directories 0700.
    public func openForWriting(_ relative: String, truncating: Bool) throws(TransferContainerError) -> Int32 {
        let parts = try components(of: relative)
        let directory = try openDirectory(Array(parts.dropLast()), creating: true, for: relative)
        defer { close(directory) }
        let name = parts[parts.count - 1]
        // Cut only after the checks (ftruncate), never at the open: a file that is not the
        // container's user's is left as it was; a FIFO planted there fails at once (O_NONBLOCK).
        let flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK
        // Made here (O_EXCL) or already there: only a file made here is given to the owner.
        var descriptor = openat(directory, name, flags | O_CREAT | O_EXCL, 0o600)
        let made = descriptor >= 0
        if !made && errno == EEXIST { descriptor = openat(directory, name, flags) }
        guard descriptor >= 0 else { throw failure(relative, "cannot open it for writing") }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, owns(descriptor, status, made),
            fchmod(descriptor, 0o600) == 0, !truncating || ftruncate(descriptor, 0) == 0
        else {
            close(descriptor)
            throw TransferContainerError(path: relative, reason: "it is not a regular file of the container's user")
        }
        return descriptor
    }

    /// Whether an open file or directory is the container's user's: with an ``owner``, one this
    /// process just `made` is given to it; one that was there must be its already.
    private func owns(_ descriptor: Int32, _ status: stat, _ made: Bool) -> Bool {
        guard let owner else { return true }
        if made { return fchown(descriptor, owner.uid, owner.gid) == 0 }
        return status.st_uid == owner.uid
    }

    /// Removes a file below the root; a missing file is not an error.
    public func remove(_ relative: String) {
        guard let parts = try? components(of: relative),
            let directory = try? openDirectory(Array(parts.dropLast()), creating: false, for: relative)
        else { return }
        defer { close(directory) }
        _ = unlinkat(directory, parts[parts.count - 1], 0)
    }

    /// The size of a file below the root, or `nil` if it cannot be opened.
    public func size(of relative: String) -> Int64? {
        guard let descriptor = try? openForReading(relative) else { return nil }
        defer { close(descriptor) }
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int64(status.st_size) : nil
    }

    private func components(of relative: String) throws(TransferContainerError) -> [String] {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !relative.isEmpty, relative.utf8.count < 4096, !relative.contains("\0"),
            parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
        else {
            throw TransferContainerError(path: relative, reason: "not a plain path inside the app's container")
        }
        return parts
    }

    func openDirectory(
        _ parts: [String],
        creating: Bool,
        for relative: String
    ) throws(TransferContainerError) -> Int32 {
        var current = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard current >= 0 else { throw failure(root, "cannot open the container") }
        var status = stat()
        if let owner, fstat(current, &status) != 0 || status.st_uid != owner.uid {
            close(current)
            throw TransferContainerError(path: root, reason: "the container is not uid \(owner.uid)'s")
        }
        for part in parts {
            let made = creating && mkdirat(current, part, 0o700) == 0
            let next = openat(current, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(current)
            guard next >= 0 else { throw failure(relative, "'\(part)' is not a directory of the container") }
            current = next
            guard fstat(current, &status) == 0, owns(current, status, made) else {
                close(current)
                throw TransferContainerError(
                    path: relative,
                    reason: "'\(part)' is not a directory of the container's user"
                )
            }
        }
        return current
    }

    /// The root as given, without trailing slashes; it must be absolute.
    private static func absolute(_ root: String) throws(TransferContainerError) -> String {
        guard root.hasPrefix("/"), !root.contains("\0") else {
            throw TransferContainerError(path: root, reason: "the container must be an absolute path")
        }
        var trimmed = root
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }

    private static func makeRoot(_ root: String) throws(TransferContainerError) {
        var path = ""
        for part in root.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw TransferContainerError(path: path, reason: "cannot create it (errno \(errno))")
            }
        }
        var status = stat()
        guard lstat(root, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw TransferContainerError(path: root, reason: "the container is not a directory")
        }
        guard status.st_uid == geteuid(), status.st_mode & 0o022 == 0 else {
            throw TransferContainerError(
                path: root,
                reason: "the container belongs to another user or others can write it"
            )
        }
    }

    private func failure(_ path: String, _ what: String) -> TransferContainerError {
        TransferContainerError(path: path, reason: "\(what) (errno \(errno))")
    }
}

/// A path an app's transfer may not use, and why.
public struct TransferContainerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path as given.
    public var path: String
    /// What is wrong with it, in words.
    public var reason: String

    /// Creates an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
