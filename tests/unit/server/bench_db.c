/* bench_db.c - write throughput of the group-committing writer, shaped like
 * the next issue's load: G games each keeping one move in flight (a move is
 * acknowledged from its commit callback, then the game's next move is sent).
 *
 *   bench_db [games=1000] [moves=200000] [sync=2] [dir=$TMPDIR|/tmp]
 *
 * Prints jobs/s, commits, mean batch and commit latency. Not a test: timing
 * never goes into asserts. Run with `meson test -C build --benchmark` or
 * directly. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "db.h"
#include "store_util.h"

typedef struct game {
  int64_t id;
  int seq;
} game;

static db *d;
static game *games;
static long target, submitted, completed, failed;

static const char SQL_MOVE[] =
    "INSERT INTO moves(game_id, seq, ply, side, move, clock0_ms, clock1_ms,"
    " at_ms) VALUES (?1, ?2, ?2, ?3, 'a1-b2', 300000, 300000, ?4)";


static int job_move(sqlite3 *c, void *ctx) {
  game *g = ctx;
  sqlite3_stmt *st = db_stmt(c, SQL_MOVE);
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_int64(st, 1, g->id);
  sqlite3_bind_int(st, 2, g->seq);
  sqlite3_bind_int(st, 3, g->seq & 1);
  sqlite3_bind_int64(st, 4, db_now_ms());
  return sqlite3_step(st) == SQLITE_DONE ? 0 : AGON_ESTORAGE;
}

static void move_done(void *ctx, int status);

static void submit(game *g) {
  if (submitted >= target) return;
  g->seq++;
  if (db_write(d, job_move, g, move_done) == 0) submitted++;
  else failed++;
}

static void move_done(void *ctx, int status) {
  if (status) failed++;
  completed++;
  submit(ctx);
}

static int job_games(sqlite3 *c, void *ctx) {
  long n = *(long *)ctx;
  sqlite3_stmt *st = db_stmt(c,
      "INSERT INTO games(game_type, rules_version, status, created_at)"
      " VALUES ('bench', 1, 'active', 0)");
  for (long i = 0; i < n; i++) {
    if (sqlite3_step(st) != SQLITE_DONE) return AGON_ESTORAGE;
    sqlite3_reset(st);
    games[i].id = sqlite3_last_insert_rowid(c);
  }
  return 0;
}

/* BENCH_PRAGMA="PRAGMA cache_size=-65536" etc.: try a setting on the writer
 * connection (inside the writer's transaction, so only per-connection
 * pragmas take effect). */
static int job_pragma(sqlite3 *c, void *ctx) {
  return sqlite3_exec(c, ctx, NULL, NULL, NULL) == SQLITE_OK ? 0 : AGON_ESTORAGE;
}

static int ready;
static void games_done(void *ctx, int status) {
  (void)ctx;
  ready = status == 0 ? 1 : -1;
}

int main(int argc, char **argv) {
  long ngames = argc > 1 ? atol(argv[1]) : 1000;
  target = argc > 2 ? atol(argv[2]) : 200000;
  int sync = argc > 3 ? atoi(argv[3]) : DB_SYNC_FULL;
  char dir[512];
  if (argc > 4) setenv("TMPDIR", argv[4], 1);
  if (store_tmpdir(dir, sizeof dir)) return 1;
  char path[600];
  snprintf(path, sizeof path, "%s/bench.db", dir);

  uv_loop_t loop;
  uv_loop_init(&loop);
  db_config cfg;
  db_config_init(&cfg);
  cfg.path = path;
  cfg.synchronous = sync;
  agon_err err;
  if (db_open(&d, &loop, &cfg, &err)) {
    fprintf(stderr, "db_open: %s\n", err.msg);
    return 1;
  }
  if (getenv("BENCH_PRAGMA"))
    db_write(d, job_pragma, getenv("BENCH_PRAGMA"), NULL);
  games = calloc((size_t)ngames, sizeof *games);
  db_write(d, job_games, &ngames, games_done);
  while (!ready) uv_run(&loop, UV_RUN_ONCE);

  uint64_t t0 = uv_hrtime();
  for (long i = 0; i < ngames; i++) submit(&games[i]);
  while (completed < submitted) uv_run(&loop, UV_RUN_ONCE);
  double s = (double)(uv_hrtime() - t0) / 1e9;

  db_stats st;
  db_stats_get(d, &st);
  printf("games=%ld moves=%ld sync=%d: %.0f durable jobs/s in %.2f s; "
         "%llu commits, mean batch %.0f, max batch %u, commit avg %llu us "
         "max %llu us, failed %ld\n",
         ngames, completed, sync, (double)completed / s, s,
         (unsigned long long)st.commits,
         st.commits ? (double)st.write_jobs / (double)st.commits : 0.0,
         st.max_batch, (unsigned long long)st.avg_commit_us,
         (unsigned long long)st.max_commit_us, failed);
  db_close(d);
  store_run_drain(&loop);
  uv_loop_close(&loop);
  free(games);
  store_rmdir(dir);
  return failed ? 1 : 0;
}
