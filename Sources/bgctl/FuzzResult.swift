import BackgroundSimulator
import CommandOutput
import Foundation

/// What `bgctl fuzz` found: the final count, each violation, and each worker that failed.
///
/// The JSON shape (`--json`), documented in docs/scenarios.md:
/// `{"first", "last", "count", "elapsedSeconds", "jobs", "findings": [{"seed", "invariant",
/// "message", "minimalScenario", "writtenTo"?}], "workerFailures": [{"first", "last", "seed"?,
/// "reason", "standardError"?}], "workers"?: {"started", "userSeconds", "systemSeconds",
/// "peakResidentBytes": [per worker], "parentPeakResidentBytes"}}`.
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

    /// A worker process that crashed, or a seed whose result differed between a worker and
    /// this process: a bug in the project either way (exit status 70).
    struct WorkerFailure: Encodable {
        /// The seeds concerned: a whole batch, or the one seed found.
        var first: UInt64
        var last: UInt64
        /// The seed that crashed or differed, when known.
        var seed: UInt64?
        var reason: String
        /// The end of the worker's standard error, if it wrote anything.
        var standardError: String?

        var text: String {
            let seeds = first == last ? "seed \(first)" : "seeds \(first)...\(last)"
            var lines = ["\(seeds): \(reason)"]
            if let seed { lines.append("reproduce in one process: bgctl fuzz --seed \(seed)") }
            if let standardError {
                lines.append("its standard error ended with:")
                lines.append(standardError)
            }
            return lines.joined(separator: "\n")
        }
    }

    /// What the worker processes used (absent when one process ran every seed).
    struct Workers: Encodable {
        /// How many were started (more than `jobs` when crashed ones were replaced).
        var started: Int
        /// CPU time of all of them.
        var userSeconds: Double
        var systemSeconds: Double
        /// Each worker's peak resident set, in the order they ended.
        var peakResidentBytes: [Int]
        /// This process's own peak resident set (it deals, merges and shrinks).
        var parentPeakResidentBytes: Int
    }

    var first: UInt64
    var last: UInt64
    var count: Int
    var elapsedSeconds: Double
    var jobs: Int
    var findings: [Finding]
    var workerFailures: [WorkerFailure]
    var workers: Workers?

    var text: String {
        let rate = elapsedSeconds > 0 ? Double(count) / elapsedSeconds : 0
        var verdicts: [String] = []
        if !findings.isEmpty { verdicts.append("\(findings.count) seed(s) violated an invariant") }
        if !workerFailures.isEmpty { verdicts.append("\(workerFailures.count) worker failure(s)") }
        let verdict = verdicts.isEmpty ? "no invariant violated" : verdicts.joined(separator: "; ")
        return "fuzzed \(count) seed(s) \(first)...\(last) in \(String(format: "%.2f", elapsedSeconds)) s "
            + "(\(Int(rate)) seeds/s\(workers.map { ", " + describe($0) } ?? "")): \(verdict)\n"
    }

    /// The workers in words: how many, and their memory (each worker's peak, and the most all of
    /// them and this process can hold at once: this process and the `jobs` largest peaks).
    private func describe(_ workers: Workers) -> String {
        let mebibytes = { (bytes: Int) in String(format: "%.1f", Double(bytes) / 1_048_576) }
        let peaks = workers.peakResidentBytes.sorted(by: >)
        let total = peaks.prefix(jobs).reduce(workers.parentPeakResidentBytes, +)
        let started = workers.started > jobs ? " (\(workers.started) started)" : ""
        return "\(jobs) workers\(started), peak RSS \(mebibytes(peaks.first ?? 0)) MiB per worker, "
            + "\(mebibytes(total)) MiB in all"
    }
}

/// Collects and prints `bgctl fuzz`'s results as they come, in seed order: each finding (and
/// its minimal scenario written to `--output`), each worker failure.
@MainActor
final class FuzzReport {
    private let fuzzer: Fuzzer
    private let directory: URL?
    private let printsText: Bool
    private let progress: TerminalProgress
    private(set) var findings: [FuzzResult.Finding] = []
    private(set) var workerFailures: [FuzzResult.WorkerFailure] = []

    init(fuzzer: Fuzzer, directory: URL?, printsText: Bool, progress: TerminalProgress) {
        self.fuzzer = fuzzer
        self.directory = directory
        self.printsText = printsText
        self.progress = progress
    }

    /// The note beside the progress count.
    var note: String {
        let problems = findings.count + workerFailures.count
        return problems == 0 ? "" : "\(problems) problem(s)"
    }

    /// A seed whose run broke an invariant: already shrunk, in this process.
    func add(_ finding: Fuzzer.Finding) throws {
        var written: String?
        if let directory {
            let path = directory.appendingPathComponent("fuzz-\(finding.seed).json")
            do {
                try finding.minimal.jsonData().write(to: path)
            } catch {
                throw CommandFailure(error, subject: path.path, defaultStatus: .ioError)
            }
            written = path.path
        }
        if printsText {
            progress.finish()
            Swift.print(finding.report)
            if let written { Swift.print("written: \(written)") }
        }
        findings.append(FuzzResult.Finding(finding, written: written))
    }

    /// A seed a worker found breaking `invariant`: run again here, shrunk and reported as a
    /// single process would; a run here that differs is a worker failure too.
    func check(seed: UInt64, workerFound invariant: String) throws {
        let finding = fuzzer.check(seed: seed)
        if let finding { try add(finding) }
        guard finding?.violation.invariant.rawValue != invariant else { return }
        let here = finding.map { "breaks \($0.violation.invariant.rawValue)" } ?? "breaks no invariant"
        add(
            FuzzResult.WorkerFailure(
                first: seed,
                last: seed,
                seed: seed,
                reason: "a worker found \(invariant), but the seed run in this process \(here): "
                    + "the run differs between processes",
                standardError: nil
            )
        )
    }

    /// A worker that crashed running seeds, with the end of its standard error.
    func add(_ crash: SeedDealer.Crash, standardError: String) {
        let reason: String
        if let seed = crash.seed {
            reason = "worker \(crash.worker) \(crash.ending) running seed \(seed)"
        } else {
            reason = "worker \(crash.worker) \(crash.ending) running them; run again one seed at a time, none crashed"
        }
        let trimmed = standardError.trimmingCharacters(in: .whitespacesAndNewlines)
        add(
            FuzzResult.WorkerFailure(
                first: crash.seeds.lowerBound,
                last: crash.seeds.upperBound,
                seed: crash.seed,
                reason: reason,
                standardError: trimmed.isEmpty ? nil : trimmed
            )
        )
    }

    private func add(_ failure: FuzzResult.WorkerFailure) {
        if printsText {
            progress.finish()
            Swift.print(failure.text)
        }
        workerFailures.append(failure)
    }
}
