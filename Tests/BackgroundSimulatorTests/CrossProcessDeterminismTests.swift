import BackgroundCore
import BackgroundSimulator
import BackgroundTestSupport
import Foundation
import Testing

/// Same seed, same run, in any process.
///
/// Swift seeds its hashing per process, so an order taken from a `Dictionary` or a `Set` differs
/// between two processes even when it is stable within one (`sameSeedSameRun` and
/// `demoIsDeterministic` run both copies in one process and cannot see it). These tests run each
/// workload in two child processes and compare their verbose event logs byte for byte.
@Suite("Determinism across processes")
struct CrossProcessDeterminismTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The children's environment: this one without `SWIFT_DETERMINISTIC_HASHING`, which would
    /// give both the same hash seed and hide what the test is for.
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_DETERMINISTIC_HASHING"] = nil
        return environment
    }

    /// How many fuzz seeds each child runs (seeds 0 onwards).
    static let fuzzSeeds = 200

    /// Runs `arguments` in two child processes and expects the same output, byte for byte.
    /// `volatile` drops lines that legitimately differ (elapsed time).
    static func expectSameOutput(
        _ arguments: [String],
        volatile: (Substring) -> Bool = { _ in false },
        minimumLength: Int
    ) async throws {
        let first = try await runBgctl(arguments, in: root, environment: environment)
        let second = try await runBgctl(arguments, in: root, environment: environment)
        #expect(first.status == 0, "bgctl \(arguments.joined(separator: " ")): \(first.error)")
        #expect(second.status == 0, "bgctl \(arguments.joined(separator: " ")): \(second.error)")
        let firstLog = first.output.split(separator: "\n", omittingEmptySubsequences: false).filter { !volatile($0) }
        let secondLog = second.output.split(separator: "\n", omittingEmptySubsequences: false).filter { !volatile($0) }
        #expect(first.output.utf8.count >= minimumLength, "the log is too short to show anything")
        guard firstLog != secondLog else { return }
        let line =
            zip(firstLog, secondLog).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(firstLog.count, secondLog.count)
        let show = { (log: [Substring]) in line < log.count ? String(log[line]) : "(end of log)" }
        Issue.record(
            "bgctl \(arguments.joined(separator: " ")): the two processes differ at line \(line + 1):\n\(show(firstLog))\n\(show(secondLog))"
        )
    }

    @Test("Fuzz seeds: two processes print the same verbose event logs, byte for byte")
    func fuzzSeeds() async throws {
        #expect(Self.environment["SWIFT_DETERMINISTIC_HASHING"] == nil)
        try await Self.expectSameOutput(
            ["fuzz", "--seeds", "\(Self.fuzzSeeds)", "--first", "0", "--log", "verbose"],
            volatile: { $0.hasPrefix("fuzzed ") },
            minimumLength: 1_000_000
        )
    }

    /// A fixture full of ties: ten tasks expiring at one instant, again and again.
    static let ties = "Tests/scenarios/simultaneous-deadlines.json"

    @Test("Ties: two processes print the same verbose event log of a run full of simultaneous deadlines")
    func ties() async throws {
        try await Self.expectSameOutput(["simulate", Self.ties, "--log", "verbose"], minimumLength: 10_000)
    }

    @MainActor
    @Test("The ties fixture keeps its ties: many tasks expire at one instant, taken in run order")
    func tiesFixtureHasTies() throws {
        let run = try ScenarioRun(try Scenario.load(contentsOf: Self.root.appending(path: Self.ties)))
        var expiredAt: [Instant: [TaskRunID]] = [:]
        for event in run.simulator.events {
            if case .system(.expireTask(_, let id)) = event.kind { expiredAt[event.at, default: []].append(id) }
        }
        let tied = expiredAt.values.filter { $0.count >= 5 }
        #expect(tied.count >= 5)
        for ids in tied { #expect(ids == ids.sorted()) }
    }

    @Test(
        "Every example: two processes print the same verbose event log, byte for byte",
        arguments: try FileManager.default.contentsOfDirectory(
            atPath: root.appending(path: "examples").path
        ).filter { $0.hasSuffix(".json") }.sorted()
    )
    func example(_ file: String) async throws {
        try await Self.expectSameOutput(["simulate", "examples/\(file)", "--log", "verbose"], minimumLength: 1_000)
    }
}
