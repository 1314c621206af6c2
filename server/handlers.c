/* handlers.c - the dispatch table and the core handlers: hello, ping/pong,
 * register/login/resume/logout, whoami. */
#include "handlers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "history.h"
#include "limits.h"
#include "lobby.h"
#include "ratings.h"
#include "room.h"
#include "log.h"
#include "server_int.h"
#include "util.h"

enum {
  CMD_BEFORE_HELLO = 1 << 0, /* allowed before hello */
  CMD_NEEDS_AUTH = 1 << 1,   /* unauthenticated without a session */
  CMD_ANON_ONLY = 1 << 2,    /* already_authenticated with a session */
};

typedef void (*cmd_fn)(conn *c, proto_msg *m);

typedef struct cmd {
  const char *name;
  cmd_fn fn;
  unsigned flags;
} cmd;

static void h_hello(conn *c, proto_msg *m);
static void h_ping(conn *c, proto_msg *m);
static void h_pong(conn *c, proto_msg *m);
static void h_register(conn *c, proto_msg *m);
static void h_login(conn *c, proto_msg *m);
static void h_resume(conn *c, proto_msg *m);
static void h_logout(conn *c, proto_msg *m);
static void h_whoami(conn *c, proto_msg *m);

/* A few dozen entries, "move" (the hot one) right after the core: a
 * linear scan with strcmp is still cheaper than hashing here. */
static const cmd cmd_table[] = {
    {"hello", h_hello, CMD_BEFORE_HELLO},
    {"ping", h_ping, CMD_BEFORE_HELLO},
    {"pong", h_pong, CMD_BEFORE_HELLO},
    {"register", h_register, CMD_ANON_ONLY},
    {"login", h_login, CMD_ANON_ONLY},
    {"resume", h_resume, CMD_ANON_ONLY},
    {"logout", h_logout, CMD_NEEDS_AUTH},
    {"whoami", h_whoami, CMD_NEEDS_AUTH},
    /* live play (lobby.c, room.c) */
    {"move", room_h_move, CMD_NEEDS_AUTH},
    {"seek_create", lobby_h_seek_create, CMD_NEEDS_AUTH},
    {"seek_cancel", lobby_h_seek_cancel, CMD_NEEDS_AUTH},
    {"seek_accept", lobby_h_seek_accept, CMD_NEEDS_AUTH},
    {"seeks", lobby_h_seeks, CMD_NEEDS_AUTH},
    {"lobby_subscribe", lobby_h_subscribe, CMD_NEEDS_AUTH},
    {"challenge", lobby_h_challenge, CMD_NEEDS_AUTH},
    {"challenge_accept", lobby_h_challenge_accept, CMD_NEEDS_AUTH},
    {"challenge_decline", lobby_h_challenge_decline, CMD_NEEDS_AUTH},
    {"challenge_cancel", lobby_h_challenge_cancel, CMD_NEEDS_AUTH},
    {"invite_create", lobby_h_invite_create, CMD_NEEDS_AUTH},
    {"invite_join", lobby_h_invite_join, CMD_NEEDS_AUTH},
    {"invite_cancel", lobby_h_invite_cancel, CMD_NEEDS_AUTH},
    {"resign", room_h_resign, CMD_NEEDS_AUTH},
    {"draw_offer", room_h_draw_offer, CMD_NEEDS_AUTH},
    {"draw_accept", room_h_draw_accept, CMD_NEEDS_AUTH},
    {"draw_decline", room_h_draw_decline, CMD_NEEDS_AUTH},
    {"abort", room_h_abort, CMD_NEEDS_AUTH},
    {"claim", room_h_claim, CMD_NEEDS_AUTH},
    {"rematch_offer", room_h_rematch_offer, CMD_NEEDS_AUTH},
    {"rematch_accept", room_h_rematch_accept, CMD_NEEDS_AUTH},
    {"games_mine", room_h_games_mine, CMD_NEEDS_AUTH},
    {"join", room_h_join, CMD_NEEDS_AUTH},
    {"leave", room_h_leave, CMD_NEEDS_AUTH},
    {"games_live", room_h_games_live, 0},
    {"players", lobby_h_players, 0},
    {"watch", room_h_watch, 0},
    {"unwatch", room_h_unwatch, 0},
    {"chat", room_h_chat, CMD_NEEDS_AUTH},
    {"chat_subscribe", room_h_chat_subscribe, CMD_NEEDS_AUTH},
    /* ratings (ratings.c): public */
    {"leaderboard", ratings_h_leaderboard, 0},
    {"rating_history", ratings_h_history, 0},
    /* stored games (history.c): public, no login */
    {"history", history_h_history, 0},
    {"profile", history_h_profile, 0},
    {"game_record", history_h_game_record, 0},
    {"export", history_h_export, 0},
};

