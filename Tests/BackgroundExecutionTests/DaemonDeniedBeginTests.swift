import BackgroundCore
import BackgroundTestSupport
import Foundation
import Testing

@testable import BackgroundExecution

/// A begin the daemon's client denies from the pushed grant state is answered as the core
/// answers a denial, and carried out by the runtime's one interpreter
/// (`RuntimeHost.carryOut(.assertionDenied, deniedHandler:)`), as in the embedded system and the
/// simulator: `beginBackgroundTask` returns `.invalid`, then the expiration handler runs once on
/// the main actor. The connection's effect observer sees every effect it carries out, so a
/// handler called by any other route (the client used to call it directly) fails this test.
@MainActor
@Suite("A denied begin on the daemon's client goes through the effect interpreter")
struct DaemonDeniedBeginTests {
    static let app: AppID = "com.example.denied"

    @Test("No daemon has answered yet: .invalid, then the handler once on the main actor, through .assertionDenied")
    func deniedThroughTheInterpreter() async throws {
        let effects = Recorder<Effect>()
        let order = Recorder<String>()
        let connection = DaemonConnection(
            configuration: .init(
                app: Self.app,
                endpoint: .socket(path: NSTemporaryDirectory() + "denied-\(UUID().uuidString)/nobody.sock"),
                connectTimeout: .milliseconds(200),
                launchCompletion: .explicit,
                terminationBehavior: .record,
                effectObserver: { _, effect in
                    effects.append(effect)
                    if case .assertionDenied = effect { order.append("assertionDenied carried out") }
                }
            )
        )
        let application = UIApplication(connection: connection)
        let task = application.beginBackgroundTask(withName: "Sync") {
            order.append(MainActorThread.isCurrent ? "handler on the main queue" : "handler off the main queue")
        }
        order.append(task == .invalid ? "returned .invalid" : "returned \(task.rawValue)")
        // The handler is queued on the main actor, which this test holds: it runs once the test
        // waits. Polled on the real clock because the daemon's client runs app code on the main
        // queue; 10 s is a bound for a loaded machine, not an expected time.
        let deadline = ContinuousClock.now + .seconds(10)
        while order.all.count < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(
            order.all == ["assertionDenied carried out", "returned .invalid", "handler on the main queue"]
        )
        let reason = "the system has not answered this process yet"
        #expect(effects.all == Effect.deniedBegin(Self.app, name: "Sync", reason: reason))
        #expect(connection.withTables { $0.handlers.count } == 0, "a denied begin records no handler")
        withExtendedLifetime(connection) {}
    }
}
