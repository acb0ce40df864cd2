import BackgroundSimulator
import BackgroundSimulatorTesting
import Dispatch
import Foundation
import Synchronization
import Testing

/// A background-session download delegate written as iOS apps write it; it records what it hears.
final class RecordingDownloader: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    let log = Seen<String>()
    /// The completion handlers kept (the simulator runs app code on the main thread only).
    nonisolated(unsafe) var handlers: [() -> Void] = []
    let identifier: String
    private(set) var session: URLSession!

    init(identifier: String = "com.example.downloads", sendsLaunchEvents: Bool = true) {
        self.identifier = identifier
        super.init()
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        configuration.sessionSendsLaunchEvents = sendsLaunchEvents
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let size = (try? FileManager.default.attributesOfItem(atPath: location.path)[.size] as? Int) ?? -1
        log.append("didFinishDownloadingTo \(size)")
    }

    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        log.append("didWriteData \(totalBytesWritten)/\(totalBytesExpectedToWrite)")
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        log.append("didSendBodyData \(totalBytesSent)/\(totalBytesExpectedToSend)")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error = error as? URLError, error.errorCode == -999, error.downloadTaskResumeData != nil {
            log.append("didCompleteWithError -999 with resume data")
        } else if let error = error as? URLError {
            log.append(
                "didCompleteWithError \(error.errorCode) reason \(error.backgroundTaskCancelledReason.map { "\($0.rawValue)" } ?? "-")"
            )
        } else {
            log.append("didCompleteWithError nil \((task.response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        log.append("urlSessionDidFinishEvents")
        // Apple: call the stored handler on the main queue (here the delegate runs there already).
        let stored = handlers
        handlers = []
        for handler in stored { handler() }
    }

    /// Starts a download of `url`.
    @discardableResult
    func download(_ url: String) -> URLSessionDownloadTask {
        let task = session.downloadTask(with: URL(string: url)!)
        task.resume()
        return task
    }
}

/// The app delegate: keeps the completion handler, as Apple's sample does.
@MainActor
final class DownloadingAppDelegate: NSObject, UIApplicationDelegate {
    let downloader: RecordingDownloader
    var onEnterBackground: (() -> Void)?
    /// Whether the completion handler is kept for `urlSessionDidFinishEvents` to call (an app
    /// that forgets it: false).
    var keepsCompletionHandler = true

    init(_ downloader: RecordingDownloader) { self.downloader = downloader }

    func application(
        _ application: UIApplication,
        handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) {
        downloader.log.append("handleEventsForBackgroundURLSession \(identifier)")
        if keepsCompletionHandler { downloader.handlers.append(completionHandler) }
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        onEnterBackground?()
    }
}

@MainActor
@Suite("The simulator's virtual network runs background URLSession transfers", .simulatorFaultsFailTheTest)
struct SimulatedTransferTests {
    static let url = "https://example.com/book.epub"

    /// Installs an app whose launch code makes a downloader (recreating its session, as apps do)
    /// and hands it to `recorder`.
    func install(_ simulator: Simulator, _ recorder: Seen<RecordingDownloader>) -> AppID {
        simulator.install("com.example.reader") { process in
            let downloader = RecordingDownloader()
            let delegate = DownloadingAppDelegate(downloader)
            process.delegate = delegate
            process.keep(downloader)
            recorder.append(downloader)
        }
    }

