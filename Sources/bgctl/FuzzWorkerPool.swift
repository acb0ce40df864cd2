import BackgroundExecution
import BackgroundPosix
import BackgroundSimulator
import CommandOutput

#if canImport(Glibc)
import Glibc
#endif

/// `bgctl fuzz --jobs N` with N above 1: worker processes (`bgctl fuzz --worker`) run the seeds,
/// this process deals them batches through their standard input (``SeedDealer``), reads their
/// results from their standard output and hands them on in seed order. One thread, one `poll`.
///
/// A worker's standard error is kept (its last 4 KiB) for the report of a crash; the workers
/// run with the Swift runtime's backtracer off unless `SWIFT_BACKTRACE` says otherwise, so a
/// crash reads as its one fatal-error line (`bgctl fuzz --seed <seed>` shows the backtrace).
@MainActor
final class FuzzWorkerPool {
    /// A worker process and the ends of its pipes this process holds.
    private struct WorkerProcess {
        let pid: pid_t
        var input: Int32?
        var output: Int32?
        var error: Int32?
        /// Output after its last newline.
        var partial: [UInt8] = []
        /// Violations of the batch being reported, until its `done` line.
        var violations: [(seed: UInt64, invariant: String)] = []
    }

    /// What a worker used, read when it ended.
    struct Usage {
        var userSeconds: Double
        var systemSeconds: Double
        var peakResidentBytes: Int
    }

    private static let errorTailBytes = 4096

    private var dealer: SeedDealer
    private let executable: String
    /// The workers' `argv[0]`: this executable's path, so that `ps` shows `bgctl fuzz --worker`.
    private let name: String
    private let arguments: [String]
    private let environment: [String]
    private var processes: [SeedDealer.Worker: WorkerProcess] = [:]
    /// The end of each worker's standard error, kept for a crash reported later.
    private var errorTails: [SeedDealer.Worker: [UInt8]] = [:]
    private var abandoned: String?
    /// What each worker used, in the order they ended.
    private(set) var usages: [Usage] = []

