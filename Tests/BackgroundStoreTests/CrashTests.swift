import BackgroundCore
import BackgroundStore
import BackgroundTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// kill -9 in the middle of writes, with the test binary itself as the writer.
///
/// The test starts its own executable (`/proc/self/exe`) with Swift Testing's `--filter` set to
/// this test and `BACKGROUND_STORE_CRASH_CHILD` set to a database path. In that child, the test
/// sees the variable and writes batches until it is killed.
@Suite("Crash safety")
struct CrashTests {
    static let childVariable = "BACKGROUND_STORE_CRASH_CHILD"
    static let app: AppID = "com.example.crash"

    @Test("kill -9 during writes never leaves a half-written batch, and the store opens afterwards")
    func killDuringWrites() async throws {
        if let path = ProcessInfo.processInfo.environment[Self.childVariable] {
            Self.writeUntilKilled(path: path)
        }
        for run in 1...5 {
            try await killWriterOnce(run: run)
        }
    }

    /// The child: batches of two requests with the same number and the app's state carrying
    /// that number too, as fast as possible. After the first batch it creates `<path>.started`.
    static func writeUntilKilled(path: String) -> Never {
        // If the parent dies first (a test run stopped by a timeout), stop instead of writing
        // forever: an orphan is re-parented, so its parent's pid changes.
        let parent = getppid()
        do {
            let store = try BackgroundStore(path: path)
            var n = 0
            while true {
                if getppid() != parent { exit(1) }
                var state = fullState()
                state.runtimeBudget = RuntimeBudget(available: .seconds(n), updatedAt: .seconds(n))
                try store.apply(
                    [
                        .savePendingRequest(
                            app,
                            TaskRequest(identifier: "A-\(n)", kind: .processing, submittedAt: .seconds(n))
                        ),
                        .savePendingRequest(
                            app,
                            TaskRequest(identifier: "B-\(n)", kind: .appRefresh, submittedAt: .seconds(n))
                        ),
                        .saveAppState(app, state),
                    ],
                    clock: clock
                )
                if n == 0 { _ = FileManager.default.createFile(atPath: path + ".started", contents: nil) }
                n += 1
            }
        } catch {
            FileHandle.standardError.write(Data("crash child: \(error)\n".utf8))
            exit(3)
        }
    }

    func killWriterOnce(run: Int) async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.file("crash.sqlite")
        let child = Process()
        child.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        )
        child.arguments = [
            "--testing-library", "swift-testing", "--filter", "BackgroundStoreTests.CrashTests/killDuringWrites",
        ]
        child.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: path]) { $1 }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()

        // Wait until the child has committed its first batch, then let it write for 300 ms.
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: path + ".started") && child.isRunning
            && ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await Task.sleep(for: .milliseconds(300))
        let wasRunning = child.isRunning
        kill(child.processIdentifier, SIGKILL)
        await child.ended()
        try #require(wasRunning, "run \(run): the child stopped by itself with status \(child.terminationStatus)")
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL)

        let apps = try BackgroundStore(path: path).load(clock: clock)
        let requests = try #require(apps.first { $0.app == Self.app }?.pendingRequests)
        let aNumbers = Set(requests.filter { $0.identifier.hasPrefix("A-") }.map { $0.identifier.dropFirst(2) })
        let bNumbers = Set(requests.filter { $0.identifier.hasPrefix("B-") }.map { $0.identifier.dropFirst(2) })
        let batches = aNumbers.count
        #expect(aNumbers == bNumbers, "run \(run): every A-n has its B-n")
        #expect(batches > 1, "run \(run): the child wrote batches before it was killed")
        #expect(
            apps.first?.state?.runtimeBudget.available == .seconds(batches - 1),
            "run \(run): the state is the last batch's"
        )
        print("CrashTests run \(run): \(batches) whole batches survived kill -9")
    }
}
