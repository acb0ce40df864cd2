import BackgroundCore
import BackgroundStore
import BackgroundTestSupport
import BackgroundTransfers
import Foundation
import Testing
import TransferTestServer

/// Background transfers that outlive their app, with real processes: `daemon-transfer-test-app`
/// (an @main app delegate and a URLSessionDownloadDelegate, Apple's API only) under a real
/// `backgroundd`, against the loopback server. The app starts a download and exits; the daemon
/// finishes it, launches the app in the background and delivers the events in Apple's order;
/// force quit cancels; `kill -9` of the daemon mid-download resumes from the last checkpoint.
@Suite("Background transfers under backgroundd", .serialized)
struct DaemonTransferTests {
    static let app = "com.example.transfers"
    static let session = "com.example.transfers.downloads"

    /// A backgroundd in its default mode (as root: the app under a uid of its own) with the
    /// transfer app installed; the app's container is the daemon's, `<state>/containers/<app>`.
    final class Daemon: InstalledDaemon, @unchecked Sendable {
        var container: String { state + "/containers/" + DaemonTransferTests.app }

        /// The default mode: as root, each app under a uid of its own, its files its own.
        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        init() throws {
            try super.init(manifestFile: "transfers.json") { log in
                [
                    "CFBundleIdentifier": DaemonTransferTests.app,
                    "BackgroundLaunch": [
                        "Arguments": [builtExecutable("daemon-transfer-test-app").path, "--log", log]
                    ],
                ]
            }
        }

        /// The app started by the user (through the daemon's socket), with `arguments`: as its
        /// own uid under per-app uids.
        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        func userApp(_ arguments: [String]) throws -> Process {
            let app = Process()
            let (executable, arguments) = try userCommand(
                DaemonTransferTests.app,
                builtExecutable("daemon-transfer-test-app"),
                ["--log", log] + arguments
            )
            app.executableURL = executable
            app.arguments = arguments
            app.environment = [
                "PATH": "/usr/bin:/bin", "HOME": state, "BACKGROUND_SYSTEM": "daemon",
                "BACKGROUND_APP": DaemonTransferTests.app, "BACKGROUNDD_SOCKET": socket,
            ]
            app.currentDirectoryURL = URL(fileURLWithPath: directory.path)
            app.standardOutput = FileHandle.nullDevice
            app.standardError = FileHandle.nullDevice
            try app.run()
            return app
        }

        /// The lines the app's processes logged, in order.
        var lines: [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
    }

    /// The SHA-256 of the route's body, computed on a thread of its own: in a debug build it
    /// takes tens of seconds for 48 MiB, and on the cooperative pool it held one of its two
    /// threads as long (seen in a full run's stacks).
    static func sha256(_ route: LoopbackRoute) async -> String {
        await onDedicatedThread {
            var digest = SHA256()
            digest.update(route.body())
            return digest.hexDigest()
        }
    }

    /// The app's uid in `bgctl daemon apps --json`.
    static func appUID(_ json: String) -> Int? {
        appRow(app, apps: json)?["uid"] as? Int
    }

    /// The lines after the first that starts with `prefix`.
    static func after(_ prefix: String, in lines: [String]) -> [String] {
        guard let index = lines.firstIndex(where: { $0.hasPrefix(prefix) }) else { return [] }
        return Array(lines[(index + 1)...])
    }

    @Test(
        "the app starts a download and exits; the daemon finishes it, launches the app and delivers the events in Apple's order"
    )
    func relaunchAndEventOrder() async throws {
        let server = try await LoopbackServer.start()
        var route = LoopbackRoute(size: 2 << 20)
        route.slowChunk = (bytes: 256 << 10, pauseMilliseconds: 300)
        server.set("/book", route)
        let url = server.url("/book")
        let result = await onThread { () throws -> [String] in
            let daemon = try Daemon()
            defer { daemon.stop() }
            let app = try daemon.userApp(["--download", url])
            app.waitUntilExit()
            _ = RealAppTests.waitFor(seconds: 90) { daemon.lines.contains("completionHandler") }
            // Then the app is suspended: its wake returned with the completion handler.
            _ = RealAppTests.waitFor(seconds: 30) {
                ((try? daemon.bgctl(["apps"]).output) ?? "").contains("suspended")
            }
            // The app's container is its uid's, as the daemon told it (per-app uids, as root).
            let uid = Self.appUID(try daemon.bgctl(["apps", "--json"]).output)
            var status = stat()
            let owner = stat(daemon.container, &status) == 0 ? Int(status.st_uid) : -1
            return daemon.lines + [
                "container uid \(owner) app uid \(uid ?? -1)", (try? daemon.bgctl(["apps"]).output) ?? "",
            ]
        }
        try? await server.shutdown()
        var lines = try result.get()
        let apps = lines.removeLast()
        let owners = lines.removeLast()
        #expect(owners.hasPrefix("container uid ") && !owners.hasSuffix("app uid -1"), "\(owners)")
        #expect(owners.split(separator: " ")[2] == owners.split(separator: " ")[5], "\(owners)")
        #expect(owners.split(separator: " ")[2] != "0", "\(owners)")
        // The first process: it may hear some progress before it exits.
        let first = Array(lines.prefix { !$0.hasPrefix("launched background") })
        #expect(first.first?.hasPrefix("launched") == true && first.dropFirst().first == "started task 1", "\(lines)")
        #expect(first.last == "exiting", "\(lines)")
        let digest = await Self.sha256(route)
        let expected = [
            "handleEvents \(Self.session)",
            "didWriteData 1",
            "didFinishDownloadingTo 1 exists \(2 << 20) bytes sha256 \(digest) owner me",
            "didCompleteWithError 1 nil status 200",
            "urlSessionDidFinishEvents",
            "completionHandler",
        ]
        #expect(Self.after("launched background", in: lines) == expected, "\(lines)")
        #expect(apps.contains("suspended"), "\(apps)")
        #expect(server.counters("/book").requests == 1)
    }

