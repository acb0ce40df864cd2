import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Testing

/// Issue 14, finding 11: GNU `timeout` and many supervisors send SIGTERM to the child and to its
/// process group, so one request arrives twice within microseconds. Signals within
/// `EmbeddedSystem.shutdownSignalWindow` (100 ms) are one request; a deliberate second signal
/// after it still forces the quit. Real processes and real signals, by design.
@Suite("Security: SIGTERM twice at once is one request")
struct ShutdownSignalTests {
    /// `shutdown-example` as the leader of its own process group, as `timeout` makes it: a
    /// launcher calls `setpgid(0, 0)` and execs it (same pid). (`setsid` would fork.)
    func startInOwnGroup(_ arguments: [String]) async throws -> RunningService {
        let launcher = "import os, sys; os.setpgid(0, 0); os.execv(sys.argv[1], sys.argv[1:])"
        let running = try RunningService(
            ["shutdown-example"] + arguments,
            launcher: ["/usr/bin/python3", "-c", launcher]
        )
        #expect(await running.waitFor("ready"))
        return running
    }

    @Test("SIGTERM to the child and to its process group (as timeout sends it) lets the work finish")
    func doubleDeliveryIsOneRequest() async throws {
        let scratch = try Scratch()
        let running = try await startInOwnGroup(["--grace", "5", "--work", "0.5", "--reports-directory", scratch.path])
        kill(running.pid, SIGTERM)
        kill(-running.pid, SIGTERM)
        let (status, timedOut) = await running.waitForExit()
        #expect(!timedOut && status == 0, "stderr: \(running.errorOutput)")
        #expect(running.standardOutput.contains("export finished"), "the work was lost")
    }

    @Test("The window: signals within 100 ms of the first are one request, a later one is a new request")
    func window() {
        let window = ShutdownSignalWindow(length: EmbeddedSystem.shutdownSignalWindow)
        let start: Int64 = 5_000_000_000
        #expect(window.startsRequest(at: start))
        #expect(!window.startsRequest(at: start + 1_000))
        #expect(!window.startsRequest(at: start + 99_999_999))
        #expect(window.startsRequest(at: start + 100_000_000))
        #expect(!window.startsRequest(at: start + 150_000_000))
    }

    @Test("A storm of SIGTERM and SIGINT arriving together is still one request (the kernel merges only equal signals)")
    func stormIsOneRequest() async throws {
        let scratch = try Scratch()
        let running = try await startInOwnGroup(["--grace", "5", "--work", "0.3", "--reports-directory", scratch.path])
        for index in 0..<20 { kill(running.pid, index.isMultiple(of: 2) ? SIGTERM : SIGINT) }
        let (status, _) = await running.waitForExit()
        #expect(status == 0, "stderr: \(running.errorOutput)")
        #expect(running.standardOutput.contains("export finished"))
    }

    @Test("A deliberate second SIGTERM after the window still forces the quit")
    func deliberateSecondSignalForcesQuit() async throws {
        let scratch = try Scratch()
        let running = try await startInOwnGroup(["--grace", "20", "--work", "10", "--reports-directory", scratch.path])
        // Both signals from a thread of its own, 400 ms apart (well past the 100 ms window: a
        // person pressing Ctrl-C again): a task's sleep resumes only when a thread of the pool
        // is free, which in a loaded full run took longer than the 10 s of work.
        let pid = running.pid
        await onDedicatedThread {
            kill(pid, SIGTERM)
            Thread.sleep(forTimeInterval: 0.4)
            kill(pid, SIGTERM)
        }
        let (status, timedOut) = await running.waitForExit(timeout: .seconds(5))
        #expect(!timedOut, "the second SIGTERM did not end the process")
        #expect(status != 0)
        #expect(!running.standardOutput.contains("export finished"))
        #expect(running.errorOutput.contains("again while in the background: ending now"))
    }

    @Test("GNU timeout's own double delivery does not cut the work short")
    func gnuTimeout() async throws {
        let timeout = "/usr/bin/timeout"
        try #require(FileManager.default.isExecutableFile(atPath: timeout), "GNU timeout is not installed")
        let scratch = try Scratch()
        // timeout sends SIGTERM to the child, then to the process group it leads.
        let result = try await runChildProcess(
            URL(fileURLWithPath: timeout),
            [
                "--preserve-status", "-s", "TERM", "3", bgctlExecutable.path, "shutdown-example", "--grace", "5",
                "--work", "0.5", "--reports-directory", scratch.path,
            ]
        )
        #expect(result.output.contains("ready"), "the child was not ready after 3 s: \(result.error)")
        #expect(result.status == 0, "stderr: \(result.error)")
        #expect(result.output.contains("export finished"))
    }
}
