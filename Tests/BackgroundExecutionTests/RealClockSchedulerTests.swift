import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Testing

/// `bgctl scheduler-example` as a real child process, driven by `bgctl` commands.
///
/// Real time by design (about a second): it proves the control channel between processes and
/// that pending requests written at submission survive `kill -9`.
@Suite("Real clock: bgctl talks to a running scheduler-example, which survives kill -9")
struct RealClockSchedulerTests {
    struct Run {
        var status: Int32
        var output: String
    }

    /// Runs bgctl to its end without blocking a thread; a run over 30 s is terminated.
    func bgctl(_ arguments: [String]) async throws -> Run {
        let result = try await runChildProcess(RealClockShutdownTests.bgctl, arguments, timeout: .seconds(30))
        return Run(status: result.status, output: result.output + result.error)
    }

    /// Reads `handle` until what was read (after `seen`) contains `text` or the stream ends, on a
    /// thread of its own: the reads block, and a test's thread is one of the pool's few.
    static func read(_ handle: FileHandle, until text: String, after seen: Data = Data()) async -> Data {
        await onDedicatedThread {
            var read = seen
            while !String(decoding: read, as: UTF8.self).contains(text) {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                read += chunk
            }
            return read
        }
    }

    @Test("why, simulate-launch and the store: live answers, a forced run, and requests that outlive kill -9")
    func controlAndPersistence() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bg-sched-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let control = folder.appendingPathComponent("control").path
        let store = folder.appendingPathComponent("app.sqlite").path
        let service = Process()
        service.executableURL = RealClockShutdownTests.bgctl
        service.arguments = ["scheduler-example", "--control-directory", control, "--store", store]
        let output = Pipe()
        service.standardOutput = output
        service.standardError = FileHandle.nullDevice
        try service.run()
        RealClockShutdownTests.killIfStillRunning(service, after: RealClockShutdownTests.hangGuard)
        defer { if service.isRunning { kill(service.processIdentifier, SIGKILL) } }
        let seen = await Self.read(output.fileHandleForReading, until: "ready")
        let pid = String(service.processIdentifier)
        let live = ["--app", "com.example.scheduler", "--pid", pid, "--control-directory", control]

        let why = try await bgctl(["why", "com.example.scheduler.cleanup"] + live)
        #expect(why.status == 0)
        #expect(why.output.contains("needs external power"))
        #expect(why.output.contains("runs only while the device is idle"))
        let history = try await bgctl(["why", "com.example.scheduler.cleanup", "--history"] + live)
        #expect(history.status == 0)
        #expect(history.output.contains("what if (computed on a copy of the system):"), "\(history.output)")
        #expect(history.output.contains("the project's own estimate, not Apple's"))
        // --json against the running app: the same documents as offline, from the app's socket.
        let whyJSON = try await bgctl(["why", "com.example.scheduler.cleanup", "--json"] + live)
        #expect(whyJSON.status == 0)
        let explained = try JSONDecoder().decode(WhyDocument.self, from: Data(whyJSON.output.utf8))
        #expect(explained.explanations.map(\.identifier) == ["com.example.scheduler.cleanup"])
        let statusJSON = try await bgctl(["status", "--json"] + live)
        #expect(statusJSON.status == 0)
        let status = try JSONDecoder().decode(StatusDocument.self, from: Data(statusJSON.output.utf8))
        #expect(status.app == "com.example.scheduler")
        #expect(String(status.pid) == pid)
        #expect(status.pending.map(\.identifier).contains("com.example.scheduler.cleanup"), "\(statusJSON.output)")
        // bgctl push over the same socket (issue 11): the example is in the foreground, where a
        // push is delivered at once, outside the silent-push budget.
        let push = try await bgctl([
            "push", "com.example.scheduler", "--json", "--pid", pid, "--control-directory", control,
        ])
        #expect(push.status == 0, "\(push.output)")
        let pushed = try JSONDecoder().decode(PushDocument.self, from: Data(push.output.utf8))
        #expect(pushed.outcome == "delivered")
        #expect(pushed.silentPushesRemaining == 3)

        let launch = try await bgctl(["simulate-launch", "com.example.scheduler.cleanup"] + live)
        #expect(launch.output == "Simulating launch for task with identifier com.example.scheduler.cleanup\n")
        // Wait for "completed", printed after setTaskCompleted returned (the run is in the store
        // then), not "ran", printed before it: killing between the two lost the completed run
        // whenever the completion's write took longer than a bgctl invocation (seen with every
        // event and answer encoded, BACKGROUND_ENCODE_MESSAGES=1, under load).
        let ran = await Self.read(
            output.fileHandleForReading,
            until: "completed com.example.scheduler.cleanup",
            after: seen
        )
        #expect(String(decoding: ran, as: UTF8.self).contains("ran com.example.scheduler.cleanup"))
        #expect(String(decoding: ran, as: UTF8.self).contains("completed com.example.scheduler.cleanup"))
        let unknown = try await bgctl(["simulate-launch", "com.example.nope"] + live)
        #expect(unknown.status != 0)

        kill(service.processIdentifier, SIGKILL)
        await service.ended()
        let offline = try await bgctl(["why", "--app", "com.example.scheduler", "--store", store])
        #expect(offline.status == 0)
        #expect(offline.output.contains("com.example.scheduler.refresh (appRefresh): not eligible now"))
        #expect(
            !offline.output.contains("com.example.scheduler.cleanup"),
            "the cleanup ran, so it is no longer pending"
        )
        // The store kept the run: --history shows it, with what it waited for.
        let stored = try await bgctl(["why", "--app", "com.example.scheduler", "--store", store, "--history"])
        #expect(stored.status == 0)
        #expect(stored.output.contains("com.example.scheduler.cleanup: nothing pending"), "\(stored.output)")
        #expect(stored.output.contains("history (oldest first):"))
        #expect(stored.output.contains(": succeeded; had waited"))
    }
}
