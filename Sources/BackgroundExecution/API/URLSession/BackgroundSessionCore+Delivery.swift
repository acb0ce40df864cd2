import BackgroundCore
import Foundation
import FoundationNetworking

extension BackgroundSessionCore {
    /// Delivers one event to the delegate; runs on the delegate queue.
    func deliver(_ event: TransferEvent) {
        guard let session else { return }
        let delegate = session.delegate
        switch event {
        case .wroteData(let identifier, let written, let total, let expected):
            guard let task = tasks.withLock({ $0.byIdentifier[identifier] }) as? URLSessionDownloadTask else { return }
            let expectedBytes = expected ?? NSURLSessionTransferSizeUnknown
            task.values.withLock { values in
                values.received = total
                values.expectedToReceive = expectedBytes
            }
            (delegate as? any URLSessionDownloadDelegate)?.urlSession(
                session,
                downloadTask: task,
                didWriteData: written,
                totalBytesWritten: total,
                totalBytesExpectedToWrite: expectedBytes
            )
        case .sentData(let identifier, let sent, let total, let expected):
            guard let task = tasks.withLock({ $0.byIdentifier[identifier] }) else { return }
            let expectedBytes = expected ?? NSURLSessionTransferSizeUnknown
            task.values.withLock { values in
                values.sent = total
                values.expectedToSend = expectedBytes
            }
            (delegate as? any URLSessionTaskDelegate)?.urlSession(
                session,
                task: task,
                didSendBodyData: sent,
                totalBytesSent: total,
                totalBytesExpectedToSend: expectedBytes
            )
        case .completed(let transfer, let location, let resumeData):
            complete(transfer, location: location, resumeData: resumeData, session: session, delegate: delegate)
        }
    }

    private func complete(
        _ transfer: TransferCheckpoint,
        location: String?,
        resumeData: [UInt8]?,
        session: URLSession,
        delegate: (any URLSessionDelegate)?
    ) {
        let task = task(for: transfer)
        let outcome = transfer.outcome ?? TransferOutcome()
        let response = Self.response(outcome, transfer: transfer)
        let error = outcome.errorCode.map { code in
            Self.error(
                code: code,
                message: outcome.errorMessage ?? "",
                url: transfer.url,
                resumeData: resumeData,
                cancellationReason: outcome.cancellationReason
            )
        }
        task.values.withLock { values in
            values.state = .completed
            values.response = response
            values.error = error
            if transfer.kind == .download { values.received = transfer.bytesDone }
        }
        if let location, response != nil, error == nil, let download = task as? URLSessionDownloadTask {
            // The file exists until this call returns; the service removes it after `delivered`.
            (delegate as? any URLSessionDownloadDelegate)?.urlSession(
                session,
                downloadTask: download,
                didFinishDownloadingTo: URL(fileURLWithPath: location)
            )
        }
        if !outcome.responseBody.isEmpty, let dataTask = task as? URLSessionDataTask {
            (delegate as? any URLSessionDataDelegate)?.urlSession(
                session,
                dataTask: dataTask,
                didReceive: Data(outcome.responseBody)
            )
        }
        (delegate as? any URLSessionTaskDelegate)?.urlSession(session, task: task, didCompleteWithError: error)
        if let service { service.delivered(app: service.app, session: identifier, task: transfer.task) }
        let (idle, invalidating) = tasks.withLock { tasks in
            tasks.outstanding.remove(transfer.task)
            tasks.byIdentifier[transfer.task] = nil
            return (tasks.outstanding.isEmpty, tasks.invalidating)
        }
        guard idle else { return }
        delegate?.urlSessionDidFinishEvents(forBackgroundURLSession: session)
        if invalidating { finishInvalidation() }
    }

    /// The `HTTPURLResponse` of an outcome, when a response arrived.
    static func response(_ outcome: TransferOutcome, transfer: TransferCheckpoint) -> HTTPURLResponse? {
        guard let status = outcome.statusCode, let url = URL(string: outcome.responseURL ?? transfer.url) else {
            return nil
        }
        var fields: [String: String] = [:]
        for header in outcome.responseHeaders {
            fields[header.name] = fields[header.name].map { $0 + ", " + header.value } ?? header.value
        }
        return HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)
    }

    /// The `NSURLErrorDomain` error of a failed transfer, with resume data when there is some.
    static func error(
        code: Int,
        message: String,
        url: String,
        resumeData: [UInt8]?,
        cancellationReason: Int? = nil
    ) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let failing = URL(string: url) { info[NSURLErrorFailingURLErrorKey] = failing }
        if let resumeData { info[NSURLSessionDownloadTaskResumeData] = Data(resumeData) }
        if let cancellationReason { info[NSURLErrorBackgroundTaskCancelledReasonKey] = cancellationReason }
        return URLError(URLError.Code(rawValue: code) ?? .unknown, userInfo: info)
    }
}

/// The `userInfo` key of a failed download's resume data (Apple's name and value).
public let NSURLSessionDownloadTaskResumeData = "NSURLSessionDownloadTaskResumeData"

/// The `userInfo` key of the reason a background transfer was cancelled (Apple's name and value).
public let NSURLErrorBackgroundTaskCancelledReasonKey = "NSURLErrorBackgroundTaskCancelledReasonKey"

extension URLError {
    /// Why the system cancelled a background transfer (reference §5.4).
    public enum BackgroundTaskCancelledReason: Int, Sendable {
        /// The user force-quit the app.
        case userForceQuitApplication = 0
        /// Background updates are off for the app.
        case backgroundUpdatesDisabled = 1
        /// Battery, thermal state, network or data plan.
        case insufficientSystemResources = 2
    }

    /// The resume data of a failed download, if it can be resumed.
    public var downloadTaskResumeData: Data? { userInfo[NSURLSessionDownloadTaskResumeData] as? Data }

    /// Why the system cancelled the background transfer, if it did.
    public var backgroundTaskCancelledReason: BackgroundTaskCancelledReason? {
        (userInfo[NSURLErrorBackgroundTaskCancelledReasonKey] as? Int).flatMap(BackgroundTaskCancelledReason.init)
    }
}
