import BackgroundExecution
import Foundation
import Testing

/// Issue 9: `--json` on every command that prints state. A running app answers `status` and
/// `why` over its control socket; with `json` asked for, the reply carries the same documents
/// as the offline answers (``WhyDocument``) and a ``StatusDocument``.
@Suite("Control channel: a running app's answers as JSON")
@MainActor
struct LiveJSONAnswerTests {
    static let refresh = "com.example.tests.refresh"

    /// An embedded app on a manual clock with one refresh pending an hour from now.
    static func app() throws -> EmbeddedSystem { try EmbeddedSystem.withPendingRefresh(refresh) }

    /// `text` with its ISO 8601 dates (`2026-11-28T17:31:18Z`) replaced by `<date>`.
    static func withoutDates(_ text: String) -> String {
        text.replacing(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/, with: "<date>")
    }

    @Test("status with json: the text as before, and a StatusDocument naming the pending request")
    func status() throws {
        let system = try Self.app()
        let reply = system.run(DebugCommand(action: .status, json: true))
        #expect(reply.outcome == .done)
        // The wall-clock dates are read when each answer is made (the manual clock stands still,
        // the wall clock does not): two answers a second boundary apart differ there only.
        #expect(Self.withoutDates(reply.text) == Self.withoutDates(system.run(DebugCommand(action: .status)).text))
        let document = try JSONDecoder().decode(StatusDocument.self, from: Data(try #require(reply.document).utf8))
        #expect(document.app == "com.example.tests")
        #expect(document.pid == ProcessInfo.processInfo.processIdentifier)
        #expect(document.pending.map(\.identifier) == [Self.refresh])
        #expect(document.pending.first?.kind == "appRefresh")
        #expect(document.pending.first?.earliestBegin != nil)
        #expect(document.running.isEmpty)
        #expect(system.run(DebugCommand(action: .status)).document == nil, "no document unless asked")
    }

    @Test("why with json: a WhyDocument with the explanation; an unknown identifier is listed and not found")
    func why() throws {
        let system = try Self.app()
        let reply = system.run(DebugCommand(action: .why, identifier: Self.refresh, json: true))
        let document = try JSONDecoder().decode(WhyDocument.self, from: Data(try #require(reply.document).utf8))
        #expect(document.explanations.map(\.identifier) == [Self.refresh])
        #expect(document.explanations.first?.eligibility?.isEligible == false)
        #expect(document.explanations.first?.whatIfs == [], "without history: the eligibility alone")
        #expect(document.unknown.isEmpty)

        let unknown = system.run(DebugCommand(action: .whyWithHistory, identifier: "com.example.nope", json: true))
        #expect(unknown.outcome == .notFound)
        let missing = try JSONDecoder().decode(WhyDocument.self, from: Data(try #require(unknown.document).utf8))
        #expect(missing.unknown == ["com.example.nope"])
        #expect(missing.explanations.isEmpty)
    }

    @Test("a command without the json field decodes as before (text only)")
    func olderCommand() throws {
        let command = try DebugCommand.decode(Data(#"{"action":"why","identifier":"x"}"#.utf8))
        #expect(command.json == nil)
        #expect(try DebugCommand.decode(Data(#"{"action":"status","json":true}"#.utf8)).json == true)
    }
}
