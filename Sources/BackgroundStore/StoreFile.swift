import CSQLiteSettings
import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The store's file as a path another user may have prepared: checked before SQLite opens it,
/// and checked again after.
///
/// - The path itself must not be a symbolic link (nor its `-wal` and `-shm`), unless the caller
///   allows it: a link could point the store at any file the process can write, and a link to
///   an empty or missing file would make a store of it. Links in the directories above are
///   followed, as every program does.
/// - A file that exists must be a regular file.
/// - A missing file is created here, never by SQLite: `O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600
///   whatever the umask, so it is never created through a link and never readable by others.
/// - For reading, a missing file is ``StoreError/Code-swift.struct/notFound`` and an empty one
///   ``StoreError/Code-swift.struct/notAStore``; nothing is ever created.
///
/// The check before opening leaves a window for a swap; ``verifyOpened(_:)`` closes it by
/// asking SQLite which file it really opened (it resolves links) and refusing any other.
struct StoreFile {
    /// The path as the caller gave it.
    let path: String
    /// Whether a symbolic link at `path` is followed (the caller asked for it).
    let followsSymbolicLinks: Bool

    /// Checks the file for a store that writes, creating it (empty, 0600) if it is missing.
    ///
    /// A missing directory is left for SQLite to report, with its result code.
    func prepareForWriting() throws(StoreError) {
        // SQLite's special names (`:memory:`, a temporary database, a `file:` URI) are passed on
        // as they are: the caller chose them, and they name no path to check.
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        if try inspect(path) == nil {
            let descriptor = open(path, O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_RDWR, 0o600)
            if descriptor >= 0 {
                // The umask may have removed bits from 0600; it never adds any.
                _ = fchmod(descriptor, 0o600)
                close(descriptor)
            } else if errno == EEXIST {
                _ = try inspect(path)  // created meanwhile, perhaps as a link: check it again
            }
        }
        try checkCompanions()
    }

    /// Checks the file for a store that only reads, and returns the name to give SQLite: a URI
    /// that opens it read-only, and, when there is no `-wal` file to read (none, or an empty
    /// one), immutable (no lock
    /// and no `-shm` file created, so a store in a read-only directory can be read).
    func prepareForReading() throws(StoreError) -> String {
        guard let size = try inspect(path) else {
            throw StoreError(code: .notFound, path: path, message: "no such file: \(path)")
        }
        guard size > 0 else {
            throw StoreError(code: .notAStore, path: path, message: "\(path) is not a background store: it is empty")
        }
        try checkCompanions()
        // An empty `-wal` (left by a clean exit that checkpointed) holds nothing to read.
        let hasLog = ((try? inspect(path + "-wal")) ?? nil).map { $0 > 0 } ?? false
        return "file:" + Self.uriEscaped(Self.absolute(path)) + (hasLog ? "?mode=ro" : "?mode=ro&immutable=1")
    }

    /// Refuses a connection whose main file is not the checked one: a link swapped in between
    /// the check and SQLite's open shows up here, as SQLite reports the path it resolved.
    func verifyOpened(_ db: Database) throws {
        guard !followsSymbolicLinks, let opened = csqlite_main_filename(db.sqliteConnection) else { return }
        let directory = (Self.absolute(path) as NSString).deletingLastPathComponent
        let resolvedDirectory = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        let expected = (resolvedDirectory as NSString).appendingPathComponent((path as NSString).lastPathComponent)
        let openedPath = String(cString: opened)
        guard openedPath != expected else { return }
        throw refused("SQLite opened \(openedPath) instead: it is a symbolic link")
    }

    /// The size of the file at `path`, `nil` if there is none; throws for a link or a file that
    /// is not a regular file.
    private func inspect(_ path: String) throws(StoreError) -> Int64? {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            let reason = String(cString: strerror(errno))
            throw StoreError(code: .cannotOpen, path: self.path, message: "cannot open \(path): \(reason)")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return Int64(status.st_size)
        case S_IFLNK:
            if followsSymbolicLinks && path == self.path {
                var target = stat()
                guard stat(path, &target) == 0 else { return nil }
                guard target.st_mode & S_IFMT == S_IFREG else { throw refused("its target is not a regular file") }
                return Int64(target.st_size)
            }
            throw refused("\(path) is a symbolic link (a store is never opened through a link unless allowed)")
        default:
            throw refused("\(path) is not a regular file")
        }
    }

    /// SQLite's `-wal` and `-shm` files, if present, must be regular files too.
    private func checkCompanions() throws(StoreError) {
        for suffix in ["-wal", "-shm"] {
            var status = stat()
            guard lstat(path + suffix, &status) == 0 else { continue }
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw refused("\(path + suffix) is not a regular file (a symbolic link?)")
            }
        }
    }

    private func refused(_ reason: String) -> StoreError {
        StoreError(code: .unsafePath, path: path, message: "refusing the store \(path): \(reason)")
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// `path` with the characters a `file:` URI gives a meaning (`%`, `?`, `#`) and every byte
    /// outside printable ASCII percent-encoded.
    static func uriEscaped(_ path: String) -> String {
        var escaped = ""
        for byte in path.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if byte > 0x20, byte < 0x7F, !"%?#".contains(character) {
                escaped.append(character)
            } else {
                escaped += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return escaped
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}

/// Hooks for tests that attack the store's file.
package enum StoreFileHooks {
    private static let betweenCheckAndOpen = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sets the hook called with the store's path after the path was checked and before SQLite
    /// opens it: a test swaps the file for a link there, to prove that the swap is caught.
    /// `nil` (the default) removes it.
    package static func setBetweenCheckAndOpen(_ hook: (@Sendable (String) -> Void)?) {
        betweenCheckAndOpen.withLock { $0 = hook }
    }

    static func runBetweenCheckAndOpen(_ path: String) {
        if let hook = betweenCheckAndOpen.withLock({ $0 }) { hook(path) }
    }
}
