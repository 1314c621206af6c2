/* test_gamestore.c - the writer's gap check on appends (gamestore.c): seq N
 * of a game is stored only if seq N-1 is and N is not, whether N-1 failed
 * alone or with its whole batch, and whether the check answers from its
 * cache of what it wrote or from the database; and the move index
 * (migrations/0005): a game's moves read back whole and once each whether
 * their move_idx entries are written yet or not, every row gets its entry
 * (runs, sweeps, the game's end, after the writer lost track), and the mark
 * never passes a row without one. A real uv loop and a temporary database. */
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

static int ndone, since_status, last_status;
static void job_done(void *ctx, int status) {
  job *j = ctx;
  j->status = status;
  j->done = 1;
  ndone++;
}

static void job_done_since(void *ctx, int status) {
  (void)ctx;
  since_status = status;
  ndone++;
}

/* For jobs whose ctx is not a job (a's is: first member). */
static void job_done_ctxless(void *ctx, int status) {
  (void)ctx;
  last_status = status;
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
  CHECK_INT(db_write(d, gs_create_job, &g.c, job_done_ctxless), 0);
  run_until_done(ndone + 1);
  CHECK_INT(last_status, 0);
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

/* Reads the game's events back the way a reconnect does (gs_since_job on
 * a reader) and checks they are exactly seqs 1..last, in order. */
static void check_read_1_to(uint32_t last) {
  gs_since q = {.game_id = game_id, .since = 0, .max = 1000};
  int before = ndone;
  CHECK_INT(db_read(d, gs_since_job, &q, job_done_since), 0);
  run_until_done(before + 1);
  CHECK_INT(since_status, 0);
  CHECK_INT((int)q.n, (int)last);
  for (uint32_t i = 0; i < q.n && i < last; i++) {
    CHECK_MSG(q.rows[i].seq == i + 1, "read seq %u is %u", i + 1, q.rows[i].seq);
    char want[16];
    snprintf(want, sizeof want, "m%u", i + 1);
    if (q.rows[i].is_move)
      CHECK_MSG(strcmp(q.rows[i].move, want) == 0, "seq %u: %s", i + 1,
                q.rows[i].move);
  }
  gs_rows_free(q.rows, q.n);
}

static int64_t query_int(const char *sql) {
  sqlite3 *c;
  int64_t v = -1;
  if (sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return -1;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK) {
    if (sqlite3_bind_parameter_count(st) > 0) sqlite3_bind_int64(st, 1, game_id);
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(c);
  return v;
}

/* Moves of the game without their move_idx entry. */
static int64_t unindexed(void) {
  return query_int("SELECT count(*) FROM moves m WHERE m.game_id = ?1 AND NOT "
                   "EXISTS (SELECT 1 FROM move_idx i WHERE i.game_id = m.game_id "
                   "AND i.seq = m.seq AND i.id = m.id)");
}

/* The mark's invariant, over all games: no row at or below it lacks its
 * entry. */
static int64_t below_mark_unindexed(void) {
  return query_int("SELECT count(*) FROM moves m WHERE m.id <= (SELECT "
                   "w FROM move_idx_mark) AND NOT EXISTS (SELECT 1 FROM move_idx "
                   "i WHERE i.game_id = m.game_id AND i.seq = m.seq AND i.id = m.id)");
}

static void sweep(void) {
  int before = ndone;
  CHECK_INT(db_write(d, gs_index_job, NULL, job_done_ctxless), 0);
  run_until_done(before + 1);
  CHECK_INT(last_status, 0);
  CHECK_INT(below_mark_unindexed(), 0);
  CHECK_INT(query_int("SELECT (SELECT w FROM move_idx_mark) - "
                      "(SELECT max(id) FROM moves)"), 0);
}

/* Up to here the writer never swept: its table was never complete, so every
 * probe also scanned the rows above the mark. */
static void test_index_incomplete(void) {
  check_read_1_to(7);
  CHECK(unindexed() > 0); /* nothing swept yet: entries only from full runs */
  CHECK_INT(below_mark_unindexed(), 0);
  play(7, AGON_ESTORAGE); /* stored already: refused by the scan */
  play(3, AGON_ESTORAGE);
  sweep();
  CHECK_INT(unindexed(), 0);
  check_read_1_to(7);
}

/* After a sweep the table is complete: probes answer from move_idx and the
 * pending runs. Runs of GS_IDX_PENDING_MAX are written as they fill. */
static void test_index_runs(void) {
  uint32_t last = 7 + 2 * GS_IDX_PENDING_MAX + 3;
  for (uint32_t s = 8; s <= last; s++) play(s, 0);
  check_read_1_to(last);
  int64_t pend = unindexed();
  CHECK_MSG(pend >= 1 && pend <= GS_IDX_PENDING_MAX, "%lld pending",
            (long long)pend);
  CHECK_INT(below_mark_unindexed(), 0);
  play(last, AGON_ESTORAGE);     /* a pending row: refused from the run */
  play(last - 20, AGON_ESTORAGE); /* an indexed one */
  play(last + 2, AGON_ESTORAGE);  /* a gap */
  sweep();
  CHECK_INT(unindexed(), 0);
  check_read_1_to(last);
  play(last + 1, 0);
  check_read_1_to(last + 1);
}

/* A broken batch empties the writer's table: pending entries are lost
 * track of; the sweep indexes the rows above the mark from the table. */
static void test_index_lost(void) {
  uint32_t last = (uint32_t)query_int("SELECT max(seq) FROM moves WHERE game_id = ?1");
  play(last + 1, 0);
  play(last + 2, 0);
  static job breaker;
  int before = ndone;
  CHECK_INT(db_write(d, job_fail_at_commit, &breaker, job_done), 0);
  run_until_done(before + 1);
  CHECK(unindexed() >= 2);
  play(last + 2, AGON_ESTORAGE); /* stored, unindexed, table lost: the scan */
  play(last + 3, 0);
  check_read_1_to(last + 3);
  sweep();
  CHECK_INT(unindexed(), 0);
  check_read_1_to(last + 3);
}

/* The ending write indexes the game's moves itself (history counts them in
 * move_idx), its last move included. */
static void test_index_end(void) {
  uint32_t last = (uint32_t)query_int("SELECT max(seq) FROM moves WHERE game_id = ?1");
  for (uint32_t s = last + 1; s <= last + 5; s++) play(s, 0);
  CHECK(unindexed() > 0);
  static job end;
  move_job(&end, last + 6);
  end.a.end = 1;
  end.a.result = GAME_WIN;
  end.a.winner_side = 0;
  snprintf(end.a.reason, sizeof end.a.reason, "rules");
  int before = ndone;
  CHECK_INT(gs_append_write(d, &end.a, job_done), 0);
  run_until_done(before + 1);
  CHECK_INT(end.status, 0);
  CHECK_INT(unindexed(), 0);
  CHECK_INT(query_int("SELECT count(*) FROM move_idx WHERE game_id = ?1"),
            (int64_t)last + 6); /* every seq of this game is a move */
  check_read_1_to(last + 6);
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
    test_index_incomplete();
    test_index_runs();
    test_index_lost();
    test_index_end();
    db_close(d);
  }
  store_run_drain(&loop);
  CHECK_INT(uv_loop_close(&loop), 0);
  store_rmdir(dir);
  return test_summary();
}
