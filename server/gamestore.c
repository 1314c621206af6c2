/* gamestore.c - see gamestore.h. Runs on db threads only. */
#include "gamestore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "db.h"
#include "glicko2.h"
#include "limits.h"
#include "log.h"
#include "util.h"

static void copy_text(char *dst, size_t cap, const unsigned char *src) {
  snprintf(dst, cap, "%s", src ? (const char *)src : "");
}

static int step_done(sqlite3 *conn, sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  if (rc != SQLITE_DONE) {
    log_error("gamestore: %s", sqlite3_errmsg(conn));
    return AGON_ESTORAGE;
  }
  return 0;
}

static int rating_get(sqlite3 *conn, int64_t player, const char *game_type,
                      glicko2_rating *out);

/* ---- create ------------------------------------------------------------ */

int gs_create_job(sqlite3 *conn, void *ctx) {
  gs_create *c = ctx;
  sqlite3_stmt *st = db_stmt(
      conn,
      "INSERT INTO games (game_type, rules_version, options, seed, "
      "seed_commitment, rated, tc_initial_ms, tc_increment_ms, status, "
      "created_at, started_at, time_control, chooser_seat, "
      "spectator_delay_plies, spectator_delay_ms) VALUES "
      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'active', ?9, ?9, ?10, ?11, ?12, ?13)");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_bind_text(st, 1, c->game_type, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 2, (int)c->rules_version);
  sqlite3_bind_text(st, 3, c->options_json, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 4, c->seed, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 5, c->commitment, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 6, c->rated ? 1 : 0);
  if (c->tc_initial_ms >= 0) sqlite3_bind_int64(st, 7, c->tc_initial_ms);
  sqlite3_bind_int64(st, 8, c->tc_increment_ms);
  sqlite3_bind_int64(st, 9, c->now_ms);
  sqlite3_bind_text(st, 10, c->tc_text, -1, SQLITE_STATIC);
  if (c->chooser_seat >= 0) sqlite3_bind_int(st, 11, c->chooser_seat);
  sqlite3_bind_int64(st, 12, (sqlite3_int64)c->delay_plies);
  sqlite3_bind_int64(st, 13, c->delay_ms);
  int rc = step_done(conn, st);
  if (rc) return rc;
  c->game_id = sqlite3_last_insert_rowid(conn);
  st = db_stmt(conn,
               "INSERT INTO game_players (game_id, seat, player_id, side) "
               "VALUES (?1, ?2, ?3, ?4)");
  if (st == NULL) return AGON_ESTORAGE;
  for (int seat = 0; seat < 2; seat++) {
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sqlite3_bind_int64(st, 1, c->game_id);
    sqlite3_bind_int(st, 2, seat);
    sqlite3_bind_int64(st, 3, c->player[seat]);
    if (c->side[seat] >= 0) sqlite3_bind_int(st, 4, c->side[seat]);
    if ((rc = step_done(conn, st)) != 0) return rc;
  }
  for (int seat = 0; seat < 2; seat++) {
    glicko2_rating r;
    if ((rc = rating_get(conn, c->player[seat], c->game_type, &r)) != 0) return rc;
    c->rating[seat] = r.rating;
  }
  return 0;
}

/* ---- append ------------------------------------------------------------ */

/* The writer's table of live games (writer thread only), one slot a game:
 *
 * - seq: the last seq its appends wrote, so the gap check costs a hash
 *   lookup instead of index probes. An entry (G, s) means: seq s of G was
 *   written by a job that succeeded, in a committed batch or in the current
 *   one. It is only ever set by a successful append, dropped when the game
 *   ends, and the whole table is dropped when a batch fails to commit (its
 *   jobs are undone). A failed append leaves its game's entry at the
 *   previous seq, so the next append of that game misses and is probed.
 * - pend: its moves rows not in move_idx yet (migrations/0005), written as
 *   one run when GS_IDX_PENDING_MAX are waiting, at the game's end, or by
 *   the sweep (gs_index_job).
 *
 * complete: every moves row above the mark is in some slot's pend. Only the
 * sweep sets it, after indexing everything; anything that loses a pending
 * entry unwritten (the table dropped or started over, a failed job that had
 * written some) clears it, and then the next sweep indexes every row above
 * the mark from the table itself. While it is clear, reads and probes scan
 * those rows (never more than about a sweep interval's worth). The table is
 * a cache, never the authority: a miss probes the database. */
typedef struct idx_pend {
  uint32_t seq;
  uint32_t id_off; /* moves.id - slot's pend_id0 */
} idx_pend;

typedef struct seq_slot {
  int64_t game_id; /* 0: free (game ids are rowids, >= 1) */
  int64_t pend_id0;
  uint32_t seq;
  uint32_t npend;
  idx_pend pend[GS_IDX_PENDING_MAX];
} seq_slot;

/* One block in the writer's db_writer_data() (db_close frees it), so each
 * database's writer has its own. */
