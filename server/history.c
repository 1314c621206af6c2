/* history.c - the `history` and `profile` requests: SQL on a db reader,
 * JSON on the loop. See history.h and docs/protocol.md ("History"). */
#include "history.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "db.h"
#include "game.h"
#include "gamestore.h"
#include "record.h"
#include "limits.h"
#include "server_int.h"
#include "util.h"

/* Text columns copied out of the reader's rows: fixed sizes so a job result
 * is one plain allocation (no json_t crosses threads). Longer values are
 * truncated, which cannot happen for what the server itself writes. */
#define H_TEXT 32

typedef struct hist_player {
  int present;
  int side; /* -1: not decided */
  char name[ACCOUNTS_NAME_MAX + 1];
} hist_player;

typedef struct hist_row {
  int64_t id;
  char type[H_TEXT];
  int rated;
  char status[H_TEXT];
  char result[H_TEXT]; /* "" = NULL */
  int winner_side;     /* -1 = NULL */
  char reason[H_TEXT];
  char tc[H_TEXT];
  int64_t created_at, ended_at; /* ended_at -1 = NULL */
  int64_t moves;                /* moves stored (plies) */
  int my_side;                  /* the filtered player's side, -1 */
  hist_player p[2];             /* by seat */
} hist_row;

enum { H_ALL, H_FINISHED, H_ONGOING };
enum { H_ANY, H_WIN, H_LOSS, H_DRAW };

/* Queue op (malloc'd, with request fields c and id at *op_c and *op_id) as a
 * reader job for request m; on refusal reply busy/shutting_down and free
 * op. The one submission path of every request here. */
static void read_submit(conn *c, proto_msg *m, db_job_fn fn, db_done_cb cb,
                        void *op, conn **op_c, json_t **op_id) {
  *op_c = c;
  *op_id = m->id ? json_incref(m->id) : NULL;
  int rc = db_read(c->srv->db, fn, op, cb);
  if (rc != 0) {
    conn_reply_err(c, m->type, m->id, rc == AGON_ESHUTDOWN ? rc : AGON_EBUSY, NULL);
    json_decref(*op_id);
    free(op);
    return;
  }
  conn_op_begin(c);
}

typedef struct hist_op {
  /* request (loop fills, reader reads) */
  char player[ACCOUNTS_NAME_MAX + 1], opponent[ACCOUNTS_NAME_MAX + 1];
  char type[H_TEXT];
  int status;      /* H_* */
  int result;      /* H_ANY.. */
  int winner_side; /* -1: any */
  int rated;       /* -1: any */
  int64_t from_ms, to_ms, before_id;
  int limit;
  /* result (reader fills) */
  int err;         /* AGON_ENOTFOUND: unknown player/opponent */
  char errmsg[64];
  int n, more;
  hist_row rows[HISTORY_PAGE_MAX];
  /* loop side */
  conn *c;
  json_t *id;
} hist_op;

static void copy_col(char *dst, size_t cap, sqlite3_stmt *st, int col) {
  const unsigned char *t = sqlite3_column_text(st, col);
  snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

/* Player id by name (case-insensitive, like login), 0 if unknown. */
static int64_t player_id(sqlite3 *sq, const char *name) {
  sqlite3_stmt *st =
      db_stmt(sq, "SELECT id FROM players WHERE name_folded = lower(?1)");
  if (st == NULL) return -1;
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_reset(st);
  return id;
}

static int load_players(sqlite3 *sq, hist_row *w) {
  sqlite3_stmt *st = db_stmt(sq, "SELECT gp.seat, gp.side, p.name FROM game_players gp JOIN players p"
            " ON p.id = gp.player_id WHERE gp.game_id = ?1");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_bind_int64(st, 1, w->id);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int seat = sqlite3_column_int(st, 0);
    if (seat < 0 || seat > 1) continue;
    hist_player *p = &w->p[seat];
    p->present = 1;
    p->side = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 1);
    copy_col(p->name, sizeof p->name, st, 2);
  }
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? 0 : AGON_ESTORAGE;
}

