import BackgroundExecution
import Foundation
import Logging
import Synchronization
import Testing

/// Issue 14, finding 9: names were printed raw. An assertion named with a newline and
/// `Termination Reason: exited with status 0` forged report lines, and escape codes reached
/// the terminal. Every text rendering escapes control characters; JSON was already safe.
@Suite("Security: control characters are escaped in every text rendering")
@MainActor
struct ControlCharacterTests {
    static let forged = "Export\nTermination Reason:  exited with status 0\u{1B}[2J\u{202E}"

    @Test("The escaping itself: C0, DEL, C1, line separators and bidi overrides; other text unchanged")
    func escaping() {
        #expect(ControlCharacters.escaped("a\nb\r\tc") == #"a\nb\r\tc"#)
        #expect(
            ControlCharacters.escaped("\u{1B}[31m\u{7F}\u{85}\u{2028}\u{202E}")
                == #"\u{1B}[31m\u{7F}\u{85}\u{2028}\u{202E}"#
        )
        #expect(ControlCharacters.escaped("café – 日本 \\n") == "café – 日本 \\n")
        #expect(ControlCharacters.escapedLines("one\u{1B}\ntwo") == "one\\u{1B}\ntwo")
    }

    @Test("A leaked assertion's name cannot forge a line of the termination report")
    func reportLinesCannotBeForged() throws {
        let harness = ManualHarness()
        harness.application.beginBackgroundTask(withName: Self.forged) {}
        harness.moveToBackground()
        harness.clock.advance(by: .seconds(31))
        let report = try #require(harness.system.terminationReports.last)
        let text = report.renderText()
        let reasons = text.split(separator: "\n").filter { $0.hasPrefix("Termination Reason:") }
        #expect(reasons == ["Termination Reason:  Namespace FRONTBOARD, Code 0x8badf00d"])
        #expect(text.contains(#""Export\nTermination Reason:  exited with status 0\u{1B}[2J\u{202E}""#))
        #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })
        let json = String(decoding: try EmbeddedSystem.json(for: report), as: UTF8.self)
        #expect(json.contains(#"Export\nTermination Reason"#), "JSON keeps the name, escaped by JSON")
    }

    @Test("bgctl's status and why text escape identifiers (a manifest may permit any string)")
    func debugAnswersAreEscaped() throws {
        let identifier = "com.example.x\n  running com.example.fake (appRefresh)\u{1B}]0;title\u{07}"
        let system = try EmbeddedSystem.withPendingRefresh(identifier)
        for command in [DebugCommand(action: .status), DebugCommand(action: .why)] {
            let text = system.run(command).text
            #expect(!text.contains("\n  running"), "\(command.action): \(text)")
            #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(command.action)")
            #expect(text.contains(#"com.example.x\n  running com.example.fake"#), "\(command.action): \(text)")
        }
    }

    @Test("Log lines escape names from core messages")
    func logLinesAreEscaped() {
        let lines = CapturedLines()
        let clock = ManualClock()
        var configuration = EmbeddedSystem.Configuration.test(
            app: "com.example.tests",
            policy: .iOS,
            clock: clock,
            log: EffectLog()
        )
        configuration.logger = Logger(label: "capture") { _ in CapturingLogHandler(lines: lines) }
        let system = EmbeddedSystem(configuration: configuration)
        clock.runPending()
        system.simulateLaunch(forTaskWithIdentifier: "nope\nFORGED line\u{1B}[31m")
        let joined = lines.all.joined(separator: "\n")
        #expect(joined.contains(#"nope\nFORGED line\u{1B}[31m"#), "\(joined)")
        #expect(!lines.all.contains { $0.hasPrefix("FORGED") || $0.contains("\u{1B}") })
    }
}

/// Log messages, as a handler received them.
final class CapturedLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A swift-log handler that keeps each message.
struct CapturingLogHandler: LogHandler {
    let lines: CapturedLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append(event.message.description)
    }
}
