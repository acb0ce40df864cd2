import BackgroundCore
import BackgroundStore
import BackgroundTestSupport
import BackgroundTransfers
import Foundation
import Testing
import TransferTestServer

/// Embedded mode across a crash: `examples/TransferExample` downloads in a child process, is
/// killed with SIGKILL mid-download, and a relaunch (which recreates the session with the same
/// identifier) completes the download from the last checkpoint. On the real clock: a few seconds.
@Suite("kill -9 mid-download, then the next launch resumes")
struct KillAndResumeTests {
    static var example: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("TransferExample")
    }

    @Test("nothing before the last checkpoint is sent again, and the body's SHA-256 matches")
    func killedAndRelaunched() async throws {
        let server = try await LoopbackServer.start()
        var route = LoopbackRoute(size: 8 << 20)
        // Answers stop at 6 MiB (connection open) until the relaunch: the kill lands mid-body,
        // after the 4 MiB checkpoint, however loaded the machine.
        route.stallAtOffset = 6 << 20
        server.set("/big", route)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kill-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = [server.url("/big"), directory + "/Container", directory + "/store.sqlite"]

        let first = try launch(arguments)
        let store = try await waitForStore(directory + "/store.sqlite")
        var checkpoint: Int64 = 0
        for _ in 0..<3000 where checkpoint < 4 << 20 {
            try await Task.sleep(for: .milliseconds(5))
            checkpoint = try store.transfers(of: AppID("com.example.transfers")).first?.bytesDone ?? 0
        }
        kill(first.processIdentifier, SIGKILL)
        await first.ended()
        #expect(first.terminationReason == .uncaughtSignal)
        let last = try #require(try store.transfers(of: AppID("com.example.transfers")).first)
        #expect(last.bytesDone >= 4 << 20 && last.bytesDone < route.size, "killed mid-download")

        server.change("/big") { $0.stallAtOffset = nil }
        // Awaited, its output in a file: a blocking read of a pipe held a thread of the pool for
        // the whole download.
        let second = try await runChildProcess(Self.example, arguments)
        let output = second.output
        #expect(second.status == 0 && !second.timedOut, "\(output)")
        let lines = output.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("progress") }
        #expect(lines.first == "resumed \(last.bytesDone)")
        // 8 MiB hashed in a debug build takes seconds: on a thread of its own, not the pool's.
        let digest = await onDedicatedThread { [route] in
            var hash = SHA256()
            hash.update(route.body())
            return hash.hexDigest()
        }
        // Resumed with a 206 from the checkpoint, delivered as the whole resource's 200.
        #expect(lines.dropFirst().first == "finished \(route.size) \(digest) status 200")
        #expect(lines.last == "completed")
        let counters = server.counters("/big")
        // The relaunch's one request resumed exactly at the last checkpoint. (The first launch may
        // have retried too, if the stall outlasted its 60 s request timeout on a loaded machine.)
        #expect(counters.rangeStarts.last == last.bytesDone)
        #expect(counters.bytesPerAnswer.last == route.size - last.bytesDone)  // the relaunch's only answer
        #expect(try store.transfers(of: AppID("com.example.transfers")).isEmpty)
        try await server.shutdown()
    }

    private func launch(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = Self.example
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    private func waitForStore(_ path: String) async throws -> BackgroundStore {
        for _ in 0..<2000 {
            if FileManager.default.fileExists(atPath: path), let store = try? BackgroundStore.openForReading(path: path)
            {
                return store
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw CancellationError()
    }
}
