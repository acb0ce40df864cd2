#if canImport(Glibc)
import Glibc
#endif

/// Digests of files in a container, read in bounded chunks.
enum FileDigest {
    /// The SHA-256 of a file below the container's root, or `nil` if it cannot be read.
    static func sha256(of relative: String, in container: TransferContainer) -> String? {
        guard let descriptor = try? container.openForReading(relative) else { return nil }
        defer { close(descriptor) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { return hash.hexDigest() }
            hash.update(buffer[0..<count])
        }
    }
}