typedef struct seq_cache {
  uint32_t cap, n;       /* cap: power of two */
  int complete;
  uint64_t broken_seen;  /* db_writer_broken_batches() when last checked */
  seq_slot slot[];
} seq_cache;

static seq_cache *cache_alloc(uint32_t cap) {
  seq_cache *c = calloc(1, sizeof *c + cap * sizeof c->slot[0]);
  if (c) c->cap = cap;
  return c;
}

/* Empties the table: its pending entries are lost track of. */
static void cache_reset(seq_cache *c) {
  memset(c->slot, 0, c->cap * sizeof c->slot[0]);
  c->n = 0;
  c->complete = 0;
}

/* The writer's table, emptied first if a batch broke since it last looked;
 * created (incomplete) when there is none and create is set. */
static seq_cache *cache_get(int create) {
  void **p = db_writer_data();
  if (p == NULL) return NULL;
  seq_cache *c = *p;
  uint64_t broken = db_writer_broken_batches();
  if (c == NULL && create) {
    *p = c = cache_alloc(1024);
    if (c) c->broken_seen = broken;
  }
  if (c && broken != c->broken_seen) {
    c->broken_seen = broken;
    cache_reset(c);
  }
  return c;
}

static uint32_t seq_hash(int64_t id, uint32_t cap) {
  uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15u;
  return (uint32_t)(h >> 32) & (cap - 1);
}

static seq_slot *seqs_find(seq_cache *c, int64_t id) {
  if (c == NULL) return NULL;
  for (uint32_t i = seq_hash(id, c->cap);; i = (i + 1) & (c->cap - 1)) {
    if (c->slot[i].game_id == id) return &c->slot[i];
    if (c->slot[i].game_id == 0) return NULL;
  }
}

static seq_slot *slot_place(seq_cache *c, const seq_slot *from) {
  uint32_t i = seq_hash(from->game_id, c->cap);
  while (c->slot[i].game_id != 0) i = (i + 1) & (c->cap - 1);
  c->slot[i] = *from;
  c->n++;
  return &c->slot[i];
}

/* The game's slot, made if need be (NULL only without memory); *cp is the
 * table, which a new slot may grow (moved: *cp is updated). */
static seq_slot *seqs_slot(seq_cache **cp, int64_t id) {
  void **p = db_writer_data();
  seq_cache *c = *cp;
  if (c == NULL) return NULL;
  seq_slot *s = seqs_find(c, id);
  if (s) return s;
  if ((c->n + 1) * 4 > c->cap * 3) {
    if (c->cap < GS_SEQ_CACHE_MAX) { /* grow: the slots move along */
      seq_cache *g = cache_alloc(c->cap * 2);
      if (g == NULL) return NULL;
      g->complete = c->complete;
      g->broken_seen = c->broken_seen;
      for (uint32_t i = 0; i < c->cap; i++)
        if (c->slot[i].game_id) slot_place(g, &c->slot[i]);
      free(c);
      *p = *cp = c = g;
    } else { /* start over: misses are only slower */
      cache_reset(c);
    }
  }
  seq_slot fresh = {.game_id = id};
  return slot_place(c, &fresh);
}

/* Backward-shift deletion keeps the probe chains whole. */
static void seqs_del(seq_cache *c, int64_t id) {
  seq_slot *s = seqs_find(c, id);
  if (s == NULL) return;
  uint32_t i = (uint32_t)(s - c->slot), mask = c->cap - 1;
  for (uint32_t j = (i + 1) & mask; c->slot[j].game_id != 0; j = (j + 1) & mask) {
    uint32_t home = seq_hash(c->slot[j].game_id, c->cap);
    /* Move j into the hole at i unless its home lies in (i, j]. */
    if (((j - home) & mask) >= ((j - i) & mask)) {
      c->slot[i] = c->slot[j];
      i = j;
    }
  }
  c->slot[i].game_id = 0;
  c->n--;
}

/* "INSERT INTO move_idx ... VALUES (?, ?, ?), ..." with 1 to
 * GS_IDX_PENDING_MAX rows, built once for all writers (db_stmt caches a
 * statement per text address). */
static char idx_sql[GS_IDX_PENDING_MAX][64 + GS_IDX_PENDING_MAX * 12];
static uv_once_t idx_sql_once = UV_ONCE_INIT;

static void idx_sql_init(void) {
  for (uint32_t n = 1; n <= GS_IDX_PENDING_MAX; n++) {
    char *b = idx_sql[n - 1];
    size_t k = (size_t)snprintf(b, sizeof idx_sql[0],
                                "INSERT INTO move_idx (game_id, seq, id) VALUES ");
    for (uint32_t i = 0; i < n; i++)
      k += (size_t)snprintf(b + k, sizeof idx_sql[0] - k, "%s(?, ?, ?)",
                            i ? ", " : "");
  }
}

/* Writes the slot's pending move_idx entries, one statement for the run (a
 * run is one game's: one leaf page). On failure the slot's pending entries
 * are given up to the next sweep. */
