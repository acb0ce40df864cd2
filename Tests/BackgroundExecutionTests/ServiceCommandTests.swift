import BackgroundTestSupport
import Foundation
import Testing

/// The example services and `bgctl why` as a user meets them: numbers and names checked when
/// parsed, paths checked before the service says it is up, exit statuses from the one table,
/// --json, and --log-level. Child processes, as users run them.
@Suite("bgctl why and the example services: checked input, exit codes, --json, --log-level")
struct ServiceCommandTests {
    static let bgctl = builtExecutable("bgctl")

    func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-svc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    func expectUsage(
        _ arguments: [String],
        mentions: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws
    {
        let result = try await runBgctl(arguments)
        #expect(result.status == 64, "\(arguments): \(result.error)", sourceLocation: sourceLocation)
        let command = arguments[0]
        #expect(result.error.hasPrefix("bgctl \(command): usage: "), "\(result.error)", sourceLocation: sourceLocation)
        for word in mentions {
            #expect(result.error.contains(word), "\(result.error)", sourceLocation: sourceLocation)
        }
        #expect(!result.output.contains("ready"), "refused before starting", sourceLocation: sourceLocation)
    }

    @Test("shutdown-example: a negative, infinite or NaN duration is a usage error, not T+-0.206s")
    func graceChecked() async throws {
        try await expectUsage(["shutdown-example", "--grace=-1"], mentions: ["--grace"])
        try await expectUsage(["shutdown-example", "--grace", "nan"], mentions: ["--grace", "nan"])
        try await expectUsage(["shutdown-example", "--grace", "0"], mentions: ["--grace"])
        try await expectUsage(["shutdown-example", "--work", "inf"], mentions: ["--work"])
        try await expectUsage(["scheduler-example", "--refresh-delay", "-5"], mentions: ["--refresh-delay"])
    }

    @Test("why: unknown device values are usage errors that list the valid ones")
    func deviceValuesChecked() async throws {
        let store = ["--app", "com.example.scheduler", "--store", "/nonexistent.sqlite"]
        try await expectUsage(["why"] + store + ["--power", "batery"], mentions: ["batery", "battery", "external"])
        try await expectUsage(["why"] + store + ["--network", "lte"], mentions: ["lte", "wifi", "cellular"])
        try await expectUsage(["why"] + store + ["--battery-level", "2"], mentions: ["--battery-level"])
    }

    @Test("scheduler-example: an unusable --control-directory fails at once, before 'ready', with 73")
    func controlDirectoryChecked() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("plain")
        _ = FileManager.default.createFile(atPath: file.path, contents: Data())
        let result = try await runChildProcess(
            Self.bgctl,
            ["scheduler-example", "--control-directory", file.path + "/control"],
            timeout: .seconds(30)
        )
        #expect(result.status == 73, "\(result.error)")
        #expect(result.error.hasPrefix("bgctl scheduler-example: \(file.path)/control: "), "\(result.error)")
        #expect(result.error.filter { $0 == "\n" }.count == 1, "\(result.error)")
        #expect(!result.output.contains("ready"))
    }

    @Test("why --store: an unknown identifier exits 1; --json prints every request's explanation")
    func whyAnswers() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("app.sqlite").path
        let service = try await runChildProcessUntilSignalled(
            Self.bgctl,
            ["scheduler-example", "--store", store, "--control-directory", directory.appendingPathComponent("c").path],
            after: "ready"
        )
        #expect(service.status == 0, "\(service.error)")
        let offline = ["--app", "com.example.scheduler", "--store", store]
        let unknown = try await runBgctl(["why", "com.example.nope"] + offline)
        #expect(unknown.status == 1, "\(unknown.error)")
        #expect(unknown.output == "com.example.nope: no pending task request with this identifier\n")
        let known = try await runBgctl(["why", "com.example.scheduler.cleanup"] + offline)
        #expect(known.status == 0, "\(known.error)")
        let json = try await runBgctl(["why", "--json"] + offline)
        #expect(json.status == 0, "\(json.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["app"] as? String == "com.example.scheduler")
        let requests = try #require(object["requests"] as? [[String: Any]])
        #expect(
            requests.compactMap { $0["identifier"] as? String }.sorted() == [
                "com.example.scheduler.cleanup", "com.example.scheduler.refresh",
            ]
        )
        let refresh = try #require(requests.first { $0["identifier"] as? String == "com.example.scheduler.refresh" })
        #expect(refresh["eligibleNow"] as? Bool == false)
        #expect((refresh["earliestPossibleRun"] as? String)?.hasSuffix("Z") == true, "an ISO 8601 date")
        let unmet = try #require(refresh["unmet"] as? [[String: Any]])
        #expect(unmet.contains { $0["condition"] as? String == "notBefore" })
    }

    @Test("--log-level warning keeps the example service's info lines out of standard error")
    func logLevel() async throws {
        let chatty = try await runChildProcessUntilSignalled(
            Self.bgctl,
            ["shutdown-example", "--work", "0"],
            after: "ready"
        )
        #expect(chatty.status == 0, "\(chatty.error)")
        #expect(chatty.error.contains("moving"), "the default level logs the move: \(chatty.error)")
        let quiet = try await runChildProcessUntilSignalled(
            Self.bgctl,
            ["shutdown-example", "--work", "0", "--log-level", "warning"],
            after: "ready"
        )
        #expect(quiet.status == 0, "\(quiet.error)")
        #expect(quiet.error.isEmpty, "\(quiet.error)")
        try await expectUsage(["shutdown-example", "--log-level", "loud"], mentions: ["loud", "warning"])
    }
}
