public import ArgumentParser
import Foundation

/// The one entry point of every command-line tool in the project: parses, runs, and turns
/// whatever ends the command into one line on standard error and one exit status from
/// ``ExitStatus``.
///
/// ```swift
/// @main
/// struct BGCtl: AsyncParsableCommand {
///     static func main() async { await CommandEntry.main(BGCtl.self) }
/// }
/// ```
///
/// - usage errors (bad flags or values, `ValidationError`): `bgctl fuzz: usage: <message> (see 'bgctl fuzz --help')`, 64;
/// - ``CommandFailure``: `bgctl simulate: <subject>: <reason>`, its status;
/// - `ExitCode`: that code, silently (the command printed its answer);
/// - `--help`, `--version`: ArgumentParser's output, 0;
/// - a file-system error: the path and the system's words, with its sysexits code;
/// - anything else: one line, 70 (internal error).
public enum CommandEntry {
    /// Parses `arguments` (default: the process's), runs the command and exits.
    public static func main<Root: ParsableCommand>(
        _ root: Root.Type,
        arguments: [String]? = nil
    ) async -> Never {
        let arguments = arguments ?? Array(CommandLine.arguments.dropFirst())
        let outcome = await run(root, arguments: arguments)
        if let output = outcome.output {
            FileHandle.standardOutput.write(Data(output.utf8))
        }
        if let line = outcome.line {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        fflush(nil)
        exit(outcome.status)
    }

    /// What running a command ended with: the exit status and the line for standard error.
    public struct Outcome: Sendable, Equatable {
        /// The process's exit status.
        public var status: Int32
        /// The one line to print on standard error, if any.
        public var line: String?
        /// Text for standard output that the entry point prints itself (help, version).
        public var output: String?

        /// An outcome.
        public init(status: Int32, line: String?, output: String?) {
            self.status = status
            self.line = line
            self.output = output
        }
    }

    /// Parses and runs, and returns the outcome instead of exiting (for tests and embedding).
    public static func run<Root: ParsableCommand>(_ root: Root.Type, arguments: [String]) async -> Outcome {
        var command: any ParsableCommand
        do {
            command = try Root.parseAsRoot(arguments)
        } catch {
            return outcome(for: error, root: root, command: commandPath(root, arguments: arguments), parsing: true)
        }
        let name = commandPath(root, command: command)
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return Outcome(status: 0, line: nil, output: nil)
        } catch {
            return outcome(for: error, root: root, command: name, parsing: false)
        }
    }

    static func outcome<Root: ParsableCommand>(
        for error: any Error,
        root: Root.Type,
        command: String,
        parsing: Bool
    ) -> Outcome {
        if let failure = error as? CommandFailure {
            return Outcome(status: failure.status.rawValue, line: failure.line(command: command), output: nil)
        }
        if let code = error as? ExitCode {
            return Outcome(status: code.rawValue, line: nil, output: nil)
        }
        if error is CleanExit || Root.exitCode(for: error).isSuccess {
            // --help, --version and friends: ArgumentParser's text, exit 0.
            let text = Root.fullMessage(for: error)
            return Outcome(
                status: Root.exitCode(for: error).rawValue,
                line: nil,
                output: text.isEmpty ? nil : text + "\n"
            )
        }
        if parsing || error is ValidationError {
            let message = CommandFailure.oneLine(Root.message(for: error))
            let line = "\(command): usage: \(message) (see '\(command) --help')"
            return Outcome(status: ExitStatus.usage.rawValue, line: line, output: nil)
        }
        let failure = CommandFailure(error, subject: "")
        return Outcome(status: failure.status.rawValue, line: failure.line(command: command), output: nil)
    }

    /// `bgctl simulate` for a parsed command.
    static func commandPath<Root: ParsableCommand>(_ root: Root.Type, command: any ParsableCommand) -> String {
        let target = ObjectIdentifier(type(of: command))
        func path(_ node: any ParsableCommand.Type) -> [String]? {
            if ObjectIdentifier(node) == target { return [name(of: node)] }
            for subcommand in node.configuration.subcommands {
                if let rest = path(subcommand) { return [name(of: node)] + rest }
            }
            return nil
        }
        return (path(root) ?? [name(of: root)]).joined(separator: " ")
    }

    /// `bgctl daemon status` for arguments that did not parse: the words that name a
    /// subcommand, level by level, up to the first that does not (options skipped), or the tool
    /// alone.
    static func commandPath<Root: ParsableCommand>(_ root: Root.Type, arguments: [String]) -> String {
        var node: any ParsableCommand.Type = root
        var names = [name(of: root)]
        for argument in arguments where !argument.hasPrefix("-") {
            guard let subcommand = node.configuration.subcommands.first(where: { name(of: $0) == argument }) else {
                break
            }
            names.append(argument)
            node = subcommand
        }
        return names.joined(separator: " ")
    }

    static func name(of command: any ParsableCommand.Type) -> String {
        command.configuration.commandName ?? String(describing: command).lowercased()
    }
}
