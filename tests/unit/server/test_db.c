/* test_db.c - the storage writer/readers and migrations on a real uv loop and
 * a temporary database. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "db.h"
#include "limits_storage.h"
#include "migrate.h"
#include "store_util.h"
#include "test.h"

static uv_loop_t loop;
static char dir[512], path[600];

/* ---- jobs ---------------------------------------------------------------- */

static int job_create_table(sqlite3 *c, void *ctx) {
  (void)ctx;
  return sqlite3_exec(c, "CREATE TABLE IF NOT EXISTS t(i INTEGER PRIMARY KEY,"
                         " v TEXT)", NULL, NULL, NULL) == SQLITE_OK
             ? 0
             : AGON_ESTORAGE;
}

typedef struct ins {
  int i;
  int fail;    /* insert, then return this error (0: succeed) */
  int *order;  /* completion log */
  int *norder;
  int status;
  int done;
  int visible; /* checked in the callback through an outside connection */
} ins;

static const char SQL_INS[] = "INSERT INTO t(i, v) VALUES (?1, 'x')";

static int job_insert(sqlite3 *c, void *ctx) {
  ins *r = ctx;
  sqlite3_stmt *st = db_stmt(c, SQL_INS);
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_int(st, 1, r->i);
  if (sqlite3_step(st) != SQLITE_DONE) return AGON_ESTORAGE;
  return r->fail;
}

static sqlite3 *outside; /* a plain connection of the test, loop thread */

static int row_exists(sqlite3 *c, int i) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(c, "SELECT 1 FROM t WHERE i = ?1", -1, &st, NULL))
    return -1;
  sqlite3_bind_int(st, 1, i);
  int rc = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return rc;
}

static int count_rows(sqlite3 *c) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(c, "SELECT count(*) FROM t", -1, &st, NULL)) return -1;
  int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
  sqlite3_finalize(st);
  return n;
}

static void ins_done(void *ctx, int status) {
  ins *r = ctx;
  r->status = status;
  r->done++;
  r->order[(*r->norder)++] = r->i;
  /* After COMMIT: another connection must already see the row. Checked for
   * a sample only, to keep the test fast. */
  if (outside && r->i % 97 == 0) r->visible = row_exists(outside, r->i);
}

static int flag;
static int last_status;
static void set_flag(void *ctx, int status) {
  (void)ctx;
  last_status = status;
  flag = 1;
}

static db *open_db(unsigned queue_max, unsigned batch_max) {
  db *d = store_db_open(&loop, path, DB_SYNC_FULL, queue_max, batch_max);
  CHECK(d != NULL);
  return d;
}

static void close_db(db *d) { store_db_close(&loop, d); }

/* ---- tests --------------------------------------------------------------- */

enum { N = 3000 };

