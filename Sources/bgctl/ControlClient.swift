import ArgumentParser
import BackgroundExecution
import CommandOutput
import Foundation

/// Options shared by the commands that talk to a running app.
struct LiveAppOptions: ParsableArguments {
    @Option(help: "The app's bundle identifier.")
    var app: String

    @Option(help: "The process identifier of the running app.")
    var pid: Int32

    @Option(help: "The app's control directory (default: the embedded system's default for --app).")
    var controlDirectory: String?

    @Option(help: "Seconds to wait for the app's answer (more than 0).")
    var timeout: Double = 5

    func validate() throws {
        guard timeout.isFinite, timeout > 0 else {
            throw ValidationError("--timeout must be a number of seconds above 0")
        }
    }
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
    static func send(_ command: DebugCommand, to options: LiveAppOptions) throws -> String {
        let directory =
            options.controlDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? DebugCommand.defaultControlDirectory(for: AppID(options.app))
        guard FileManager.default.fileExists(atPath: directory.path) else {
            throw CommandFailure(
                .unavailable,
                directory.path,
                "no control directory: is the app running, and does it call acceptDebugCommands()?"
            )
        }
        let name = UUID().uuidString
        let request = directory.appendingPathComponent(name + ".request")
        let response = directory.appendingPathComponent(name + ".response")
        do {
            try JSONEncoder().encode(command).write(to: request, options: .atomic)
        } catch {
            throw CommandFailure(error, subject: request.path, defaultStatus: .cannotCreateOutput)
        }
        guard kill(options.pid, SIGUSR1) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: request)
            throw CommandFailure(
                code == EPERM ? .permissionDenied : .unavailable,
                "process \(options.pid)",
                "cannot signal it: \(String(cString: strerror(code)))"
            )
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
        throw CommandFailure(.timedOut, "process \(options.pid)", "did not answer within \(options.timeout) s")
    }

    /// Prints an answer; an answer that starts with "error:" (an unknown task identifier) is a
    /// negative answer, exit status 1.
    static func finish(_ answer: String) throws {
        print(answer, terminator: "")
        let unknown = answer.contains(": no pending task request with this identifier\n")
        if answer.hasPrefix("error:") || unknown { throw ExitCode(ExitStatus.negativeAnswer.rawValue) }
    }
}
