import ArgumentParser
import BackgroundSimulator
import CommandOutput
import Foundation

/// `bgctl fuzz --seeds N`: random device, user and app behaviour with the invariants checked.
struct FuzzCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Run random scenarios with the invariants checked after every event.",
        discussion: """
            Each seed generates one scenario: up to 4 apps with random behaviour (correct and \
            careless), up to 60 device and user steps, up to 2 days. A violation prints the \
            seed, the invariant, a minimal scenario that still breaks it (apps, steps and \
            actions removed while it keeps failing) and that scenario's event trace. On a \
            terminal, progress is shown on standard error; nothing when it is piped. Exit \
            status 1 when anything was found (docs/exit-codes.md).
            """
    )

    @Option(parsing: .unconditional, help: "How many seeds to run (at least 1).")
    var seeds: UInt64 = 100

    @Option(parsing: .unconditional, help: "The first seed.")
    var first: UInt64 = 0

    @Option(parsing: .unconditional, help: "Run this one seed only (overrides --seeds and --first).")
    var seed: UInt64?

    @Option(help: "Write each minimal scenario to this directory as fuzz-<seed>.json (created if missing).")
    var output: String?

    @Flag(help: "Print each seed's generated scenario instead of running it.")
    var print = false

    @Option(help: "Print each seed's event log before its result: none, normal or verbose.")
    var log: SimulateCommand.LogDetail = .none

    @Flag(
        help: """
            Send every event and answer through the bytes of the protocol a process boundary \
            carries (the encoding test transport; also BACKGROUND_ENCODE_MESSAGES=1).
            """
    )
    var encodeMessages = false

    @OptionGroup var format: OutputOptions

    func validate() throws {
        if log != .none && format.json {
            throw ValidationError("--log prints text; it cannot be combined with --json")
        }
        guard seed == nil else { return }
        guard seeds >= 1 else { throw ValidationError("--seeds must be at least 1, not \(seeds)") }
        guard seeds <= UInt64(Int.max) else { throw ValidationError("--seeds must be at most \(Int.max)") }
        guard !first.addingReportingOverflow(seeds - 1).overflow else {
            throw ValidationError(
                "--first \(first) with --seeds \(seeds) goes past the last seed, \(UInt64.max); "
                    + "use at most --seeds \(UInt64.max - first + 1)"
            )
        }
    }

    /// The seeds to run, last included (validated: never overflows).
    var range: ClosedRange<UInt64> { seed.map { $0...$0 } ?? first...(first + (seeds - 1)) }

    @MainActor
    func run() async throws {
        var fuzzer = Fuzzer()
        if encodeMessages { fuzzer.encodesMessages = true }
        if print {
            for seed in range {
                Swift.print(String(decoding: fuzzer.generator.scenario(seed: seed).jsonData(), as: UTF8.self))
            }
            return
        }
        let directory = try output.map { try PathCheck.creatableDirectory($0) }
        let started = ContinuousClock.now
        let progress = TerminalProgress(
            total: range.count,
            label: "seeds",
            enabled: !format.json && TerminalProgress.standardErrorIsTerminal
        )
        var findings: [FuzzResult.Finding] = []
        for (done, seed) in range.enumerated() {
            progress.update(done: done, note: findings.isEmpty ? "" : "\(findings.count) violation(s)")
            if log != .none, let run = fuzzer.run(seed: seed) {
                progress.finish()
                Swift.print("seed \(seed): event log")
                Swift.print(run.simulator.logText(verbose: log == .verbose))
                fflush(nil)  // before the result, which goes straight to the file descriptor
            }
            guard let finding = fuzzer.check(seed: seed) else { continue }
            var written: String?
            if let directory {
                let path = directory.appendingPathComponent("fuzz-\(seed).json")
                do {
                    try finding.minimal.jsonData().write(to: path)
                } catch {
                    throw CommandFailure(error, subject: path.path, defaultStatus: .ioError)
                }
                written = path.path
            }
            progress.finish()
            if !format.json {
                Swift.print(finding.report)
                if let written { Swift.print("written: \(written)") }
            }
            findings.append(FuzzResult.Finding(finding, written: written))
        }
        progress.update(done: range.count)
        progress.finish()
        let result = FuzzResult(
            first: range.lowerBound,
            last: range.upperBound,
            count: range.count,
            elapsedSeconds: (ContinuousClock.now - started).seconds,
            findings: findings
        )
        try format.emit(result)
        if !findings.isEmpty { throw ExitCode(ExitStatus.negativeAnswer.rawValue) }
    }

}

/// What `bgctl fuzz` found: the final count, and each violation.
struct FuzzResult: CommandResult {
    /// One violated invariant.
    struct Finding: Encodable {
        var seed: UInt64
        var invariant: String
        var message: String
        var minimalScenario: JSONValue
        var writtenTo: String?

        init(_ finding: Fuzzer.Finding, written: String?) {
            seed = finding.seed
            invariant = finding.violation.invariant.rawValue
            message = finding.violation.message
            // The scenario's own encoding, parsed back: it is always valid JSON.
            minimalScenario = (try? JSONValue(parsing: finding.minimal.jsonData())) ?? .null
            writtenTo = written
        }
    }

    var first: UInt64
    var last: UInt64
    var count: Int
    var elapsedSeconds: Double
    var findings: [Finding]

    var text: String {
        let rate = elapsedSeconds > 0 ? Double(count) / elapsedSeconds : 0
        let verdict = findings.isEmpty ? "no invariant violated" : "\(findings.count) seed(s) violated an invariant"
        return "fuzzed \(count) seed(s) \(first)...\(last) in \(String(format: "%.2f", elapsedSeconds)) s "
            + "(\(Int(rate)) seeds/s): \(verdict)\n"
    }
}
