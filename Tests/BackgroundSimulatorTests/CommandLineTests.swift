import BackgroundSimulator
import BackgroundTestSupport
import Foundation
import Testing

/// `bgctl simulate` and `bgctl fuzz` as users run them, in child processes.
@Suite("bgctl simulate and bgctl fuzz")
struct CommandLineTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("A failed expectation exits 1 and says which; a malformed scenario exits 65 and says where")
    func exitStatuses() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "bgctl-simulate-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var scenario = try Scenario.load(contentsOf: Self.root.appending(path: "examples/leaked-assertion.json"))
        scenario.expectations?.terminations = []
        let failing = directory.appending(path: "failing.json")
        try scenario.jsonData().write(to: failing)
        let failed = try await runBgctl(["simulate", failing.path, "--log", "none"])
        #expect(failed.status == 1)
        #expect(failed.output.contains("expected 0 terminations, saw 1"))
        #expect(failed.output.hasSuffix("FAILED\n"))

        let broken = directory.appending(path: "broken.json")
        try Data(#"{"formatVersion": 1, "name": "x", "duration": "1d", "apps": [{"id": "a", "onlaunch": []}]}"#.utf8)
            .write(to: broken)
        let unreadable = try await runBgctl(["simulate", broken.path])
        #expect(unreadable.status == 65)
        #expect(unreadable.error.hasPrefix("bgctl simulate: broken.json: apps[0]"))
        #expect(unreadable.error.contains("onLaunch"))
    }

    @Test("--timeline writes one self-contained HTML page")
    func timelineFile() async throws {
        let page = FileManager.default.temporaryDirectory.appending(path: "bgctl-timeline-\(UUID()).html")
        defer { try? FileManager.default.removeItem(at: page) }
        let result = try await runBgctl(
            ["simulate", "examples/leaked-assertion.json", "--log", "none", "--timeline", page.path],
            in: Self.root
        )
        #expect(result.status == 0, "\(result.error)")
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<svg"))
        #expect(html.contains("0x8badf00d"))
        #expect(!html.contains("src=\"http"), "no external resources")
    }

    @Test("bgctl fuzz runs its seeds and reports no violation; --print shows a seed's scenario")
    func fuzzCommand() async throws {
        let result = try await runBgctl(["fuzz", "--seeds", "20", "--first", "500"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("fuzzed 20 seed(s) 500...519"))
        #expect(result.output.contains("no invariant violated"))
        let printed = try await runBgctl(["fuzz", "--seed", "7", "--print"])
        let scenario = try Scenario.decode(from: Data(printed.output.utf8))
        #expect(scenario == ScenarioGenerator().scenario(seed: 7))
    }
}
