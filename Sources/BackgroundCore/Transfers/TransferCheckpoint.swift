/// A background transfer as the system remembers it: what to fetch or send, and how far it got.
///
/// The transfer engine writes one after every checkpoint (a few MiB or a second of progress) so
/// that a process killed at any point loses at most the bytes since the last one. Paths are
/// relative to the app's container and are checked again when read back (a stored row is input).
///
/// ```swift
/// let checkpoint = TransferCheckpoint(
///     app: AppID("com.example.reader"), session: "com.example.reader.downloads", task: 1,
///     kind: .download, method: "GET", url: "https://example.com/book.epub",
///     partialFile: "Transfers/com.example.reader.downloads/1.partial")
/// ```
public struct TransferCheckpoint: Sendable, Hashable, Codable {
    /// The app that owns the transfer.
    public var app: AppID
    /// The background session's identifier (`URLSessionConfiguration.identifier`).
    public var session: String
    /// The task's identifier within the session (`URLSessionTask.taskIdentifier`).
    public var task: Int
    /// Download or upload.
    public var kind: TransferKind
    /// Where the transfer is in its life.
    public var state: TransferState
    /// The request's method (`GET`, `POST`, `PUT`).
    public var method: String
    /// The request's URL; only `http` and `https` are accepted.
    public var url: String
    /// The request's header fields, in order.
    public var headers: [TransferHeader]
    /// For an upload: the file sent, relative to the app's container.
    public var bodyFile: String?
    /// For a download: the file being filled, relative to the app's container.
    public var partialFile: String?
    /// Bytes of the body received into `partialFile` and flushed to disk (downloads), or sent.
    public var bytesDone: Int64
    /// For a download: how many of ``bytesDone`` were on the disk (`fsync`ed) when this
    /// checkpoint was written; `nil` in checkpoints written before it was kept, whose bytes were
    /// all synced. A checkpoint is written without `fsync` (the page cache outlives a killed
    /// process): a restart within the boot that wrote it (``bootID``) resumes from ``bytesDone``,
    /// one after a power loss or a reboot from these (docs/transfers.md, "checkpoints").
    public var syncedBytes: Int64? = nil
    /// The Linux boot the checkpoint was written in (`/proc/sys/kernel/random/boot_id`); `nil`
    /// when unknown, which counts as another boot.
    public var bootID: String? = nil
    /// The body's full length when the server said it.
    public var expectedLength: Int64?
    /// The resource's `ETag`, sent back in `If-Range` to resume.
    public var entityTag: String?
    /// The resource's `Last-Modified`, sent in `If-Range` when there is no strong `ETag`.
    public var lastModified: String?
    /// For a download: the header fields of the last complete (`200`) response whose body
    /// `partialFile` holds the start of. A download resumed with a `206` is delivered as the whole
    /// resource's `200`, with these fields (RFC 9110 §15.3.7.3, combining partial content);
    /// `nil` when unknown (resume data, checkpoints written before they were kept).
    public var representationHeaders: [TransferHeader]? = nil
    /// A SHA-256 (64 hexadecimal digits) the downloaded body must have before it is delivered.
    public var expectedSHA256: String?
    /// The app's `taskDescription`.
    public var taskDescription: String?
    /// Not before this wall-clock time (seconds since 1970), from `earliestBeginDate`.
    public var earliestBeginUnixSeconds: Double?
    /// When the system may run it (discretionary, networks, priority); `nil` in checkpoints
    /// written before these were kept, read as Apple's defaults.
    public var requirements: TransferRequirements?
    /// The outcome, once `state` is ``TransferState/completed``.
    public var outcome: TransferOutcome?
    /// The options of its session when it was ordered (system mode: `backgroundd` keeps them
    /// with the transfer, so a restarted daemon runs the session as the app configured it);
    /// `nil` elsewhere and in checkpoints written before they were kept.
    public var sessionOptions: TransferSessionOptions? = nil

    /// Creates a checkpoint of a transfer that has not started.
    public init(
        app: AppID,
        session: String,
        task: Int,
        kind: TransferKind,
        state: TransferState = .waiting,
        method: String,
        url: String,
        headers: [TransferHeader] = [],
        bodyFile: String? = nil,
        partialFile: String? = nil,
        bytesDone: Int64 = 0,
        expectedLength: Int64? = nil,
        entityTag: String? = nil,
        lastModified: String? = nil,
        expectedSHA256: String? = nil,
        taskDescription: String? = nil,
        earliestBeginUnixSeconds: Double? = nil,
        requirements: TransferRequirements? = nil,
        outcome: TransferOutcome? = nil
    ) {
        self.app = app
        self.session = session
        self.task = task
        self.kind = kind
        self.state = state
        self.method = method
        self.url = url
        self.headers = headers
        self.bodyFile = bodyFile
        self.partialFile = partialFile
        self.bytesDone = bytesDone
        self.expectedLength = expectedLength
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.expectedSHA256 = expectedSHA256
        self.taskDescription = taskDescription
        self.earliestBeginUnixSeconds = earliestBeginUnixSeconds
        self.requirements = requirements
        self.outcome = outcome
    }
}

