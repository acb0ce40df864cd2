import BackgroundTestSupport
import Foundation
import Testing

/// The conformance suite's lifecycle and watchdog cases with a real `backgroundd` and a real app
/// process (`daemon-api-test-app`, an `@main` app delegate on Apple's API, started by the
/// daemon): the same expected sequences as on the three in-process transports
/// (`ConformanceExpected`), read from the app's log. The budget is 3 s (`--background-time 3`)
/// so the watchdog case takes seconds, not minutes.
@Suite("Conformance with a real backgroundd and a real app process", .serialized)
struct RealProcessConformanceTests {
    static let app = "com.example.conformance"

    /// A daemon with the test app installed, started by the daemon with a log and a command pipe.
    final class Setup: @unchecked Sendable {
        let daemon: InstalledDaemon
        let commands: String

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        init() throws {
            let directory = try TemporaryDirectory()
            let commands = directory.path + "/app.commands"
            guard mkfifo(commands, 0o666) == 0, chmod(commands, 0o666) == 0 else { throw CocoaError(.fileWriteUnknown) }
            self.commands = commands
            daemon = try InstalledDaemon(manifestFile: "app.json", arguments: ["--background-time", "3"]) { log in
                [
                    "CFBundleIdentifier": RealProcessConformanceTests.app,
                    "BackgroundLaunch": [
                        "Arguments": [
                            builtExecutable("daemon-api-test-app").path, "--log", log, "--commands", commands,
                        ]
                    ],
                ]
            }
        }

        /// Sends a command to the app (through its named pipe).
        func command(_ line: String) {
            guard let handle = FileHandle(forWritingAtPath: commands) else { return }
            handle.write(Data((line + "\n").utf8))
            try? handle.close()
        }

        /// The app's log in the conformance suite's words: the test app says `launched active`
        /// for didFinishLaunching, `begun <name> <id>` and `expired <name> <id>` for a task.
        var calls: [String] {
            let text = (try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map { line in
                let words = line.split(separator: " ").dropFirst().map(String.init)  // the pid
                switch words.first {
                case "launched": return "didFinishLaunching"
                case "begun": return "\(words.dropFirst().first ?? "") began"
                case "expired": return "expired \(words.dropFirst().first ?? "")"
                default: return words.joined(separator: " ")
                }
            }
        }

        /// Waits (a bound for a loaded machine, not an expected time) until `condition` holds.
        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func waitFor(_ condition: () -> Bool) -> Bool {
            RealAppTests.waitFor(seconds: 300) { condition() }
        }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func state() -> String {
            let output = (try? daemon.bgctl(["apps", "--json"]).output) ?? ""
            return "\(appRow(RealProcessConformanceTests.app, apps: output)?["state"] ?? "")"
        }
    }

    @Test("Launch, Home, open: UIKit's callbacks in UIKit's order, each once (as on the three transports)")
    func lifecycleOrder() async throws {
        let (calls, states) = try await onThread { () throws -> ([String], [String]) in
            let setup = try Setup()
            defer { setup.daemon.stop() }
            var states: [String] = []
            _ = try setup.daemon.bgctl(["open", Self.app])
            _ = setup.waitFor { setup.calls.contains("didBecomeActive") }
            _ = try setup.daemon.bgctl(["home"])
            _ = setup.waitFor { setup.state() == "suspended" }
            states.append(setup.state())
            _ = try setup.daemon.bgctl(["open", Self.app])
            _ = setup.waitFor { setup.calls.filter { $0 == "didBecomeActive" }.count == 2 }
            states.append(setup.state())
            return (setup.calls, states)
        }.get()
        #expect(calls == ConformanceExpected.lifecycle)
        #expect(states == ["suspended", "active"])
    }

    @Test("A task begun in the foreground and never ended: its handler, then the watchdog's 0x8badf00d naming it")
    func watchdogNamesTheLeak() async throws {
        let (calls, state, report) = try await onThread { () throws -> ([String], String, String) in
            let setup = try Setup()
            defer { setup.daemon.stop() }
            _ = try setup.daemon.bgctl(["open", Self.app])
            _ = setup.waitFor { setup.calls.contains("didBecomeActive") }
            setup.command("hold Leak")
            _ = setup.waitFor { setup.calls.contains("Leak began") }
            _ = try setup.daemon.bgctl(["home"])
            _ = setup.waitFor { setup.state().contains("0x8badf00d") }
            let reports = setup.daemon.state + "/reports"
            let files = (try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? []
            let json = files.first { $0.hasSuffix(".json") }.flatMap {
                try? String(contentsOfFile: reports + "/" + $0, encoding: .utf8)
            }
            return (setup.calls, setup.state(), json ?? "")
        }.get()
        #expect(calls == ConformanceExpected.watchdog)
        #expect(state.contains("watchdog 0x8badf00d"), "\(state)")
        #expect(report.contains("0x8badf00d") && report.contains("Leak"), "\(report)")
    }
}
