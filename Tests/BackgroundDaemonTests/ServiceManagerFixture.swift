import BackgroundTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A fake service manager's notification socket: a Unix-domain datagram socket the test binds
/// (a path, or an abstract name written `@name`), read by a thread of its own into a list of
/// notifications, each the datagram's lines (`READY=1`, `STATUS=…`).
final class NotifyListener: Sendable {
    /// The address, as `$NOTIFY_SOCKET` gives it.
    let address: String
    private let descriptor: Int32
    private let received = Mutex<[[String]]>([])
    private let closed = Atomic<Bool>(false)

    init(address: String) throws {
        self.address = address
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8] = address.hasPrefix("@") ? [0] + Array(address.utf8.dropFirst()) : Array(address.utf8)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        // Woken every 100 ms to see whether the listener was closed (nothing else waits on it).
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        Thread.detachNewThread { [self] in read() }
    }

    private func read() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !closed.load(ordering: .acquiring) {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            let text = String(decoding: buffer.prefix(count), as: UTF8.self)
            received.withLock { $0.append(text.split(separator: "\n").map(String.init)) }
        }
        Glibc.close(descriptor)
    }

    /// The notifications received so far, in order.
    var notifications: [[String]] { received.withLock { $0 } }

    /// How many notifications so far hold `line`.
    func count(_ line: String) -> Int { notifications.filter { $0.contains(line) }.count }

    /// Stops reading and closes the socket (and removes a path's file).
    func close() {
        closed.store(true, ordering: .releasing)
        if address.hasPrefix("/") { unlink(address) }
    }
}

/// A real `backgroundd` started as a service manager would start it: with its standard error in
/// a file (`log`), the environment given, and nothing installed. Its state directory is
/// `<directory>/state`, its socket `<state>/run/backgroundd.sock`.
final class ManagedDaemon: Sendable {
    let child: ChildProcess
    let state: String
    let log: String
    /// Whether the child is a shell whose child is the daemon (see ``init(in:environment:launcher:)``).
    let wrapped: Bool

    /// The socket's path.
    var socket: String { state + "/run/backgroundd.sock" }
    /// The daemon's process id (the child, or the wrapping shell's child; -1 before it is started).
    var pid: Int32 {
        let shell = child.process.processIdentifier
        guard wrapped else { return shell }
        let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { Int32($0) } ?? -1
    }

    /// Starts `backgroundd` with the daemon's own arguments: a state directory in `directory`,
    /// no process control, no device probes, apps under the daemon's uid, `--log-level notice`.
    ///
    /// With `launcher` (a program and its arguments that executes the command line after them in
    /// its own place, as `systemd-socket-activate` does), the launcher is started instead, as
    /// the child of a shell that keeps the descriptors Foundation gave it: Foundation's `Process`
    /// takes the close of the one it passes a child for the child's end and blocks in `waitpid`
    /// until it ends (every later child's end then waits too), and `systemd-socket-activate`
    /// closes all but the sockets it passes. The shell runs it in the foreground (its `wait`
    /// builtin would sleep for ever: Foundation's children start with SIGCHLD blocked) and
    /// exits with its status. ``pid`` is then the launcher's, which becomes the daemon's.
    init(
        in directory: TemporaryDirectory,
        environment: [String: String] = [:],
        launcher: [String] = []
    ) throws {
        state = try directory.daemonState(manifests: [:])
        log = directory.path + "/daemon.log"
        // Made once: a test may have read its device and inode (JOURNAL_STREAM) before.
        if !FileManager.default.fileExists(atPath: log) {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
        }
        let daemon = [
            builtExecutable("backgroundd").path, "--state-dir", state, "--process-control", "none",
            "--device-probes", "none", "--app-users", "off", "--log-level", "notice",
        ]
        let process = Process()
        wrapped = !launcher.isEmpty
        if launcher.isEmpty {
            process.executableURL = builtExecutable("backgroundd")
            process.arguments = Array(daemon.dropFirst())
        } else {
            // Not the last command, so the shell forks for it rather than executing it in its place.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "\"$@\"; exit $?", "sh"] + launcher + daemon
        }
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path].merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardInput = FileHandle.nullDevice
        child = try ChildProcess(running: process)
    }

    /// What the daemon has logged so far.
    var logText: String {
        String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: log))) ?? Data(), as: UTF8.self)
    }

    /// Sends SIGTERM and waits for the end (SIGKILL if it is not over within `timeout`); its
    /// exit status.
    func stop(within timeout: Duration = .seconds(60)) async -> Int32 {
        kill(pid, SIGTERM)
        _ = await child.end(within: timeout) { [pid] in kill(pid, SIGKILL) }
        return child.process.terminationStatus
    }
}
