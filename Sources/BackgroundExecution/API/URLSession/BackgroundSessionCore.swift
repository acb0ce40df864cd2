import BackgroundCore
import Foundation
import FoundationNetworking
import Synchronization

/// What a background task submits when it is resumed.
struct TransferOrderDraft: Sendable {
    var kind: TransferKind
    var method: String
    var url: String
    var headers: [TransferHeader]
    var uploadPath: String?
    var resumeData: [UInt8]?
}

/// A background session's side of the transfer service: creates its tasks, submits them, and
/// turns the service's events into delegate calls on the delegate queue, in Apple's order
/// (`didWriteData`…, `didFinishDownloadingTo` while the file exists, `didCompleteWithError`,
/// then `urlSessionDidFinishEvents` once nothing is outstanding).
final class BackgroundSessionCore: @unchecked Sendable {
    struct Tasks {
        var byIdentifier: [Int: URLSessionTask] = [:]
        var outstanding: Set<Int> = []
        var invalidating = false
        var invalidated = false
        var nextLocalIdentifier = 1
    }

    let identifier: String
    let configuration: URLSessionConfiguration
    let service: (any TransferService)?
    /// The application whose code created the session, if it had one then (weak: a session
    /// outlives its process in the simulator, where many processes share one).
    weak var application: UIApplication?
    let queue: OperationQueue
    let tasks = Mutex(Tasks())
    /// The session, kept strongly until it is invalidated (Apple keeps the delegate so); only
    /// weakly under a service that runs the delegate calls itself (the simulator, where a
    /// session lives as long as the simulated process's code keeps it).
    private let owner = Mutex(Owner())

    private struct Owner {
        var strong: URLSession?
        weak var weak: URLSession?
    }

    init(
        identifier: String,
        configuration: URLSessionConfiguration,
        service: (any TransferService)?,
        application: UIApplication?,
        queue: OperationQueue
    ) {
        self.identifier = identifier
        self.configuration = configuration
        self.service = service
        self.application = application
        self.queue = queue
    }

    var app: AppID { service?.app ?? AppID("unknown") }

    /// Connects to the service and recreates the tasks it holds for this identifier.
    func attach(to session: URLSession) {
        let retains = !(service is any DelegateCallRunner)
        owner.withLock { owner in
            owner.strong = retains ? session : nil
            owner.weak = session
        }
        guard let service else { return }
        let options = TransferSessionOptions(
            app: service.app,
            session: identifier,
            maximumConnectionsPerHost: max(1, configuration.httpMaximumConnectionsPerHost),
            requestTimeoutSeconds: configuration.timeoutIntervalForRequest,
            resourceTimeoutSeconds: configuration.timeoutIntervalForResource,
            sendsLaunchEvents: configuration.sessionSendsLaunchEvents
        )
        // Events wait until the known tasks are registered: the queue is held meanwhile.
        let wasSuspended = queue.isSuspended
        queue.isSuspended = true
        let known = service.attach(options) { [weak self] event in self?.receive(event) }
        tasks.withLock { tasks in
            for transfer in known {
                let task = makeTask(for: transfer)
                tasks.byIdentifier[transfer.task] = task
                tasks.outstanding.insert(transfer.task)
            }
        }
        queue.isSuspended = wasSuspended
        if let runner = service as? any DelegateCallRunner {
            runner.releaseWhenProcessEnds { [weak self] in self?.processEnded() }
        }
    }

    /// The process whose code created the session ended without invalidating it (a simulated
    /// process ends so; a real one's memory goes with it): the session lets go of its tasks,
    /// which hold it, and of itself; no event reaches its delegate any more.
    func processEnded() {
        let released = tasks.withLock { tasks in
            defer {
                tasks.byIdentifier = [:]
                tasks.outstanding = []
                tasks.invalidated = true
            }
            return tasks.byIdentifier
        }
        owner.withLock { $0 = Owner() }
        withExtendedLifetime(released) {}  // the tasks go here, outside the lock
    }

