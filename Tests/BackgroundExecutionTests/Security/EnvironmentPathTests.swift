import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Testing

/// Issue 14, finding 8: relative `XDG_STATE_HOME` and `BACKGROUND_REPORTS_DIR` wrote under the
/// current directory, a newline in a path went into log lines, and `$HOME` was ignored in
/// favour of the passwd entry, so a service running as `nobody` could not start.
@Suite("Security: paths from the environment")
struct EnvironmentPathTests {
    static let unset = ["BACKGROUND_CONTROL_DIR", "BACKGROUND_REPORTS_DIR", "XDG_RUNTIME_DIR", "XDG_STATE_HOME"]

    @Test("Relative values are ignored, as the XDG base directory specification says")
    func relativeValuesAreIgnored() {
        let directories = StateDirectories(
            environment: ["HOME": "/home/u", "XDG_STATE_HOME": "state", "BACKGROUND_REPORTS_DIR": "./reports"],
            passwdHome: { "/passwd/home" }
        )
        #expect(directories.stateHome == "/home/u/.local/state")
        #expect(directories.reports == "/home/u/.local/state/background-execution/reports")
        #expect(
            directories.controlDirectory(for: "com.example.a")
                == "/home/u/.local/state/background-execution/control/com.example.a"
        )
    }

    @Test("Values with control characters are ignored; $HOME comes before the passwd entry")
    func controlCharactersAndHome() {
        let directories = StateDirectories(
            environment: [
                "HOME": "/srv/nobody", "BACKGROUND_REPORTS_DIR": "/tmp/r\nTermination Reason: forged",
                "BACKGROUND_CONTROL_DIR": "/run/\u{1B}[31mc",
            ],
            passwdHome: { "/nonexistent" }
        )
        #expect(directories.home == "/srv/nobody")
        #expect(directories.reports == "/srv/nobody/.local/state/background-execution/reports")
        #expect(directories.controlBase == "/srv/nobody/.local/state/background-execution/control")
        let fallback = StateDirectories(environment: ["HOME": "relative"], passwdHome: { "/home/p" })
        #expect(fallback.home == "/home/p")
        let runtime = StateDirectories(
            environment: ["HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/7"],
            passwdHome: { nil }
        )
        #expect(runtime.controlDirectory(for: "a/b") == "/run/user/7/background-execution/control/a%2Fb")
        let none = StateDirectories(environment: [:], passwdHome: { nil })
        #expect(none.reports == nil && none.controlBase == nil)
    }

    @Test("A relative XDG_STATE_HOME writes nothing under the current directory")
    func relativeStateHomeInAService() async throws {
        let scratch = try Scratch()
        let cwd = URL(fileURLWithPath: scratch.child("cwd"))
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: false)
        let home = scratch.child("home")
        let running = try RunningService(
            ["scheduler-example"],
            environment: ["HOME": home, "XDG_STATE_HOME": "state"],
            removing: Self.unset.filter { $0 != "XDG_STATE_HOME" },
            directory: cwd
        )
        #expect(await running.waitFor("ready"), "stderr: \(running.errorOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cwd.path).isEmpty)
        let control = home + "/.local/state/background-execution/control/com.example.scheduler"
        #expect(mode(of: control) == 0o700)
        #expect(mode(of: home + "/.local") == 0o700)
    }

    @Test(
        "A service running as nobody starts with the $HOME it is given (cross-user)",
        .enabled(if: canRunAsAnotherUser, "skipped: needs root and setpriv to run as uid 65534 (CI runs as root)")
    )
    func nobodyStartsWithHome() async throws {
        let scratch = try Scratch(sticky: true)
        let home = scratch.child("nobody-home")
        try await shell("mkdir -m 700 '\(home)'", asAttacker: true)
        let running = try RunningService(
            ["scheduler-example"],
            launcher: ["/usr/bin/setpriv", "--reuid=\(attackerID)", "--regid=\(attackerID)", "--clear-groups"],
            environment: ["HOME": home],
            removing: Self.unset
        )
        #expect(await running.waitFor("ready"), "stderr: \(running.errorOutput)")
        var status = stat()
        let control = home + "/.local/state/background-execution/control/com.example.scheduler"
        #expect(lstat(control, &status) == 0)
        #expect(status.st_uid == attackerID)
        let answer = try await bgctl(
            ["status", "--app", "com.example.scheduler", "--control-directory", control],
            asAttacker: true
        )
        #expect(answer.status == 0, "stderr: \(answer.error)")
    }
}
