import BackgroundTestSupport
import Foundation
import Testing

/// A real `backgroundd` while its manifests directory changes (`ManifestWatcher`, `bgctl daemon
/// reload`), and its stop with an app it started in the foreground (`endStartedApps`): every
/// step waits for an event (an answer of the daemon, a line of the app), never for time.
@Suite("backgroundd: manifests reloaded while running, apps ended as iOS ends them at the stop", .serialized)
struct ManifestReloadTests {
    static let first = "com.example.first"
    static let second = "com.example.second"

    static func installed(_ daemon: InstalledDaemon) -> [String] {
        let output = (try? daemon.bgctl(["apps", "--json"]).output) ?? ""
        let document = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return ((document?["apps"] as? [[String: Any]]) ?? []).compactMap { $0["app"] as? String }
    }

    static func write(_ manifest: [String: Any], to path: String, mode: Int = 0o644) throws {
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(
            to: URL(fileURLWithPath: path)
        )
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test("a manifest added while the daemon runs is installed without a restart, and the app can be opened")
    func addedManifestIsPickedUp() async throws {
        let problems = try await onThread { () throws -> [String] in
            let executable = builtExecutable("daemon-api-test-app").path
            let daemon = try InstalledDaemon(manifestFile: "first.json") { _ in ["CFBundleIdentifier": Self.first] }
            defer { daemon.stop() }
            var problems: [String] = []
            if Self.installed(daemon) != [Self.first] { problems.append("before: \(Self.installed(daemon))") }
            // Written under a hidden name, then moved in: as package managers install files.
            let apps = daemon.state + "/apps/"
            try Self.write(
                [
                    "CFBundleIdentifier": Self.second,
                    "BackgroundLaunch": ["Arguments": [executable, "--log", daemon.log]],
                ],
                to: apps + ".second.json.tmp"
            )
            try FileManager.default.moveItem(atPath: apps + ".second.json.tmp", toPath: apps + "second.json")
            if !RealAppTests.waitFor(seconds: 60, { Self.installed(daemon) == [Self.first, Self.second] }) {
                problems.append("not picked up: \(Self.installed(daemon))")
            }
            _ = try daemon.bgctl(["open", Self.second])
            let launched = RealAppTests.waitFor(seconds: 60) {
                ((try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? "").contains("didBecomeActive")
            }
            if !launched { problems.append("\(Self.second) was not launched after the reload") }
            // Removed: no longer installed.
            try FileManager.default.removeItem(atPath: apps + "first.json")
            if !RealAppTests.waitFor(seconds: 60, { Self.installed(daemon) == [Self.second] }) {
                problems.append("a removed manifest stays installed: \(Self.installed(daemon))")
            }
            return problems
        }.get()
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("bgctl daemon reload: 0 when all load; 65 naming a manifest others can write, which is not installed")
    func reloadCommand() async throws {
        let problems = try await onThread { () throws -> [String] in
            let daemon = try InstalledDaemon(manifestFile: "first.json") { _ in ["CFBundleIdentifier": Self.first] }
            defer { daemon.stop() }
            var problems: [String] = []
            let clean = try daemon.bgctl(["reload", "--json"])
            if clean.status != 0 { problems.append("a clean reload exits \(clean.status): \(clean.error)") }
            let document = try? JSONSerialization.jsonObject(with: Data(clean.output.utf8)) as? [String: Any]
            if document?["installed"] as? Int != 1 { problems.append("clean reload: \(clean.output)") }
            try Self.write(
                ["CFBundleIdentifier": "com.example.writable"],
                to: daemon.state + "/apps/writable.json",
                mode: 0o666
            )
            let refused = try daemon.bgctl(["reload", "--json"])
            if refused.status != 65 { problems.append("a refused manifest exits \(refused.status), not 65") }
            let answer = try? JSONSerialization.jsonObject(with: Data(refused.output.utf8)) as? [String: Any]
            let notLoaded = (answer?["notLoaded"] as? [[String: Any]]) ?? []
            if notLoaded.first?["file"] as? String != "writable.json"
                || !((notLoaded.first?["reason"] as? String) ?? "").contains("can be written by other users")
            {
                problems.append("the refusal is not named: \(refused.output)")
            }
            if Self.installed(daemon).contains("com.example.writable") {
                problems.append("an unsafe manifest was installed")
            }
            let human = try daemon.bgctl(["reload"])
            if !human.output.contains("not loaded: writable.json") { problems.append("human: \(human.output)") }
            return problems
        }.get()
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("the daemon's stop: its foreground app gets applicationWillTerminate, then exits; the daemon exits 0")
    func stopEndsAppsAsIOSDoes() async throws {
        let problems = try await onThread { () throws -> [String] in
            let executable = builtExecutable("daemon-api-test-app").path
            let daemon = try InstalledDaemon(manifestFile: "first.json") { log in
                ["CFBundleIdentifier": Self.first, "BackgroundLaunch": ["Arguments": [executable, "--log", log]]]
            }
            defer { daemon.stop() }
            func logged(_ text: String) -> Bool {
                RealAppTests.waitFor(seconds: 60) {
                    ((try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? "").contains(text)
                }
            }
            _ = try daemon.bgctl(["open", Self.first])
            guard logged("didBecomeActive") else { return ["the daemon did not open \(Self.first)"] }
            let apps = try daemon.bgctl(["apps", "--json"]).output
            guard let pid = appRow(Self.first, apps: apps)?["pid"] as? Int else { return ["no pid: \(apps)"] }
            daemon.process.terminate()
            daemon.process.waitUntilExit()
            var problems: [String] = []
            if daemon.process.terminationStatus != 0 {
                problems.append("the daemon exited \(daemon.process.terminationStatus)")
            }
            if !logged("willTerminate") { problems.append("no applicationWillTerminate before the end") }
            // Gone (or a zombie nobody reaped yet): never left running, nor frozen.
            if !Self.ends(pid) { problems.append("the app process \(pid) still runs") }
            return problems
        }.get()
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("the daemon's stop: an app that never returns from applicationWillTerminate is killed after the limit")
    func stopKillsAnAppThatHangs() async throws {
        let problems = try await onThread { () throws -> [String] in
            let executable = builtExecutable("daemon-api-test-app").path
            let daemon = try InstalledDaemon(manifestFile: "first.json") { log in
                [
                    "CFBundleIdentifier": Self.first,
                    "BackgroundLaunch": ["Arguments": [executable, "--log", log, "--hang-on-terminate"]],
                ]
            }
            defer { daemon.stop() }
            _ = try daemon.bgctl(["open", Self.first])
            guard Self.logged("didBecomeActive", in: daemon) else { return ["the daemon did not open \(Self.first)"] }
            guard let pid = appRow(Self.first, apps: try daemon.bgctl(["apps", "--json"]).output)?["pid"] as? Int else {
                return ["no pid"]
            }
            daemon.process.terminate()
            daemon.process.waitUntilExit()
            var problems: [String] = []
            if daemon.process.terminationStatus != 0 {
                problems.append("the daemon exited \(daemon.process.terminationStatus)")
            }
            if !Self.logged("willTerminate", in: daemon) { problems.append("no applicationWillTerminate") }
            if !Self.ends(pid) { problems.append("the app that hangs in applicationWillTerminate still runs") }
            return problems
        }.get()
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("the daemon's stop: a suspended (frozen) app is killed at once, without applicationWillTerminate")
    func stopKillsASuspendedApp() async throws {
        let problems = try await onThread { () throws -> [String] in
            let executable = builtExecutable("daemon-api-test-app").path
            let daemon = try InstalledDaemon(manifestFile: "first.json") { log in
                ["CFBundleIdentifier": Self.first, "BackgroundLaunch": ["Arguments": [executable, "--log", log]]]
            }
            defer { daemon.stop() }
            _ = try daemon.bgctl(["open", Self.first])
            guard Self.logged("didBecomeActive", in: daemon) else { return ["the daemon did not open \(Self.first)"] }
            _ = try daemon.bgctl(["home"])
            let suspended = RealAppTests.waitFor(seconds: 60) {
                let state = appRow(Self.first, apps: (try? daemon.bgctl(["apps", "--json"]).output) ?? "")?["state"]
                return ["suspended", "not-frozen"].contains(state as? String ?? "")
            }
            guard suspended else { return ["\(Self.first) was not suspended"] }
            guard let pid = appRow(Self.first, apps: try daemon.bgctl(["apps", "--json"]).output)?["pid"] as? Int else {
                return ["no pid"]
            }
            daemon.process.terminate()
            daemon.process.waitUntilExit()
            var problems: [String] = []
            if daemon.process.terminationStatus != 0 {
                problems.append("the daemon exited \(daemon.process.terminationStatus)")
            }
            if !Self.ends(pid) { problems.append("the suspended app still runs (or stays frozen)") }
            let log = (try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? ""
            if log.contains("willTerminate") { problems.append("a suspended app ran applicationWillTerminate: \(log)") }
            return problems
        }.get()
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Whether the app's log file has `text` (waiting for it up to 60 s).
    static func logged(_ text: String, in daemon: InstalledDaemon) -> Bool {
        RealAppTests.waitFor(seconds: 60) {
            ((try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? "").contains(text)
        }
    }

    /// Whether process `pid` is gone (or a zombie), waiting up to 60 s for it: a kill's end is
    /// not instant.
    static func ends(_ pid: Int) -> Bool {
        RealAppTests.waitFor(seconds: 60) { !runs(pid) }
    }

    /// Whether process `pid` exists and is not a zombie.
    static func runs(_ pid: Int) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
    }
}
