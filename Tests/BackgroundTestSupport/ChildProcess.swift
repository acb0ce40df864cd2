public import Foundation
import Synchronization

/// What a child process left behind: its exit status and its two output streams.
public struct ChildProcessResult: Sendable {
    /// The exit status (the signal number when it was killed).
    public var status: Int32
    /// Everything it wrote to standard output.
    public var output: String
    /// Everything it wrote to standard error.
    public var error: String
    /// Whether it was still running at the timeout, and was terminated.
    public var timedOut: Bool
}

/// Runs a program to its end, the one way tests start child processes (`bgctl`, Python, Chromium).
///
/// Nothing blocks while the child runs (tests run on Swift concurrency's cooperative pool, as
/// wide as the machine's cores, which never makes up for a blocked thread: one test waiting
/// synchronously on a child stalls every other test): the end is awaited through the
/// process's termination handler, and a child still running after `timeout` is sent SIGTERM
/// (SIGKILL 2 s later) by a task and reported as timed out. Output goes to files, not pipes, so a chatty child
/// never blocks on a full pipe. `environment` replaces the inherited one when given.
public func runChildProcess(
    _ executable: URL,
    _ arguments: [String],
    in directory: URL? = nil,
    environment: [String: String]? = nil,
    timeout: Duration = .seconds(120)
) async throws -> ChildProcessResult {
    let files = try OutputFiles()
    defer { files.remove() }
    let process = files.process(executable, arguments, in: directory, environment: environment)
    let child = try ChildProcess(running: process)
    let timedOut = await child.end(within: timeout) { endStubbornly(process) }
    return try files.result(of: process, timedOut: timedOut)
}

/// Sends SIGTERM, then SIGKILL 2 s later if the child still runs: a child inherits an ignored
/// SIGTERM from this process, where a test may have set it. The 2 s are counted on a thread of
/// its own (see ``ChildProcess/end(within:stop:)``).
func endStubbornly(_ process: Process) {
    let pid = process.processIdentifier
    kill(pid, SIGTERM)
    Thread.detachNewThread {
        Thread.sleep(forTimeInterval: 2)
        if process.isRunning { kill(pid, SIGKILL) }
    }
}

/// The two files a child's standard output and error go to (files, not pipes: a chatty child
/// never blocks on a full pipe), in a scratch directory of their own.
struct OutputFiles {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
    let output: FileHandle
    let error: FileHandle

    init() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        for name in ["out", "err"] {
            _ = FileManager.default.createFile(atPath: scratch.appendingPathComponent(name).path, contents: nil)
        }
        output = try FileHandle(forWritingTo: scratch.appendingPathComponent("out"))
        error = try FileHandle(forWritingTo: scratch.appendingPathComponent("err"))
    }

    /// A process for `executable` writing to these files, with nothing on its standard input.
    func process(
        _ executable: URL,
        _ arguments: [String],
        in directory: URL? = nil,
        environment: [String: String]? = nil
    ) -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        return process
    }

    /// What standard output holds so far.
    var outputText: String {
        String(decoding: (try? Data(contentsOf: scratch.appendingPathComponent("out"))) ?? Data(), as: UTF8.self)
    }

    /// The result of `process`, which has ended.
    func result(of process: Process, timedOut: Bool) throws -> ChildProcessResult {
        ChildProcessResult(
            status: process.terminationStatus,
            output: String(decoding: try Data(contentsOf: scratch.appendingPathComponent("out")), as: UTF8.self),
            error: String(decoding: try Data(contentsOf: scratch.appendingPathComponent("err")), as: UTF8.self),
            timedOut: timedOut
        )
    }

    func remove() {
        try? output.close()
        try? error.close()
        try? FileManager.default.removeItem(at: scratch)
    }
}

/// A started child process whose end a task awaits without blocking a thread.
///
/// The termination handler (set before the process starts, so no end is missed) resumes
/// whoever awaits; `Process.waitUntilExit()` would hold one of the pool's few threads instead.
public final class ChildProcess: Sendable {
    private let ending = Ending()
    /// The process, started.
    public let process: Process

    /// Starts `process` (configured, not yet run); throws what `Process.run()` throws.
    public init(running process: Process) throws {
        self.process = process
        process.terminationHandler = { [ending] _ in ending.end() }
        try process.run()
    }

    /// Whether the process has ended (its termination handler ran).
    public var hasEnded: Bool { ending.hasEnded }

    /// Returns when the process has ended.
    public func end() async {
        await withCheckedContinuation { continuation in ending.await(continuation) }
    }

    /// Returns when the process has ended; if it is still running after `timeout`, calls
    /// `stop` (which should end it: SIGTERM, SIGKILL) and waits for the end it causes.
    ///
    /// The timeout is kept by a thread of its own, waiting on the end: neither a task's sleep nor
    /// a Dispatch timer would do, as both need a free thread of a pool (the cooperative pool, or
    /// Dispatch's workers, as few as the cores) and, with the cores busy (a full test run starts
    /// hundreds of tests at once), fire only when one frees up: a 200 ms timeout once fired
    /// after the child's 30 s.
    ///
    /// - Returns: whether `stop` was called.
    public func end(within timeout: Duration, stop: @escaping @Sendable () -> Void) async -> Bool {
        let stopped = Mutex(false)
        Thread.detachNewThread { [ending] in
            guard !ending.wait(upTo: timeout) else { return }
            stopped.withLock { $0 = true }
            stop()
        }
        await end()
        return stopped.withLock { $0 }
    }
}