/* The query is assembled from fixed fragments (never from request text:
 * every value is bound), so its shapes are few and each uses an index:
 *  - player given: game_players_player (player_id, game_id) range, newest
 *    first, each game by rowid; the opponent is a game_players PK probe;
 *  - no player, a type: games_type (game_type, id);
 *  - no player, ongoing only: games_status (status, id);
 *  - otherwise the games rowid, descending.
 * Other filters are checked on rows the index yields. */
static int hist_job(sqlite3 *sq, void *ctx) {
  hist_op *op = ctx;
  int64_t pid = 0, oid = 0;
  if (op->player[0]) {
    pid = player_id(sq, op->player);
    if (pid < 0) return AGON_ESTORAGE;
    if (pid == 0) {
      op->err = AGON_ENOTFOUND;
      snprintf(op->errmsg, sizeof op->errmsg, "no such player");
      return 0;
    }
  }
  if (op->opponent[0]) {
    oid = player_id(sq, op->opponent);
    if (oid < 0) return AGON_ESTORAGE;
    if (oid == 0) {
      op->err = AGON_ENOTFOUND;
      snprintf(op->errmsg, sizeof op->errmsg, "no such opponent");
      return 0;
    }
  }
  char sql[2048];
  size_t k = 0;
#define ADD(s) k += (size_t)snprintf(sql + k, sizeof sql - k, "%s", (s))
  ADD("SELECT g.id, g.game_type, g.rated, g.status, g.result, g.winner_side,"
      " g.reason, g.time_control, g.created_at, g.ended_at,"
      /* Per row a count on move_idx's key: at most a page of
       * HISTORY_PAGE_MAX games of up to 5 000 moves each. A finished game's
       * moves are all there; an ongoing one's latest may only be among the
       * rows above the mark (migrations/0005). */
      " (SELECT count(*) FROM move_idx mi WHERE mi.game_id = g.id)"
      " + (CASE WHEN g.status = 'finished' THEN 0 ELSE"
      " (SELECT count(*) FROM moves mv WHERE mv.id > (SELECT w FROM move_idx_mark)"
      " AND mv.game_id = g.id AND NOT EXISTS (SELECT 1 FROM move_idx x"
      " WHERE x.game_id = g.id AND x.seq = mv.seq)) END), ");
  if (pid) {
    ADD("gp.side FROM game_players gp CROSS JOIN games g ON g.id = gp.game_id"
        " WHERE gp.player_id = ?1 AND gp.game_id < ?2");
  } else {
    ADD("NULL FROM games g WHERE g.id < ?2");
  }
  switch (op->status) {
  case H_FINISHED: ADD(" AND g.status = 'finished'"); break;
  case H_ONGOING: ADD(" AND g.status = 'active'"); break;
  default: ADD(" AND g.status IN ('active', 'finished')"); break;
  }
  if (op->type[0]) ADD(" AND g.game_type = ?3");
  if (op->rated >= 0) ADD(" AND g.rated = ?4");
  if (op->from_ms >= 0) ADD(" AND g.created_at >= ?5");
  if (op->to_ms >= 0) ADD(" AND g.created_at < ?6");
  if (oid)
    ADD(" AND EXISTS (SELECT 1 FROM game_players o WHERE o.game_id = g.id"
        " AND o.player_id = ?7)");
  switch (op->result) {
  case H_WIN: ADD(" AND g.result = 'win' AND g.winner_side = gp.side"); break;
  case H_LOSS: ADD(" AND g.result = 'win' AND g.winner_side <> gp.side"); break;
  case H_DRAW: ADD(" AND g.result = 'draw'"); break;
  default: break;
  }
  if (op->winner_side >= 0) ADD(" AND g.result = 'win' AND g.winner_side = ?8");
  ADD(pid ? " ORDER BY gp.game_id DESC LIMIT ?9" : " ORDER BY g.id DESC LIMIT ?9");
#undef ADD
  if (k >= sizeof sql) return AGON_ESTORAGE; /* our bug: fragments too long */
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return AGON_ESTORAGE;
  }
  sqlite3_bind_int64(st, 1, pid);
  sqlite3_bind_int64(st, 2, op->before_id);
  sqlite3_bind_text(st, 3, op->type, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 4, op->rated);
  sqlite3_bind_int64(st, 5, op->from_ms);
  sqlite3_bind_int64(st, 6, op->to_ms);
  sqlite3_bind_int64(st, 7, oid);
  sqlite3_bind_int(st, 8, op->winner_side);
  /* One more than the page: tells whether there is a next page. */
  sqlite3_bind_int(st, 9, op->limit + 1);
  int rc, ret = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (op->n == op->limit) {
      op->more = 1;
      break;
    }
    hist_row *w = &op->rows[op->n++];
    memset(w, 0, sizeof *w);
    w->id = sqlite3_column_int64(st, 0);
    copy_col(w->type, sizeof w->type, st, 1);
    w->rated = sqlite3_column_int(st, 2);
    copy_col(w->status, sizeof w->status, st, 3);
    copy_col(w->result, sizeof w->result, st, 4);
    w->winner_side = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 5);
    copy_col(w->reason, sizeof w->reason, st, 6);
    copy_col(w->tc, sizeof w->tc, st, 7);
    w->created_at = sqlite3_column_int64(st, 8);
    w->ended_at = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 9);
    w->moves = sqlite3_column_int64(st, 10);
    w->my_side = sqlite3_column_type(st, 11) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 11);
    if ((ret = load_players(sq, w)) != 0) break;
  }
  if (ret == 0 && rc != SQLITE_ROW && rc != SQLITE_DONE) ret = AGON_ESTORAGE;
  sqlite3_finalize(st);
  return ret;
}

