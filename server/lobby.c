/* lobby.c - seeks, challenges, invites: see lobby.h, docs/protocol.md. */
#include "lobby.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "game.h"
#include "limits.h"
#include "log.h"
#include "room.h"
#include "server_int.h"
#include "util.h"

enum { OFFER_SEEK = 0, OFFER_CHALLENGE = 1, OFFER_INVITE = 2 };

typedef struct offer {
  struct offer *prev, *next;
  int64_t id;
  int kind;
  int64_t by, to;               /* to: challenges only */
  char by_name[24], to_name[24];
  char code[LOBBY_CODE_LEN + 1]; /* invites only */
  const game_vtable *vt;
  json_t *options;              /* validated object (owned) */
  char tc_text[24];
  char side[24];                /* "random" or a side name */
  int creator_side;             /* -1 random */
  int rated;
  uint32_t delay_plies;         /* spectator delay (spectate.h) */
  int64_t delay_ms;
} offer;

struct lobby {
  offer *head, *tail;           /* oldest first */
  unsigned n;
  unsigned subs;                /* connections with lobby_sub set */
  int64_t next_id;
};

void lobby_init(struct server *s) {
  s->lobby = xcalloc(1, sizeof *s->lobby);
  s->lobby->next_id = 1;
}

static void offer_free(offer *o) {
  json_decref(o->options);
  free(o);
}

void lobby_close(struct server *s) {
  if (s->lobby == NULL) return;
  while (s->lobby->head) {
    offer *o = s->lobby->head;
    s->lobby->head = o->next;
    offer_free(o);
  }
  free(s->lobby);
  s->lobby = NULL;
}

static const char *kind_name(int k) {
  return k == OFFER_SEEK ? "seek" : k == OFFER_CHALLENGE ? "challenge" : "invite";
}

static json_t *offer_json(const offer *o) {
  json_t *j = json_pack("{s:I, s:s, s:s, s:O, s:s, s:s, s:b}",
                        o->kind == OFFER_SEEK        ? "seek_id"
                        : o->kind == OFFER_CHALLENGE ? "challenge_id"
                                                     : "invite_id",
                        (json_int_t)o->id, o->kind == OFFER_CHALLENGE ? "from" : "by",
                        o->by_name, "game", o->vt->name, "options", o->options,
                        "time_control", o->tc_text, "side", o->side, "rated",
                        o->rated);
  return j;
}

/* Send j (borrowed) to every open connection of player pid (or, pid 0,
 * to every lobby subscriber). Targets are held while sending: a send may
 * close a connection. */
static void send_to(struct server *s, int64_t pid, const json_t *j) {
  /* Most seek events have no subscriber to reach: skip the O(connections)
   * scan (it showed in profiles with games starting hundreds of times a
   * second). */
  if (pid == 0 && s->lobby->subs == 0) return;
  unsigned n = 0;
  if (pid)  /* the player index, not the O(connections) walk */
    for (conn *c = conn_player_first(s, pid); c; c = conn_player_next(c))
      n += !c->closing;
  else
    for (conn *c = s->conns; c; c = c->next) n += !c->closing && c->lobby_sub;
  if (n == 0) return;
  wbuf *b = wbuf_from_json(j);
  if (b == NULL) return;
  /* Snapshot and hold the targets: a send may close a connection (output
   * cap), which unlinks it from the open list we would be walking. */
  conn **tg = xmalloc(n * sizeof *tg);
  unsigned k = 0;
  for (conn *c = pid ? conn_player_first(s, pid) : s->conns; c && k < n;
       c = pid ? conn_player_next(c) : c->next)
    if (!c->closing && (pid || c->lobby_sub)) {
      tg[k++] = c;
      conn_op_begin(c);
    }
  for (unsigned i = 0; i < k; i++)
    if (!tg[i]->closing) conn_send(tg[i], b);
  for (unsigned i = 0; i < k; i++) conn_op_end(tg[i]);
  free(tg);
  wbuf_unref(b);
}

