import BackgroundTestSupport
import Foundation
import Testing

/// `bgctl fuzz --jobs N`: worker processes run the seeds, the parent reports in seed order and
/// shrinks what they find itself, so the report is the single process's, byte for byte.
///
/// Failures are planted with the command's hidden options: `--plant-violation <seed>` breaks a
/// rule (no background task assertion lives 20 s, as in `FuzzerTests`) only in that seed's
/// scenario, `--plant-crash <seed>` traps before that seed runs.
@Suite("Fuzzing in worker processes: the same report whatever the number of workers")
struct ParallelFuzzTests {
    /// Seeds whose scenarios hold an assertion past 20 s, so the planted rule breaks there (and
    /// only there: the other seeds of the range run clean).
    static let planted: [UInt64] = [7, 8, 21]

    /// The output without the final count, which says how long it took and how many workers.
    static func report(_ output: String) -> [Substring] {
        output.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("fuzzed ") }
    }

    static func plants(_ seeds: [UInt64], flag: String = "--plant-violation") -> [String] {
        seeds.flatMap { [flag, "\($0)"] }
    }

    @Test("--jobs 1 and --jobs 3 print the same report byte for byte: the same findings, order and shrunk scenarios")
    func sameReportWhateverTheWorkers() async throws {
        let arguments = ["fuzz", "--seeds", "40", "--first", "0"] + Self.plants(Self.planted)
        let one = try await runBgctl(arguments + ["--jobs", "1"])
        let three = try await runBgctl(arguments + ["--jobs", "3"])
        #expect(one.status == 1, "\(one.error)")
        #expect(three.status == 1, "\(three.error)")
        for seed in Self.planted {
            #expect(one.output.contains("seed \(seed): "), "the planted rule breaks at \(seed)")
        }
        #expect(one.output.contains("minimal scenario"))
        #expect(Self.report(one.output) == Self.report(three.output))
        #expect(three.output.contains("3 seed(s) violated an invariant"))
        #expect(three.output.contains("3 workers"))
        #expect(one.error.isEmpty && three.error.isEmpty, "\(one.error)\(three.error)")
    }

    @Test("--json: the findings are the same with one process and with workers, which say what they used")
    func sameFindingsInJSON() async throws {
        let arguments = ["fuzz", "--seeds", "30", "--first", "0", "--json"] + Self.plants([8, 21])
        let one = try await runBgctl(arguments + ["--jobs", "1"])
        let two = try await runBgctl(arguments + ["--jobs", "2"])
        let first = try #require(try JSONSerialization.jsonObject(with: Data(one.output.utf8)) as? [String: Any])
        let second = try #require(try JSONSerialization.jsonObject(with: Data(two.output.utf8)) as? [String: Any])
        let findings = { (object: [String: Any]) in
            try JSONSerialization.data(withJSONObject: object["findings"] ?? [], options: [.sortedKeys])
        }
        #expect(try findings(first) == findings(second))
        #expect((first["findings"] as? [[String: Any]])?.compactMap { $0["seed"] as? Int } == [8, 21])
        #expect(first["jobs"] as? Int == 1)
        #expect(first["workers"] == nil)
        #expect(second["jobs"] as? Int == 2)
        let workers = try #require(second["workers"] as? [String: Any])
        #expect(workers["started"] as? Int == 2)
        let peaks = try #require(workers["peakResidentBytes"] as? [Int])
        #expect(peaks.count == 2)
        #expect(peaks.allSatisfy { $0 > 1_000_000 && $0 < 100 * 1_048_576 }, "each worker under 100 MiB: \(peaks)")
        #expect((second["workerFailures"] as? [Any])?.isEmpty == true)
    }

    @Test("A worker that crashes is reported at its seed, with its fatal error; every other seed is still run")
    func crashedWorker() async throws {
        // 200 seeds in batches of 6: the crash is first seen in a batch, found again seed by seed.
        let arguments =
            ["fuzz", "--seeds", "200", "--first", "0", "--jobs", "2"] + Self.plants([150], flag: "--plant-crash")
            + Self.plants([21])
        let result = try await runBgctl(arguments)
        #expect(result.status == 70, "\(result.error)")
        #expect(result.output.contains("seed 150: worker "))
        #expect(result.output.contains("was killed by signal"))
        #expect(result.output.contains("reproduce in one process: bgctl fuzz --seed 150"))
        #expect(result.output.contains("Fatal error: planted crash at seed 150"))
        // The finding before it, in seed order, and the count with the failure.
        let finding = try #require(result.output.range(of: "seed 21: "))
        let crash = try #require(result.output.range(of: "seed 150: "))
        #expect(finding.lowerBound < crash.lowerBound)
        #expect(result.output.contains("fuzzed 200 seed(s) 0...199"))
        #expect(result.output.contains("1 seed(s) violated an invariant; 1 worker failure(s)"))
        #expect(result.output.contains("workers (4 started)"), "two replacements: for the batch, then for the seed")
    }

    @Test("--jobs out of range and --jobs above 1 with --log are usage errors")
    func jobsUsage() async throws {
        for arguments in [["--jobs", "0"], ["--jobs", "257"], ["--jobs", "2", "--log", "verbose"]] {
            let result = try await runBgctl(["fuzz", "--seeds", "3"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.error)")
            #expect(result.error.hasPrefix("bgctl fuzz: "), "\(result.error)")
            #expect(result.error.filter { $0 == "\n" }.count == 1, "\(result.error)")
        }
    }
}
