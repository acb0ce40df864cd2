import BackgroundSimulator
import BackgroundTestSupport
import Foundation
import Testing

/// What every bgctl command owes its user: one error line, one exit-code table, paths checked
/// before the work, --json, --version. Each test runs bgctl as a child process, as users do.
@Suite("bgctl conventions: errors, exit codes, --json")
struct CommandConventionTests {
    static let root = CommandLineTests.root

    /// Asserts one line on standard error, in the project's style, and nothing that looks
    /// like an NSError dump or a backtrace.
    func expectOneLine(
        _ result: ChildProcessResult,
        command: String,
        status: Int32,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "\(result.error)", sourceLocation: sourceLocation)
        #expect(result.error.hasPrefix("bgctl \(command): "), "\(result.error)", sourceLocation: sourceLocation)
        #expect(result.error.filter { $0 == "\n" }.count == 1, "\(result.error)", sourceLocation: sourceLocation)
        for dump in ["Error Domain", "NSError", "Fatal error", "backtrace", "Stack dump"] {
            #expect(!result.error.contains(dump), "\(result.error)", sourceLocation: sourceLocation)
        }
    }

    func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "bgctl-conventions-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("fuzz: an overflowing range, zero and negative seed counts are usage errors, not traps")
    func fuzzRanges() async throws {
        let overflow = try await runBgctl(["fuzz", "--first", "18446744073709551615", "--seeds", "2"])
        expectOneLine(overflow, command: "fuzz", status: 64)
        #expect(overflow.error.contains("use at most --seeds 1"))
        let zero = try await runBgctl(["fuzz", "--seeds", "0"])
        expectOneLine(zero, command: "fuzz", status: 64)
        #expect(zero.error.contains("--seeds must be at least 1"))
        let negative = try await runBgctl(["fuzz", "--seeds", "-5"])
        expectOneLine(negative, command: "fuzz", status: 64)
        #expect(negative.error.contains("'-5'"), "not 'Missing value'")
        let last = try await runBgctl(["fuzz", "--first", "18446744073709551615", "--seeds", "1"])
        #expect(last.status == 0, "\(last.error)")
        #expect(last.output.contains("fuzzed 1 seed(s) 18446744073709551615...18446744073709551615"))
    }

    /// Issue 26: `--grace -1` said "Missing value", and a fuzz output under /proc exited 66.
    @Test(
        "a negative number of seconds gets its real message naming the whole command; an output that cannot be made is 73"
    )
    func negativeSecondsAndUnmakeableOutput() async throws {
        let grace = try await runBgctl(["shutdown-example", "--grace", "-1"])
        expectOneLine(grace, command: "shutdown-example", status: 64)
        #expect(grace.error.contains("--grace must be more than 0 seconds, not -1.0"), "\(grace.error)")
        let timeout = try await runBgctl(["daemon", "status", "--timeout", "-2", "--socket", "/nonexistent.sock"])
        // The whole command is named, not `bgctl daemon` (issue 26).
        expectOneLine(timeout, command: "daemon status", status: 64)
        #expect(timeout.error.contains("--timeout must be a number of seconds above 0"), "\(timeout.error)")
        // A daemon timeline of a state directory that is not there writes nothing and says so.
        let page = try scratch().appending(path: "timeline.html").path
        let timeline = try await runBgctl(["daemon", "timeline", "--state-dir", "/nonexistent/state", "-o", page])
        expectOneLine(timeline, command: "daemon timeline", status: 66)
        #expect(timeline.error.contains("/nonexistent/state: no daemon state directory here"), "\(timeline.error)")
        #expect(!FileManager.default.fileExists(atPath: page))
        let output = try await runBgctl(["fuzz", "--seeds", "1", "--output", "/proc/nope"])
        expectOneLine(output, command: "fuzz", status: 73)
        #expect(output.error.contains("/proc/nope"))
    }

    @Test("fuzz: nothing on standard error when piped, a final count, and --json")
    func fuzzOutput() async throws {
        let piped = try await runBgctl(["fuzz", "--seeds", "5"])
        #expect(piped.status == 0)
        #expect(piped.error.isEmpty, "progress is for terminals only")
        #expect(piped.output.hasPrefix("fuzzed 5 seed(s) 0...4"))
        let json = try await runBgctl(["fuzz", "--seeds", "5", "--first", "10", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["first"] as? Int == 10)
        #expect(object["last"] as? Int == 14)
        #expect(object["count"] as? Int == 5)
        #expect((object["findings"] as? [Any])?.isEmpty == true)
        #expect(object["elapsedSeconds"] is Double)
    }

    @Test("simulate: a directory, a missing file and an unwritable --timeline fail at once, in one line")
    func simulatePaths() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = try await runBgctl(["simulate", directory.path])
        expectOneLine(folder, command: "simulate", status: 66)
        #expect(folder.error.contains("is a directory"))
        let missing = try await runBgctl(["simulate", directory.path + "/nope.json"])
        expectOneLine(missing, command: "simulate", status: 66)
        #expect(missing.error.contains("nope.json: No such file or directory"))
        let timeline = directory.path + "/no/such/dir/t.html"
        let unwritable = try await runBgctl(
            ["simulate", "examples/leaked-assertion.json", "--log", "none", "--timeline", timeline],
            in: Self.root
        )
        expectOneLine(unwritable, command: "simulate", status: 73)
        #expect(unwritable.error.contains(timeline))
        #expect(!unwritable.output.contains("PASSED"), "checked before the run, not after")
    }

    @Test("simulate: a scenario over 16 MiB is reported with its real size")
    func scenarioSize() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "huge.json")
        try Data(repeating: UInt8(ascii: " "), count: 17_825_837).write(to: file)
        let result = try await runBgctl(["simulate", file.path])
        expectOneLine(result, command: "simulate", status: 65)
        #expect(result.error.contains("the document is 17825837 bytes"), "\(result.error)")
    }

    @Test("simulate: the text names the leaked task, and says the termination once")
    func simulateNamesTheLeak() async throws {
        let result = try await runBgctl(["simulate", "examples/leaked-assertion.json"], in: Self.root)
        #expect(result.status == 0, "\(result.error)")
        let log = try #require(result.output.components(separatedBy: "\n\n").first)
        let terminations = log.split(separator: "\n").filter { $0.contains("terminated") && $0.contains("0x8badf00d") }
        #expect(terminations.count == 2, "one termination line, and the relaunch from the terminated state")
        #expect(terminations.first?.contains("leaked \"Sync messages\"") == true, "\(terminations)")
        #expect(!log.contains("terminated with 0x8badf00d"), "the core's summary is not repeated")
        #expect(result.output.contains("      leaked \"Sync messages\" (#1), begun at day 1 12:20:00.000"))
    }

    @Test("simulate --json: the verdict, failures, terminations in the report format, violations")
    func simulateJSON() async throws {
        let result = try await runBgctl(["simulate", "examples/leaked-assertion.json", "--json"], in: Self.root)
        #expect(result.status == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["passed"] as? Bool == true)
        #expect(object["seed"] as? Int == 2)
        #expect((object["failures"] as? [Any])?.isEmpty == true)
        let termination = try #require((object["terminations"] as? [[String: Any]])?.first)
        #expect(termination["formatVersion"] as? Int == 1)
        #expect(termination["code"] as? String == "0x8badf00d")
        #expect((termination["leakedAssertions"] as? [[String: Any]])?.first?["name"] as? String == "Sync messages")
    }

    @Test("--version, and unknown flags are usage errors in the same style")
    func versionAndUsage() async throws {
        let version = try await runBgctl(["--version"])
        #expect(version.status == 0)
        #expect(version.output.split(separator: ".").count == 3)
        let unknown = try await runBgctl(["simulate", "x.json", "--frobnicate"])
        expectOneLine(unknown, command: "simulate", status: 64)
        #expect(unknown.error.contains("--frobnicate"))
    }
}
