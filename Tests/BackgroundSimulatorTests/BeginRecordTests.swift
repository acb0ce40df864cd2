import BackgroundSimulatorTesting
import Testing

@testable import BackgroundSimulator

// One record of a grant (docs/core-contract.md): every begin path hands its answer to
// `RuntimeTables.recordBegin(_:handler:)` and every end to `recordEnd(_:)`, so the simulator's
// tables keep a handler exactly as long as the embedded system's do. Before, the simulator kept
// an ended assertion's handler until its process ended.

@MainActor
@Suite("One record of a granted begin in the simulator", .simulatorFaultsFailTheTest)
struct BeginRecordTests {
    @Test("An ended assertion's handler is forgotten at once; an expired one's handler runs once")
    func endedHandlerIsForgotten() throws {
        let simulator = Simulator()
        let expired = Seen<String>()
        let app = simulator.install("com.example.save") { process in
            let application = process.application
            let first = application.beginBackgroundTask(withName: "Ended") { expired.append("Ended") }
            _ = application.beginBackgroundTask(withName: "Kept") { expired.append("Kept") }
            process.after(.seconds(1)) { application.endBackgroundTask(first) }
        }
        simulator.user.open(app)
        simulator.runPending()
        let process = try #require(simulator.process(of: app))
        #expect(process.tables.handlers.count == 2)
        simulator.advance(by: .seconds(2))
        #expect(process.tables.handlers.count == 1, "the ended assertion's handler is gone")
        simulator.user.goHome()
        simulator.advance(by: .seconds(60))
        #expect(expired.all == ["Kept"], "only the outstanding assertion expired")
        #expect(process.tables.handlers.count == 0)
    }
}
