// swift-format-ignore-file
// App code in the shape of Zotero's iOS BackgroundUploader (a background session with extra
// headers, an app-group container, uploads of multipart bodies written to files, the task
// identifier kept to find the upload again after a relaunch), with ordinary URLSession.shared
// code beside it. Written as the iOS app writes it; only the import differs from iOS.
import BackgroundExecution

struct BackgroundUpload: Codable, Equatable {
    let key: String
    let fileUrl: URL
    let remoteUrl: URL
}

final class BackgroundUploaderContext {
    private var uploads: [Int: BackgroundUpload] = [:]
    private let queue = DispatchQueue(label: "org.zotero.BackgroundUploaderContext")

    func saveUpload(_ upload: BackgroundUpload, taskId: Int) {
        queue.sync { uploads[taskId] = upload }
    }

    func loadUpload(for taskId: Int) -> BackgroundUpload? {
        queue.sync { uploads[taskId] }
    }

    func deleteUpload(with taskId: Int) {
        queue.sync { uploads[taskId] = nil }
    }
}

class BackgroundUploader: NSObject {
    static let sessionIdentifier = "org.zotero.background.upload.session"

    private let context = BackgroundUploaderContext()
    private var session: URLSession!
    private var finishedUploads: [BackgroundUpload] = []
    private var responses: [Int: Data] = [:]

    var backgroundCompletionHandler: (() -> Void)?
    var uploadFinished: ((BackgroundUpload, Int, Data?) -> Void)?

    init(apiVersion: Int, appGroup: String) {
        super.init()

        let configuration = URLSessionConfiguration.background(withIdentifier: BackgroundUploader.sessionIdentifier)
        configuration.httpAdditionalHeaders = ["Zotero-API-Version": apiVersion.description]
        configuration.sharedContainerIdentifier = appGroup
        configuration.networkServiceType = .background
        configuration.sessionSendsLaunchEvents = true
        configuration.timeoutIntervalForRequest = 30
        configuration.timeoutIntervalForResource = 24 * 3600
        self.session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    // MARK: - Actions

    func upload(_ upload: BackgroundUpload, filename: String, mimeType: String, parameters: [String: String]) throws {
        let boundary = "Boundary-\(UUID().uuidString)"
        let bodyUrl = upload.fileUrl.deletingLastPathComponent().appendingPathComponent("\(upload.key).multipart")
        try createMultipartBody(at: bodyUrl, file: upload.fileUrl, filename: filename, mimeType: mimeType,
                                parameters: parameters, boundary: boundary)

        var request = URLRequest(url: upload.remoteUrl)
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")

        let task = self.session.uploadTask(with: request, fromFile: bodyUrl)
        task.taskDescription = upload.key
        task.countOfBytesClientExpectsToSend = Int64((try? FileManager.default.attributesOfItem(atPath: bodyUrl.path)[.size] as? Int) ?? 0)
        task.countOfBytesClientExpectsToReceive = 1024
        self.context.saveUpload(upload, taskId: task.taskIdentifier)
        task.resume()
    }

    /// Asks the API whether the file exists yet, with the ordinary shared session.
    func checkRemoteFile(at url: URL, completion: @escaping (Int?) -> Void) {
        let task = URLSession.shared.dataTask(with: url) { data, response, error in
            guard error == nil, let response = response as? HTTPURLResponse else {
                completion(nil)
                return
            }
            completion(response.statusCode)
        }
        task.resume()
    }

    func pendingTaskCount(completion: @escaping (Int) -> Void) {
        self.session.getAllTasks { tasks in
            completion(tasks.count)
        }
    }

    private func createMultipartBody(at url: URL, file: URL, filename: String, mimeType: String,
                                     parameters: [String: String], boundary: String) throws {
        var body = Data()
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            body.append("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(key)\"\r\n\r\n\(value)\r\n".data(using: .utf8)!)
        }
        body.append("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(filename)\"\r\n".data(using: .utf8)!)
        body.append("Content-Type: \(mimeType)\r\n\r\n".data(using: .utf8)!)
        body.append(try Data(contentsOf: file))
        body.append("\r\n--\(boundary)--\r\n".data(using: .utf8)!)
        try body.write(to: url)
    }

    private func completeBackgroundSession() {
        DispatchQueue.main.async { [weak self] in
            self?.backgroundCompletionHandler?()
            self?.backgroundCompletionHandler = nil
        }
    }
}

extension BackgroundUploader: URLSessionDelegate {
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        self.finishedUploads = []
        self.completeBackgroundSession()
    }
}

extension BackgroundUploader: URLSessionTaskDelegate {
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        // Progress for the UI.
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let upload = self.context.loadUpload(for: task.taskIdentifier) else { return }
        self.finishedUploads.append(upload)
        self.context.deleteUpload(with: task.taskIdentifier)
        let statusCode = (task.response as? HTTPURLResponse)?.statusCode ?? -1
        self.uploadFinished?(upload, error == nil ? statusCode : -1, self.responses.removeValue(forKey: task.taskIdentifier))
    }
}

extension BackgroundUploader: URLSessionDataDelegate {
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        self.responses[dataTask.taskIdentifier, default: Data()].append(data)
    }
}

// In the app delegate:
final class UploaderAppDelegate: UIResponder, UIApplicationDelegate {
    var uploader: BackgroundUploader?

    func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String, completionHandler: @escaping () -> Void) {
        uploader?.backgroundCompletionHandler = completionHandler
    }
}