/// A child's end and who awaits it, under a lock (the termination handler runs on a thread of
/// Foundation's).
private final class Ending: @unchecked Sendable {
    private let lock = NSCondition()
    private var ended = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    var hasEnded: Bool { lock.withLock { ended } }

    /// Marks the end and resumes everyone waiting.
    func end() {
        let resumed = lock.withLock {
            ended = true
            lock.broadcast()
            defer { waiting = [] }
            return waiting
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Blocks the calling thread (one of its own: see `end(within:stop:)`) until the end or
    /// `timeout`; whether the end came.
    func wait(upTo timeout: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(timeout.seconds)
        return lock.withLock {
            while !ended, lock.wait(until: deadline) {}
            return ended
        }
    }

    /// Resumes `continuation` at the end (at once if it has come).
    func await(_ continuation: CheckedContinuation<Void, Never>) {
        let now = lock.withLock {
            if !ended { waiting.append(continuation) }
            return ended
        }
        if now { continuation.resume() }
    }
}

/// The `bgctl` built next to the running test bundle (test targets depend on it, so it is there).
public var bgctlExecutable: URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("bgctl")
}

/// Runs `bgctl` with `arguments` to its end, without blocking a thread while it runs.
public func runBgctl(
    _ arguments: [String],
    in directory: URL? = nil,
    environment: [String: String]? = nil
) async throws -> ChildProcessResult {
    try await runChildProcess(bgctlExecutable, arguments, in: directory, environment: environment)
}

/// An executable built with the tests (a product or an example), next to the test bundle.
public func builtExecutable(_ name: String) -> URL {
    bgctlExecutable.deletingLastPathComponent().appendingPathComponent(name)
}

/// Starts a program, waits until its standard output contains `marker` (so its signal
/// handling is set up), sends it `signal`, and waits for its end, never blocking a thread:
/// output goes to files, polled every 10 ms for the marker. A child still running after
/// `timeout` (one that never prints the marker, or ignores the signal) is killed, so a hang
/// fails the test.
public func runChildProcessUntilSignalled(
    _ executable: URL,
    _ arguments: [String] = [],
    after marker: String,
    signal: Int32 = SIGTERM,
    timeout: Duration = .seconds(60)
) async throws -> ChildProcessResult {
    let files = try OutputFiles()
    defer { files.remove() }
    // stdbuf -oL: standard output line-buffered, as on a terminal (a file would hold the marker
    // in the child's buffer); it execs the program, so the signal reaches the program itself.
    let process = files.process(URL(fileURLWithPath: "/usr/bin/stdbuf"), ["-oL", executable.path] + arguments)
    let child = try ChildProcess(running: process)
    let pid = process.processIdentifier
    let deadline = ContinuousClock.now + timeout
    while !child.hasEnded, ContinuousClock.now < deadline, !files.outputText.contains(marker) {
        try? await Task.sleep(for: .milliseconds(10))
    }
    if !child.hasEnded { kill(pid, signal) }
    let timedOut = await child.end(within: max(deadline - ContinuousClock.now, .seconds(5))) {
        kill(pid, SIGKILL)
    }
    return try files.result(of: process, timedOut: timedOut)
}

/// Runs a program to its end, blocking the calling thread: only for code already on a thread
/// of its own (a body given to `onDedicatedThread`), never inline in a test, where the async
/// `runChildProcess` is the one to use (a test's thread is one of the cooperative pool's few).
@available(*, noasync, message: "blocks its thread: use the async runChildProcess")
public func runChildProcessBlocking(
    _ executable: URL,
    _ arguments: [String],
    in directory: URL? = nil,
    environment: [String: String]? = nil,
    timeout: Duration = .seconds(120)
) throws -> ChildProcessResult {
    let files = try OutputFiles()
    defer { files.remove() }
    let process = files.process(executable, arguments, in: directory, environment: environment)
    // A semaphore, not a task: this thread may be the one a task would need.
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    let timedOut = exited.wait(timeout: .now() + timeout.seconds) == .timedOut
    if timedOut {
        endStubbornly(process)
        exited.wait()
    }
    return try files.result(of: process, timedOut: timedOut)
}

/// Runs `bgctl` with `arguments` to its end, blocking the calling thread: only on a thread of
/// its own (see the blocking `runChildProcess`).
@available(*, noasync, message: "blocks its thread: use the async runBgctl")
public func runBgctlBlocking(
    _ arguments: [String],
    in directory: URL? = nil,
    environment: [String: String]? = nil
) throws -> ChildProcessResult {
    try runChildProcessBlocking(bgctlExecutable, arguments, in: directory, environment: environment)
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