static json_t *str_or_null(const char *s) {
  return s[0] ? json_string(s) : json_null();
}

static json_t *row_json(const hist_row *w, int with_outcome) {
  json_t *players = json_array();
  for (int s = 0; s < 2; s++) {
    const hist_player *p = &w->p[s];
    json_array_append_new(
        players, p->present ? json_pack("{s:i, s:s, s:o}", "seat", s, "name", p->name,
                                        "side", p->side >= 0 ? json_integer(p->side)
                                                             : json_null())
                            : json_null());
  }
  json_t *o = json_pack(
      "{s:I, s:s, s:b, s:s, s:o, s:o, s:o, s:s, s:I, s:o, s:o}", "game_id",
      (json_int_t)w->id, "game", w->type, "rated", w->rated, "status", w->status,
      "result", str_or_null(w->result), "winner_side",
      w->winner_side >= 0 ? json_integer(w->winner_side) : json_null(), "reason",
      str_or_null(w->reason), "time_control", w->tc, "created_at",
      (json_int_t)w->created_at, "ended_at",
      w->ended_at >= 0 ? json_integer(w->ended_at) : json_null(), "players", players);
  json_object_set_new(o, "moves", json_integer(w->moves));
  if (with_outcome) {
    const char *oc = NULL;
    if (strcmp(w->result, "draw") == 0) oc = "draw";
    else if (strcmp(w->result, "win") == 0 && w->my_side >= 0)
      oc = w->winner_side == w->my_side ? "win" : "loss";
    json_object_set_new(o, "outcome", oc ? json_string(oc) : json_null());
  }
  return o;
}

static void hist_done(void *ctx, int status) {
  hist_op *op = ctx;
  conn *c = op->c;
  if (!conn_op_end(c)) goto out;
  if (status != 0) {
    conn_reply_err(c, "history", op->id, AGON_ESTORAGE, NULL);
    goto out;
  }
  if (op->err) {
    conn_reply_err(c, "history", op->id, op->err, op->errmsg);
    goto out;
  }
  json_t *games = json_array();
  for (int i = 0; i < op->n; i++)
    json_array_append_new(games, row_json(&op->rows[i], op->player[0] != 0));
  /* The cursor is the last id returned: ids only grow, so games created
   * after the first page never shift later pages (no skip, no repeat). */
  json_t *next = op->more && op->n > 0 ? json_integer(op->rows[op->n - 1].id) : json_null();
  conn_reply_ok(c, "history", op->id,
                json_pack("{s:o, s:o}", "games", games, "next_before_id", next));
out:
  json_decref(op->id);
  free(op);
}

