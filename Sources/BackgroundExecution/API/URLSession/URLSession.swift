public import BackgroundCore
public import Foundation
public import FoundationNetworking
import Synchronization

/// Apple's `URLSession`, declared here so that iOS code using background sessions compiles on
/// Linux with only its import changed, while ordinary `URLSession.shared` code keeps working.
///
/// FoundationNetworking's `URLSession` marks `background(withIdentifier:)` unavailable and has no
/// way to outlive the process. This module declares the family itself (a module's own
/// declarations shadow those it re-exports) and re-exports FoundationNetworking, so `URLRequest`,
/// `HTTPURLResponse` and `URLResponse` are the real ones:
///
/// - a **background** session's tasks run through the system's ``TransferService`` (embedded
///   mode: `BackgroundTransfers`' `EmbeddedTransfers`, installed with ``bootstrap(_:)``);
/// - any **other** session (``shared``, `.default`, `.ephemeral`) is FoundationNetworking's own
///   session, to which every call is forwarded.
///
/// A file that imports FoundationNetworking *as well as* this module sees two `URLSession`s and
/// gets "'URLSession' is ambiguous for type lookup": remove that import (this module re-exports
/// it), or write `BackgroundExecution.URLSession`.
///
/// ```swift
/// let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.downloads")
/// let session = URLSession(configuration: configuration, delegate: downloader, delegateQueue: nil)
/// session.downloadTask(with: URL(string: "https://example.com/book.epub")!).resume()
/// ```
open class URLSession: NSObject, @unchecked Sendable {
    private static let service = Mutex<(any TransferService)?>(nil)
    private static let sharedInstance = URLSession(wrapping: FoundationNetworking.URLSession.shared)

    /// Connects background sessions created from now on to a transfer service: in embedded
    /// mode `EmbeddedTransfers` (product `BackgroundTransfers`), which runs them in this process.
    /// Without one, a background task completes at once with an error that says so.
    ///
    /// ```swift
    /// URLSession.bootstrap(EmbeddedTransfers(configuration: .init(app: app, container: container, store: store)))
    /// ```
    public static func bootstrap(_ service: (any TransferService)?) {
        self.service.withLock { $0 = service }
    }

    /// The service background sessions use.
    static var transferService: (any TransferService)? {
        service.withLock { $0 } ?? DaemonConnection.processTransferService
    }

    /// The process's shared session: FoundationNetworking's `URLSession.shared`, forwarded.
    open class var shared: URLSession { sharedInstance }

    let storedConfiguration: URLSessionConfiguration
    let foundation: FoundationNetworking.URLSession?
    let background: BackgroundSessionCore?
    let bridge: FoundationDelegateBridge?
    private let storedDelegate: (any URLSessionDelegate)?
    private let queue: OperationQueue
    private let description_ = Mutex<String?>(nil)

    /// A copy of the session's configuration.
    open var configuration: URLSessionConfiguration {
        // swift-format-ignore: NeverForceUnwrap
        storedConfiguration.copy() as! URLSessionConfiguration
    }
    /// The session's delegate, kept strongly until the session is invalidated (as Apple does).
    open var delegate: (any URLSessionDelegate)? { storedDelegate }
    /// The queue delegate methods are called on (a serial queue when `nil` was given).
    open var delegateQueue: OperationQueue { queue }
    /// The app's description of the session.
    open var sessionDescription: String? {
        get { description_.withLock { $0 } }
        set { description_.withLock { $0 = newValue } }
    }

    /// A session with no delegate.
    public convenience init(configuration: URLSessionConfiguration) {
        self.init(configuration: configuration, delegate: nil, delegateQueue: nil)
    }

    /// A session whose events go to `delegate`, on `queue` (or a serial queue of its own).
    ///
    /// A background configuration reattaches to the transfers the system holds for its
    /// identifier (started in an earlier launch): ``getAllTasks(completionHandler:)`` lists them
    /// and their events follow, in order.
    public init(
        configuration: URLSessionConfiguration,
        delegate: (any URLSessionDelegate)?,
        delegateQueue queue: OperationQueue?
    ) {
        // swift-format-ignore: NeverForceUnwrap
        let copy = configuration.copy() as! URLSessionConfiguration
        storedConfiguration = copy
        storedDelegate = delegate
        self.queue =
            queue
            ?? {
                let serial = OperationQueue()
                serial.maxConcurrentOperationCount = 1
                serial.name = "URLSession delegate queue"
                return serial
            }()
        if copy.kind == .background {
            foundation = nil
            bridge = nil
            // The app whose code creates the session owns it (in the simulator, one of many in
            // this process): its state is read when a task is resumed, from any thread.
            let application = UIApplication.existing
            background = BackgroundSessionCore(
                identifier: copy.identifier ?? "",
                configuration: copy,
                service: application?.connection.transferService ?? Self.transferService,
                application: application,
                queue: self.queue
            )
        } else {
            background = nil
            let bridge = delegate.map { _ in FoundationDelegateBridge() }
            self.bridge = bridge
            foundation = FoundationNetworking.URLSession(
                configuration: copy.foundationConfiguration(),
                delegate: bridge,
                delegateQueue: self.queue
            )
        }
        super.init()
        bridge?.session = self
        background?.attach(to: self)
    }

