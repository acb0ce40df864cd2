import ArgumentParser
import BackgroundControl
import BackgroundExecution
import BackgroundPaths
import CommandOutput
import Foundation

/// Options shared by the commands that talk to a running app.
struct LiveAppOptions: ParsableArguments {
    @Option(help: "The app's bundle identifier.")
    var app: String

    @Option(
        help: """
            The process identifier of the running app, when several processes of it run. It only \
            chooses which control socket to use; the process answering must be that pid.
            """
    )
    var pid: Int32?

    @Option(help: "The app's control directory (default: the embedded system's default for --app).")
    var controlDirectory: String?

    @Option(parsing: .unconditional, help: "Seconds to wait for the app's answer (more than 0).")
    var timeout: Double = 5

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most 86400")
        }
        if let pid, pid <= 0 { throw ValidationError("--pid must be a process identifier above 0") }
    }
}

extension LiveAppOptions {
    /// Options built from another command's flags (parsed, so every default is set).
    static func with(app: String, pid: Int32?, controlDirectory: String?) throws -> LiveAppOptions {
        let directory = controlDirectory.map { ["--control-directory", $0] } ?? []
        return try LiveAppOptions.parse(["--app", app] + (pid.map { ["--pid", String($0)] } ?? []) + directory)
    }
}

/// Sends a debug command to a running app over its control socket and prints the answer.
///
/// Never signals a process and never writes a file: the app's socket is found in its control
/// directory (which must be this user's, mode 0700), and the process listening on it must run
/// as this user (or root) and be the pid its socket's name claims.
enum ControlClient {
    /// Sends `command` and prints the reply. Failures are ``CommandFailure``s: 69 not running,
    /// 77 refused (directory or listener), 75 timed out, 65 bad reply or rejected request, 64
    /// several processes and no --pid; an unknown task identifier is a negative answer (1).
    static func run(_ command: DebugCommand, options: LiveAppOptions) throws {
        try finish(try send(command, options: options), json: command.json == true)
    }

    /// Sends `command` and returns the app's reply, with the failures of ``run(_:options:)``.
    static func send(_ command: DebugCommand, options: LiveAppOptions) throws -> DebugReply {
        let directory =
            options.controlDirectory.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            ?? StateDirectories.current.controlDirectory(for: AppID(options.app))
        guard let directory else {
            throw CommandFailure(
                .usage,
                "--control-directory",
                "no default: set HOME or XDG_STATE_HOME to an absolute path"
            )
        }
        let subject = "app \(ControlCharacters.escaped(options.app))"
        let reply: DebugReply
        do {
            reply = try ControlEndpoint.send(command, directory: directory, pid: options.pid, timeout: options.timeout)
        } catch {
            let reason = ControlCharacters.escaped(error.description)
            switch error {
            case .unavailable: throw CommandFailure(.unavailable, subject, reason)
            case .refused: throw CommandFailure(.permissionDenied, subject, reason)
            case .ambiguous: throw CommandFailure(.usage, subject, reason)
            case .timedOut: throw CommandFailure(.timedOut, subject, reason)
            case .badReply: throw CommandFailure(.badInput, subject, reason)
            }
        }
        return reply
    }

    /// Prints a reply (control characters escaped), or with `json` its JSON document; an
    /// unknown identifier is a negative answer.
    static func finish(_ reply: DebugReply, json: Bool = false) throws {
        let text = ControlCharacters.escapedLines(reply.text)
        if reply.outcome == .rejected { throw CommandFailure(.badInput, "request", text) }
        if json {
            guard let document = reply.document else {
                throw CommandFailure(.badInput, "reply", "the app answered without a JSON document (an older version?)")
            }
            print(document)
        } else {
            print(text, terminator: "")
        }
        if reply.outcome == .notFound { throw ExitCode(ExitStatus.negativeAnswer.rawValue) }
    }
}
