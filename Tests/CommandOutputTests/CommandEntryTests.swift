import ArgumentParser
import CommandOutput
import Foundation
import Testing

/// A small tool shaped like bgctl, to drive the entry point without a child process.
struct Tool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tool",
        version: "1.2.3",
        subcommands: [Fail.self, Count.self, Read.self, Quiet.self]
    )
}

struct Fail: ParsableCommand {
    @Option var status: Int32 = 65
    func run() throws {
        throw CommandFailure(
            ExitStatus(rawValue: status) ?? .internalError,
            "input.json",
            "line 3: expected a number\nand more"
        )
    }
}

struct Count: AsyncParsableCommand {
    @Option(parsing: .unconditional) var seeds: UInt64 = 1
    func validate() throws {
        if seeds == 0 { throw ValidationError("--seeds must be at least 1") }
    }
    func run() async throws {}
}

struct Read: ParsableCommand {
    @Argument var path: String
    func run() throws { _ = try Data(contentsOf: URL(fileURLWithPath: path)) }
}

struct Quiet: ParsableCommand {
    func run() throws { throw ExitCode(1) }
}

@Suite("One error style and exit status for every command")
struct CommandEntryTests {
    @Test("A command's failure is one line: tool command: what: why, with its status")
    func failure() async {
        let outcome = await CommandEntry.run(Tool.self, arguments: ["fail"])
        #expect(outcome.status == 65)
        #expect(outcome.line == "tool fail: input.json: line 3: expected a number; and more")
    }

    @Test("Bad values and validation failures are usage errors, 64, in the same style")
    func usage() async {
        let negative = await CommandEntry.run(Tool.self, arguments: ["count", "--seeds", "-5"])
        #expect(negative.status == 64)
        #expect(negative.line?.hasPrefix("tool count: usage: ") == true)
        #expect(negative.line?.contains("-5") == true)
        #expect(negative.line?.contains("\n") == false)
        let zero = await CommandEntry.run(Tool.self, arguments: ["count", "--seeds", "0"])
        #expect(zero.status == 64)
        #expect(zero.line == "tool count: usage: --seeds must be at least 1 (see 'tool count --help')")
        let unknown = await CommandEntry.run(Tool.self, arguments: ["nonsense"])
        #expect(unknown.status == 64)
        #expect(unknown.line?.hasPrefix("tool: usage: ") == true)
    }

    @Test("A missing file is 66 with the path and the system's words, never an NSError dump")
    func fileErrors() async {
        let outcome = await CommandEntry.run(Tool.self, arguments: ["read", "/nonexistent/x.json"])
        #expect(outcome.status == 66)
        #expect(outcome.line?.hasPrefix("tool read: /nonexistent/x.json: ") == true, "\(outcome.line ?? "")")
        #expect(outcome.line?.contains("No such file") == true)
        #expect(outcome.line?.contains("Error Domain") == false)
        #expect(outcome.line?.contains("NSError") == false)
    }

    @Test("ExitCode ends silently; --version and --help print and exit 0")
    func quietAndClean() async {
        let quiet = await CommandEntry.run(Tool.self, arguments: ["quiet"])
        #expect(quiet == CommandEntry.Outcome(status: 1, line: nil, output: nil))
        let version = await CommandEntry.run(Tool.self, arguments: ["--version"])
        #expect(version.status == 0)
        #expect(version.output == "1.2.3\n")
        let help = await CommandEntry.run(Tool.self, arguments: ["count", "--help"])
        #expect(help.status == 0)
        #expect(help.output?.contains("--seeds") == true)
        let success = await CommandEntry.run(Tool.self, arguments: ["count"])
        #expect(success == CommandEntry.Outcome(status: 0, line: nil, output: nil))
    }
}
