import BackgroundPosix
import CProcessSpawn

#if canImport(Glibc)
import Glibc
#endif

/// The system calls process control adds to the project's ``SystemCall``: the same rules (retry
/// `EINTR`, `-1` becomes a ``SystemCallError``, `O_CLOEXEC` on every descriptor).
extension SystemCall {
    /// Everything readable from `descriptor` until end of file, at most `limit` bytes.
    static func readToEnd(_ descriptor: Int32, limit: Int = 1 << 22) throws(SystemCallError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < limit {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) -> Int in try read(descriptor, into: buffer) }
            }.get()
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }

    /// The whole of a small file named relative to `directory` (`AT_FDCWD` for a path), read
    /// from its start, not following a final symbolic link.
    static func readFile(_ directory: Int32, _ name: String) throws(SystemCallError) -> String {
        let file = try openAt(directory, name, O_RDONLY | O_NOFOLLOW)
        defer { close(file) }
        return String(decoding: try readToEnd(file), as: UTF8.self)
    }

    /// `pread(2)` of a whole small file from offset 0: cgroup files are re-read this way.
    static func readFromStart(_ descriptor: Int32) throws(SystemCallError) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = try buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(SystemCallError) -> Int in
                try retrying("pread") { Glibc.pread(descriptor, bytes.baseAddress, bytes.count, 0) }
            }
        }.get()
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// `unlinkat(2)` with `AT_REMOVEDIR`: removes an empty directory (a cgroup).
    static func removeDirectoryAt(_ directory: Int32, _ name: String) throws(SystemCallError) {
        _ = try retrying("rmdir", name) { Glibc.unlinkat(directory, name, AT_REMOVEDIR) }
    }

    /// `readlinkat(2)`: where a symbolic link (a `/proc/<pid>/fd/<n>` entry) points.
    static func readLink(_ path: String) throws(SystemCallError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try retrying("readlink", path) { Glibc.readlink(path, &buffer, buffer.count - 1) }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `stat(2)`, following links: the file a `/proc/<pid>/fd/<n>` entry is open on.
    static func statusFollowing(_ path: String) throws(SystemCallError) -> stat {
        var result = stat()
        _ = try retrying("stat", path) { Glibc.fstatat(AT_FDCWD, path, &result, 0) }
        return result
    }

    /// `kill(2)`; a negative `target` signals a process group.
    static func send(_ signal: Int32, to target: pid_t) throws(SystemCallError) {
        _ = try retrying("kill", "\(target)") { Glibc.kill(target, signal) }
    }

    /// `ppoll(2)`; nil `timeout` waits for ever. Returns how many are ready. An interrupted
    /// wait is retried with the whole timeout again (callers re-check their own deadline).
    static func poll(_ descriptors: inout [pollfd], timeout: Duration?) throws(SystemCallError) -> Int32 {
        let count = UInt(descriptors.count)
        let nanoseconds =
            timeout.map { max(0, $0.components.seconds * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000) }
            ?? -1
        return try retrying("poll") { cps_poll_nanoseconds(&descriptors, count, nanoseconds) }
    }
}
