import BackgroundTestSupport
import Foundation

@testable import BackgroundProcessControl

#if canImport(Glibc)
import Glibc
#endif

/// What the process-control tests share: controllers for both mechanisms, the test app, a
/// scratch directory, a connected socket pair, and reads of `/proc`.
enum AppFixture {
    /// The test app, built with the tests.
    static let testApp = builtExecutable("background-test-app").path

    /// The subtree the tests' cgroups go in (one name for every run; each app's cgroup is
    /// unique and removed when the app ends).
    static let subtreeName = "background-process-control-tests"

    /// A controller using the cgroup freezer, or nil (with the reason printed) where cgroups
    /// cannot be used; with `BACKGROUND_REQUIRE_ALL_TESTS=1` that is a failure instead.
    static func cgroupController() throws -> LinuxProcessController? {
        let controller = try LinuxProcessController(configuration: .init(subtreeName: subtreeName))
        guard case .cgroupFreezer = controller.freezeMechanism else {
            let message = "cgroup freezer not available here: \(controller.freezeMechanism)"
            if OptionalTools.required { throw FixtureError(message) }
            print("skipped: \(message)")
            return nil
        }
        // Earlier test runs end before the watcher removes their last cgroups: clear what they
        // left (and end anything that still ran in it).
        for survivor in try controller.adoptSurvivors() { try controller.kill(survivor.process) }
        return controller
    }

    /// A controller forced to SIGSTOP/SIGCONT.
    static func signalController() throws -> LinuxProcessController {
        try LinuxProcessController(configuration: .init(freezer: .processGroupSignals))
    }

    /// Both controllers, for tests that must hold for either mechanism.
    static func bothControllers() throws -> [LinuxProcessController] {
        [try cgroupController(), try signalController()].compactMap { $0 }
    }

    /// A fresh scratch directory, removed by `cleanUp`.
    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("procctl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.resolvingSymlinksInPath()
    }

    /// A connected `AF_UNIX` stream pair, both ends close-on-exec.
    static func socketPair() throws -> (daemon: Int32, app: Int32) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw FixtureError("socketpair: errno \(errno)")
        }
        return (pair[0], pair[1])
    }

    /// A request for the test app running `steps`, its container `directory`.
    static func request(
        _ steps: [String],
        in directory: URL,
        connection: Int32? = nil,
        label: String = "com.example.testapp"
    ) -> SpawnRequest {
        SpawnRequest(
            label: label,
            executable: testApp,
            arguments: steps,
            environment: ["LANG": "C"],
            workingDirectory: directory.path,
            connection: connection
        )
    }

    /// Starts the test app running `steps` with a connection; returns it and the daemon's end
    /// of the connection (the caller closes it).
    static func start(
        _ controller: LinuxProcessController,
        _ steps: [String],
        in directory: URL
    ) throws -> (app: AppProcess, socket: Int32) {
        let socket = try socketPair()
        defer { close(socket.app) }
        do {
            return (try controller.spawn(request(steps, in: directory, connection: socket.app)), socket.daemon)
        } catch {
            close(socket.daemon)
            throw error
        }
    }

    /// Reads the `child <pid>` line a `fork` step writes (on a thread of its own).
    static func readChild(_ socket: Int32) async throws -> Int32 {
        guard let line = await readLine(socket), line.hasPrefix("child "),
            let pid = Int32(line.dropFirst("child ".count))
        else {
            throw FixtureError("no 'child <pid>' line from the app")
        }
        return pid
    }

    /// Reads one line from `descriptor` as the blocking `readLine` does, on a thread of its own
    /// (a test's thread is one of the cooperative pool's few, and the wait may take seconds).
    static func readLine(_ descriptor: Int32, timeout: Duration = .seconds(20)) async -> String? {
        await onDedicatedThread { readLine(descriptor, timeout: timeout) }
    }

    /// Reads one line from `descriptor`, waiting at most `timeout` (poll, not sleep); nil at
    /// the timeout or the end of the stream. It blocks: async code uses the async `readLine`.
    @available(*, noasync, message: "blocks its thread: use the async readLine")
    static func readLine(_ descriptor: Int32, timeout: Duration = .seconds(20)) -> String? {
        var line: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var ready = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(
                left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            )
            guard poll(&ready, 1, max(milliseconds, 1)) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(descriptor, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Writes a line to `descriptor`.
    static func writeLine(_ descriptor: Int32, _ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The descriptors a process has open, from `/proc/<pid>/fd`.
    static func openDescriptors(of pid: Int32) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int32($0) }.sorted()
    }

    /// The state letter in `/proc/<pid>/stat` (`S`, `T`, `Z`...), nil once the process is gone.
    static func state(of pid: Int32) -> Character? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ").first?.first
    }

    /// `frozen` in a cgroup's `cgroup.events`.
    static func cgroupFrozen(_ cgroup: String) throws -> Bool {
        try String(contentsOfFile: cgroup + "/cgroup.events", encoding: .utf8).contains("frozen 1")
    }

    /// A cgroup name parsed as the controller parses it: label, daemon pid, run, serial.
    static func parseLeaf(_ name: String) -> [String]? {
        LeafName(name).map { [$0.label, String($0.daemon), $0.run, String($0.serial)] }
    }

    /// A run that is not this process's (see `ProcessSerial.run`).
    static var otherRun: String { ProcessSerial.run == "00000000" ? "00000001" : "00000000" }

    /// Kills what a test left running, and waits for its exit (so its cgroup goes).
    static func finish(_ controller: LinuxProcessController, _ process: AppProcess) async {
        try? controller.kill(process)
        _ = await controller.exit(of: process)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
