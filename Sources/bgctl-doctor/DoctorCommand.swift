import ArgumentParser
import BackgroundDoctor
import CommandOutput
import Foundation

/// `bgctl doctor` (this executable; `bgctl doctor` runs it): checks an app's setup.
@main
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bgctl doctor",
        abstract: "Check an app's background-execution setup: Info.plist and Swift sources against Apple's rules.",
        discussion: """
            Reads the manifest (Info.plist, XML or binary, or JSON with the same keys) and the app's \
            Swift sources (parsed with swift-syntax), and reports each mistake with what Apple does \
            about it (a crash with Apple's message, a silent refusal, an error code) and the fix. \
            Every finding has a rule identifier (BGD001…); --ignore silences one. \
            Exit codes: 0 no findings or notes only, 1 warnings, 2 errors, 64 usage error, \
            65 malformed input, 66 input missing or unreadable, 70 internal error.
            """,
        version: ProjectVersion.current
    )

    @Option(help: "The app's Info.plist (XML or binary) or a JSON manifest with the same keys.")
    var manifest: String?

    @Option(parsing: .upToNextOption, help: "Swift files or directories of the app's sources.")
    var sources: [String] = []

    @Option(help: "A rule to leave out, by identifier (BGD002) or name; repeatable.")
    var ignore: [String] = []

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "Print the report as SARIF 2.1.0, for code-scanning tools.")
    var sarif = false

    @Flag(help: "List the rules and exit.")
    var listRules = false

    static func main() async {
        await CommandEntry.main(DoctorCommand.self)
    }

    func validate() throws {
        if json && sarif { throw ValidationError("give --json or --sarif, not both") }
        if !listRules && manifest == nil && sources.isEmpty {
            throw ValidationError("give --manifest, --sources, or both")
        }
        for rule in ignore where DoctorRule.named(rule) == nil {
            throw ValidationError("--ignore \(rule): no such rule (see --list-rules)")
        }
    }

    func run() async throws {
        if listRules {
            for rule in DoctorRule.all {
                print("\(rule.id) \(rule.name) [\(rule.severity.rawValue)]: \(rule.summary)")
            }
            return
        }
        let report: DoctorReport
        do {
            report = try Doctor.examine(manifest: manifest, sources: sources, ignoring: Set(ignore))
        } catch {
            throw CommandFailure(ExitStatus(rawValue: error.exitCode) ?? .internalError, "", error.description)
        }
        do {
            print(try json ? report.renderJSON() : sarif ? report.renderSARIF() : report.renderText(), terminator: "")
        } catch {
            throw CommandFailure(.internalError, "", "cannot encode the report: \(error)")
        }
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}
