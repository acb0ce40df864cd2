import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Logging
import Testing

/// Reports are a format others parse: a version field, seconds as numbers, codes as
/// "0x8badf00d", reasons as words, ISO 8601 dates, and a JSON Schema that checks them.
@Suite("Termination reports: the versioned JSON format and its schema")
struct TerminationReportFormatTests {
    /// A system on virtual time that records its reports and writes them into `directory`.
    @MainActor
    static func system(policy: SystemPolicy, directory: URL?, clock: ManualClock) -> EmbeddedSystem {
        EmbeddedSystem(
            configuration: .init(
                app: "com.example.reports",
                policy: policy,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: directory,
                printsReportsToStandardError: false,
                logger: Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() })
            )
        )
    }

    /// Three reports: a watchdog kill with a leak, a clean exit, a force quit.
    @MainActor
    static func reports(directory: URL?) -> [TerminationReport] {
        let clock = ManualClock()
        let leaking = system(policy: .iOS, directory: directory, clock: clock)
        _ = UIApplication(connection: leaking).beginBackgroundTask(withName: "Leaky upload") {}
        leaking.moveToBackground()
        clock.advance(by: .seconds(31))
        let cleanClock = ManualClock()
        let clean = system(policy: .server(grace: .seconds(5)), directory: nil, clock: cleanClock)
        clean.moveToBackground()
        cleanClock.advance(by: .seconds(1))  // the delegate's callback returns; nothing is held
        let quitClock = ManualClock()
        let quitting = system(policy: .iOS, directory: nil, clock: quitClock)
        _ = UIApplication(connection: quitting).beginBackgroundTask(withName: "Held")
        quitting.moveToBackground()
        quitClock.advance(by: .seconds(1))
        _ = try? quitting.send(.terminate(quitting.app, .userForceQuit))
        return [leaking, clean, quitting].compactMap(\.terminationReports.last)
    }

    @Test("Seconds as numbers, codes as hex strings, reasons as words, a version field and an ISO 8601 date")
    @MainActor
    func fields() throws {
        let reports = Self.reports(directory: nil)
        try #require(reports.count == 3, "\(reports.map(\.reason))")
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        let data = try EmbeddedSystem.json(for: reports[0], date: date, process: .init(name: "exporter", pid: 42))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["formatVersion"] as? Int == 1)
        #expect(object["reason"] as? String == "watchdog")
        #expect(object["code"] as? String == "0x8badf00d")
        #expect(object["permittedBackgroundSeconds"] as? Double == 30)
        #expect(object["atSeconds"] as? Double == 30)
        #expect(object["stateBefore"] as? String == "background")
        #expect(object["date"] as? String == "2026-11-18T11:06:40Z")
        let leak = try #require((object["leakedAssertions"] as? [[String: Any]])?.first)
        #expect(leak["name"] as? String == "Leaky upload")
        #expect((leak["fileID"] as? String)?.hasSuffix("TerminationReportFormatTests.swift") == true)
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("_0"), "no Swift enum payload labels")
        #expect(!text.contains("[0,"), "no Duration pairs")
        let exited = try JSONSerialization.jsonObject(with: try EmbeddedSystem.json(for: reports[1])) as? [String: Any]
        #expect(exited?["reason"] as? String == "exited")
        #expect(exited?["exitStatus"] as? Int == 0)
        #expect(exited?["code"] == nil)
        let quit = try JSONSerialization.jsonObject(with: try EmbeddedSystem.json(for: reports[2])) as? [String: Any]
        #expect(quit?["reason"] as? String == "forceQuit")
    }

    @Test(
        "Every report, and the file the system writes, validates against schemas/termination-report.schema.json",
        .enabled(
            if: SchemaValidator.isAvailable || OptionalTools.required,
            "skipped: needs Python's jsonschema; apt-get install python3-jsonschema (or pip install jsonschema)"
        )
    )
    @MainActor
    func schema() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "reports-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let reports = Self.reports(directory: directory)
        var paths: [String] = []
        for (index, report) in reports.enumerated() {
            let path = directory.appending(path: "report-\(index).json")
            try EmbeddedSystem.json(for: report, date: Date()).write(to: path)
            paths.append(path.path)
        }
        // The daemon's 0xdead10cc report lists the locks held at suspension.
        var deadlock = TerminationReportDocument(reports[0], date: Date())
        deadlock.locksHeldAtSuspension = [
            .init(path: "/srv/group/notes.db", kind: "FLOCK", access: "WRITE", start: 0, end: nil, pid: nil),
            .init(path: "/srv/group/notes.db-wal", kind: "POSIX", access: "READ", start: 120, end: 120, pid: 4242),
        ]
        let deadlockPath = directory.appending(path: "deadlock.json")
        try deadlock.jsonData().write(to: deadlockPath)
        paths.append(deadlockPath.path)
        let written = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("com.example.reports-") && $0.hasSuffix(".json") }
        #expect(written.count == 1, "the watchdog report was published")
        paths += written.map { directory.appending(path: $0).path }
        let verdicts = try await SchemaValidator.verdicts(paths, schema: SchemaValidator.reportSchema)
        #expect(verdicts == Array(repeating: "valid", count: paths.count))
        // The old shape (Swift's synthesized Codable) is what the schema exists to rule out.
        let old = directory.appending(path: "old.json")
        try JSONEncoder().encode(reports[0]).write(to: old)
        let oldVerdict = try await SchemaValidator.verdicts([old.path], schema: SchemaValidator.reportSchema)
        #expect(oldVerdict.first?.hasPrefix("invalid") == true)
    }
}
