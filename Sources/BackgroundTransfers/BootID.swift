import BackgroundCore
import Foundation

/// The Linux boot this process runs in, from `/proc/sys/kernel/random/boot_id`: a checkpoint
/// written in the same boot can trust the page cache (its bytes outlived a killed process), one
/// from another boot only what was `fsync`ed (``TransferCheckpoint/syncedBytes``).
enum BootID {
    /// The boot's identifier, `nil` where the kernel does not say (every checkpoint then counts
    /// as from another boot).
    static let current: String? = {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
            return nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= TransferCheckpoint.maximumBootIDBytes else { return nil }
        return trimmed
    }()

    /// The bytes of a download's partial file a resume may build on: all of
    /// ``TransferCheckpoint/bytesDone`` within the boot that wrote the checkpoint, else its
    /// ``TransferCheckpoint/syncedBytes`` (all of them in checkpoints written before those were
    /// kept, which were synced), and never more than `fileSize`, what the file holds.
    static func heldBytes(of transfer: TransferCheckpoint, fileSize: Int64, boot: String? = current) -> Int64 {
        var held = transfer.bytesDone
        if let synced = transfer.syncedBytes, boot == nil || transfer.bootID != boot { held = min(held, synced) }
        return max(0, min(held, fileSize))
    }
}
