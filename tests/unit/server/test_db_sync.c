/* test_db_sync.c - what a write completion means against the disk: with
 * DB_SYNC_FULL it comes only after the WAL's fdatasync returned (an ack waits
 * for the disk), with NORMAL no sync is made for it, and a failed fdatasync
 * fails the batch: every job of it completes with AGON_ESTORAGE, nothing of
 * it is stored, and the next batch commits once the disk answers again.
 *
 * This binary defines fdatasync itself: every call in the process (SQLite's
 * syncs) comes here first. It counts the calls, sleeps SYNC_DELAY_MS in each
 * (a slow disk) while asked to, and fails them with EIO while asked to. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "db.h"
#include "store_util.h"
#include "test.h"

enum { SYNC_DELAY_MS = 15 };

static atomic_int fail_syncs, delay_syncs;
static atomic_uint syncs_done;

int fdatasync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  if (atomic_load(&fail_syncs)) {
    errno = EIO;
    return -1;
  }
  if (atomic_load(&delay_syncs)) {
    struct timespec ts = {0, SYNC_DELAY_MS * 1000000L};
    nanosleep(&ts, NULL);
  }
  int rc = real(fd);
  atomic_fetch_add(&syncs_done, 1);
  return rc;
}

static uv_loop_t loop;
static char dir[512], path[600];

static db *open_db(int synchronous, unsigned batch_max) {
  db *d = store_db_open(&loop, path, synchronous, 0, batch_max);
  CHECK(d != NULL);
  return d;
}

static void close_db(db *d) { store_db_close(&loop, d); }

static int job_table(sqlite3 *c, void *ctx) {
  (void)ctx;
  return sqlite3_exec(c, "CREATE TABLE IF NOT EXISTS t(i INTEGER PRIMARY KEY)",
                      NULL, NULL, NULL) == SQLITE_OK ? 0 : AGON_ESTORAGE;
}

typedef struct wjob {
  int64_t i;
  uint64_t submitted_ns, done_ns;
  int status, done;
} wjob;

static int job_insert(sqlite3 *c, void *ctx) {
  wjob *j = ctx;
  sqlite3_stmt *st = db_stmt(c, "INSERT INTO t(i) VALUES (?1)");
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_int64(st, 1, j->i);
  return sqlite3_step(st) == SQLITE_DONE ? 0 : AGON_ESTORAGE;
}

static int ndone, in_order = 1;
static int64_t last_done = -1;

static void insert_done(void *ctx, int status) {
  wjob *j = ctx;
  j->status = status;
  j->done = 1;
  j->done_ns = uv_hrtime();
  if (j->i <= last_done) in_order = 0;
  last_done = j->i;
  ndone++;
}

static int flag;
static void set_flag(void *ctx, int status) {
  (void)ctx;
  flag = status == 0 ? 1 : -1;
}

/* NJ writes in small batches against a disk that takes SYNC_DELAY_MS per
 * sync: every completion waits for a sync (>= the delay after its write was
 * submitted), completions keep their order, and everything is in the file
 * afterwards. */
