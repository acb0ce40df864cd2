import BackgroundCore
import Foundation
import GRDB

/// Writes one batch of ``StoreChange``s inside a transaction that the caller opened.
///
/// Each change becomes one or two statements (cached, so a busy store prepares them once per
/// connection). A child row first makes sure its app has a row in `apps`. Launches are pruned
/// to `launchLimit` per app once, at the end of the batch, in the same transaction.
struct StoreChangeWriter {
    let db: Database
    let clock: WallClock
    let launchLimit: Int

    /// Writes `changes` in order, then prunes the launches of the apps that got new ones.
    ///
    /// - Throws: `DatabaseError` from SQLite; the caller's transaction then rolls back.
    func write(_ changes: [StoreChange]) throws {
        var launchedApps: Set<AppID> = []
        for change in changes {
            switch change {
            case .savePendingRequest(let app, let request):
                try ensureApp(app)
                try savePendingRequest(request, of: app)
            case .deletePendingRequest(let app, let identifier):
                try db.cachedStatement(sql: "DELETE FROM pending_requests WHERE bundle_id = ? AND identifier = ?")
                    .execute(arguments: [app.bundleIdentifier, identifier])
            case .deleteAllPendingRequests(let app):
                try db.cachedStatement(sql: "DELETE FROM pending_requests WHERE bundle_id = ?")
                    .execute(arguments: [app.bundleIdentifier])
            case .recordLaunch(let app, let instant):
                try ensureApp(app)
                try db.cachedStatement(sql: "INSERT INTO launches (bundle_id, launched_unix_s) VALUES (?, ?)")
                    .execute(arguments: [app.bundleIdentifier, StoredTime.unixSeconds(of: instant, clock: clock)])
                launchedApps.insert(app)
            case .saveAppState(let app, let state):
                try saveState(state, of: app)
            case .saveManifest(let manifest):
                try saveManifest(manifest)
            case .recordRun(let app, let run):
                try ensureApp(app)
                try HistoryWriter(db: db, clock: clock).record(run, of: app)
            case .recordDeviceInterval(let interval):
                try HistoryWriter(db: db, clock: clock).record(interval)
            }
        }
        for app in launchedApps {
            try pruneLaunches(of: app)
        }
    }

    private func saveManifest(_ manifest: AppManifest) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(manifest), as: UTF8.self)
        try db.cachedStatement(
            sql: """
                INSERT INTO apps (bundle_id, manifest_json) VALUES (?, ?)
                ON CONFLICT (bundle_id) DO UPDATE SET manifest_json = excluded.manifest_json
                """
        ).execute(arguments: [manifest.bundleIdentifier.bundleIdentifier, json])
    }

    private func ensureApp(_ app: AppID) throws {
        try db.cachedStatement(sql: "INSERT INTO apps (bundle_id) VALUES (?) ON CONFLICT (bundle_id) DO NOTHING")
            .execute(arguments: [app.bundleIdentifier])
    }

    private func savePendingRequest(_ request: TaskRequest, of app: AppID) throws {
        // INSERT OR REPLACE deletes the old row and inserts a new one, so a request saved again
        // with the same identifier replaces it and sorts after older requests submitted at the
        // same instant.
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO pending_requests (
                    bundle_id, identifier, kind, earliest_begin_unix_s, requires_network,
                    requires_power, title, subtitle, strategy, requires_gpu, submitted_unix_s)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        try statement.execute(arguments: [
            app.bundleIdentifier,
            request.identifier,
            request.kind.rawValue,
            request.earliestBegin.map { StoredTime.unixSeconds(of: $0, clock: clock) },
            request.requiresNetworkConnectivity,
            request.requiresExternalPower,
            request.title,
            request.subtitle,
            StoredStrategy.name(of: request.strategy),
            request.requiresGPU,
            StoredTime.unixSeconds(of: request.submittedAt, clock: clock),
        ])
    }

    private func saveState(_ state: PersistedAppState, of app: AppID) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO apps (
                    bundle_id, has_state, force_quit, refresh_switch, budget_available_s,
                    budget_updated_unix_s, last_background_run_unix_s, fetch_interval_s,
                    last_fetch_unix_s)
                VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (bundle_id) DO UPDATE SET
                    has_state = 1,
                    force_quit = excluded.force_quit,
                    refresh_switch = excluded.refresh_switch,
                    budget_available_s = excluded.budget_available_s,
                    budget_updated_unix_s = excluded.budget_updated_unix_s,
                    last_background_run_unix_s = excluded.last_background_run_unix_s,
                    fetch_interval_s = excluded.fetch_interval_s,
                    last_fetch_unix_s = excluded.last_fetch_unix_s
                """
        )
        try statement.execute(arguments: [
            app.bundleIdentifier,
            state.forceQuit,
            state.refreshSwitch,
            StoredTime.seconds(of: state.runtimeBudget.available),
            StoredTime.unixSeconds(of: state.runtimeBudget.updatedAt, clock: clock),
            state.lastBackgroundRunAt.map { StoredTime.unixSeconds(of: $0, clock: clock) },
            state.fetchInterval.map(StoredTime.seconds(of:)),
            state.lastFetchAt.map { StoredTime.unixSeconds(of: $0, clock: clock) },
        ])
    }

    /// Deletes the app's launches beyond the newest `launchLimit`.
    private func pruneLaunches(of app: AppID) throws {
        try db.cachedStatement(
            sql: """
                DELETE FROM launches WHERE rowid IN (
                    SELECT rowid FROM launches WHERE bundle_id = ?
                    ORDER BY launched_unix_s DESC, rowid DESC
                    LIMIT -1 OFFSET ?)
                """
        )
        .execute(arguments: [app.bundleIdentifier, launchLimit])
    }
}
