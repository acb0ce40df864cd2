import BackgroundTestSupport
import Foundation
import Testing

/// Issue 11's modes with real app processes under `backgroundd`'s process control: an app
/// process holding each activity mode (`daemon-test-app hold <mode> <file>`) stays unfrozen in
/// the background while it holds it and is frozen once it ends it; an app holding a mode its
/// manifest does not declare is frozen as any background app, and the daemon's log names the
/// missing mode; `bgctl daemon status` and `why` name the mode keeping an app awake.
@Suite("backgroundd: real app processes holding each background mode", .serialized)
struct ModeProcessTests {
    /// The modes an activity can hold (`BackgroundMode.activityModes`), one app each.
    static let modes = [
        "audio", "location", "voip", "external-accessory", "bluetooth-central", "bluetooth-peripheral",
        "push-to-talk",
    ]
    /// Holds `audio` without declaring it.
    static let undeclared = "com.example.hold-undeclared"

    /// The softphone's pending request.
    static let sync = "com.example.hold-voip.sync"

    static func bundle(_ mode: String) -> String { "com.example.hold-\(mode)" }

    struct Seen: Sendable {
        var held: [String: Bool] = [:]
        var frozenWhileHeld: [String: Bool] = [:]
        var frozenAfter: [String: Bool] = [:]
        var undeclaredFrozen = false
        var status = ""
        var why = ""
        var log = ""
    }

    @Test("each mode keeps its process unfrozen while held and not after; an undeclared one is frozen with a warning")
    func eachModeUnderTheDaemon() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let executable = builtExecutable("daemon-test-app").path
        // Release files: in a sticky directory open to all, as the apps may run under uids of their own.
        let scratch = directory.path + "/scratch"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        chmod(scratch, 0o1777)
        var manifests: [String: [String: Any]] = [:]
        for mode in Self.modes {
            manifests["\(mode).json"] = [
                "CFBundleIdentifier": Self.bundle(mode),
                "UIBackgroundModes": [mode],
                "BackgroundLaunch": ["Arguments": [executable, "finish", "hold", mode, scratch + "/release-" + mode]],
            ]
        }
        // The softphone also has a request due in an hour, for `why` to explain.
        manifests["voip.json"] = [
            "CFBundleIdentifier": Self.bundle("voip"),
            "UIBackgroundModes": ["voip", "processing"],
            "BGTaskSchedulerPermittedIdentifiers": [Self.sync],
            "BackgroundLaunch": [
                "Arguments": [
                    executable, "register", Self.sync, "finish", "later", "3600", Self.sync, "hold", "voip",
                    scratch + "/release-voip",
                ]
            ],
        ]
        manifests["undeclared.json"] = [
            "CFBundleIdentifier": Self.undeclared,
            "UIBackgroundModes": ["fetch"],
            "BackgroundLaunch": [
                "Arguments": [executable, "finish", "hold", "audio", scratch + "/release-undeclared"]
            ],
        ]
        let state = try directory.daemonState(manifests: manifests)
        let logPath = directory.path + "/daemon.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = builtExecutable("backgroundd")
        process.arguments = ["--state-dir", state, "--background-time", "2", "--log-level", "info"]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": state]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try process.run()
        let daemon = RealAppTests.Daemon(state: state, socket: state + "/run/backgroundd.sock", process: process)
        let run = await onThread { () throws -> Seen in
            guard RealAppTests.waitFor(seconds: 60, { FileManager.default.fileExists(atPath: daemon.socket) }) else {
                throw CocoaError(.fileNoSuchFile)
            }
            return try Self.exercise(daemon, scratch: scratch, logPath: logPath)
        }
        process.terminate()
        await process.ended()
        let seen = try run.get()

        for mode in Self.modes {
            #expect(seen.held[mode] == true, "'\(mode)' was never listed as held")
            #expect(seen.frozenWhileHeld[mode] == false, "the app holding '\(mode)' was frozen while it held it")
            #expect(seen.frozenAfter[mode] == true, "the app that held '\(mode)' was not frozen after it ended it")
        }
        #expect(seen.undeclaredFrozen, "an app holding an undeclared 'audio' was not frozen")
        #expect(
            seen.log.contains(
                "\(Self.undeclared): 'audio' not held: UIBackgroundModes does not declare 'audio'"
            ),
            "\(seen.log.suffix(2000))"
        )
        #expect(seen.status.contains("\(Self.bundle("audio")): kept running in the background by 'audio' for"))
        #expect(seen.why.contains("kept running in the background by 'voip' for"), "\(seen.why)")
    }

    /// Opens every app (each holds its mode once launched), sends them home, checks the freezer
    /// leaves the holders alone for twice the background budget, then releases them.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func exercise(_ daemon: RealAppTests.Daemon, scratch: String, logPath: String) throws -> Seen {
        var seen = Seen()
        for app in Self.modes.map(bundle) + [undeclared] {
            _ = try daemon.bgctl(["open", app])
            _ = try RealAppTests.waitFor(seconds: 60) { try daemon.apps()[app]?["connected"] as? Bool == true }
        }
        for mode in modes {
            seen.held[mode] = try RealAppTests.waitFor(seconds: 30) {
                let held = try daemon.apps()[bundle(mode)]?["modes"] as? [[String: Any]] ?? []
                return held.contains { $0["mode"] as? String == mode }
            }
        }
        _ = try daemon.bgctl(["home"])
        let pids = try daemon.apps().compactMapValues { $0["pid"] as? Int }
        seen.undeclaredFrozen = RealAppTests.waitFor(seconds: 20) {
            pids[undeclared].map(RealAppTests.isFrozen) == true
        }
        // Twice the background budget (--background-time 2) has passed since they went home.
        usleep(4_000_000)
        for mode in modes {
            seen.frozenWhileHeld[mode] = pids[bundle(mode)].map(RealAppTests.isFrozen) ?? true
        }
        seen.status = try daemon.bgctl(["status"]).output
        seen.why = try daemon.bgctl(["why", sync, "--app", bundle("voip")]).output
        for mode in modes {
            _ = FileManager.default.createFile(atPath: scratch + "/release-" + mode, contents: nil)
        }
        for mode in modes {
            seen.frozenAfter[mode] = RealAppTests.waitFor(seconds: 20) {
                pids[bundle(mode)].map(RealAppTests.isFrozen) == true
            }
        }
        seen.log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return seen
    }
}
