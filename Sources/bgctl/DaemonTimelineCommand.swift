import ArgumentParser
import BackgroundExecution
import BackgroundPaths
import BackgroundProtocol
import BackgroundSimulator
import CommandOutput
import Foundation

extension DaemonCommand {
    /// `bgctl daemon timeline --since 2h -o day.html`: the real machine's recent hours, drawn from
    /// the daemon's journal with the simulator's timeline renderer. Reads the journal file, so it
    /// works whether the daemon runs or not.
    struct TimelineCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "timeline",
            abstract: "Draw the daemon's recorded hours as an HTML timeline (lanes per app: state, assertions, tasks)."
        )

        @Option(help: "How far back: a number with s, m, h or d (default 2h).")
        var since: String = "2h"

        @Option(name: .shortAndLong, help: "The HTML file to write.")
        var output: String

        @Option(help: "The daemon's state directory (default: as backgroundd chooses it).")
        var stateDir: String?

        @OptionGroup var format: OutputOptions

        func validate() throws {
            guard Self.seconds(since) != nil else {
                throw ValidationError("--since: \(since) is not a duration such as 90s, 30m, 2h or 1d")
            }
        }

        static func seconds(_ text: String) -> Double? {
            guard let unit = text.last, let value = Double(text.dropLast()), value > 0 else { return nil }
            switch unit {
            case "s": return value
            case "m": return value * 60
            case "h": return value * 3600
            case "d": return value * 86400
            default: return nil
            }
        }

        func run() throws {
            let environment = ProcessInfo.processInfo.environment
            guard let paths = DaemonPaths(environment: environment, state: stateDir) else {
                throw CommandFailure(
                    .usage,
                    "--state-dir",
                    "no default: set HOME or XDG_STATE_HOME to an absolute path"
                )
            }
            // Nothing to draw is an error, before anything is written: a state directory that is
            // not there (a typo, another user's daemon), or one where the daemon keeps no journal.
            let journal = paths.state + "/journal.jsonl"
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: paths.state, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw CommandFailure(.inputMissing, paths.state, "no daemon state directory here")
            }
            guard [journal, journal + ".1"].contains(where: FileManager.default.fileExists(atPath:)) else {
                throw CommandFailure(.inputMissing, journal, "no journal: this daemon keeps none here")
            }
            let target = try PathCheck.creatableFile(output)
            let now = Date().timeIntervalSince1970
            let origin = now - (Self.seconds(since) ?? 7200)
            let entries: [JournalEntry]
            do {
                entries = try JournalReader.entries(at: journal, since: origin)
            } catch {
                throw CommandFailure(.inputMissing, journal, "cannot be read: \(error.localizedDescription)")
            }
            let document = DaemonTimeline.document(
                from: entries,
                origin: origin,
                end: now,
                title: "backgroundd: the last \(since)"
            )
            do {
                try Data(TimelineRenderer.html(for: document).utf8).write(to: target)
            } catch {
                throw CommandFailure(.cannotCreateOutput, output, error.localizedDescription)
            }
            if format.json {
                let summary: [String: Any] = [
                    "output": target.path, "entries": entries.count, "apps": document.apps.map(\.id),
                    "journal": journal, "budgetSamples": document.apps.reduce(0) { $0 + $1.budget.count },
                    "transfers": document.apps.reduce(0) { $0 + $1.transfers.count },
                    "deviceMarkers": document.deviceMarkers.count,
                ]
                let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print("\(target.path): \(entries.count) journal entries, \(document.apps.count) apps")
            }
        }
    }
}