static int pend_flush(sqlite3 *conn, seq_cache *c, seq_slot *s) {
  if (s->npend == 0) return 0;
  uv_once(&idx_sql_once, idx_sql_init);
  sqlite3_stmt *st = db_stmt(conn, idx_sql[s->npend - 1]);
  int rc = AGON_ESTORAGE;
  if (st) {
    sqlite3_reset(st);
    for (uint32_t i = 0; i < s->npend; i++) {
      sqlite3_bind_int64(st, (int)(3 * i + 1), s->game_id);
      sqlite3_bind_int64(st, (int)(3 * i + 2), s->pend[i].seq);
      sqlite3_bind_int64(st, (int)(3 * i + 3), s->pend_id0 + s->pend[i].id_off);
    }
    rc = step_done(conn, st);
  }
  if (rc != 0) c->complete = 0;
  s->npend = 0;
  return rc;
}

/* Records a moves row of the slot's game as pending. 0, or -1 if the caller
 * must flush first (full, or the id too far from the run's first). */
static int pend_add(seq_slot *s, uint32_t seq, int64_t id) {
  if (s->npend == 0) s->pend_id0 = id;
  if (s->npend == GS_IDX_PENDING_MAX || id < s->pend_id0 ||
      id - s->pend_id0 > (int64_t)UINT32_MAX)
    return -1;
  s->pend[s->npend].seq = seq;
  s->pend[s->npend].id_off = (uint32_t)(id - s->pend_id0);
  s->npend++;
  return 0;
}

/* Adds a moves row to the slot's run, writing the run first when it cannot
 * take it; the write's status (a failure leaves it to the sweep). */
static int pend_push(sqlite3 *conn, seq_cache *c, seq_slot *s, uint32_t seq,
                     int64_t id) {
  if (pend_add(s, seq, id) == 0) return 0;
  int rc = pend_flush(conn, c, s);
  pend_add(s, seq, id); /* an empty run takes it */
  return rc;
}

/* Indexes the game's moves rows above the mark that have no entry (all
 * games' when game_id is 0): what a sweep or an ending game does when the
 * table lost track of them. */
static int index_unmarked(sqlite3 *conn, int64_t game_id) {
  sqlite3_stmt *st = db_stmt(
      conn,
      "INSERT OR IGNORE INTO move_idx (game_id, seq, id) "
      "SELECT game_id, seq, id FROM moves "
      "WHERE id > (SELECT w FROM move_idx_mark) AND (?1 = 0 OR game_id = ?1)");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, game_id);
  return step_done(conn, st);
}

/* Is seq stored for the game? move_idx, game_events, then the moves above
 * the mark: from the slot's pending entries when the table is complete, by
 * scanning them when it is not. 1 yes, 0 no, -1 error. */
static int seq_stored(sqlite3 *conn, seq_cache *c, int64_t game_id,
                      uint32_t seq) {
  int scan = c == NULL || !c->complete;
  seq_slot *s = seqs_find(c, game_id);
  if (!scan && s)
    for (uint32_t i = 0; i < s->npend; i++)
      if (s->pend[i].seq == seq) return 1;
  static const char *const sql[3] = {
      "SELECT 1 FROM move_idx WHERE game_id = ?1 AND seq = ?2",
      "SELECT 1 FROM game_events WHERE game_id = ?1 AND seq = ?2",
      ("SELECT 1 FROM moves WHERE id > (SELECT w FROM move_idx_mark) "
       "AND game_id = ?1 AND seq = ?2")};
  for (int i = 0; i < (scan ? 3 : 2); i++) {
    sqlite3_stmt *st = db_stmt(conn, sql[i]);
    if (st == NULL) return -1;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, game_id);
    sqlite3_bind_int64(st, 2, seq);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) return 1;
    if (rc != SQLITE_DONE) return -1;
  }
  return 0;
}

/* May the game's next write be seq first: first - 1 stored (or first is 1)
 * and first not stored yet. The slot answers when it holds first - 1. */
static int seq_next_ok(sqlite3 *conn, seq_cache *c, int64_t game_id,
                       uint32_t first) {
  seq_slot *s = seqs_find(c, game_id);
  if (s && s->seq == first - 1 && first > 1) return 1;
  if (first > 1 && seq_stored(conn, c, game_id, first - 1) != 1) return 0;
  return seq_stored(conn, c, game_id, first) == 0;
}

int gs_index_job(sqlite3 *conn, void *ctx) {
  (void)ctx;
  seq_cache *c = cache_get(1);
  int from_table = c == NULL || !c->complete, rc = 0;
  if (from_table)
    rc = index_unmarked(conn, 0);
  else
    for (uint32_t i = 0; rc == 0 && i < c->cap; i++)
      if (c->slot[i].game_id) rc = pend_flush(conn, c, &c->slot[i]);
  if (rc == 0) {
    sqlite3_stmt *st = db_stmt(
        conn,
        "UPDATE move_idx_mark SET w = coalesce((SELECT max(id) FROM moves), 0)");
    rc = st ? step_done(conn, st) : AGON_ESTORAGE;
  }
  /* Indexed from the table, the runs are written; a failed job is rolled
   * back whole, and what it wrote is not there: the next one starts over. */
  if (c) c->complete = rc == 0;
  for (uint32_t i = 0; c && (from_table || rc != 0) && i < c->cap; i++)
    c->slot[i].npend = 0;
  return rc;
}