    private init(wrapping shared: FoundationNetworking.URLSession) {
        storedConfiguration = URLSessionConfiguration(kind: .default)
        foundation = shared
        background = nil
        bridge = nil
        storedDelegate = nil
        queue = shared.delegateQueue
        super.init()
    }

    // MARK: Tasks for the delegate

    /// A task that downloads the URL's resource to a file.
    open func downloadTask(with url: URL) -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url))
    }

    /// A task that downloads the request's resource to a file.
    open func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        if let background { return background.downloadTask(request: request, resumeData: nil) }
        return track(URLSessionDownloadTask(foundation: foundationSession.downloadTask(with: request)))
    }

    /// A task that continues a download from the data `cancel(byProducingResumeData:)` gave.
    open func downloadTask(withResumeData resumeData: Data) -> URLSessionDownloadTask {
        if let background { return background.downloadTask(request: nil, resumeData: resumeData) }
        return track(URLSessionDownloadTask(foundation: foundationSession.downloadTask(withResumeData: resumeData)))
    }

    /// A task that sends a file as the request's body (the only upload a background session
    /// supports).
    open func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        if let background { return background.uploadTask(request: request, file: fileURL) }
        return track(URLSessionUploadTask(foundation: foundationSession.uploadTask(with: request, fromFile: fileURL)))
    }

    /// A task that sends data as the request's body; a background session refuses it, as iOS does.
    open func uploadTask(with request: URLRequest, from bodyData: Data) -> URLSessionUploadTask {
        if let background {
            BackgroundFault.raise(
                BackgroundFault(
                    api: "uploadTask(with:from:)",
                    message: "Upload tasks from NSData are not supported in background sessions."
                )
            )
            return background.refusedUploadTask(request: request)
        }
        return track(URLSessionUploadTask(foundation: foundationSession.uploadTask(with: request, from: bodyData)))
    }

    /// A task that delivers the response body as data.
    open func dataTask(with url: URL) -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url))
    }

    /// A task that delivers the response body as data. On a background session it completes at
    /// once with `NSURLErrorUnsupportedURL` here (partial: iOS runs it while the app runs).
    open func dataTask(with request: URLRequest) -> URLSessionDataTask {
        if let background { return background.unsupportedDataTask(request: request) }
        return track(URLSessionDataTask(foundation: foundationSession.dataTask(with: request)))
    }

    // MARK: Managing the session

    /// Calls `completionHandler` with the session's tasks that have not completed.
    open func getAllTasks(completionHandler: @escaping @Sendable ([URLSessionTask]) -> Void) {
        if let background {
            completionHandler(background.liveTasks())
            return
        }
        completionHandler(bridge?.liveTasks() ?? [])
    }

    /// Calls `completionHandler` with the session's data, upload and download tasks.
    open func getTasksWithCompletionHandler(
        _ completionHandler:
            @escaping @Sendable ([URLSessionDataTask], [URLSessionUploadTask], [URLSessionDownloadTask])
            -> Void
    ) {
        getAllTasks { tasks in
            let uploads = tasks.compactMap { $0 as? URLSessionUploadTask }
            let data = tasks.compactMap { $0 as? URLSessionDataTask }.filter { !($0 is URLSessionUploadTask) }
            completionHandler(data, uploads, tasks.compactMap { $0 as? URLSessionDownloadTask })
        }
    }

    /// The session's tasks that have not completed.
    open var allTasks: [URLSessionTask] {
        get async {
            await withCheckedContinuation { continuation in getAllTasks { continuation.resume(returning: $0) } }
        }
    }

    /// Cancels every task, then invalidates the session (`didBecomeInvalidWithError` follows).
    open func invalidateAndCancel() {
        if let background {
            background.invalidate(cancelling: true)
        } else if self !== Self.sharedInstance {
            foundation?.invalidateAndCancel()
        }
    }

    /// Lets the tasks finish, then invalidates the session.
    open func finishTasksAndInvalidate() {
        if let background {
            background.invalidate(cancelling: false)
        } else if self !== Self.sharedInstance {
            foundation?.finishTasksAndInvalidate()
        }
    }

    // swift-format-ignore: NeverForceUnwrap
    var foundationSession: FoundationNetworking.URLSession { foundation! }

    func track<Task: URLSessionTask>(_ task: Task) -> Task {
        bridge?.track(task)
        return task
    }
}