static void offer_unlink(struct server *s, offer *o) {
  struct lobby *l = s->lobby;
  if (o->prev) o->prev->next = o->next;
  else l->head = o->next;
  if (o->next) o->next->prev = o->prev;
  else l->tail = o->prev;
  l->n--;
}

/* Remove o and tell who should know. reason: accepted, cancelled, declined,
 * gone. actor: the player who caused it (not told again), 0 none. */
static void offer_remove(struct server *s, offer *o, const char *reason) {
  offer_unlink(s, o);
  if (o->kind == OFFER_SEEK) {
    json_t *ev = proto_event("seek_removed");
    json_object_set_new(ev, "seek_id", json_integer(o->id));
    json_object_set_new(ev, "reason", json_string(reason));
    send_to(s, 0, ev);
    json_decref(ev);
  } else if (o->kind == OFFER_CHALLENGE) {
    json_t *ev = proto_event("challenge_removed");
    json_object_set_new(ev, "challenge_id", json_integer(o->id));
    json_object_set_new(ev, "reason", json_string(reason));
    send_to(s, o->by, ev);
    send_to(s, o->to, ev);
    json_decref(ev);
  }
  offer_free(o);
}

void lobby_conn_gone(conn *c) {
  struct server *s = c->srv;
  int64_t pid = c->player_id;
  if (s->lobby == NULL) return;
  if (c->lobby_sub) {
    c->lobby_sub = 0;
    s->lobby->subs--;
  }
  if (pid == 0) return;
  for (conn *o = conn_player_first(s, pid); o; o = conn_player_next(o))
    if (o != c && !o->closing) return;
  offer *next;
  for (offer *o = s->lobby->head; o; o = next) {
    next = o->next;
    if (o->by == pid || o->to == pid) {
      offer_remove(s, o, "gone");
      next = s->lobby->head;  /* sends may have changed the list: rescan */
    }
  }
}

static offer *offer_find(struct server *s, int kind, int64_t id) {
  for (offer *o = s->lobby->head; o; o = o->next)
    if (o->kind == kind && o->id == id) return o;
  return NULL;
}

/* Parse the game parameters of a request into a new offer (not linked).
 * extra: the challenge's "to" (NULL for other kinds). */