/* ---- ratings ------------------------------------------------------------ */

/* The player's rating for game_type, the defaults when there is none. */
static int rating_get(sqlite3 *conn, int64_t player, const char *game_type,
                      glicko2_rating *out) {
  sqlite3_stmt *st = db_stmt(
      conn,
      "SELECT rating, rd, volatility FROM ratings "
      "WHERE player_id = ?1 AND game_type = ?2");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  sqlite3_bind_int64(st, 1, player);
  sqlite3_bind_text(st, 2, game_type, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    out->rating = sqlite3_column_double(st, 0);
    out->rd = sqlite3_column_double(st, 1);
    out->vol = sqlite3_column_double(st, 2);
    return 0;
  }
  if (rc != SQLITE_DONE) {
    log_error("gamestore: %s", sqlite3_errmsg(conn));
    return AGON_ESTORAGE;
  }
  out->rating = GLICKO2_DEFAULT_RATING;
  out->rd = GLICKO2_DEFAULT_RD;
  out->vol = GLICKO2_DEFAULT_VOL;
  return 0;
}

static int rating_put(sqlite3 *conn, const gs_append *a, int seat,
                      const glicko2_rating *r) {
  sqlite3_stmt *st = db_stmt(
      conn,
      "INSERT INTO ratings (player_id, game_type, rating, rd, volatility, "
      "games, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6) "
      "ON CONFLICT (player_id, game_type) DO UPDATE SET "
      "rating = excluded.rating, rd = excluded.rd, "
      "volatility = excluded.volatility, games = games + 1, "
      "updated_at = excluded.updated_at");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  sqlite3_bind_int64(st, 1, a->player[seat]);
  sqlite3_bind_text(st, 2, a->game_type, -1, SQLITE_STATIC);
  sqlite3_bind_double(st, 3, r->rating);
  sqlite3_bind_double(st, 4, r->rd);
  sqlite3_bind_double(st, 5, r->vol);
  sqlite3_bind_int64(st, 6, a->at_ms);
  int rc = step_done(conn, st);
  if (rc) return rc;
  st = db_stmt(conn,
               "INSERT INTO rating_history (player_id, game_type, game_id, "
               "rating, rd, volatility, at_ms) "
               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  sqlite3_bind_int64(st, 1, a->player[seat]);
  sqlite3_bind_text(st, 2, a->game_type, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, a->game_id);
  sqlite3_bind_double(st, 4, r->rating);
  sqlite3_bind_double(st, 5, r->rd);
  sqlite3_bind_double(st, 6, r->vol);
  sqlite3_bind_int64(st, 7, a->at_ms);
  return step_done(conn, st);
}

/* Appends ,"ratings":{...} inside the game_end data object. %.17g keeps
 * the stored values exact (a client can recompute them). */
static int rating_data(gs_append *a, const glicko2_rating before[2],
                       const glicko2_rating after[2]) {
  char buf[640];
  int n = snprintf(
      buf, sizeof buf,
      "\"ratings\":{\"before\":[{\"rating\":%.17g,\"rd\":%.17g,\"volatility\":%.17g},"
      "{\"rating\":%.17g,\"rd\":%.17g,\"volatility\":%.17g}],"
      "\"after\":[{\"rating\":%.17g,\"rd\":%.17g,\"volatility\":%.17g},"
      "{\"rating\":%.17g,\"rd\":%.17g,\"volatility\":%.17g}]}}",
      before[0].rating, before[0].rd, before[0].vol, before[1].rating,
      before[1].rd, before[1].vol, after[0].rating, after[0].rd, after[0].vol,
      after[1].rating, after[1].rd, after[1].vol);
  if (n < 0 || (size_t)n >= sizeof buf) return AGON_ESTORAGE;
  size_t len = a->data ? strlen(a->data) : 0;
  if (len < 2 || a->data[len - 1] != '}') return AGON_ESTORAGE;
  int empty = len == 2;  /* "{}" */
  char *d = realloc(a->data, len + (size_t)n + 2);
  if (d == NULL) return AGON_ESTORAGE;
  d[len - 1] = '\0';
  if (!empty) strcat(d, ",");
  strcat(d, buf);
  a->data = d;
  return 0;
}

/* Both players' Glicko-2 update for one rated result (a->score0). */
static int rate_game(sqlite3 *conn, gs_append *a) {
  glicko2_rating before[2], after[2];
  int rc;
  for (int seat = 0; seat < 2; seat++)
    if ((rc = rating_get(conn, a->player[seat], a->game_type, &before[seat])) != 0)
      return rc;
  for (int seat = 0; seat < 2; seat++) {
    glicko2_game g = {before[1 - seat].rating, before[1 - seat].rd,
                      seat == 0 ? a->score0 : 1.0 - a->score0};
    glicko2_update(&before[seat], &g, 1, GLICKO2_DEFAULT_TAU, &after[seat]);
  }
  for (int seat = 0; seat < 2; seat++)
    if ((rc = rating_put(conn, a, seat, &after[seat])) != 0) return rc;
  if ((rc = rating_data(a, before, after)) != 0) return rc;
  a->rated_out = 1;
  return 0;
}

static void rating_row(sqlite3_stmt *st, gs_rating_row *r) {
  copy_text(r->name, sizeof r->name, sqlite3_column_text(st, 0));
  r->rating = sqlite3_column_double(st, 1);
  r->rd = sqlite3_column_double(st, 2);
  r->vol = sqlite3_column_double(st, 3);
  r->games = sqlite3_column_int64(st, 4);
  r->game_id = sqlite3_column_int64(st, 5);
  r->at_ms = sqlite3_column_int64(st, 6);
}

int gs_board_job(sqlite3 *conn, void *ctx) {
  gs_board *b = ctx;
  /* Both read ratings_board (game_type, rating, + the key player_id)
   * backwards; the row value comparison is a range on that index. */
  sqlite3_stmt *st = b->has_before
      ? db_stmt(conn,
                "SELECT p.name, r.rating, r.rd, r.volatility, r.games, 0, "
                "r.updated_at, r.player_id FROM ratings r "
                "JOIN players p ON p.id = r.player_id WHERE r.game_type = ?1 "
                "AND (r.rating, r.player_id) < (?2, ?3) "
                "ORDER BY r.rating DESC, r.player_id DESC LIMIT ?4")
      : db_stmt(conn,
                "SELECT p.name, r.rating, r.rd, r.volatility, r.games, 0, "
                "r.updated_at, r.player_id FROM ratings r "
                "JOIN players p ON p.id = r.player_id WHERE r.game_type = ?1 "
                "ORDER BY r.rating DESC, r.player_id DESC LIMIT ?4");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_bind_text(st, 1, b->game_type, -1, SQLITE_STATIC);
  if (b->has_before) {
    sqlite3_bind_double(st, 2, b->before_rating);
    sqlite3_bind_int64(st, 3, b->before_id);
  }
  uint32_t lim = b->limit > GS_BOARD_MAX ? GS_BOARD_MAX : b->limit;
  sqlite3_bind_int64(st, 4, lim);
  int rc;
  b->n = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW && b->n < lim) {
    rating_row(st, &b->rows[b->n]);
    b->ids[b->n] = sqlite3_column_int64(st, 7);
    b->n++;
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    log_error("gamestore: %s", sqlite3_errmsg(conn));
    return AGON_ESTORAGE;
  }
  return 0;
}

