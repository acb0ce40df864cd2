import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads a manifest file with a size limit, reporting failures with their `errno`.
///
/// POSIX calls rather than `Data(contentsOf:)`, for two reasons: the error keeps the system's
/// reason (`No such file or directory`, errno 2), and no more than `limit + 1` bytes are ever
/// read, whatever the file claims its size is.
enum ManifestFileReader {
    /// The file's bytes, at most `limit` of them.
    ///
    /// - Throws: ``ManifestError`` with code ``ManifestError/Code/unreadable`` if the URL is not a
    ///   file URL or the file cannot be opened or read, and ``ManifestError/Code/invalidValue`` if
    ///   it is larger than `limit`.
    static func contents(of url: URL, limit: Int) throws(ManifestError) -> Data {
        guard url.isFileURL else {
            throw ManifestError(code: .unreadable, key: nil, problem: "only file URLs can be read, not \(url)")
        }
        let descriptor = url.withUnsafeFileSystemRepresentation { path in
            path.map { open($0, O_RDONLY | O_CLOEXEC) } ?? -1
        }
        guard descriptor >= 0 else { throw systemError("cannot be opened", errno) }
        defer { close(descriptor) }

        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > limit {
            throw tooLarge("is \(status.st_size) bytes", limit: limit)
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while data.count <= limit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw systemError("cannot be read", errno)
            }
            data.append(contentsOf: chunk[0..<count])
        }
        guard data.count <= limit else { throw tooLarge("is larger than \(limit) bytes", limit: limit) }
        return data
    }

    private static func systemError(_ what: String, _ code: Int32) -> ManifestError {
        let reason = String(cString: strerror(code))
        return ManifestError(
            code: .unreadable,
            key: nil,
            problem: "\(what): \(reason) (errno \(code))",
            posixErrorCode: code
        )
    }

    private static func tooLarge(_ size: String, limit: Int) -> ManifestError {
        ManifestError(
            code: .invalidValue,
            key: nil,
            problem: "the file \(size); a manifest may have at most \(limit) bytes (1 MiB)"
        )
    }
}
