import BackgroundExecution
import BackgroundStore
import BackgroundTransfers

// A download in a background session, in embedded mode: the transfer runs in this process,
// checkpointed to a store, and a later launch that recreates the session with the same
// identifier resumes it from its last checkpoint (after kill -9 too).
//
//   TransferExample <url> <container> <store> [--launch-only]
//
// It prints "resumed <bytes>" for a transfer it found from an earlier launch, "progress <bytes>"
// as bytes land, "finished <bytes> <sha-256> status <HTTP status>" when the body is delivered,
// "completed", then exits 0 once every event was delivered.
let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: TransferExample <url> <container> <store>\n".utf8))
    exit(64)
}
let app = AppID("com.example.transfers")
let transfers = EmbeddedTransfers(
    configuration: .init(
        app: app,
        container: try TransferContainer(root: arguments[2]),
        store: try BackgroundStore(path: arguments[3])
    )
)
URLSession.bootstrap(transfers)

final class Downloader: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        say("progress \(totalBytesWritten)")
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // The file exists until this method returns.
        var hash = SHA256()
        let data = (try? Data(contentsOf: location)) ?? Data()
        hash.update(data)
        let status = (downloadTask.response as? HTTPURLResponse)?.statusCode ?? 0
        say("finished \(data.count) \(hash.hexDigest()) status \(status)")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        say(error.map { "failed \($0)" } ?? "completed")
        failed = error != nil
    }

    private var failed = false

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        // Every event was delivered (and acknowledged): the transfer is forgotten once the
        // service's last checkpoints are written, which an app that exits at once waits for.
        transfers.flushCheckpoints()
        exit(failed ? 1 : 0)
    }
}

/// One unbuffered line on standard output.
@Sendable func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let downloader = Downloader()
let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.transfers.downloads")
let session = URLSession(configuration: configuration, delegate: downloader, delegateQueue: nil)
session.getAllTasks { tasks in
    if let task = tasks.first {
        say("resumed \(task.countOfBytesReceived)")
    } else {
        // swift-format-ignore: NeverForceUnwrap
        session.downloadTask(with: URL(string: arguments[1])!).resume()
    }
}
dispatchMain()
