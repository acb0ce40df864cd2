import BackgroundCore
import Foundation
import Synchronization
import Testing

@testable import BackgroundExecution

/// Background transfer orders made while `backgroundd` is away (docs/transfers.md, "System
/// mode"): they wait for the reconnection, as calls that need an answer do, and fail with -1004
/// only when no daemon came back within the reconnection wait; a cancel ends a waiting one at
/// once. (`DaemonTransferTests.orderWhileDisconnected` has the daemon come back.)
@Suite("Transfer orders while backgroundd is away")
struct DaemonTransferClientTests {
    static let app: AppID = "com.example.transfers"

    static func order(_ task: Int) -> TransferOrder {
        TransferOrder(
            transfer: TransferCheckpoint(
                app: app,
                session: "s",
                task: task,
                kind: .download,
                method: "GET",
                url: "http://127.0.0.1:9/x"
            )
        )
    }

    /// Runs `body` on a thread of its own: the calls block for the wait, never the cooperative pool.
    static func onThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    @Test("an order waits the reconnection wait, then fails with -1004; a cancel ends a waiting one with -999 at once")
    func ordersWait() async throws {
        let (arrivals, waited) = await Self.onThread { () -> ([String], Duration) in
            let directory = NSTemporaryDirectory() + "transfer-client-\(UUID().uuidString)"
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let connection = DaemonConnection(
                configuration: .init(
                    app: Self.app,
                    endpoint: .socket(path: directory + "/nobody.sock"),
                    reconnectionWait: .milliseconds(300),
                    launchCompletion: .explicit
                )
            )
            let client = connection.transferClient
            let arrivals = Mutex<[String]>([])
            let completed = DispatchSemaphore(value: 0)
            _ = client.attach(TransferSessionOptions(app: Self.app, session: "s")) { event in
                guard case .completed(let transfer, _, _) = event else { return }
                arrivals.withLock { $0.append("\(transfer.task): \(transfer.outcome?.errorCode ?? 0)") }
                completed.signal()
            }
            let start = ContinuousClock.now
            client.submit(Self.order(1))
            client.submit(Self.order(2))
            client.cancel(app: Self.app, session: "s", task: 2, resumeData: nil)
            // Bounded: a completion that never comes fails the test instead of hanging it.
            _ = completed.wait(timeout: .now() + 30)
            _ = completed.wait(timeout: .now() + 30)
            let waited = ContinuousClock.now - start
            withExtendedLifetime(connection) {}
            return (arrivals.withLock { $0 }, waited)
        }
        #expect(arrivals == ["2: \(URLError.cancelled.rawValue)", "1: \(URLError.cannotConnectToHost.rawValue)"])
        #expect(waited >= .milliseconds(300), "the order waited for a connection first")
    }
}
