import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// A download's body on disk, written at explicit offsets so that a resumed attempt appends and
/// a restarted one overwrites, and flushed before every checkpoint.
final class PartialFile {
    let descriptor: Int32
    let path: String

    /// Opens the partial file in the container, cut to `length` bytes.
    init(container: TransferContainer, relative: String, length: Int64) throws(TransferFailure) {
        do {
            descriptor = try container.openForWriting(relative, truncating: length == 0)
        } catch {
            throw .permanent(TransferFailure.cannotWriteFileCode, "cannot write the download: \(error)")
        }
        path = relative
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            close(descriptor)
            throw .permanent(TransferFailure.cannotWriteFileCode, "cannot cut \(relative) to \(length) bytes")
        }
    }

    deinit { close(descriptor) }

    /// Writes all of `buffer` at `offset`.
    func write(_ buffer: ByteBuffer, at offset: Int64) throws(TransferFailure) {
        var position = offset
        let failed: Bool = buffer.withUnsafeReadableBytes { raw in
            var remaining = raw[...]
            while !remaining.isEmpty {
                let written = pwrite(
                    descriptor,
                    UnsafeRawBufferPointer(rebasing: remaining).baseAddress,
                    remaining.count,
                    off_t(position)
                )
                if written < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                remaining = remaining.dropFirst(written)
                position += Int64(written)
            }
            return false
        }
        if failed { throw .permanent(TransferFailure.cannotWriteFileCode, "cannot write \(path) (errno \(errno))") }
    }

    /// Flushes everything written to the disk.
    func flush() throws(TransferFailure) {
        guard fsync(descriptor) == 0 else {
            throw .permanent(TransferFailure.cannotWriteFileCode, "cannot flush \(path) (errno \(errno))")
        }
    }
}
