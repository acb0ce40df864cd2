// daemon-transfer-test-app: a background download written as iOS apps write it (an @main app
// delegate, a URLSessionDownloadDelegate, the completion handler kept from
// `handleEventsForBackgroundURLSession` and called from `urlSessionDidFinishEvents`), run under
// backgroundd for BackgroundDaemonTests. Only `import BackgroundExecution` differs from iOS code.
//
// Arguments: `--log <path>` appends every line it prints to that file (the daemon's launches
// write nowhere a test reads); `--download <url>` starts a download of the URL at launch, then
// the process exits (the user left the app); `--stay` keeps it running after that instead;
// `--download-when <path>` makes the session at launch and starts the download (and stays) only
// once a file exists at `path` (a test makes it while the daemon is away).
// Every delegate call is logged, one line each, in the order it happens.

import BackgroundExecution
import Foundation

@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        Log.say("launched \(application.applicationState)")
        if application.applicationState != .background {
            _ = Downloader.shared.session  // opened by the user: reattach, hear what finished meanwhile
        }
        if let url = Log.argument("--download").flatMap(URL.init(string:)),
            let trigger = Log.argument("--download-when")
        {
            _ = Downloader.shared.session
            Log.say("session made")
            Self.startWhenExists(trigger, url)
        } else if let url = Log.argument("--download").flatMap(URL.init(string:)) {
            let task = Downloader.shared.session.downloadTask(with: url)
            task.taskDescription = "book"
            task.resume()
            Log.say("started task \(task.taskIdentifier)")
            if !CommandLine.arguments.contains("--stay") {
                // The user leaves: the process ends soon after, its download goes on in backgroundd.
                DispatchQueue.main.asyncAfter(deadline: .now() + 0.3) {
                    Log.say("exiting")
                    exit(0)
                }
            }
        }
        return true
    }

    /// Starts the download once a file exists at `trigger`, looking every 50 ms.
    static func startWhenExists(_ trigger: String, _ url: URL) {
        guard FileManager.default.fileExists(atPath: trigger) else {
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.05) { startWhenExists(trigger, url) }
            return
        }
        let task = Downloader.shared.session.downloadTask(with: url)
        task.resume()
        Log.say("started task \(task.taskIdentifier)")
    }

    func application(
        _ application: UIApplication,
        handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) {
        Log.say("handleEvents \(identifier)")
        Downloader.shared.completionHandler = completionHandler
        _ = Downloader.shared.session  // recreated with the same identifier: reattached
    }
}

final class Downloader: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    static let shared = Downloader()
    static let identifier = "com.example.transfers.downloads"

    var completionHandler: (() -> Void)?

    lazy var session: URLSession = {
        let configuration = URLSessionConfiguration.background(withIdentifier: Downloader.identifier)
        configuration.sessionSendsLaunchEvents = true
        return URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }()

    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        Log.sayOnce("didWriteData \(downloadTask.taskIdentifier)")
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let data = FileManager.default.contents(atPath: location.path) ?? Data()
        var status = stat()
        let owner = stat(location.path, &status) != 0 ? "none" : status.st_uid == getuid() ? "me" : "\(status.st_uid)"
        Log.say(
            "didFinishDownloadingTo \(downloadTask.taskIdentifier) exists \(data.count) bytes sha256 \(Log.sha256(data)) owner \(owner)"
        )
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        if let error = error as? URLError {
            let reason = error.backgroundTaskCancelledReason.map { " reason \($0.rawValue)" } ?? ""
            Log.say("didCompleteWithError \(task.taskIdentifier) \(error.errorCode)\(reason)")
        } else {
            Log.say("didCompleteWithError \(task.taskIdentifier) nil status \(status)")
        }
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        Log.say("urlSessionDidFinishEvents")
        DispatchQueue.main.async {
            if let handler = self.completionHandler {
                self.completionHandler = nil
                Log.say("completionHandler")
                handler()
            }
        }
    }
}
