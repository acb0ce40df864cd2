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

    /// Opens a container, creating its root (0700) if it is missing.
    ///
    /// - Throws: ``TransferContainerError`` if the root is relative, is not a directory, is a
    ///   symbolic link, belongs to another user or is writable by others.
    public init(root: String) throws(TransferContainerError) {
        guard root.hasPrefix("/"), !root.contains("\0") else {
            throw TransferContainerError(path: root, reason: "the container must be an absolute path")
        }
        var trimmed = root
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.root = trimmed
        try Self.makeRoot(trimmed)
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
        return descriptor
    }

    /// Opens (creating, 0600) a file below the root for writing, making missing directories 0700.
    public func openForWriting(_ relative: String, truncating: Bool) throws(TransferContainerError) -> Int32 {
        let parts = try components(of: relative)
        let directory = try openDirectory(Array(parts.dropLast()), creating: true, for: relative)
        defer { close(directory) }
        let flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (truncating ? O_TRUNC : 0)
        let descriptor = openat(directory, parts[parts.count - 1], flags, 0o600)
        guard descriptor >= 0 else { throw failure(relative, "cannot open it for writing") }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, fchmod(descriptor, 0o600) == 0 else {
            close(descriptor)
            throw TransferContainerError(path: relative, reason: "it is not a regular file of this user")
        }
        return descriptor
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
        for part in parts {
            if creating { _ = mkdirat(current, part, 0o700) }
            let next = openat(current, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(current)
            guard next >= 0 else { throw failure(relative, "'\(part)' is not a directory of the container") }
            current = next
        }
        return current
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