static const cmd *cmd_find(const char *type) {
  for (size_t i = 0; i < sizeof cmd_table / sizeof cmd_table[0]; i++)
    if (strcmp(cmd_table[i].name, type) == 0) return &cmd_table[i];
  return NULL;
}

/* Why k may not run on c now (its flags against the connection's state): an
 * error code and message, or 0. */
static int cmd_refusal(const conn *c, const cmd *k, const char **msg) {
  *msg = NULL;
  if (!c->hello && !(k->flags & CMD_BEFORE_HELLO)) {
    *msg = "send hello first";
    return AGON_ESTATE;
  }
  if ((k->flags & CMD_NEEDS_AUTH) && c->player_id == 0) return AGON_EUNAUTH;
  if ((k->flags & CMD_ANON_ONLY) && c->player_id != 0) return AGON_EALREADYAUTH;
  return 0;
}

/* The hot path: a "move" with only integer or plain string fields is
 * decoded in place (proto_flat_scan) and handed to room_move, without a
 * JSON tree, when the table lets it run. Returns 0 for anything else, which
 * the general path then handles, errors included, exactly as before. */
static int fast_move(conn *c, const char *line, size_t len) {
  static const cmd *move_cmd;
  const char *why;
  if (move_cmd == NULL) move_cmd = cmd_find("move");
  proto_flat f;
  if (cmd_refusal(c, move_cmd, &why) != 0 || proto_flat_scan(line, len, &f) != 0)
    return 0;
  const proto_flat_val *type = proto_flat_get(&f, "type"),
                       *id = proto_flat_get(&f, "id"),
                       *gid = proto_flat_get(&f, "game_id"),
                       *mv = proto_flat_get(&f, "move"),
                       *seq = proto_flat_get(&f, "seq");
  if (type == NULL || !type->is_str || type->slen != 4 ||
      memcmp(type->str, "move", 4) != 0)
    return 0;
  if (f.n != 3u + (id != NULL) + (seq != NULL) || gid == NULL || gid->is_str ||
      mv == NULL || !mv->is_str || (id && id->is_str) || (seq && seq->is_str))
    return 0;
  char text[GAME_MOVE_TEXT_MAX * 2];
  if (mv->slen >= sizeof text) return 0; /* the general path says why */
  memcpy(text, mv->str, mv->slen);
  text[mv->slen] = '\0';
  proto_msg m = {.root = NULL, .id = NULL, .type = "move"};
  if (id) m.id = json_integer(id->num);
  c->last_req_ms = uv_now(c->srv->loop);
  room_move(c, &m, gid->num, text, seq ? seq->num : -1);
  proto_msg_clear(&m);
  return 1;
}

void handlers_line(conn *c, const char *line, size_t len) {
  if (fast_move(c, line, len)) return;
  proto_msg m;
  agon_err e;
  agon_err_clear(&e);
  if (proto_decode(line, len, &m, &e) != 0) {
    /* Unparseable: "re" is null and "id" absent (or echoed when the object
     * parsed and only "type" was wrong). */
    conn_reply_err(c, NULL, m.id, e.code, e.msg);
    proto_msg_clear(&m);
    return;
  }
  c->last_req_ms = uv_now(c->srv->loop);
  const cmd *k = cmd_find(m.type);
  const char *why;
  int refused;
  if (k == NULL) {
    char msg[80];
    snprintf(msg, sizeof msg, "unknown message type \"%s\"", m.type);
    conn_reply_err(c, m.type, m.id, AGON_EUNKNOWNTYPE, msg);
  } else if ((refused = cmd_refusal(c, k, &why)) != 0) {
    conn_reply_err(c, m.type, m.id, refused, why);
  } else {
    k->fn(c, &m);
  }
  proto_msg_clear(&m);
}