int gs_rhist_job(sqlite3 *conn, void *ctx) {
  gs_rhist *h = ctx;
  sqlite3_stmt *st = db_stmt(
      conn, "SELECT id, name FROM players WHERE name_folded = lower(?1)");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_bind_text(st, 1, h->name, -1, SQLITE_STATIC);
  if (sqlite3_step(st) != SQLITE_ROW) return AGON_ENOTFOUND;
  int64_t pid = sqlite3_column_int64(st, 0);
  copy_text(h->name, sizeof h->name, sqlite3_column_text(st, 1));
  h->found = 1;
  /* rating_history_player (player_id, game_type, id) backwards: the newest
   * GS_HISTORY_MAX, reversed below to oldest first. */
  st = db_stmt(conn,
               "SELECT '', rating, rd, volatility, 0, game_id, at_ms "
               "FROM rating_history WHERE player_id = ?1 AND game_type = ?2 "
               "ORDER BY id DESC LIMIT ?3");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_bind_int64(st, 1, pid);
  sqlite3_bind_text(st, 2, h->game_type, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 3, GS_HISTORY_MAX);
  int rc;
  h->n = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW && h->n < GS_HISTORY_MAX)
    rating_row(st, &h->rows[h->n++]);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    log_error("gamestore: %s", sqlite3_errmsg(conn));
    return AGON_ESTORAGE;
  }
  for (uint32_t i = 0; i < h->n / 2; i++) {
    gs_rating_row t = h->rows[i];
    h->rows[i] = h->rows[h->n - 1 - i];
    h->rows[h->n - 1 - i] = t;
  }
  return 0;
}

typedef struct append_out {
  int64_t move_id; /* the moves row written */
  int flushed;     /* pending entries written by this job */
} append_out;

static int append_rows(sqlite3 *conn, gs_append *a, seq_cache *c,
                       append_out *o);

/* A lone move row: one INSERT (append_rows), plus the game's pending
 * move_idx entries when its run is full, each INSERT right on its own. */
static int append_is_plain(const gs_append *a) {
  return a->has_move && !a->set_sides && !a->has_event && !a->end;
}

int gs_append_write(db *d, gs_append *a, db_done_cb cb) {
  /* A plain move needs no savepoint: SQLite undoes a failed statement. */
  return (append_is_plain(a) ? db_write_one : db_write)(d, gs_append_job, a, cb);
}