    @Test(
        "force quit cancels the download with -999 and the user-force-quit reason; nothing relaunches the app until it is opened"
    )
    func forceQuit() async throws {
        let server = try await LoopbackServer.start()
        var route = LoopbackRoute(size: 8 << 20)
        route.slowChunk = (bytes: 64 << 10, pauseMilliseconds: 200)
        server.set("/slow", route)
        let url = server.url("/slow")
        let result = await onThread { () throws -> ([String], [String]) in
            let daemon = try Daemon()
            defer { daemon.stop() }
            let app = try daemon.userApp(["--download", url, "--stay"])
            _ = RealAppTests.waitFor(seconds: 60) { server.counters("/slow").bytesSent > 0 }
            let quit = try daemon.bgctl(["force-quit", Self.app])
            app.waitUntilExit()
            Thread.sleep(forTimeInterval: 3)  // time for a relaunch that must not happen
            let beforeOpen = daemon.lines
            _ = try daemon.bgctl(["open", Self.app])
            _ = RealAppTests.waitFor(seconds: 60) { daemon.lines.contains { $0.hasPrefix("didCompleteWithError") } }
            return (beforeOpen + ["force-quit status \(quit.status)"], daemon.lines)
        }
        try? await server.shutdown()
        let (beforeOpen, lines) = try result.get()
        #expect(beforeOpen.contains("force-quit status 0"), "\(beforeOpen)")
        #expect(beforeOpen.filter { $0.hasPrefix("launched") }.count == 1, "\(beforeOpen)")  // the user's launch only
        let opened = Self.after("launched", in: Self.after("started task 1", in: lines))
        #expect(opened.contains("didCompleteWithError 1 -999 reason 0"), "\(lines)")
        #expect(server.counters("/slow").bytesSent < Int64(8 << 20))
    }

    @Test("a download ordered while the daemon is away waits for the reconnection, then runs (not -1004)")
    func orderWhileDisconnected() async throws {
        let server = try await LoopbackServer.start()
        let route = LoopbackRoute(size: 256 << 10)
        server.set("/later", route)
        let url = server.url("/later")
        let result = await onThread { () throws -> [String] in
            let daemon = try Daemon()
            defer { daemon.stop() }
            let trigger = daemon.directory.path + "/go"
            let app = try daemon.userApp(["--download", url, "--download-when", trigger])
            defer { app.terminate() }
            _ = RealAppTests.waitFor(seconds: 60) { daemon.lines.contains("session made") }
            daemon.killNine()
            _ = FileManager.default.createFile(atPath: trigger, contents: nil)
            // The order is made with no daemon to take it (it waits, at most 10 s by default).
            _ = RealAppTests.waitFor(seconds: 10) { daemon.lines.contains("started task 1") }
            try daemon.start()
            _ = RealAppTests.waitFor(seconds: 60) { daemon.lines.contains { $0.hasPrefix("didCompleteWithError") } }
            return daemon.lines
        }
        try? await server.shutdown()
        let lines = try result.get()
        #expect(lines.contains("started task 1"), "\(lines)")
        #expect(lines.contains("didCompleteWithError 1 nil status 200"), "\(lines)")
        let digest = await Self.sha256(route)
        #expect(
            // The user started this process (as root): the file is the app's uid's, not its.
            lines.contains {
                $0.hasPrefix("didFinishDownloadingTo 1 exists \(256 << 10) bytes sha256 \(digest)")
            },
            "\(lines)"
        )
        #expect(server.counters("/later").requests == 1)
    }

    @Test(
        "kill -9 of the daemon mid-download, a restart, then completion: nothing before the last checkpoint is sent again and the SHA-256 matches"
    )
    func killNineMidDownload() async throws {
        let server = try await LoopbackServer.start()
        var route = LoopbackRoute(size: 48 << 20)
        route.slowChunk = (bytes: 1 << 20, pauseMilliseconds: 100)
        server.set("/big", route)
        let url = server.url("/big")
        let result = await onThread { () throws -> ([String], Int64) in
            let daemon = try Daemon()
            defer { daemon.stop() }
            let app = try daemon.userApp(["--download", url])
            app.waitUntilExit()
            _ = RealAppTests.waitFor(seconds: 60) { server.counters("/big").bytesSent >= 16 << 20 }
            daemon.killNine()
            let store = try BackgroundStore(path: daemon.state + "/store.sqlite")
            let checkpoint = try store.transfers(of: AppID(Self.app)).first?.bytesDone ?? -1
            try daemon.start()
            _ = RealAppTests.waitFor(seconds: 120) { daemon.lines.contains("completionHandler") }
            return (daemon.lines, checkpoint)
        }
        try? await server.shutdown()
        let (lines, checkpoint) = try result.get()
        let counters = server.counters("/big")
        #expect(checkpoint > 0, "no checkpoint before the kill")
        #expect(counters.rangeStarts.last == checkpoint, "\(counters.rangeStarts) after a checkpoint at \(checkpoint)")
        let digest = await Self.sha256(route)
        #expect(
            lines.contains("didFinishDownloadingTo 1 exists \(48 << 20) bytes sha256 \(digest) owner me"),
            "\(lines)"
        )
        // A 206 finished it from the checkpoint, but the app hears the whole resource's 200.
        #expect(lines.contains("didCompleteWithError 1 nil status 200"), "\(lines)")
    }
}
