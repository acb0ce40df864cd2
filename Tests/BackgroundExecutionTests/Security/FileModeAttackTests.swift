import BackgroundTestSupport
import Foundation
import Testing

/// Issue 14, finding 7: files were created with the umask's permissions (0777 directories and
/// 0666 files under umask 000). Each service runs here under umask 000.
@Suite("Security: state directories 0700 and files 0600 whatever the umask")
struct FileModeAttackTests {
    @Test("Termination reports under umask 000: directories 0700, both files 0600")
    func reportsArePrivate() async throws {
        let scratch = try Scratch()
        let reports = scratch.child("state/background/reports")
        let command =
            "umask 000; exec '\(bgctlExecutable.path)' shutdown-example --grace 1 --work 0.1 --leak --reports-directory '\(reports)'"
        let running = try RunningService([], launcher: ["/bin/sh", "-c", command + " #"])
        #expect(await running.waitFor("ready"))
        kill(running.pid, SIGTERM)
        #expect(await running.waitForExit().status == 70, "stderr: \(running.errorOutput)")
        for directory in ["state", "state/background", "state/background/reports"] {
            #expect(mode(of: scratch.child(directory)) == 0o700, "\(directory)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: reports)
        #expect(files.count == 2)
        for file in files { #expect(mode(of: reports + "/" + file) == 0o600, "\(file)") }
    }

    @Test("The control directory and socket under umask 000: 0700 and 0600")
    func controlIsPrivate() async throws {
        let scratch = try Scratch()
        let control = scratch.child("runtime/control")
        let command = "umask 000; exec '\(bgctlExecutable.path)' scheduler-example --control-directory '\(control)'"
        let running = try RunningService([], launcher: ["/bin/sh", "-c", command + " #"])
        #expect(await running.waitFor("ready"), "stderr: \(running.errorOutput)")
        #expect(mode(of: scratch.child("runtime")) == 0o700)
        #expect(mode(of: control) == 0o700)
        let socket = try #require(try FileManager.default.contentsOfDirectory(atPath: control).first)
        #expect(mode(of: control + "/" + socket) == 0o600)
    }
}
