// App code written the way iOS apps write a background download manager in Swift 6 mode: a
// delegate class with its state behind a lock (delegate methods arrive on the session's queue),
// the completion handler from the app delegate called on the main queue, and ordinary
// URLSession.shared code beside it. Only the import differs from iOS.

import BackgroundExecution

final class BackgroundDownloadManager: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    struct Finished: Sendable {
        let url: URL
        let savedTo: URL?
        let statusCode: Int
        let failed: Bool
    }

    private let lock = NSLock()
    private var completionHandlers: [String: () -> Void] = [:]
    private var progress: [Int: Double] = [:]
    private var finished: [Finished] = []
    private var backgroundSession: URLSession!
    private let documents: URL
    var onAllEventsDelivered: (@Sendable ([Finished]) -> Void)?

    init(identifier: String, documents: URL) {
        self.documents = documents
        super.init()
        let config = URLSessionConfiguration.background(withIdentifier: identifier)
        config.isDiscretionary = false
        config.sessionSendsLaunchEvents = true
        config.httpMaximumConnectionsPerHost = 2
        config.timeoutIntervalForRequest = 20
        backgroundSession = URLSession(configuration: config, delegate: self, delegateQueue: nil)
    }

    func startDownload(from url: URL, description: String) {
        let downloadTask = backgroundSession.downloadTask(with: url)
        downloadTask.taskDescription = description
        downloadTask.earliestBeginDate = Date()
        downloadTask.countOfBytesClientExpectsToReceive = 1_000_000
        downloadTask.priority = URLSessionTask.highPriority
        downloadTask.resume()
    }

    func fetchManifest(from url: URL) async throws -> Int {
        let (data, response) = try await URLSession.shared.data(from: url)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { return -1 }
        return data.count
    }

    func addCompletionHandler(identifier: String, handler: @escaping () -> Void) {
        lock.lock()
        completionHandlers[identifier] = handler
        lock.unlock()
    }

    // MARK: - URLSessionDownloadDelegate

    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        guard totalBytesExpectedToWrite != NSURLSessionTransferSizeUnknown else { return }
        lock.lock()
        progress[downloadTask.taskIdentifier] = Double(totalBytesWritten) / Double(totalBytesExpectedToWrite)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let response = downloadTask.response as? HTTPURLResponse
        // swift-format-ignore: NeverForceUnwrap
        let source = downloadTask.originalRequest!.url!
        var saved: URL?
        if response?.statusCode == 200 {
            let destination = documents.appendingPathComponent(downloadTask.taskDescription ?? source.lastPathComponent)
            try? FileManager.default.removeItem(at: destination)
            do {
                try FileManager.default.moveItem(at: location, to: destination)
                saved = destination
            } catch {
                print("could not move the download: \(error)")
            }
        }
        lock.lock()
        finished.append(Finished(url: source, savedTo: saved, statusCode: response?.statusCode ?? 0, failed: false))
        lock.unlock()
    }

    // MARK: - URLSessionTaskDelegate

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let error else { return }
        print("Download task completed with error: \(error.localizedDescription)")
        lock.lock()
        // swift-format-ignore: NeverForceUnwrap
        finished.append(Finished(url: task.originalRequest!.url!, savedTo: nil, statusCode: 0, failed: true))
        lock.unlock()
    }

    // MARK: - URLSessionDelegate

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        lock.lock()
        let handler = completionHandlers.removeValue(forKey: session.configuration.identifier ?? "")
        let all = finished
        lock.unlock()
        DispatchQueue.main.async {
            handler?()
        }
        onAllEventsDelivered?(all)
    }
}
