import BackgroundCore
import BackgroundStore
import Foundation
import GRDB
import Testing

/// `why --history` in the store: runs per request identifier and the device's condition
/// intervals, written by the v2 migration's tables, bounded, and read back as written.
@Suite("Store: run history and device condition intervals")
struct HistoryStoreTests {
    static let clock = WallClock(unixSecondsAtOrigin: 1_767_225_600)

    static func run(_ identifier: String, startedAt seconds: Double, outcome: TaskOutcome = .succeeded) -> RunRecord {
        RunRecord(
            identifier: identifier,
            kind: .processing,
            submittedAt: .seconds(seconds - 21_600),
            startedAt: .seconds(seconds),
            endedAt: .seconds(seconds + 240),
            outcome: outcome,
            waits: [ConditionWait(reason: .externalPower, duration: .seconds(21_600))]
        )
    }

    @Test("runs and intervals come back as written, the intervals with every app")
    func roundTrip() throws {
        let store = try BackgroundStore.inMemory()
        let intervals = [
            DeviceConditionInterval(from: .zero, unmet: [.externalPower, .deviceIdle]),
            DeviceConditionInterval(from: .seconds(600), unmet: [.externalPower]),
        ]
        let runs = [Self.run("b", startedAt: 30_000, outcome: .killed), Self.run("a", startedAt: 25_000)]
        try store.apply(
            runs.map { .recordRun(news, $0) } + intervals.map { .recordDeviceInterval($0) } + [
                .recordLaunch(notes, at: .zero)
            ],
            clock: Self.clock
        )
        let loaded = try store.load(clock: Self.clock)
        #expect(loaded.map(\.app) == [news, notes])
        #expect(loaded[0].runs == [runs[1], runs[0]], "by identifier, then start")
        #expect(loaded[0].runs.first?.waited(for: .externalPower) == .seconds(21_600))
        #expect(loaded[0].deviceIntervals == intervals)
        #expect(loaded[1].deviceIntervals == intervals)
        #expect(loaded[1].runs.isEmpty)
    }

    @Test("an interval recorded again at the same instant replaces the first")
    func intervalReplaced() throws {
        let store = try BackgroundStore.inMemory()
        try store.apply(
            [
                .recordDeviceInterval(DeviceConditionInterval(from: .seconds(5), unmet: [.network])),
                .recordDeviceInterval(DeviceConditionInterval(from: .seconds(5), unmet: [.lowPowerMode])),
                .recordLaunch(notes, at: .zero),
            ],
            clock: Self.clock
        )
        #expect(try store.load(clock: Self.clock).first?.deviceIntervals.map(\.unmet) == [[.lowPowerMode]])
    }

    @Test("the newest 20 runs per identifier are kept, the oldest dropped")
    func runsBounded() throws {
        let store = try BackgroundStore.inMemory()
        let changes = (0..<25).map { StoreChange.recordRun(news, Self.run("a", startedAt: Double(30_000 + $0 * 1000))) }
        try store.apply(changes + [.recordRun(news, Self.run("b", startedAt: 30_000))], clock: Self.clock)
        let runs = try #require(try store.load(clock: Self.clock).first).runs
        let kept: [Double] = runs.filter { $0.identifier == "a" }.map(\.startedAt.seconds)
        let newest: [Double] = (5..<25).map { (index: Int) -> Double in Double(30_000 + index * 1000) }
        #expect(kept == newest)
        #expect(runs.filter { $0.identifier == "b" }.count == 1)
    }

    @Test("a row with an unknown outcome or condition is reported, not skipped")
    func invalidRows() throws {
        try withScratchDirectory { directory in
            let path = directory.file("store.sqlite")
            let store = try BackgroundStore(path: path)
            try store.apply([.recordRun(news, Self.run("a", startedAt: 30_000))], clock: Self.clock)
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
                try db.execute(
                    sql: "UPDATE task_runs SET waits_json = '[{\"reason\": \"teleport\", \"seconds\": \"1\"}]'"
                )
            }
            #expect(throws: StoreError.self) { try BackgroundStore(path: path).load(clock: Self.clock) }
        }
    }

    @Test("a v1 file gets the v2 tables when opened, and keeps its data")
    func upgradeFromV1() throws {
        try withScratchDirectory { directory in
            let path = directory.file("store.sqlite")
            let store = try BackgroundStore(path: path)
            try store.apply([.recordLaunch(news, at: .seconds(1))], clock: Self.clock)
            // Make it a v1 file: as written before v2 existed.
            try DatabaseQueue(path: path).write { db in
                try db.execute(
                    sql: "DROP TABLE task_runs; DROP TABLE device_intervals; DROP TABLE transfers; DROP TABLE app_users"
                )
                try db.execute(
                    sql:
                        "DELETE FROM grdb_migrations WHERE identifier LIKE 'v2:%' OR identifier LIKE 'v3:%' OR identifier LIKE 'v4:%'"
                )
            }
            let reopened = try BackgroundStore(path: path)
            try reopened.apply([.recordRun(news, Self.run("a", startedAt: 30_000))], clock: Self.clock)
            let app = try #require(try reopened.load(clock: Self.clock).first)
            #expect(app.launches == [.seconds(1)])
            #expect(app.runs.count == 1)
        }
    }
}
