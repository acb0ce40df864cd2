import GRDB

/// The store's tables, created and upgraded by named migrations.
///
/// **A migration never changes once shipped** (GRDB's `Migrations.md`): a database records the
/// identifiers of the migrations applied to it, and a changed migration would leave databases
/// created before and after the change with different schemas under the same identifier. To
/// change the schema, append a new migration (`"v2: …"`) after the last one; never edit, rename,
/// reorder or remove one. A database that records an identifier this list does not contain was
/// written by a newer version, and the store refuses it (``StoreError/Code-swift.struct/schemaTooNew``).
///
/// Times are `REAL` seconds since 1970 (`…_unix_s`), durations `REAL` seconds (`…_s`); booleans
/// are `INTEGER` 0 or 1. Enumerated columns have `CHECK` constraints, and the store validates
/// every row again when it reads it.
enum StoreSchema {
    /// The `application_id` in the database header: ASCII "BGST". A file with another non-zero
    /// identifier belongs to another program.
    static let applicationID: Int32 = 0x4247_5354

    /// The migrations, in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // Shipped: do not change. Add new migrations below this one.
        migrator.registerMigration("v1: apps, pending requests, launches") { db in
            try db.execute(sql: version1)
        }
        // Shipped: do not change.
        migrator.registerMigration("v2: task run history, device condition intervals") { db in
            try db.execute(sql: version2)
        }
        migrator.registerMigration("v3: background transfers' checkpoints") { db in
            try db.execute(sql: version3)
        }
        migrator.registerMigration("v4: per-app user and group ids") { db in
            try db.execute(sql: version4)
        }
        return migrator
    }

    // Shipped in v1: do not change.
    private static let version1 = """
        PRAGMA application_id = \(applicationID);

        CREATE TABLE apps (
            bundle_id TEXT NOT NULL PRIMARY KEY CHECK (length(bundle_id) > 0),
            manifest_json TEXT,
            has_state INTEGER NOT NULL DEFAULT 0 CHECK (has_state IN (0, 1)),
            force_quit INTEGER CHECK (force_quit IN (0, 1)),
            refresh_switch INTEGER CHECK (refresh_switch IN (0, 1)),
            budget_available_s REAL,
            budget_updated_unix_s REAL,
            last_background_run_unix_s REAL,
            fetch_interval_s REAL,
            last_fetch_unix_s REAL,
            CHECK (
                has_state = 0
                OR (force_quit IS NOT NULL AND refresh_switch IS NOT NULL
                    AND budget_available_s IS NOT NULL AND budget_updated_unix_s IS NOT NULL)
            )
        );

        CREATE TABLE pending_requests (
            bundle_id TEXT NOT NULL REFERENCES apps (bundle_id) ON DELETE CASCADE,
            identifier TEXT NOT NULL,
            kind TEXT NOT NULL
                CHECK (kind IN ('appRefresh', 'processing', 'continuedProcessing', 'fetch')),
            earliest_begin_unix_s REAL,
            requires_network INTEGER NOT NULL CHECK (requires_network IN (0, 1)),
            requires_power INTEGER NOT NULL CHECK (requires_power IN (0, 1)),
            title TEXT NOT NULL,
            subtitle TEXT NOT NULL,
            strategy TEXT NOT NULL CHECK (strategy IN ('fail', 'queue')),
            requires_gpu INTEGER NOT NULL CHECK (requires_gpu IN (0, 1)),
            submitted_unix_s REAL NOT NULL,
            PRIMARY KEY (bundle_id, identifier)
        );

        CREATE TABLE launches (
            bundle_id TEXT NOT NULL REFERENCES apps (bundle_id) ON DELETE CASCADE,
            launched_unix_s REAL NOT NULL
        );
        CREATE INDEX launches_by_app_and_time ON launches (bundle_id, launched_unix_s);
        """

    // Shipped in v2: do not change. `why --history`: each request identifier's recent runs (the
    // waits it had before each, as JSON), and the device's condition intervals, recorded once for
    // the device and not per request (`unmet` is a comma-separated list of WaitReason names).
    private static let version2 = """
        CREATE TABLE task_runs (
            bundle_id TEXT NOT NULL REFERENCES apps (bundle_id) ON DELETE CASCADE,
            identifier TEXT NOT NULL,
            kind TEXT NOT NULL
                CHECK (kind IN ('appRefresh', 'processing', 'continuedProcessing', 'fetch')),
            submitted_unix_s REAL NOT NULL,
            started_unix_s REAL NOT NULL,
            ended_unix_s REAL NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'killed')),
            waits_json TEXT NOT NULL
        );
        CREATE INDEX task_runs_by_request ON task_runs (bundle_id, identifier, started_unix_s);

        CREATE TABLE device_intervals (
            from_unix_s REAL NOT NULL PRIMARY KEY,
            unmet TEXT NOT NULL
        );
        """

    // v3: one row per background transfer not yet delivered to its app, its whole checkpoint as
    // JSON (`TransferCheckpoint`), replaced at every checkpoint. No foreign key to `apps`: an
    // embedded app's transfers are stored without an app row; `deleteApp` deletes them too.
    private static let version3 = """
        CREATE TABLE transfers (
            bundle_id TEXT NOT NULL CHECK (length(bundle_id) > 0),
            session TEXT NOT NULL CHECK (length(session) > 0),
            task INTEGER NOT NULL CHECK (task > 0),
            state TEXT NOT NULL CHECK (state IN ('waiting', 'running', 'completed')),
            checkpoint_json TEXT NOT NULL CHECK (length(checkpoint_json) <= 4194304),
            updated_unix_s REAL NOT NULL,
            PRIMARY KEY (bundle_id, session, task)
        );
        """

    // v4: the user and group ids a root daemon runs apps under (`BackgroundStore+AppUsers.swift`):
    // `owner` is an app's bundle identifier (its uid, which is also its gid) or `group:<path>`
    // (the gid of a shared container). Rows are never deleted, so an id is never given to
    // another owner while files the first one made may exist. No foreign key to `apps`: an
    // uninstalled app keeps its id.
    private static let version4 = """
        CREATE TABLE app_users (
            owner TEXT NOT NULL PRIMARY KEY CHECK (length(owner) > 0),
            id INTEGER NOT NULL UNIQUE CHECK (id > 0 AND id < 4294967295),
            assigned_unix_s REAL NOT NULL
        );
        """
}
