/* migrate.h - schema migrations: migrations/NNNN_name.sql, applied in order.
 *
 * The SQL files are embedded into the binary at build time (server/sqlembed.c
 * generates a C file defining migrate_builtin[]), so agond never reads them
 * from the working directory. Level N = the first N scripts applied; it is
 * kept in PRAGMA user_version. Each script runs in its own transaction
 * together with the user_version update, so a crash leaves the database at
 * level N or N+1, never in between.
 */
#ifndef AGON_MIGRATE_H
#define AGON_MIGRATE_H

#include <sqlite3.h>

#include "agon_err.h"

typedef struct migrate_script {
  unsigned level;   /* NNNN: 1, 2, ... without gaps */
  const char *name; /* "0001_init" */
  const char *sql;  /* the file's text */
} migrate_script;

/* Provided by the generated file (sqlembed). Ordered by level. */
extern const migrate_script migrate_builtin[];
extern const unsigned migrate_builtin_count;

/* Current level of conn (PRAGMA user_version) into *out. 0 or AGON_ESTORAGE. */
int migrate_level(sqlite3 *conn, int *out);

/* Brings conn to level n (scripts[0..n-1], levels 1..n in order). Blocking:
 * start-up only. Returns 0 (also when nothing was pending); AGON_ESTORAGE if
 * the database level is newer than n ("database schema level 7 is newer than
 * this agond knows (3): upgrade agond"), if a script fails (that script is
 * rolled back, the level stays at the previous one), or if scripts is not a
 * gapless 1..n sequence. *applied (may be NULL) gets how many ran. */
int migrate_apply(sqlite3 *conn, const migrate_script *scripts, unsigned n,
                  unsigned *applied, agon_err *err);

#endif