    func downloadTask(request: URLRequest?, resumeData: Data?) -> URLSessionDownloadTask {
        let draft = TransferOrderDraft(
            kind: .download,
            method: "GET",
            url: request?.url?.absoluteString ?? "",
            headers: headers(of: request),
            resumeData: resumeData.map { [UInt8]($0) }
        )
        let task = URLSessionDownloadTask(background: self, identifier: reserve(), request: request, order: draft)
        register(task)
        return task
    }

    func uploadTask(request: URLRequest, file: URL) -> URLSessionUploadTask {
        let draft = TransferOrderDraft(
            kind: .upload,
            method: request.httpMethod ?? "POST",
            url: request.url?.absoluteString ?? "",
            headers: headers(of: request),
            uploadPath: file.isFileURL ? file.standardizedFileURL.path : file.absoluteString
        )
        let task = URLSessionUploadTask(background: self, identifier: reserve(), request: request, order: draft)
        register(task)
        return task
    }

    /// The task returned after a refused call (the fault hook returned): it never runs.
    func refusedUploadTask(request: URLRequest) -> URLSessionUploadTask {
        URLSessionUploadTask(background: self, identifier: reserve(), request: request, order: nil)
    }

    /// A data task of a background session: completes with an error when resumed (partial).
    func unsupportedDataTask(request: URLRequest) -> URLSessionDataTask {
        let task = URLSessionDataTask(background: self, identifier: reserve(), request: request, order: nil)
        register(task)
        return task
    }

    func liveTasks() -> [URLSessionTask] {
        tasks.withLock { tasks in
            tasks.byIdentifier.keys.sorted().compactMap { key in
                tasks.byIdentifier[key].flatMap { $0.state == .completed ? nil : $0 }
            }
        }
    }

    /// Hands a resumed task to the service.
    func submit(_ task: URLSessionTask) {
        tasks.withLock { _ = $0.outstanding.insert(task.taskIdentifier) }
        guard let service, let draft = task.order else {
            let reason =
                service == nil
                ? "no transfer service: call URLSession.bootstrap(_:) with EmbeddedTransfers (BackgroundTransfers)"
                : "data tasks are not supported in background sessions here"
            fail(task, code: service == nil ? -1 : URLError.unsupportedURL.rawValue, message: reason)
            return
        }
        let (description, begin, digest, priority) = task.values.withLock {
            ($0.taskDescription, $0.earliestBeginDate, $0.expectedSHA256, $0.priority)
        }
        // A transfer created while the app is in the background is discretionary (reference
        // §5.1), whichever thread resumes it: apps resume from their own queues as often as
        // from the main thread. The state is read from the application that created the
        // session (else the process's, if the app made one: a process that only transfers is
        // in the foreground); every connection answers it from any thread.
        let inBackground = (application ?? UIApplication.existing)?.applicationState == .background
        let requirements = TransferRequirements(
            isDiscretionary: configuration.isDiscretionary,
            allowsCellularAccess: configuration.allowsCellularAccess,
            allowsExpensiveNetworkAccess: configuration.allowsExpensiveNetworkAccess,
            allowsConstrainedNetworkAccess: configuration.allowsConstrainedNetworkAccess,
            createdInBackground: inBackground,
            priority: Double(priority)
        )
        let transfer = TransferCheckpoint(
            app: service.app,
            session: identifier,
            task: task.taskIdentifier,
            kind: draft.kind,
            method: draft.method,
            url: draft.url,
            headers: draft.headers,
            expectedSHA256: digest,
            taskDescription: description,
            earliestBeginUnixSeconds: begin?.timeIntervalSince1970,
            requirements: requirements
        )
        service.submit(TransferOrder(transfer: transfer, uploadPath: draft.uploadPath, resumeData: draft.resumeData))
    }

    func cancel(_ task: URLSessionTask, resumeData: (@Sendable ([UInt8]?) -> Void)?) {
        guard let service else {
            resumeData?(nil)
            return
        }
        service.cancel(app: service.app, session: identifier, task: task.taskIdentifier, resumeData: resumeData)
    }

    func invalidate(cancelling: Bool) {
        let idle = tasks.withLock { tasks in
            tasks.invalidating = true
            return tasks.outstanding.isEmpty
        }
        service?.detach(app: app, session: identifier, cancelling: cancelling)
        if idle { queue.addOperation { self.finishInvalidation() } }
    }

