import BackgroundCore
import BackgroundExecution
import Foundation
import Synchronization
import Testing
import TransferTestServer

/// The app delegate: keeps `handleEventsForBackgroundURLSession`'s completion handler, as
/// Apple's sample does, and writes its call into the session delegate's log.
@MainActor
final class EventsAppDelegate: NSObject, UIApplicationDelegate {
    let log: RecordingDelegate
    var handlers: [() -> Void] = []

    init(log: RecordingDelegate) { self.log = log }

    func application(
        _ application: UIApplication,
        handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) {
        log.log.withLock { $0.append("handleEventsForBackgroundURLSession") }
        handlers.append(completionHandler)
    }
}

/// Embedded mode tracks "suspended" (the process runs on): a session's events wait while the
/// app is suspended; one that sends launch events resumes it in the background for them.
@MainActor
@Suite("Embedded mode honours sessionSendsLaunchEvents while the app is suspended", .serialized)
struct EmbeddedLaunchEventsTests {
    /// What a test holds (the application too: sessions and the system hold it weakly, as the
    /// app's process would through `UIApplication.shared`).
    struct Setup {
        var harness: TransferHarness
        var system: EmbeddedSystem
        var clock: ManualClock
        var recorder: RecordingDelegate
        var application: UIApplication
        var appDelegate: EventsAppDelegate
        var session: URLSession
    }