/* Copies a name field, rejecting what cannot be a registered name (the
 * lookup would find nothing anyway; this keeps fixed buffers exact). */
static int take_name(char *dst, size_t cap, const char *src, agon_err *e) {
  if (src == NULL) return 0;
  size_t n = strlen(src);
  if (n == 0 || n >= cap) {
    agon_err_set(e, AGON_EBADFIELD, "bad player name");
    return -1;
  }
  memcpy(dst, src, n + 1);
  return 0;
}

void history_h_history(conn *c, proto_msg *m) {
  const char *player = NULL, *opponent = NULL, *type = NULL, *status = NULL,
             *result = NULL;
  json_int_t from_ms = -1, to_ms = -1, before_id = INT64_MAX, limit = HISTORY_PAGE_DEFAULT,
             winner_side = -1;
  json_t *rated = NULL;
  agon_err e;
  agon_err_clear(&e);
  if (proto_unpack(m, &e, "{s?s, s?s, s?s, s?s, s?s, s?I, s?I, s?I, s?I, s?I, s?o}",
                   "player", &player, "opponent", &opponent, "game", &type,
                   "status", &status, "result", &result, "from_ms", &from_ms,
                   "to_ms", &to_ms, "before_id", &before_id, "limit", &limit,
                   "winner_side", &winner_side, "rated", &rated) != 0)
    goto bad;
  hist_op *op = xcalloc(1, sizeof *op);
  op->rated = -1;
  op->from_ms = from_ms;
  op->to_ms = to_ms;
  op->before_id = before_id;
  op->winner_side = (int)winner_side;
  if (take_name(op->player, sizeof op->player, player, &e) ||
      take_name(op->opponent, sizeof op->opponent, opponent, &e))
    goto bad_op;
  if (type) {
    if (game_find(type) == NULL) {
      agon_err_set(&e, AGON_EBADFIELD, "unknown game");
      goto bad_op;
    }
    snprintf(op->type, sizeof op->type, "%s", type);
  }
  if (status == NULL || strcmp(status, "finished") == 0) op->status = H_FINISHED;
  else if (strcmp(status, "ongoing") == 0) op->status = H_ONGOING;
  else if (strcmp(status, "all") == 0) op->status = H_ALL;
  else {
    agon_err_set(&e, AGON_EBADFIELD, "status: finished, ongoing or all");
    goto bad_op;
  }
  if (result == NULL) op->result = H_ANY;
  else if (strcmp(result, "win") == 0) op->result = H_WIN;
  else if (strcmp(result, "loss") == 0) op->result = H_LOSS;
  else if (strcmp(result, "draw") == 0) op->result = H_DRAW;
  else {
    agon_err_set(&e, AGON_EBADFIELD, "result: win, loss or draw");
    goto bad_op;
  }
  if ((op->result == H_WIN || op->result == H_LOSS) && !op->player[0]) {
    agon_err_set(&e, AGON_EBADFIELD, "result win/loss needs player");
    goto bad_op;
  }
  if (op->opponent[0] && !op->player[0]) {
    agon_err_set(&e, AGON_EBADFIELD, "opponent needs player");
    goto bad_op;
  }
  if (rated) {
    if (!json_is_boolean(rated)) {
      agon_err_set(&e, AGON_EBADFIELD, "rated: a boolean");
      goto bad_op;
    }
    op->rated = json_is_true(rated);
  }
  if (winner_side < -1 || winner_side > 1 || limit < 1 || limit > HISTORY_PAGE_MAX ||
      before_id < 1) {
    agon_err_set(&e, AGON_EBADFIELD, "winner_side, limit or before_id out of range");
    goto bad_op;
  }
  op->limit = (int)limit;
  read_submit(c, m, hist_job, hist_done, op, &op->c, &op->id);
  return;
bad_op:
  free(op);
bad:
  conn_reply_err(c, m->type, m->id, e.code, e.msg);
}