/* ---- hello ------------------------------------------------------------- */

char *handlers_hello_data(const struct server *s, size_t *len) {
  const server_config *cfg = &s->cfg;
  json_t *games = json_array();
  for (size_t i = 0; game_registry[i] != NULL; i++) {
    const game_vtable *vt = game_registry[i];
    json_array_append_new(
        games, json_pack("{s:s, s:s, s:[s,s], s:o}", "name", vt->name, "title",
                         vt->title, "sides", vt->side_names[0],
                         vt->side_names[1], "options", game_options_json(vt)));
  }
  json_t *limits = json_pack(
      "{s:I, s:I, s:{s:f, s:f}, s:{s:f, s:f, s:I}, s:I, s:I, s:I, s:I, s:I}",
      "max_line", (json_int_t)cfg->max_line, "max_output", (json_int_t)cfg->wq_max,
      "rate", "per_second", cfg->rate, "burst", cfg->burst,
      "address", "per_second", cfg->addr_rate, "burst", cfg->addr_burst,
      "max_connections", (json_int_t)cfg->addr_max_conns,
      "hello_timeout_ms", (json_int_t)cfg->hello_timeout_ms,
      "idle_timeout_ms", (json_int_t)cfg->idle_timeout_ms,
      "ping_interval_ms", (json_int_t)cfg->ping_interval_ms,
      "ping_timeout_ms", (json_int_t)cfg->ping_timeout_ms,
      "output_stall_ms", (json_int_t)cfg->stall_ms);
  /* Effective login limits: 0 in the config means the accounts default. */
#define EFF(v, def) (json_int_t)((v) ? (v) : (def))
  json_object_set_new(
      limits, "login",
      json_pack("{s:{s:I, s:I}, s:{s:I, s:I}}", "address", "burst",
                EFF(cfg->login_addr_burst, ACCOUNTS_RL_ADDR_BURST_DEFAULT),
                "period_ms",
                EFF(cfg->login_addr_period_ms, ACCOUNTS_RL_ADDR_PERIOD_MS_DEFAULT),
                "account", "burst",
                EFF(cfg->login_account_burst, ACCOUNTS_RL_ACCOUNT_BURST_DEFAULT),
                "period_ms",
                EFF(cfg->login_account_period_ms,
                    ACCOUNTS_RL_ACCOUNT_PERIOD_MS_DEFAULT)));
#undef EFF
  json_object_set_new(limits, "name",
                      json_pack("{s:i, s:i, s:s}", "min", ACCOUNTS_NAME_MIN, "max",
                                ACCOUNTS_NAME_MAX, "chars", "A-Za-z0-9_-"));
  json_object_set_new(limits, "password",
                      json_pack("{s:i, s:i}", "min", ACCOUNTS_PASSWORD_MIN, "max",
                                ACCOUNTS_PASSWORD_MAX));
  json_t *d = json_pack("{s:s, s:s, s:i, s:o, s:o}", "server", "agond",
                        "version", AGON_VERSION, "protocol", PROTO_VERSION,
                        "limits", limits, "games", games);
  char *out = json_dumps(d, JSON_COMPACT);
  json_decref(d);
  if (out == NULL) {
    log_error("cannot encode the hello data");
    abort();
  }
  *len = strlen(out);
  return out;
}

