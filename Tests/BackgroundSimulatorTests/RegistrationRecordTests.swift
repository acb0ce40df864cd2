import BackgroundSimulatorTesting
import Dispatch
import Testing

@testable import BackgroundSimulator

// One record of a registration (docs/core-contract.md): every registration path (the embedded
// system, the simulator on and off the main actor: both through `Simulator.registerTaskHandler`,
// the daemon's client) hands the system's
// answer to `RuntimeTables.recordRegistration(_:identifier:_:)`, the one place a launch handler
// enters the tables (`taskHandlers` is `private(set)`, so the compiler enforces it). Only a
// registration the system registered is recorded: a refused one and a misuse it faults on are not.

@MainActor
@Suite("One record of a registration in the simulator")
struct RegistrationRecordTests {
    @Test("Registered handlers are recorded, with their queue; refused, duplicate and late ones are not")
    func onlyRegisteredHandlersAreRecorded() throws {
        let simulator = Simulator()
        var faults: [String] = []
        simulator.onFault = { faults.append($0.message) }
        let first = DispatchQueue(label: "refresh.first")
        let answers = Seen<Bool>()
        let app = simulator.install("com.example.news", permittedTaskIdentifiers: ["refresh", "late"]) { process in
            let scheduler = BGTaskScheduler.shared
            answers.append(scheduler.register(forTaskWithIdentifier: "refresh", using: first) { _ in })
            answers.append(scheduler.register(forTaskWithIdentifier: "unlisted", using: nil) { _ in })
            answers.append(
                scheduler.register(forTaskWithIdentifier: "refresh", using: DispatchQueue(label: "again")) { _ in }
            )
            process.after(.seconds(1)) {
                answers.append(scheduler.register(forTaskWithIdentifier: "late", using: nil) { _ in })
            }
        }
        simulator.user.open(app)
        simulator.advance(by: .seconds(2))
        let process = try #require(simulator.process(of: app))
        #expect(answers.all == [true, false, false, false])
        #expect(process.tables.taskHandlers.keys.sorted() == ["refresh"])
        #expect(process.tables.taskHandlers["refresh"]?.queue === first, "the first registration is kept")
        #expect(faults.count == 2, "the duplicate and the late registration are faults: \(faults)")
    }

}
