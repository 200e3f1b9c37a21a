#ifndef EVTOOL_CSQLITE_SHIM_H
#define EVTOOL_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: tells SQLite to copy bound bytes.
static inline sqlite3_destructor_type evtool_sqlite_transient(void) { return SQLITE_TRANSIENT; }
/// SQLITE_STATIC: the bound bytes outlive the statement step; SQLite need not copy them.
static inline sqlite3_destructor_type evtool_sqlite_static(void) { return SQLITE_STATIC; }
/// sqlite3_db_config is variadic; this fixed-arity wrapper turns an int option on or off.
static inline int evtool_sqlite_db_config_int(sqlite3 *db, int op, int value) {
    int result = 0;
    return sqlite3_db_config(db, op, value, &result);
}
#endif
