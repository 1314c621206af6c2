#include "migrate.h"

#include <stdio.h>

int migrate_level(sqlite3 *conn, int *out) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(conn, "PRAGMA user_version", -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc != SQLITE_ROW) {
    sqlite3_finalize(st);
    return AGON_ESTORAGE;
  }
  *out = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return 0;
}

static int exec(sqlite3 *conn, const char *sql, const char *what,
                agon_err *err) {
  char *msg = NULL;
  if (sqlite3_exec(conn, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
  agon_err_set(err, AGON_ESTORAGE, "migration %s: %s", what,
               msg ? msg : sqlite3_errmsg(conn));
  sqlite3_free(msg);
  return AGON_ESTORAGE;
}

int migrate_apply(sqlite3 *conn, const migrate_script *scripts, unsigned n,
                  unsigned *applied, agon_err *err) {
  if (applied) *applied = 0;
  for (unsigned i = 0; i < n; i++)
    if (scripts[i].level != i + 1)
      return agon_err_set(err, AGON_ESTORAGE,
                          "migration %s has level %u, expected %u",
                          scripts[i].name, scripts[i].level, i + 1);
  int level;
  if (migrate_level(conn, &level) != 0)
    return agon_err_set(err, AGON_ESTORAGE, "cannot read schema level: %s",
                        sqlite3_errmsg(conn));
  if (level < 0 || (unsigned)level > n)
    return agon_err_set(err, AGON_ESTORAGE,
                        "database schema level %d is newer than this agond "
                        "knows (%u): upgrade agond or use another database",
                        level, n);
  for (unsigned i = (unsigned)level; i < n; i++) {
    /* IMMEDIATE: take the write lock first, so a second agond on the same
     * file waits (busy_timeout) instead of failing mid-script. The level is
     * re-read inside the transaction in case that other process migrated. */
    if (exec(conn, "BEGIN IMMEDIATE", scripts[i].name, err)) return AGON_ESTORAGE;
    int now;
    if (migrate_level(conn, &now) != 0 || now != (int)i) {
      exec(conn, "ROLLBACK", scripts[i].name, NULL);
      if (now > (int)i) continue; /* done by someone else meanwhile */
      return agon_err_set(err, AGON_ESTORAGE, "migration %s: level changed",
                          scripts[i].name);
    }
    char pragma[48];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %u",
             scripts[i].level);
    if (exec(conn, scripts[i].sql, scripts[i].name, err) ||
        exec(conn, pragma, scripts[i].name, err) ||
        exec(conn, "COMMIT", scripts[i].name, err)) {
      if (!sqlite3_get_autocommit(conn)) exec(conn, "ROLLBACK", "rollback", NULL);
      return AGON_ESTORAGE;
    }
    if (applied) (*applied)++;
  }
  return 0;
}