static offer *offer_parse(conn *c, proto_msg *m, int kind, const char **to) {
  const char *game, *tc = "untimed", *side = "random";
  json_t *options = NULL, *delay = NULL;
  int rated = 0;
  agon_err e;
  int rc = kind == OFFER_CHALLENGE
               ? proto_unpack(m, &e, "{s:s, s:s, s?o, s?s, s?s, s?b, s?o}", "to", to,
                              "game", &game, "options", &options,
                              "time_control", &tc, "side", &side, "rated", &rated,
                              "spectator_delay", &delay)
               : proto_unpack(m, &e, "{s:s, s?o, s?s, s?s, s?b, s?o}", "game", &game,
                              "options", &options, "time_control", &tc, "side",
                              &side, "rated", &rated, "spectator_delay", &delay);
  if (rc != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return NULL;
  }
  json_int_t dmoves = 0, dsecs = 0;
  if (delay) {
    json_error_t je;
    if (!json_is_object(delay) || json_object_size(delay) != 1 ||
        json_unpack_ex(delay, &je, JSON_STRICT, "{s?I, s?I}", "moves", &dmoves,
                       "seconds", &dsecs) != 0 ||
        dmoves < 0 || dmoves > SPEC_DELAY_MAX_PLIES || dsecs < 0 ||
        dsecs > SPEC_DELAY_MAX_S) {
      char msg[128];
      snprintf(msg, sizeof msg,
               "spectator_delay must be {\"moves\":0-%d} or {\"seconds\":0-%d}",
               SPEC_DELAY_MAX_PLIES, SPEC_DELAY_MAX_S);
      conn_reply_err(c, m->type, m->id, AGON_EBADFIELD, msg);
      return NULL;
    }
  }
  const game_vtable *vt = game_find(game);
  if (vt == NULL) {
    conn_reply_err(c, m->type, m->id, AGON_EUNKNOWNGAME, NULL);
    return NULL;
  }
  if (options && !json_is_object(options)) {
    conn_reply_err(c, m->type, m->id, AGON_EBADFIELD, "options must be an object");
    return NULL;
  }
  game_setup setup;
  json_t *empty = json_object();
  rc = game_setup_from_json(&setup, vt, options ? options : empty, &e);
  json_decref(empty);
  if (rc == 0) {
    uint64_t h[4];
    game_match probe;
    rc = game_match_init(&probe, &setup, 0, h, 4, &e);
  }
  if (rc != 0) {
    conn_reply_err(c, m->type, m->id, AGON_EOPTION, e.msg);
    return NULL;
  }
  clock_tc ctc;
  if (clock_tc_parse(&ctc, tc, &e) != 0) {
    conn_reply_err(c, m->type, m->id, AGON_EBADFIELD, e.msg);
    return NULL;
  }
  int cs = -1;
  if (strcasecmp(side, "random") != 0) {
    cs = game_side_from_name(vt, side);
    if (cs < 0) {
      char msg[96];
      snprintf(msg, sizeof msg, "side must be random, %s or %s",
               vt->side_names[0], vt->side_names[1]);
      conn_reply_err(c, m->type, m->id, AGON_EBADFIELD, msg);
      return NULL;
    }
  }
  /* Per-player and global caps. */
  struct lobby *l = c->srv->lobby;
  unsigned mine = 0, cap = kind == OFFER_SEEK        ? LOBBY_MAX_SEEKS
                          : kind == OFFER_CHALLENGE ? LOBBY_MAX_CHALLENGES
                                                     : LOBBY_MAX_INVITES;
  for (offer *o = l->head; o; o = o->next)
    if (o->by == c->player_id && o->kind == kind) mine++;
  if (mine >= cap || l->n >= LOBBY_MAX_OFFERS) {
    char msg[80];
    snprintf(msg, sizeof msg, "at most %u open %ss", cap, kind_name(kind));
    conn_reply_err(c, m->type, m->id, AGON_ETOOLARGE, msg);
    return NULL;
  }
  offer *o = xcalloc(1, sizeof *o);
  o->kind = kind;
  o->by = c->player_id;
  snprintf(o->by_name, sizeof o->by_name, "%s", c->name);
  o->vt = vt;
  o->options = game_setup_to_json(&setup);
  clock_tc_format(&ctc, o->tc_text, sizeof o->tc_text);
  o->creator_side = cs;
  snprintf(o->side, sizeof o->side, "%s",
           cs >= 0 ? vt->side_names[cs] : "random");
  o->rated = rated;
  o->delay_plies = (uint32_t)dmoves;
  o->delay_ms = (int64_t)dsecs * 1000;
  return o;
}

static void offer_link(struct server *s, offer *o) {
  struct lobby *l = s->lobby;
  o->id = l->next_id++;
  o->prev = l->tail;
  if (l->tail) l->tail->next = o;
  else l->head = o;
  l->tail = o;
  l->n++;
}

/* ---- accepting ------------------------------------------------------------ */

typedef struct accept_op {
  conn *c;
  json_t *id;
  const char *re;
} accept_op;

static void accept_done(void *arg, int64_t game_id, int status) {
  accept_op *op = arg;
  if (conn_op_end(op->c)) {
    if (status == 0)
      conn_reply_ok(op->c, op->re, op->id,
                    json_pack("{s:I}", "game_id", (json_int_t)game_id));
    else
      conn_reply_err(op->c, op->re, op->id, status, NULL);
  }
  json_decref(op->id);
  free(op);
}

