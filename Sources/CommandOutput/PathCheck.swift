public import Foundation

/// Checks paths before a command does its work, so a bad path fails at once with one line
/// naming it, never after minutes of work or after a service said it was ready.
///
/// Each check throws a ``CommandFailure`` whose subject is the path as the user wrote it.
public enum PathCheck {
    /// An existing, readable regular file (following symbolic links, as `open` would).
    /// Missing, a directory, or unreadable: ``ExitStatus/inputMissing``.
    @discardableResult
    public static func readableFile(_ path: String) throws(CommandFailure) -> URL {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CommandFailure(.inputMissing, path, String(cString: strerror(errno)))
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            throw CommandFailure(.inputMissing, path, "is a directory, not a file")
        }
        guard access(path, R_OK) == 0 else {
            throw CommandFailure(.inputMissing, path, "cannot be read: \(String(cString: strerror(errno)))")
        }
        return URL(fileURLWithPath: path)
    }

    /// A file the command can create or replace: not a directory, writable if it exists, in
    /// an existing, writable directory. Otherwise ``ExitStatus/cannotCreateOutput``.
    @discardableResult
    public static func creatableFile(_ path: String) throws(CommandFailure) -> URL {
        var info = stat()
        if lstat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR {
                throw CommandFailure(.cannotCreateOutput, path, "is a directory, not a file")
            }
            guard access(path, W_OK) == 0 else {
                throw CommandFailure(
                    .cannotCreateOutput,
                    path,
                    "cannot be written: \(String(cString: strerror(errno)))"
                )
            }
        }
        let parent = parentDirectory(of: path)
        try writableDirectory(parent, for: path)
        return URL(fileURLWithPath: path)
    }

    /// A directory the command can create files in, created (with its parents, mode 0700)
    /// if it does not exist. Otherwise ``ExitStatus/cannotCreateOutput``.
    @discardableResult
    public static func creatableDirectory(_ path: String) throws(CommandFailure) -> URL {
        var info = stat()
        if stat(path, &info) != 0 {
            do {
                try FileManager.default.createDirectory(
                    atPath: path,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                // Whatever the errno (a missing parent is ENOENT, which elsewhere means input
                // missing, 66), an output that cannot be made is 73.
                var failure = CommandFailure(error, subject: path, defaultStatus: .cannotCreateOutput)
                failure.status = .cannotCreateOutput
                throw failure
            }
        }
        try writableDirectory(path, for: path)
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Throws unless `directory` exists, is a directory and is writable; `subject` is the
    /// path the user gave.
    static func writableDirectory(_ directory: String, for subject: String) throws(CommandFailure) {
        var info = stat()
        guard stat(directory, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            let detail = directory == subject ? reason : "the directory \(directory) does not exist (\(reason))"
            throw CommandFailure(.cannotCreateOutput, subject, detail)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            let detail = directory == subject ? "is not a directory" : "\(directory) is not a directory"
            throw CommandFailure(.cannotCreateOutput, subject, detail)
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            let reason = String(cString: strerror(errno))
            let detail =
                directory == subject ? "cannot be written: \(reason)" : "cannot write in \(directory): \(reason)"
            throw CommandFailure(.cannotCreateOutput, subject, detail)
        }
    }

    /// The directory a path's file would be created in (`.` for a bare name).
    static func parentDirectory(of path: String) -> String {
        let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let parent = String(trimmed[..<slash])
        return parent.isEmpty ? "/" : parent
    }
}