/* ---- profile ------------------------------------------------------------ */

typedef struct prof_type {
  char type[H_TEXT];
  int64_t played, wins, losses, draws;
} prof_type;

typedef struct prof_op {
  char name[ACCOUNTS_NAME_MAX + 1]; /* in: as asked; out: as registered */
  int found;
  int ongoing;
  int n;
  prof_type t[PROFILE_TYPES_MAX];
  conn *c;
  json_t *id;
} prof_op;

/* One pass over the player's game_players range (index), each game by
 * rowid: O(games of the player), grouped by type. */
static int prof_job(sqlite3 *sq, void *ctx) {
  prof_op *op = ctx;
  sqlite3_stmt *st =
      db_stmt(sq, "SELECT id, name FROM players WHERE name_folded = lower(?1)");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_bind_text(st, 1, op->name, -1, SQLITE_STATIC);
  if (sqlite3_step(st) != SQLITE_ROW) return 0;
  int64_t pid = sqlite3_column_int64(st, 0);
  copy_col(op->name, sizeof op->name, st, 1);
  op->found = 1;
  sqlite3_reset(st);
  st = db_stmt(sq,
               "SELECT g.game_type, count(*),"
               " sum(g.result = 'win' AND g.winner_side = gp.side),"
               " sum(g.result = 'win' AND g.winner_side <> gp.side),"
               " sum(g.result = 'draw')"
               " FROM game_players gp CROSS JOIN games g ON g.id = gp.game_id"
               " WHERE gp.player_id = ?1 AND g.status = 'finished'"
               " GROUP BY g.game_type ORDER BY g.game_type");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_bind_int64(st, 1, pid);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW && op->n < PROFILE_TYPES_MAX) {
    prof_type *t = &op->t[op->n++];
    copy_col(t->type, sizeof t->type, st, 0);
    t->played = sqlite3_column_int64(st, 1);
    t->wins = sqlite3_column_int64(st, 2);
    t->losses = sqlite3_column_int64(st, 3);
    t->draws = sqlite3_column_int64(st, 4);
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return AGON_ESTORAGE;
  sqlite3_reset(st);
  st = db_stmt(sq, "SELECT count(*) FROM game_players gp CROSS JOIN games g"
                     " ON g.id = gp.game_id WHERE gp.player_id = ?1"
                     " AND g.status = 'active'");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_bind_int64(st, 1, pid);
  if (sqlite3_step(st) != SQLITE_ROW) return AGON_ESTORAGE;
  op->ongoing = sqlite3_column_int(st, 0);
  return 0;
}

static void prof_done(void *ctx, int status) {
  prof_op *op = ctx;
  conn *c = op->c;
  if (!conn_op_end(c)) goto out;
  if (status != 0) {
    conn_reply_err(c, "profile", op->id, AGON_ESTORAGE, NULL);
    goto out;
  }
  if (!op->found) {
    conn_reply_err(c, "profile", op->id, AGON_ENOTFOUND, "no such player");
    goto out;
  }
  json_t *by = json_object();
  int64_t tot[4] = {0, 0, 0, 0};
  for (int i = 0; i < op->n; i++) {
    const prof_type *t = &op->t[i];
    json_object_set_new(by, t->type,
                        json_pack("{s:I, s:I, s:I, s:I}", "played", (json_int_t)t->played,
                                  "wins", (json_int_t)t->wins, "losses",
                                  (json_int_t)t->losses, "draws", (json_int_t)t->draws));
    tot[0] += t->played;
    tot[1] += t->wins;
    tot[2] += t->losses;
    tot[3] += t->draws;
  }
  conn_reply_ok(c, "profile", op->id,
                json_pack("{s:s, s:I, s:I, s:I, s:I, s:i, s:o}", "name", op->name,
                          "played", (json_int_t)tot[0], "wins", (json_int_t)tot[1],
                          "losses", (json_int_t)tot[2], "draws", (json_int_t)tot[3],
                          "ongoing", op->ongoing, "by_game", by));
out:
  json_decref(op->id);
  free(op);
}

