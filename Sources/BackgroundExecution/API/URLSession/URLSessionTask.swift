public import Foundation
public import FoundationNetworking
import Synchronization

/// One transfer of a session, with Apple's names: a task of a background session runs through
/// the system's transfer service; a task of another session is FoundationNetworking's own task,
/// forwarded.
open class URLSessionTask: NSObject, @unchecked Sendable {
    /// The states of a task, with Apple's raw values.
    public enum State: Int, Sendable {
        /// Running (or queued by the system).
        case running = 0
        /// Suspended by `suspend()`.
        case suspended = 1
        /// `cancel()` was called; the completion is on its way.
        case canceling = 2
        /// Completed, with or without an error.
        case completed = 3
    }

    /// The priority of a task that asked for none.
    public static let defaultPriority: Float = 0.5
    /// A low priority.
    public static let lowPriority: Float = 0.25
    /// A high priority.
    public static let highPriority: Float = 0.75

    struct Values {
        var state: State = .suspended
        var response: URLResponse?
        var error: (any Error)?
        var taskDescription: String?
        var priority: Float = URLSessionTask.defaultPriority
        var earliestBeginDate: Date?
        var expectsToSend: Int64 = NSURLSessionTransferSizeUnknown
        var expectsToReceive: Int64 = NSURLSessionTransferSizeUnknown
        var received: Int64 = 0
        var sent: Int64 = 0
        var expectedToReceive: Int64 = NSURLSessionTransferSizeUnknown
        var expectedToSend: Int64 = NSURLSessionTransferSizeUnknown
        var resumed = false
        var expectedSHA256: String?
    }

    let values = Mutex(Values())
    /// FoundationNetworking's task, for a session that is not a background one.
    let foundation: FoundationNetworking.URLSessionTask?
    /// The background session that owns the task.
    let background: BackgroundSessionCore?
    /// For a background task: what to submit on `resume()`.
    let order: TransferOrderDraft?
    private let identifier: Int
    private let original: URLRequest?

    init(foundation task: FoundationNetworking.URLSessionTask) {
        foundation = task
        background = nil
        order = nil
        identifier = task.taskIdentifier
        original = task.originalRequest
        super.init()
    }

    init(background core: BackgroundSessionCore, identifier: Int, request: URLRequest?, order: TransferOrderDraft?) {
        foundation = nil
        background = core
        self.order = order
        self.identifier = identifier
        original = request
        super.init()
    }

    /// The task's identifier, unique within its session (across launches for a background session).
    open var taskIdentifier: Int { identifier }
    /// The request the task was created with.
    open var originalRequest: URLRequest? { original }
    /// The request being performed (after redirects, the last one).
    open var currentRequest: URLRequest? { foundation?.currentRequest ?? original }
    /// The server's response, once it arrived (`as? HTTPURLResponse` for the status code).
    open var response: URLResponse? { foundation?.response ?? values.withLock { $0.response } }
    /// The error the task completed with, if any.
    open var error: (any Error)? { foundation?.error ?? values.withLock { $0.error } }
    /// The task's state.
    open var state: State {
        if let foundation { return State(rawValue: foundation.state.rawValue) ?? .completed }
        return values.withLock { $0.state }
    }

    /// The app's description of the task, kept across launches for a background task.
    open var taskDescription: String? {
        get { foundation?.taskDescription ?? values.withLock { $0.taskDescription } }
        set {
            foundation?.taskDescription = newValue
            values.withLock { $0.taskDescription = newValue }
        }
    }

    /// The task's priority, 0 to 1 (a hint).
    open var priority: Float {
        get { values.withLock { $0.priority } }
        set {
            foundation?.priority = newValue
            values.withLock { $0.priority = min(1, max(0, newValue)) }
        }
    }

    /// The earliest time a background task may start; set it before `resume()`.
    open var earliestBeginDate: Date? {
        get { values.withLock { $0.earliestBeginDate } }
        set { values.withLock { $0.earliestBeginDate = newValue } }
    }

