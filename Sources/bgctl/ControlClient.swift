import ArgumentParser
import BackgroundExecution
import Foundation

/// Options shared by the commands that talk to a running app.
struct LiveAppOptions: ParsableArguments {
    @Option(help: "The app's bundle identifier.")
    var app: String

    @Option(help: "The process identifier of the running app.")
    var pid: Int32

    @Option(help: "The app's control directory (default: the embedded system's default for --app).")
    var controlDirectory: String?

    @Option(help: "Seconds to wait for the app's answer.")
    var timeout: Double = 5
}

extension LiveAppOptions {
    /// Options built from another command's flags (parsed, so every default is set).
    static func with(app: String, pid: Int32, controlDirectory: String?) throws -> LiveAppOptions {
        let directory = controlDirectory.map { ["--control-directory", $0] } ?? []
        return try LiveAppOptions.parse(["--app", app, "--pid", String(pid)] + directory)
    }
}

/// Sends a debug command to a running app and returns its answer.
///
/// Writes `<uuid>.request` into the app's control directory (atomically), sends SIGUSR1, and
/// waits for `<uuid>.response`.
enum ControlClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func send(_ command: DebugCommand, to options: LiveAppOptions) throws -> String {
        let directory =
            options.controlDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? DebugCommand.defaultControlDirectory(for: AppID(options.app))
        guard FileManager.default.fileExists(atPath: directory.path) else {
            throw Failure(
                description: "no control directory at \(directory.path): does the app call acceptDebugCommands()?"
            )
        }
        let name = UUID().uuidString
        let request = directory.appendingPathComponent(name + ".request")
        let response = directory.appendingPathComponent(name + ".response")
        try JSONEncoder().encode(command).write(to: request, options: .atomic)
        guard kill(options.pid, SIGUSR1) == 0 else {
            try? FileManager.default.removeItem(at: request)
            throw Failure(description: "cannot signal process \(options.pid): \(String(cString: strerror(errno)))")
        }
        let deadline = Date(timeIntervalSinceNow: options.timeout)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: response.path) {
                try? FileManager.default.removeItem(at: response)
                return String(decoding: data, as: UTF8.self)
            }
            usleep(20_000)
        }
        try? FileManager.default.removeItem(at: request)
        throw Failure(description: "process \(options.pid) did not answer within \(options.timeout) s")
    }

    /// Prints an answer; an answer that starts with "error:" makes the command fail.
    static func finish(_ answer: String) throws {
        print(answer, terminator: "")
        if answer.hasPrefix("error:") { throw ExitCode.failure }
    }
}
