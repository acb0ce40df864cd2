import ArgumentParser
import BackgroundSimulator
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
            violations), 1 otherwise, 2 when the scenario cannot be read.
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
        let loaded: Scenario
        do {
            loaded = try Scenario.load(contentsOf: URL(fileURLWithPath: scenario))
        } catch {
            FileHandle.standardError.write(Data("bgctl simulate: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let run: ScenarioRun
        do {
            run = try ScenarioRun(loaded)
        } catch {
            FileHandle.standardError.write(Data("bgctl simulate: \(error)\n".utf8))
            throw ExitCode(2)
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
            try TimelineRenderer.html(for: document).write(toFile: timeline, atomically: true, encoding: .utf8)
            print("timeline: \(timeline)")
        }
        if !run.passed { throw ExitCode(1) }
    }
}