    /// An app in embedded mode on a manual clock, in the background with a slow download (about
    /// 1.5 s) started there, then suspended before the body has arrived.
    func suspendedWithDownload(
        sendsLaunchEvents: Bool
    ) async throws -> Setup {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 6_000)
        route.slowChunk = (bytes: 1_000, pauseMilliseconds: 250)
        harness.server.set("/slow", route)
        let clock = ManualClock()
        let system = EmbeddedSystem(
            configuration: .init(
                app: TransferHarness.app,
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false
            )
        )
        clock.runPending()
        let application = UIApplication(connection: system)
        let recorder = RecordingDelegate()
        let appDelegate = EventsAppDelegate(log: recorder)
        application.delegate = appDelegate
        system.moveToBackground()
        let configuration = URLSessionConfiguration.background(withIdentifier: TransferHarness.session)
        configuration.sessionSendsLaunchEvents = sendsLaunchEvents
        // The session belongs to this application (not the process's shared one), as a simulated
        // app's does: other suites' sessions in this process are not governed by this system.
        let session = UIApplication.$running.withValue(application) {
            withBootstrapLock {
                URLSession.bootstrap(harness.transfers)
                defer { URLSession.bootstrap(nil) }
                return URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
            }
        }
        // swift-format-ignore: NeverForceUnwrap
        session.downloadTask(with: URL(string: harness.server.url("/slow"))!).resume()
        clock.advance(by: .seconds(1))  // didEnterBackground returns, nothing holds the app: suspended
        #expect(system.lifecycleState == .suspended)
        return Setup(
            harness: harness,
            system: system,
            clock: clock,
            recorder: recorder,
            application: application,
            appDelegate: appDelegate,
            session: session
        )
    }

    /// Waits (real time) until the engine holds the download completed: its events are held.
    func completedInTheEngine(_ harness: TransferHarness, _ recorder: RecordingDelegate) async throws {
        for _ in 0..<500 where harness.transfers.transfers(session: TransferHarness.session).first?.state != .completed
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        let events = harness.events.withLock { $0.count }
        try #require(
            harness.transfers.transfers(session: TransferHarness.session).first?.state == .completed,
            "\(harness.transfers.transfers(session: TransferHarness.session)), \(events) events to the harness, \(recorder.log.withLock { $0 })"
        )
    }

    /// Runs the main-actor work the engine's threads scheduled on the manual clock (the wake)
    /// without moving time, until `handleEvents` was called (real time: the completion reaches
    /// the session from the engine's thread).
    func runWake(_ clock: ManualClock, _ recorder: RecordingDelegate) async throws {
        for _ in 0..<500 where !recorder.log.withLock({ $0.contains("handleEventsForBackgroundURLSession") }) {
            clock.runPending()
            try await Task.sleep(for: .milliseconds(20))
        }
        // Fails here rather than waiting for ever for events that nothing delivers.
        try #require(
            recorder.log.withLock { $0.contains("handleEventsForBackgroundURLSession") },
            "not resumed for its events: \(recorder.log.withLock { $0 })"
        )
    }

    @Test(
        "sessionSendsLaunchEvents = true: resumed in the background, handleEvents first, kept running until its handler"
    )
    func launchEvents() async throws {
        let setup = try await suspendedWithDownload(sendsLaunchEvents: true)
        let (harness, system, clock, recorder, appDelegate) = (
            setup.harness, setup.system, setup.clock, setup.recorder, setup.appDelegate
        )
        try await completedInTheEngine(harness, recorder)
        try await runWake(clock, recorder)
        await recorder.waitForEvents()
        // Progress heard while the app still ran (the download starts before the suspension, and
        // on a loaded machine its first bytes can arrive first) is allowed; after it, nothing
        // until handleEvents, then the events in Apple's order.
        let log = recorder.log.withLock { $0 }
        #expect(log.drop { $0 == "didWriteData" }.first == "handleEventsForBackgroundURLSession", "\(log)")
        #expect(
            log.filter { $0 != "didWriteData" } == [
                "handleEventsForBackgroundURLSession", "didFinishDownloadingTo 200", "didCompleteWithError nil",
                "urlSessionDidFinishEvents",
            ]
        )
        #expect(appDelegate.handlers.count == 1)
        clock.advance(by: .seconds(5))
        #expect(system.lifecycleState == .background, "the URLSession events assertion holds it")
        #expect(system.assertions.map(\.name) == ["URLSession events"])
        for handler in appDelegate.handlers { handler() }
        clock.advance(by: .seconds(1))
        #expect(system.lifecycleState == .suspended, "the completion handler let it suspend again")
        #expect(system.assertions.isEmpty)
        setup.session.invalidateAndCancel()
        await harness.stop()
    }

    @Test("an app that never calls handleEvents' completion handler is suspended when the assertion's time runs out")
    func handlerNeverCalled() async throws {
        let setup = try await suspendedWithDownload(sendsLaunchEvents: true)
        let (harness, system, clock, recorder, appDelegate) = (
            setup.harness, setup.system, setup.clock, setup.recorder, setup.appDelegate
        )
        try await completedInTheEngine(harness, recorder)
        try await runWake(clock, recorder)
        await recorder.waitForEvents()
        #expect(appDelegate.handlers.count == 1)
        #expect(system.lifecycleState == .background)
        clock.advance(by: .seconds(200))  // past the background time budget (30 s under .iOS)
        #expect(system.lifecycleState == .suspended, "not kept running for ever")
        #expect(system.assertions.isEmpty)
        setup.session.invalidateAndCancel()
        await harness.stop()
    }

    @Test(
        "sessionSendsLaunchEvents = false: not resumed; the events wait until the app is opened, without handleEvents"
    )
    func noLaunchEvents() async throws {
        let setup = try await suspendedWithDownload(sendsLaunchEvents: false)
        let (harness, system, clock, recorder, appDelegate) = (
            setup.harness, setup.system, setup.clock, setup.recorder, setup.appDelegate
        )
        try await completedInTheEngine(harness, recorder)
        clock.advance(by: .seconds(60))
        try await Task.sleep(for: .milliseconds(300))
        #expect(system.lifecycleState == .suspended, "not resumed for its events")
        // Progress heard while the app still ran is allowed (see launchEvents); no completion.
        #expect(recorder.log.withLock { $0 }.allSatisfy { $0 == "didWriteData" }, "nothing heard while suspended")
        system.moveToForeground()
        clock.advance(by: .milliseconds(10))
        await recorder.waitForEvents()
        #expect(
            recorder.log.withLock { $0 }.filter { $0 != "didWriteData" } == [
                "didFinishDownloadingTo 200", "didCompleteWithError nil", "urlSessionDidFinishEvents",
            ]
        )
        #expect(appDelegate.handlers.isEmpty)
        setup.session.invalidateAndCancel()
        await harness.stop()
    }
}
