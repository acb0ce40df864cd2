import BackgroundDaemon
import BackgroundProtocol
import BackgroundTestSupport
import Foundation
import Testing

/// `backgroundd` as a real process: no configuration beyond a home directory.
@Suite("backgroundd process")
struct BackgrounddProcessTests {
    @Test("starts with no configuration, serves its socket, reports bad manifests by name, stops on SIGTERM")
    func noConfiguration() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let state = home.path + "/.local/state/backgroundd"
        try FileManager.default.createDirectory(
            atPath: state + "/apps",
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        try home.write(".local/state/backgroundd/apps/good.json", manifestJSON("com.example.good"))
        try home.write(".local/state/backgroundd/apps/bad.json", "{")
        let process = Process()
        process.executableURL = builtExecutable("backgroundd")
        process.environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
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
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect(FileManager.default.fileExists(atPath: state + "/store.sqlite"))
    }
}