/// What a background transfer does.
public enum TransferKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Fetches a resource into a file (`downloadTask`).
    case download
    /// Sends a file as the request's body (`uploadTask(with:fromFile:)`).
    case upload
}

/// Where a background transfer is in its life.
public enum TransferState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Created, not started (an `earliestBeginDate` ahead, or waiting for a connection slot).
    case waiting
    /// Bytes are moving, or will again after a retry.
    case running
    /// Finished with ``TransferCheckpoint/outcome``; its events are not yet delivered to the app.
    case completed
}

/// One header field of a request or a response.
public struct TransferHeader: Sendable, Hashable, Codable {
    /// The field's name, as sent.
    public var name: String
    /// The field's value.
    public var value: String

    /// Creates a field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// The bytes of `headers`' names and values together, as UTF-8: what the limits count.
    public static func bytes(of headers: [TransferHeader]) -> Int {
        headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }
}

/// Apple's `NSURLErrorBackgroundTaskCancelledReasonKey` values (reference §5.4).
public enum TransferCancellationReason: Int, Sendable, Hashable, Codable {
    /// The user force-quit the app.
    case userForceQuitApplication = 0
    /// Background updates are off for the app.
    case backgroundUpdatesDisabled = 1
    /// Battery, thermal state, network or data plan.
    case insufficientSystemResources = 2
}

/// How a transfer ended: the server's response, an error, or both.
public struct TransferOutcome: Sendable, Hashable, Codable {
    /// The final response's status code, when a response arrived.
    public var statusCode: Int?
    /// The final response's header fields.
    public var responseHeaders: [TransferHeader]
    /// The final URL, after redirects.
    public var responseURL: String?
    /// `NSURLErrorDomain`'s code when the transfer failed (`-999` cancelled, `-1001` timed out…).
    public var errorCode: Int?
    /// What went wrong, in one line.
    public var errorMessage: String?
    /// For a transfer the system cancelled (`errorCode` -999): Apple's
    /// `NSURLErrorBackgroundTaskCancelledReasonKey` value, 0 when the user force-quit the app.
    public var cancellationReason: Int?
    /// For a completed download: the body's file, relative to the app's container.
    public var bodyFile: String?
    /// For an upload: the response's body, at most ``TransferOutcome/maximumResponseBody`` bytes.
    public var responseBody: [UInt8]

    /// The most of an upload's response body kept for `urlSession(_:dataTask:didReceive:)`.
    public static let maximumResponseBody = 1 << 20

    /// Creates an outcome.
    public init(
        statusCode: Int? = nil,
        responseHeaders: [TransferHeader] = [],
        responseURL: String? = nil,
        errorCode: Int? = nil,
        errorMessage: String? = nil,
        cancellationReason: Int? = nil,
        bodyFile: String? = nil,
        responseBody: [UInt8] = []
    ) {
        self.statusCode = statusCode
        self.responseHeaders = responseHeaders
        self.responseURL = responseURL
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.cancellationReason = cancellationReason
        self.bodyFile = bodyFile
        self.responseBody = responseBody
    }
}

extension TransferCheckpoint {
    /// The longest ``bootID`` a stored row may name (a Linux boot ID has 36 characters).
    public static let maximumBootIDBytes = 64

    /// Makes the counts lengths, as a checkpoint read back from a store must have them (a stored
    /// row is input, issue 25): a negative ``bytesDone`` becomes 0 (nothing is held: a download
    /// starts over, an upload is sent again) and a negative ``expectedLength`` unknown;
    /// ``syncedBytes`` is kept within `0...bytesDone` and a ``bootID`` longer than
    /// ``maximumBootIDBytes`` is forgotten (another boot). The engine never writes any of these,
    /// so only a damaged or edited row changes.
    ///
    /// ```swift
    /// var stored = checkpoint             // bytesDone -5, expectedLength -1 in the row
    /// stored.clampCounts()                // bytesDone 0, expectedLength nil
    /// ```
    public mutating func clampCounts() {
        if bytesDone < 0 { bytesDone = 0 }
        if let synced = syncedBytes { syncedBytes = min(max(0, synced), bytesDone) }
        if let boot = bootID, boot.utf8.count > Self.maximumBootIDBytes { bootID = nil }
        if let length = expectedLength, length < 0 { expectedLength = nil }
    }
}
