import BackgroundTestSupport
import Foundation
import Testing

@testable import BackgroundProcessControl

#if canImport(Glibc)
import Glibc
#endif

/// A process the controller did not start (an app the user started) taken under its control:
/// moved into a cgroup of its own, or stopped with signals when it leads its own process group,
/// and refused, with the reason, when neither holds. Issue 22, Deliver 4.
@Suite("Admission: a process the user started, frozen like a started one")
struct AdmissionTests {
    /// A `sleep` started by `sh` in the background (in sh's process group, not leading one), or
    /// through `setsid` (leading its own); its pid once it runs `sleep` in the group it keeps.
    final class UserProcess: @unchecked Sendable {  // `shell` is only run, then read
        let shell = Process()
        let pid: Int32

        @available(*, noasync, message: "blocks its thread: call it in an onThread body")
        init(ownGroup: Bool) throws {
            let output = Pipe()
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            shell.arguments = ["-c", (ownGroup ? "setsid " : "") + "sleep 600 & echo $!; wait"]
            shell.standardOutput = output
            // Nothing of the test runner's: its output ends only once every holder closes it.
            shell.standardInput = FileHandle.nullDevice
            shell.standardError = FileHandle.nullDevice
            try shell.run()
            var text = ""
            while !text.contains("\n") {
                let data = output.fileHandleForReading.availableData
                guard !data.isEmpty else { throw FixtureError("sh ended before it said the pid") }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw FixtureError("not a pid: \(text)")
            }
            self.pid = pid
        }

        /// Whether it runs `sleep` now, in the group it keeps (`setsid` makes the group, then
        /// becomes `sleep`).
        func isReady(ownGroup: Bool) -> Bool {
            guard let status = ProcFileSystem.status(of: pid) else { return false }
            let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
            return command.hasPrefix("sleep") && (status.processGroup == pid) == ownGroup
        }

        /// Starts one and waits until it is ready: for the event, not for a time.
        static func start(ownGroup: Bool) async throws -> UserProcess {
            let user = try await onDedicatedThread { try UserProcess(ownGroup: ownGroup) }
            guard await waitUntil(timeout: .seconds(60), { user.isReady(ownGroup: ownGroup) }) else {
                throw FixtureError("pid \(user.pid) did not become sleep")
            }
            return user
        }

        /// Kills the `sleep` and `sh` (which may not get to reap it: the test runner's signal
        /// mask is its).
        func end() {
            Glibc.kill(pid, SIGKILL)
            Glibc.kill(shell.processIdentifier, SIGKILL)
        }
    }

    @Test("cgroup: moved into a cgroup of its own in the subtree, frozen 1, thawed, killed; its exit reported")
    func cgroupAdmission() async throws {
        guard let controller = try AppFixture.cgroupController() else { return }
        let user = try await UserProcess.start(ownGroup: false)
        defer { user.end() }
        let process = try controller.admit(pid: user.pid, label: "com.example.started")
        #expect(process.pid == user.pid)
        let cgroup = try #require(process.cgroup)
        // The unified hierarchy's line, `0::/<path>` (a hybrid machine lists v1 ones too).
        let membership = try String(contentsOfFile: "/proc/\(user.pid)/cgroup", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("0::") }
        #expect(cgroup.hasSuffix(try #require(membership).dropFirst(3)), "\(String(describing: membership))")
        try await controller.freeze(process)
        #expect(try AppFixture.cgroupFrozen(cgroup))
        try controller.thaw(process)
        #expect(try !AppFixture.cgroupFrozen(cgroup))
        try controller.kill(process)
        // Not this controller's child: its status is not its to know.
        #expect(await controller.exit(of: process).status == .exited(code: -1))
    }

    @Test("signals: a process leading its own group is stopped (T) and continued; one that does not is refused")
    func signalAdmission() async throws {
        let controller = try AppFixture.signalController()
        let shared = try await UserProcess.start(ownGroup: false)
        defer { shared.end() }
        #expect {
            try controller.admit(pid: shared.pid, label: "com.example.started")
        } throws: { error in
            let error = error as? ProcessControlError
            return error?.code == .unknownProcess
                && error?.reason.contains("it does not lead its own process group") == true
                && error?.reason.contains("setsid") == true
        }
        #expect(AppFixture.state(of: shared.pid) == "S", "a refused process is left as it was")

        let leader = try await UserProcess.start(ownGroup: true)
        defer { leader.end() }
        let process = try controller.admit(pid: leader.pid, label: "com.example.started")
        #expect(process.cgroup == nil)
        try await controller.freeze(process)
        #expect(AppFixture.state(of: leader.pid) == "T")
        try controller.thaw(process)
        #expect(AppFixture.state(of: leader.pid) != "T")
        try controller.kill(process)
        #expect(await controller.exit(of: process).status == .exited(code: -1))
    }

    @Test("a process that is gone, or no process, is refused as not running")
    func goneIsRefused() async throws {
        let controller = try AppFixture.signalController()
        let user = try await UserProcess.start(ownGroup: true)
        user.end()
        #expect(await waitUntil(timeout: .seconds(60)) { ["Z", nil].contains(AppFixture.state(of: user.pid)) })
        #expect(throws: ProcessControlError.self) { try controller.admit(pid: user.pid, label: "com.example.gone") }
        #expect(throws: ProcessControlError.self) { try controller.admit(pid: 1, label: "com.example.init") }
    }
}