static void test_full_waits_for_the_sync(void) {
  enum { NJ = 200 };
  static wjob jobs[NJ];
  db *d = open_db(DB_SYNC_FULL, 10);
  if (!d) return;
  flag = 0;
  CHECK_INT(db_write(d, job_table, NULL, set_flag), 0);
  CHECK(store_run_until(&loop, &flag, 10000) == 1);
  db_stats s0;
  db_stats_get(d, &s0);
  atomic_store(&delay_syncs, 1);
  ndone = 0;
  for (int i = 0; i < NJ; i++) {
    jobs[i].i = i;
    jobs[i].submitted_ns = uv_hrtime();
    CHECK_INT(db_write(d, job_insert, &jobs[i], insert_done), 0);
  }
  static volatile int all;
  uint64_t deadline = uv_hrtime() + 30000000000ull;
  while (ndone < NJ && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  all = ndone == NJ;
  CHECK_MSG(all, "%d of %d writes completed", ndone, NJ);
  atomic_store(&delay_syncs, 0);
  int early = 0, failed = 0;
  for (int i = 0; i < ndone; i++) {
    if (jobs[i].done_ns - jobs[i].submitted_ns < SYNC_DELAY_MS * 1000000ull) early++;
    if (jobs[i].status != 0) failed++;
  }
  CHECK_MSG(early == 0, "%d completions came before a sync could have ended", early);
  CHECK_INT(failed, 0);
  CHECK(in_order);
  db_stats s;
  db_stats_get(d, &s);
  printf("FULL: %llu commits for %d writes, every completion >= %d ms after "
         "its submission\n", (unsigned long long)(s.commits - s0.commits), NJ,
         SYNC_DELAY_MS);
  close_db(d);
  /* All of it is in the file. */
  sqlite3 *c = NULL;
  CHECK_INT(sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  CHECK_INT(sqlite3_prepare_v2(c, "SELECT count(*) FROM t", -1, &st, NULL), SQLITE_OK);
  CHECK(sqlite3_step(st) == SQLITE_ROW);
  CHECK_INT(sqlite3_column_int(st, 0), NJ);
  sqlite3_finalize(st);
  sqlite3_close(c);
}

/* NORMAL: a commit makes no sync (SQLite syncs the WAL's header when the
 * WAL starts, and at checkpoints). */
static void test_normal_makes_no_sync(void) {
  db *d = open_db(DB_SYNC_NORMAL, 10);
  if (!d) return;
  static wjob i = {.i = 999}, j = {.i = 1000};
  ndone = 0;
  last_done = -1;
  CHECK_INT(db_write(d, job_insert, &i, insert_done), 0);
  uint64_t deadline = uv_hrtime() + 10000000000ull;
  while (ndone < 1 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  unsigned before = atomic_load(&syncs_done);
  CHECK_INT(db_write(d, job_insert, &j, insert_done), 0);
  while (ndone < 2 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK(i.status == 0 && j.done && j.status == 0);
  CHECK_INT((int)(atomic_load(&syncs_done) - before), 0);
  close_db(d);
}

static int row_count(int64_t i) {
  sqlite3 *c = NULL;
  int n = -1;
  if (sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c, "SELECT count(*) FROM t WHERE i = ?1", -1, &st,
                           NULL) == SQLITE_OK) {
      sqlite3_bind_int64(st, 1, i);
      if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(c);
  return n;
}

/* A failed sync fails the batch: its jobs complete with AGON_ESTORAGE (so
 * the moves are refused, never acknowledged), nothing of it is stored, and
 * the writer goes on: the next write commits once the disk works. */
static void test_failed_sync_fails_the_batch(void) {
  db *d = open_db(DB_SYNC_FULL, 10);
  if (!d) return;
  static wjob first = {.i = 2999}, j = {.i = 3000}, k = {.i = 3001};
  ndone = 0;
  last_done = -1;
  /* A first write, synced: the WAL's header is on disk, so the failing
   * sync below is the commit's own. */
  CHECK_INT(db_write(d, job_insert, &first, insert_done), 0);
  uint64_t deadline = uv_hrtime() + 10000000000ull;
  while (ndone < 1 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK(first.done && first.status == 0);
  atomic_store(&fail_syncs, 1);
  CHECK_INT(db_write(d, job_insert, &j, insert_done), 0);
  while (ndone < 2 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  atomic_store(&fail_syncs, 0);
  CHECK_MSG(j.done && j.status == AGON_ESTORAGE,
            "the write whose sync failed completed with %d", j.status);
  CHECK_INT(db_write(d, job_insert, &k, insert_done), 0);
  while (ndone < 3 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK(k.done && k.status == 0);
  db_stats s;
  db_stats_get(d, &s);
  CHECK(s.commit_failures >= 1);
  close_db(d);
  CHECK_INT(row_count(first.i), 1);
  CHECK_INT(row_count(j.i), 0);
  CHECK_INT(row_count(k.i), 1);
}

int main(void) {
  uv_loop_init(&loop);
  if (store_tmpdir(dir, sizeof dir) != 0) {
    fprintf(stderr, "mkdtemp failed\n");
    return 1;
  }
  snprintf(path, sizeof path, "%s/sync.db", dir);
  test_full_waits_for_the_sync();
  test_normal_makes_no_sync();
  test_failed_sync_fails_the_batch();
  store_run_drain(&loop);
  uv_loop_close(&loop);
  store_rmdir(dir);
  return test_summary();
}