    /// The app's best guess of the bytes it will send, headers included (a hint).
    open var countOfBytesClientExpectsToSend: Int64 {
        get { values.withLock { $0.expectsToSend } }
        set { values.withLock { $0.expectsToSend = newValue } }
    }

    /// The app's best guess of the bytes it will receive, headers included (a hint).
    open var countOfBytesClientExpectsToReceive: Int64 {
        get { values.withLock { $0.expectsToReceive } }
        set { values.withLock { $0.expectsToReceive = newValue } }
    }

    /// Beyond Apple: the SHA-256 (64 hexadecimal digits) a background download's body must have;
    /// a body that differs completes with `NSURLErrorBadServerResponse` instead of being
    /// delivered. Set it before `resume()`.
    open var expectedContentSHA256: String? {
        get { values.withLock { $0.expectedSHA256 } }
        set { values.withLock { $0.expectedSHA256 = newValue } }
    }

    /// Body bytes received so far.
    open var countOfBytesReceived: Int64 { foundation?.countOfBytesReceived ?? values.withLock { $0.received } }
    /// Body bytes sent so far.
    open var countOfBytesSent: Int64 { foundation?.countOfBytesSent ?? values.withLock { $0.sent } }
    /// The body's expected length, or `NSURLSessionTransferSizeUnknown`.
    open var countOfBytesExpectedToReceive: Int64 {
        foundation?.countOfBytesExpectedToReceive ?? values.withLock { $0.expectedToReceive }
    }
    /// The upload's length, or `NSURLSessionTransferSizeUnknown`.
    open var countOfBytesExpectedToSend: Int64 {
        foundation?.countOfBytesExpectedToSend ?? values.withLock { $0.expectedToSend }
    }

    /// Starts the task (a background task is handed to the system, which may wait for its
    /// `earliestBeginDate`).
    open func resume() {
        if let foundation {
            foundation.resume()
            return
        }
        let first = values.withLock { values in
            defer { values.resumed = true }
            if values.state == .suspended && !values.resumed { values.state = .running }
            return !values.resumed
        }
        if first { background?.submit(self) }
    }

    /// Suspends the task. A background task's transfer goes on in the system here (partial:
    /// iOS pauses it); its state reads `.suspended` until `resume()`.
    open func suspend() {
        if let foundation {
            foundation.suspend()
            return
        }
        values.withLock { if $0.state == .running { $0.state = .suspended } }
    }

    /// Cancels the task: it completes with `NSURLErrorCancelled` (-999).
    open func cancel() {
        if let foundation {
            foundation.cancel()
            return
        }
        values.withLock { if $0.state != .completed { $0.state = .canceling } }
        background?.cancel(self, resumeData: nil)
    }
}

/// A task whose response body is delivered as data.
open class URLSessionDataTask: URLSessionTask, @unchecked Sendable {}

/// A task that sends a body (from a file, for a background session).
open class URLSessionUploadTask: URLSessionDataTask, @unchecked Sendable {}

/// A task whose response body is written to a file.
open class URLSessionDownloadTask: URLSessionTask, @unchecked Sendable {
    /// Cancels the download and hands back data to resume it with
    /// ``URLSession/downloadTask(withResumeData:)``, or `nil` if it cannot be resumed (no
    /// `ETag` or `Last-Modified`, not a `GET`, nothing received). Called on no particular thread.
    open func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        if let foundation = foundation as? FoundationNetworking.URLSessionDownloadTask {
            foundation.cancel(byProducingResumeData: completionHandler)
            return
        }
        values.withLock { if $0.state != .completed { $0.state = .canceling } }
        if let background {
            background.cancel(self) { bytes in completionHandler(bytes.map { Data($0) }) }
        } else {
            completionHandler(nil)
        }
    }

    /// Cancels the download and returns its resume data, or `nil`.
    open func cancelByProducingResumeData() async -> Data? {
        await withCheckedContinuation { continuation in
            cancel { data in continuation.resume(returning: data) }
        }
    }
}
