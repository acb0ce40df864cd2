import BackgroundTestSupport
import Foundation
import Testing

/// `bgctl device` against a real `backgroundd` process reading this machine's probes: sources in
/// `bgctl device` and `bgctl daemon status`, overrides in developer mode only, one-line errors
/// with exit 64, and the defaults said once in the daemon's log.
@Suite("bgctl device against backgroundd", .serialized)
struct DeviceCommandTests {
    /// A `backgroundd` in a fresh home; `stop()` ends it and returns its log.
    final class Daemon: @unchecked Sendable {
        let home: TemporaryDirectory
        let process = Process()
        let errors = Pipe()
        var socket: String { home.path + "/.local/state/backgroundd/run/backgroundd.sock" }

        init(_ arguments: [String]) async throws {
            home = try TemporaryDirectory()
            try FileManager.default.createDirectory(
                atPath: home.path + "/.local/state/backgroundd/apps",
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            process.executableURL = builtExecutable("backgroundd")
            // Explicit paths: as root the daemon's defaults are the system's (/var/lib, /run).
            process.arguments =
                [
                    "--process-control", "none", "--app-users", "off", "--state-dir",
                    home.path + "/.local/state/backgroundd",
                    "--socket", home.path + "/.local/state/backgroundd/run/backgroundd.sock",
                ] + arguments
            process.environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let socket = self.socket
            let appeared = await waitUntil(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: socket) }
            if !appeared { _ = await onThread { [self] in stop() } }
            try #require(appeared, "the socket did not appear")
        }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func bgctl(_ arguments: [String]) throws -> ChildProcessResult {
            try runBgctlBlocking(arguments + ["--socket", socket])
        }

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func stop() -> String {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            home.remove()
            return log
        }
    }

    @Test("developer mode: set overrides with sources, --json, key=probe and clear; the log says each default once")
    func developerMode() async throws {
        let daemon = try await Daemon(["--developer-mode"])
        // bgctl runs block: on a thread of their own, never the cooperative pool (2 threads here).
        try await onThread { try Self.developerModeChecks(daemon) }.get()
    }

    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func developerModeChecks(_ daemon: Daemon) throws {
        var log = ""
        defer { if log.isEmpty { _ = daemon.stop() } }
        let set = try daemon.bgctl(["device", "set", "power=battery", "battery=15", "network=none", "lowpower=on"])
        #expect(set.status == 0, "\(set.error)")
        #expect(set.output.contains("power: battery (override)"))
        #expect(set.output.contains("network: none (override)"))
        let json = try daemon.bgctl(["device", "--json"])
        #expect(json.status == 0, "\(json.error)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(document["overrides"] as? String == "power=battery battery=15 network=none low-power=on")
        let conditions = try #require(document["conditions"] as? [[String: Any]])
        #expect(conditions.first { $0["name"] as? String == "low-power" }?["source"] as? String == "override")
        #expect(conditions.allSatisfy { ["probe", "default", "override"].contains($0["source"] as? String ?? "") })

        let partly = try daemon.bgctl(["device", "set", "power=probe"])
        #expect(partly.status == 0)
        #expect(!partly.output.contains("power: battery"))
        let status = try daemon.bgctl(["daemon", "status"])
        #expect(status.output.contains("battery: 15% (override)"))
        #expect(status.output.contains("memory: "))

        let cleared = try daemon.bgctl(["device", "clear"])
        #expect(cleared.status == 0)
        #expect(!cleared.output.contains("(override)"))

        for bad in [["volume=3"], ["battery=150"], ["power"]] {
            let result = try daemon.bgctl(["device", "set"] + bad)
            #expect(result.status == 64, "\(result.error)")
            #expect(result.error.hasPrefix("bgctl device set: device: "), "\(result.error)")
            #expect(result.error.filter { $0 == "\n" }.count == 1, "\(result.error)")
        }
        log = daemon.stop()
        #expect(log.contains("device: overrides power=battery battery=15 network=none low-power=on (bgctl device)"))
        #expect(log.contains("device: overrides cleared"))
        let lowPowerDefault = log.components(separatedBy: "\n").filter { $0.contains("device: low-power:") }
        #expect(lowPowerDefault.count == 1, "\(log)")
    }

    @Test("without developer mode set and clear are refused (77), and showing still works")
    func refusedWithoutDeveloperMode() async throws {
        let daemon = try await Daemon([])
        try await onThread {
            defer { _ = daemon.stop() }
            let set = try daemon.bgctl(["device", "set", "power=battery"])
            #expect(set.status == 77, "\(set.error)")
            #expect(set.output.contains("start backgroundd with --developer-mode"))
            #expect(try daemon.bgctl(["device", "clear"]).status == 77)
            #expect(try daemon.bgctl(["device"]).status == 0)
        }.get()
    }

    @Test("no daemon is 69, one line")
    func noDaemon() async throws {
        let result = try await onThread {
            try runBgctlBlocking(["device", "show", "--socket", "/tmp/no-such-backgroundd-\(getpid()).sock"])
        }.get()
        #expect(result.status == 69, "\(result.error)")
        #expect(result.error.filter { $0 == "\n" }.count == 1)
    }
}
