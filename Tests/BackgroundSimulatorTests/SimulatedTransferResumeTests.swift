import BackgroundCore
import BackgroundSimulator
import BackgroundSimulatorTesting
import Foundation
import Testing

/// `sessionSendsLaunchEvents = false`, resume data and uploads' sizes in the simulator.
@MainActor
@Suite("The simulator's transfers: launch events, resume data, upload sizes", .simulatorFaultsFailTheTest)
struct SimulatedTransferResumeTests {
    static let url = "https://example.com/book.epub"

    /// Installs an app whose launch code makes a downloader with the given launch-events setting.
    func install(_ simulator: Simulator, _ recorder: Seen<RecordingDownloader>, sendsLaunchEvents: Bool = true) -> AppID
    {
        simulator.install("com.example.reader") { process in
            let downloader = RecordingDownloader(sendsLaunchEvents: sendsLaunchEvents)
            process.delegate = DownloadingAppDelegate(downloader)
            process.keep(downloader)
            recorder.append(downloader)
        }
    }

    func activities(_ simulator: Simulator) -> [TransferActivity] {
        simulator.events.compactMap { event in
            if case .transfer(let activity) = event.kind { return activity }
            return nil
        }
    }

    /// Starts the app in the foreground and returns its downloader.
    func opened(
        _ simulator: Simulator,
        _ app: AppID,
        _ recorder: Seen<RecordingDownloader>
    ) throws -> RecordingDownloader {
        simulator.user.open(app)
        simulator.runPending()
        return try #require(recorder.all.last)
    }

    /// Cancels `task` for its resume data (the simulator answers on the main actor at once).
    func resumeData(of task: URLSessionDownloadTask) -> Data? {
        let answer = Seen<Data>()
        task.cancel { data in if let data { answer.append(data) } }
        return answer.all.first
    }

