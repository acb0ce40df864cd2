import BackgroundTestSupport
import Foundation
import Testing

/// The test support's child-process helpers never hold a thread of Swift concurrency's
/// cooperative pool while a child runs. The pool is as wide as the machine's cores and does
/// not add a thread for one that blocks: with the helper that waited on a semaphore, two
/// tests running `bgctl` at once on this 2-core machine stalled every other test in the
/// process for as long as the children ran (tests with real-clock deadlines then failed).
@Suite("Child processes in tests")
struct ChildProcessWaitTests {
    @Test("while more children run through the helper than the pool has threads, other tasks still run")
    func childrenDoNotHoldThePool() async throws {
        // More children than pool threads (the pool is as wide as the active cores), so a
        // helper that blocked its thread would leave none free until a child ended.
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let children = threads * 2 + 1
        // Real time is the point here (a child process's run). 15 s leaves the children time
        // to start and the probe a margin under this machine's load in a full run, where
        // other tests' work also runs on the pool (starting five children took 15 s there).
        try await withThrowingTaskGroup(of: Duration?.self) { group in
            for _ in 0..<children {
                group.addTask {
                    let result = try await runChildProcess(URL(fileURLWithPath: "/bin/sleep"), ["15"])
                    #expect(result.status == 0 && !result.timedOut)
                    return nil  // a child's end
                }
            }
            // Until more children run than the pool has threads, a probe proves nothing: wait
            // for them (children of this process, seen in /proc). A blocking helper never gets
            // there: it runs one child per pool thread.
            let overflowing = await waitUntil(timeout: .seconds(30), every: .milliseconds(10)) {
                Self.sleepingChildren() > threads
            }
            #expect(overflowing, "no more children ran at once than the pool has threads")
            let probeStarted = ContinuousClock.now
            group.addTask { probeStarted.duration(to: .now) }  // the probe: trivial work
            var probeWaited: Duration?
            var childrenEnded = 0
            for try await finished in group {
                if let finished {
                    probeWaited = finished
                    #expect(childrenEnded == 0, "the probe waited for a child to end")
                } else {
                    childrenEnded += 1
                }
            }
            // What tells the helpers apart is the order: the probe ran before any child ended
            // (checked above). Its wait is not bounded in time: in a full run on a loaded machine,
            // other suites' work keeps both pool threads busy for seconds (12 s seen), which no
            // helper here can change.
            #expect(probeWaited != nil)
        }
    }

    @Test("a child still running at the timeout is ended and reported as timed out")
    func timeoutEnds() async throws {
        let result = try await runChildProcess(
            URL(fileURLWithPath: "/bin/sleep"),
            ["30"],
            timeout: .milliseconds(200)
        )
        #expect(result.timedOut)
        // Killed, so it did not run its 30 s to the end (a `sleep` that does exits 0). The time
        // until this task resumes is not checked: it includes waiting for a thread of the pool,
        // which other suites' work made 25-60 s in loaded full runs; the timeout itself is kept
        // by a thread of its own (ChildProcess.end(within:stop:)).
        #expect([SIGTERM, SIGKILL].contains(result.status))
    }

    /// How many `sleep` processes are this process's children now (another test's may count too:
    /// that only starts the probe sooner).
    static func sleepingChildren() -> Int {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { entry in
            guard Int32(entry) != nil,
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                stat.contains("(sleep)"),
                let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 1
            else { return false }
            return Int32(fields[1]) == me  // after the name: state, then the parent
        }.count
    }
}
