/// What runs an app's background transfers: the engine in the app's own process (embedded
/// mode, `BackgroundTransfers`' `EmbeddedTransfers`) or `backgroundd` (system mode, through the
/// app's daemon connection).
///
/// The app-facing `URLSession` family talks only to this protocol, so `BackgroundExecution`
/// never links an HTTP client itself. Every call is for one app's session; a service never
/// shows one app another app's transfers.
public protocol TransferService: AnyObject, Sendable {
    /// The app whose transfers this service runs in this process.
    var app: AppID { get }

    /// Connects a background session: from now on `events` receives the session's events, in
    /// order, one at a time. Transfers the service already knows for the session (started in
    /// an earlier launch) are returned, and go on.
    ///
    /// - Parameters:
    ///   - session: The session's identifier and options.
    ///   - events: Called from the service's own threads, never concurrently for one session.
    /// - Returns: The session's transfers, ordered by task identifier.
    func attach(
        _ session: TransferSessionOptions,
        events: @escaping @Sendable (TransferEvent) -> Void
    ) -> [TransferCheckpoint]

    /// A task identifier not used by any transfer of the session, in this launch or a stored one.
    func reserveTaskIdentifier(app: AppID, session: String) -> Int

    /// Starts (or queues) a transfer. Problems with the order (a scheme other than `http` or
    /// `https`, a file outside the app's container, resume data that does not validate) end
    /// the transfer with an error event instead: the call itself never fails.
    func submit(_ order: TransferOrder)

    /// Cancels a transfer; its completion event follows with `-999` (`NSURLErrorCancelled`).
    ///
    /// - Parameter resumeData: Called with resume data for a download that can be resumed
    ///   (`BackgroundTransfers`' versioned format), or `nil`; `nil` when the caller did not ask.
    func cancel(app: AppID, session: String, task: Int, resumeData: (@Sendable ([UInt8]?) -> Void)?)

    /// The app has received a completed transfer's events: the service forgets it and removes
    /// its temporary file.
    func delivered(app: AppID, session: String, task: Int)

    /// The session is gone: its events stop; with `cancelling`, its transfers are cancelled.
    func detach(app: AppID, session: String, cancelling: Bool)

    /// Every transfer of the app not yet completed, running or waiting with its reasons
    /// (`bgctl why` against the running app); `nil` (the default) from a service that cannot say.
    func transferStatus() -> TransferStatus?
}

extension TransferService {
    /// The default: the service does not explain its transfers.
    public func transferStatus() -> TransferStatus? { nil }
}

/// A background session's identity and the options its transfers share.
public struct TransferSessionOptions: Sendable, Hashable, Codable {
    /// The app.
    public var app: AppID
    /// The session's identifier.
    public var session: String
    /// At most this many transfers of the session at once to one host (Apple's default: 6).
    public var maximumConnectionsPerHost: Int
    /// The longest wait for data before a request is retried (Apple's default: 60 s).
    public var requestTimeoutSeconds: Double
    /// The longest a transfer may take, retries included (Apple's default: 7 days).
    public var resourceTimeoutSeconds: Double
    /// `sessionSendsLaunchEvents`: whether the system launches or resumes the app when the
    /// session's transfers finish (Apple's default: true; system mode only).
    public var sendsLaunchEvents: Bool

    /// Creates options, with Apple's defaults.
    public init(
        app: AppID,
        session: String,
        maximumConnectionsPerHost: Int = 6,
        requestTimeoutSeconds: Double = 60,
        resourceTimeoutSeconds: Double = 7 * 24 * 3600,
        sendsLaunchEvents: Bool = true
    ) {
        self.app = app
        self.session = session
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.resourceTimeoutSeconds = resourceTimeoutSeconds
        self.sendsLaunchEvents = sendsLaunchEvents
    }
}

/// A transfer the app asks for.
public struct TransferOrder: Sendable, Hashable {
    /// The transfer as it will be checkpointed (app, session, task, request, hints).
    public var transfer: TransferCheckpoint
    /// For an upload: the file's absolute path, which must be inside the app's container.
    public var uploadPath: String?
    /// For `downloadTask(withResumeData:)`: the resume data, validated by the service.
    public var resumeData: [UInt8]?

    /// Creates an order.
    public init(transfer: TransferCheckpoint, uploadPath: String? = nil, resumeData: [UInt8]? = nil) {
        self.transfer = transfer
        self.uploadPath = uploadPath
        self.resumeData = resumeData
    }
}

/// What a session hears about its transfers, in the order Apple delivers it.
public enum TransferEvent: Sendable, Hashable {
    /// Body bytes of a download reached the file (`didWriteData`).
    case wroteData(task: Int, bytesWritten: Int64, totalWritten: Int64, totalExpected: Int64?)
    /// Body bytes of an upload were sent (`didSendBodyData`).
    case sentData(task: Int, bytesSent: Int64, totalSent: Int64, totalExpected: Int64?)
    /// The transfer ended; its ``TransferCheckpoint/outcome`` says how. A downloaded body's
    /// file is at `location` (an absolute path) until the session calls
    /// ``TransferService/delivered(app:session:task:)``; `resumeData` is there for a download
    /// that was cancelled or failed and can be resumed.
    case completed(TransferCheckpoint, location: String?, resumeData: [UInt8]?)
}
