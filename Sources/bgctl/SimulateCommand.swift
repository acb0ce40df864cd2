import ArgumentParser
import BackgroundExecution
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

    enum LogDetail: String, ExpressibleByArgument, CaseIterable {
        case none, normal, verbose
    }

    @OptionGroup var format: OutputOptions

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
        var text = ""
        if log != .none && !format.json {
            text += "event log\n" + run.simulator.logText(verbose: log == .verbose) + "\n\n"
        }
        text += run.summary + "\n"
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
            text += "timeline: \(timeline)\n"
        }
        try format.emit(SimulateResult(run: run, file: scenario, timeline: timeline, text: text))
        if !run.passed { throw ExitCode(ExitStatus.negativeAnswer.rawValue) }
    }
}

/// `bgctl simulate`'s answer: the verdict, what failed, every termination (in the report
/// format of `schemas/termination-report.schema.json`) and every invariant violation.
struct SimulateResult: CommandResult {
    struct Violation: Encodable {
        var invariant: String
        var message: String
        var atSeconds: Double
        var app: String?
    }

    var scenario: String
    var name: String
    var seed: UInt64
    var policy: String
    var passed: Bool
    var failures: [String]
    var terminations: [TerminationReportDocument]
    var violations: [Violation]
    var events: Int
    var timeline: String?
    var text: String

    @MainActor
    init(run: ScenarioRun, file: String, timeline: String?, text: String) {
        scenario = file
        name = run.scenario.name
        seed = run.scenario.seed
        policy = run.simulator.configuration.policy.name
        passed = run.passed
        failures = run.failures
        terminations = run.simulator.reports.map { TerminationReportDocument($0) }
        violations = run.simulator.violations.map {
            Violation(
                invariant: $0.invariant.rawValue,
                message: $0.message,
                atSeconds: $0.at.seconds,
                app: $0.app?.bundleIdentifier
            )
        }
        events = run.simulator.events.count
        self.timeline = timeline
        self.text = text
    }

    enum CodingKeys: String, CodingKey {
        case scenario, name, seed, policy, passed, failures, terminations, violations, events, timeline
    }
}