static void test_group_commit(void) {
  db *d = open_db(0, 256);
  if (!d) return;
  flag = 0;
  CHECK_INT(db_write(d, job_create_table, NULL, set_flag), 0);
  CHECK(store_run_until(&loop, &flag, 10000));
  CHECK_INT(last_status, 0);
  CHECK_INT(sqlite3_open_v2(path, &outside, SQLITE_OPEN_READONLY, NULL),
            SQLITE_OK);

  static ins r[N];
  static int order[N];
  int norder = 0;
  for (int i = 0; i < N; i++) {
    r[i] = (ins){.i = i + 1, .order = order, .norder = &norder};
    /* every 10th job fails after inserting: rolled back alone */
    if (i % 10 == 5) r[i].fail = AGON_EINVAL;
    CHECK_INT(db_write(d, job_insert, &r[i], ins_done), 0);
  }
  uint64_t deadline = uv_hrtime() + 20000000000ull;
  while (norder < N && uv_hrtime() < deadline) {
    uv_run(&loop, UV_RUN_ONCE);
  }
  CHECK_INT(norder, N);
  int in_order = 1, once = 1, statuses = 1, visible = 1;
  for (int i = 0; i < norder; i++)
    if (order[i] != i + 1) in_order = 0;
  for (int i = 0; i < N; i++) {
    if (r[i].done != 1) once = 0;
    if (r[i].status != r[i].fail) statuses = 0;
    if (r[i].i % 97 == 0 && r[i].visible != !r[i].fail) visible = 0;
  }
  CHECK_MSG(in_order, "completions not in submission order");
  CHECK_MSG(once, "a job got zero or several callbacks");
  CHECK_MSG(statuses, "a job's status is not its return value");
  CHECK_MSG(visible, "a row was not visible to another connection in its "
                     "callback (callback before COMMIT?)");
  CHECK_INT(count_rows(outside), N - N / 10);
  CHECK_INT(row_exists(outside, 6), 0); /* failed job: rolled back */
  CHECK_INT(row_exists(outside, 5), 1); /* its neighbours: committed */
  CHECK_INT(row_exists(outside, 7), 1);

  db_stats s;
  db_stats_get(d, &s);
  CHECK_U64(s.write_jobs, N + 1);
  CHECK_U64(s.write_job_errors, N / 10);
  CHECK(s.commits >= 2);
  CHECK(s.commits < (uint64_t)N); /* group commit: fewer commits than jobs */
  CHECK(s.max_batch > 1 && s.max_batch <= 256);
  CHECK_INT(s.writes_inflight, 0);
  CHECK_INT(s.queue_depth, 0);
  printf("group commit: %u jobs in %llu commits, max batch %u, avg %llu us\n",
         N + 1, (unsigned long long)s.commits, s.max_batch,
         (unsigned long long)s.avg_commit_us);
  sqlite3_close(outside);
  outside = NULL;
  close_db(d);
}

