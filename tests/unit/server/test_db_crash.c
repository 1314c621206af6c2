/* test_db_crash.c - crash durability: a child process commits jobs through
 * the writer and reports each completion on a pipe; the parent kills it with
 * SIGKILL mid-stream, reopens the database and checks that every reported
 * job is stored. This is the property the next issue relies on: a move
 * acknowledged from the commit callback survives kill -9. (A power loss is
 * what synchronous=FULL adds on top; a process kill is what we can test.) */
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "db.h"
#include "store_util.h"
#include "test.h"

static char dir[512], path[600];

/* ---- child --------------------------------------------------------------- */

enum { CHILD_WINDOW = 64 }; /* jobs kept in flight by the child */

typedef struct cjob {
  int64_t id;
} cjob;

static db *cd;
static int report_fd;
static int64_t next_id = 1;
static cjob slots[CHILD_WINDOW];

static const char SQL_INS[] = "INSERT INTO moves_test(id, at_ms) VALUES (?1, ?2)";

static int child_job(sqlite3 *c, void *ctx) {
  cjob *j = ctx;
  sqlite3_stmt *st = db_stmt(c, SQL_INS);
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_int64(st, 1, j->id);
  sqlite3_bind_int64(st, 2, db_now_ms());
  return sqlite3_step(st) == SQLITE_DONE ? 0 : AGON_ESTORAGE;
}

static void child_done(void *ctx, int status);

static void child_submit(cjob *j) {
  j->id = next_id++;
  if (db_write(cd, child_job, j, child_done) != 0) _exit(3);
}

static void child_done(void *ctx, int status) {
  cjob *j = ctx;
  if (status != 0) _exit(4);
  /* Acknowledge only now, after COMMIT: the parent treats each id read from
   * the pipe as "acknowledged to a client". */
  int64_t id = j->id;
  if (write(report_fd, &id, sizeof id) != (ssize_t)sizeof id) _exit(5);
  child_submit(j);
}

static int job_schema(sqlite3 *c, void *ctx) {
  (void)ctx;
  return sqlite3_exec(c, "CREATE TABLE IF NOT EXISTS moves_test("
                         "id INTEGER PRIMARY KEY, at_ms INTEGER)",
                      NULL, NULL, NULL) == SQLITE_OK
             ? 0
             : AGON_ESTORAGE;
}

static int schema_ok;
static void schema_done(void *ctx, int status) {
  (void)ctx;
  schema_ok = status == 0 ? 1 : -1;
}

static void child_main(int fd) {
  report_fd = fd;
  uv_loop_t loop;
  uv_loop_init(&loop);
  db_config cfg;
  db_config_init(&cfg); /* synchronous FULL */
  cfg.path = path;
  agon_err err;
  if (db_open(&cd, &loop, &cfg, &err) != 0) _exit(2);
  db_write(cd, job_schema, NULL, schema_done);
  while (!schema_ok) uv_run(&loop, UV_RUN_ONCE);
  if (schema_ok < 0) _exit(2);
  for (int i = 0; i < CHILD_WINDOW; i++) child_submit(&slots[i]);
  /* Runs until killed; the parent's deadline bounds it. */
  for (;;) uv_run(&loop, UV_RUN_ONCE);
}

/* ---- parent -------------------------------------------------------------- */

static int read_full(int fd, void *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, (char *)buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

static void run_round(int round, int64_t want) {
  int p[2];
  if (pipe(p) != 0) {
    CHECK(!"pipe");
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    child_main(p[1]);
    _exit(0);
  }
  close(p[1]);
  /* Collect acknowledgements; kill after `want` of them, with the child
   * still committing (the window keeps jobs in flight). */
  static int64_t acked[100000];
  int64_t n = 0, id;
  uint64_t deadline = uv_hrtime() + 30000000000ull;
  while (n < want && uv_hrtime() < deadline && read_full(p[0], &id, sizeof id) == 0)
    acked[n++] = id;
  kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  /* acknowledgements already in the pipe at the kill count too */
  while (n < (int64_t)(sizeof acked / sizeof *acked) &&
         read_full(p[0], &id, sizeof id) == 0)
    acked[n++] = id;
  close(p[0]);
  CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
            "round %d: child did not die by SIGKILL (status %d)", round, st);
  CHECK_MSG(n >= want, "round %d: only %lld acknowledgements", round,
            (long long)n);

  sqlite3 *c;
  CHECK_INT(sqlite3_open(path, &c), SQLITE_OK);
  sqlite3_stmt *q;
  CHECK_INT(sqlite3_prepare_v2(c, "SELECT 1 FROM moves_test WHERE id = ?1",
                               -1, &q, NULL), SQLITE_OK);
  int64_t missing = 0;
  for (int64_t i = 0; i < n; i++) {
    sqlite3_bind_int64(q, 1, acked[i]);
    if (sqlite3_step(q) != SQLITE_ROW) missing++;
    sqlite3_reset(q);
  }
  sqlite3_finalize(q);
  sqlite3_close(c);
  CHECK_MSG(missing == 0, "round %d: %lld of %lld acknowledged jobs lost",
            round, (long long)missing, (long long)n);
  printf("round %d: %lld acknowledged, all present after SIGKILL\n", round,
         (long long)n);
}

int main(void) {
  if (store_tmpdir(dir, sizeof dir)) return 1;
  snprintf(path, sizeof path, "%s/crash.db", dir);
  /* Several rounds on the same file: each also proves the database reopens
   * (WAL recovery) after a kill. Each child restarts ids at 1, hence the
   * table is emptied between rounds. */
  for (int round = 0; round < 3; round++) {
    run_round(round, 300 + 200 * round);
    sqlite3 *c;
    if (sqlite3_open(path, &c) == SQLITE_OK) {
      sqlite3_exec(c, "DELETE FROM moves_test", NULL, NULL, NULL);
      sqlite3_close(c);
    }
  }
  store_rmdir(dir);
  return test_summary();
}
