import BackgroundTestSupport
import Foundation
import Testing

/// `0xdead10cc` with real app processes: an app suspended while it holds a lock on a file in its
/// shared container is ended with a report naming the file and the lock; one holding a lock
/// outside its shared containers is frozen as usual.
@Suite("backgroundd: locks held at suspension", .serialized)
struct SharedLockTests {
    @Test("an app suspended holding a flock in its shared container is ended with 0xdead10cc and a report")
    func lockInSharedContainerIsDeadlock() async throws {
        let (state, report, json) = try await RealAppTests.withDaemon { daemon -> (String, String, String) in
            _ = try daemon.bgctl(["open", "com.example.locker"])
            _ = RealAppTests.waitFor(seconds: 30) {
                (try? daemon.apps())?["com.example.locker"]?["connected"] as? Bool == true
            }
            _ = try daemon.bgctl(["home"])
            _ = try RealAppTests.waitFor(seconds: 60) {
                (try daemon.apps()["com.example.locker"]?["state"] as? String ?? "").contains("0xdead10cc")
            }
            let state = try daemon.apps()["com.example.locker"]?["state"] as? String ?? ""
            let files = (try? FileManager.default.contentsOfDirectory(atPath: daemon.state + "/reports")) ?? []
            func report(_ suffix: String) -> String {
                files.first { $0.hasPrefix("com.example.locker") && $0.hasSuffix(suffix) }.flatMap {
                    try? String(contentsOfFile: daemon.state + "/reports/" + $0, encoding: .utf8)
                } ?? ""
            }
            return (state, report(".txt"), report(".json"))
        }
        #expect(state.contains("watchdog 0xdead10cc"), "\(state)")
        #expect(report.contains("0xdead10cc"), "\(report)")
        #expect(report.contains("suspended while holding a file lock in a shared container"), "\(report)")
        #expect(report.contains("FLOCK WRITE lock on "), "\(report)")
        #expect(report.contains("/group/notes.db"), "\(report)")
        // The JSON report lists the same lock, structured.
        let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(document?["code"] as? String == "0xdead10cc", "\(json)")
        let locks = document?["locksHeldAtSuspension"] as? [[String: Any]] ?? []
        #expect(locks.count == 1, "\(json)")
        #expect((locks.first?["path"] as? String)?.hasSuffix("/group/notes.db") == true, "\(json)")
        #expect(locks.first?["kind"] as? String == "FLOCK")
        #expect(locks.first?["access"] as? String == "WRITE")
        #expect(locks.first?["start"] as? Int == 0)
        #expect(locks.first?["end"] == nil, "to the end of the file")
    }

    @Test("an app holding a lock outside its shared containers is frozen as usual")
    func lockOutsideSharedContainersIsFrozen() async throws {
        let (state, frozen) = try await RealAppTests.withDaemon { daemon -> (String, Bool) in
            _ = try daemon.bgctl(["open", "com.example.private"])
            _ = RealAppTests.waitFor(seconds: 30) {
                (try? daemon.apps())?["com.example.private"]?["connected"] as? Bool == true
            }
            _ = try daemon.bgctl(["home"])
            _ = try RealAppTests.waitFor(seconds: 60) {
                try daemon.apps()["com.example.private"]?["state"] as? String == "suspended"
            }
            let row = try daemon.apps()["com.example.private"]
            guard let pid = row?["pid"] as? Int else { return (row?["state"] as? String ?? "", false) }
            return ("suspended", RealAppTests.waitFor(seconds: 10) { RealAppTests.isFrozen(pid) })
        }
        #expect(state == "suspended")
        #expect(frozen)
    }
}