void history_h_profile(conn *c, proto_msg *m) {
  const char *name;
  agon_err e;
  agon_err_clear(&e);
  if (proto_unpack(m, &e, "{s:s}", "name", &name) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  prof_op *op = xcalloc(1, sizeof *op);
  if (take_name(op->name, sizeof op->name, name, &e) != 0) {
    free(op);
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  read_submit(c, m, prof_job, prof_done, op, &op->c, &op->id);
}

/* ---- game_record and export --------------------------------------------- */

enum { REC_JSON_VIEW, REC_EXPORT_TEXT, REC_EXPORT_JSON };

typedef struct rec_op {
  gs_game g;      /* first: gs_load_job fills it (id set by the loop) */
  int what;       /* REC_* */
  /* games row fields gs_game does not carry */
  char result[H_TEXT], reason[H_TEXT], commitment[72];
  int winner_side;
  int64_t created_at, started_at, ended_at;
  char *text;     /* export: malloc'd record (text, or JSON dumped) */
  int err;        /* AGON_ESTATE: not over; AGON_EINVAL: record failed */
  char errmsg[192];
  conn *c;
  json_t *id;
} rec_op;

static int over(const char *status) {
  return strcmp(status, "finished") == 0 || strcmp(status, "aborted") == 0;
}

/* Seat of the side that made a stored move (GAME_CHOOSER: the chooser). */
static int seat_of(const gs_game *g, int side) {
  if (side == GAME_CHOOSER) return g->chooser_seat;
  for (int s = 0; s < 2; s++)
    if (g->side[s] == side) return s;
  return -1;
}

/* The record of a stored game through common/record.h, so what the server
 * exports is exactly what `agon-rules replay` reads back. */
static int build_export(rec_op *op) {
  gs_game *g = &op->g;
  const game_vtable *vt = game_find(g->game_type);
  agon_err e;
  agon_err_clear(&e);
  if (vt == NULL) {
    op->err = AGON_EINVAL;
    snprintf(op->errmsg, sizeof op->errmsg, "unknown game type %s", g->game_type);
    return 0;
  }
  game_setup setup;
  json_t *oj = json_loads(g->options_json ? g->options_json : "{}", 0, NULL);
  int rc = game_setup_from_json(&setup, vt, oj ? oj : json_object(), &e);
  json_decref(oj);
  uint64_t seed = strtoull(g->seed, NULL, 10);
  const char **mv = NULL;
  game_record r;
  record_init(&r, vt);
  if (rc == 0) {
    mv = malloc((g->n ? g->n : 1) * sizeof *mv);
    if (mv == NULL) abort();
    size_t n = 0;
    for (uint32_t i = 0; i < g->n; i++)
      if (g->rows[i].is_move) mv[n++] = g->rows[i].move;
    record_free(&r);
    rc = record_from_moves(&r, &setup, seed, NULL, mv, n, &e);
  }
  if (rc == 0) {
    /* Clocks and times as stored; the mover's clock after each move. */
    size_t k = 0;
    for (uint32_t i = 0; i < g->n && k < r.n_moves; i++) {
      const gs_row *w = &g->rows[i];
      if (!w->is_move) continue;
      int seat = seat_of(g, w->side);
      r.moves[k].clock_ms = w->timed && seat >= 0 ? w->clock_ms[seat] : -1;
      r.moves[k].at_ms = w->at_ms;
      k++;
    }
    for (int s = 0; s < 2; s++) {
      if (g->side[s] < 0) continue;
      char key[RECORD_TAG_KEY_MAX];
      snprintf(key, sizeof key, "%s", game_side_name(vt, g->side[s]));
      if (key[0] >= 'a' && key[0] <= 'z') key[0] = (char)(key[0] - 'a' + 'A');
      record_set_tag(&r, key, g->name[s]);
    }
    /* Endings from outside the rules (resignation, agreement, time) are
     * known only to the database. */
    if (strcmp(op->result, "win") == 0 && op->winner_side >= 0)
      snprintf(r.result, sizeof r.result, "%s", game_side_name(vt, op->winner_side));
    else if (strcmp(op->result, "draw") == 0)
      snprintf(r.result, sizeof r.result, "draw");
    /* The server stores "resign" (the request's name); records spell it
     * "resignation" (docs/record-format.md), which replay accepts as an
     * ending from outside the rules. */
    if (op->reason[0] && strcmp(r.result, "*") != 0)
      snprintf(r.reason, sizeof r.reason, "%s",
               strcmp(op->reason, "resign") == 0 ? "resignation" : op->reason);
    if (op->what == REC_EXPORT_TEXT) {
      op->text = record_to_text(&r);
    } else {
      json_t *j = record_to_json(&r);
      op->text = json_dumps(j, JSON_COMPACT);
      json_decref(j);
    }
    if (op->text == NULL) abort(); /* OOM */
  } else {
    op->err = AGON_EINVAL;
    snprintf(op->errmsg, sizeof op->errmsg, "stored game does not replay: %s", e.msg);
  }
  free(mv);
  record_free(&r);
  return 0;
}

static int rec_job(sqlite3 *sq, void *ctx) {
  rec_op *op = ctx;
  int rc = gs_load_job(sq, &op->g);
  if (rc == AGON_ENOTFOUND) {
    op->err = AGON_ENOTFOUND;
    snprintf(op->errmsg, sizeof op->errmsg, "no such game");
    return 0;
  }
  if (rc != 0) return rc;
  uint32_t nm = 0;
  for (uint32_t i = 0; i < op->g.n; i++) nm += op->g.rows[i].is_move ? 1u : 0u;
  if (nm > HISTORY_RECORD_MAX_MOVES) {
    op->err = AGON_ETOOLARGE;
    snprintf(op->errmsg, sizeof op->errmsg, "game too long for one reply");
    return 0;
  }
  sqlite3_stmt *st = db_stmt(sq, "SELECT result, winner_side, reason, seed_commitment,"
                                 " created_at, started_at, ended_at FROM games WHERE id = ?1");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_bind_int64(st, 1, op->g.id);
  if (sqlite3_step(st) != SQLITE_ROW) return AGON_ESTORAGE;
  copy_col(op->result, sizeof op->result, st, 0);
  op->winner_side = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 1);
  copy_col(op->reason, sizeof op->reason, st, 2);
  copy_col(op->commitment, sizeof op->commitment, st, 3);
  op->created_at = sqlite3_column_int64(st, 4);
  op->started_at = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 5);
  op->ended_at = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 6);
  if (op->what == REC_JSON_VIEW) return 0;
  if (!over(op->g.status)) {
    /* The seed is in every record: exporting a running game would reveal
     * the deal (docs/fair-deal.md). */
    op->err = AGON_ESTATE;
    snprintf(op->errmsg, sizeof op->errmsg, "game not over");
    return 0;
  }
  return build_export(op);
}

