import BackgroundExecution
import BackgroundTransfers
import Synchronization
import Testing
import TransferTestServer

/// A delegate written as apps write one, recording what it is told, and whether the downloaded
/// file existed while `didFinishDownloadingTo` ran.
final class RecordingDelegate: NSObject, URLSessionDownloadDelegate, URLSessionDataDelegate, @unchecked Sendable {
    let log = Mutex<[String]>([])
    let body = Mutex<[UInt8]?>(nil)
    let location = Mutex<URL?>(nil)
    let finished = AsyncStream<Void>.makeStream()

    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        log.withLock { if $0.last != "didWriteData" { $0.append("didWriteData") } }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let status = (downloadTask.response as? HTTPURLResponse)?.statusCode ?? 0
        log.withLock { $0.append("didFinishDownloadingTo \(status)") }
        body.withLock { $0 = (try? Data(contentsOf: location)).map { [UInt8]($0) } }
        self.location.withLock { $0 = location }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        log.withLock { $0.append("didReceive \(data.count)") }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let code = (error as? URLError)?.errorCode
        let reason = (error as? URLError)?.backgroundTaskCancelledReason.map { " reason \($0.rawValue)" } ?? ""
        log.withLock { $0.append("didCompleteWithError \(code.map(String.init) ?? "nil")\(reason)") }
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        log.withLock { $0.append("urlSessionDidFinishEvents") }
        finished.continuation.yield()
    }

    func waitForEvents() async {
        var iterator = finished.stream.makeAsyncIterator()
        _ = await iterator.next()
    }
}

@Suite("Background URLSession in embedded mode", .serialized)
struct BackgroundURLSessionTests {
    private func session(
        _ harness: TransferHarness,
        _ delegate: RecordingDelegate,
        identifier: String = TransferHarness.session
    ) -> URLSession {
        withBootstrapLock {
            URLSession.bootstrap(harness.transfers)
            defer { URLSession.bootstrap(nil) }
            return URLSession(
                configuration: .background(withIdentifier: identifier),
                delegate: delegate,
                delegateQueue: nil
            )
        }
    }

