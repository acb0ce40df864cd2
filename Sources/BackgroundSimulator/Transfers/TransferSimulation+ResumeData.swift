import BackgroundCore
import Foundation

/// Resume data in the simulator: a download cancelled with `cancel(byProducingResumeData:)`
/// keeps its partial file (the simulator counts bytes, so the file is a record of how many it
/// holds) and hands back resume data in the documented format (BackgroundCore's
/// `TransferResumeData`, version 1); `downloadTask(withResumeData:)` goes on from that byte when
/// the resource is unchanged, and starts over when it changed.
///
/// A kept partial file no transfer uses is removed `TransferResumeData.partialFileLifetime` (7
/// days) after it was kept (looked at whenever a session attaches, a transfer is submitted or
/// cancelled): resume data older than that is refused, as iOS refuses resume data whose
/// temporary file was purged.
extension TransferSimulation {
    /// A partial file kept for resume data.
    struct KeptPartial: Hashable {
        var bytes: Int64
        var url: String
        var entityTag: String
        var keptAt: Instant
    }

    /// A kept partial file's name: its app and its path in the app's container.
    struct PartialName: Hashable, Comparable {
        var app: AppID
        var path: String
        static func < (lhs: PartialName, rhs: PartialName) -> Bool { (lhs.app, lhs.path) < (rhs.app, rhs.path) }
    }

    /// The resource's `ETag` on the virtual network: its size and how often it changed.
    func entityTag(of url: String) -> String {
        "\"\(network.resource(at: url).size)-\(revisions[url] ?? 0)\""
    }

    /// Cancels a download, keeping its partial file; the resume data, or `nil` when nothing
    /// arrived yet or it is not a download.
    func cancelKeepingPartial(_ key: TransferKey) -> [UInt8]? {
        removeExpiredPartials()
        guard let transfer = transfers[key], transfer.phase != .completed else { return nil }
        count()
        var checkpoint = transfer.checkpoint
        checkpoint.partialFile =
            checkpoint.partialFile ?? TransferCheckpoint.partialPath(session: key.session, task: key.task)
        checkpoint.bytesDone = transfers[key]?.bytes ?? 0
        checkpoint.expectedLength = transfer.size
        checkpoint.entityTag = entityTag(of: checkpoint.url)
        guard checkpoint.bytesDone > 0, let data = TransferResumeData(checkpoint),
            let bytes = try? Self.resumeDataEncoder.encode(data)
        else {
            cancel(key)
            return nil
        }
        keptPartials[PartialName(app: key.app, path: data.partialFile)] = KeptPartial(
            bytes: data.bytes,
            url: data.url,
            entityTag: checkpoint.entityTag ?? "",
            keptAt: simulator.now
        )
        transfers[key]?.resumeData = [UInt8](bytes)
        cancel(key)
        return [UInt8](bytes)
    }

    private static var resumeDataEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// Reads resume data for an order: the checkpoint to start from and the byte it goes on
    /// from; the partial file is the transfer's from now on.
    ///
    /// - Throws: ``TransferResumeDataError`` naming what is wrong (the order then fails with -1).
    func resuming(
        _ checkpoint: TransferCheckpoint,
        from bytes: [UInt8]
    ) throws(TransferResumeDataError) -> (TransferCheckpoint, from: Int64) {
        removeExpiredPartials()
        guard bytes.count <= TransferResumeData.maximumBytes else { throw TransferResumeData.oversized }
        guard let data = try? JSONDecoder().decode(TransferResumeData.self, from: Data(bytes)) else {
            throw TransferResumeData.undecodable
        }
        try data.check(for: checkpoint.app)
        let name = PartialName(app: checkpoint.app, path: data.partialFile)
        guard let kept = keptPartials[name], kept.bytes >= data.bytes, kept.url == data.url else {
            throw TransferResumeDataError("its partial file is missing or shorter than \(data.bytes) bytes")
        }
        keptPartials[name] = nil
        var resumed = checkpoint
        resumed.url = data.url
        resumed.method = "GET"
        resumed.partialFile = data.partialFile
        // `If-Range`: an unchanged resource answers 206 from the byte held, a changed one 200.
        let unchanged = data.entityTag == entityTag(of: data.url)
        return (resumed, unchanged ? data.bytes : 0)
    }

    /// Removes the kept partial files older than `TransferResumeData.partialFileLifetime`.
    func removeExpiredPartials() {
        let now = simulator.now
        for name in keptPartials.keys.sorted() {
            guard let kept = keptPartials[name], kept.keptAt + TransferResumeData.partialFileLifetime <= now else {
                continue
            }
            keptPartials[name] = nil
        }
    }
}
