import Dispatch
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A download's body on disk, written at explicit offsets so that a resumed attempt appends and
/// a restarted one overwrites.
///
/// Writes go to the page cache (`pwrite`), which outlives a killed process: a checkpoint needs no
/// `fsync` to survive `kill -9`. `fsync` only bounds what a power loss can cost, so it runs on
/// another thread (``syncInBackground(covering:)``), never in the receive loop, and at most as
/// often as ``TransferPolicy/syncBytes`` and ``TransferPolicy/syncInterval`` say; ``flush()``
/// syncs everything before a download is delivered.
final class PartialFile: Sendable {
    let descriptor: Int32
    let path: String
    private struct SyncState {
        /// Bytes from the start known to be on the disk.
        var synced: Int64
        var running = false
    }
    private let sync: Mutex<SyncState>
    /// One `fsync` at a time for the whole process: they wait on the same disk.
    private static let syncQueue = DispatchQueue(label: "background-transfers.partial-file-sync")

    /// Opens the partial file in the container, cut to `length` bytes, of which `synced` are
    /// known to be on the disk.
    init(container: TransferContainer, relative: String, length: Int64, synced: Int64) throws(TransferFailure) {
        do {
            descriptor = try container.openForWriting(relative, truncating: length == 0)
        } catch {
            throw .permanent(TransferFailure.cannotWriteFileCode, "cannot write the download: \(error)")
        }
        path = relative
        sync = Mutex(SyncState(synced: min(max(0, synced), length)))
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            close(descriptor)
            throw .permanent(TransferFailure.cannotWriteFileCode, "cannot cut \(relative) to \(length) bytes")
        }
    }

    deinit { close(descriptor) }

    /// The size of the partial file in the container (made empty when it is not there), or 0
    /// when it cannot be opened: a resume never builds on bytes the file does not hold.
    static func size(container: TransferContainer, relative: String) -> Int64 {
        guard let descriptor = try? container.openForWriting(relative, truncating: false) else { return 0 }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return 0 }
        return Int64(status.st_size)
    }

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

    /// The bytes from the start known to be on the disk: those of the last `fsync` that returned.
    var syncedBytes: Int64 { sync.withLock { $0.synced } }

    /// Starts an `fsync` on another thread, unless one is running (then returns `false`); when
    /// it succeeds, the first `bytes` count as synced. A failed one changes nothing: the next
    /// sync, or ``flush()``, tries again.
    @discardableResult
    func syncInBackground(covering bytes: Int64) -> Bool {
        let starts = sync.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard starts else { return false }
        // The closure holds the file, so its descriptor stays open until the sync returns.
        Self.syncQueue.async {
            let succeeded = fsync(self.descriptor) == 0
            self.sync.withLock { state in
                state.running = false
                if succeeded { state.synced = max(state.synced, bytes) }
            }
        }
        return true
    }

    /// Flushes everything written to the disk, here and now; the first `bytes` then count as synced.
    func flush(covering bytes: Int64) throws(TransferFailure) {
        guard fsync(descriptor) == 0 else {
            throw .permanent(TransferFailure.cannotWriteFileCode, "cannot flush \(path) (errno \(errno))")
        }
        sync.withLock { $0.synced = max($0.synced, bytes) }
    }
}
