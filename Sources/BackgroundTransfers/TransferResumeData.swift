public import BackgroundCore
import Foundation

/// The resume data of a cancelled or failed download: a documented, versioned JSON document.
///
/// `cancel(byProducingResumeData:)` hands it to the app and `downloadTask(withResumeData:)` takes
/// it back. It is input from the app, so everything in it is checked before use: its size, its
/// format and version, the app it names, an `http` or `https` URL, a validator (`ETag` or
/// `Last-Modified`: without one nothing can be resumed), and a partial file that is a plain path
/// inside the app's container, under `Transfers/`, at least as long as the byte count. It can
/// name no other app's file and no path outside the container.
///
/// Version 1, every field required unless marked:
///
/// ```json
/// {"format": "background-execution.resume-data", "version": 1,
///  "app": "com.example.reader", "session": "com.example.reader.downloads", "task": 3,
///  "url": "https://example.com/book.epub", "partialFile": "Transfers/com.example.reader.downloads/3.partial",
///  "bytes": 1048576, "expectedLength": 4194304, "entityTag": "\"v7\"", "lastModified": null}
/// ```
///
/// `expectedLength`, `entityTag` and `lastModified` may be `null`, but not both validators.
public struct TransferResumeData: Sendable, Hashable, Codable {
    /// The value of `format`.
    public static let formatName = "background-execution.resume-data"
    /// The version this build writes and reads.
    public static let currentVersion = 1
    /// The largest resume data accepted.
    public static let maximumBytes = 64 << 10

    /// Always ``formatName``.
    public var format: String
    /// Always ``currentVersion`` here.
    public var version: Int
    /// The app's bundle identifier.
    public var app: String
    /// The session the download was made in.
    public var session: String
    /// The download's task identifier in that session.
    public var task: Int
    /// The resource.
    public var url: String
    /// The partial body, relative to the app's container.
    public var partialFile: String
    /// How many bytes of the body the partial file holds.
    public var bytes: Int64
    /// The body's full length, when known.
    public var expectedLength: Int64?
    /// The resource's `ETag`.
    public var entityTag: String?
    /// The resource's `Last-Modified`.
    public var lastModified: String?

    /// The resume data of a download's checkpoint, or `nil` if it cannot be resumed.
    public init?(_ checkpoint: TransferCheckpoint) {
        guard checkpoint.kind == .download, checkpoint.method == "GET", let partial = checkpoint.partialFile,
            checkpoint.entityTag != nil || checkpoint.lastModified != nil
        else { return nil }
        format = Self.formatName
        version = Self.currentVersion
        app = checkpoint.app.bundleIdentifier
        session = checkpoint.session
        task = checkpoint.task
        url = checkpoint.url
        partialFile = partial
        bytes = checkpoint.bytesDone
        expectedLength = checkpoint.expectedLength
        entityTag = checkpoint.entityTag
        lastModified = checkpoint.lastModified
    }

    /// The document's bytes.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { [UInt8]($0) } ?? []
    }

    /// Reads and checks resume data for `app`, in `container`.
    ///
    /// - Throws: ``TransferResumeDataError`` naming the first thing wrong.
    public static func decode(
        _ bytes: [UInt8],
        app: AppID,
        container: TransferContainer
    ) throws(TransferResumeDataError) -> TransferResumeData {
        guard bytes.count <= maximumBytes else { throw .init("it is larger than \(maximumBytes) bytes") }
        let data: TransferResumeData
        do {
            data = try JSONDecoder().decode(TransferResumeData.self, from: Data(bytes))
        } catch {
            throw .init("it is not resume data of this library (format \(formatName), version \(currentVersion))")
        }
        guard data.format == formatName else { throw .init("its format is '\(data.format)', not '\(formatName)'") }
        guard data.version == currentVersion else {
            throw .init("its version is \(data.version); this build reads version \(currentVersion)")
        }
        guard data.app == app.bundleIdentifier else { throw .init("it belongs to another app") }
        guard TransferURL.isAllowed(data.url) else { throw .init("its URL is not http or https") }
        guard data.entityTag != nil || data.lastModified != nil else {
            throw .init("it has neither an ETag nor a Last-Modified date to resume against")
        }
        guard data.bytes >= 0, data.expectedLength.map({ $0 >= data.bytes }) ?? true else {
            throw .init("its byte counts are inconsistent")
        }
        guard data.partialFile.hasPrefix(TransferContainer.transfersDirectory + "/") else {
            throw .init("its partial file is not one this library wrote")
        }
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

/// Why resume data was refused.
public struct TransferResumeDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in words.
    public var reason: String

    init(_ reason: String) { self.reason = reason }

    public var description: String { "resume data refused: \(reason)" }
}

/// The URLs transfers accept.
enum TransferURL {
    /// Only `http` and `https`, with a host.
    static func isAllowed(_ url: String) -> Bool {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), url.utf8.count <= 8192,
            !url.contains(where: { $0.isNewline || $0 == "\0" })
        else { return false }
        let rest = lower.drop(while: { $0 != "/" }).dropFirst(2)
        return !(rest.first.map { $0 == "/" || $0 == "?" || $0 == "#" } ?? true)
    }
}
