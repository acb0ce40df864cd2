import BackgroundTestSupport
import Foundation
import Testing

/// Issue 14, finding 1: the control directory was trusted without checks. Each test performs
/// the attack against a real `bgctl scheduler-example` and checks that it has nothing to act on.
@Suite("Security: the control directory is checked, not trusted")
struct ControlDirectoryAttackTests {
    static let app = "com.example.scheduler"

    func service(control: String, extra: [String] = []) throws -> RunningService {
        try RunningService(["scheduler-example", "--control-directory", control] + extra)
    }

    @Test("A symbolic link in place of the control directory is refused, and its target is left untouched")
    func symlinkedDirectoryIsRefused() async throws {
        let scratch = try Scratch()
        let target = scratch.child("elsewhere")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        chmod(target, 0o755)
        try FileManager.default.createSymbolicLink(atPath: scratch.child("control"), withDestinationPath: target)
        let running = try service(control: scratch.child("control"))
        let (status, timedOut) = await running.waitForExit()
        #expect(!timedOut && status == 73, "the service must refuse to start: \(running.errorOutput)")
        #expect(running.errorOutput.contains("is a symbolic link, not a directory"))
        #expect(mode(of: target) == 0o755, "the link's target was chmodded")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
    }

    @Test(
        "A control directory another user created is refused (cross-user)",
        .enabled(
            if: canRunAsAnotherUser,
            "skipped: needs root and setpriv to run the attacker as uid 65534 (CI runs as root)"
        )
    )
    func directoryOfAnotherUserIsRefused() async throws {
        let scratch = try Scratch(sticky: true)
        let control = scratch.child("control")
        try await shell("mkdir -m 777 '\(control)' && touch '\(control)/planted.request'", asAttacker: true)
        let running = try service(control: control)
        let (status, _) = await running.waitForExit()
        #expect(status == 73, "stderr: \(running.errorOutput)")
        #expect(running.errorOutput.contains("is owned by uid \(attackerID), not by uid 0"))
        #expect(mode(of: control) == 0o777, "another user's directory was chmodded")
        #expect(FileManager.default.fileExists(atPath: control + "/planted.request"))
    }

    @Test(
        "A directory below one another user owns is refused, even if the last component is ours (cross-user)",
        .enabled(
            if: canRunAsAnotherUser,
            "skipped: needs root and setpriv to run the attacker as uid 65534 (CI runs as root)"
        )
    )
    func ancestorOfAnotherUserIsRefused() async throws {
        let scratch = try Scratch(sticky: true)
        let parent = scratch.child("shared")
        try await shell("mkdir -m 777 '\(parent)'", asAttacker: true)
        let running = try service(control: parent + "/control")
        let (status, _) = await running.waitForExit()
        #expect(status == 73)
        #expect(running.errorOutput.contains("is owned by uid \(attackerID), neither root nor uid 0"))
        #expect(!FileManager.default.fileExists(atPath: parent + "/control"))
    }

    @Test("An existing control directory open to others is refused rather than trusted")
    func openDirectoryIsRefused() async throws {
        let scratch = try Scratch()
        let control = scratch.child("control")
        try FileManager.default.createDirectory(atPath: control, withIntermediateDirectories: false)
        chmod(control, 0o755)
        let running = try service(control: control)
        #expect(await running.waitForExit().status == 73)
        #expect(running.errorOutput.contains("has mode 0755; it must be 0700"))
    }

    @Test("Swapping the control directory for a link after start-up gives the attacker nothing")
    func swapAfterStartUp() async throws {
        let scratch = try Scratch()
        let control = scratch.child("control")
        let running = try service(control: control)
        #expect(await running.waitFor("ready"))
        let attacker = scratch.child("attacker")
        try FileManager.default.createDirectory(atPath: attacker, withIntermediateDirectories: false)
        chmod(attacker, 0o700)
        try "{\"action\":\"status\"}".write(toFile: attacker + "/x.request", atomically: true, encoding: .utf8)
        try FileManager.default.moveItem(atPath: control, toPath: scratch.child("moved"))
        try FileManager.default.createSymbolicLink(atPath: control, withDestinationPath: attacker)

        let refused = try await runBgctl(["status", "--app", Self.app, "--control-directory", control])
        #expect(refused.status == 77, "stderr: \(refused.error)")
        #expect(refused.error.hasPrefix("bgctl status: app \(Self.app): "))
        #expect(try FileManager.default.contentsOfDirectory(atPath: attacker) == ["x.request"])
        // The service still listens in the directory it checked, wherever that now is.
        let answered = try await runBgctl(["status", "--app", Self.app, "--control-directory", scratch.child("moved")])
        #expect(answered.status == 0, "stderr: \(answered.error)")
        #expect(answered.output.hasPrefix("\(Self.app) [pid \(running.pid)]: active"))
    }

    @Test(
        "Another user cannot reach the socket, and bgctl run by them refuses the directory (cross-user)",
        .enabled(
            if: canRunAsAnotherUser,
            "skipped: needs root and setpriv to run the attacker as uid 65534 (CI runs as root)"
        )
    )
    func anotherUserGetsNothing() async throws {
        let scratch = try Scratch()
        chmod(scratch.path, 0o755)
        let control = scratch.child("control")
        let running = try service(control: control)
        #expect(await running.waitFor("ready"))
        #expect(mode(of: control) == 0o700)
        let attempt = try await bgctl(["status", "--app", Self.app, "--control-directory", control], asAttacker: true)
        #expect(attempt.status == 77, "stderr: \(attempt.error)")
        #expect(attempt.error.contains("control cannot be opened: Permission denied"))
    }

    @Test(
        "A connection from another user is closed unanswered (SO_PEERCRED), even with the directory opened up",
        .enabled(
            if: canRunAsAnotherUser,
            "skipped: needs root and setpriv to run the attacker as uid 65534 (CI runs as root)"
        )
    )
    func peerCredentialsAreChecked() async throws {
        let scratch = try Scratch()
        chmod(scratch.path, 0o755)
        let control = scratch.child("control")
        let running = try service(control: control)
        #expect(await running.waitFor("ready"))
        let socket = try #require(try FileManager.default.contentsOfDirectory(atPath: control).first)
        #expect(mode(of: control + "/" + socket) == 0o600)
        // A mistake by the owner: the directory and the socket opened to everyone.
        chmod(control, 0o711)
        chmod(control + "/" + socket, 0o666)
        let client = """
            import socket, struct, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            body = b'{"action":"status"}'
            try:
                s.sendall(struct.pack('>I', len(body)) + body)
                print(len(s.recv(65536)))
            except (BrokenPipeError, ConnectionResetError):
                print(0)
            """
        let python = try #require(
            ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
        )
        let script = scratch.child("client.py")
        try client.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let attempt = try await shell("\(python) '\(script)' '\(control)/\(socket)'", asAttacker: true)
        #expect(attempt.output == "0\n", "the attacker read a reply: \(attempt.output) \(attempt.error)")
        let owner = try await shell("\(python) '\(script)' '\(control)/\(socket)'")
        #expect(owner.output != "0\n", "the owner is answered: \(owner.error)")
    }
}
