import BackgroundTestSupport
import Foundation
import Testing

/// `bgctl push` and `bgctl daemon push` before they reach an app: the payload is checked and
/// every failure is one line with its exit status (docs/exit-codes.md).
@Suite("bgctl push: payload checks and exit codes")
struct PushCommandTests {
    func expectOneLine(_ result: ChildProcessResult, _ command: String, status: Int32, containing text: String) {
        #expect(result.status == status, "\(result.error)")
        #expect(result.error.hasPrefix("bgctl \(command): "), "\(result.error)")
        #expect(result.error.filter { $0 == "\n" }.count == 1, "\(result.error)")
        #expect(result.error.contains(text), "\(result.error)")
    }

    @Test("a payload that is not a JSON object, or too large, is bad input (65); a missing @file is 66")
    func payloadChecks() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "bgctl-push-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let control = ["--control-directory", directory.path]
        expectOneLine(
            try await runBgctl(["push", "com.example.app", "[1]"] + control),
            "push",
            status: 65,
            containing: "payload: the payload is not a JSON object"
        )
        let large = directory.appending(path: "large.json")
        try Data(("{\"x\":\"" + String(repeating: "a", count: 5000) + "\"}").utf8).write(to: large)
        expectOneLine(
            try await runBgctl(["push", "com.example.app", "@" + large.path] + control),
            "push",
            status: 65,
            containing: "APNs allows at most 4096"
        )
        expectOneLine(
            try await runBgctl(
                ["push", "com.example.app", "@" + directory.appending(path: "none.json").path] + control
            ),
            "push",
            status: 66,
            containing: "none.json"
        )
        expectOneLine(
            try await runBgctl(["daemon", "push", "com.example.app", "{"]),
            "daemon push",
            status: 65,
            containing: "not a JSON object"
        )
    }

    @Test("an app that is not running is unavailable (69)")
    func notRunning() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "bgctl-push-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        let result = try await runBgctl(["push", "com.example.app", "--control-directory", directory.path])
        #expect(result.status == 69, "\(result.error)")
        #expect(result.error.hasPrefix("bgctl push: app com.example.app: "), "\(result.error)")
    }
}