    @Test("events come in Apple's order, and the file exists until didFinishDownloadingTo returns")
    func eventOrder() async throws {
        let harness = try await TransferHarness()
        let route = LoopbackRoute(size: 200_000)
        harness.server.set("/file", route)
        let delegate = RecordingDelegate()
        let session = session(harness, delegate, identifier: "order")
        // swift-format-ignore: NeverForceUnwrap
        let task = session.downloadTask(with: URL(string: harness.server.url("/file"))!)
        task.taskDescription = "book"
        task.resume()
        await delegate.waitForEvents()
        #expect(
            delegate.log.withLock { $0 } == [
                "didWriteData", "didFinishDownloadingTo 200", "didCompleteWithError nil", "urlSessionDidFinishEvents",
            ]
        )
        #expect(delegate.body.withLock { $0 }.map(TransferHarness.sha256) == TransferHarness.sha256(route.body()))
        let location = try #require(delegate.location.withLock { $0 })
        #expect(!FileManager.default.fileExists(atPath: location.path))  // removed once delivered
        #expect(task.state == .completed)
        #expect((task.response as? HTTPURLResponse)?.statusCode == 200)
        #expect(task.countOfBytesReceived == 200_000)
        await harness.stop()
    }

    @Test("a download retried after a dropped connection is delivered as the whole resource's 200, not the retry's 206")
    func retriedDownloadReportsWholeResponse() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 300_000)
        route.dropAfterBytes = 120_000
        harness.server.set("/file", route)
        let delegate = RecordingDelegate()
        let session = session(harness, delegate, identifier: "retried")
        // swift-format-ignore: NeverForceUnwrap
        let task = session.downloadTask(with: URL(string: harness.server.url("/file"))!)
        task.resume()
        await delegate.waitForEvents()
        #expect(harness.server.counters("/file").rangeStarts.count == 1, "the drop was not followed by a resume")
        // What the delegate saw in didFinishDownloadingTo, and task.response afterwards.
        #expect(delegate.log.withLock { $0 }.contains("didFinishDownloadingTo 200"), "\(delegate.log.withLock { $0 })")
        let response = try #require(task.response as? HTTPURLResponse)
        #expect(response.statusCode == 200)
        #expect(response.expectedContentLength == 300_000)
        #expect(response.value(forHTTPHeaderField: "Content-Range") == nil)
        #expect(response.value(forHTTPHeaderField: "ETag") == route.entityTag)
        #expect(delegate.body.withLock { $0 }.map(TransferHarness.sha256) == TransferHarness.sha256(route.body()))
        await harness.stop()
    }

    @Test("a 404 download finishes with its response and completes without an error, as on iOS")
    func notFound() async throws {
        let harness = try await TransferHarness()
        let delegate = RecordingDelegate()
        let session = session(harness, delegate, identifier: "missing")
        // swift-format-ignore: NeverForceUnwrap
        session.downloadTask(with: URL(string: harness.server.url("/missing"))!).resume()
        await delegate.waitForEvents()
        #expect(
            delegate.log.withLock { $0 } == [
                "didWriteData", "didFinishDownloadingTo 404", "didCompleteWithError nil", "urlSessionDidFinishEvents",
            ]
        )
        await harness.stop()
    }

    @Test("cancel(byProducingResumeData:) hands back resume data that downloadTask(withResumeData:) finishes")
    func cancelAndResume() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 400_000)
        route.slowChunk = (bytes: 16_000, pauseMilliseconds: 10)
        harness.server.set("/slow", route)
        let delegate = RecordingDelegate()
        let session = session(harness, delegate, identifier: "resume")
        // swift-format-ignore: NeverForceUnwrap
        let task = session.downloadTask(with: URL(string: harness.server.url("/slow"))!)
        task.resume()
        // Until the app has heard of bytes written, not only the server sent them: under load the
        // engine may not have read any yet, and a cancel then has nothing to resume (nil).
        while harness.server.counters("/slow").bytesSent < 100_000 || task.countOfBytesReceived == 0 {
            try await Task.sleep(for: .milliseconds(5))
        }
        let data = try #require(await task.cancelByProducingResumeData())
        await delegate.waitForEvents()
        #expect(delegate.log.withLock { $0 }.suffix(2) == ["didCompleteWithError -999", "urlSessionDidFinishEvents"])
        harness.server.change("/slow") { $0.slowChunk = nil }
        delegate.log.withLock { $0 = [] }
        session.downloadTask(withResumeData: data).resume()
        await delegate.waitForEvents()
        #expect(delegate.body.withLock { $0 }.map(TransferHarness.sha256) == TransferHarness.sha256(route.body()))
        // Finished by a 206, delivered as the whole resource's 200 (docs/transfers.md, resume data).
        #expect(delegate.log.withLock { $0 }.contains("didFinishDownloadingTo 200"), "\(delegate.log.withLock { $0 })")
        // The resume asks for exactly the bytes the resume data says the partial file holds.
        let document = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let held = try #require(document?["bytes"] as? Int)
        #expect(held > 0)
        #expect(harness.server.counters("/slow").rangeStarts == [Int64(held)])
        await harness.stop()
    }

    @Test("the configuration's isDiscretionary and network rules reach the system, and explain the wait")
    func discretionaryConfiguration() async throws {
        let harness = try await TransferHarness(device: DeviceConditions(powerSource: .battery, network: .cellular))
        let route = LoopbackRoute(size: 20_000)
        harness.server.set("/file", route)
        let delegate = RecordingDelegate()
        let configuration = URLSessionConfiguration.background(withIdentifier: "discretionary")
        configuration.isDiscretionary = true
        configuration.allowsCellularAccess = false
        let session = withBootstrapLock {
            URLSession.bootstrap(harness.transfers)
            defer { URLSession.bootstrap(nil) }
            return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        }
        // swift-format-ignore: NeverForceUnwrap
        let task = session.downloadTask(with: URL(string: harness.server.url("/file"))!)
        task.priority = URLSessionTask.highPriority
        task.resume()
        let why = try #require(harness.transfers.eligibility(session: "discretionary", task: task.taskIdentifier))
        #expect(why.unmet == [.requiresExternalPower, .cellularNotAllowed, .requiresUnmeteredNetwork])
        harness.transfers.flushCheckpoints()  // the submit is written with the next batch
        let stored = try harness.store.transfers(of: TransferHarness.app).first { $0.session == "discretionary" }
        #expect(stored?.requirements?.priority == Double(URLSessionTask.highPriority))
        harness.transfers.setDevice(DeviceConditions(powerSource: .externalPower, network: .wifi))
        await delegate.waitForEvents()
        #expect(delegate.log.withLock { $0 }.suffix(2) == ["didCompleteWithError nil", "urlSessionDidFinishEvents"])
        await harness.stop()
    }

    @Test("force quit: the delegate hears -999 with URLError.backgroundTaskCancelledReason .userForceQuitApplication")
    func forceQuitReason() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 300_000)
        route.stallAtOffset = 50_000
        harness.server.set("/file", route)
        let delegate = RecordingDelegate()
        let session = session(harness, delegate, identifier: "quit")
        // swift-format-ignore: NeverForceUnwrap
        session.downloadTask(with: URL(string: harness.server.url("/file"))!).resume()
        while harness.server.counters("/file").bytesSent < 50_000 { try await Task.sleep(for: .milliseconds(5)) }
        harness.transfers.forceQuit()
        await delegate.waitForEvents()
        #expect(
            delegate.log.withLock { $0 }.suffix(2) == [
                "didCompleteWithError -999 reason 0", "urlSessionDidFinishEvents",
            ]
        )
        await harness.stop()
    }

    @Test("an upload from a file delivers the response body, then completes")
    func upload() async throws {
        let harness = try await TransferHarness()
        harness.server.set("/upload", LoopbackRoute(size: 0))
        let file = try harness.makeFile("Library/upload.bin", size: 10_000)
        let delegate = RecordingDelegate()
        let session = session(harness, delegate, identifier: "upload")
        // swift-format-ignore: NeverForceUnwrap
        var request = URLRequest(url: URL(string: harness.server.url("/upload"))!)
        request.httpMethod = "POST"
        session.uploadTask(with: request, fromFile: URL(fileURLWithPath: file)).resume()
        await delegate.waitForEvents()
        #expect(
            delegate.log.withLock { $0 } == [
                "didReceive 14", "didCompleteWithError nil", "urlSessionDidFinishEvents",
            ]
        )
        await harness.stop()
    }

    @Test("completion handlers on a background session fail with Apple's message")
    @MainActor
    func completionHandlersRefused() async throws {
        let harness = try await TransferHarness()
        let faults = Mutex<[String]>([])
        BackgroundFault.hook = { fault in faults.withLock { $0.append(fault.message) } }
        defer { BackgroundFault.hook = nil }
        let session = session(harness, RecordingDelegate(), identifier: "handlers")
        // swift-format-ignore: NeverForceUnwrap
        let url = URL(string: harness.server.url("/x"))!
        _ = session.dataTask(with: url) { _, _, _ in }
        _ = session.downloadTask(with: url) { _, _, _ in }
        _ = session.uploadTask(with: URLRequest(url: url), fromFile: url) { _, _, _ in }
        _ = try? await session.data(from: url)
        _ = session.uploadTask(with: URLRequest(url: url), from: Data())
        #expect(
            faults.withLock { $0 } == Array(repeating: URLSession.backgroundCompletionHandlerMessage, count: 4)
                + ["Upload tasks from NSData are not supported in background sessions."]
        )
        #expect(
            URLSession.backgroundCompletionHandlerMessage
                == "Completion handler blocks are not supported in background sessions. Use a delegate instead."
        )
        await harness.stop()
    }

    @Test("URLSession.shared still works beside background sessions (FoundationNetworking's engine)")
    func sharedSession() async throws {
        let harness = try await TransferHarness()
        let route = LoopbackRoute(size: 3_000)
        harness.server.set("/plain", route)
        // swift-format-ignore: NeverForceUnwrap
        let (data, response) = try await URLSession.shared.data(from: URL(string: harness.server.url("/plain"))!)
        #expect([UInt8](data) == route.body())
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        await harness.stop()
    }
}
