import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import BackgroundTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import BackgroundExecution

/// Issue 22, Deliver 4: an app woken for its sessions' events was frozen, once in seven runs,
/// with its `handleEventsForBackgroundURLSession` completion handler still queued on its main
/// queue: a `backgroundd` restarted meanwhile took it over from its declaration ("background, 0
/// assertions") and suspended it. Reproduced here without luck: the engine in this process, the
/// real `DaemonConnection` on a socket pair, and the app's main queue held while the daemon says
/// `handleEvents`.
@Suite("backgroundd: an app woken for transfer events holds an assertion until its completion handler runs")
struct TransferEventsWakeTests {
    static let notes = EngineFixture.notes
    static let session = "com.example.notes.downloads"

    /// An app delegate that calls the completion handler as apps do: later, on the main queue.
    final class EventsDelegate: UIResponder, UIApplicationDelegate {
        let log = CallLog()

        func applicationDidEnterBackground(_ application: UIApplication) { log.record("didEnterBackground") }

        func application(
            _ application: UIApplication,
            handleEventsForBackgroundURLSession identifier: String,
            completionHandler: @escaping () -> Void
        ) {
            log.record("handleEvents \(identifier)")
            DispatchQueue.main.async {
                completionHandler()
                self.log.record("completion handler called")
            }
        }
    }

    /// The assertions `bgctl daemon assertions --json` lists for notes.
    static func assertionNames(_ engine: DaemonEngine) -> [String] {
        let json = engine.answer(.assertions(notes)).json
        let document = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return (document?["assertions"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    @Test(
        "begun before the handler is queued: declared to a restarted daemon, which keeps the app running; ended by the handler"
    )
    @MainActor
    func heldUntilTheCompletionHandler() async throws {
        let fixture = try EngineFixture()
        _ = fixture.engine.answer(.open(Self.notes))
        let link = try SocketPairLink(engine: fixture.engine, app: Self.notes, incarnation: Incarnation(rawValue: 1))
        defer { link.close(reason: "the test ended") }
        let connection = await link.appConnection(Self.notes)
        let delegate = EventsDelegate()
        let application = UIApplication(connection: connection)
        application.delegate = delegate
        ApplicationMain.deliverLaunch(application)
        let log = delegate.log
        _ = fixture.engine.answer(.home)
        #expect(await waitUntil(timeout: .seconds(60)) { log.calls.contains("didEnterBackground") }, "\(log.calls)")

        // From here to the next `await` this test holds the main actor, so the app's main queue
        // runs nothing: what the daemon's word queues there waits. The reader thread does not
        // need it. The wait below blocks the main thread on purpose (that is the hold), polling
        // the engine, which another thread changes, for at most 60 s.
        // What the daemon does for a transfer's events: resumes the app in the background, then
        // says `handleEvents` (DaemonTransfers+Relaunch.swift).
        #expect(fixture.engine.appState(Self.notes) == .suspended)
        _ = fixture.engine.deliver(.resumeInBackground(Self.notes))
        link.send(.system(.transfer(.handleEvents(session: Self.session))))
        let deadline = ContinuousClock.now + .seconds(60)
        var begun = false
        while !begun && ContinuousClock.now < deadline {
            begun = Self.assertionNames(fixture.engine).contains(TransferEventsWindow.assertionName)
            if !begun { usleep(1_000) }
        }
        #expect(begun, "no assertion while the completion handler waits: \(Self.assertionNames(fixture.engine))")
        #expect(!log.calls.contains("handleEvents \(Self.session)"), "the main queue was not held")

        // A daemon restarted now knows only what the app declares.
        let declaration = connection.declaration()
        #expect(declaration.assertions.map(\.name) == [TransferEventsWindow.assertionName])
        let restarted = try EngineFixture()
        let taken = RecordingLink()
        restarted.engine.connected(taken)
        restarted.engine.received(
            .hello(ClientHello(role: .app(Self.notes), declaration: declaration)),
            from: taken,
            peer: nil
        )
        #expect(!taken.isClosed, "\(taken.sent.withLock { $0 })")
        #expect(restarted.engine.appState(Self.notes) == .background, "frozen before its completion handler ran")
        #expect(!restarted.processes.calls.withLock { $0 }.contains("freeze com.example.notes"))

        // The main actor is let go: the handler runs, then its completion, which ends the
        // assertion (this engine runs no transfers, so it refuses the `eventsHandled` that comes
        // first and closes the connection: the app's side is what is read).
        let ended = await waitUntil(timeout: .seconds(60)) {
            log.calls.contains("completion handler called") && connection.declaration().assertions.isEmpty
        }
        #expect(ended, "\(log.calls) \(connection.declaration().assertions)")
        withExtendedLifetime((connection, application, delegate)) {}
    }
}
