import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import BackgroundStore
import BackgroundTestSupport
import BackgroundTransfers
import Foundation
import Logging
import Testing
import TransferTestServer

/// Background transfers run by the daemon's engine for its apps (``DaemonTransfers``), driven
/// through the engine as an app's connection drives it, against the loopback server: events to
/// a running app, the launch in the background for events that wait, `handleEvents` after the
/// launch callbacks with the wake held until the completion handler, force quit, resume data
/// that names another app's file, and the relaunch delay.
@Suite(.serialized)
struct TransferHostTests {
    static let session = "com.example.notes.downloads"
    static let notes = EngineFixture.notes

    /// An engine running transfers in containers under a temporary directory.
    struct Host {
        let fixture: EngineFixture
        let directory: TemporaryDirectory
        let server: LoopbackServer

        /// `journal`: the engine journals to `<state>/journal.jsonl`, `state` a daemon state directory.
        init(developerMode: Bool = false, store: BackgroundStore? = nil, journal: Bool = false) async throws {
            directory = try TemporaryDirectory()
            let state = journal ? try directory.daemonState(manifests: [:]) : nil
            fixture = try EngineFixture(
                store: store,
                journalPath: state.map { $0 + "/journal.jsonl" },
                deviceSettings: DaemonDevice.Settings(developerMode: developerMode)
            )
            server = try await LoopbackServer.start()
            let transfers = DaemonTransfers(
                configuration: .init(
                    containers: directory.path + "/containers",
                    logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
                ),
                store: fixture.store
            )
            fixture.engine.runTransfers(transfers)
        }

        var container: String { directory.path + "/containers/" + TransferHostTests.notes.bundleIdentifier }

        func attach(_ link: RecordingLink) {
            let options = TransferSessionOptions(app: TransferHostTests.notes, session: TransferHostTests.session)
            fixture.engine.received(.app(.transfer(.attach(options))), from: link, peer: nil)
        }

        func download(
            _ path: String,
            task: Int,
            from link: RecordingLink,
            requirements: TransferRequirements? = nil,
            headers: [TransferHeader] = []
        ) {
            var transfer = TransferCheckpoint(
                app: TransferHostTests.notes,
                session: TransferHostTests.session,
                task: task,
                kind: .download,
                method: "GET",
                url: server.url(path)
            )
            transfer.requirements = requirements
            transfer.headers = headers
            fixture.engine.received(
                .app(.transfer(.submit(transfer, uploadPath: nil, resumeData: nil))),
                from: link,
                peer: nil
            )
        }

        func call(_ call: TransferCall, from link: RecordingLink) {
            fixture.engine.received(.app(.transfer(call)), from: link, peer: nil)
        }

        func stop() async {
            try? await server.shutdown()
            directory.remove()
        }
    }

    /// The transfer notices a link received, in order.
    static func notices(_ link: RecordingLink) -> [TransferNotice] {
        link.sent.withLock { sent in
            sent.compactMap { if case .system(.transfer(let notice)) = $0 { notice } else { nil } }
        }
    }

    static func completion(_ link: RecordingLink, task: Int) -> (TransferCheckpoint, String?, WireBytes?)? {
        for case .completed(_, let transfer, let location, let resumeData, _) in notices(link)
        where transfer.task == task {
            return (transfer, location, resumeData)
        }
        return nil
    }

