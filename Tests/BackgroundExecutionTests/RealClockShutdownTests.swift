import BackgroundTestSupport
import Foundation
import Testing

/// Runs `bgctl shutdown-example` as a child process on the real clock and sends it SIGTERM.
///
/// These tests take real time by design (about a second each): they prove the embedded
/// system's signal path, timers and exit behaviour in a real process.
@Suite("Real clock: a child process shutting down on SIGTERM")
struct RealClockShutdownTests {
    struct Outcome {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Kills the child if it is still running after `limit`, so a hung child fails the test
    /// (with a non-zero status) instead of hanging the run. The limit is a hang guard, never a
    /// budget a working test comes near: in a full run on 2 cores a service waits a minute and
    /// more for its test to get a thread (a 60 s limit killed working services mid-test there).
    static let hangGuard = Duration.seconds(600)

    static func killIfStillRunning(_ process: Process, after limit: Duration) {
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + limit.seconds) {
            if process.isRunning { kill(pid, SIGKILL) }
        }
    }

    static var bgctl: URL { bgctlExecutable }

    func runUntilSignalled(_ arguments: [String]) async throws -> Outcome {
        try await Self.runUntilSignalled(Self.bgctl, ["shutdown-example"] + arguments)
    }

    /// Runs `executable` until it prints "ready" (its signal handler is installed), sends it
    /// SIGTERM, and waits for its end, without blocking a thread (`runChildProcessUntilSignalled`);
    /// a child still running after 30 s is killed.
    static func runUntilSignalled(_ executable: URL, _ arguments: [String]) async throws -> Outcome {
        let result = try await runChildProcessUntilSignalled(
            executable,
            arguments,
            after: "ready",
            timeout: .seconds(30)
        )
        return Outcome(status: result.status, standardOutput: result.output, standardError: result.error)
    }

    @Test("A child that receives SIGTERM finishes its work under an assertion and exits 0")
    func finishesAndExitsZero() async throws {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("bg-\(UUID().uuidString)")
        let outcome = try await runUntilSignalled([
            "--grace", "5", "--work", "0.3", "--reports-directory", reports.path,
        ])
        #expect(outcome.status == 0, "stderr: \(outcome.standardError)")
        #expect(outcome.standardOutput.contains("export finished"))
        #expect(!outcome.standardError.contains("0x8badf00d"))
        #expect(!FileManager.default.fileExists(atPath: reports.path), "no report for a clean exit")
    }

    @Test("A child that leaks an assertion is ended by the watchdog with a report naming it")
    func leakIsKilledWithReport() async throws {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("bg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: reports) }
        let outcome = try await runUntilSignalled([
            "--grace", "1", "--work", "0.1", "--leak", "--reports-directory", reports.path,
        ])
        #expect(outcome.status == 70)
        #expect(outcome.standardError.contains("Termination Reason:  Namespace FRONTBOARD, Code 0x8badf00d"))
        #expect(outcome.standardError.contains("\"Leaky export\""))
        #expect(outcome.standardError.contains("bgctl/ShutdownExampleCommand.swift:"))
        let files = try FileManager.default.contentsOfDirectory(atPath: reports.path).sorted()
        #expect(files.count == 2)
        #expect(files.contains { $0.hasSuffix(".json") } && files.contains { $0.hasSuffix(".txt") })
        let json = try #require(files.first { $0.hasSuffix(".json") })
        let data = try Data(contentsOf: reports.appendingPathComponent(json))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let leaks = try #require(object["leakedAssertions"] as? [[String: Any]])
        #expect(leaks.first?["name"] as? String == "Leaky export")
    }
}
