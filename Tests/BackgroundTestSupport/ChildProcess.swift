public import Foundation

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
/// Output goes to files, not pipes, so a chatty child never blocks on a full pipe. The wait is
/// for the process's termination, not a poll; a child still running after `timeout` is sent
/// SIGTERM and reported as timed out. `environment` replaces the inherited one when given.
public func runChildProcess(
    _ executable: URL,
    _ arguments: [String],
    in directory: URL? = nil,
    environment: [String: String]? = nil,
    timeout: Duration = .seconds(120)
) throws -> ChildProcessResult {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outputURL = scratch.appendingPathComponent("out")
    let errorURL = scratch.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    let output = try FileHandle(forWritingTo: outputURL)
    let error = try FileHandle(forWritingTo: errorURL)
    defer {
        try? output.close()
        try? error.close()
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if let environment { process.environment = environment }
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    let timedOut = exited.wait(timeout: .now() + timeout.seconds) == .timedOut
    if timedOut { process.terminate() }
    process.waitUntilExit()
    return ChildProcessResult(
        status: process.terminationStatus,
        output: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
        error: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self),
        timedOut: timedOut
    )
}

/// The `bgctl` built next to the running test bundle (test targets depend on it, so it is there).
public var bgctlExecutable: URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("bgctl")
}

/// Runs `bgctl` with `arguments` to its end.
public func runBgctl(
    _ arguments: [String],
    in directory: URL? = nil,
    environment: [String: String]? = nil
) throws -> ChildProcessResult {
    try runChildProcess(bgctlExecutable, arguments, in: directory, environment: environment)
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// An executable built with the tests (a product or an example), next to the test bundle.
public func builtExecutable(_ name: String) -> URL {
    bgctlExecutable.deletingLastPathComponent().appendingPathComponent(name)
}

/// Starts a program, waits until its standard output contains `marker` (so its signal
/// handling is set up), sends it `signal`, and waits for its end. Output goes through a pipe
/// read to the end; a child still running after `timeout` is killed, so a hang fails the test.
public func runChildProcessUntilSignalled(
    _ executable: URL,
    _ arguments: [String] = [],
    after marker: String,
    signal: Int32 = SIGTERM,
    timeout: Duration = .seconds(60)
) throws -> ChildProcessResult {
    let process = Process()
    // stdbuf -oL: standard output line-buffered, as on a terminal (a pipe would hold the marker
    // in the child's buffer); it execs the program, so the signal reaches the program itself.
    process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
    process.arguments = ["-oL", executable.path] + arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    let pid = process.processIdentifier
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) {
        if process.isRunning { kill(pid, SIGKILL) }  // a child that never prints the marker
    }
    var seen = Data()
    while !String(decoding: seen, as: UTF8.self).contains(marker) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        seen += chunk
    }
    kill(pid, signal)
    let timedOut = exited.wait(timeout: .now() + timeout.seconds) == .timedOut
    if timedOut { kill(pid, SIGKILL) }
    process.waitUntilExit()
    seen += output.fileHandleForReading.readDataToEndOfFile()
    return ChildProcessResult(
        status: process.terminationStatus,
        output: String(decoding: seen, as: UTF8.self),
        error: String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
        timedOut: timedOut
    )
}
