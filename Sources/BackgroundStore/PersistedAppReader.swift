import BackgroundCore
import Foundation
import GRDB

/// Reads every app's durable state back, inside a read transaction the caller opened.
///
/// Every row is validated: a row with an unknown kind, a missing value or a child row without
/// its app throws ``StoreError/Code-swift.struct/invalidRow``; nothing is skipped.
struct PersistedAppReader {
    let db: Database
    let clock: WallClock
    let path: String

    /// Every app, sorted by bundle identifier, with its requests (oldest submission first),
    /// launches (oldest first) and state.
    ///
    /// - Throws: ``StoreError`` for an invalid row, `DatabaseError` from SQLite.
    func readApps() throws -> [PersistedApp] {
        var apps: [PersistedApp] = []
        var indexByApp: [AppID: Int] = [:]
        let appRows = try Row.fetchCursor(db, sql: "SELECT * FROM apps")
        while let row = try appRows.next() {
            let app = try readApp(row)
            indexByApp[app.app] = apps.count
            apps.append(app)
        }
        let requestRows = try Row.fetchCursor(
            db,
            sql: "SELECT * FROM pending_requests ORDER BY bundle_id, submitted_unix_s, rowid"
        )
        while let row = try requestRows.next() {
            let (app, request) = try readRequest(row)
            guard let index = indexByApp[app] else { throw orphan(row, table: "pending_requests") }
            apps[index].pendingRequests.append(request)
        }
        let launchRows = try Row.fetchCursor(
            db,
            sql: "SELECT rowid, * FROM launches ORDER BY bundle_id, launched_unix_s, rowid"
        )
        while let row = try launchRows.next() {
            let stored = storedRow(row, table: "launches", key: "rowid \(row["rowid"] ?? "?")")
            let app = AppID(try stored.text("bundle_id"))
            guard let index = indexByApp[app] else { throw orphan(row, table: "launches") }
            apps[index].launches.append(try stored.instant("launched_unix_s"))
        }
        let history = HistoryReader(db: db, clock: clock, path: path)
        for (app, run) in try history.runs() {
            guard let index = indexByApp[app] else {
                throw StoreError(
                    code: .invalidRow,
                    path: path,
                    message:
                        "invalid row in \(path): table task_runs, bundle_id '\(app.bundleIdentifier)': its app has no row in apps"
                )
            }
            apps[index].runs.append(run)
        }
        let intervals = try history.deviceIntervals()
        for index in apps.indices { apps[index].deviceIntervals = intervals }
        return apps.sorted { $0.app < $1.app }
    }

    private func readApp(_ row: Row) throws -> PersistedApp {
        let bundleID = try storedRow(row, table: "apps", key: "bundle_id ?").text("bundle_id")
        let stored = storedRow(row, table: "apps", key: "bundle_id '\(bundleID)'")
        var app = PersistedApp(app: AppID(bundleID))
        if let json = try stored.optionalText("manifest_json") {
            do {
                app.manifest = try JSONDecoder().decode(AppManifest.self, from: Data(json.utf8))
            } catch {
                throw stored.invalid("manifest_json is not a manifest: \(error)")
            }
        }
        if try stored.bool("has_state") {
            app.state = PersistedAppState(
                forceQuit: try stored.bool("force_quit"),
                refreshSwitch: try stored.bool("refresh_switch"),
                runtimeBudget: RuntimeBudget(
                    available: try stored.duration("budget_available_s"),
                    updatedAt: try stored.instant("budget_updated_unix_s")
                ),
                lastBackgroundRunAt: try stored.optionalInstant("last_background_run_unix_s"),
                fetchInterval: try stored.optionalDuration("fetch_interval_s"),
                lastFetchAt: try stored.optionalInstant("last_fetch_unix_s")
            )
        }
        return app
    }

    private func readRequest(_ row: Row) throws -> (AppID, TaskRequest) {
        let keyRow = storedRow(row, table: "pending_requests", key: "?")
        let bundleID = try keyRow.text("bundle_id")
        let identifier = try keyRow.text("identifier")
        let stored = storedRow(
            row,
            table: "pending_requests",
            key: "bundle_id '\(bundleID)', identifier '\(identifier)'"
        )
        let kindName = try stored.text("kind")
        guard let kind = TaskKind(rawValue: kindName) else { throw stored.invalid("unknown kind '\(kindName)'") }
        let strategyName = try stored.text("strategy")
        guard let strategy = StoredStrategy.strategy(named: strategyName) else {
            throw stored.invalid("unknown strategy '\(strategyName)'")
        }
        let request = TaskRequest(
            identifier: identifier,
            kind: kind,
            earliestBegin: try stored.optionalInstant("earliest_begin_unix_s"),
            requiresNetworkConnectivity: try stored.bool("requires_network"),
            requiresExternalPower: try stored.bool("requires_power"),
            title: try stored.text("title"),
            subtitle: try stored.text("subtitle"),
            strategy: strategy,
            requiresGPU: try stored.bool("requires_gpu"),
            submittedAt: try stored.instant("submitted_unix_s")
        )
        return (AppID(bundleID), request)
    }

    private func storedRow(_ row: Row, table: String, key: String) -> StoredRow {
        StoredRow(row: row, table: table, key: key, path: path, clock: clock)
    }

    private func orphan(_ row: Row, table: String) -> StoreError {
        let bundleID = (row["bundle_id"] as (any DatabaseValueConvertible)?).map { "\($0)" } ?? "NULL"
        return storedRow(row, table: table, key: "bundle_id '\(bundleID)'").invalid("its app has no row in apps")
    }
}
