public import BackgroundCore
import Foundation

/// Resume data (BackgroundCore's ``TransferResumeData``, version 1) as JSON, and the checks of
/// its partial file in an app's container.
extension TransferResumeData {
    /// The document's bytes.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { [UInt8]($0) } ?? []
    }

    /// Reads and checks resume data for `app`, in `container`: the document
    /// (``TransferResumeData/check(for:)``), then its partial file, which must be inside the
    /// container and at least as long as the byte count.
    ///
    /// - Throws: ``TransferResumeDataError`` naming the first thing wrong.
    public static func decode(
        _ bytes: [UInt8],
        app: AppID,
        container: TransferContainer
    ) throws(TransferResumeDataError) -> TransferResumeData {
        guard bytes.count <= maximumBytes else { throw oversized }
        let data: TransferResumeData
        do {
            data = try JSONDecoder().decode(TransferResumeData.self, from: Data(bytes))
        } catch {
            throw undecodable
        }
        try data.check(for: app)
        do {
            _ = try container.absolutePath(of: data.partialFile)
        } catch {
            throw .init("its partial file is not inside the app's container")
        }
        guard let size = container.size(of: data.partialFile), size >= data.bytes else {
            throw .init("its partial file is missing or shorter than \(data.bytes) bytes")
        }
        return data
    }
}