    @Test(
        "resume() from a background queue: foreground when the app is in the foreground, discretionary in the background"
    )
    func resumeOffTheMainThread() async {
        let simulator = Simulator()
        let recorder = Seen<RecordingDownloader>()
        let app = simulator.install("com.example.reader") { process in
            let downloader = RecordingDownloader()
            let delegate = DownloadingAppDelegate(downloader)
            delegate.onEnterBackground = {
                let task = downloader.session.downloadTask(with: URL(string: "https://example.com/later")!)
                DispatchQueue.global().async { task.resume() }
            }
            process.delegate = delegate
            process.keep(downloader)
            recorder.append(downloader)
            let task = downloader.session.downloadTask(with: URL(string: Self.url)!)
            DispatchQueue.global().async { task.resume() }
        }
        simulator.user.open(app)
        simulator.runPending()
        #expect(await settle(simulator) { simulator.transfers(of: app).count == 1 })
        let first = simulator.transfers(of: app)
        #expect(first.count == 1)
        #expect(first.first?.checkpoint.requirements?.createdInBackground == false)
        #expect(first.first?.checkpoint.requirements?.isDiscretionary == false)
        simulator.user.goHome()
        simulator.runPending()
        #expect(await settle(simulator) { simulator.transfers(of: app).count == 2 })
        let later = simulator.transfers(of: app).first { $0.checkpoint.url.hasSuffix("/later") }
        #expect(
            later?.checkpoint.requirements?.createdInBackground == true,
            "resumed off the main thread in the background"
        )
        #expect(later?.checkpoint.requirements?.isDiscretionary == true)
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test(
        "In the foreground: progress by quarters at the network's bandwidth, then the file, the completion, the end of events"
    )
    func foregroundDownload() throws {
        let simulator = Simulator()
        simulator.network.serve(Self.url, VirtualResource(size: 2_000_000))
        simulator.network.latency = .zero
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder)
        simulator.user.open(app)
        simulator.runPending()
        let downloader = try #require(recorder.all.first)
        downloader.download(Self.url)
        simulator.advance(by: .seconds(1))
        #expect(simulator.transfers(of: app).first?.bytes == 1_000_000, "1 MB/s for 1 s")
        simulator.advance(by: .seconds(2))
        #expect(
            downloader.log.all == [
                "didWriteData 500000/2000000", "didWriteData 1000000/2000000", "didWriteData 1500000/2000000",
                "didFinishDownloadingTo 2000000", "didCompleteWithError nil 200", "urlSessionDidFinishEvents",
            ]
        )
        #expect(simulator.transfers(of: app).isEmpty, "delivered: forgotten")
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test(
        "A suspended app is resumed for its events: handleEvents, the events, urlSessionDidFinishEvents, in Apple's order"
    )
    func relaunchOrderSuspended() throws {
        let simulator = Simulator()
        simulator.network.serve(Self.url, VirtualResource(size: 5_000_000))
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder)
        simulator.user.open(app)
        simulator.runPending()
        let downloader = try #require(recorder.all.first)
        downloader.download(Self.url)
        simulator.user.goHome()
        simulator.advance(by: .seconds(2))
        #expect(simulator.state(of: app) == .suspended)
        simulator.advance(by: .seconds(10))
        let heard = downloader.log.all.filter { !$0.hasPrefix("didWriteData") }
        #expect(
            heard == [
                "handleEventsForBackgroundURLSession com.example.downloads", "didFinishDownloadingTo 5000000",
                "didCompleteWithError nil 200", "urlSessionDidFinishEvents",
            ]
        )
        #expect(simulator.state(of: app) == .suspended, "the completion handler let it suspend again")
        let activities = simulator.events.compactMap { event -> TransferActivity? in
            if case .transfer(let activity) = event.kind { return activity }
            return nil
        }
        #expect(activities.contains(.relaunched(app, sessions: ["com.example.downloads"])))
        #expect(activities.contains(.eventsHandled(app, session: "com.example.downloads")))
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test(
        "An app that never calls the completion handler is let go 15 s after it was resumed, as under backgroundd (the core's TransferEventWakes)"
    )
    func eventsTimeLimit() throws {
        let simulator = Simulator()
        simulator.network.serve(Self.url, VirtualResource(size: 5_000_000))
        let recorder = Seen<RecordingDownloader>()
        let app = simulator.install("com.example.reader") { process in
            let downloader = RecordingDownloader()
            let delegate = DownloadingAppDelegate(downloader)
            delegate.keepsCompletionHandler = false
            process.delegate = delegate
            process.keep(downloader)
            recorder.append(downloader)
        }
        simulator.user.open(app)
        simulator.runPending()
        let downloader = try #require(recorder.all.first)
        downloader.download(Self.url)
        simulator.user.goHome()
        simulator.advance(by: .seconds(2))
        #expect(simulator.state(of: app) == .suspended)
        simulator.advance(by: .seconds(10))
        let woken = try #require(
            simulator.events.first { event in
                if case .transfer(.relaunched(app, _)) = event.kind { true } else { false }
            }?.at
        )
        #expect(downloader.log.all.contains("urlSessionDidFinishEvents"))
        simulator.run(until: woken + .seconds(14))
        #expect(simulator.state(of: app) == .background, "held by the URLSession events assertion")
        simulator.run(until: woken + .seconds(16))
        #expect(simulator.state(of: app) == .suspended, "let go when the wake's 15 s ran out")
        #expect(simulator.reports.isEmpty, "not ended by the watchdog")
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test(
        "An app the system ended is launched in the background: its launch code recreates the session, then the events"
    )
    func relaunchAfterTermination() throws {
        let simulator = Simulator()
        simulator.network.serve(Self.url, VirtualResource(size: 5_000_000))
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder)
        simulator.user.open(app)
        simulator.runPending()
        try #require(recorder.all.first).download(Self.url)
        simulator.user.goHome()
        simulator.advance(by: .seconds(2))
        simulator.reportMemoryPressure(.warning)  // the suspended app is reclaimed
        #expect(simulator.state(of: app).hasProcess == false)
        simulator.advance(by: .seconds(10))
        #expect(recorder.all.count == 2, "launched again")
        let relaunched = try #require(recorder.all.last)
        #expect(
            relaunched.log.all == [
                "handleEventsForBackgroundURLSession com.example.downloads", "didFinishDownloadingTo 5000000",
                "didCompleteWithError nil 200", "urlSessionDidFinishEvents",
            ]
        )
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("Force quit cancels with -999 and reason 0; nothing relaunches the app; opening it delivers the cancellation")
    func forceQuit() throws {
        let simulator = Simulator()
        simulator.network.serve(Self.url, VirtualResource(size: 5_000_000))
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder)
        simulator.user.open(app)
        simulator.runPending()
        try #require(recorder.all.first).download(Self.url)
        simulator.advance(by: .seconds(1))
        simulator.user.forceQuit(app)
        simulator.advance(by: .seconds(60))
        #expect(recorder.all.count == 1, "not relaunched")
        simulator.user.open(app)
        simulator.advance(by: .seconds(1))
        #expect(recorder.all.last?.log.all == ["didCompleteWithError -999 reason 0", "urlSessionDidFinishEvents"])
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("The network goes away: the transfer pauses where it was and resumes there; it never completes offline")
    func networkDown() throws {
        let simulator = Simulator()
        simulator.network.serve(Self.url, VirtualResource(size: 3_000_000))
        simulator.network.latency = .zero
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder)
        simulator.user.open(app)
        simulator.runPending()
        try #require(recorder.all.first).download(Self.url)
        simulator.advance(by: .seconds(1))
        simulator.device.setNetwork(.none)
        simulator.advance(by: .seconds(60))
        #expect(simulator.transfers(of: app).first?.bytes == 1_000_000)
        #expect(simulator.transfers(of: app).first?.phase == .waiting)
        #expect(
            simulator.transferEligibility(of: app, identifier: "com.example.downloads#1")?.unmet == [.requiresNetwork]
        )
        simulator.device.setNetwork(.wifi)
        simulator.advance(by: .seconds(2))
        #expect(simulator.transfers(of: app).isEmpty, "completed and delivered 2 s after the network came back")
        #expect(recorder.all.first?.log.all.last == "urlSessionDidFinishEvents")
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test(
        "Scripted failures: a drop resumes at its byte after 1 s; 503 twice then success; a changed resource starts over"
    )
    func scriptedFailures() throws {
        let simulator = Simulator()
        simulator.network.latency = .zero
        simulator.network.serve(
            "https://example.com/drop",
            VirtualResource(size: 2_000_000, failures: [.dropAt(500_000)])
        )
        simulator.network.serve(
            "https://example.com/busy",
            VirtualResource(size: 1_000_000, failures: [.serverError(status: 503, attempts: 2)])
        )
        simulator.network.serve(
            "https://example.com/changes",
            VirtualResource(size: 1_000_000, failures: [.changesAt(400_000)])
        )
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder)
        simulator.user.open(app)
        simulator.runPending()
        let downloader = try #require(recorder.all.first)
        downloader.download("https://example.com/drop")
        downloader.download("https://example.com/busy")
        downloader.download("https://example.com/changes")
        simulator.advance(by: .seconds(30))
        let lines = simulator.events.compactMap { event -> String? in
            guard case .transfer(let activity) = event.kind, case .progress = activity else {
                if case .transfer(let activity) = event.kind { return activity.description }
                return nil
            }
            return nil
        }
        #expect(lines.contains("transfer com.example.downloads#1 resumes at byte 500000"), "\(lines)")
        #expect(lines.filter { $0.contains("#2 interrupted: HTTP 503") }.count == 2, "\(lines)")
        #expect(lines.contains { $0.contains("#3 interrupted: resource changed at byte 400000") }, "\(lines)")
        #expect(lines.filter { $0 == "transfer com.example.downloads#3 starts" }.count == 2, "started over: \(lines)")
        #expect(downloader.log.all.filter { $0.hasPrefix("didCompleteWithError nil 200") }.count == 3)
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("Same seed, same run: the log of a run with transfers is the same twice")
    func deterministic() async throws {
        func run() throws -> String {
            let simulator = Simulator(configuration: .init(seed: 7))
            simulator.network.serve(Self.url, VirtualResource(size: 4_000_000, failures: [.dropAt(1_000_000)]))
            let recorder = Seen<RecordingDownloader>()
            let app = install(simulator, recorder)
            simulator.user.open(app)
            simulator.runPending()
            let downloader = try #require(recorder.all.first)
            downloader.download(Self.url)
            downloader.download("https://example.com/other")
            simulator.user.goHome()
            simulator.advance(by: .seconds(3))
            simulator.device.setNetwork(.cellular)
            simulator.advance(by: .seconds(30))
            return simulator.logText(verbose: true)
        }
        let first = try run()
        #expect(first.contains("relaunched for URLSession events"))
        #expect(try run() == first)
    }
}
