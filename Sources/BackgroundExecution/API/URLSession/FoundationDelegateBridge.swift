import Foundation
import FoundationNetworking
import Synchronization

/// Forwards FoundationNetworking's delegate calls for a default or ephemeral session to the
/// app's delegate, with this module's task objects.
final class FoundationDelegateBridge: NSObject, FoundationNetworking.URLSessionDataDelegate,
    FoundationNetworking.URLSessionDownloadDelegate, @unchecked Sendable
{
    private let tasks = Mutex<[ObjectIdentifier: URLSessionTask]>([:])
    private let owner = Mutex<URLSession?>(nil)

    var session: URLSession? {
        get { owner.withLock { $0 } }
        set { owner.withLock { $0 = newValue } }
    }

    func track(_ task: URLSessionTask) {
        guard let foundation = task.foundation else { return }
        tasks.withLock { $0[ObjectIdentifier(foundation)] = task }
    }

    func liveTasks() -> [URLSessionTask] {
        tasks.withLock { Array($0.values) }.filter { $0.state != .completed }.sorted {
            $0.taskIdentifier < $1.taskIdentifier
        }
    }

    private func ours(_ task: FoundationNetworking.URLSessionTask) -> URLSessionTask? {
        tasks.withLock { $0[ObjectIdentifier(task)] }
    }

    func urlSession(_ session: FoundationNetworking.URLSession, didBecomeInvalidWithError error: (any Error)?) {
        guard let ours = self.session else { return }
        ours.delegate?.urlSession(ours, didBecomeInvalidWithError: error)
        self.session = nil
    }

    func urlSession(
        _ session: FoundationNetworking.URLSession,
        task: FoundationNetworking.URLSessionTask,
        didCompleteWithError error: (any Error)?
    ) {
        guard let ours = self.session, let task = self.ours(task) else { return }
        (ours.delegate as? any URLSessionTaskDelegate)?.urlSession(ours, task: task, didCompleteWithError: error)
        tasks.withLock { $0[ObjectIdentifier(task.foundation!)] = nil }
    }

    func urlSession(
        _ session: FoundationNetworking.URLSession,
        task: FoundationNetworking.URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard let ours = self.session, let task = self.ours(task) else { return }
        (ours.delegate as? any URLSessionTaskDelegate)?.urlSession(
            ours,
            task: task,
            didSendBodyData: bytesSent,
            totalBytesSent: totalBytesSent,
            totalBytesExpectedToSend: totalBytesExpectedToSend
        )
    }

    func urlSession(
        _ session: FoundationNetworking.URLSession,
        dataTask: FoundationNetworking.URLSessionDataTask,
        didReceive data: Data
    ) {
        guard let ours = self.session, let task = self.ours(dataTask) as? URLSessionDataTask else { return }
        (ours.delegate as? any URLSessionDataDelegate)?.urlSession(ours, dataTask: task, didReceive: data)
    }

    func urlSession(
        _ session: FoundationNetworking.URLSession,
        downloadTask: FoundationNetworking.URLSessionDownloadTask,
        didFinishDownloadingTo location: URL
    ) {
        guard let ours = self.session, let task = self.ours(downloadTask) as? URLSessionDownloadTask else { return }
        (ours.delegate as? any URLSessionDownloadDelegate)?.urlSession(
            ours,
            downloadTask: task,
            didFinishDownloadingTo: location
        )
    }

    func urlSession(
        _ session: FoundationNetworking.URLSession,
        downloadTask: FoundationNetworking.URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        guard let ours = self.session, let task = self.ours(downloadTask) as? URLSessionDownloadTask else { return }
        (ours.delegate as? any URLSessionDownloadDelegate)?.urlSession(
            ours,
            downloadTask: task,
            didWriteData: bytesWritten,
            totalBytesWritten: totalBytesWritten,
            totalBytesExpectedToWrite: totalBytesExpectedToWrite
        )
    }
}
