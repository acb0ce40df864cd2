import BackgroundTestSupport
import Foundation
import Synchronization

/// A running `daemon-api-test-app`: commands in on its standard input, lines out from its
/// standard output, waited for as they arrive (no polling).
final class APIAppProcess: @unchecked Sendable {
    // `lines` is guarded by `condition`.
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var closed = false

    /// Starts the app as the user would: its environment names the daemon's socket. Under a
    /// daemon with per-app uids it runs as the app's uid (``userCommand(for:_:_:apps:)``, with
    /// `apps`, the daemon's `bgctl daemon apps --json`).
    convenience init(app: String, socket: String, arguments: [String] = [], home: String, apps: String) throws {
        let (executable, arguments) = userCommand(
            for: app,
            builtExecutable("daemon-api-test-app"),
            arguments,
            apps: apps
        )
        try self.init(app: app, socket: socket, executable: executable, arguments: arguments, home: home)
    }

    /// Starts the app as the user would: its environment names the daemon's socket.
    init(
        app: String,
        socket: String,
        executable: URL = builtExecutable("daemon-api-test-app"),
        arguments: [String] = [],
        home: String
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = [
            "PATH": "/usr/bin:/bin", "HOME": home, "BACKGROUND_SYSTEM": "daemon", "BACKGROUND_APP": app,
            "BACKGROUNDD_SOCKET": socket,
        ]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            var pending = ""
            while true {
                let data = handle.availableData
                condition.lock()
                if data.isEmpty {
                    closed = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    lines.append(String(pending[..<newline]))
                    pending = String(pending[pending.index(after: newline)...])
                }
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Sends one command line.
    func send(_ command: String) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    /// Waits for a line that starts with `prefix` and was not returned before; nil if none came
    /// within `seconds` (or the app's output ended).
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func line(startingWith prefix: String, within seconds: Double = 60) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let index = lines.firstIndex(where: { $0.hasPrefix(prefix) }) {
                return lines.remove(at: index)
            }
            if closed || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Every line seen and not yet taken, for failure messages.
    var seen: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
