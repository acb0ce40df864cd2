/// The resume data of a cancelled or failed download: a documented, versioned JSON document.
///
/// `cancel(byProducingResumeData:)` hands it to the app and `downloadTask(withResumeData:)` takes
/// it back. It is input from the app, so everything in it is checked before use: its size, its
/// format and version, the app it names, an `http` or `https` URL, a validator (`ETag` or
/// `Last-Modified`: without one nothing can be resumed), and a partial file that is a plain path
/// under `Transfers/` in the app's container, at least as long as the byte count. It can name no
/// other app's file and no path outside the container.
///
/// The value and the checks that need no file are here, so that every engine (embedded mode and
/// `backgroundd` in `BackgroundTransfers`, the simulator) reads and writes the same document; the
/// JSON coding and the file's checks are the engine's.
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
    /// The directory of the container, relative to its root, that partial files are kept in.
    public static let partialDirectory = "Transfers"
    /// How long a partial file kept for resume data stays when no transfer uses it, from its
    /// last write: 7 days (ours: Apple's default `timeoutIntervalForResource`, the longest a
    /// transfer may take). Resume data naming a removed file is refused.
    public static let partialFileLifetime: Duration = .seconds(7 * 24 * 3600)

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

    /// The resume data of a download's checkpoint, or `nil` if it cannot be resumed (not a
    /// `GET` download, no partial file, neither an `ETag` nor a `Last-Modified`).
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

    /// Checks everything that needs no file: the format and version, the app, the URL, a
    /// validator, the byte counts, and that the partial file is a plain path under `Transfers/`.
    ///
    /// - Throws: ``TransferResumeDataError`` naming the first thing wrong.
    public func check(for app: AppID) throws(TransferResumeDataError) {
        guard format == Self.formatName else { throw .init("its format is '\(format)', not '\(Self.formatName)'") }
        guard version == Self.currentVersion else {
            throw .init("its version is \(version); this build reads version \(Self.currentVersion)")
        }
        guard self.app == app.bundleIdentifier else { throw .init("it belongs to another app") }
        guard TransferURL.isAllowed(url) else { throw .init("its URL is not http or https") }
        guard entityTag != nil || lastModified != nil else {
            throw .init("it has neither an ETag nor a Last-Modified date to resume against")
        }
        guard bytes >= 0, expectedLength.map({ $0 >= bytes }) ?? true else {
            throw .init("its byte counts are inconsistent")
        }
        let parts = partialFile.split(separator: "/", omittingEmptySubsequences: false)
        guard partialFile.hasPrefix(Self.partialDirectory + "/") else {
            throw .init("its partial file is not one this library wrote")
        }
        guard partialFile.utf8.count < 4096, !partialFile.contains("\0"),
            parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
        else { throw .init("its partial file is not inside the app's container") }
    }

    /// The error for resume data that is not a JSON document of this format.
    public static var undecodable: TransferResumeDataError {
        .init("it is not resume data of this library (format \(formatName), version \(currentVersion))")
    }

    /// The error for resume data larger than ``maximumBytes``.
    public static var oversized: TransferResumeDataError { .init("it is larger than \(maximumBytes) bytes") }
}

/// Why resume data was refused.
public struct TransferResumeDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in words.
    public var reason: String

    /// Creates an error.
    public init(_ reason: String) { self.reason = reason }

    public var description: String { "resume data refused: \(reason)" }
}

/// The URLs transfers accept.
public enum TransferURL {
    /// Only `http` and `https`, with a host, at most 8 KiB, no line breaks or NUL.
    public static func isAllowed(_ url: String) -> Bool {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), url.utf8.count <= 8192,
            !url.contains(where: { $0.isNewline || $0 == "\0" })
        else { return false }
        let rest = lower.drop(while: { $0 != "/" }).dropFirst(2)
        return !(rest.first.map { $0 == "/" || $0 == "?" || $0 == "#" } ?? true)
    }
}

extension TransferCheckpoint {
    /// Where a download's body is kept while it arrives, relative to the app's container:
    /// `Transfers/<session>/<task>.partial`, the session's identifier escaped to one plain name
    /// (bytes other than ASCII letters, digits, `.`, `_` and `-` as `%XX`).
    public static func partialPath(session: String, task: Int) -> String {
        var name = ""
        for byte in session.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "._-".unicodeScalars.contains(scalar))
            {
                name.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                name += "%" + (hex.count < 2 ? "0" + hex : hex)
            }
        }
        if name.isEmpty || name == "." || name == ".." { name = "%" + name }
        return "\(TransferResumeData.partialDirectory)/\(name)/\(task).partial"
    }
}
