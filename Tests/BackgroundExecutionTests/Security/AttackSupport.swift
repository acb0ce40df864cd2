import BackgroundTestSupport
import Foundation
import Synchronization
import Testing

/// The user the attacker runs as in cross-user tests: `nobody`.
let attackerID: UInt32 = 65534

/// Whether cross-user tests can run: they need root to start processes as another user.
var canRunAsAnotherUser: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") }

/// Bytes a child process wrote, collected from a pipe's handler; every chunk (and the end of
/// the pipe) wakes a waiter, so nothing polls.
final class OutputBuffer: Sendable {
    private let data = Mutex((bytes: Data(), ended: false))
    private let arrived = DispatchSemaphore(value: 0)

    /// Takes a chunk from the pipe's readability handler; an empty chunk is the end of the pipe.
    func append(_ chunk: Data) {
        data.withLock {
            if chunk.isEmpty { $0.ended = true } else { $0.bytes += chunk }
        }
        arrived.signal()
    }

    var text: String { String(decoding: data.withLock { $0.bytes }, as: UTF8.self) }
    var ended: Bool { data.withLock { $0.ended } }

    /// Waits until `done` holds, re-checking after each chunk; false at `deadline`.
    func wait(until deadline: ContinuousClock.Instant, for done: () -> Bool) -> Bool {
        while !done() {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            let nanoseconds =
                Int(left.components.seconds) * 1_000_000_000 + Int(left.components.attoseconds / 1_000_000_000)
            _ = arrived.wait(timeout: .now() + .nanoseconds(nanoseconds))
        }
        return true
    }
}

/// A scratch directory for one test, removed at the end; `sticky` makes it world-writable with
/// the sticky bit, as `/tmp` is, so an attacker can create entries in it but not replace ours.
final class Scratch {
    let url: URL
    var path: String { url.path }

    init(sticky: Bool = false) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bg-attack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        if sticky { chmod(url.path, 0o1777) }
    }

    func child(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Runs a shell command (as the attacker when `asAttacker`), to its end.
@discardableResult
func shell(_ command: String, asAttacker: Bool = false) async throws -> ChildProcessResult {
    let prefix =
        asAttacker
        ? ["/usr/bin/setpriv", "--reuid=\(attackerID)", "--regid=\(attackerID)", "--clear-groups"] : []
    let argv = prefix + ["/bin/sh", "-c", command]
    return try await runChildProcess(URL(fileURLWithPath: argv[0]), Array(argv.dropFirst()), timeout: .seconds(30))
}

/// The mode bits of a path (no link followed), or nil if it does not exist.
func mode(of path: String) -> mode_t? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    return status.st_mode & 0o7777
}

/// A long-running `bgctl` child (a service): started, read until it says it is ready, stopped.
final class RunningService: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private let seen = OutputBuffer()
    private let standardError = OutputBuffer()

    /// Starts `bgctl arguments…`, through `launcher` (a command that `exec`s the rest, such as
    /// `setsid` or `setpriv`), with `environment` added to this process's.
    init(
        _ arguments: [String],
        launcher: [String] = [],
        environment: [String: String] = [:],
        removing: [String] = [],
        directory: URL? = nil
    ) throws {
        let argv = launcher + [bgctlExecutable.path] + arguments
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        for name in removing { merged[name] = nil }
        process.environment = merged
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        for (pipe, buffer) in [(output, seen), (errors, standardError)] {
            pipe.fileHandleForReading.readabilityHandler = { handle in
                let chunk = handle.availableData
                if chunk.isEmpty { handle.readabilityHandler = nil }  // the end: stop being called
                buffer.append(chunk)
            }
        }
        try process.run()
        RealClockShutdownTests.killIfStillRunning(process, after: RealClockShutdownTests.hangGuard)
    }

    var pid: Int32 { process.processIdentifier }
    var standardOutput: String { seen.text }
    var errorOutput: String { standardError.text }

    /// Waits (up to 30 s) until standard output contains `text`; false if the process ended first.
    /// Polls with `Task.sleep`, so no thread is held while the service starts.
    @discardableResult
    func waitFor(_ text: String, timeout: Duration = .seconds(30)) async -> Bool {
        let seen = self.seen
        _ = await waitUntil(timeout: timeout, every: .milliseconds(10)) { seen.text.contains(text) || seen.ended }
        return seen.text.contains(text)
    }

    /// Waits for the process to end (killing it after `timeout`) and returns its status; the
    /// wait is on a thread of its own, not one of the pool's.
    func waitForExit(timeout: Duration = .seconds(30)) async -> (status: Int32, timedOut: Bool) {
        await onDedicatedThread { self.waitForExitBlocking(timeout: timeout) }
    }

    private func waitForExitBlocking(timeout: Duration) -> (status: Int32, timedOut: Bool) {
        let exited = DispatchSemaphore(value: 0)
        let process = self.process
        DispatchQueue.global().async {
            process.waitUntilExit()
            exited.signal()
        }
        let timedOut = exited.wait(timeout: .now() + Double(timeout.components.seconds)) == .timedOut
        if timedOut { kill(pid, SIGKILL) }
        process.waitUntilExit()
        // The handlers take the last bytes until each pipe's end (a grandchild holding a pipe
        // open is not waited for past a second).
        let drained = ContinuousClock.now + .seconds(1)
        for buffer in [seen, standardError] { _ = buffer.wait(until: drained) { buffer.ended } }
        return (process.terminationStatus, timedOut)
    }

    func stop() {
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// Runs `bgctl` to its end with `environment` added.
func bgctl(_ arguments: [String], asAttacker: Bool = false) async throws -> ChildProcessResult {
    guard asAttacker else { return try await runBgctl(arguments) }
    let prefix = ["--reuid=\(attackerID)", "--regid=\(attackerID)", "--clear-groups", bgctlExecutable.path]
    return try await runChildProcess(URL(fileURLWithPath: "/usr/bin/setpriv"), prefix + arguments)
}