/* Start the game of o with c as seat 1; o is removed on success. */
static void offer_accept(conn *c, proto_msg *m, offer *o, const char *re) {
  if (o->by == c->player_id) {
    conn_reply_err(c, m->type, m->id, AGON_EFORBIDDEN, "that is your own offer");
    return;
  }
  room_setup rs;
  memset(&rs, 0, sizeof rs);
  rs.vt = o->vt;
  rs.options = o->options;
  snprintf(rs.tc_text, sizeof rs.tc_text, "%s", o->tc_text);
  rs.rated = o->rated;
  rs.creator_side = o->creator_side;
  rs.player[0] = o->by;
  rs.player[1] = c->player_id;
  snprintf(rs.name[0], sizeof rs.name[0], "%s", o->by_name);
  snprintf(rs.name[1], sizeof rs.name[1], "%s", c->name);
  rs.force_chooser_seat = -1;
  rs.delay_plies = o->delay_plies;
  rs.delay_ms = o->delay_ms;
  accept_op *op = xcalloc(1, sizeof *op);
  op->c = c;
  op->id = m->id ? json_incref(m->id) : NULL;
  op->re = re;
  agon_err e;
  agon_err_clear(&e);
  int rc = room_create(c->srv, &rs, accept_done, op, &e);
  if (rc != 0) {
    conn_reply_err(c, m->type, m->id, rc, e.msg[0] ? e.msg : NULL);
    json_decref(op->id);
    free(op);
    return;
  }
  conn_op_begin(c);
  offer_remove(c->srv, o, "accepted");
}

/* ---- seeks ------------------------------------------------------------------ */

void lobby_h_seek_create(conn *c, proto_msg *m) {
  offer *o = offer_parse(c, m, OFFER_SEEK, NULL);
  if (o == NULL) return;
  offer_link(c->srv, o);
  conn_reply_ok(c, m->type, m->id, json_pack("{s:I}", "seek_id", (json_int_t)o->id));
  json_t *ev = proto_event("seek_added");
  json_object_set_new(ev, "seek", offer_json(o));
  send_to(c->srv, 0, ev);
  json_decref(ev);
}

static offer *find_by_field(conn *c, proto_msg *m, const char *field, int kind) {
  json_int_t id;
  agon_err e;
  if (proto_unpack(m, &e, "{s:I}", field, &id) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return NULL;
  }
  offer *o = offer_find(c->srv, kind, id);
  if (o == NULL) {
    char msg[64];
    snprintf(msg, sizeof msg, "no such %s", kind_name(kind));
    conn_reply_err(c, m->type, m->id, AGON_ENOTFOUND, msg);
  }
  return o;
}

void lobby_h_seek_cancel(conn *c, proto_msg *m) {
  offer *o = find_by_field(c, m, "seek_id", OFFER_SEEK);
  if (o == NULL) return;
  if (o->by != c->player_id) {
    conn_reply_err(c, m->type, m->id, AGON_EFORBIDDEN, "not your seek");
    return;
  }
  conn_reply_ok(c, m->type, m->id, NULL);
  offer_remove(c->srv, o, "cancelled");
}

void lobby_h_seek_accept(conn *c, proto_msg *m) {
  offer *o = find_by_field(c, m, "seek_id", OFFER_SEEK);
  if (o) offer_accept(c, m, o, "seek_accept");
}

static json_t *seek_list(struct server *s, const char *game) {
  json_t *a = json_array();
  unsigned n = 0;
  for (offer *o = s->lobby->head; o && n < LOBBY_LIST_MAX; o = o->next) {
    if (o->kind != OFFER_SEEK) continue;
    if (game && strcasecmp(game, o->vt->name) != 0) continue;
    json_array_append_new(a, offer_json(o));
    n++;
  }
  return a;
}