    @Test("sessionSendsLaunchEvents = false: a suspended app is not resumed; its events wait until the user opens it")
    func noLaunchEventsSuspended() throws {
        let simulator = Simulator()
        simulator.network.serve(Self.url, VirtualResource(size: 5_000_000))
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder, sendsLaunchEvents: false)
        let downloader = try opened(simulator, app, recorder)
        downloader.download(Self.url)
        simulator.user.goHome()
        simulator.advance(by: .seconds(600))
        #expect(simulator.state(of: app) == .suspended, "not resumed for its events")
        #expect(!activities(simulator).contains { if case .relaunched = $0 { true } else { false } })
        #expect(downloader.log.all.filter { !$0.hasPrefix("didWriteData") }.isEmpty, "nothing heard while suspended")
        #expect(simulator.transfers(of: app).first?.phase == .completed, "completed, its events waiting")
        simulator.user.open(app)
        simulator.advance(by: .seconds(1))
        #expect(
            downloader.log.all.filter { !$0.hasPrefix("didWriteData") } == [
                "didFinishDownloadingTo 5000000", "didCompleteWithError nil 200", "urlSessionDidFinishEvents",
            ],
            "heard when opened, without handleEventsForBackgroundURLSession"
        )
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test(
        "sessionSendsLaunchEvents = false: an ended app is not launched; its next launch recreates the session and hears them"
    )
    func noLaunchEventsEnded() throws {
        let simulator = Simulator()
        simulator.network.serve(Self.url, VirtualResource(size: 5_000_000))
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder, sendsLaunchEvents: false)
        try opened(simulator, app, recorder).download(Self.url)
        simulator.user.goHome()
        simulator.advance(by: .seconds(2))
        simulator.reportMemoryPressure(.warning)  // the suspended app is reclaimed
        simulator.advance(by: .seconds(600))
        #expect(recorder.all.count == 1, "not launched for its events")
        let relaunched = try opened(simulator, app, recorder)
        simulator.advance(by: .seconds(1))
        #expect(recorder.all.count == 2)
        #expect(
            relaunched.log.all == [
                "didFinishDownloadingTo 5000000", "didCompleteWithError nil 200", "urlSessionDidFinishEvents",
            ]
        )
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test(
        "cancel(byProducingResumeData:) hands back version 1 resume data; downloadTask(withResumeData:) goes on from its byte"
    )
    func cancelAndResume() throws {
        let simulator = Simulator()
        simulator.network.latency = .zero
        simulator.network.serve(Self.url, VirtualResource(size: 2_000_000))
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder)
        let downloader = try opened(simulator, app, recorder)
        let task = downloader.download(Self.url)
        simulator.advance(by: .seconds(1))
        let data = try #require(resumeData(of: task))
        let document = try JSONDecoder().decode(TransferResumeData.self, from: data)
        #expect(document.format == TransferResumeData.formatName && document.version == 1)
        #expect(document.app == "com.example.reader" && document.url == Self.url && document.task == 1)
        #expect(document.bytes == 1_000_000 && document.expectedLength == 2_000_000)
        #expect(document.partialFile == "Transfers/com.example.downloads/1.partial")
        #expect(document.entityTag != nil)
        simulator.advance(by: .seconds(1))
        #expect(downloader.log.all.last == "urlSessionDidFinishEvents")
        #expect(downloader.log.all.contains("didCompleteWithError -999 with resume data"))
        downloader.session.downloadTask(withResumeData: data).resume()
        simulator.advance(by: .milliseconds(1_100))
        let lines = activities(simulator).map(\.description)
        #expect(lines.contains("transfer com.example.downloads#2 resumes at byte 1000000"), "\(lines)")
        #expect(
            Array(downloader.log.all.suffix(4)) == [
                "didWriteData 1500000/2000000", "didFinishDownloadingTo 2000000", "didCompleteWithError nil 200",
                "urlSessionDidFinishEvents",
            ],
            "the other 1 MB in 1 s at 1 MB/s, progress from the resumed byte on"
        )
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("Resume data of a resource that changed since starts over from byte 0 (its If-Range no longer matches)")
    func changedResourceStartsOver() throws {
        let simulator = Simulator()
        simulator.network.latency = .zero
        simulator.network.serve(Self.url, VirtualResource(size: 2_000_000))
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder)
        let downloader = try opened(simulator, app, recorder)
        let task = downloader.download(Self.url)
        simulator.advance(by: .seconds(1))
        let data = try #require(resumeData(of: task))
        simulator.network.serve(Self.url, VirtualResource(size: 3_000_000))
        downloader.session.downloadTask(withResumeData: data).resume()
        simulator.advance(by: .seconds(1))
        let lines = activities(simulator).map(\.description)
        #expect(lines.contains("transfer com.example.downloads#2 starts"), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("transfer com.example.downloads#2 resumes") }, "\(lines)")
        #expect(lines.contains("transfer com.example.downloads#2: 750000 of 3000000 bytes"), "from 0: \(lines)")
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("Refused resume data completes with -1 and sends nothing: another app's, not JSON, its partial file expired")
    func refusedResumeData() throws {
        let simulator = Simulator()
        simulator.network.latency = .zero
        simulator.network.serve(Self.url, VirtualResource(size: 2_000_000))
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder)
        let downloader = try opened(simulator, app, recorder)
        let task = downloader.download(Self.url)
        simulator.advance(by: .seconds(1))
        let data = try #require(resumeData(of: task))
        var foreign = try JSONDecoder().decode(TransferResumeData.self, from: data)
        foreign.app = "com.example.other"
        let encoder = JSONEncoder()
        downloader.session.downloadTask(withResumeData: try encoder.encode(foreign)).resume()
        downloader.session.downloadTask(withResumeData: Data("not resume data".utf8)).resume()
        // Kept 7 days: past that, the partial file is gone and the resume data with it.
        simulator.advance(by: .seconds(7 * 24 * 3600))
        downloader.session.downloadTask(withResumeData: data).resume()
        simulator.advance(by: .seconds(1))
        let failures = activities(simulator).compactMap { activity -> String? in
            guard case .failed(let key, let code, let reason) = activity, key.task > 1 else { return nil }
            return "#\(key.task) \(code) \(reason)"
        }
        #expect(
            failures == [
                "#2 -1 resume data refused: it belongs to another app",
                "#3 -1 resume data refused: it is not resume data of this library (format background-execution.resume-data, version 1)",
                "#4 -1 resume data refused: its partial file is missing or shorter than 1000000 bytes",
            ]
        )
        #expect(!activities(simulator).contains { if case .started(let key, _) = $0 { key.task > 1 } else { false } })
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("An upload sends its file's size, whatever the URL's resource says; a missing file fails with -1100")
    func uploadSizeFromFile() throws {
        let simulator = Simulator()
        simulator.network.latency = .zero
        simulator.network.serve("https://example.com/upload", VirtualResource(size: 9_000_000))
        let recorder = Seen<RecordingDownloader>()
        let app = install(simulator, recorder)
        let downloader = try opened(simulator, app, recorder)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("photo.jpg")
        try Data(count: 400_000).write(to: file)
        var request = URLRequest(url: URL(string: "https://example.com/upload")!)
        request.httpMethod = "PUT"
        downloader.session.uploadTask(with: request, fromFile: file).resume()
        downloader.session.uploadTask(with: request, fromFile: directory.appendingPathComponent("gone.jpg")).resume()
        simulator.advance(by: .seconds(1))
        let lines = activities(simulator).map(\.description)
        #expect(lines.contains("transfer com.example.downloads#1: upload of 400000 bytes queued"), "\(lines)")
        #expect(lines.contains("transfer com.example.downloads#1 completed: HTTP 200, 400000 bytes"), "\(lines)")
        #expect(downloader.log.all.contains("didSendBodyData 100000/400000"))
        #expect(downloader.log.all.contains("didCompleteWithError -1100 reason -"))
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }
}