    private func reserve() -> Int {
        if let service { return service.reserveTaskIdentifier(app: service.app, session: identifier) }
        return tasks.withLock { tasks in
            defer { tasks.nextLocalIdentifier += 1 }
            return tasks.nextLocalIdentifier
        }
    }

    private func register(_ task: URLSessionTask) {
        tasks.withLock { $0.byIdentifier[task.taskIdentifier] = task }
    }

    private func headers(of request: URLRequest?) -> [TransferHeader] {
        var fields: [String: (String, String)] = [:]
        for (name, value) in configuration.additionalHeaderFields() { fields[name.lowercased()] = (name, value) }
        for (name, value) in request?.allHTTPHeaderFields ?? [:] { fields[name.lowercased()] = (name, value) }
        return fields.keys.sorted().compactMap { fields[$0].map { TransferHeader(name: $0.0, value: $0.1) } }
    }

    /// A task for a transfer the service already held (an earlier launch).
    private func makeTask(for transfer: TransferCheckpoint) -> URLSessionTask {
        var request = URL(string: transfer.url).map { URLRequest(url: $0) }
        request?.httpMethod = transfer.method
        for header in transfer.headers { request?.addValue(header.value, forHTTPHeaderField: header.name) }
        let task: URLSessionTask =
            transfer.kind == .download
            ? URLSessionDownloadTask(background: self, identifier: transfer.task, request: request, order: nil)
            : URLSessionUploadTask(background: self, identifier: transfer.task, request: request, order: nil)
        task.values.withLock { values in
            values.resumed = true
            values.state = .running
            values.taskDescription = transfer.taskDescription
            values.received = transfer.kind == .download ? transfer.bytesDone : 0
            values.expectedToReceive = transfer.expectedLength ?? NSURLSessionTransferSizeUnknown
            values.earliestBeginDate = transfer.earliestBeginUnixSeconds.map { Date(timeIntervalSince1970: $0) }
        }
        return task
    }

    private func fail(_ task: URLSessionTask, code: Int, message: String) {
        var transfer = TransferCheckpoint(
            app: app,
            session: identifier,
            task: task.taskIdentifier,
            kind: task is URLSessionDownloadTask ? .download : .upload,
            state: .completed,
            method: task.originalRequest?.httpMethod ?? "GET",
            url: task.originalRequest?.url?.absoluteString ?? ""
        )
        transfer.outcome = TransferOutcome(errorCode: code, errorMessage: message)
        receive(.completed(transfer, location: nil, resumeData: nil))
    }

    private func receive(_ event: TransferEvent) {
        if let runner = service as? any DelegateCallRunner {
            runner.runDelegateCall { self.deliver(event) }
        } else if let system = (application ?? UIApplication.existing)?.connection as? EmbeddedSystem {
            // Embedded mode: held while the app is suspended; a completion of a session that
            // sends launch events resumes it in the background (EmbeddedSystem+TransferEvents).
            var wakes = false
            if case .completed = event { wakes = configuration.sessionSendsLaunchEvents }
            system.routeTransferEvent(session: identifier, wakes: wakes) {
                self.queue.addOperation { self.deliver(event) }
            }
        } else {
            queue.addOperation { self.deliver(event) }
        }
    }

    var session: URLSession? { owner.withLock { $0.strong ?? $0.weak } }

    func task(for transfer: TransferCheckpoint) -> URLSessionTask {
        tasks.withLock { tasks in
            if let task = tasks.byIdentifier[transfer.task] { return task }
            let task = makeTask(for: transfer)
            tasks.byIdentifier[transfer.task] = task
            tasks.outstanding.insert(transfer.task)
            return task
        }
    }

    func finishInvalidation() {
        let first = tasks.withLock { tasks in
            defer { tasks.invalidated = true }
            return !tasks.invalidated
        }
        guard first, let session else { return }
        session.delegate?.urlSession(session, didBecomeInvalidWithError: nil)
        owner.withLock { $0 = Owner() }
    }
}
