import BackgroundDaemon
import BackgroundProtocol
import BackgroundTestSupport
import Foundation
import Testing

/// `backgroundd` as a real process: no configuration beyond a home directory.
@Suite("backgroundd process")
struct BackgrounddProcessTests {
    @Test("--log-level is bgctl's (one definition): a level that is not one is a usage error listing the levels")
    func logLevel() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.path + "/state"
        let result = try await runChildProcess(
            builtExecutable("backgroundd"),
            ["--state-dir", state, "--log-level", "loud"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path]
        )
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.hasPrefix("backgroundd: usage: "), "\(result.error)")
        for word in ["loud", "warning", "critical"] {
            #expect(result.error.contains(word), "\(result.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: state), "refused before anything is written")
    }

    @Test("starts with no configuration, serves its socket, reports bad manifests by name, stops on SIGTERM")
    func noConfiguration() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let state = home.path + "/.local/state/backgroundd"
        // Searchable: as root the apps run under their own uids and reach containers in the state.
        try FileManager.default.createDirectory(
            atPath: state,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o711]
        )
        try FileManager.default.createDirectory(atPath: state + "/apps", withIntermediateDirectories: false)
        try home.write(".local/state/backgroundd/apps/good.json", manifestJSON("com.example.good"))
        try home.write(".local/state/backgroundd/apps/bad.json", "{")
        let process = Process()
        process.executableURL = builtExecutable("backgroundd")
        // Root's default is /var/lib/backgroundd, never a test's to use: root is given its XDG_STATE_HOME.
        let xdg = geteuid() == 0 ? ["XDG_STATE_HOME": home.path + "/.local/state"] : [:]
        process.environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"].merging(xdg) { _, xdg in xdg }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let socket = state + "/run/backgroundd.sock"
        let appeared = await waitUntil(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: socket) }
        try #require(appeared, "the socket did not appear")
        let seen = await onThread { () throws -> (DaemonResponse?, ControlReply?, Int32, String) in
            let client = try SocketClient(path: socket)
            let welcome = try client.hello(.control)
            let apps = try client.control(.apps)
            process.terminate()
            process.waitUntilExit()
            let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (welcome, apps, process.terminationStatus, log)
        }
        let (welcome, apps, status, log) = try seen.get()
        #expect(welcome?.isWelcome == true)
        #expect(apps?.json.contains("com.example.good") == true)
        #expect(status == 0, "\(log)")
        #expect(log.contains("manifest bad.json not loaded"))
        // Secure by default: as root every app gets a uid of its own, with no option given.
        #expect(log.contains(geteuid() == 0 ? "isolation: per-app uids" : "isolation: shared uid"), "\(log)")
        #expect(!log.contains("cannot reach the socket"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect(FileManager.default.fileExists(atPath: state + "/store.sqlite"))
    }
}
