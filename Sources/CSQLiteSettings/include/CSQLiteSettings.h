// The SQLite calls Swift cannot make directly: `sqlite3_db_config` is variadic, and GRDB 7.10
// does not expose the settings the background store needs. Declared on an opaque `struct sqlite3`
// so that this module does not include <sqlite3.h> a second time next to GRDB's own module.
#ifndef CSQLITE_SETTINGS_H
#define CSQLITE_SETTINGS_H

struct sqlite3;

/// The `sqlite3_db_config` on/off settings the store uses.
typedef enum {
    /// `SQLITE_DBCONFIG_DEFENSIVE`: no writable_schema, no direct writes to shadow tables.
    CSQLiteSettingDefensive = 1,
    /// `SQLITE_DBCONFIG_TRUSTED_SCHEMA`: whether triggers and views may call functions that
    /// are not innocuous.
    CSQLiteSettingTrustedSchema = 2,
    /// `SQLITE_DBCONFIG_ENABLE_TRIGGER`: whether triggers run at all.
    CSQLiteSettingEnableTrigger = 3,
    /// `SQLITE_DBCONFIG_ENABLE_VIEW`: whether views may be used at all.
    CSQLiteSettingEnableView = 4,
} CSQLiteSetting;

/// Sets an on/off setting of a connection (`value` 0 or 1; -1 leaves it as it is) and stores
/// the setting now in force in `*current`. Returns SQLite's result code (0 is `SQLITE_OK`; an
/// unknown setting is `SQLITE_ERROR`).
int csqlite_db_config_flag(struct sqlite3 *db, CSQLiteSetting setting, int value, int *current);

/// `sqlite3_db_readonly(db, "main")`: 1 if the main database is read-only, 0 if writable,
/// -1 if there is no main database.
int csqlite_main_is_readonly(struct sqlite3 *db);

/// `sqlite3_db_filename(db, "main")`: the full path SQLite opened (after resolving symbolic
/// links), or NULL for an in-memory database.
const char *csqlite_main_filename(struct sqlite3 *db);

#endif
