/* ratings.c - see ratings.h. */
#include "ratings.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "game.h"
#include "gamestore.h"
#include "limits.h"
#include "server_int.h"
#include "util.h"

/* One request in flight: the job ctx first, then what the reply needs.
 * The rows live inline in the ctx (bounded by limits_storage.h). */
typedef struct board_op {
  gs_board b;
  conn *c;
  json_t *id;
  const char *re;
} board_op;

typedef struct rhist_op {
  gs_rhist h;
  conn *c;
  json_t *id;
  const char *re;
} rhist_op;

static json_t *row_json(const gs_rating_row *r, int board) {
  json_t *j = json_pack("{s:f, s:f, s:f}", "rating", r->rating, "rd", r->rd,
                        "volatility", r->vol);
  if (board) {
    json_object_set_new(j, "name", json_string(r->name));
    json_object_set_new(j, "games", json_integer(r->games));
  } else {
    json_object_set_new(j, "game_id",
                        r->game_id ? json_integer(r->game_id) : json_null());
    json_object_set_new(j, "at_ms", json_integer(r->at_ms));
  }
  return j;
}

static void board_cb(void *ctx, int status) {
  board_op *op = ctx;
  if (conn_op_end(op->c)) {
    if (status != 0) {
      conn_reply_err(op->c, op->re, op->id, AGON_ESTORAGE, NULL);
    } else {
      json_t *rows = json_array();
      for (uint32_t i = 0; i < op->b.n; i++)
        json_array_append_new(rows, row_json(&op->b.rows[i], 1));
      /* A full page may have more below it: the cursor of its last row. */
      json_t *next = json_null();
      if (op->b.n > 0 && op->b.n == op->b.limit)
        next = json_pack("{s:f, s:I}", "before_rating",
                         op->b.rows[op->b.n - 1].rating, "before_id",
                         (json_int_t)op->b.ids[op->b.n - 1]);
      conn_reply_ok(op->c, op->re, op->id,
                    json_pack("{s:s, s:o, s:o}", "game", op->b.game_type,
                              "players", rows, "next", next));
    }
  }
  json_decref(op->id);
  free(op);
}

void ratings_h_leaderboard(conn *c, proto_msg *m) {
  const char *game = NULL;
  json_int_t limit = RATINGS_BOARD_DEFAULT, before_id = INT64_MIN;
  double before = 0;
  json_t *jbefore = NULL;
  agon_err e;
  agon_err_clear(&e);
  if (proto_unpack(m, &e, "{s:s, s?I, s?o, s?I}", "game", &game, "limit",
                   &limit, "before_rating", &jbefore, "before_id",
                   &before_id) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  if (game_find(game) == NULL) {
    conn_reply_err(c, m->type, m->id, AGON_EUNKNOWNGAME, NULL);
    return;
  }
  if (limit < 1 || limit > RATINGS_BOARD_MAX) {
    char msg[64];
    snprintf(msg, sizeof msg, "limit must be 1-%d", RATINGS_BOARD_MAX);
    conn_reply_err(c, m->type, m->id, AGON_EBADFIELD, msg);
    return;
  }
  if (jbefore && !json_is_number(jbefore)) {
    conn_reply_err(c, m->type, m->id, AGON_EBADFIELD,
                   "before_rating must be a number");
    return;
  }
  if (jbefore) before = json_number_value(jbefore);
  board_op *op = xcalloc(1, sizeof *op);
  snprintf(op->b.game_type, sizeof op->b.game_type, "%s", game);
  op->b.limit = (uint32_t)limit;
  op->b.has_before = jbefore != NULL;
  op->b.before_rating = before;
  /* Without before_id: every row strictly below before_rating. */
  op->b.before_id = (int64_t)before_id;
  op->c = c;
  op->re = "leaderboard";
  if (m->id) op->id = json_incref(m->id);
  int rc = db_read(c->srv->db, gs_board_job, &op->b, board_cb);
  if (rc != 0) {
    conn_reply_err(c, m->type, m->id, rc == AGON_ESHUTDOWN ? rc : AGON_EBUSY,
                   NULL);
    json_decref(op->id);
    free(op);
    return;
  }
  conn_op_begin(c);
}

static void rhist_cb(void *ctx, int status) {
  rhist_op *op = ctx;
  if (conn_op_end(op->c)) {
    if (status == AGON_ENOTFOUND) {
      conn_reply_err(op->c, op->re, op->id, AGON_ENOTFOUND, "no such player");
    } else if (status != 0) {
      conn_reply_err(op->c, op->re, op->id, AGON_ESTORAGE, NULL);
    } else {
      json_t *rows = json_array();
      for (uint32_t i = 0; i < op->h.n; i++)
        json_array_append_new(rows, row_json(&op->h.rows[i], 0));
      conn_reply_ok(op->c, op->re, op->id,
                    json_pack("{s:s, s:s, s:o}", "name", op->h.name, "game",
                              op->h.game_type, "history", rows));
    }
  }
  json_decref(op->id);
  free(op);
}

void ratings_h_history(conn *c, proto_msg *m) {
  const char *name = NULL, *game = NULL;
  agon_err e;
  agon_err_clear(&e);
  if (proto_unpack(m, &e, "{s:s, s:s}", "name", &name, "game", &game) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  if (game_find(game) == NULL) {
    conn_reply_err(c, m->type, m->id, AGON_EUNKNOWNGAME, NULL);
    return;
  }
  rhist_op *op = xcalloc(1, sizeof *op);
  if (strlen(name) >= sizeof op->h.name) {
    free(op);
    conn_reply_err(c, m->type, m->id, AGON_ENOTFOUND, "no such player");
    return;
  }
  snprintf(op->h.name, sizeof op->h.name, "%s", name);
  snprintf(op->h.game_type, sizeof op->h.game_type, "%s", game);
  op->c = c;
  op->re = "rating_history";
  if (m->id) op->id = json_incref(m->id);
  int rc = db_read(c->srv->db, gs_rhist_job, &op->h, rhist_cb);
  if (rc != 0) {
    conn_reply_err(c, m->type, m->id, rc == AGON_ESHUTDOWN ? rc : AGON_EBUSY,
                   NULL);
    json_decref(op->id);
    free(op);
    return;
  }
  conn_op_begin(c);
}
