import BackgroundDaemon
import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Testing

/// Issue 26: the units in `dist/systemd` and `scripts/install-backgroundd.sh`, checked with
/// `systemd-analyze verify` (Debian's `systemd` package; `.ci/run` installs it). verify exits 0
/// on an unknown key or a value it cannot parse, so any output at all fails. docs/systemd.md.
@Suite("systemd units: verified, consistent with the daemon, installed by one command")
struct SystemdUnitTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let analyze = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
    static var analyzeIsThere: Bool { FileManager.default.isExecutableFile(atPath: analyze.path) }

    /// The text of `dist/systemd/<scope>/backgroundd.<kind>`.
    static func unit(_ scope: String, _ kind: String) throws -> String {
        try String(
            contentsOf: root.appendingPathComponent("dist/systemd/\(scope)/backgroundd.\(kind)"),
            encoding: .utf8
        )
    }

    /// The values of `key` in a unit's text (`Key=value` lines, comments left out).
    static func values(_ key: String, in unit: String) -> [String] {
        unit.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.hasPrefix(key + "=") }
            .map { String($0.dropFirst(key.count + 1)) }
    }

    /// `systemd-analyze [--user] verify` of the units in `directory`: its status and all it wrote.
    static func verify(_ directory: String, user: Bool) async throws -> (status: Int32, output: String) {
        // The user manager's runtime directory (a login session makes it; here, a scratch one).
        let runtime = directory + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        chmod(runtime, 0o700)
        let result = try await runChildProcess(
            analyze,
            (user ? ["--user"] : []) + [
                "verify", directory + "/backgroundd.service", directory + "/backgroundd.socket",
            ],
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory, "XDG_RUNTIME_DIR": runtime]
        )
        return (result.status, result.output + result.error)
    }

    @Test(
        "systemd-analyze verify passes both units of each scope in silence, ExecStart= at the built backgroundd",
        .enabled(if: analyzeIsThere || OptionalTools.required, "systemd-analyze is missing (apt-get install systemd)"),
        arguments: ["system", "user"]
    )
    func verified(scope: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let service = try Self.unit(scope, "service").split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasPrefix("ExecStart=") ? "ExecStart=" + builtExecutable("backgroundd").path : String($0)
        }.joined(separator: "\n")
        try directory.write("backgroundd.service", service, mode: 0o644)
        try directory.write("backgroundd.socket", try Self.unit(scope, "socket"), mode: 0o644)
        let (status, output) = try await Self.verify(directory.path, user: scope == "user")
        #expect(status == 0 && output.isEmpty, "\(scope): systemd-analyze verify said: \(output)")
    }

    @Test("the units say what the daemon does: notify, delegation, its kill mode, its socket's path, name and modes")
    func consistentWithTheDaemon() throws {
        for scope in ["system", "user"] {
            let service = try Self.unit(scope, "service")
            let socket = try Self.unit(scope, "socket")
            #expect(Self.values("Type", in: service) == ["notify"], "\(scope)")
            #expect(Self.values("Delegate", in: service) == ["yes"], "\(scope)")
            // The daemon ends what it started itself; the rest survives for the next start to adopt.
            #expect(Self.values("KillMode", in: service) == ["process"], "\(scope)")
            #expect(Self.values("Requires", in: service) == ["backgroundd.socket"], "\(scope)")
            #expect(Self.values("WatchdogSec", in: service).count == 1, "\(scope)")
            #expect(Self.values("FileDescriptorName", in: socket) == [SocketActivation.name], "\(scope)")
        }
        // Where the daemon and bgctl look by default (DaemonPaths): root's socket, and a user's
        // in $XDG_RUNTIME_DIR (%t); the modes the daemon gives them (0666/0711 with per-app uids,
        // a root daemon's default; 0600/0700 for a user's).
        let system = try Self.unit("system", "socket")
        #expect(Self.values("ListenStream", in: system) == [DaemonPaths.systemSocket])
        #expect(
            Self.values("SocketMode", in: system) == ["0666"] && Self.values("DirectoryMode", in: system) == ["0711"]
        )
        let user = try Self.unit("user", "socket")
        let runtime = ["HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1000"]
        let paths = try #require(DaemonPaths(environment: runtime, effectiveUID: 1000))
        #expect(
            Self.values("ListenStream", in: user).map { $0.replacing("%t", with: "/run/user/1000") } == [paths.socket]
        )
        #expect(Self.values("SocketMode", in: user) == ["0600"] && Self.values("DirectoryMode", in: user) == ["0700"])
    }

    @Test(
        "scripts/install-backgroundd.sh installs binaries and units that verify (--user defaults, --system with its directories)",
        .enabled(if: analyzeIsThere || OptionalTools.required, "systemd-analyze is missing (apt-get install systemd)")
    )
    func installScript() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Stand-ins for the built binaries: the units name whatever is installed, and copying
        // the debug build's (about 130 MB each) would cost more than it checks.
        try FileManager.default.createDirectory(atPath: directory.path + "/built", withIntermediateDirectories: false)
        for binary in ["backgroundd", "bgctl"] { try directory.write("built/" + binary, "#!/bin/sh\n", mode: 0o755) }
        let script = Self.root.appendingPathComponent("scripts/install-backgroundd.sh")
        let home = directory.path + "/home"
        let user = try await runChildProcess(
            script,
            ["--user", "--from", directory.path + "/built", "--no-enable"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": home]
        )
        #expect(user.status == 0, "\(user.error)")
        let userUnits = home + "/.config/systemd/user"
        #expect(FileManager.default.isExecutableFile(atPath: home + "/.local/bin/backgroundd"))
        #expect(FileManager.default.isExecutableFile(atPath: home + "/.local/bin/bgctl"))
        let installed = try String(contentsOfFile: userUnits + "/backgroundd.service", encoding: .utf8)
        #expect(Self.values("ExecStart", in: installed) == [home + "/.local/bin/backgroundd"])
        let userVerdict = try await Self.verify(userUnits, user: true)
        #expect(userVerdict.status == 0 && userVerdict.output.isEmpty, "\(userVerdict.output)")

        let system = try await runChildProcess(
            script,
            [
                "--system", "--from", directory.path + "/built", "--prefix", directory.path + "/usr",
                "--unit-dir", directory.path + "/units", "--no-enable",
            ],
            environment: ["PATH": "/usr/bin:/bin", "HOME": home]
        )
        #expect(system.status == 0, "\(system.error)")
        let systemVerdict = try await Self.verify(directory.path + "/units", user: false)
        #expect(systemVerdict.status == 0 && systemVerdict.output.isEmpty, "\(systemVerdict.output)")

        let usage = try await runChildProcess(script, ["--system", "--user"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(usage.status == 64 && usage.error.hasPrefix("install-backgroundd: usage: "), "\(usage.error)")
        #expect(usage.error.split(separator: "\n").count == 1)
    }
}
