import ArgumentParser
import BackgroundSimulator
import CommandOutput
import Foundation

/// `bgctl simulate <scenario.json>`: run a scenario on the simulator.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a scenario on the simulated device and print its summary and event log.",
        discussion: """
            Reads a scenario (docs/scenarios.md, schemas/scenario.schema.json), runs it in \
            virtual time with the invariants checked after every event, prints a summary and \
            the event log, and checks the scenario's expectations. Exit status: 0 when every \
            expectation held and no invariant was violated (unless the scenario expects \
            violations), 1 otherwise, 65 when the scenario is malformed, 66 when it cannot be \
            read, 73 when the --timeline file cannot be created (checked before the run).
            """
    )

    @Argument(help: "The scenario file (JSON).")
    var scenario: String

    @Option(help: "Write a self-contained HTML timeline of the run to this file.")
    var timeline: String?

    @Option(help: "How much of the event log to print: none, normal or verbose.")
    var log: LogDetail = .normal

    enum LogDetail: String, ExpressibleByArgument {
        case none, normal, verbose
    }

    @MainActor
    func run() async throws {
        let file = try PathCheck.readableFile(scenario)
        if let timeline { try PathCheck.creatableFile(timeline) }
        let loaded: Scenario
        do {
            loaded = try Scenario.load(contentsOf: file)
        } catch {
            throw CommandFailure(error.code == .unreadable ? .inputMissing : .badInput, "", error.description)
        }
        let run: ScenarioRun
        do {
            run = try ScenarioRun(loaded)
        } catch {
            throw CommandFailure(.badInput, scenario, String(describing: error))
        }
        if log != .none {
            print("event log")
            print(run.simulator.logText(verbose: log == .verbose))
            print("")
        }
        print(run.summary)
        if let timeline {
            let document = TimelineDocument(
                simulator: run.simulator,
                title: loaded.name,
                subtitle: "seed \(loaded.seed) · policy \(run.simulator.configuration.policy.name) · \(scenario)"
            )
            do {
                try TimelineRenderer.html(for: document).write(toFile: timeline, atomically: true, encoding: .utf8)
            } catch {
                throw CommandFailure(error, subject: timeline, defaultStatus: .ioError)
            }
            print("timeline: \(timeline)")
        }
        if !run.passed { throw ExitCode(1) }
    }
}
