import BackgroundCore
import Foundation
import GRDB

/// Writes `why --history` records: runs per request identifier, the device's condition intervals.
///
/// Both are bounded like the core's ``DecisionHistory``: the newest ``runLimit`` runs per app and
/// identifier, the newest ``intervalLimit`` intervals, pruned in the batch that adds one.
struct HistoryWriter {
    /// Matches `SchedulingPolicy.historyRunsPerIdentifier` (20).
    static let runLimit = 20
    /// Matches `SchedulingPolicy.historyDeviceIntervals` (1000).
    static let intervalLimit = 1000

    let db: Database
    let clock: WallClock

    func record(_ run: RunRecord, of app: AppID) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let waits = run.waits.map {
            ["reason": $0.reason.rawValue, "seconds": String(StoredTime.seconds(of: $0.duration))]
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO task_runs (
                    bundle_id, identifier, kind, submitted_unix_s, started_unix_s, ended_unix_s, outcome, waits_json)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            app.bundleIdentifier, run.identifier, run.kind.rawValue,
            StoredTime.unixSeconds(of: run.submittedAt, clock: clock),
            StoredTime.unixSeconds(of: run.startedAt, clock: clock),
            StoredTime.unixSeconds(of: run.endedAt, clock: clock),
            run.outcome.rawValue,
            String(decoding: try encoder.encode(waits), as: UTF8.self),
        ])
        try db.cachedStatement(
            sql: """
                DELETE FROM task_runs WHERE rowid IN (
                    SELECT rowid FROM task_runs WHERE bundle_id = ? AND identifier = ?
                    ORDER BY started_unix_s DESC, rowid DESC
                    LIMIT -1 OFFSET ?)
                """
        ).execute(arguments: [app.bundleIdentifier, run.identifier, Self.runLimit])
    }

    func record(_ interval: DeviceConditionInterval) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO device_intervals (from_unix_s, unmet) VALUES (?, ?)")
            .execute(arguments: [
                StoredTime.unixSeconds(of: interval.from, clock: clock),
                interval.unmet.map(\.rawValue).joined(separator: ","),
            ])
        try db.cachedStatement(
            sql: """
                DELETE FROM device_intervals WHERE from_unix_s IN (
                    SELECT from_unix_s FROM device_intervals ORDER BY from_unix_s DESC LIMIT -1 OFFSET ?)
                """
        ).execute(arguments: [Self.intervalLimit])
    }
}

/// Reads `why --history` records back, validating every row.
struct HistoryReader {
    let db: Database
    let clock: WallClock
    let path: String

    /// Every run, by app, identifier and start.
    func runs() throws -> [(AppID, RunRecord)] {
        var runs: [(AppID, RunRecord)] = []
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT rowid, * FROM task_runs ORDER BY bundle_id, identifier, started_unix_s, rowid"
        )
        while let row = try rows.next() {
            let stored = StoredRow(
                row: row,
                table: "task_runs",
                key: "rowid \(row["rowid"] ?? "?")",
                path: path,
                clock: clock
            )
            let kindName = try stored.text("kind")
            guard let kind = TaskKind(rawValue: kindName) else { throw stored.invalid("unknown kind '\(kindName)'") }
            let outcomeName = try stored.text("outcome")
            guard let outcome = TaskOutcome(rawValue: outcomeName) else {
                throw stored.invalid("unknown outcome '\(outcomeName)'")
            }
            let run = RunRecord(
                identifier: try stored.text("identifier"),
                kind: kind,
                submittedAt: try stored.instant("submitted_unix_s"),
                startedAt: try stored.instant("started_unix_s"),
                endedAt: try stored.instant("ended_unix_s"),
                outcome: outcome,
                waits: try waits(try stored.text("waits_json"), stored)
            )
            runs.append((AppID(try stored.text("bundle_id")), run))
        }
        return runs
    }

    private func waits(_ json: String, _ stored: StoredRow) throws -> [ConditionWait] {
        guard let list = try? JSONDecoder().decode([[String: String]].self, from: Data(json.utf8)) else {
            throw stored.invalid("waits_json is not a list of waits")
        }
        return try list.map { entry in
            guard let reason = entry["reason"].flatMap(WaitReason.init(rawValue:)),
                let seconds = entry["seconds"].flatMap(Double.init),
                let duration = StoredTime.duration(seconds: seconds)
            else { throw stored.invalid("waits_json has an invalid wait") }
            return ConditionWait(reason: reason, duration: duration)
        }
    }

    /// The device's condition intervals, oldest first.
    func deviceIntervals() throws -> [DeviceConditionInterval] {
        var intervals: [DeviceConditionInterval] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM device_intervals ORDER BY from_unix_s")
        while let row = try rows.next() {
            let stored = StoredRow(
                row: row,
                table: "device_intervals",
                key: "from_unix_s \(row["from_unix_s"] ?? "?")",
                path: path,
                clock: clock
            )
            var reasons: [WaitReason] = []
            for name in try stored.text("unmet").split(separator: ",") {
                guard let reason = WaitReason(rawValue: String(name)), reason != .earliestBeginDate else {
                    throw stored.invalid("unknown condition '\(name)'")
                }
                reasons.append(reason)
            }
            intervals.append(DeviceConditionInterval(from: try stored.instant("from_unix_s"), unmet: reasons))
        }
        return intervals
    }
}