void lobby_h_seeks(conn *c, proto_msg *m) {
  const char *game = NULL;
  agon_err e;
  if (proto_unpack(m, &e, "{s?s}", "game", &game) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  conn_reply_ok(c, m->type, m->id, json_pack("{s:o}", "seeks", seek_list(c->srv, game)));
}

void lobby_h_subscribe(conn *c, proto_msg *m) {
  int on;
  agon_err e;
  if (proto_unpack(m, &e, "{s:b}", "on", &on) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  if (c->lobby_sub != (on ? 1 : 0)) {
    c->lobby_sub = on ? 1 : 0;
    if (on) c->srv->lobby->subs++;
    else c->srv->lobby->subs--;
  }
  conn_reply_ok(c, m->type, m->id,
                on ? json_pack("{s:o}", "seeks", seek_list(c->srv, NULL)) : NULL);
}

/* ---- challenges ----------------------------------------------------------- */

void lobby_h_challenge(conn *c, proto_msg *m) {
  const char *to = NULL;
  offer *o = offer_parse(c, m, OFFER_CHALLENGE, &to);
  if (o == NULL) return;
  conn *t = NULL;
  for (conn *x = c->srv->conns; x; x = x->next)
    if (x->player_id && !x->closing && strcasecmp(x->name, to) == 0) {
      t = x;
      break;
    }
  if (t == NULL || t->player_id == c->player_id) {
    conn_reply_err(c, m->type, m->id, t ? AGON_EFORBIDDEN : AGON_ENOTFOUND,
                   t ? "you cannot challenge yourself" : "no such player online");
    offer_free(o);
    return;
  }
  o->to = t->player_id;
  snprintf(o->to_name, sizeof o->to_name, "%s", t->name);
  offer_link(c->srv, o);
  conn_reply_ok(c, m->type, m->id,
                json_pack("{s:I}", "challenge_id", (json_int_t)o->id));
  json_t *ev = offer_json(o);
  json_object_set_new(ev, "event", json_string("challenge"));
  send_to(c->srv, o->to, ev);
  json_decref(ev);
}

void lobby_h_challenge_accept(conn *c, proto_msg *m) {
  offer *o = find_by_field(c, m, "challenge_id", OFFER_CHALLENGE);
  if (o == NULL) return;
  if (o->to != c->player_id) {
    conn_reply_err(c, m->type, m->id, AGON_EFORBIDDEN, "not addressed to you");
    return;
  }
  offer_accept(c, m, o, "challenge_accept");
}

void lobby_h_challenge_decline(conn *c, proto_msg *m) {
  offer *o = find_by_field(c, m, "challenge_id", OFFER_CHALLENGE);
  if (o == NULL) return;
  if (o->to != c->player_id) {
    conn_reply_err(c, m->type, m->id, AGON_EFORBIDDEN, "not addressed to you");
    return;
  }
  conn_reply_ok(c, m->type, m->id, NULL);
  offer_remove(c->srv, o, "declined");
}

void lobby_h_challenge_cancel(conn *c, proto_msg *m) {
  offer *o = find_by_field(c, m, "challenge_id", OFFER_CHALLENGE);
  if (o == NULL) return;
  if (o->by != c->player_id) {
    conn_reply_err(c, m->type, m->id, AGON_EFORBIDDEN, "not your challenge");
    return;
  }
  conn_reply_ok(c, m->type, m->id, NULL);
  offer_remove(c->srv, o, "cancelled");
}

/* ---- invites ------------------------------------------------------------------ */

void lobby_h_invite_create(conn *c, proto_msg *m) {
  offer *o = offer_parse(c, m, OFFER_INVITE, NULL);
  if (o == NULL) return;
  /* 10 characters from 32 (no look-alikes 0/1/l/o): 50 bits, not
   * guessable within the rate limits. */
  static const char alphabet[] = "abcdefghijkmnpqrstuvwxyz23456789";
  unsigned char rnd[LOBBY_CODE_LEN];
  randombytes_buf(rnd, sizeof rnd);
  for (int i = 0; i < LOBBY_CODE_LEN; i++) o->code[i] = alphabet[rnd[i] & 31];
  o->code[LOBBY_CODE_LEN] = '\0';
  offer_link(c->srv, o);
  conn_reply_ok(c, m->type, m->id,
                json_pack("{s:I, s:s}", "invite_id", (json_int_t)o->id, "code", o->code));
}

void lobby_h_invite_join(conn *c, proto_msg *m) {
  const char *code;
  agon_err e;
  if (proto_unpack(m, &e, "{s:s}", "code", &code) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  for (offer *o = c->srv->lobby->head; o; o = o->next)
    if (o->kind == OFFER_INVITE && strlen(code) == LOBBY_CODE_LEN &&
        sodium_memcmp(o->code, code, LOBBY_CODE_LEN) == 0) {
      offer_accept(c, m, o, "invite_join");
      return;
    }
  conn_reply_err(c, m->type, m->id, AGON_ENOTFOUND, "no such invitation");
}

void lobby_h_invite_cancel(conn *c, proto_msg *m) {
  offer *o = find_by_field(c, m, "invite_id", OFFER_INVITE);
  if (o == NULL) return;
  if (o->by != c->player_id) {
    conn_reply_err(c, m->type, m->id, AGON_EFORBIDDEN, "not your invitation");
    return;
  }
  conn_reply_ok(c, m->type, m->id, NULL);
  offer_remove(c->srv, o, "cancelled");
}

/* ---- online players ------------------------------------------------------- */

typedef struct online_player {
  const char *name;  /* borrowed from one of its connections */
  int64_t pid;
} online_player;

static int by_name(const void *a, const void *b) {
  const online_player *x = a, *y = b;
  int d = strcasecmp(x->name, y->name);
  return d ? d : strcmp(x->name, y->name);
}

void lobby_h_players(conn *c, proto_msg *m) {
  const char *prefix = NULL;
  json_int_t limit = LOBBY_PLAYERS_MAX;
  agon_err e;
  if (proto_unpack(m, &e, "{s?s, s?I}", "prefix", &prefix, "limit", &limit) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  if (limit < 1 || limit > LOBBY_PLAYERS_MAX) {
    char msg[64];
    snprintf(msg, sizeof msg, "limit must be 1-%d", LOBBY_PLAYERS_MAX);
    conn_reply_err(c, m->type, m->id, AGON_EBADFIELD, msg);
    return;
  }
  struct server *s = c->srv;
  size_t plen = prefix ? strlen(prefix) : 0;
  /* A player counts once: at the first open connection of its chain in
   * the player index (O(1) per connection), so the walk is O(conns). The
   * scratch arrays are the only allocation: O(players matching). */
  size_t cap = 0, n = 0;
  for (conn *x = s->conns; x; x = x->next)
    cap += x->player_id && !x->closing && conn_player_first(s, x->player_id) == x;
  online_player *all = xmalloc((cap ? cap : 1) * sizeof *all);
  for (conn *x = s->conns; x && n < cap; x = x->next) {
    if (!x->player_id || x->closing || conn_player_first(s, x->player_id) != x)
      continue;
    if (plen && strncasecmp(x->name, prefix, plen) != 0) continue;
    all[n].name = x->name;
    all[n].pid = x->player_id;
    n++;
  }
  if (n) qsort(all, n, sizeof *all, by_name);
  int more = n > (size_t)limit;
  if (more) n = (size_t)limit;
  int64_t *pids = xmalloc((n ? n : 1) * sizeof *pids);
  unsigned *games = xmalloc((n ? n : 1) * sizeof *games);
  for (size_t i = 0; i < n; i++) pids[i] = all[i].pid;
  qsort(pids, n, sizeof *pids, rooms_pid_cmp);
  rooms_count_live(s, pids, games, n);
  json_t *list = json_array();
  for (size_t i = 0; i < n; i++) {
    const int64_t *hit = bsearch(&all[i].pid, pids, n, sizeof *pids, rooms_pid_cmp);
    json_array_append_new(list, json_pack("{s:s, s:I, s:i}", "name", all[i].name,
                                          "player_id", (json_int_t)all[i].pid,
                                          "games", (int)games[hit - pids]));
  }
  free(pids);
  free(games);
  free(all);
  conn_reply_ok(c, m->type, m->id, json_pack("{s:o, s:b}", "players", list, "more", more));
}
