import BackgroundCore
import BackgroundExecution
import BackgroundTransfers
import Foundation
import Testing
import TransferTestServer

/// The core's transfer rules applied by embedded mode: discretionary waiting, network rules,
/// pausing at a checkpoint, `earliestBeginDate`, force quit. Real transfers on the loopback server.
@Suite("Transfer scheduling in embedded mode")
struct TransferSchedulingTests {
    static let onBattery = DeviceConditions(powerSource: .battery, network: .cellular)
    static let plugged = DeviceConditions(powerSource: .externalPower, network: .wifi)

    @Test("a discretionary download waits for power and Wi-Fi (no request is sent), explains why, then runs")
    func discretionaryWaits() async throws {
        let harness = try await TransferHarness(device: Self.onBattery)
        let route = LoopbackRoute(size: 50_000)
        harness.server.set("/file", route)
        let task = harness.download("/file", requirements: TransferRequirements(isDiscretionary: true))
        let why = try #require(harness.transfers.eligibility(session: TransferHarness.session, task: task))
        #expect(why.unmet == [.requiresExternalPower, .requiresUnmeteredNetwork])
        #expect(why.request.identifier == "\(TransferHarness.session)#\(task)")
        #expect(harness.server.counters("/file").requests == 0)
        harness.transfers.setDevice(Self.plugged)
        let done = await harness.completion(of: task)
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        #expect(harness.transfers.eligibility(session: TransferHarness.session, task: task) == nil)
        await harness.stop()
    }

    @Test("a download that may not use cellular pauses at its checkpoint on cellular and resumes on Wi-Fi")
    func pausesOnCellular() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 600_000)
        route.stallAtOffset = 200_000
        harness.server.set("/file", route)
        let task = harness.download("/file", requirements: TransferRequirements(allowsCellularAccess: false))
        while harness.server.counters("/file").bytesSent < 200_000 { try await Task.sleep(for: .milliseconds(5)) }
        // Give the client the stalled bytes, so that a checkpoint holds them.
        var held: Int64 = 0
        while held < 100_000 {
            try await Task.sleep(for: .milliseconds(10))
            held = (try harness.store.transfers(of: TransferHarness.app).first { $0.task == task })?.bytesDone ?? 0
        }
        harness.transfers.setDevice(DeviceConditions(powerSource: .externalPower, network: .cellular))
        var paused = false
        while !paused {
            try await Task.sleep(for: .milliseconds(5))
            let why = harness.transfers.eligibility(session: TransferHarness.session, task: task)
            paused = why?.unmet == [.cellularNotAllowed]
        }
        #expect(harness.events.withLock { $0 }.allSatisfy { if case .completed = $0 { false } else { true } })
        harness.server.change("/file") { $0.stallAtOffset = nil }
        harness.transfers.setDevice(Self.plugged)
        let done = await harness.completion(of: task)
        #expect(done.outcome.errorCode == nil)
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        // The second request resumed from the paused download's checkpoint, not from zero.
        let starts = harness.server.counters("/file").rangeStarts
        #expect(starts.count == 1 && (starts.first ?? 0) >= 100_000, "\(starts)")
        await harness.stop()
    }

    @Test("earliestBeginDate: nothing is requested before it, and cancelling the waiting task ends it with -999")
    func earliestBeginAndCancel() async throws {
        let harness = try await TransferHarness()
        harness.server.set("/file", LoopbackRoute(size: 10_000))
        let later = harness.download("/file", earliestBegin: Date().addingTimeInterval(3600))
        let why = try #require(harness.transfers.eligibility(session: TransferHarness.session, task: later))
        guard case .notBefore = why.unmet.first else {
            Issue.record("expected notBefore, got \(why.unmet)")
            return
        }
        let soon = harness.download("/file", earliestBegin: Date().addingTimeInterval(0.3))
        let done = await harness.completion(of: soon)
        #expect(done.outcome.statusCode == 200)
        #expect(harness.server.counters("/file").requests == 1)
        harness.transfers.cancel(
            app: TransferHarness.app,
            session: TransferHarness.session,
            task: later,
            resumeData: nil
        )
        let cancelled = await harness.completion(of: later)
        #expect(cancelled.outcome.errorCode == -999)
        #expect(cancelled.outcome.cancellationReason == nil)
        #expect(harness.server.counters("/file").requests == 1)
        await harness.stop()
    }

    @Test("force quit cancels every transfer (running and waiting) with -999 and reason 0; new ones wait until opened")
    func forceQuit() async throws {
        let harness = try await TransferHarness()
        var route = LoopbackRoute(size: 400_000)
        route.stallAtOffset = 100_000
        harness.server.set("/file", route)
        let running = harness.download("/file")
        let waiting = harness.download("/file", earliestBegin: Date().addingTimeInterval(3600))
        while harness.server.counters("/file").bytesSent < 100_000 { try await Task.sleep(for: .milliseconds(5)) }
        harness.transfers.forceQuit()
        for task in [running, waiting] {
            let done = await harness.completion(of: task)
            #expect(done.outcome.errorCode == -999, "\(done.outcome)")
            #expect(done.outcome.cancellationReason == TransferCancellationReason.userForceQuitApplication.rawValue)
        }
        harness.server.change("/file") { $0.stallAtOffset = nil }
        let after = harness.download("/file")
        let why = try #require(harness.transfers.eligibility(session: TransferHarness.session, task: after))
        #expect(why.unmet == [.forceQuit])
        #expect(harness.server.counters("/file").requests == 1)
        harness.transfers.openedByUser()
        let done = await harness.completion(of: after)
        #expect(done.bodyDigest == TransferHarness.sha256(route.body()), "\(done.outcome)")
        await harness.stop()
    }
}
