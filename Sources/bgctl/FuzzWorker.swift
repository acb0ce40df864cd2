import BackgroundExecution
import BackgroundPosix
import BackgroundSimulator
import CommandOutput

#if canImport(Glibc)
import Glibc
#endif

/// The lines between `bgctl fuzz --jobs N` and its workers (`bgctl fuzz --worker`), one message
/// a line, in ASCII:
///
/// ```text
/// parent → worker:  1000 1063                      a batch: run seeds 1000...1063
/// worker → parent:  violation 1017 limitsHold      a seed whose run broke an invariant
///                   done 1000 1063                 the batch is finished
/// ```
///
/// A worker reports only which seeds broke which invariant: the parent runs those again, shrinks
/// them and prints the report, as a single process would. Nothing is written for a seed that
/// passed, so the pipe carries a few bytes per batch.
enum FuzzWorkerLine: Equatable {
    case violation(seed: UInt64, invariant: String)
    case done(ClosedRange<UInt64>)

    /// The line for a batch the parent hands a worker.
    static func batch(_ seeds: ClosedRange<UInt64>) -> String {
        "\(seeds.lowerBound) \(seeds.upperBound)\n"
    }

    /// A batch line read by a worker; `nil` if it is not one.
    static func parseBatch(_ line: Substring) -> ClosedRange<UInt64>? {
        let words = line.split(separator: " ")
        guard words.count == 2, let first = UInt64(words[0]), let last = UInt64(words[1]), first <= last else {
            return nil
        }
        return first...last
    }

    /// The line a worker writes.
    var text: String {
        switch self {
        case .violation(let seed, let invariant): "violation \(seed) \(invariant)\n"
        case .done(let seeds): "done \(seeds.lowerBound) \(seeds.upperBound)\n"
        }
    }

    /// A line a worker wrote (without its newline); `nil` if it is not one.
    init?(parsing line: Substring) {
        let words = line.split(separator: " ")
        guard words.count == 3, let first = UInt64(words[1]) else { return nil }
        switch words[0] {
        case "violation" where !words[2].isEmpty: self = .violation(seed: first, invariant: String(words[2]))
        case "done":
            guard let last = UInt64(words[2]), first <= last else { return nil }
            self = .done(first...last)
        default: return nil
        }
    }
}

/// `bgctl fuzz --worker`: runs the batches of seeds it reads on standard input with the
/// invariants checked, and writes which seeds broke which invariant, batch by batch, until its
/// input ends. Started by `bgctl fuzz --jobs N`, never by hand.
@MainActor
enum FuzzWorker {
    static func run(_ fuzzer: Fuzzer, plantedCrashes: Set<UInt64>) throws {
        while let line = readLine() {
            guard let batch = FuzzWorkerLine.parseBatch(line[...]) else {
                throw CommandFailure(.usage, "worker", "not a batch of seeds: \"\(line)\"")
            }
            var output = ""
            for seed in batch {
                if plantedCrashes.contains(seed) { FuzzPlant.crash(seed: seed) }
                if let violation = fuzzer.firstViolation(of: fuzzer.generator.scenario(seed: seed)) {
                    output += FuzzWorkerLine.violation(seed: seed, invariant: violation.invariant.rawValue).text
                }
            }
            output += FuzzWorkerLine.done(batch).text
            do {
                try SystemCall.writeLine(STDOUT_FILENO, output)
            } catch {
                throw CommandFailure(.ioError, "worker", "cannot write its results: \(error)")
            }
        }
    }
}

/// Failures planted on purpose, to test the fuzzer itself (hidden options of `bgctl fuzz`):
/// a rule that breaks only in the scenarios of the given seeds, and a crash at a seed.
enum FuzzPlant {
    /// The rule FuzzerTests plants ("no background task assertion lives 20 s"), broken only by
    /// the scenarios of `seeds`: a violation found, shrunk and reported like a real one.
    static func violation(seeds: Set<UInt64>) -> (name: String, check: @MainActor (Simulator) -> String?) {
        (
            "planted: no assertion lives 20 s",
            { simulator in
                guard seeds.contains(simulator.configuration.seed) else { return nil }
                for app in simulator.installedApps {
                    for assertion in simulator.assertions(of: app)
                    where simulator.now - assertion.beganAt > .seconds(20) {
                        return "\(app) has held \"\(assertion.name)\" since \(assertion.beganAt)"
                    }
                }
                return nil
            }
        )
    }

    /// Ends the process as a crash does (a trap), before the seed runs.
    static func crash(seed: UInt64) -> Never {
        fatalError("planted crash at seed \(seed) (--plant-crash)")
    }
}
