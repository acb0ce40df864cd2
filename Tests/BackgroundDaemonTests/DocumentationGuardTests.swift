import BackgroundProtocol
import BackgroundTestSupport
import Foundation
import Testing

/// Issue 26: statements in the docs that went stale unnoticed (a protocol version, commands that
/// no longer exist, a file that was never there). Each is a test now: the protocol version the
/// docs give is the code's; every `bgctl …` command written in README.md and docs/ is one
/// `bgctl` has (its `--help` shows that very command); every option written with `backgroundd`
/// is one it has; every repository path the docs name exists.
@Suite("Documentation: versions, commands and paths the docs name exist")
struct DocumentationGuardTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// README.md, BENCHMARKS.md, SECURITY.md and docs/*.md, by path from the root.
    static func documents() throws -> [(name: String, text: String)] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try (["README.md", "BENCHMARKS.md", "SECURITY.md"] + docs).map { name in
            (name, try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8))
        }
    }

    /// The code spans (`…`) of a document, in order.
    static func codeSpans(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 && !$0.element.contains("\n") }
            .map { String($0.element).trimmingCharacters(in: .whitespaces) }
    }

    /// The subcommand words of a `bgctl …` span: up to the first option, argument or placeholder.
    static func subcommand(_ span: String) -> [String] {
        Array(
            span.split(separator: " ").dropFirst().prefix { word in
                !word.isEmpty && word.allSatisfy { $0.isLowercase || $0 == "-" } && !word.hasPrefix("-")
            }
            .map(String.init)
        )
    }

    @Test("the protocol version the docs give is the code's")
    func protocolVersion() throws {
        let version = Int(ProtocolCodec.version)
        let documents = Dictionary(uniqueKeysWithValues: try Self.documents().map { ($0.name, $0.text) })
        let protocolDoc = try #require(documents["docs/daemon-protocol.md"])
        #expect(protocolDoc.contains("the version byte (\(version))"), "docs/daemon-protocol.md")
        let contract = try #require(documents["docs/core-contract.md"])
        #expect(contract.contains("(version \(version): the magic"), "docs/core-contract.md")
    }

    @Test("every bgctl command the docs write exists: its --help shows that command")
    func bgctlCommands() async throws {
        var commands: [String: String] = [:]  // subcommand → the first document naming it
        for document in try Self.documents() {
            for span in Self.codeSpans(document.text) where span.hasPrefix("bgctl ") {
                let words = Self.subcommand(span)
                if !words.isEmpty, commands[words.joined(separator: " ")] == nil {
                    commands[words.joined(separator: " ")] = document.name
                }
            }
        }
        #expect(commands.count > 10, "the docs name hardly any bgctl command: the parser is wrong")
        for (command, document) in commands.sorted(by: { $0.key < $1.key }) {
            let help = try await runBgctl(command.split(separator: " ").map(String.init) + ["--help"])
            let usage = help.output.split(separator: "\n").first { $0.hasPrefix("USAGE:") } ?? ""
            #expect(
                usage.hasPrefix("USAGE: bgctl \(command)"),
                "\(document) writes `bgctl \(command)`, which bgctl does not have (\(usage))"
            )
        }
    }

    @Test("every option the docs write after backgroundd is one backgroundd has")
    func backgrounddOptions() async throws {
        let help = try await runChildProcess(builtExecutable("backgroundd"), ["--help"])
        #expect(help.status == 0)
        var checked = 0
        for document in try Self.documents() {
            for span in Self.codeSpans(document.text) where span.hasPrefix("backgroundd --") {
                for option in span.split(separator: " ").filter({ $0.hasPrefix("--") }) {
                    let name = option.split(separator: "=").first.map(String.init) ?? String(option)
                    #expect(help.output.contains(name), "\(document.name) writes `\(span)`: no \(name) in backgroundd")
                    checked += 1
                }
            }
        }
        #expect(checked > 0)
    }

    @Test("every repository path the docs name exists")
    func paths() throws {
        let roots = [
            "Sources/", "Tests/", "docs/", "Benchmarks/", "scripts/", "schemas/", "examples/", "Fuzz/", ".ci/",
            "dist/",
        ]
        var checked = 0
        for document in try Self.documents() {
            for span in Self.codeSpans(document.text) where roots.contains(where: span.hasPrefix) {
                guard !span.contains(" "), !span.contains("<"), !span.contains("*") else { continue }
                checked += 1
                let path = Self.root.appendingPathComponent(span).path
                #expect(
                    FileManager.default.fileExists(atPath: path),
                    "\(document.name) names \(span), which does not exist"
                )
            }
        }
        #expect(checked > 20, "the docs name hardly any path: the parser is wrong")
    }
}

/// Issue 26: `bgctl doctor --version` and `backgroundd --version` were usage errors.
@Suite("Every command says its version, the same one")
struct VersionTests {
    @Test(
        "bgctl, bgctl doctor and backgroundd print the one version (ProjectVersion.current, 0.1.0) for --version, exit 0"
    )
    func versions() async throws {
        for (executable, arguments) in [
            ("bgctl", ["--version"]), ("bgctl", ["doctor", "--version"]), ("bgctl-doctor", ["--version"]),
            ("backgroundd", ["--version"]),
        ] {
            let result = try await runChildProcess(builtExecutable(executable), arguments)
            #expect(result.status == 0, "\(executable) \(arguments): \(result.error)")
            #expect(result.output == "0.1.0\n", "\(executable) \(arguments): \(result.output)")
        }
    }
}
