/* test_gamestore.c - the writer's gap check on appends (gamestore.c): seq N
 * of a game is stored only if seq N-1 is, whether N-1 failed alone or with
 * its whole batch, and whether the check answers from its cache of what it
 * wrote or from the database. A real uv loop and a temporary database. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "db.h"
#include "gamestore.h"
#include "store_util.h"
#include "test.h"

static uv_loop_t loop;
static char dir[512], path[600];
static db *d;
static int64_t game_id;

typedef struct job {
  gs_append a;
  gs_create c;
  int status, done;
} job;

static int ndone;
static void job_done(void *ctx, int status) {
  job *j = ctx;
  j->status = status;
  j->done = 1;
  ndone++;
}

static void run_until_done(int want) {
  uint64_t deadline = uv_hrtime() + 10000000000ull;
  while (ndone < want && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK_INT(ndone, want);
}

static void move_job(job *j, uint32_t seq) {
  memset(j, 0, sizeof *j);
  j->a.game_id = game_id;
  j->a.has_move = 1;
  j->a.move_seq = seq;
  j->a.ply = seq;
  j->a.side = (int)(seq % 2);
  snprintf(j->a.move, sizeof j->a.move, "m%u", seq);
  j->a.at_ms = 1000 + seq;
  j->a.event_side = -1;
  j->a.winner_side = -1;
}

/* Queued the way room.c queues it (a plain move: db_write_one). */
static void submit_move(job *j, uint32_t seq) {
  move_job(j, seq);
  CHECK_INT(gs_append_write(d, &j->a, job_done), 0);
}

/* One batch: everything submitted before the loop runs is handed to the
 * writer together. */
static void play(uint32_t seq, int want_status) {
  static job j;
  int before = ndone;
  submit_move(&j, seq);
  run_until_done(before + 1);
  CHECK_MSG(j.status == want_status, "seq %u: status %d, want %d", seq,
            j.status, want_status);
}

static int stored_seqs(int64_t gid, uint32_t *out, int cap) {
  sqlite3 *c;
  int n = 0;
  if (sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return -1;
  sqlite3_stmt *st;
  sqlite3_prepare_v2(c,
                     "SELECT seq FROM moves WHERE game_id = ?1 UNION ALL "
                     "SELECT seq FROM game_events WHERE game_id = ?1 ORDER BY 1",
                     -1, &st, NULL);
  sqlite3_bind_int64(st, 1, gid);
  while (sqlite3_step(st) == SQLITE_ROW && n < cap)
    out[n++] = (uint32_t)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(c);
  return n;
}

static void check_stored_1_to(uint32_t last) {
  uint32_t s[64];
  int n = stored_seqs(game_id, s, 64);
  CHECK_INT(n, (int)last);
  for (int i = 0; i < n && i < (int)last; i++)
    CHECK_MSG(s[i] == (uint32_t)i + 1, "stored seq %d is %u", i + 1, s[i]);
}

/* A job that returns 0 but makes its batch's COMMIT fail: a deferred
 * foreign key violation is only checked at COMMIT. */
static int job_fail_at_commit(sqlite3 *c, void *ctx) {
  (void)ctx;
  if (sqlite3_exec(c, "PRAGMA defer_foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK)
    return AGON_ESTORAGE;
  return sqlite3_exec(c,
                      "INSERT INTO moves (game_id, seq, ply, side, move, at_ms) "
                      "VALUES (987654321, 1, 1, 0, 'x', 0)",
                      NULL, NULL, NULL) == SQLITE_OK
             ? 0
             : AGON_ESTORAGE;
}

static void setup(void) {
  db_config cfg;
  db_config_init(&cfg);
  cfg.path = path;
  agon_err err = {0};
  CHECK_INT(db_open(&d, &loop, &cfg, &err), 0);
  if (!d) return;
  sqlite3 *c;
  CHECK_INT(sqlite3_open(path, &c), SQLITE_OK);
  CHECK_INT(sqlite3_exec(c,
                         "INSERT INTO players (id, name, name_folded, pwhash, created_at) "
                         "VALUES (1, 'a', 'a', 'x', 0), (2, 'b', 'b', 'x', 0)",
                         NULL, NULL, NULL),
            SQLITE_OK);
  sqlite3_close(c);
  static job g;
  memset(&g, 0, sizeof g);
  snprintf(g.c.game_type, sizeof g.c.game_type, "gomony");
  g.c.rules_version = 1;
  g.c.options_json = "{}";
  snprintf(g.c.seed, sizeof g.c.seed, "1");
  snprintf(g.c.tc_text, sizeof g.c.tc_text, "untimed");
  g.c.tc_initial_ms = -1;
  g.c.chooser_seat = -1;
  g.c.player[0] = 1;
  g.c.player[1] = 2;
  g.c.side[0] = 0;
  g.c.side[1] = 1;
  CHECK_INT(db_write(d, gs_create_job, &g.c, job_done), 0);
  run_until_done(ndone + 1);
  CHECK_INT(g.status, 0);
  game_id = g.c.game_id;
  CHECK(game_id > 0);
}

static void test_in_order(void) {
  for (uint32_t s = 1; s <= 3; s++) play(s, 0);
  /* A gap the writer never wrote: refused (cache miss, then the probe). */
  play(5, AGON_ESTORAGE);
  check_stored_1_to(3);
}

/* A failing append: the one queued behind it in the same batch and the one
 * after it are refused; once it is stored, play goes on. */
static void test_failed_append(void) {
  static job bad, next;
  memset(&bad, 0, sizeof bad);
  bad.a.game_id = game_id;
  bad.a.has_event = 1;
  bad.a.event_seq = 4;
  snprintf(bad.a.kind, sizeof bad.a.kind, "draw_offer");
  bad.a.event_side = -1;
  bad.a.winner_side = -1;
  bad.a.data = "{not json"; /* the CHECK (json_valid) refuses it */
  int before = ndone;
  CHECK_INT(gs_append_write(d, &bad.a, job_done), 0);
  submit_move(&next, 5);
  run_until_done(before + 2);
  CHECK_INT(bad.status, AGON_ESTORAGE);
  CHECK_INT(next.status, AGON_ESTORAGE);
  play(5, AGON_ESTORAGE);
  play(4, 0);
  play(5, 0);
  check_stored_1_to(5);
}

/* Seq 6 succeeds, then its batch cannot commit: 6 is undone, so 7 must be
 * refused although the writer wrote 6 a moment ago. */
static void test_broken_batch(void) {
  static job six, breaker;
  int before = ndone;
  submit_move(&six, 6);
  CHECK_INT(db_write(d, job_fail_at_commit, &breaker, job_done), 0);
  run_until_done(before + 2);
  CHECK_INT(six.status, AGON_ESTORAGE);
  CHECK_INT(breaker.status, AGON_ESTORAGE);
  check_stored_1_to(5);
  play(7, AGON_ESTORAGE);
  play(6, 0);
  play(7, 0);
  check_stored_1_to(7);
}

int main(void) {
  CHECK_INT(uv_loop_init(&loop), 0);
  if (store_tmpdir(dir, sizeof dir)) {
    fprintf(stderr, "cannot create a temporary directory\n");
    return 1;
  }
  snprintf(path, sizeof path, "%s/test.db", dir);
  setup();
  if (d) {
    test_in_order();
    test_failed_append();
    test_broken_batch();
    db_close(d);
  }
  store_run_drain(&loop);
  CHECK_INT(uv_loop_close(&loop), 0);
  store_rmdir(dir);
  return test_summary();
}
