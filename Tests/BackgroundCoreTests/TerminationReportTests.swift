import BackgroundCore
import Foundation
import Testing

@Suite("Termination reports")
struct TerminationReportTests {
    /// The report of notes leaking "Upload" (begun at T+2 from UploadManager.swift:42) at T+40.
    static func leakReport() throws -> TerminationReport {
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, "Upload", handler: false, at: .t(2))
        try d.background(notes, at: .t(10))
        return try #require(try d.tick(at: .t(40)).reports.first)
    }

    @Test("The text report has Apple's header and lists the leaked assertion with its identifier and source line")
    func renderText() throws {
        let text = try Self.leakReport().renderText()
        #expect(text.contains("Termination Reason:  Namespace FRONTBOARD, Code 0x8badf00d"))
        #expect(text.contains("Termination Description: has active assertions beyond permitted time"))
        #expect(text.contains("\"Upload\""))
        #expect(text.contains("#1 (0x1)"))
        #expect(text.contains("Notes/UploadManager.swift:42"))
        #expect(text.contains("begun at T+2.000s (38.000 s before termination)"))
        #expect(text.contains("permittedBackgroundDuration: 30.000 s"))
    }

    @Test("The text report's header uses the shell's process facts when given")
    func renderProcessInfo() throws {
        let process = TerminationReport.ProcessInfo(
            processName: "notes",
            pid: 4242,
            wallClockTime: "2026-11-21 05:00:00"
        )
        let lines = try Self.leakReport().renderText(process: process).split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(4)) == [
                "Incident Identifier: com.example.notes-1", "Process:             notes [4242]",
                "Identifier:          com.example.notes", "Date/Time:           2026-11-21 05:00:00",
            ]
        )
    }

    @Test("A clean exit's text report says no assertion was held")
    func renderClean() throws {
        var d = Driver(policy: .server(grace: .seconds(10)))
        try d.open(notes, at: .zero)
        let report = try #require(try d.background(notes, at: .t(1)).reports.first)
        let text = report.renderText()
        #expect(text.contains("Termination Reason:  exited with status 0"))
        #expect(text.contains("No background task assertions were held (permittedBackgroundDuration: 10.000 s)."))
    }

    @Test("A JSON round trip through Codable gives an equal report")
    func jsonRoundTrip() throws {
        let report = try Self.leakReport()
        let data = try JSONEncoder().encode(report)
        let decoded = try JSONDecoder().decode(TerminationReport.self, from: data)
        #expect(decoded == report)
        #expect(decoded.leakedAssertions.first?.origin.fileID == "Notes/UploadManager.swift")
    }

    @Test("Incident numbers increase from 1 within one system, and start again at 1 in another")
    func incidentNumbers() throws {
        var d = Driver()
        for app in [notes, mail, maps] { try d.open(app, at: .zero) }
        try d.send(.terminate(notes, .userForceQuit), at: .t(1))
        try d.send(.terminate(mail, .exited(status: 3)), at: .t(2))
        try d.send(.terminate(maps, .userForceQuit), at: .t(3))
        #expect(d.timeline.map(\.effect).reports.map(\.incident) == [1, 2, 3])
        #expect(try Self.leakReport().incident == 1)
    }

    @Test("Only an exit with status 0 and no leaks is clean")
    func isClean() throws {
        #expect(try !Self.leakReport().isClean)
        var d = Driver()
        try d.open(notes, at: .zero)
        try d.begin(notes, at: .t(1))
        let exited = try #require(try d.send(.terminate(notes, .exited(status: 0)), at: .t(2)).reports.first)
        #expect(!exited.isClean)
        #expect(exited.leakedAssertions.count == 1)
    }

    @Test("Exception codes print as Apple's hexadecimal codes with their namespace")
    func exceptionCodes() {
        #expect(ExceptionCode.watchdogTimeout.description == "0x8badf00d")
        #expect(ExceptionCode.watchdogTimeout.namespace == "FRONTBOARD")
        #expect(ExceptionCode.tooManyAssertions.description == "0xbada5e47")
        #expect(ExceptionCode.tooManyAssertions.namespace == "ASSERTIOND")
        #expect(ExceptionCode.runningBoardTooManyAssertions.description == "0xd00d2bad")
        #expect(ExceptionCode.deadlock.description == "0xdead10cc")
    }

    @Test("A text report lists at most 50 leaks and says how many more the JSON holds")
    func renderManyLeaks() throws {
        var d = Driver()
        try d.open(notes, at: .zero)
        for _ in 1...1001 { try d.begin(notes, at: .t(1)) }
        let text = try #require(d.timeline.map(\.effect).reports.first).renderText()
        #expect(text.contains("Leaked background task assertions (1000)"))
        #expect(text.contains("#50 (0x32)") && !text.contains("#51 (0x33)"))
        #expect(text.contains("… and 950 more (the JSON report lists every one)"))
    }
}
