import Testing

@testable import BackgroundCore
@testable import BackgroundSimulator

/// The transfer invariant (`transfersHold`), broken on purpose: a completion while the device is
/// offline, more bytes than the size, a completion after a force quit; each is a violation, and
/// a correct completion is none.
@MainActor
@Suite("Invariant checker: the transfer rules can fail")
struct TransferInvariantTests {
    static func transfer(size: Int64, done: Double) -> SimulatedTransfer {
        var transfer = SimulatedTransfer(
            checkpoint: TransferCheckpoint(
                app: "com.example.t",
                session: "s",
                task: 1,
                kind: .download,
                method: "GET",
                url: "https://e.com/a"
            ),
            resource: VirtualResource(size: size)
        )
        transfer.done = done
        return transfer
    }

    @Test("Offline, over its size, after a force quit: three violations; a correct completion: none")
    func eachRuleFails() {
        let simulator = Simulator()
        let success = TransferOutcome(statusCode: 200)
        simulator.checkTransferCompletion(Self.transfer(size: 10, done: 10), outcome: success, forceQuit: false)
        #expect(simulator.violations.isEmpty)

        simulator.device.setNetwork(.none)
        simulator.checkTransferCompletion(Self.transfer(size: 10, done: 10), outcome: success, forceQuit: false)
        #expect(simulator.violations.last?.message == "s#1 completed with no network")
        simulator.device.setNetwork(.wifi)
        simulator.checkTransferCompletion(Self.transfer(size: 10, done: 11), outcome: success, forceQuit: false)
        #expect(simulator.violations.last?.message == "s#1 moved 11 bytes of 10")
        simulator.checkTransferCompletion(Self.transfer(size: 10, done: 10), outcome: success, forceQuit: true)
        #expect(simulator.violations.last?.message == "s#1 completed after its app was force-quit")
        let cancelled = TransferOutcome(errorCode: -999, cancellationReason: 0)
        simulator.checkTransferCompletion(Self.transfer(size: 10, done: 3), outcome: cancelled, forceQuit: true)
        #expect(simulator.violations.count == 3)
        #expect(simulator.violations.allSatisfy { $0.invariant == .transfersHold && $0.app == "com.example.t" })
    }
}