static void h_hello(conn *c, proto_msg *m) {
  json_int_t version = PROTO_VERSION;
  const char *client = NULL;
  agon_err e;
  if (proto_unpack(m, &e, "{s?I, s?s}", "version", &version, "client",
                   &client) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  if (version != PROTO_VERSION) {
    char msg[80];
    snprintf(msg, sizeof msg, "this server speaks protocol %d", PROTO_VERSION);
    conn_reply_err(c, m->type, m->id, AGON_EVERSION, msg);
    return;
  }
  if (!c->hello)
    log_debug("conn %llu: hello from client %s", (unsigned long long)c->id,
              client ? client : "?");
  c->hello = 1;
  conn_reply_raw(c, m->type, m->id, c->srv->hello_data, c->srv->hello_len);
}

/* ---- keepalive --------------------------------------------------------- */

static void reply_rtt(conn *c, proto_msg *m) {
  char data[48];
  int n = c->rtt_ms < 0
              ? snprintf(data, sizeof data, "{\"rtt_ms\":null}")
              : snprintf(data, sizeof data, "{\"rtt_ms\":%lld}",
                         (long long)c->rtt_ms);
  conn_reply_raw(c, m->type, m->id, data, (size_t)n);
}

/* Client ping: answered at once with the last round trip the server
 * measured (its own event pings), so a client sees both directions. */
static void h_ping(conn *c, proto_msg *m) {
  agon_err e;
  if (proto_unpack(m, &e, "{}") != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  reply_rtt(c, m);
}

/* Answer to the server's {"event":"ping","nonce":N}: measures the round
 * trip and reports it. */
static void h_pong(conn *c, proto_msg *m) {
  json_int_t nonce;
  agon_err e;
  if (proto_unpack(m, &e, "{s:I}", "nonce", &nonce) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  if (!c->ping_out || nonce != (json_int_t)c->ping_nonce) {
    conn_reply_err(c, m->type, m->id, AGON_ESTATE, "no ping with this nonce");
    return;
  }
  c->ping_out = 0;
  c->rtt_ms = (int64_t)(uv_now(c->srv->loop) - c->ping_sent_ms);
  reply_rtt(c, m);
}

/* ---- accounts ---------------------------------------------------------- */

/* One accounts request in flight: holds the conn (counted as pending) and
 * what the reply needs. */
typedef struct acc_op {
  conn *c;
  json_t *id;
  const char *re;   /* static: a cmd_table name */
} acc_op;

static acc_op *acc_op_new(conn *c, proto_msg *m) {
  acc_op *op = xmalloc(sizeof *op);
  op->c = c;
  op->id = m->id ? json_incref(m->id) : NULL;
  for (size_t i = 0; i < sizeof cmd_table / sizeof cmd_table[0]; i++)
    if (strcmp(cmd_table[i].name, m->type) == 0) op->re = cmd_table[i].name;
  conn_op_begin(c);
  c->busy = 1;
  return op;
}

static void acc_op_free(acc_op *op) {
  json_decref(op->id);
  free(op);
}

/* The call was refused synchronously (no callback will come). */
static void acc_op_refused(acc_op *op, int rc) {
  conn *c = op->c;
  c->busy = 0;
  if (conn_op_end(c)) {
    conn_reply_err(c, op->re, op->id, rc == AGON_ESHUTDOWN ? AGON_ESHUTDOWN : AGON_EBUSY,
                   NULL);
  }
  acc_op_free(op);
}

static void reply_account_error(conn *c, const acc_op *op,
                                const account_result *res) {
  conn_reply_err_retry(c, op->re, op->id, res->status, res->msg,
                       res->status == AGON_ERATELIMIT
                           ? (long long)res->retry_after_ms
                           : -1);
}

static void session_cb(void *arg, const account_result *res) {
  acc_op *op = arg;
  conn *c = op->c;
  if (!conn_op_end(c)) {
    acc_op_free(op);  /* the peer left; the session stays valid (resumable) */
    return;
  }
  c->busy = 0;
  if (res->status != 0) {
    log_info("conn %llu: %s failed: %s", (unsigned long long)c->id, op->re,
             agon_err_name(res->status));
    reply_account_error(c, op, res);
  } else {
    conn_set_player(c, res->player_id);
    c->session_id = res->session_id;
    snprintf(c->name, sizeof c->name, "%s", res->name);
    log_info("conn %llu: %s as %s (player %lld)", (unsigned long long)c->id,
             op->re, res->name, (long long)res->player_id);
    json_t *d = json_pack("{s:I, s:s, s:I}", "player_id",
                          (json_int_t)res->player_id, "name", res->name,
                          "expires_at_ms", (json_int_t)res->expires_at_ms);
    if (res->token[0]) json_object_set_new(d, "token", json_string(res->token));
    conn_reply_ok(c, op->re, op->id, d);
  }
  acc_op_free(op);
}

static int acc_guard(conn *c, proto_msg *m) {
  if (c->busy) {
    conn_reply_err(c, m->type, m->id, AGON_EBUSY,
                   "an accounts request is already in progress");
    return -1;
  }
  if (c->srv->acc == NULL || c->srv->stopping) {
    conn_reply_err(c, m->type, m->id, AGON_ESHUTDOWN, NULL);
    return -1;
  }
  return 0;
}

static void h_register(conn *c, proto_msg *m) {
  const char *name, *password;
  agon_err e;
  if (proto_unpack(m, &e, "{s:s, s:s}", "name", &name, "password",
                   &password) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  if (acc_guard(c, m)) return;
  acc_op *op = acc_op_new(c, m);
  int rc = accounts_register(c->srv->acc, name, password, c->peer, op,
                             session_cb);
  if (rc != 0) acc_op_refused(op, rc);
}

static void h_login(conn *c, proto_msg *m) {
  const char *name, *password;
  agon_err e;
  if (proto_unpack(m, &e, "{s:s, s:s}", "name", &name, "password",
                   &password) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  if (acc_guard(c, m)) return;
  acc_op *op = acc_op_new(c, m);
  int rc = accounts_login(c->srv->acc, name, password, c->peer, op,
                          session_cb);
  if (rc != 0) acc_op_refused(op, rc);
}

static void h_resume(conn *c, proto_msg *m) {
  const char *token;
  agon_err e;
  if (proto_unpack(m, &e, "{s:s}", "token", &token) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  if (acc_guard(c, m)) return;
  acc_op *op = acc_op_new(c, m);
  int rc = accounts_resume(c->srv->acc, token, c->peer, op, session_cb);
  if (rc != 0) acc_op_refused(op, rc);
}

static void logout_cb(void *arg, const account_result *res) {
  acc_op *op = arg;
  conn *c = op->c;
  if (!conn_op_end(c)) {
    acc_op_free(op);
    return;
  }
  c->busy = 0;
  /* The connection is logged out whatever the store said: bad_token here
   * only means the session was already revoked elsewhere. */
  log_info("conn %llu: logout of %s", (unsigned long long)c->id, c->name);
  rooms_conn_gone(c);
  lobby_conn_gone(c);
  conn_set_player(c, 0);
  c->session_id = 0;
  c->name[0] = '\0';
  c->last_req_ms = uv_now(c->srv->loop);
  if (res->status != 0 && res->status != AGON_EBADTOKEN)
    reply_account_error(c, op, res);
  else
    conn_reply_ok(c, op->re, op->id, NULL);
  acc_op_free(op);
}

static void h_logout(conn *c, proto_msg *m) {
  agon_err e;
  if (proto_unpack(m, &e, "{}") != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  if (acc_guard(c, m)) return;
  acc_op *op = acc_op_new(c, m);
  int rc = accounts_logout(c->srv->acc, c->session_id, op, logout_cb);
  if (rc != 0) acc_op_refused(op, rc);
}

static void h_whoami(conn *c, proto_msg *m) {
  agon_err e;
  if (proto_unpack(m, &e, "{}") != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  /* peer: the address this connection counts against (the client's real
   * one behind a PROXY-protocol TLS terminator); ops tests check it. */
  conn_reply_ok(c, m->type, m->id,
                json_pack("{s:I, s:s, s:s}", "player_id",
                          (json_int_t)c->player_id, "name", c->name, "peer",
                          c->peer));
}
