public import Foundation

/// A program running beside a test that talks to it in several steps: wait for a line, send a
/// signal, wait for the next line, then for its end. Never blocks a thread: output goes to
/// files (as ``runChildProcess(_:_:in:environment:timeout:)``), polled every 10 ms.
///
/// Standard output is line-buffered (`stdbuf -oL`, which execs the program, so signals reach
/// the program itself). Everything waits against one deadline given at the start: a child that
/// never prints what is awaited is killed at that deadline, so a hang fails the test instead of
/// stalling the run.
public final class RunningChildProcess: Sendable {
    private let files: OutputFiles
    private let child: ChildProcess
    private let deadline: ContinuousClock.Instant

    /// The child's process identifier.
    public var pid: Int32 { child.process.processIdentifier }

    /// Starts `executable` with `arguments`; `environment` is added to the inherited one.
    public init(
        _ executable: URL,
        _ arguments: [String] = [],
        environment: [String: String] = [:],
        timeout: Duration = .seconds(120)
    ) throws {
        let files = try OutputFiles()
        let process = files.process(URL(fileURLWithPath: "/usr/bin/stdbuf"), ["-oL", executable.path] + arguments)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        self.files = files
        self.child = try ChildProcess(running: process)
        self.deadline = ContinuousClock.now + timeout
    }

    /// Standard output so far.
    public var output: String { files.outputText }

    /// Waits until standard output contains `marker`; false if the child ended first or the
    /// deadline passed.
    public func waitForOutput(containing marker: String) async -> Bool {
        while !files.outputText.contains(marker) {
            if child.hasEnded || ContinuousClock.now >= deadline { return files.outputText.contains(marker) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        if !child.hasEnded { kill(pid, signal) }
    }

    /// Waits for the child's end (killing it at the deadline) and returns what it left behind;
    /// its output files are removed.
    public func end() async throws -> ChildProcessResult {
        let pid = self.pid
        let timedOut = await child.end(within: max(deadline - ContinuousClock.now, .seconds(1))) {
            kill(pid, SIGKILL)
        }
        defer { files.remove() }
        return try files.result(of: child.process, timedOut: timedOut)
    }
}