static json_t *ms_or_null(int64_t v) { return v >= 0 ? json_integer(v) : json_null(); }

static json_t *rec_json(const rec_op *op) {
  const gs_game *g = &op->g;
  const game_vtable *vt = game_find(g->game_type);
  json_t *players = json_array();
  for (int s = 0; s < 2; s++)
    json_array_append_new(players,
                          json_pack("{s:i, s:s, s:o}", "seat", s, "name", g->name[s],
                                    "side", g->side[s] >= 0 ? json_integer(g->side[s])
                                                            : json_null()));
  json_t *moves = json_array(), *events = json_array();
  for (uint32_t i = 0; i < g->n; i++) {
    const gs_row *w = &g->rows[i];
    if (w->is_move) {
      json_t *cl = w->timed ? json_pack("[I, I]", (json_int_t)w->clock_ms[0],
                                        (json_int_t)w->clock_ms[1])
                            : json_null();
      const char *sn = vt ? game_side_name(vt, w->side) : "";
      json_array_append_new(
          moves, json_pack("{s:I, s:I, s:s, s:s, s:o, s:I}", "seq", (json_int_t)w->seq,
                           "ply", (json_int_t)w->ply, "side", sn, "move", w->move,
                           "clocks_ms", cl, "at_ms", (json_int_t)w->at_ms));
    } else {
      json_t *data = w->data ? json_loads(w->data, 0, NULL) : NULL;
      json_array_append_new(
          events, json_pack("{s:I, s:s, s:o, s:o, s:I}", "seq", (json_int_t)w->seq,
                            "kind", w->kind, "side",
                            w->side >= 0 ? json_integer(w->side) : json_null(), "data",
                            data ? data : json_null(), "at_ms", (json_int_t)w->at_ms));
    }
  }
  json_t *opts = json_loads(g->options_json ? g->options_json : "{}", 0, NULL);
  return json_pack(
      "{s:I, s:s, s:i, s:o, s:b, s:s, s:s, s:o, s:o, s:o, s:o, s:s, s:o, s:I, s:o,"
      " s:o, s:o, s:o}",
      "game_id", (json_int_t)g->id, "game", g->game_type, "rules_version",
      (int)g->rules_version, "options", opts ? opts : json_object(), "rated", g->rated,
      "time_control", g->tc_text, "status", g->status, "result",
      str_or_null(op->result), "winner_side",
      op->winner_side >= 0 ? json_integer(op->winner_side) : json_null(), "reason",
      str_or_null(op->reason), "seed",
      over(g->status) && g->seed[0] ? json_string(g->seed) : json_null(),
      "seed_commitment", op->commitment, "players", players, "created_at",
      (json_int_t)op->created_at, "started_at", ms_or_null(op->started_at), "ended_at",
      ms_or_null(op->ended_at), "moves", moves, "events", events);
}