    static func waitFor(seconds: Double = 120, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test(
        "The daemon's device reaches its transfers: a discretionary one waits for external power, then an unmetered network"
    )
    func discretionaryWaitsForTheDevice() async throws {
        let host = try await Host(developerMode: true, journal: true)
        defer { Task { await host.stop() } }
        let engine = host.fixture.engine
        #expect(engine.answer(.overrideDevice(["power=battery", "network=wifi", "metered=no"])).outcome == .ok)
        host.server.set("/book", LoopbackRoute(size: 100_000))
        let link = host.fixture.connect(Self.notes)
        host.attach(link)
        host.download("/book", task: 1, from: link, requirements: TransferRequirements(isDiscretionary: true))
        func unmet() -> [UnmetCondition]? {
            engine.transfers?.transferStatus(of: Self.notes)?.transfers.first?.eligibility.unmet
        }
        #expect(unmet() == [.requiresExternalPower])
        // bgctl daemon why and status say so.
        let identifier = "\(Self.session)#1"
        let why = engine.answer(.why(identifier: identifier, app: nil))
        #expect(why.outcome == .ok, "\(why.text)")
        #expect(why.text.contains("\(Self.notes): \(identifier) (transfer): not eligible now"), "\(why.text)")
        #expect(why.text.contains("needs external power"), "\(why.text)")
        let status = engine.answer(.status)
        #expect(status.text.contains("transfers: 0 running, 1 waiting"), "\(status.text)")
        #expect(status.text.contains("\(Self.notes) \(identifier): waiting: needs external power"), "\(status.text)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(status.json.utf8)) as? [String: Any])
        let rows = (document["transfers"] as? [String: Any])?["transfers"] as? [[String: Any]]
        #expect(rows?.first?["identifier"] as? String == identifier && rows?.first?["state"] as? String == "waiting")
        #expect(engine.answer(.why(identifier: "\(Self.session)#9", app: nil)).outcome == .notFound)
        #expect(engine.answer(.overrideDevice(["power=external", "metered=yes"])).outcome == .ok)
        #expect(unmet() == [.requiresUnmeteredNetwork])
        #expect(Self.completion(link, task: 1) == nil)
        #expect(host.server.counters("/book").requests == 0)
        #expect(engine.answer(.overrideDevice(["metered=no"])).outcome == .ok)
        #expect(await Self.waitFor { Self.completion(link, task: 1) != nil })
        #expect(Self.completion(link, task: 1)?.0.outcome?.statusCode == 200)
        try await Self.checkJournal(host, identifier: identifier)
    }

    /// The journal holds the transfer's waits, its run and its end, and `bgctl daemon timeline`
    /// draws it in the app's transfers lane.
    static func checkJournal(_ host: Host, identifier: String) async throws {
        let state = host.directory.path + "/state"
        let lines = try String(contentsOfFile: state + "/journal.jsonl", encoding: .utf8).split(separator: "\n")
        let readings = try lines.compactMap {
            try JSONDecoder().decode(JournalEntry.self, from: Data($0.utf8)).transfer
        }
        #expect(readings.map(\.phase) == [.waiting, .waiting, .running, .completed], "\(readings)")
        #expect(readings.first?.detail == "needs external power", "\(readings)")
        #expect(readings.last?.detail == "HTTP 200, 100000 bytes", "\(readings)")
        let html = host.directory.path + "/day.html"
        // On a thread of its own: the child process is waited for, not the cooperative pool.
        let result = try await onThread {
            try runBgctlBlocking(
                ["daemon", "timeline", "--since", "400d", "-o", html, "--state-dir", state, "--json"],
                environment: ["HOME": state]
            )
        }
        .get()
        #expect(result.status == 0, "\(result.error)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        #expect(summary?["transfers"] as? Int == 1, "\(result.output)")
        #expect(try String(contentsOfFile: html, encoding: .utf8).contains(identifier))
    }

    @Test("A session's options are kept with its transfers: a restarted daemon runs the session as the app attached it")
    func sessionOptionsSurviveARestart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/store.sqlite"
        let options = TransferSessionOptions(
            app: Self.notes,
            session: Self.session,
            maximumConnectionsPerHost: 2,
            requestTimeoutSeconds: 30,
            resourceTimeoutSeconds: 3600,
            sendsLaunchEvents: false
        )
        let first = try await Host(store: try BackgroundStore(path: path))
        let link = first.fixture.connect(Self.notes)
        first.call(.attach(options), from: link)
        // Not before an hour from now: it waits, so the restarted daemon finds it as it was.
        var transfer = TransferCheckpoint(
            app: Self.notes,
            session: Self.session,
            task: 1,
            kind: .download,
            method: "GET",
            url: first.server.url("/later")
        )
        transfer.earliestBeginUnixSeconds = Date().timeIntervalSince1970 + 3600
        first.call(.submit(transfer, uploadPath: nil, resumeData: nil), from: link)
        #expect(await Self.waitFor { (try? first.fixture.store.transfers(of: Self.notes).first) != nil })
        #expect(try first.fixture.store.transfers(of: Self.notes).first?.sessionOptions == options)
        // bgctl daemon status says until when it waits as a date, not the engine's own T+ offset.
        let status = first.fixture.engine.answer(.status).text
        let line = status.split(separator: "\n").first { $0.contains("\(Self.session)#1: waiting") } ?? ""
        #expect(line.contains("waiting: not before 20") && line.hasSuffix("its earliestBeginDate"), "\(status)")
        #expect(!line.contains("T+"), "\(status)")
        // What the app sees of its transfers carries no options (they are the daemon's to keep).
        first.call(.attach(options), from: link)
        guard case .attached(_, let known, _, true)? = Self.notices(link).last else {
            Issue.record("no attach answer: \(Self.notices(link))")
            return
        }
        #expect(known.count == 1 && known.allSatisfy { $0.sessionOptions == nil })
        await first.stop()

        let restarted = try await Host(store: try BackgroundStore(path: path))
        defer { Task { await restarted.stop() } }
        #expect(restarted.fixture.engine.transfers?.sessionOptions(of: Self.notes, session: Self.session) == options)
    }