    /// A pool for `seeds` with `jobs` workers, each started as `executable arguments`.
    init(seeds: ClosedRange<UInt64>, jobs: Int, executable: String, arguments: [String], environment: [String: String])
    {
        dealer = SeedDealer(
            seeds: seeds,
            batchSize: SeedDealer.batchSize(count: seeds.count, jobs: jobs),
            jobs: jobs
        )
        self.executable = executable
        self.name = SystemCall.linkTarget(executable) ?? executable
        self.arguments = arguments
        var environment = environment
        if environment["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
        self.environment = environment.map { "\($0.key)=\($0.value)" }.sorted()
    }

    /// How many workers were started in all (replacements of crashed ones included).
    var workersStarted: Int { usages.count + processes.count }

    /// Runs every seed. `violation` gets each seed a worker found breaking an invariant, and
    /// `crash` each crash with the end of its worker's standard error, both in seed order;
    /// `progress` the number of seeds reported so far.
    func run(
        violation: (UInt64, String) throws -> Void,
        crash: (SeedDealer.Crash, String) throws -> Void,
        progress: (Int) -> Void
    ) throws {
        SystemCall.ignoreBrokenPipes(true)
        defer {
            for worker in processes.keys.sorted() { stopAbruptly(worker) }
            SystemCall.ignoreBrokenPipes(false)
        }
        try carryOut(dealer.start(), violation: violation, crash: crash)
        while !processes.isEmpty {
            try readReady(violation: violation, crash: crash)
            progress(dealer.merged)
        }
        if let abandoned { throw CommandFailure(.internalError, "workers", abandoned) }
        guard dealer.isOver else {
            throw CommandFailure(.internalError, "workers", "every worker ended with seeds left to run")
        }
    }

    // MARK: Actions

    private func carryOut(
        _ actions: [SeedDealer.Action],
        violation: (UInt64, String) throws -> Void,
        crash: (SeedDealer.Crash, String) throws -> Void
    ) throws {
        for action in actions {
            switch action {
            case .start(let worker): try start(worker)
            case .send(let worker, let batch):
                // A worker that died meanwhile is seen at the end of its output: ignore EPIPE here.
                if let input = processes[worker]?.input {
                    try? SystemCall.writeLine(input, FuzzWorkerLine.batch(batch))
                }
            case .stop(let worker):
                if let input = processes[worker]?.input {
                    SystemCall.close(input)
                    processes[worker]?.input = nil
                }
            case .violation(let seed, let invariant): try violation(seed, invariant)
            case .crash(let found):
                let tail = errorTails[found.worker] ?? []
                try crash(found, String(decoding: tail, as: UTF8.self))
            case .abandon(let reason): abandoned = abandoned ?? reason
            case .finish: break
            }
        }
    }

    private func start(_ worker: SeedDealer.Worker) throws {
        do {
            let input = try SystemCall.closeOnExecPipe()
            let output = try SystemCall.closeOnExecPipe()
            let error = try SystemCall.closeOnExecPipe()
            let pid = try SystemCall.spawn(
                executable,
                name: name,
                arguments: arguments,
                environment: environment,
                standardInput: input.read,
                standardOutput: output.write,
                standardError: error.write
            )
            for descriptor in [input.read, output.write, error.write] { SystemCall.close(descriptor) }
            processes[worker] = WorkerProcess(pid: pid, input: input.write, output: output.read, error: error.read)
        } catch {
            throw CommandFailure(.internalError, executable, "cannot start a worker: \(error)")
        }
    }

    // MARK: Reading

    private func readReady(
        violation: (UInt64, String) throws -> Void,
        crash: (SeedDealer.Crash, String) throws -> Void
    ) throws {
        var watched: [(worker: SeedDealer.Worker, isOutput: Bool)] = []
        var descriptors: [pollfd] = []
        for (worker, process) in processes.sorted(by: { $0.key < $1.key }) {
            if let output = process.output {
                watched.append((worker, true))
                descriptors.append(pollfd(fd: output, events: Int16(POLLIN), revents: 0))
            }
            if let error = process.error {
                watched.append((worker, false))
                descriptors.append(pollfd(fd: error, events: Int16(POLLIN), revents: 0))
            }
        }
        if !descriptors.isEmpty {
            do {
                _ = try SystemCall.poll(&descriptors)
            } catch {
                throw CommandFailure(.internalError, "workers", "\(error)")
            }
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
            let (worker, isOutput) = watched[index]
            let count = buffer.withUnsafeMutableBytes { bytes in
                (try? SystemCall.read(descriptor.fd, into: bytes)) ?? 0
            }
            if count == 0 {
                SystemCall.close(descriptor.fd)
                if isOutput { processes[worker]?.output = nil } else { processes[worker]?.error = nil }
            } else if isOutput {
                try received(buffer[..<count], from: worker, violation: violation, crash: crash)
            } else {
                var tail = errorTails[worker, default: []]
                tail.append(contentsOf: buffer[..<count])
                errorTails[worker] = Array(tail.suffix(Self.errorTailBytes))
            }
        }
        for (worker, process) in processes.sorted(by: { $0.key < $1.key })
        where process.output == nil && process.error == nil {
            try ended(worker, violation: violation, crash: crash)
        }
    }

    private func received(
        _ bytes: ArraySlice<UInt8>,
        from worker: SeedDealer.Worker,
        violation: (UInt64, String) throws -> Void,
        crash: (SeedDealer.Crash, String) throws -> Void
    ) throws {
        guard var process = processes[worker] else { return }
        process.partial.append(contentsOf: bytes)
        var lines: [FuzzWorkerLine] = []
        while let newline = process.partial.firstIndex(of: UInt8(ascii: "\n")) {
            let text = String(decoding: process.partial[..<newline], as: UTF8.self)
            process.partial.removeSubrange(...newline)
            guard let line = FuzzWorkerLine(parsing: text[...]) else {
                throw CommandFailure(
                    .internalError,
                    "worker \(worker)",
                    "wrote a line that is not a result: \"\(text)\""
                )
            }
            lines.append(line)
        }
        processes[worker] = process
        for line in lines {
            switch line {
            case .violation(let seed, let invariant): processes[worker]?.violations.append((seed, invariant))
            case .done(let batch):
                let found = processes[worker]?.violations ?? []
                processes[worker]?.violations = []
                try carryOut(
                    dealer.finished(worker: worker, batch: batch, violations: found),
                    violation: violation,
                    crash: crash
                )
            }
        }
    }

    /// A worker's output and error are at their end: reap it and tell the dealer how it ended.
    private func ended(
        _ worker: SeedDealer.Worker,
        violation: (UInt64, String) throws -> Void,
        crash: (SeedDealer.Crash, String) throws -> Void
    ) throws {
        guard let process = processes.removeValue(forKey: worker) else { return }
        if let input = process.input { SystemCall.close(input) }
        let end: SystemCall.ChildEnd
        do {
            end = try SystemCall.wait(for: process.pid)
        } catch {
            throw CommandFailure(.internalError, "worker \(worker)", "\(error)")
        }
        usages.append(
            Usage(
                userSeconds: Double(end.usage.ru_utime.tv_sec) + Double(end.usage.ru_utime.tv_usec) / 1e6,
                systemSeconds: Double(end.usage.ru_stime.tv_sec) + Double(end.usage.ru_stime.tv_usec) / 1e6,
                peakResidentBytes: end.usage.ru_maxrss * 1024
            )
        )
        let ending: SeedDealer.Ending = end.signal.map { .signalled($0) } ?? .exited(end.exitStatus ?? -1)
        try carryOut(dealer.ended(worker: worker, ending), violation: violation, crash: crash)
    }

    /// Kills a worker left running when the run stops early (an error, an abandoned run), and reaps it.
    private func stopAbruptly(_ worker: SeedDealer.Worker) {
        guard let process = processes.removeValue(forKey: worker) else { return }
        for descriptor in [process.input, process.output, process.error].compactMap({ $0 }) {
            SystemCall.close(descriptor)
        }
        SystemCall.killNow(process.pid)
        _ = try? SystemCall.wait(for: process.pid)
    }
}
