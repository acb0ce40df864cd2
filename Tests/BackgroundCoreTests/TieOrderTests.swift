import BackgroundCore
import Testing

/// Ties are broken by identifier, never by a `Dictionary`'s or a `Set`'s order, which Swift
/// seeds per process: the same events give the same effects in any process.
///
/// Within one process a dictionary's order is stable, so these tests check the order itself
/// (identifiers ascending) with enough tied entries that a hash order would almost never
/// match it; `CrossProcessDeterminismTests` compares whole runs across processes.
@Suite("Ties are broken by identifier")
struct TieOrderTests {
    @Test("Tasks started together expire together, in run-identifier order")
    func simultaneousExpirations() throws {
        var d = Driver()
        let requests = (0..<10).map { TaskRequest.processing(notes.processingID($0), notBefore: .t(60)) }
        let runs = try TaskRunTests.start(requests, in: &d)
        try #require(runs.count == 10)
        let expired = try d.tick(at: .t(60 + 595)).expiredRuns
        #expect(expired == runs.map(\.id).sorted())
    }

    @Test("Tasks started together and never completed: the watchdog names the lowest run identifier")
    func simultaneousKills() throws {
        var d = Driver()
        let requests = (0..<10).map { TaskRequest.processing(notes.processingID($0), notBefore: .t(60)) }
        let runs = try TaskRunTests.start(requests, in: &d)
        try d.tick(at: .t(60 + 595))
        let report = try #require(try d.tick(at: .t(60 + 600)).reports.first)
        let first = try #require(runs.min { $0.id < $1.id })
        #expect(report.explanation.contains("\"\(first.request.identifier)\""))
        #expect(report.uncompletedTasks.map(\.run) == runs.map(\.id).sorted())
    }

    @Test("A force quit cancels the queued continued-processing requests in identifier order, and launches nothing")
    func forceQuitCancelsInOrder() throws {
        var d = try Driver.opened()
        let suffixes = ["h", "c", "a", "f", "b", "g", "e", "d"]
        for suffix in suffixes {
            let identifier = notes.continuedID(suffix)
            try d.send(.registerTaskHandler(notes, identifier: identifier), at: .t(10))
            try d.submit(notes, .continued(identifier), at: .t(10))
        }
        // Two run at once (the system-wide limit); the other six wait.
        #expect(d.pendingIDs(notes).count == suffixes.count - 2)
        let persistedBefore = d.persisted.count
        let effects = try d.send(.terminate(notes, .userForceQuit), at: .t(20))
        let deleted = d.persisted.dropFirst(persistedBefore).compactMap { change -> String? in
            if case .deletePendingRequest(_, let identifier) = change { return identifier }
            return nil
        }
        #expect(deleted.count == suffixes.count - 2)
        #expect(deleted == deleted.sorted())
        // The slots its two running tasks free are not handed back to the app it just left.
        #expect(effects.taskRuns.isEmpty)
        #expect(!effects.contains(.deliverBackgroundWake(notes)))
        #expect(d.state(notes) == .terminated(.userForceQuit))
    }
}
