import BackgroundTestSupport
import Foundation

/// A real `backgroundd` on a state directory of its own with one app installed by manifest, for
/// the suites that run real apps under it across restarts (`DaemonConnectionTests`,
/// `DaemonTransferTests`); each suite's `Daemon` adds what its app needs.
///
/// Its calls block their thread (they wait for processes): run them in an `onThread` body, never
/// on the cooperative pool.
class InstalledDaemon: @unchecked Sendable {
    let directory: TemporaryDirectory
    let state: String
    let socket: String
    /// The file the installed app logs to (open to all: as root the daemon starts the app under
    /// a uid of its own).
    let log: String
    let arguments: [String]
    var process = Process()

    /// Installs the manifest `manifest(log)` as `manifestFile` (and the manifests of `others`,
    /// by file name) and starts the daemon with `--state-dir <state>`, `arguments` and
    /// `--log-level error`.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    init(
        manifestFile: String,
        arguments: [String] = [],
        others: [String: [String: Any]] = [:],
        manifest: (_ log: String) -> [String: Any]
    ) throws {
        directory = try TemporaryDirectory()
        log = directory.path + "/app.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil, attributes: [.posixPermissions: 0o666])
        state = try directory.daemonState(manifests: others.merging([manifestFile: manifest(log)]) { $1 })
        socket = state + "/run/backgroundd.sock"
        self.arguments = arguments
        try start()
    }

    /// Starts backgroundd (again) and waits until it answers on its socket.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func start() throws {
        process = Process()
        process.executableURL = builtExecutable("backgroundd")
        process.arguments = ["--state-dir", state] + arguments + ["--log-level", "error"]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": state]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard RealAppTests.waitFor(seconds: 60, { (try? bgctl(["status"]).status) == 0 }) else {
            throw CocoaError(.fileNoSuchFile)
        }
    }

    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func killNine() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// `bgctl daemon <arguments>` against this daemon.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func bgctl(_ arguments: [String]) throws -> ChildProcessResult {
        try runBgctlBlocking(["daemon"] + arguments, environment: ["BACKGROUNDD_SOCKET": socket, "HOME": state])
    }

    /// How the user starts `executable` for `app` under this daemon (``userCommand(for:_:_:apps:)``).
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func userCommand(_ app: String, _ executable: URL, _ arguments: [String]) throws -> (URL, [String]) {
        BackgroundDaemonTests.userCommand(for: app, executable, arguments, apps: try bgctl(["apps", "--json"]).output)
    }

    /// Ends the daemon and removes its directory.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        directory.remove()
    }
}

/// How the user starts `executable` for `app` under a daemon whose `bgctl daemon apps --json` is
/// `apps`: with per-app uids (a root daemon's default) as the app's own uid through `setpriv`,
/// which the daemon requires of an app it did not start; with a shared uid, as this process.
/// The executable and arguments to run (setpriv executes the app in its place: the pid is the
/// app's).
func userCommand(for app: String, _ executable: URL, _ arguments: [String], apps: String) -> (URL, [String]) {
    guard let uid = appRow(app, apps: apps)?["uid"] as? Int else {
        return (executable, arguments)
    }
    let user = ["--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups"]
    return (URL(fileURLWithPath: "/usr/bin/setpriv"), user + [executable.path] + arguments)
}

/// `app`'s row in `bgctl daemon apps --json` (`apps`), or nil.
func appRow(_ app: String, apps: String) -> [String: Any]? {
    let document = try? JSONSerialization.jsonObject(with: Data(apps.utf8)) as? [String: Any]
    let rows = document?["apps"] as? [[String: Any]] ?? []
    return rows.first { $0["app"] as? String == app }
}