int gs_append_job(sqlite3 *conn, void *ctx) {
  gs_append *a = ctx;
  seq_cache *c = cache_get(1);
  append_out o = {0, 0};
  int rc = append_rows(conn, a, c, &o);
  if (rc != 0) {
    /* With a savepoint the job is undone whole, entries it wrote included. */
    if (o.flushed && !append_is_plain(a) && c) c->complete = 0;
    return rc;
  }
  if (a->end) {
    seqs_del(c, a->game_id);
    return 0;
  }
  seq_slot *s = seqs_slot(&c, a->game_id);
  if (s == NULL) {
    if (c && a->has_move) c->complete = 0; /* its row is above the mark */
    return 0;
  }
  s->seq = a->has_event ? a->event_seq : a->move_seq;
  /* A failed run write does not undo the move: the sweep retries. */
  if (a->has_move) pend_push(conn, c, s, a->move_seq, o.move_id);
  return 0;
}

static int append_rows(sqlite3 *conn, gs_append *a, seq_cache *c,
                       append_out *o) {
  uint32_t first = a->has_move ? a->move_seq : a->event_seq;
  if (!seq_next_ok(conn, c, a->game_id, first)) {
    log_error("gamestore: game %lld seq %u refused: seq %u is not stored or "
              "seq %u is", (long long)a->game_id, first, first - 1, first);
    return AGON_ESTORAGE;
  }
  seq_slot *slot = seqs_find(c, a->game_id);
  if (a->has_move && slot && slot->npend == GS_IDX_PENDING_MAX) {
    o->flushed = 1;
    pend_flush(conn, c, slot); /* a failure is the sweep's to mend */
  }
  int rc;
  if (a->has_move) {
    sqlite3_stmt *st = db_stmt(
        conn,
        "INSERT INTO moves (game_id, seq, ply, side, move, clock0_ms, "
        "clock1_ms, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    if (st == NULL) return AGON_ESTORAGE;
    sqlite3_bind_int64(st, 1, a->game_id);
    sqlite3_bind_int64(st, 2, a->move_seq);
    sqlite3_bind_int64(st, 3, a->ply);
    sqlite3_bind_int(st, 4, a->side);
    sqlite3_bind_text(st, 5, a->move, -1, SQLITE_STATIC);
    if (a->timed) {
      sqlite3_bind_int64(st, 6, a->clock_ms[0]);
      sqlite3_bind_int64(st, 7, a->clock_ms[1]);
    }
    sqlite3_bind_int64(st, 8, a->at_ms);
    if ((rc = step_done(conn, st)) != 0) return rc;
    o->move_id = sqlite3_last_insert_rowid(conn);
  }
  if (a->set_sides) {
    sqlite3_stmt *st = db_stmt(
        conn, "UPDATE game_players SET side = ?3 WHERE game_id = ?1 AND seat = ?2");
    if (st == NULL) return AGON_ESTORAGE;
    for (int seat = 0; seat < 2; seat++) {
      sqlite3_reset(st);
      sqlite3_bind_int64(st, 1, a->game_id);
      sqlite3_bind_int(st, 2, seat);
      sqlite3_bind_int(st, 3, a->seat_side[seat]);
      if ((rc = step_done(conn, st)) != 0) return rc;
    }
  }
  /* Before the event row: the ratings go into its data. */
  if (a->end && a->rate && !a->aborted && (rc = rate_game(conn, a)) != 0)
    return rc;
  if (a->has_event) {
    sqlite3_stmt *st = db_stmt(
        conn,
        "INSERT INTO game_events (game_id, seq, kind, side, data, at_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (st == NULL) return AGON_ESTORAGE;
    sqlite3_bind_int64(st, 1, a->game_id);
    sqlite3_bind_int64(st, 2, a->event_seq);
    sqlite3_bind_text(st, 3, a->kind, -1, SQLITE_STATIC);
    if (a->event_side >= 0) sqlite3_bind_int(st, 4, a->event_side);
    if (a->data) sqlite3_bind_text(st, 5, a->data, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, a->at_ms);
    if ((rc = step_done(conn, st)) != 0) return rc;
  }
  if (a->end) {
    /* A finished game's moves are all in move_idx (history.c counts them
     * there): its pending run and this move, or, when the table lost
     * track, every row of it above the mark. */
    if (c && c->complete) {
      seq_slot none = {.game_id = a->game_id}; /* no append since the sweep */
      seq_slot *s = slot ? slot : &none;
      o->flushed = 1;
      if ((a->has_move && (rc = pend_push(conn, c, s, a->move_seq,
                                          o->move_id)) != 0) ||
          (rc = pend_flush(conn, c, s)) != 0)
        return rc;
    } else if ((rc = index_unmarked(conn, a->game_id)) != 0) {
      return rc;
    }
    sqlite3_stmt *st = db_stmt(
        conn,
        "UPDATE games SET status = ?2, result = ?3, winner_side = ?4, "
        "reason = ?5, ended_at = ?6 WHERE id = ?1");
    if (st == NULL) return AGON_ESTORAGE;
    sqlite3_bind_int64(st, 1, a->game_id);
    sqlite3_bind_text(st, 2, a->aborted ? "aborted" : "finished", -1,
                      SQLITE_STATIC);
    if (a->result == GAME_WIN) sqlite3_bind_text(st, 3, "win", -1, SQLITE_STATIC);
    else if (a->result == GAME_DRAW)
      sqlite3_bind_text(st, 3, "draw", -1, SQLITE_STATIC);
    if (a->winner_side >= 0) sqlite3_bind_int(st, 4, a->winner_side);
    sqlite3_bind_text(st, 5, a->reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, a->at_ms);
    if ((rc = step_done(conn, st)) != 0) return rc;
  }
  return 0;
}

/* ---- read back ---------------------------------------------------------- */

void gs_rows_free(gs_row *rows, uint32_t n) {
  if (rows == NULL) return;
  for (uint32_t i = 0; i < n; i++) free(rows[i].data);
  free(rows);
}

/* A game's moves: its move_idx entries, and its rows above the mark that
 * may have none yet (a rowid range: the last sweep interval's appends),
 * UNION dropping the rows found both ways (migrations/0005). */
static const char rows_sql[] =
    "SELECT m.seq, 1, m.ply, m.side, m.move, m.clock0_ms, m.clock1_ms, "
    "m.at_ms, NULL, NULL FROM move_idx i CROSS JOIN moves m ON m.id = i.id "
    "WHERE i.game_id = ?1 AND i.seq > ?2 "
    "UNION SELECT seq, 1, ply, side, move, clock0_ms, clock1_ms, at_ms, NULL, "
    "NULL FROM moves WHERE id > (SELECT w FROM move_idx_mark) "
    "AND game_id = ?1 AND seq > ?2 "
    "UNION ALL SELECT seq, 0, 0, side, NULL, NULL, NULL, at_ms, kind, data "
    "FROM game_events WHERE game_id = ?1 AND seq > ?2 "
    "ORDER BY 1 LIMIT ?3";

/* Rows of game_id with seq > since, at most max + 1 (to see "more"). */
static int load_rows(sqlite3 *conn, sqlite3_stmt *st, int64_t game_id,
                     uint32_t since, uint32_t max, gs_row **out,
                     uint32_t *n_out, int *more) {
  sqlite3_bind_int64(st, 1, game_id);
  sqlite3_bind_int64(st, 2, since);
  sqlite3_bind_int64(st, 3, (sqlite3_int64)max + 1);
  uint32_t n = 0, cap = 0;
  gs_row *rows = NULL;
  int rc;
  *more = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (n == max) {
      *more = 1;
      break;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      gs_row *nr = realloc(rows, cap * sizeof *rows);
      if (nr == NULL) {
        log_error("out of memory");
        abort();
      }
      rows = nr;
    }
    gs_row *r = &rows[n++];
    memset(r, 0, sizeof *r);
    r->seq = (uint32_t)sqlite3_column_int64(st, 0);
    r->is_move = sqlite3_column_int(st, 1);
    r->ply = (uint32_t)sqlite3_column_int64(st, 2);
    r->side = sqlite3_column_type(st, 3) == SQLITE_NULL
                  ? -1
                  : sqlite3_column_int(st, 3);
    copy_text(r->move, sizeof r->move, sqlite3_column_text(st, 4));
    r->timed = sqlite3_column_type(st, 5) != SQLITE_NULL;
    r->clock_ms[0] = sqlite3_column_int64(st, 5);
    r->clock_ms[1] = sqlite3_column_int64(st, 6);
    r->at_ms = sqlite3_column_int64(st, 7);
    copy_text(r->kind, sizeof r->kind, sqlite3_column_text(st, 8));
    if (sqlite3_column_type(st, 9) != SQLITE_NULL)
      r->data = xstrdup((const char *)sqlite3_column_text(st, 9));
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    log_error("gamestore: %s", sqlite3_errmsg(conn));
    gs_rows_free(rows, n);
    return AGON_ESTORAGE;
  }
  *out = rows;
  *n_out = n;
  return 0;
}

int gs_since_job(sqlite3 *conn, void *ctx) {
  gs_since *s = ctx;
  sqlite3_stmt *st = db_stmt(conn, rows_sql);
  if (st == NULL) return AGON_ESTORAGE;
  return load_rows(conn, st, s->game_id, s->since, s->max, &s->rows, &s->n,
                   &s->more);
}

void gs_game_clear(gs_game *g) {
  free(g->options_json);
  g->options_json = NULL;
  gs_rows_free(g->rows, g->n);
  g->rows = NULL;
  g->n = 0;
}

static const char game_sql[] =
    "SELECT id, game_type, rules_version, options, seed, time_control, rated, "
    "chooser_seat, status, spectator_delay_plies, spectator_delay_ms "
    "FROM games WHERE id = ?1";
static const char players_sql[] =
    "SELECT gp.seat, gp.player_id, gp.side, p.name, "
    "coalesce(r.rating, 1500.0) FROM game_players gp "
    "JOIN players p ON p.id = gp.player_id "
    "LEFT JOIN ratings r ON r.player_id = gp.player_id AND r.game_type = "
    "(SELECT game_type FROM games WHERE id = ?1) WHERE gp.game_id = ?1";

/* Fill g (id set) from the database. cached: use db_stmt (job threads). */
static int load_game(sqlite3 *conn, gs_game *g, int cached) {
  sqlite3_stmt *st[3];
  const char *sql[3] = {game_sql, players_sql, rows_sql};
  for (int i = 0; i < 3; i++) {
    if (cached) st[i] = db_stmt(conn, sql[i]);
    else if (sqlite3_prepare_v2(conn, sql[i], -1, &st[i], NULL) != SQLITE_OK)
      st[i] = NULL;
    if (st[i] == NULL) {
      log_error("gamestore: %s", sqlite3_errmsg(conn));
      if (!cached)
        for (int j = 0; j < i; j++) sqlite3_finalize(st[j]);
      return AGON_ESTORAGE;
    }
  }
  int rc = AGON_ENOTFOUND;
  sqlite3_bind_int64(st[0], 1, g->id);
  if (sqlite3_step(st[0]) == SQLITE_ROW) {
    copy_text(g->game_type, sizeof g->game_type, sqlite3_column_text(st[0], 1));
    g->rules_version = (unsigned)sqlite3_column_int(st[0], 2);
    g->options_json = xstrdup(sqlite3_column_text(st[0], 3)
                                  ? (const char *)sqlite3_column_text(st[0], 3)
                                  : "{}");
    copy_text(g->seed, sizeof g->seed, sqlite3_column_text(st[0], 4));
    copy_text(g->tc_text, sizeof g->tc_text, sqlite3_column_text(st[0], 5));
    g->rated = sqlite3_column_int(st[0], 6);
    g->chooser_seat = sqlite3_column_type(st[0], 7) == SQLITE_NULL
                          ? -1
                          : sqlite3_column_int(st[0], 7);
    copy_text(g->status, sizeof g->status, sqlite3_column_text(st[0], 8));
    g->delay_plies = (uint32_t)sqlite3_column_int64(st[0], 9);
    g->delay_ms = sqlite3_column_int64(st[0], 10);
    rc = 0;
  }
  if (rc == 0) {
    sqlite3_bind_int64(st[1], 1, g->id);
    int got = 0;
    while (sqlite3_step(st[1]) == SQLITE_ROW) {
      int seat = sqlite3_column_int(st[1], 0);
      if (seat < 0 || seat > 1) continue;
      g->player[seat] = sqlite3_column_int64(st[1], 1);
      g->side[seat] = sqlite3_column_type(st[1], 2) == SQLITE_NULL
                          ? -1
                          : sqlite3_column_int(st[1], 2);
      copy_text(g->name[seat], sizeof g->name[seat],
                sqlite3_column_text(st[1], 3));
      g->rating[seat] = sqlite3_column_double(st[1], 4);
      got |= 1 << seat;
    }
    if (got != 3) rc = AGON_ESTORAGE;
  }
  if (rc == 0) {
    int more;
    rc = load_rows(conn, st[2], g->id, 0, GS_REPLAY_MAX, &g->rows, &g->n,
                   &more);
  }
  if (!cached)
    for (int i = 0; i < 3; i++) sqlite3_finalize(st[i]);
  else
    for (int i = 0; i < 3; i++) sqlite3_reset(st[i]);
  if (rc != 0) gs_game_clear(g);
  return rc;
}

int gs_load_job(sqlite3 *conn, void *ctx) { return load_game(conn, ctx, 1); }

int gs_load_active(sqlite3 *conn, void (*cb)(gs_game *g, void *arg),
                   void *arg, agon_err *err) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(conn,
                         "SELECT id FROM games WHERE status = 'active' ORDER BY id",
                         -1, &st, NULL) != SQLITE_OK)
    return agon_err_set(err, AGON_ESTORAGE, "recovery: %s", sqlite3_errmsg(conn));
  int rc;
  /* Ids first, then each game: no statement stays open across callbacks. */
  int64_t *ids = NULL;
  size_t n = 0, cap = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      int64_t *ni = realloc(ids, cap * sizeof *ids);
      if (ni == NULL) abort();
      ids = ni;
    }
    ids[n++] = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    free(ids);
    return agon_err_set(err, AGON_ESTORAGE, "recovery: %s", sqlite3_errmsg(conn));
  }
  for (size_t i = 0; i < n; i++) {
    gs_game g;
    memset(&g, 0, sizeof g);
    g.id = ids[i];
    if ((rc = load_game(conn, &g, 0)) != 0) {
      free(ids);
      return agon_err_set(err, rc, "recovery: cannot load game %lld",
                          (long long)g.id);
    }
    cb(&g, arg);
    gs_game_clear(&g);
  }
  free(ids);
  return 0;
}
