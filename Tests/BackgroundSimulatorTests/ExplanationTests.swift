import BackgroundSimulator
import BackgroundTestSupport
import Foundation
import Testing

/// `why` with history, what-ifs and the likely range, on the examples of `examples/` where the
/// answer is known from the scenario's own timeline, through the simulator's test API and
/// `bgctl why --scenario`.
@MainActor
@Suite("Explanations on the example scenarios")
struct ExplanationTests {
    static let examples = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "examples")
    static let notes: AppID = "com.example.notes"
    static let cleanup = "com.example.notes.db-cleanup"

    /// The overnight clean-up, stopped at a time of its timeline (or run to its end).
    static func overnight(until at: String? = nil) throws -> Simulator {
        var scenario = try Scenario.load(contentsOf: examples.appending(path: "overnight-db-cleanup.json"))
        if let at { scenario.duration = try Scenario.Step.At(parsing: at).offset(from: scenario.start) }
        return try ScenarioRun(scenario).simulator
    }

    @Test("overnight clean-up: submitted at 18:20, it waited 4 h 40 min for power and 2 h 31 min for idleness")
    func overnightHistory() throws {
        let simulator = try Self.overnight()
        let history = simulator.history(of: Self.notes, identifier: Self.cleanup)
        let run = try #require(history.runs.last)
        #expect(history.runs.count == 1)
        // Resubmitted when the user left at 18:20; plugged in at 23:00.
        #expect(run.waited(for: .externalPower) == .seconds(4 * 3600 + 40 * 60))
        // In use 18:20–20:10 (locked at 20:00, idle ten minutes later) and 22:30–23:11.
        #expect(run.waited(for: .deviceIdle) == .seconds(2 * 3600 + 31 * 60))
        #expect(run.waited == .seconds(4 * 3600 + 51 * 60))
        #expect(run.duration == .seconds(240))
        #expect(run.outcome == .succeeded)
        #expect(history.pendingSince == nil)
    }

    @Test("the scenario summary names what each identifier's last run waited for")
    func summary() throws {
        let scenario = try Scenario.load(contentsOf: Self.examples.appending(path: "overnight-db-cleanup.json"))
        let summary = try ScenarioRun(scenario).summary
        #expect(
            summary.contains(
                "\"com.example.notes.db-cleanup\": 1 run(s) recorded; the last waited 4h 51m "
                    + "(for external power 4h 40m, the device to be idle 2h 31m)"
            ),
            "\(summary)"
        )
    }

    @Test("overnight clean-up at 21:00: pending, waited 2 h 40 min for power; plugged in it could run at once")
    func overnightWhatIf() throws {
        let simulator = try Self.overnight(until: "21:00")
        let history = simulator.history(of: Self.notes, identifier: Self.cleanup)
        #expect(history.runs.isEmpty)
        #expect(history.waiting(for: .externalPower) == .seconds(2 * 3600 + 40 * 60))
        #expect(history.waiting(for: .deviceIdle) == .seconds(3600 + 50 * 60))
        let whatIfs = simulator.whatIfs(of: Self.notes, identifier: Self.cleanup)
        #expect(whatIfs.map(\.changes) == [[.plugIn]])
        #expect(whatIfs.first?.eligibility.isEligible == true)
        #expect(whatIfs.first?.heldBack?.reason == .externalPower)
        let unplugged = try #require(whatIfs.first?.heldBack?.since)
        #expect(simulator.now - unplugged >= .seconds(2 * 3600 + 40 * 60), "on battery at least since the submission")
        let range = try #require(simulator.likelyRange(of: Self.notes, identifier: Self.cleanup))
        #expect(range.latest == nil, "when the user plugs in is not something the predictor knows")
        #expect(simulator.deviceConditionIntervals.count >= 4)
    }

    @Test("news day: the overnight refresh's range comes from the usage predictor and the launch spacing")
    func newsRange() throws {
        let scenario = try Scenario.load(contentsOf: Self.examples.appending(path: "news-refresh-day.json"))
        let simulator = try ScenarioRun(scenario).simulator
        let app: AppID = "com.example.news"
        let explanation = try #require(simulator.explanation(of: app, identifier: "com.example.news.refresh"))
        let why = try #require(explanation.eligibility)
        let range = try #require(explanation.likelyRange)
        #expect(range.earliest == why.earliestRun)
        let latest = try #require(range.latest)
        #expect(latest >= range.earliest + .seconds(3600 + 900))
        #expect(explanation.history.runs.count > 10)
        #expect(explanation.history.runs.allSatisfy { $0.outcome == .succeeded })
        #expect(
            simulator.explanations(of: app).map(\.identifier) == [
                "com.example.news.db-cleanup", "com.example.news.refresh",
            ]
        )
    }

    @Test("bgctl why --scenario --history shows the history, the what-ifs and the range")
    func commandLine() async throws {
        let file = Self.examples.appending(path: "overnight-db-cleanup.json").path
        let pending = try await runBgctl(["why", "--scenario", file, "--at", "21:00", "--history"])
        #expect(pending.status == 0, "\(pending.error)")
        #expect(pending.output.contains("pending since 2026-03-02T18:20:00Z; waited for external power 2h 40m"))
        #expect(pending.output.contains("- if plugged in: it could run now"))
        #expect(pending.output.contains("the project's own estimate, not Apple's"))
        let done = try await runBgctl(["why", Self.cleanup, "--scenario", file, "--history"])
        #expect(done.output.contains("ran at 2026-03-02T23:11:00Z for 4m: succeeded; had waited 4h 51m"))
        let unknown = try await runBgctl(["why", "com.example.notes.nope", "--scenario", file])
        #expect(unknown.status == 1)
    }

    @Test("bgctl why --json carries the same explanation")
    func json() async throws {
        let file = Self.examples.appending(path: "overnight-db-cleanup.json").path
        let result = try await runBgctl(["why", "--scenario", file, "--at", "21:00", "--history", "--json"])
        #expect(result.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(document["timelineOrigin"] as? String == "2026-03-02T07:00:00Z")
        let explanation = try #require((document["explanations"] as? [[String: Any]])?.first)
        let waiting = try #require((explanation["history"] as? [String: Any])?["waiting"] as? [[String: Any]])
        #expect(waiting.first?["reason"] as? String == "externalPower")
        #expect(waiting.first?["seconds"] as? Double == 9600)
        let whatIfs = try #require(explanation["whatIfs"] as? [[String: Any]])
        #expect(whatIfs.first?["changes"] as? [String] == ["plugIn"])
    }

    @Test("bgctl why --bundle writes one report: manifest, doctor, requests, device, reports; no titles")
    func bundle() async throws {
        let file = Self.examples.appending(path: "leaked-assertion.json").path
        let output = FileManager.default.temporaryDirectory.appending(path: "why-bundle-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await runBgctl(["why", "--scenario", file, "--bundle", output.path])
        #expect(result.status == 0, "\(result.error)")
        let data = try Data(contentsOf: output)
        let bundle = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(bundle["format"] as? String == "bgctl-why-bundle")
        #expect(bundle["source"] as? String == "leaked-assertion.json")
        #expect(bundle["manifest"] is [String: Any])
        #expect(bundle["doctor"] is [String: Any])
        let device = try #require(bundle["device"] as? [String: Any])
        #expect(device["conditions"] is [String: Any])
        #expect(device["intervals"] is [Any])
        #expect(bundle["requests"] is [Any])
        let reports = try #require(bundle["terminationReports"] as? [[String: Any]])
        #expect(!reports.isEmpty, "the example's app is killed for its leaked assertion")
        #expect(!String(decoding: data, as: UTF8.self).contains(NSHomeDirectory() + "/"), "no paths")
        let attributes = try FileManager.default.attributesOfItem(atPath: output.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let overnight = Self.examples.appending(path: "overnight-db-cleanup.json").path
        try FileManager.default.removeItem(at: output)
        let pending = try await runBgctl(["why", "--scenario", overnight, "--at", "21:00", "--bundle", output.path])
        #expect(pending.status == 0, "\(pending.error)")
        let second = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
        let requests = try #require(second["requests"] as? [[String: Any]])
        #expect(requests.count == 1)
        let request = try #require((requests.first?["eligibility"] as? [String: Any])?["request"] as? [String: Any])
        #expect(request["identifier"] as? String == Self.cleanup)
        #expect(request["title"] as? String == "")
        let doctor = try #require(second["doctor"] as? [String: Any])
        #expect(doctor["findings"] is [Any], "the doctor ran on the manifest the system holds: \(doctor)")
    }
}
