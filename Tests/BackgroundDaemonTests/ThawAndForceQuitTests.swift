import BackgroundTestSupport
import Foundation
import Testing

/// Real app processes under `backgroundd`: a frozen app is thawed for its task and frozen
/// again in the same process; `bgctl daemon force-quit` kills the process, keeps its processing
/// request pending but launches nothing for it until the user opens the app.
@Suite("backgroundd: thaw for a task, force-quit", .serialized)
struct ThawAndForceQuitTests {
    static let keeper = RealRestartTests.keeper
    static let work = RealRestartTests.work

    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func journal(_ daemon: RealRestartTests.Restartable) -> [Substring] {
        let text = (try? String(contentsOfFile: daemon.state + "/journal.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n")
    }

    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func workPending(_ daemon: RealRestartTests.Restartable) -> Bool {
        (try? daemon.bgctl(["tasks", "--json"]).output.contains(work)) == true
    }

    /// Opens the keeper and waits until it has submitted its work; its pid.
    @available(*, noasync, message: "blocks its thread: call it in an onThread body")
    static func openKeeper(_ daemon: RealRestartTests.Restartable) throws -> Int? {
        _ = try daemon.bgctl(["open", keeper])
        _ = RealAppTests.waitFor(seconds: 30) {
            daemon.row(keeper)["connected"] as? Bool == true && workPending(daemon)
        }
        return daemon.row(keeper)["pid"] as? Int
    }

    struct ThawSeen: Sendable {
        var pid = 0
        var frozenWhenIdle = false
        var workDone = false
        var resumed = false
        var frozenAgain = false
        var incarnation = 0
        var pidAfter = 0
    }

    @Test("a frozen app is thawed when its task falls due, runs it in the same process, and is frozen again")
    func thawForTask() async throws {
        let seen = try await RealRestartTests.withDaemon(due: 10) { daemon -> ThawSeen in
            var seen = ThawSeen()
            guard let pid = try Self.openKeeper(daemon) else { return seen }
            seen.pid = pid
            _ = try daemon.bgctl(["home"])
            seen.frozenWhenIdle = RealAppTests.waitFor(seconds: 10) { RealAppTests.isFrozen(pid) }
            seen.workDone = RealAppTests.waitFor(seconds: 60) { !Self.workPending(daemon) }
            // The thaw, the run and the freeze after it are quicker than a poll: the journal has the resume.
            seen.resumed = Self.journal(daemon).contains { $0.contains("\"resume\"") && $0.contains(Self.keeper) }
            seen.frozenAgain = RealAppTests.waitFor(seconds: 30) {
                daemon.row(Self.keeper)["state"] as? String == "suspended" && RealAppTests.isFrozen(pid)
            }
            seen.incarnation = daemon.row(Self.keeper)["incarnation"] as? Int ?? 0
            seen.pidAfter = daemon.row(Self.keeper)["pid"] as? Int ?? 0
            return seen
        }
        #expect(seen.pid > 0, "the keeper did not start")
        #expect(seen.frozenWhenIdle)
        #expect(seen.workDone, "its task ran")
        #expect(seen.resumed, "it was resumed (thawed) for the task")
        #expect(seen.frozenAgain)
        #expect(seen.incarnation == 1, "never launched again")
        #expect(seen.pidAfter == seen.pid)
    }

    struct ForceQuitSeen: Sendable {
        var pid = 0
        var status: Int32 = -1
        var output = ""
        var killed = false
        var pendingAfterQuit = false
        var state = ""
        var launchedWhenDue = true
        var stillPending = false
        var why = ""
        var relaunchedPid = 0
        var incarnation = 0
    }

    @Test("force-quit through the daemon kills the app; its due task launches nothing until the user opens it")
    func forceQuit() async throws {
        let due = 10.0  // long enough for the open and the force-quit under load, before it falls due
        let seen = try await RealRestartTests.withDaemon(due: Int(due)) { daemon -> ForceQuitSeen in
            var seen = ForceQuitSeen()
            let opened = Date()
            guard let pid = try Self.openKeeper(daemon) else { return seen }
            seen.pid = pid
            let result = try daemon.bgctl(["force-quit", Self.keeper, "--json"])
            (seen.status, seen.output) = (result.status, result.output)
            seen.killed = RealAppTests.waitFor(seconds: 10) { !RealRestartTests.isAlive(pid) }
            seen.pendingAfterQuit = Self.workPending(daemon)
            seen.state = daemon.row(Self.keeper)["state"] as? String ?? ""
            // A real-clock wait (the daemon's clock is the machine's) until 3 s after the work
            // fell due (submitted after `opened`, due `due` seconds after its submission).
            let wait = opened.addingTimeInterval(due + 3).timeIntervalSinceNow
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
            let row = daemon.row(Self.keeper)
            seen.launchedWhenDue = row["pid"] is Int || row["incarnation"] as? Int != 1
            seen.stillPending = Self.workPending(daemon)
            seen.why = try daemon.bgctl(["why", Self.work]).output
            // The user opens it again: it is launched.
            seen.relaunchedPid = try Self.openKeeper(daemon) ?? 0
            seen.incarnation = daemon.row(Self.keeper)["incarnation"] as? Int ?? 0
            return seen
        }
        #expect(seen.pid > 0, "the keeper did not start")
        #expect(seen.status == 0, "\(seen.output)")
        #expect(seen.output.contains("\"app\":\"com.example.keeper\""), "\(seen.output)")
        #expect(seen.killed, "the process is killed")
        #expect(seen.pendingAfterQuit, "the work was still pending when the app was force-quit")
        #expect(seen.state.contains("force quit"), "\(seen.state)")
        #expect(!seen.launchedWhenDue, "a force-quit app is not launched for its task")
        #expect(seen.stillPending, "its processing request stays pending (only continued processing is cancelled)")
        #expect(seen.why.contains("force-quit"), "\(seen.why)")
        #expect(seen.relaunchedPid > 0 && seen.relaunchedPid != seen.pid)
        #expect(seen.incarnation == 2)
    }
}