    @Test(
        "An upload's response body longer than one message reaches the app whole: parts, then the completion with the last"
    )
    func longResponseBody() async throws {
        let host = try await Host()
        defer { Task { await host.stop() } }
        var route = LoopbackRoute(size: 900 << 10)  // over one message's 512 KiB, under the engine's 1 MiB
        route.answersUploadsWithBody = true
        host.server.set("/upload", route)
        let link = host.fixture.connect(Self.notes)
        host.attach(link)
        let file = host.container + "/outbox.bin"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(repeating: 7, count: 10_000)))
        let transfer = TransferCheckpoint(
            app: Self.notes,
            session: Self.session,
            task: 1,
            kind: .upload,
            method: "POST",
            url: host.server.url("/upload")
        )
        host.call(.submit(transfer, uploadPath: file, resumeData: nil), from: link)
        #expect(await Self.waitFor { Self.completion(link, task: 1) != nil })
        var body: [UInt8] = []
        var parts = 0
        for notice in Self.notices(link) {
            switch notice {
            case .responseBodyPart(_, 1, let bytes):
                #expect(bytes.bytes.count <= TransferMessageLimits.maximumPushedResponseBody)
                body += bytes.bytes
                parts += 1
            case .completed(_, let completed, _, _, let last) where completed.task == 1:
                #expect(completed.outcome?.statusCode == 200)
                #expect(completed.outcome?.errorCode == nil)
                body += last.bytes
            default:
                continue
            }
        }
        #expect(parts == 1)
        #expect(body == LoopbackRoute(size: 900 << 10).body())
    }

    @Test("A running app that attached its session gets progress, then the completion with the file in its container")
    func runningApp() async throws {
        let host = try await Host()
        defer { Task { await host.stop() } }
        host.server.set("/book", LoopbackRoute(size: 300_000))
        let link = host.fixture.connect(Self.notes)
        host.attach(link)
        guard case .attached(_, let known, let next, true)? = Self.notices(link).last else {
            Issue.record("no attach answer: \(Self.notices(link))")
            return
        }
        #expect(known.isEmpty && next == 1)
        host.download("/book", task: 1, from: link)
        #expect(await Self.waitFor { Self.completion(link, task: 1) != nil })
        let (transfer, location, _) = try #require(Self.completion(link, task: 1))
        #expect(transfer.outcome?.statusCode == 200)
        let path = try #require(location)
        #expect(path.hasPrefix(host.container + "/Transfers/"))
        #expect(FileManager.default.contents(atPath: path) == Data(LoopbackRoute(size: 300_000).body()))
        let kinds = Self.notices(link).map { String(describing: $0).prefix { $0 != "(" } }
        #expect(kinds.firstIndex(of: "wroteData")! < kinds.firstIndex(of: "completed")!)
        host.call(.delivered(session: Self.session, task: 1), from: link)
        #expect(await Self.waitFor { !FileManager.default.fileExists(atPath: path) })
        // Checkpoints are written in batches (CheckpointWriter): the row goes at the next flush.
        #expect(await Self.waitFor { (try? host.fixture.store.transfers(of: Self.notes).isEmpty) == true })
    }

    @Test(
        "Events that finish while the app is gone launch it in the background; handleEvents follows its launch callbacks and its wake is held until the completion handler"
    )
    func relaunchForEvents() async throws {
        let host = try await Host()
        defer { Task { await host.stop() } }
        var route = LoopbackRoute(size: 200_000)
        route.slowChunk = (bytes: 50_000, pauseMilliseconds: 300)
        host.server.set("/slow", route)
        let first = host.fixture.connect(Self.notes)
        host.attach(first)
        host.download("/slow", task: 1, from: first)
        host.fixture.engine.disconnected(first)  // the process exits; the transfer goes on
        // The wake is armed on the engine's clock (the test's, which stands still): due now, as
        // the app was never relaunched; nothing launches before the engine's timer fires.
        let transfers = try #require(host.fixture.engine.transfers)
        #expect(await Self.waitFor { transfers.nextWakeDeadline != nil })
        #expect(transfers.nextWakeDeadline == host.fixture.clock.now)
        #expect(
            host.fixture.wakeups.armed.withLock { $0 } == host.fixture.clock.now,
            "the engine's one timer covers it"
        )
        #expect(
            !host.fixture.processes.calls.withLock { $0.contains { $0.hasPrefix("launch com.example.notes system") } }
        )
        host.fixture.engine.tick()
        #expect(
            host.fixture.processes.calls.withLock { $0.contains("launch com.example.notes system 2") },
            "\(host.fixture.processes.calls.withLock { $0 })"
        )
        // The launched process says hello; its launch callbacks return: handleEvents comes, the wake is held.
        let second = host.fixture.connect(Self.notes)
        host.fixture.engine.received(.app(.oneWay(.backgroundWakeReturned(Self.notes))), from: second, peer: nil)
        #expect(Self.notices(second) == [.handleEvents(session: Self.session)])
        host.attach(second)
        let completed = await Self.waitFor { Self.completion(second, task: 1) != nil }
        #expect(completed, "\(Self.notices(second))")
        let kinds = Self.notices(second).map { String(describing: $0).prefix { $0 != "(" } }
        #expect(kinds == ["handleEvents", "attached", "wroteData", "completed"], "\(kinds)")
        host.call(.delivered(session: Self.session, task: 1), from: second)
        #expect(host.fixture.engine.appState(Self.notes) == .background)  // held for the events
        host.call(.eventsHandled(session: Self.session), from: second)
        #expect(await Self.waitFor { host.fixture.engine.appState(Self.notes) == .suspended })
        // The next relaunch waits for Apple's delay: 60 s after the first (reference §5.6).
        let delay = try #require(host.fixture.engine.transfers?.relaunchDelay(of: Self.notes))
        #expect(delay > .seconds(55) && delay <= .seconds(60), "\(delay)")
        #expect(transfers.nextWakeDeadline == nil, "nothing waits")
    }

    @Test(
        "An app woken for events that never calls its completion handler is let go when its time runs out, on the engine's clock; its next wake waits for the relaunch delay"
    )
    func wakeTimeLimitOnTheEnginesClock() async throws {
        let host = try await Host()
        defer { Task { await host.stop() } }
        host.server.set("/file", LoopbackRoute(size: 10_000))
        let first = host.fixture.connect(Self.notes)
        host.attach(first)
        host.download("/file", task: 1, from: first)
        host.fixture.engine.disconnected(first)  // the process exits: what it was sent waits again
        let transfers = try #require(host.fixture.engine.transfers)
        #expect(await Self.waitFor { transfers.nextWakeDeadline != nil })
        host.fixture.engine.tick()
        let second = host.fixture.connect(Self.notes)
        host.fixture.engine.received(.app(.oneWay(.backgroundWakeReturned(Self.notes))), from: second, peer: nil)
        #expect(Self.notices(second) == [.handleEvents(session: Self.session)])
        #expect(transfers.nextWakeDeadline == host.fixture.clock.now + .seconds(15), "the wake's time limit")
        host.fixture.clock.advance(by: .seconds(14))
        host.fixture.engine.tick()
        #expect(host.fixture.engine.appState(Self.notes) == .background, "held: 1 s left")
        host.fixture.clock.advance(by: .seconds(1))
        host.fixture.engine.tick()
        #expect(host.fixture.engine.appState(Self.notes) == .suspended, "the wake returned when its time ran out")
        #expect(transfers.nextWakeDeadline == nil, "no second wake while the woken process lives")
        let delay = try #require(transfers.relaunchDelay(of: Self.notes))
        #expect(delay > .seconds(55) && delay <= .seconds(60), "the wake counted as a relaunch: \(delay)")
    }

    @Test(
        "Force quit cancels every transfer with -999 and the user-force-quit reason; nothing launches the app until it is opened"
    )
    func forceQuit() async throws {
        let host = try await Host()
        defer { Task { await host.stop() } }
        var route = LoopbackRoute(size: 400_000)
        route.slowChunk = (bytes: 20_000, pauseMilliseconds: 200)
        host.server.set("/slow", route)
        let first = host.fixture.connect(Self.notes)
        host.attach(first)
        host.download("/slow", task: 1, from: first)
        #expect(await Self.waitFor { host.fixture.server(counters: host.server, "/slow").bytesSent > 0 })
        let control = host.fixture.control()
        host.fixture.engine.received(.control(.forceQuit(Self.notes)), from: control, peer: nil)
        host.fixture.engine.disconnected(first)
        let stored = await Self.waitFor {
            (try? host.fixture.store.transfers(of: Self.notes).first?.state) == .completed
        }
        #expect(stored)
        let cancelled = try #require(try host.fixture.store.transfers(of: Self.notes).first?.outcome)
        #expect(cancelled.errorCode == -999 && cancelled.cancellationReason == 0)
        try await Task.sleep(for: .seconds(1))
        #expect(
            !host.fixture.processes.calls.withLock { $0.contains { $0.hasPrefix("launch com.example.notes system") } }
        )
        // The user opens it: it hears the cancellation when it recreates its session.
        host.fixture.engine.received(.control(.open(Self.notes)), from: control, peer: nil)
        let opened = host.fixture.connect(Self.notes)
        host.attach(opened)
        let (transfer, _, _) = try #require(Self.completion(opened, task: 1))
        #expect(transfer.outcome?.errorCode == -999 && transfer.outcome?.cancellationReason == 0)
    }

    @Test("Resume data that names another app's file, or a path outside the container, is refused: no request is sent")
    func resumeDataOfAnotherApp() async throws {
        let host = try await Host()
        defer { Task { await host.stop() } }
        host.server.set("/book", LoopbackRoute(size: 1000))
        let link = host.fixture.connect(Self.notes)
        host.attach(link)
        let documents: [[String: Any]] = [
            ["app": "com.example.mail", "partialFile": "Transfers/com.example.mail.sync/1.partial"],
            ["app": "com.example.notes", "partialFile": "../com.example.mail/Transfers/s/1.partial"],
            ["app": "com.example.notes", "partialFile": "/etc/passwd"],
        ]
        for (index, fields) in documents.enumerated() {
            var document: [String: Any] = [
                "format": "background-execution.resume-data", "version": 1, "session": Self.session, "task": 1,
                "url": host.server.url("/book"), "bytes": 10, "expectedLength": 1000, "entityTag": "\"v1-1000\"",
            ]
            document.merge(fields) { $1 }
            let bytes = [UInt8](try JSONSerialization.data(withJSONObject: document))
            let transfer = TransferCheckpoint(
                app: Self.notes,
                session: Self.session,
                task: index + 1,
                kind: .download,
                method: "GET",
                url: ""
            )
            host.call(.submit(transfer, uploadPath: nil, resumeData: WireBytes(bytes)), from: link)
            #expect(await Self.waitFor { Self.completion(link, task: index + 1) != nil })
            let outcome = try #require(Self.completion(link, task: index + 1)?.0.outcome)
            #expect(outcome.errorCode == -1, "\(outcome)")
            #expect(outcome.errorMessage?.hasPrefix("resume data refused") == true, "\(outcome)")
        }
        #expect(host.server.counters("/book").requests == 0)
    }
}

extension EngineFixture {
    func server(counters server: LoopbackServer, _ path: String) -> LoopbackCounters { server.counters(path) }
}
