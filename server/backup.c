/* backup.c - online backup thread (see backup.h). */
#include "backup.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "limits_ops.h"
#include "log.h"
#include "util.h"

struct backup {
  uv_loop_t *loop;
  uv_async_t async;     /* first member is not required: data points at b */
  char *db_path, *dir;
  uv_thread_t thread;
  int running;          /* loop thread: thread started, not yet joined */
  int closed;
  atomic_int abort;     /* loop -> thread: stop between steps */
  backup_done_cb cb;
  void *arg;
  /* written by the thread, read by the loop after uv_thread_join */
  int status;
  char path[4096];
  char msg[256];
};

static int fail(backup *b, int code, const char *fmt, const char *detail) {
  snprintf(b->msg, sizeof b->msg, fmt, detail);
  b->status = code;
  return code;
}

static int fsync_path(const char *path, int dir) {
  int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return -1;
  int r = fsync(fd);
  close(fd);
  return r;
}

static int run(backup *b) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char stamp[64];
  strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
  char tmp[4200];
  int n = snprintf(b->path, sizeof b->path, "%s/agon-%s.%03ldZ.db", b->dir,
                   stamp, ts.tv_nsec / 1000000);
  if (n < 0 || (size_t)n >= sizeof b->path)
    return fail(b, AGON_EINVAL, "%s", "backup directory path too long");
  snprintf(tmp, sizeof tmp, "%s.tmp", b->path);
  if (mkdir(b->dir, 0750) != 0 && errno != EEXIST)
    return fail(b, AGON_ESTORAGE, "cannot create the backup directory: %s",
                strerror(errno));

  sqlite3 *src = NULL, *dst = NULL;
  int rc = 0;
  if (sqlite3_open_v2(b->db_path, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    rc = fail(b, AGON_ESTORAGE, "cannot open the database: %s",
              src ? sqlite3_errmsg(src) : "out of memory");
    goto out;
  }
  sqlite3_busy_timeout(src, 5000);
  /* The snapshot: a read transaction held across every step, so the copy
   * is one consistent state while the writer keeps committing (WAL). */
  if (sqlite3_exec(src, "BEGIN; SELECT count(*) FROM sqlite_schema;", NULL,
                   NULL, NULL) != SQLITE_OK) {
    rc = fail(b, AGON_ESTORAGE, "cannot start the snapshot: %s",
              sqlite3_errmsg(src));
    goto out;
  }
  unlink(tmp);
  if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      NULL) != SQLITE_OK) {
    rc = fail(b, AGON_ESTORAGE, "cannot create the backup file: %s",
              dst ? sqlite3_errmsg(dst) : "out of memory");
    goto out;
  }
  sqlite3_backup *bk = sqlite3_backup_init(dst, "main", src, "main");
  if (bk == NULL) {
    rc = fail(b, AGON_ESTORAGE, "backup_init: %s", sqlite3_errmsg(dst));
    goto out;
  }
  int r;
  do {
    if (atomic_load(&b->abort)) {
      sqlite3_backup_finish(bk);
      rc = fail(b, AGON_ESHUTDOWN, "%s", "aborted (shutdown)");
      goto out;
    }
    r = sqlite3_backup_step(bk, BACKUP_STEP_PAGES);
    if (r == SQLITE_BUSY || r == SQLITE_LOCKED) sqlite3_sleep(10);
  } while (r == SQLITE_OK || r == SQLITE_BUSY || r == SQLITE_LOCKED);
  int pages = sqlite3_backup_pagecount(bk);
  sqlite3_backup_finish(bk);
  if (r != SQLITE_DONE) {
    rc = fail(b, AGON_ESTORAGE, "backup_step: %s", sqlite3_errstr(r));
    goto out;
  }
  sqlite3_exec(src, "COMMIT", NULL, NULL, NULL);
  sqlite3_close(src);
  src = NULL;
  /* A standalone file: no -wal next to it to forget when copying it. */
  char *em = NULL;
  if (sqlite3_exec(dst, "PRAGMA journal_mode=DELETE", NULL, NULL, &em) != SQLITE_OK) {
    rc = fail(b, AGON_ESTORAGE, "journal_mode: %s", em ? em : "?");
    sqlite3_free(em);
    goto out;
  }
  sqlite3_stmt *st = NULL;
  int ok = 0;
  if (sqlite3_prepare_v2(dst, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    ok = t && strcmp((const char *)t, "ok") == 0;
  }
  sqlite3_finalize(st);
  if (!ok) {
    rc = fail(b, AGON_ESTORAGE, "%s", "the copy fails quick_check");
    goto out;
  }
  sqlite3_close(dst);
  dst = NULL;
  if (fsync_path(tmp, 0) != 0 || rename(tmp, b->path) != 0 ||
      fsync_path(b->dir, 1) != 0) {
    rc = fail(b, AGON_ESTORAGE, "cannot finish the backup file: %s",
              strerror(errno));
    goto out;
  }
  snprintf(b->msg, sizeof b->msg, "%d pages", pages);
out:
  if (src) sqlite3_close(src);
  if (dst) sqlite3_close(dst);
  if (rc != 0) unlink(tmp);
  b->status = rc;
  return rc;
}

static void thread_main(void *arg) {
  backup *b = arg;
  run(b);
  uv_async_send(&b->async);
}

static void async_cb(uv_async_t *h) {
  backup *b = h->data;
  if (!b->running) return;
  uv_thread_join(&b->thread);
  b->running = 0;
  if (b->cb) b->cb(b->arg, b->status, b->path, b->msg);
}

backup *backup_new(uv_loop_t *loop, const char *db_path, const char *dir) {
  backup *b = xcalloc(1, sizeof *b);
  b->loop = loop;
  b->db_path = xstrdup(db_path);
  b->dir = xstrdup(dir);
  atomic_init(&b->abort, 0);
  uv_async_init(loop, &b->async, async_cb);
  b->async.data = b;
  return b;
}

int backup_running(const backup *b) { return b->running; }

int backup_start(backup *b, backup_done_cb cb, void *arg) {
  if (b->closed) return AGON_ESHUTDOWN;
  if (b->running) return AGON_EBUSY;
  b->cb = cb;
  b->arg = arg;
  b->status = 0;
  b->msg[0] = '\0';
  atomic_store(&b->abort, 0);
  if (uv_thread_create(&b->thread, thread_main, b) != 0) return AGON_EINTERNAL;
  b->running = 1;
  return 0;
}

static void close_cb(uv_handle_t *h) {
  backup *b = h->data;
  free(b->db_path);
  free(b->dir);
  free(b);
}

void backup_close(backup *b) {
  if (b == NULL || b->closed) return;
  b->closed = 1;
  if (b->running) {
    atomic_store(&b->abort, 1);
    uv_thread_join(&b->thread);
    b->running = 0;
    log_warn("backup: %s", b->status == 0 ? "finished at shutdown" : b->msg);
  }
  uv_close((uv_handle_t *)&b->async, close_cb);
}