static void test_durable_reopen(void) {
  db *d = open_db(0, 0);
  if (!d) return;
  sqlite3 *c;
  CHECK_INT(sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  CHECK_INT(count_rows(c), N - N / 10);
  sqlite3_close(c);
  close_db(d);
}

typedef struct cnt {
  int *counter;
  int last_status;
} cnt;
static void count_done(void *ctx, int status) {
  cnt *c = ctx;
  (*c->counter)++;
  c->last_status = status;
}

static void test_busy_and_close_drains(void) {
  db *d = open_db(4, 0);
  if (!d) return;
  static ins r[5];
  int order[5], norder = 0;
  for (int i = 0; i < 5; i++)
    r[i] = (ins){.i = 100000 + i, .order = order, .norder = &norder};
  /* The loop does not run here, so nothing is delivered: in flight grows. */
  for (int i = 0; i < 4; i++)
    CHECK_INT(db_write(d, job_insert, &r[i], ins_done), 0);
  CHECK_INT(db_write(d, job_insert, &r[4], ins_done), AGON_EBUSY);
  db_stats s;
  db_stats_get(d, &s);
  CHECK_INT(s.writes_inflight, 4);
  CHECK_U64(s.busy_rejects, 1);
  /* db_close runs every queued job and delivers before returning. */
  db_close(d);
  CHECK_INT(norder, 4);
  for (int i = 0; i < 4; i++) CHECK_INT(r[i].status, 0);
  CHECK_INT(r[4].done, 0); /* refused: never called back */
  store_run_drain(&loop);

  d = open_db(0, 0);
  if (!d) return;
  sqlite3 *c;
  CHECK_INT(sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  for (int i = 0; i < 4; i++) CHECK_INT(row_exists(c, 100000 + i), 1);
  CHECK_INT(row_exists(c, 100004), 0);
  sqlite3_close(c);
  close_db(d);
}

/* ---- reads --------------------------------------------------------------- */

typedef struct rd {
  int n;
  int *done;
} rd;
static int job_count(sqlite3 *c, void *ctx) {
  rd *r = ctx;
  sqlite3_stmt *st = db_stmt(c, "SELECT count(*) FROM t");
  if (!st || sqlite3_step(st) != SQLITE_ROW) return AGON_ESTORAGE;
  r->n = sqlite3_column_int(st, 0);
  return 0;
}
static int job_write_on_reader(sqlite3 *c, void *ctx) {
  (void)ctx;
  return sqlite3_exec(c, "INSERT INTO t(i) VALUES (-1)", NULL, NULL, NULL) ==
                 SQLITE_OK
             ? 0
             : AGON_ESTORAGE;
}
static void rd_done(void *ctx, int status) {
  rd *r = ctx;
  if (status) r->n = status;
  (*r->done)++;
}

static void test_reads(void) {
  db *d = open_db(0, 0);
  if (!d) return;
  enum { R = 64 };
  rd r[R];
  int done = 0;
  for (int i = 0; i < R; i++) {
    r[i] = (rd){.done = &done};
    CHECK_INT(db_read(d, job_count, &r[i], rd_done), 0);
  }
  uint64_t deadline = uv_hrtime() + 10000000000ull;
  while (done < R && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK_INT(done, R);
  int ok = 1;
  for (int i = 0; i < R; i++)
    if (r[i].n != N - N / 10 + 4) ok = 0;
  CHECK_MSG(ok, "a reader saw a wrong count (%d)", r[0].n);

  /* reader connections are read-only */
  cnt c = {.counter = &done};
  done = 0;
  CHECK_INT(db_read(d, job_write_on_reader, &c, count_done), 0);
  deadline = uv_hrtime() + 10000000000ull;
  while (done < 1 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK_INT(c.last_status, AGON_ESTORAGE);

  /* read-after-write: a read submitted from a write's callback sees it */
  static ins w;
  int order[1], norder = 0;
  w = (ins){.i = 200000, .order = order, .norder = &norder};
  CHECK_INT(db_write(d, job_insert, &w, ins_done), 0);
  deadline = uv_hrtime() + 10000000000ull;
  while (norder < 1 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  rd after = {.done = &done};
  done = 0;
  CHECK_INT(db_read(d, job_count, &after, rd_done), 0);
  deadline = uv_hrtime() + 10000000000ull;
  while (done < 1 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK_INT(after.n, N - N / 10 + 5);
  close_db(d);
}

/* ---- a job that breaks the transaction ---------------------------------- */

static int job_commit_itself(sqlite3 *c, void *ctx) {
  (void)ctx;
  sqlite3_exec(c, "COMMIT", NULL, NULL, NULL); /* a bug in a job */
  return 0;
}

static void test_broken_batch(void) {
  db *d = open_db(0, 0);
  if (!d) return;
  cnt a = {0}, b = {0};
  int n = 0;
  a.counter = b.counter = &n;
  CHECK_INT(db_write(d, job_commit_itself, &a, count_done), 0);
  uint64_t deadline = uv_hrtime() + 10000000000ull;
  while (n < 1 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  /* The job ended the group transaction behind the writer's back: reported
   * as a storage failure, and the writer survives and keeps committing. */
  CHECK_INT(a.last_status, AGON_ESTORAGE);
  static ins r;
  int order[1], norder = 0;
  r = (ins){.i = 300000, .order = order, .norder = &norder};
  CHECK_INT(db_write(d, job_insert, &r, ins_done), 0);
  deadline = uv_hrtime() + 10000000000ull;
  while (norder < 1 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK_INT(r.status, 0);
  close_db(d);
}

/* ---- migrations ---------------------------------------------------------- */

static int user_version(const char *p) {
  sqlite3 *c;
  int v = -1;
  if (sqlite3_open_v2(p, &c, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
    migrate_level(c, &v);
  sqlite3_close(c);
  return v;
}

static void test_migrations(void) {
  char p[700];
  snprintf(p, sizeof p, "%s/mig.db", dir);
  sqlite3 *c;
  CHECK_INT(sqlite3_open(p, &c), SQLITE_OK);
  agon_err err = {0};
  unsigned applied = 99;

  /* from empty */
  CHECK_INT(migrate_apply(c, migrate_builtin, migrate_builtin_count, &applied,
                          &err), 0);
  CHECK_INT(applied, migrate_builtin_count);
  int lvl = -1;
  CHECK_INT(migrate_level(c, &lvl), 0);
  CHECK_INT(lvl, (int)migrate_builtin_count);
  CHECK_INT(sqlite3_exec(c, "SELECT id, name_folded, pwhash FROM players;"
                            "SELECT token_hash, revoked_at FROM sessions;"
                            "SELECT seq, ply, clock0_ms FROM moves;"
                            "SELECT room FROM chat; SELECT rd FROM ratings;"
                            "SELECT seed_commitment FROM games;",
                         NULL, NULL, NULL),
            SQLITE_OK);

  /* already applied */
  CHECK_INT(migrate_apply(c, migrate_builtin, migrate_builtin_count, &applied,
                          &err), 0);
  CHECK_INT(applied, 0);

  /* a further script that fails is rolled back, level unchanged */
  unsigned n = migrate_builtin_count;
  migrate_script more[16];
  memcpy(more, migrate_builtin, n * sizeof *more);
  more[n] = (migrate_script){n + 1, "0002_ok", "CREATE TABLE extra(x);"};
  more[n + 1] = (migrate_script){n + 2, "0003_bad",
                                 "CREATE TABLE extra2(x); SELECT nosuch();"};
  CHECK_INT(migrate_apply(c, more, n + 2, &applied, &err), AGON_ESTORAGE);
  CHECK_INT(applied, 1);
  CHECK(strstr(err.msg, "0003_bad") != NULL);
  CHECK_INT(migrate_level(c, &lvl), 0);
  CHECK_INT(lvl, (int)n + 1);
  CHECK(sqlite3_exec(c, "SELECT * FROM extra2", NULL, NULL, NULL) != SQLITE_OK);

  /* gaps are refused */
  more[n] = (migrate_script){n + 2, "0003_gap", "SELECT 1;"};
  CHECK_INT(migrate_apply(c, more, n + 1, &applied, &err), AGON_ESTORAGE);

  /* newer than this binary: refused with a clear message, nothing touched */
  CHECK_INT(sqlite3_exec(c, "PRAGMA user_version = 99", NULL, NULL, NULL),
            SQLITE_OK);
  agon_err_clear(&err);
  CHECK_INT(migrate_apply(c, migrate_builtin, migrate_builtin_count, &applied,
                          &err), AGON_ESTORAGE);
  CHECK(strstr(err.msg, "newer") != NULL);
  sqlite3_close(c);

  db_config cfg;
  db_config_init(&cfg);
  cfg.path = p;
  db *d = NULL;
  agon_err_clear(&err);
  CHECK_INT(db_open(&d, &loop, &cfg, &err), AGON_ESTORAGE);
  CHECK(d == NULL);
  CHECK(strstr(err.msg, "level 99 is newer") != NULL);
  printf("refused: %s\n", err.msg);
  CHECK_INT(user_version(p), 99);
  store_run_drain(&loop);
}

static void test_open_fresh_sets_level(void) {
  char p[700];
  snprintf(p, sizeof p, "%s/fresh.db", dir);
  db_config cfg;
  db_config_init(&cfg);
  cfg.path = p;
  cfg.synchronous = DB_SYNC_NORMAL;
  db *d = NULL;
  agon_err err = {0};
  CHECK_INT(db_open(&d, &loop, &cfg, &err), 0);
  if (d) close_db(d);
  CHECK_INT(user_version(p), (int)migrate_builtin_count);
  /* reopen: nothing to do */
  d = NULL;
  CHECK_INT(db_open(&d, &loop, &cfg, &err), 0);
  if (d) close_db(d);
  CHECK_INT(user_version(p), (int)migrate_builtin_count);

  /* a missing parent directory (one level) is created */
  char sub[700], subdb[760];
  snprintf(sub, sizeof sub, "%s/var", dir);
  snprintf(subdb, sizeof subdb, "%s/agon.db", sub);
  cfg.path = subdb;
  d = NULL;
  CHECK_INT(db_open(&d, &loop, &cfg, &err), 0);
  if (d) close_db(d);
  store_rmdir(sub);

  cfg.path = "/nonexistent-dir/x/y.db";
  d = NULL;
  CHECK_INT(db_open(&d, &loop, &cfg, &err), AGON_ESTORAGE);
  CHECK(d == NULL);
  cfg.synchronous = 7;
  CHECK_INT(db_open(&d, &loop, &cfg, &err), AGON_EINVAL);
}

/* ---- checkpoints --------------------------------------------------------- */

static const char SQL_INS_BIG[] = "INSERT INTO t(i, v) VALUES (?1, zeroblob(3000))";

static int job_insert_big(sqlite3 *c, void *ctx) {
  sqlite3_stmt *st = db_stmt(c, SQL_INS_BIG);
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_int(st, 1, *(int *)ctx);
  return sqlite3_step(st) == SQLITE_DONE ? 0 : AGON_ESTORAGE;
}

static int ndone_big;
static void big_done(void *ctx, int status) {
  (void)ctx;
  if (status == 0) ndone_big++;
}

/* ~1 WAL page per job, well past the writer's cap: the checkpointer thread
 * runs, the writer checkpoints itself at the cap, and the WAL stays bounded
 * (it starts over) instead of growing with the load. */
static void test_checkpoints(void) {
  enum { NB = 20000 };
  db *d = open_db(0, 256);
  if (!d) return;
  flag = 0;
  CHECK_INT(db_write(d, job_create_table, NULL, set_flag), 0);
  CHECK(store_run_until(&loop, &flag, 10000));
  static int ids[NB];
  ndone_big = 0;
  uint64_t deadline = uv_hrtime() + 60000000000ull;
  for (int i = 0; i < NB && uv_hrtime() < deadline;) {
    /* at most 1 000 in flight, like a loaded server */
    while (i < NB && i - ndone_big < 1000) {
      ids[i] = 1000000 + i;
      CHECK_INT(db_write(d, job_insert_big, &ids[i], big_done), 0);
      i++;
    }
    uv_run(&loop, UV_RUN_ONCE);
  }
  while (ndone_big < NB && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK_INT(ndone_big, NB);
  db_stats s;
  db_stats_get(d, &s);
  CHECK(s.checkpoints > 0);
  CHECK(s.writer_checkpoints > 0);
  /* The hard cap plus one transaction: 256 jobs of one row page each, and
   * the table's interior pages they touch. However slowly the checkpointer
   * thread runs (a loaded CI machine), the writer waits for it there. */
  CHECK_MSG(s.wal_pages_max < DB_WAL_HARD_CAP + 2 * 256,
            "WAL reached %u pages", s.wal_pages_max);
  printf("checkpoints: %llu background (max %llu us), %llu by the writer, "
         "%llu waits at the cap, WAL at most %u pages\n",
         (unsigned long long)s.checkpoints,
         (unsigned long long)s.max_checkpoint_us,
         (unsigned long long)s.writer_checkpoints,
         (unsigned long long)s.wal_cap_waits, s.wal_pages_max);
  close_db(d);
  /* closed: everything checkpointed into the main file */
  sqlite3 *c = NULL;
  CHECK_INT(sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  CHECK_INT(sqlite3_prepare_v2(c, "SELECT count(*) FROM t WHERE i >= 1000000",
                               -1, &st, NULL), SQLITE_OK);
  CHECK(sqlite3_step(st) == SQLITE_ROW);
  CHECK_INT(sqlite3_column_int(st, 0), NB);
  sqlite3_finalize(st);
  sqlite3_close(c);
}

int main(void) {
  CHECK_INT(uv_loop_init(&loop), 0);
  if (store_tmpdir(dir, sizeof dir)) {
    fprintf(stderr, "cannot create a temporary directory\n");
    return 1;
  }
  snprintf(path, sizeof path, "%s/test.db", dir);
  test_group_commit();
  test_durable_reopen();
  test_busy_and_close_drains();
  test_reads();
  test_broken_batch();
  test_migrations();
  test_open_fresh_sets_level();
  test_checkpoints();
  store_run_drain(&loop);
  CHECK_INT(uv_loop_close(&loop), 0);
  store_rmdir(dir);
  return test_summary();
}
