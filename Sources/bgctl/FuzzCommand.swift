import ArgumentParser
import BackgroundExecution
import BackgroundPosix
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
            actions removed while it keeps failing) and that scenario's event trace. The seeds \
            run in --jobs worker processes (one per CPU by default); this process reports what \
            they find in seed order and shrinks it itself, so the output is the same whatever \
            the number of workers. A worker that crashes is reported with its seeds (exit \
            status 70). On a terminal, progress is shown on standard error; nothing when it is \
            piped. Exit status 1 when a violation was found (docs/exit-codes.md).
            """
    )

    @Option(parsing: .unconditional, help: "How many seeds to run (at least 1).")
    var seeds: UInt64 = 100

    @Option(parsing: .unconditional, help: "The first seed.")
    var first: UInt64 = 0

    @Option(parsing: .unconditional, help: "Run this one seed only (overrides --seeds and --first).")
    var seed: UInt64?

    @Option(
        parsing: .unconditional,
        help: """
            How many worker processes run the seeds (default: one per CPU). 1 runs them in this \
            process.
            """
    )
    var jobs: Int?

    @Option(help: "Write each minimal scenario to this directory as fuzz-<seed>.json (created if missing).")
    var output: String?

    @Flag(help: "Print each seed's generated scenario instead of running it.")
    var print = false

    @Option(help: "Print each seed's event log before its result: none, normal or verbose (runs in this process).")
    var log: SimulateCommand.LogDetail = .none

    @Flag(
        help: """
            Send every event and answer through the bytes of the protocol a process boundary \
            carries (the encoding test transport; also BACKGROUND_ENCODE_MESSAGES=1).
            """
    )
    var encodeMessages = false

    @Flag(help: .private)
    var worker = false

    @Option(help: .private)
    var plantViolation: [UInt64] = []

    @Option(help: .private)
    var plantCrash: [UInt64] = []

    @OptionGroup var format: OutputOptions

    /// The most worker processes: each holds a simulator (about 50 MiB).
    static let maximumJobs = 256

    func validate() throws {
        if log != .none && format.json {
            throw ValidationError("--log prints text; it cannot be combined with --json")
        }
        if let jobs {
            guard (1...Self.maximumJobs).contains(jobs) else {
                throw ValidationError("--jobs must be from 1 to \(Self.maximumJobs), not \(jobs)")
            }
            if jobs > 1 && log != .none {
                throw ValidationError("--log prints every seed's log from this process; use it with --jobs 1")
            }
        }
        guard seed == nil, !worker else { return }
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

    /// How many worker processes run the seeds; 1 is this process alone (`--seed` and `--log`
    /// always are).
    var workerCount: Int {
        if seed != nil || log != .none { return 1 }
        return jobs ?? max(ProcessInfo.processInfo.activeProcessorCount, 1)
    }

    /// The fuzzer, with what the options plant.
    @MainActor
    var fuzzer: Fuzzer {
        var fuzzer = Fuzzer()
        if encodeMessages { fuzzer.encodesMessages = true }
        if !plantViolation.isEmpty { fuzzer.extraInvariants.append(FuzzPlant.violation(seeds: Set(plantViolation))) }
        return fuzzer
    }

    /// What a worker is started with: the options that change a seed's run.
    var workerArguments: [String] {
        ["fuzz", "--worker"] + (encodeMessages ? ["--encode-messages"] : [])
            + plantViolation.flatMap { ["--plant-violation", "\($0)"] }
            + plantCrash.flatMap { ["--plant-crash", "\($0)"] }
    }

    @MainActor
    func run() async throws {
        let fuzzer = self.fuzzer
        if worker { return try FuzzWorker.run(fuzzer, plantedCrashes: Set(plantCrash)) }
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
        let report = FuzzReport(fuzzer: fuzzer, directory: directory, printsText: !format.json, progress: progress)
        let jobs = workerCount
        var workers: FuzzResult.Workers?
        if jobs == 1 {
            try runInThisProcess(fuzzer, report: report, progress: progress)
        } else {
            workers = try runInWorkers(jobs, report: report, progress: progress)
        }
        progress.update(done: range.count)
        progress.finish()
        let result = FuzzResult(
            first: range.lowerBound,
            last: range.upperBound,
            count: range.count,
            elapsedSeconds: (ContinuousClock.now - started).seconds,
            jobs: jobs,
            findings: report.findings,
            workerFailures: report.workerFailures,
            workers: workers
        )
        fflush(nil)  // the reports went through print's buffer; the result goes straight to the descriptor
        try format.emit(result)
        if !report.workerFailures.isEmpty { throw ExitCode(ExitStatus.internalError.rawValue) }
        if !report.findings.isEmpty { throw ExitCode(ExitStatus.negativeAnswer.rawValue) }
    }

    /// Every seed in turn, in this process (`--jobs 1`, `--seed`, `--log`).
    @MainActor
    private func runInThisProcess(_ fuzzer: Fuzzer, report: FuzzReport, progress: TerminalProgress) throws {
        let plantedCrashes = Set(plantCrash)
        for (done, seed) in range.enumerated() {
            progress.update(done: done, note: report.note)
            if plantedCrashes.contains(seed) { FuzzPlant.crash(seed: seed) }
            if log != .none, let run = fuzzer.run(seed: seed) {
                progress.finish()
                Swift.print("seed \(seed): event log")
                Swift.print(run.simulator.logText(verbose: log == .verbose))
                fflush(nil)  // before the result, which goes straight to the file descriptor
            }
            if let finding = fuzzer.check(seed: seed) { try report.add(finding) }
        }
    }

    /// The seeds dealt to `jobs` worker processes (this executable with `--worker`); what they
    /// find is run again, shrunk and reported here, in seed order.
    @MainActor
    private func runInWorkers(_ jobs: Int, report: FuzzReport, progress: TerminalProgress) throws -> FuzzResult.Workers
    {
        let pool = FuzzWorkerPool(
            seeds: range,
            jobs: jobs,
            executable: "/proc/self/exe",
            arguments: workerArguments,
            environment: ProcessInfo.processInfo.environment
        )
        try pool.run(
            violation: { seed, invariant in try report.check(seed: seed, workerFound: invariant) },
            crash: { crash, standardError in report.add(crash, standardError: standardError) },
            progress: { done in progress.update(done: done, note: report.note) }
        )
        return FuzzResult.Workers(
            started: pool.workersStarted,
            userSeconds: pool.usages.reduce(0) { $0 + $1.userSeconds },
            systemSeconds: pool.usages.reduce(0) { $0 + $1.systemSeconds },
            peakResidentBytes: pool.usages.map(\.peakResidentBytes),
            parentPeakResidentBytes: SystemCall.peakResidentBytes
        )
    }
}
