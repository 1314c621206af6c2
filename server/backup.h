/* backup.h - online backup of the database while games go on.
 *
 * A dedicated thread opens its OWN read-only connection to the database,
 * holds one read transaction (WAL: a consistent snapshot that never blocks
 * the writer, and which the writer cannot disturb) and copies it page by
 * page with SQLite's backup API into DIR/agon-<UTC time>.db.tmp; then the
 * copy is switched to rollback-journal mode (one self-contained file),
 * checked (PRAGMA quick_check), fsynced and renamed to DIR/agon-<time>.db,
 * and DIR is fsynced. So a backup file either does not exist or is
 * complete, and it holds every transaction committed before the backup
 * started (every move acknowledged before it), and none that began after
 * its snapshot.
 *
 * Nothing here runs on the loop but backup_start (spawns the thread) and
 * the completion callback. One backup at a time.
 */
#ifndef AGON_BACKUP_H
#define AGON_BACKUP_H

#include <uv.h>

#include "agon_err.h"

typedef struct backup backup;

/* status 0 or a negative AGON_E*; path (borrowed, valid during the call)
 * is the finished file on success; msg says what failed otherwise. */
typedef void (*backup_done_cb)(void *arg, int status, const char *path,
                               const char *msg);

/* db_path and dir are copied. dir is created (mode 0750) when a backup
 * starts, if missing. */
backup *backup_new(uv_loop_t *loop, const char *db_path, const char *dir);

/* Start a backup. Returns 0 (cb will run once, on the loop thread),
 * AGON_EBUSY (one is running; cb will not run) or AGON_ESHUTDOWN (closed). */
int backup_start(backup *b, backup_done_cb cb, void *arg);

int backup_running(const backup *b);

/* Abort a running backup (its callback is not called; the temporary file is
 * removed), join the thread, uv_close the wake-up handle; memory is freed
 * in its close callback (the loop must run once more). Blocks at most one
 * backup step (BACKUP_STEP_PAGES pages). */
void backup_close(backup *b);

#endif
