public import Foundation

/// The session-level events, with Apple's names; every method is optional.
///
/// Not `Sendable` here (Apple's is, imported `@preconcurrency`): app delegates with mutable
/// state compile in Swift 6 mode without warnings that Apple's would give.
public protocol URLSessionDelegate: NSObjectProtocol {
    /// The session was invalidated (`finishTasksAndInvalidate()`, `invalidateAndCancel()`).
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)
    /// Every event the system held for the background session was delivered (reference §5.3):
    /// call the completion handler from `application(_:handleEventsForBackgroundURLSession:completionHandler:)`
    /// on the main queue.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession)
}

/// The task-level events, with Apple's names; every method is optional.
public protocol URLSessionTaskDelegate: URLSessionDelegate {
    /// The task ended: `error` is `nil` when a response arrived (whatever its status code).
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)
    /// Body bytes of an upload were sent.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    )
}

/// The events of data and upload tasks; every method is optional.
public protocol URLSessionDataDelegate: URLSessionTaskDelegate {
    /// Response body bytes arrived (for a background upload: the whole body, once, before the
    /// task completes).
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)
}

/// The events of download tasks.
public protocol URLSessionDownloadDelegate: URLSessionTaskDelegate {
    /// The download finished: the file at `location` exists until this method returns, so move
    /// or read it here (reference §5.3). Called for HTTP errors too (a 404's body), as on iOS.
    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didFinishDownloadingTo location: URL
    )
    /// Body bytes were written to the file.
    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    )
    /// A download created from resume data continues at `fileOffset`.
    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64
    )
}

extension URLSessionDelegate {
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {}
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {}
}

extension URLSessionTaskDelegate {
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
    public func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {}
}

extension URLSessionDataDelegate {
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
}

extension URLSessionDownloadDelegate {
    public func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {}
    public func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64
    ) {}
}
