#include "CSQLiteSettings.h"

#include <stddef.h>
#include <sqlite3.h>

int csqlite_db_config_flag(struct sqlite3 *db, CSQLiteSetting setting, int value, int *current) {
    int op;
    switch (setting) {
    case CSQLiteSettingDefensive: op = SQLITE_DBCONFIG_DEFENSIVE; break;
    case CSQLiteSettingTrustedSchema: op = SQLITE_DBCONFIG_TRUSTED_SCHEMA; break;
    case CSQLiteSettingEnableTrigger: op = SQLITE_DBCONFIG_ENABLE_TRIGGER; break;
    case CSQLiteSettingEnableView: op = SQLITE_DBCONFIG_ENABLE_VIEW; break;
    default: return SQLITE_ERROR;
    }
    return sqlite3_db_config(db, op, value, current);
}

int csqlite_main_is_readonly(struct sqlite3 *db) {
    return sqlite3_db_readonly(db, "main");
}

const char *csqlite_main_filename(struct sqlite3 *db) {
    const char *name = sqlite3_db_filename(db, "main");
    return (name != NULL && name[0] != '\0') ? name : NULL;
}