static void rec_done(void *ctx, int status) {
  rec_op *op = ctx;
  conn *c = op->c;
  const char *re = op->what == REC_JSON_VIEW ? "game_record" : "export";
  if (!conn_op_end(c)) goto out;
  if (status != 0) {
    conn_reply_err(c, re, op->id, AGON_ESTORAGE, NULL);
  } else if (op->err) {
    conn_reply_err(c, re, op->id, op->err, op->errmsg);
  } else if (op->what == REC_JSON_VIEW) {
    conn_reply_ok(c, re, op->id, json_pack("{s:o}", "game", rec_json(op)));
  } else if (op->what == REC_EXPORT_TEXT) {
    conn_reply_ok(c, re, op->id,
                  json_pack("{s:I, s:s, s:s}", "game_id", (json_int_t)op->g.id, "format",
                            "text", "record", op->text));
  } else {
    json_t *j = json_loads(op->text, 0, NULL);
    conn_reply_ok(c, re, op->id,
                  json_pack("{s:I, s:s, s:o}", "game_id", (json_int_t)op->g.id, "format",
                            "json", "record", j ? j : json_null()));
  }
out:
  gs_game_clear(&op->g);
  free(op->text);
  json_decref(op->id);
  free(op);
}

static void rec_start(conn *c, proto_msg *m, json_int_t gid, int what) {
  if (gid < 1) {
    conn_reply_err(c, m->type, m->id, AGON_EBADFIELD, "game_id");
    return;
  }
  rec_op *op = xcalloc(1, sizeof *op);
  op->g.id = gid;
  op->what = what;
  read_submit(c, m, rec_job, rec_done, op, &op->c, &op->id);
}

void history_h_game_record(conn *c, proto_msg *m) {
  json_int_t gid;
  agon_err e;
  if (proto_unpack(m, &e, "{s:I}", "game_id", &gid) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  rec_start(c, m, gid, REC_JSON_VIEW);
}

void history_h_export(conn *c, proto_msg *m) {
  json_int_t gid;
  const char *fmt = "text";
  agon_err e;
  if (proto_unpack(m, &e, "{s:I, s?s}", "game_id", &gid, "format", &fmt) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  int what = strcmp(fmt, "text") == 0 ? REC_EXPORT_TEXT
             : strcmp(fmt, "json") == 0 ? REC_EXPORT_JSON : -1;
  if (what < 0) {
    conn_reply_err(c, m->type, m->id, AGON_EBADFIELD, "format: text or json");
    return;
  }
  rec_start(c, m, gid, what);
}
