/* room.c - live games: see room.h and docs/protocol.md (Live play). */
#include "room.h"

#include <inttypes.h>
#include <stdarg.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db.h"
#include "log.h"
#include "metrics.h"
#include "server_int.h"
#include "spectate.h"
#include "util.h"

enum {
  ROOM_ACTIVE = 0,
  ROOM_OVER = 1,      /* finished or aborted (kept while attached) */
  ROOM_BROKEN = 2,    /* a write failed: waiting for in-flight writes */
  ROOM_RELOADING = 3  /* reading the game back from the database */
};

struct room {
  int64_t id;
  struct server *srv;
  room *hnext;                 /* hash chain */
  room *prev, *next;           /* every room */
  uv_timer_t timer;            /* flag fall: single shot, re-armed */
  game_match m;
  uint64_t hist[ROOM_HIST_CAP];
  game_clock clk;
  int64_t player[2];
  char name[2][24];
  double rating[2];            /* for the game type, when the room was made */
  int64_t rematch_of;
  uint64_t gone_since[2];      /* loop ms when the seat's last connection
                                  left; valid while natt[seat] == 0 */
  room_att *atts;
  uint32_t seq;                /* last seq assigned (applied to m) */
  uint32_t committed;          /* last seq committed and broadcast */
  uint32_t inflight;           /* writes not yet completed */
  uint16_t natt[2];
  int8_t side[2];              /* side of each seat, -1 before the choice */
  int8_t chooser_seat;         /* -1: not a chooser game */
  int8_t draw_offer;           /* seat with a pending offer, or -1 */
  int8_t rematch_offer;        /* seat with a pending rematch offer, or -1 */
  uint8_t state, rated, hold, freeing, rematched, aborted;
  uint8_t moved[2];            /* the seat has made a move (abort rule) */
  char tc_text[24];
  game_outcome final;          /* ending (reason copied below) */
  char final_reason[32];
  spec_list specs;             /* spectators (spectate.h) */
  spec_delay *delay;           /* spectator delay, or NULL */
};

/* ---- table ------------------------------------------------------------- */

struct rooms {
  room **hash;                 /* ROOM_HASH_SLOTS chains */
  room *all;
  unsigned n;
};

static unsigned hslot(int64_t id) {
  return (unsigned)(((uint64_t)id * 0x9E3779B97F4A7C15ULL) >> 40) &
         (ROOM_HASH_SLOTS - 1);
}

void rooms_init(struct server *s) {
  s->rooms = xcalloc(1, sizeof *s->rooms);
  s->rooms->hash = xcalloc(ROOM_HASH_SLOTS, sizeof *s->rooms->hash);
}

unsigned rooms_count(const struct server *s) {
  return s->rooms ? s->rooms->n : 0;
}

int rooms_pid_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

void rooms_count_live(const struct server *s, const int64_t *pids,
                      unsigned *games, size_t n) {
  memset(games, 0, n * sizeof *games);
  if (n == 0 || s->rooms == NULL) return;
  for (const room *r = s->rooms->all; r; r = r->next) {
    if (r->state == ROOM_OVER) continue;
    for (int seat = 0; seat < 2; seat++) {
      const int64_t *hit = bsearch(&r->player[seat], pids, n, sizeof *pids,
                                   rooms_pid_cmp);
      if (hit) games[hit - pids]++;
    }
  }
}

static room *room_find(struct server *s, int64_t id) {
  for (room *r = s->rooms->hash[hslot(id)]; r; r = r->hnext)
    if (r->id == id) return r;
  return NULL;
}

static void room_timer_closed_cb(uv_handle_t *h) { free(h->data); }

static void room_unlink(room *r) {
  struct rooms *t = r->srv->rooms;
  room **pp = &t->hash[hslot(r->id)];
  while (*pp != r) pp = &(*pp)->hnext;
  *pp = r->hnext;
  if (r->prev) r->prev->next = r->next;
  else t->all = r->next;
  if (r->next) r->next->prev = r->prev;
  t->n--;
}

/* Frees a finished room nobody needs any more (not inside its callbacks). */
static void room_maybe_free(room *r) {
  if (r->freeing || r->hold || r->inflight || r->atts || r->specs.head ||
      r->state != ROOM_OVER)
    return;
  r->freeing = 1;
  room_unlink(r);
  spec_delay_free(r->delay);
  r->delay = NULL;
  uv_timer_stop(&r->timer);
  uv_close((uv_handle_t *)&r->timer, room_timer_closed_cb);
}

void rooms_close(struct server *s) {
  struct rooms *t = s->rooms;
  if (t == NULL) return;
  while (t->all) {
    room *r = t->all;
    while (r->atts) {  /* connections are all gone by now; be safe */
      room_att *a = r->atts;
      r->atts = a->rnext;
      free(a);
    }
    while (r->specs.head) {  /* likewise: do not touch the connections */
      spec_att *a = r->specs.head;
      r->specs.head = a->rnext;
      free(a);
    }
    r->freeing = 1;
    room_unlink(r);
    spec_delay_free(r->delay);
    r->delay = NULL;
    uv_timer_stop(&r->timer);
    uv_close((uv_handle_t *)&r->timer, room_timer_closed_cb);
  }
  free(t->hash);
  free(t);
  s->rooms = NULL;
}

/* ---- small helpers ------------------------------------------------------ */

static int seat_of_side(const room *r, int side) {
  if (side == GAME_CHOOSER) return r->chooser_seat;
  if (side < 0) return -1;
  if (r->side[0] == side) return 0;
  if (r->side[1] == side) return 1;
  return -1;
}

static int seat_of_player(const room *r, int64_t pid) {
  if (r->player[0] == pid) return 0;
  if (r->player[1] == pid) return 1;
  return -1;
}

static uint64_t now_ms(const room *r) { return uv_now(r->srv->loop); }

static json_t *clocks_json(const game_clock *k, uint64_t now) {
  json_t *ms;
  if (k->tc.kind == CLOCK_UNTIMED) {
    ms = json_null();
  } else {
    int64_t a = clock_remaining(k, 0, (int64_t)now);
    int64_t b = clock_remaining(k, 1, (int64_t)now);
    ms = json_pack("[I, I]", (json_int_t)(a < 0 ? 0 : a),
                   (json_int_t)(b < 0 ? 0 : b));
  }
  return json_pack("{s:o, s:o}", "ms", ms, "running",
                   k->running >= 0 ? json_integer(k->running) : json_null());
}

static int64_t grace_ms(const room *r) {
  if (r->srv->cfg.claim_grace_ms) return (int64_t)r->srv->cfg.claim_grace_ms;
  switch (r->clk.tc.kind) {
    case CLOCK_FISCHER: {
      int64_t g = r->clk.tc.base_ms / 5;
      if (g < ROOM_GRACE_MIN_MS) g = ROOM_GRACE_MIN_MS;
      if (g > ROOM_GRACE_MAX_MS) g = ROOM_GRACE_MAX_MS;
      return g;
    }
    case CLOCK_CORRESPONDENCE:
      return ROOM_GRACE_CORR_MS;
    default:
      return ROOM_GRACE_UNTIMED_MS;
  }
}

static int viewer_of(const room *r, int seat) {
  return seat >= 0 && r->side[seat] >= 0 ? r->side[seat] : GAME_VIEW_ALL;
}

static json_t *side_json(const room *r, int side) {
  return side >= 0 ? json_string(game_side_name(r->m.vt, side)) : json_null();
}

static json_t *players_json(const room *r) {
  json_t *a = json_array();
  for (int s = 0; s < 2; s++)
    json_array_append_new(a, json_pack("{s:i, s:s, s:o, s:f}", "seat", s,
                                       "name", r->name[s], "side",
                                       side_json(r, r->side[s]), "rating",
                                       r->rating[s]));
  return a;
}

static json_t *to_move_json(const room *r) {
  int tm = game_match_to_move(&r->m);
  if (tm == GAME_NOBODY || r->state == ROOM_OVER) return json_null();
  return json_string(game_side_name(r->m.vt, tm));
}

/* The client view plus the position text (docs/positions.md) when the
 * game's own view lacks it: a client can then run the rules core locally
 * from it (legal moves, replays) without the secret seed. */
static json_t *room_view(const room *r, int seat) {
  json_t *v = game_match_view(&r->m, viewer_of(r, seat));
  if (json_object_get(v, "position") == NULL && r->m.vt->to_position) {
    char pos[GAME_POSITION_MAX];
    if (r->m.vt->to_position(&r->m.st, pos, sizeof pos) >= 0)
      json_object_set_new(v, "position", json_string(pos));
  }
  return v;
}

/* The game as game_start shows it, for one seat (-1: neutral). */
static json_t *room_start_json(room *r, int seat) {
  json_t *j = json_pack(
      "{s:I, s:s, s:o, s:s, s:b, s:o, s:o, s:I, s:o, s:o}", "game_id",
      (json_int_t)r->id, "game", r->m.vt->name, "options",
      game_setup_to_json(&r->m.setup), "time_control", r->tc_text, "rated",
      r->rated, "players", players_json(r), "chooser_seat",
      r->chooser_seat >= 0 ? json_integer(r->chooser_seat) : json_null(),
      "seq", (json_int_t)r->committed, "clocks", clocks_json(&r->clk, now_ms(r)),
      "state", room_view(r, seat));
  if (r->rematch_of)
    json_object_set_new(j, "rematch_of", json_integer(r->rematch_of));
  return j;
}

/* ---- sending ------------------------------------------------------------ */

/* Send b to the attached connections of seat (-1: all). Targets are
 * collected first and held (conn_op_begin): a send may close a connection
 * (output cap), which detaches it from rooms while we iterate. */
static void room_send(room *r, wbuf *b, int seat) {
  conn *tg[ROOM_MAX_ATT];
  unsigned n = 0;
  for (room_att *a = r->atts; a && n < ROOM_MAX_ATT; a = a->rnext) {
    if (seat >= 0 && a->seat != seat) continue;
    tg[n++] = a->c;
    conn_op_begin(a->c);
  }
  r->hold++;
  for (unsigned i = 0; i < n; i++)
    if (!tg[i]->closing) conn_send(tg[i], b);
  for (unsigned i = 0; i < n; i++) conn_op_end(tg[i]);
  r->hold--;
}

static void room_send_json(room *r, json_t *ev, int seat) {
  wbuf *b = wbuf_from_json(ev);
  if (b) {
    room_send(r, b, seat);
    wbuf_unref(b);
  }
}

/* Players and spectators (spectating section below). */
static void room_send_all(room *r, wbuf *b);
static void spec_broadcast_events(room *r, const gs_append *a, wbuf *const *ev, int n);
static void room_delay_init(room *r, uint32_t plies, int64_t ms);
static void room_delay_rebuild(room *r, const gs_game *g);
static void room_delay_build(room *r, const gs_game *g);
static void spec_notify_count(room *r);

/* ---- attachments -------------------------------------------------------- */

static room_att *att_find(conn *c, room *r) {
  for (room_att *a = c->atts; a; a = a->cnext)
    if (a->r == r) return a;
  return NULL;
}

static void notify_presence(room *r, int seat, int back) {
  if (r->state != ROOM_ACTIVE) return;
  json_t *ev = proto_event(back ? "opponent_back" : "opponent_gone");
  json_object_set_new(ev, "game_id", json_integer(r->id));
  if (!back) json_object_set_new(ev, "grace_ms", json_integer(grace_ms(r)));
  room_send_json(r, ev, 1 - seat);
  json_decref(ev);
}

/* Attach c at seat. Returns 0, or AGON_ETOOLARGE. */
static int room_attach(room *r, conn *c, int seat) {
  if (att_find(c, r)) return 0;
  unsigned total = r->natt[0] + r->natt[1];
  if (total >= ROOM_MAX_ATT || c->natts >= CONN_MAX_ROOMS) return AGON_ETOOLARGE;
  room_att *a = xcalloc(1, sizeof *a);
  a->r = r;
  a->c = c;
  a->seat = seat;
  a->rnext = r->atts;
  if (r->atts) r->atts->rprev = a;
  r->atts = a;
  a->cnext = c->atts;
  c->atts = a;
  c->natts++;
  if (r->natt[seat]++ == 0) notify_presence(r, seat, 1);
  return 0;
}

/* Unlink a from the room (the caller unlinks it from the connection). */
static void room_detach(room_att *a) {
  room *r = a->r;
  if (a->rprev) a->rprev->rnext = a->rnext;
  else r->atts = a->rnext;
  if (a->rnext) a->rnext->rprev = a->rprev;
  a->c->natts--;
  int seat = a->seat;
  free(a);
  if (--r->natt[seat] == 0) {
    r->gone_since[seat] = now_ms(r);
    r->hold++;
    notify_presence(r, seat, 0);
    r->hold--;
  }
  room_maybe_free(r);
}

void rooms_conn_gone(conn *c) {
  while (c->atts) {
    room_att *a = c->atts;
    c->atts = a->cnext;
    room_detach(a);
  }
}

/* Detach c from its finished rooms: a new game of the player closes the
 * rematch window of the old ones, and frees them (a bot playing game after
 * game on one connection must not pile up finished rooms, nor reach
 * CONN_MAX_ROOMS). */
static void detach_finished(conn *c) {
  room_att **pp = &c->atts;
  while (*pp) {
    room_att *a = *pp;
    if (a->r->state == ROOM_OVER) {
      *pp = a->cnext;
      room_detach(a);
    } else {
      pp = &a->cnext;
    }
  }
}

/* Attach every open connection of both players (game start). */
static void attach_players(room *r) {
  /* Through the player index: walking every connection per game start
   * cost ~2.5% of the loop at 2 000 connections. */
  for (int seat = 0; seat < 2; seat++) {
    if (seat == 1 && r->player[1] == r->player[0]) break;
    for (conn *c = conn_player_first(r->srv, r->player[seat]), *next; c;
         c = next) {
      next = conn_player_next(c);
      if (c->closing) continue;
      detach_finished(c);
      if (room_attach(r, c, seat_of_player(r, c->player_id)) != 0)
        log_warn("game %lld: conn %llu not attached (too many games)",
                 (long long)r->id, (unsigned long long)c->id);
    }
  }
}

/* A finished room is kept ROOM_LINGER_MS for rematch offers and late
 * joins, then every connection is detached and the room freed. */
static void room_linger_cb(uv_timer_t *t) {
  room *r = t->data;
  r->hold++;
  while (r->atts) {
    room_att *a = r->atts;
    room_att **pp = &a->c->atts;
    while (*pp != a) pp = &(*pp)->cnext;
    *pp = a->cnext;
    room_detach(a);
  }
  while (r->specs.head) spec_remove(&r->specs, r->specs.head);
  r->hold--;
  room_maybe_free(r);
}

/* ---- clocks -------------------------------------------------------------- */

static void room_flag_cb(uv_timer_t *t);

static void room_arm(room *r) {
  if (r->state != ROOM_ACTIVE || r->clk.running < 0) {
    uv_timer_stop(&r->timer);
    return;
  }
  int64_t in = clock_flag_in(&r->clk, (int64_t)now_ms(r));
  if (in < 0) {
    uv_timer_stop(&r->timer);
    return;
  }
  uv_timer_start(&r->timer, room_flag_cb, (uint64_t)in, 0);
}

/* Start the clock of whoever is to move (or nobody). */
static void clock_follow(room *r, game_clock *k, const game_match *m,
                         uint64_t now, int switching) {
  int tm = game_match_to_move(m);
  int next = game_match_outcome(m).result != GAME_ONGOING ? -1
                                                          : seat_of_side(r, tm);
  if (k->tc.kind == CLOCK_UNTIMED) {
    k->running = next;
    return;
  }
  if (switching) clock_switch(k, next, (int64_t)now);
  else if (next >= 0) clock_start(k, next, (int64_t)now);
}

/* ---- writes -------------------------------------------------------------- */

typedef struct room_op {
  gs_append a;           /* the job (first: db ctx) */
  room *r;
  conn *c;               /* requester (held) or NULL */
  json_t *id;            /* request id (new ref) or NULL */
  const char *re;        /* static request type */
  json_t *reply;         /* reply data (owned), or: */
  wbuf *reply_line;      /* the whole encoded reply (moves: no json_t tree) */
  wbuf *ev[2];           /* events to broadcast after commit */
  uint64_t t0_ns;        /* request arrival (uv_hrtime): ack latency */
  uint32_t last_seq;
  int ends;              /* the game ends with this write */
  int end_slot;          /* ev[] slot of the game_end event */
} room_op;

static room_op *op_new(room *r, conn *c, proto_msg *m, const char *re) {
  room_op *op = xcalloc(1, sizeof *op);
  op->r = r;
  op->c = c;
  op->re = re;
  op->a.game_id = r->id;
  op->a.event_side = -1;
  op->a.winner_side = -1;
  op->t0_ns = uv_hrtime();
  if (m && m->id) op->id = json_incref(m->id);
  return op;
}

static void op_free(room_op *op) {
  json_decref(op->id);
  json_decref(op->reply);
  wbuf_unref(op->reply_line);
  wbuf_unref(op->ev[0]);
  wbuf_unref(op->ev[1]);
  free(op->a.data);
  free(op);
}

static void room_reload(room *r);
static wbuf *encode_free(json_t *j);
static json_t *event_json(int64_t game_id, uint32_t seq, const char *kind,
                          const char *data);

static void room_write_cb(void *ctx, int status) {
  room_op *op = ctx;
  room *r = op->r;
  r->inflight--;
  r->hold++;
  if (status == 0) {
    if (op->last_seq > r->committed) r->committed = op->last_seq;
    if (op->re && strcmp(op->re, "move") == 0) metrics_move_acked_us((uv_hrtime() - op->t0_ns) / 1000);
    if (op->a.rated_out) {
      /* The job added the ratings to the stored game_end data: broadcast
       * exactly what a later join replays. */
      wbuf_unref(op->ev[op->end_slot]);
      op->ev[op->end_slot] = encode_free(
          event_json(r->id, op->a.event_seq, "game_end", op->a.data));
    }
    /* The mover's reply and the players' events are queued before the
     * spectators': conn_flush_all writes connections in the order they were
     * queued, so the players' writes do not wait behind thousands of
     * spectator writes (broadcast bench: the ack does not grow with the
     * audience). */
    if (op->c) {
      if (conn_op_end(op->c)) {
        if (op->reply_line) {
          conn_send(op->c, op->reply_line);
        } else {
          conn_reply_ok(op->c, op->re, op->id, op->reply);
          op->reply = NULL;
        }
      }
      op->c = NULL;
    }
    for (int i = 0; i < 2; i++)
      if (op->ev[i]) room_send(r, op->ev[i], -1);
    spec_broadcast_events(r, &op->a, op->ev, 2);
    spec_notify_count(r);
  } else {
    if (r->state != ROOM_BROKEN && r->state != ROOM_RELOADING) {
      log_error("game %lld: write of seq %u failed (%s): reloading it",
                (long long)r->id, op->last_seq, agon_err_name(status));
      r->state = ROOM_BROKEN;
      uv_timer_stop(&r->timer);
    }
    if (op->c) {
      if (conn_op_end(op->c))
        conn_reply_err(op->c, op->re, op->id, AGON_ESTORAGE,
                       "the database failed; the game is being reloaded");
      op->c = NULL;
    }
  }
  if (r->state == ROOM_BROKEN && r->inflight == 0) room_reload(r);
  r->hold--;
  op_free(op);
  room_maybe_free(r);
}

/* Queue op. On refusal, replies busy/shutting_down and frees op: the
 * caller must not have changed the room yet. */
static int room_submit(room *r, room_op *op) {
  int rc = gs_append_write(r->srv->db, &op->a, room_write_cb);
  if (rc != 0) {
    if (op->c)
      conn_reply_err(op->c, op->re, op->id,
                     rc == AGON_ESHUTDOWN ? AGON_ESHUTDOWN : AGON_EBUSY,
                     "storage queue full, retry");
    op->c = NULL;
    op_free(op);
    return rc;
  }
  if (op->c) conn_op_begin(op->c);
  r->inflight++;
  return 0;
}

static wbuf *encode_free(json_t *j) {
  wbuf *b = wbuf_from_json(j);
  json_decref(j);
  return b;
}

/* Event JSON of a stored non-move event: {"event":kind,"game_id","seq"} +
 * the stored data object. Shared by broadcasts and join replays so both
 * are byte-for-byte the same shape. */
static json_t *event_json(int64_t game_id, uint32_t seq, const char *kind,
                          const char *data) {
  json_t *ev = proto_event(kind);
  json_object_set_new(ev, "game_id", json_integer(game_id));
  json_object_set_new(ev, "seq", json_integer(seq));
  if (data) {
    json_t *d = json_loads(data, 0, NULL);
    if (json_is_object(d)) json_object_update(ev, d);
    json_decref(d);
  }
  return ev;
}

/* Add an event row to op: data steals. Returns the broadcast event. */
static void op_event(room_op *op, uint32_t seq, const char *kind, int side,
                     json_t *data, int slot, int64_t at_ms) {
  op->a.has_event = 1;
  op->a.event_seq = seq;
  snprintf(op->a.kind, sizeof op->a.kind, "%s", kind);
  op->a.event_side = side;
  op->a.at_ms = at_ms;
  op->a.data = json_dumps(data, JSON_COMPACT);
  json_decref(data);
  op->ev[slot] = encode_free(event_json(op->r->id, seq, kind, op->a.data));
  op->last_seq = seq;
}

/* The ending o (on scratch state m/k) into op: the games row update and the
 * game_end event at seq. */
static void op_end(room_op *op, room *r, game_outcome o, int aborted,
                   int wseat, const game_clock *k, uint32_t seq, int slot,
                   int64_t at) {
  op->ends = 1;
  op->a.end = 1;
  op->a.aborted = aborted;
  op->a.result = aborted ? 0 : (int)o.result;
  op->a.winner_side = o.result == GAME_WIN ? o.winner : -1;
  snprintf(op->a.reason, sizeof op->a.reason, "%s", o.reason ? o.reason : "");
  /* wseat is given when the winner has no side yet (a Gambo chooser who
   * resigned or lost on time before choosing). */
  if (o.result != GAME_WIN) wseat = -1;
  else if (o.winner >= 0) wseat = seat_of_side(r, o.winner);
  json_t *d = json_pack(
      "{s:o, s:o, s:o, s:s, s:s, s:o}", "result",
      aborted ? json_null()
              : json_string(o.result == GAME_WIN ? "win" : "draw"),
      "winner", o.result == GAME_WIN ? side_json(r, o.winner) : json_null(),
      "winner_seat", wseat >= 0 ? json_integer(wseat) : json_null(), "reason",
      op->a.reason, "seed", "", "clocks", clocks_json(k, now_ms(r)));
  char seed[24];
  snprintf(seed, sizeof seed, "%" PRIu64, r->m.seed);
  json_object_set_new(d, "seed", json_string(seed));
  /* Rated results move both ratings in the same job (gamestore.h); a win
   * without a winning seat cannot be scored and is left unrated. */
  if (r->rated && !aborted &&
      (o.result == GAME_DRAW || (o.result == GAME_WIN && wseat >= 0))) {
    op->a.rate = 1;
    snprintf(op->a.game_type, sizeof op->a.game_type, "%s", r->m.vt->name);
    op->a.player[0] = r->player[0];
    op->a.player[1] = r->player[1];
    op->a.score0 = o.result == GAME_DRAW ? 0.5 : wseat == 0 ? 1.0 : 0.0;
  }
  op->end_slot = slot;
  op_event(op, seq, "game_end", -1, d, slot, at);
}

/* After a successful submit: the room takes the ending. */
static void room_apply_end(room *r, game_outcome o, int aborted) {
  if (r->state == ROOM_ACTIVE) metrics_game_finished();
  r->state = ROOM_OVER;
  r->aborted = (uint8_t)aborted;
  snprintf(r->final_reason, sizeof r->final_reason, "%s",
           o.reason ? o.reason : "");
  r->final = o;
  r->final.reason = r->final_reason;
  if (game_match_outcome(&r->m).result == GAME_ONGOING) game_match_end(&r->m, r->final);
  clock_stop(&r->clk, (int64_t)now_ms(r));
  r->draw_offer = -1;
  uv_timer_stop(&r->timer);
  uv_timer_start(&r->timer, room_linger_cb, ROOM_LINGER_MS, 0);
}

/* End the game from outside the rules (resign, agreement, timeout, abort,
 * claim) as one stored game_end event. c/m/re: the request to answer (or
 * NULL for the flag timer). */
static void room_end_now(room *r, game_outcome o, int aborted, int wseat,
                         conn *c, proto_msg *m, const char *re) {
  room_op *op = op_new(r, c, m, re);
  uint32_t seq = r->seq + 1;
  game_clock k = r->clk;
  clock_stop(&k, (int64_t)now_ms(r));
  op_end(op, r, o, aborted, wseat, &k, seq, 0, db_now_ms());
  op->reply = json_pack("{s:I, s:I}", "game_id", (json_int_t)r->id, "seq",
                        (json_int_t)seq);
  if (room_submit(r, op) != 0) return;
  r->seq = seq;
  room_apply_end(r, o, aborted);
}

static void room_flag_cb(uv_timer_t *t) {
  room *r = t->data;
  if (r->state != ROOM_ACTIVE || r->clk.running < 0) return;
  int seat = r->clk.running;
  if (clock_remaining(&r->clk, seat, (int64_t)now_ms(r)) > 0) {
    room_arm(r);  /* woke early (timer granularity) */
    return;
  }
  /* The opponent can always still win in these rulesets (the rules core
   * has no "cannot win" query): a flag fall is a loss (docs/protocol.md). */
  int wside = r->side[1 - seat];
  game_outcome o = wside >= 0 ? game_outcome_win(wside, "timeout")
                              : game_outcome_draw("timeout");
  if (wside < 0) {
    /* The chooser ran out of time before choosing: no sides exist yet, so
     * the result is a win of the other seat without a side. */
    o.result = GAME_WIN;
    o.winner = GAME_NOBODY;
  }
  room_end_now(r, o, 0, 1 - seat, NULL, NULL, NULL);
  if (r->state == ROOM_ACTIVE) {
    /* The write was refused (queue full): try again shortly. */
    uv_timer_start(&r->timer, room_flag_cb, ROOM_RETRY_MS, 0);
  }
}

/* ---- creation ------------------------------------------------------------ */

static room *room_alloc(struct server *s, int64_t id) {
  room *r = xcalloc(1, sizeof *r);
  r->id = id;
  r->srv = s;
  r->side[0] = r->side[1] = -1;
  r->chooser_seat = -1;
  r->draw_offer = r->rematch_offer = -1;
  uv_timer_init(s->loop, &r->timer);
  r->timer.data = r;
  struct rooms *t = s->rooms;
  unsigned h = hslot(id);
  r->hnext = t->hash[h];
  t->hash[h] = r;
  r->next = t->all;
  if (t->all) t->all->prev = r;
  t->all = r;
  t->n++;
  return r;
}

typedef struct create_op {
  gs_create g;               /* first: db ctx */
  struct server *srv;
  const game_vtable *vt;
  game_setup setup;
  uint64_t seed;
  int64_t rematch_of;
  char name[2][24];
  void (*done)(void *, int64_t, int);
  void *arg;
} create_op;

static void create_cb(void *ctx, int status) {
  create_op *op = ctx;
  struct server *s = op->srv;
  if (status != 0 || s->rooms == NULL) {
    op->done(op->arg, 0, status ? status : AGON_ESHUTDOWN);
    free(op->g.options_json);
    free(op);
    return;
  }
  room *r = room_alloc(s, op->g.game_id);
  agon_err e;
  if (game_match_init(&r->m, &op->setup, op->seed, r->hist, ROOM_HIST_CAP,
                      &e) != 0) {
    /* Checked before the write: cannot happen. */
    log_error("game %lld: init failed after commit: %s", (long long)r->id, e.msg);
  }
  for (int i = 0; i < 2; i++) {
    r->player[i] = op->g.player[i];
    r->side[i] = (int8_t)op->g.side[i];
    snprintf(r->name[i], sizeof r->name[i], "%s", op->name[i]);
    r->rating[i] = op->g.rating[i];
  }
  r->chooser_seat = (int8_t)op->g.chooser_seat;
  r->rated = (uint8_t)op->g.rated;
  r->rematch_of = op->rematch_of;
  room_delay_init(r, op->g.delay_plies, op->g.delay_ms);
  snprintf(r->tc_text, sizeof r->tc_text, "%s", op->g.tc_text);
  clock_tc tc;
  clock_tc_parse(&tc, op->g.tc_text, NULL);
  clock_init(&r->clk, &tc);
  uint64_t now = now_ms(r);
  clock_follow(r, &r->clk, &r->m, now, 0);
  room_arm(r);
  attach_players(r);
  for (int i = 0; i < 2; i++)
    if (r->natt[i] == 0) r->gone_since[i] = now;
  metrics_game_started();
  log_info("game %lld: %s started, %s vs %s (%s)", (long long)r->id,
           r->m.vt->name, r->name[0], r->name[1], r->tc_text);
  /* game_start per seat: the view may differ by viewer. */
  r->hold++;
  for (int seat = 0; seat < 2; seat++) {
    json_t *ev = room_start_json(r, seat);
    json_object_set_new(ev, "event", json_string("game_start"));
    room_send_json(r, ev, seat);
    json_decref(ev);
  }
  r->hold--;
  op->done(op->arg, r->id, 0);
  free(op->g.options_json);
  free(op);
  room_maybe_free(r);
}

int room_create(struct server *s, const room_setup *rs,
                void (*done)(void *, int64_t, int), void *arg, agon_err *err) {
  create_op *op = xcalloc(1, sizeof *op);
  op->srv = s;
  op->vt = rs->vt;
  op->done = done;
  op->arg = arg;
  op->rematch_of = rs->rematch_of;
  int rc;
  if (s->stopping) { /* draining for a restart: no new games */
    rc = agon_err_set(err, AGON_ESHUTDOWN, "the server is restarting; try again shortly");
    goto fail;
  }
  if ((rc = game_setup_from_json(&op->setup, rs->vt, rs->options, err)) != 0)
    goto fail;
  randombytes_buf(&op->seed, sizeof op->seed);
  /* Check the options against the rules core now (init may refuse
   * combinations), and learn who moves first. */
  {
    uint64_t h[4];
    game_match probe;
    if ((rc = game_match_init(&probe, &op->setup, op->seed, h, 4, err)) != 0)
      goto fail;
    game_rng rng;
    /* A distinct stream of the same seed: the rules' own use of the seed
     * (Gambo's deal) and the side draw stay independent. */
    game_rng_init(&rng, op->seed ^ 0x5349444553454154ULL);
    op->g.chooser_seat = -1;
    if (game_match_to_move(&probe) == GAME_CHOOSER) {
      int seat;
      if (rs->force_chooser_seat >= 0) {
        seat = rs->force_chooser_seat;
      } else {
        int oi = game_option_index(rs->vt, "chooser");
        int creator = oi >= 0 && strcmp(op->setup.text[oi], "creator") == 0;
        seat = creator ? 0 : (int)game_rng_below(&rng, 2);
      }
      op->g.chooser_seat = seat;
      op->g.side[0] = op->g.side[1] = -1;
    } else {
      int s0 = rs->creator_side >= 0 ? rs->creator_side
                                     : (int)game_rng_below(&rng, 2);
      op->g.side[0] = s0;
      op->g.side[1] = 1 - s0;
    }
  }
  snprintf(op->g.game_type, sizeof op->g.game_type, "%s", rs->vt->name);
  op->g.rules_version = rs->vt->version;
  {
    json_t *oj = game_setup_to_json(&op->setup);
    op->g.options_json = json_dumps(oj, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(oj);
  }
  snprintf(op->g.seed, sizeof op->g.seed, "%" PRIu64, op->seed);
  game_seed_commitment(op->seed, op->g.commitment);
  op->g.rated = rs->rated;
  snprintf(op->g.tc_text, sizeof op->g.tc_text, "%s", rs->tc_text);
  op->g.delay_plies = rs->delay_plies;
  op->g.delay_ms = rs->delay_ms;
  clock_tc tc;
  if ((rc = clock_tc_parse(&tc, rs->tc_text, err)) != 0) {
    rc = agon_err_set(err, AGON_EBADFIELD, "%s", err ? err->msg : "bad time_control");
    goto fail;
  }
  op->g.tc_initial_ms = tc.kind == CLOCK_UNTIMED ? -1 : tc.base_ms;
  op->g.tc_increment_ms = tc.inc_ms;
  for (int i = 0; i < 2; i++) {
    op->g.player[i] = rs->player[i];
    snprintf(op->name[i], sizeof op->name[i], "%s", rs->name[i]);
  }
  op->g.now_ms = db_now_ms();
  if ((rc = db_write(s->db, gs_create_job, &op->g, create_cb)) != 0) {
    agon_err_set(err, rc == AGON_ESHUTDOWN ? rc : AGON_EBUSY, NULL);
    rc = rc == AGON_ESHUTDOWN ? rc : AGON_EBUSY;
    goto fail;
  }
  return 0;
fail:
  free(op->g.options_json);
  free(op);
  return rc;
}

/* ---- rebuilding from the database (recovery, reload) ---------------------- */

/* Replay g into r (fresh match). Returns 0 or an error (logged). */
static int room_replay(room *r, const gs_game *g) {
  agon_err e;
  const game_vtable *vt = game_find(g->game_type);
  if (vt == NULL) {
    log_error("game %lld: unknown game %s", (long long)g->id, g->game_type);
    return AGON_EUNKNOWNGAME;
  }
  if (vt->version != g->rules_version)
    log_warn("game %lld: stored with %s rules version %u, now %u",
             (long long)g->id, vt->name, g->rules_version, vt->version);
  game_setup setup;
  json_t *oj = json_loads(g->options_json, 0, NULL);
  int rc = game_setup_from_json(&setup, vt, oj ? oj : json_object(), &e);
  json_decref(oj);
  if (rc != 0) goto bad;
  uint64_t seed = strtoull(g->seed, NULL, 10);
  if ((rc = game_match_init(&r->m, &setup, seed, r->hist, ROOM_HIST_CAP, &e)) != 0)
    goto bad;
  for (int i = 0; i < 2; i++) {
    r->player[i] = g->player[i];
    snprintf(r->name[i], sizeof r->name[i], "%s", g->name[i]);
    r->rating[i] = g->rating[i];
    r->side[i] = (int8_t)g->side[i];
    r->moved[i] = 0;
  }
  r->chooser_seat = (int8_t)g->chooser_seat;
  if (r->chooser_seat >= 0 && g->n > 0) {
    /* Sides are re-derived from the replayed choice below. */
  }
  r->rated = (uint8_t)g->rated;
  snprintf(r->tc_text, sizeof r->tc_text, "%s", g->tc_text);
  clock_tc tc;
  clock_tc_parse(&tc, g->tc_text, NULL);
  clock_init(&r->clk, &tc);
  r->draw_offer = -1;
  r->seq = 0;
  r->state = ROOM_ACTIVE;
  for (uint32_t i = 0; i < g->n; i++) {
    const gs_row *w = &g->rows[i];
    if (w->is_move) {
      int side = game_match_to_move(&r->m);
      int seat = seat_of_side(r, side);
      if ((rc = game_match_play(&r->m, w->move, strlen(w->move), NULL, &e)) != 0)
        goto bad;
      if (side == GAME_CHOOSER) {
        /* "choose <side>": the chooser's seat takes the named side. */
        const char *sp = strrchr(r->m.last_text, ' ');
        int chosen = sp ? game_side_from_name(r->m.vt, sp + 1) : -1;
        if (chosen < 0) {
          rc = agon_err_set(&e, AGON_EINTERNAL, "cannot read the side choice");
          goto bad;
        }
        r->side[r->chooser_seat] = (int8_t)chosen;
        r->side[1 - r->chooser_seat] = (int8_t)(1 - chosen);
      }
      if (seat >= 0) r->moved[seat] = 1;
      if (w->timed) {
        r->clk.remaining[0] = w->clock_ms[0];
        r->clk.remaining[1] = w->clock_ms[1];
      }
      if (r->draw_offer >= 0 && r->draw_offer != seat) r->draw_offer = -1;
    } else if (strcmp(w->kind, "draw_offer") == 0) {
      json_t *d = json_loads(w->data ? w->data : "{}", 0, NULL);
      r->draw_offer = (int8_t)json_integer_value(json_object_get(d, "seat"));
      json_decref(d);
    } else if (strcmp(w->kind, "draw_decline") == 0) {
      r->draw_offer = -1;
    } else if (strcmp(w->kind, "game_end") == 0) {
      r->state = ROOM_OVER;
    }
    r->seq = w->seq;
  }
  r->committed = r->seq;
  /* Time is not charged while the server was down: the running clock
   * restarts from the value stored with the last move. */
  r->clk.running = -1;
  if (r->state == ROOM_ACTIVE) clock_follow(r, &r->clk, &r->m, now_ms(r), 0);
  if (game_match_outcome(&r->m).result != GAME_ONGOING && r->state == ROOM_ACTIVE)
    log_warn("game %lld: replay ended by the rules but not stored as ended",
             (long long)g->id);
  if (g->delay_plies || g->delay_ms) room_delay_rebuild(r, g);
  return 0;
bad:
  log_error("game %lld: replay failed: %s", (long long)g->id, e.msg);
  return rc;
}

typedef struct recover_ctx {
  struct server *s;
  unsigned ok, bad;
} recover_ctx;

static void recover_one(gs_game *g, void *arg) {
  recover_ctx *rc = arg;
  room *r = room_alloc(rc->s, g->id);
  if (room_replay(r, g) != 0) {
    /* Left out of play (logged); the rows stay in the database. */
    r->state = ROOM_OVER;
    rc->bad++;
    room_maybe_free(r);
    return;
  }
  uint64_t now = now_ms(r);
  r->gone_since[0] = r->gone_since[1] = now;
  room_arm(r);
  rc->ok++;
  if (r->state == ROOM_ACTIVE) metrics_gauge_add(METRICS_LIVE_GAMES, 1);
  if (r->state != ROOM_ACTIVE) room_maybe_free(r);
}

int rooms_recover(struct server *s, const char *db_path, agon_err *err) {
  sqlite3 *dbc;
  if (sqlite3_open_v2(db_path, &dbc, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    int rc = agon_err_set(err, AGON_ESTORAGE, "recovery: cannot open %s: %s",
                          db_path, sqlite3_errmsg(dbc));
    sqlite3_close(dbc);
    return rc;
  }
  recover_ctx rc = {s, 0, 0};
  int r = gs_load_active(dbc, recover_one, &rc, err);
  sqlite3_close(dbc);
  if (r == 0 && (rc.ok || rc.bad))
    log_info("recovery: %u active game(s) reloaded, %u could not be replayed",
             rc.ok, rc.bad);
  return r;
}

typedef struct reload_op {
  gs_game g;   /* first: db ctx */
  struct server *s;
} reload_op;

static void reload_cb(void *ctx, int status) {
  reload_op *op = ctx;
  room *r = op->s->rooms ? room_find(op->s, op->g.id) : NULL;
  if (r == NULL) goto out;
  r->hold++;
  if (status != 0 || room_replay(r, &op->g) != 0) {
    log_error("game %lld: reload failed; the game stays unavailable until restart",
              (long long)op->g.id);
    r->state = ROOM_BROKEN;
  } else {
    room_arm(r);
    json_t *ev = proto_event("game_reload");
    json_object_set_new(ev, "game_id", json_integer(r->id));
    wbuf *b = wbuf_from_json(ev);
    if (b) room_send_all(r, b);
    wbuf_unref(b);
    json_decref(ev);
  }
  r->hold--;
  room_maybe_free(r);
out:
  gs_game_clear(&op->g);
  free(op);
}

static void room_reload(room *r) {
  reload_op *op = xcalloc(1, sizeof *op);
  op->g.id = r->id;
  op->s = r->srv;
  r->state = ROOM_RELOADING;
  if (db_read(r->srv->db, gs_load_job, &op->g, reload_cb) != 0) {
    r->state = ROOM_BROKEN;
    free(op);
  }
}

/* ---- request helpers ------------------------------------------------------ */

/* Common prologue: find the room and the requester's seat. Replies with the
 * error and returns NULL when the request cannot go on. need_active: the
 * game must be in play. */
static room *req_room(conn *c, proto_msg *m, int64_t game_id, int *seat,
                      int need_active) {
  room *r = room_find(c->srv, game_id);
  if (r == NULL) {
    conn_reply_err(c, m->type, m->id, AGON_ENOTFOUND, "no such live game");
    return NULL;
  }
  *seat = seat_of_player(r, c->player_id);
  if (*seat < 0) {
    conn_reply_err(c, m->type, m->id, AGON_EFORBIDDEN, "not a player of this game");
    return NULL;
  }
  if (r->state == ROOM_BROKEN || r->state == ROOM_RELOADING) {
    conn_reply_err(c, m->type, m->id, AGON_ESTORAGE,
                   "the game is being reloaded, join again");
    return NULL;
  }
  if (need_active && r->state != ROOM_ACTIVE) {
    conn_reply_err(c, m->type, m->id, AGON_EGAMEOVER, NULL);
    return NULL;
  }
  return r;
}

static const char *re_name(const char *type) {
  static const char *const names[] = {
      "move", "resign", "draw_offer", "draw_accept", "draw_decline", "abort",
      "claim", "rematch_offer", "rematch_accept", NULL};
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], type) == 0) return names[i];
  return "?";
}

/* The running seat's flag has fallen (timer not yet run): end it now. */
static int flag_fell(room *r) {
  int run = r->clk.running;
  if (r->clk.tc.kind == CLOCK_UNTIMED || run < 0) return 0;
  return clock_remaining(&r->clk, run, (int64_t)now_ms(r)) <= 0;
}

/* ---- move encoding ---------------------------------------------------------- */

/* The move reply and event are written by hand, not built as jansson trees
 * nor with printf: they are the hot path (a tree + dump per move cost ~13%
 * of the server's CPU under load, vsnprintf another ~7%). Both are
 * assembled in one scratch buffer (loop thread only, kept between moves)
 * and copied into their wbufs. */

typedef struct sbuf {
  char *p;
  size_t len, cap;
} sbuf;

static sbuf move_scratch;

static void sb_grow(sbuf *b, size_t need) {
  if (b->len + need + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap < b->len + need + 1) cap *= 2;
  char *np = realloc(b->p, cap);
  if (np == NULL) {
    log_error("out of memory");
    abort();
  }
  b->p = np;
  b->cap = cap;
}

static void sb_put(sbuf *b, const char *s, size_t n) {
  sb_grow(b, n);
  memcpy(b->p + b->len, s, n);
  b->len += n;
}

#define SB_LIT(b, s) sb_put((b), "" s, sizeof(s) - 1)

static void sb_int(sbuf *b, long long v) {
  sb_grow(b, PROTO_INT_MAX);
  b->len += proto_fmt_int(b->p + b->len, v);
}

/* A JSON string (quotes included). */
static void sb_jstr(sbuf *b, const char *s) {
  sb_grow(b, strlen(s) * 6 + 2);
  b->p[b->len++] = '"';
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') {
      b->p[b->len++] = '\\';
      b->p[b->len++] = (char)ch;
    } else if (ch < 0x20) {
      b->len += (size_t)snprintf(b->p + b->len, 7, "\\u%04x", ch);
    } else {
      b->p[b->len++] = (char)ch;
    }
  }
  b->p[b->len++] = '"';
}

static void sb_clocks(sbuf *b, const game_clock *k, uint64_t now) {
  if (k->tc.kind == CLOCK_UNTIMED) {
    SB_LIT(b, "{\"ms\":null,\"running\":");
  } else {
    int64_t x = clock_remaining(k, 0, (int64_t)now);
    int64_t y = clock_remaining(k, 1, (int64_t)now);
    SB_LIT(b, "{\"ms\":[");
    sb_int(b, x < 0 ? 0 : x);
    SB_LIT(b, ",");
    sb_int(b, y < 0 ? 0 : y);
    SB_LIT(b, "],\"running\":");
  }
  if (k->running >= 0) sb_int(b, k->running);
  else SB_LIT(b, "null");
  SB_LIT(b, "}");
}

/* "game_id":G,"seq":S,"ply":P: the start of the move reply and event. */
static void sb_move_ids(sbuf *b, int64_t game_id, uint32_t seq, uint32_t ply) {
  SB_LIT(b, "\"game_id\":");
  sb_int(b, game_id);
  SB_LIT(b, ",\"seq\":");
  sb_int(b, seq);
  SB_LIT(b, ",\"ply\":");
  sb_int(b, ply);
}

/* ---- move ------------------------------------------------------------------ */

void room_h_move(conn *c, proto_msg *m) {
  json_int_t game_id, seq = -1;
  const char *text;
  agon_err e;
  if (proto_unpack(m, &e, "{s:I, s:s, s?I}", "game_id", &game_id, "move",
                   &text, "seq", &seq) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  room_move(c, m, game_id, text, seq);
}

void room_move(conn *c, proto_msg *m, int64_t game_id, const char *text,
               int64_t seq) {
  agon_err e;
  int seat;
  room *r = req_room(c, m, game_id, &seat, 1);
  if (r == NULL) return;
  if (seq >= 0 && (uint64_t)seq != r->seq) {
    char msg[96];
    snprintf(msg, sizeof msg, "the game is at seq %u", r->seq);
    conn_reply_err(c, m->type, m->id, AGON_ESTALE, msg);
    return;
  }
  int tm = game_match_to_move(&r->m);
  if (seat_of_side(r, tm) != seat) {
    conn_reply_err(c, m->type, m->id, AGON_ENOTTURN, NULL);
    return;
  }
  if (flag_fell(r)) {
    room_flag_cb(&r->timer);
    conn_reply_err(c, m->type, m->id, AGON_EGAMEOVER, "your time ran out");
    return;
  }
  /* Play on a scratch copy: the room changes only once the write is
   * queued. The history buffer is shared; compact it first, as the match
   * would on this push, so a refused write leaves it intact. */
  if (r->m.hist_n == r->m.hist_cap) {
    uint32_t keep = r->m.hist_cap / 2;
    memmove(r->m.hist, r->m.hist + (r->m.hist_n - keep), keep * sizeof *r->m.hist);
    r->m.hist_n = keep;
  }
  game_match nm = r->m;
  size_t len = strlen(text);
  if (len >= GAME_MOVE_TEXT_MAX * 2) {
    conn_reply_err(c, m->type, m->id, AGON_EBADMOVE, "move text too long");
    return;
  }
  int rc = game_match_play(&nm, text, len, NULL, &e);
  if (rc != 0) {
    conn_reply_err(c, m->type, m->id, rc, e.msg[0] ? e.msg : NULL);
    return;
  }
  int8_t nside[2] = {r->side[0], r->side[1]};
  int set_sides = 0;
  if (tm == GAME_CHOOSER) {
    const char *sp = strrchr(nm.last_text, ' ');
    int chosen = sp ? game_side_from_name(nm.vt, sp + 1) : -1;
    if (chosen < 0) {
      conn_reply_err(c, m->type, m->id, AGON_EINTERNAL, "side choice not understood");
      return;
    }
    nside[seat] = (int8_t)chosen;
    nside[1 - seat] = (int8_t)(1 - chosen);
    set_sides = 1;
  }
  uint64_t now = now_ms(r);
  game_clock k = r->clk;
  {
    /* seat_of_side must see the new sides for the next mover. */
    int8_t old0 = r->side[0], old1 = r->side[1];
    r->side[0] = nside[0];
    r->side[1] = nside[1];
    clock_follow(r, &k, &nm, now, 1);
    r->side[0] = old0;
    r->side[1] = old1;
  }
  game_outcome out = game_match_outcome(&nm);
  uint32_t mseq = r->seq + 1;
  int64_t at = db_now_ms();
  room_op *op = op_new(r, c, m, re_name(m->type));
  gs_append *a = &op->a;
  a->has_move = 1;
  a->move_seq = mseq;
  a->ply = nm.ply;
  a->side = tm;
  _Static_assert(sizeof a->move == sizeof nm.last_text, "move text sizes");
  memcpy(a->move, nm.last_text, sizeof a->move); /* NUL-terminated inside */
  a->timed = k.tc.kind != CLOCK_UNTIMED;
  a->clock_ms[0] = clock_remaining(&k, 0, (int64_t)now);
  a->clock_ms[1] = clock_remaining(&k, 1, (int64_t)now);
  a->at_ms = at;
  a->set_sides = set_sides;
  a->seat_side[0] = nside[0];
  a->seat_side[1] = nside[1];
  op->last_seq = mseq;
  /* The mover's reply, whole: {"re":"move","id":..,"ok":true,"data":{..}}. */
  sbuf *b = &move_scratch;
  b->len = 0;
  sb_grow(b, CONN_REPLY_HEAD_MAX);
  size_t head = conn_reply_head(b->p, b->cap, op->re, op->id);
  if (head == 0) head = conn_reply_head(b->p, b->cap, op->re, NULL); /* never */
  b->len = head;
  SB_LIT(b, "{");
  sb_move_ids(b, r->id, mseq, nm.ply);
  SB_LIT(b, ",\"move\":");
  sb_jstr(b, nm.last_text);
  SB_LIT(b, ",\"clocks\":");
  sb_clocks(b, &k, now);
  SB_LIT(b, "}}\n");
  op->reply_line = wbuf_from_bytes(b->p, b->len);
  /* The event to both players (and spectators). */
  int tm2 = game_match_to_move(&nm);
  b->len = 0;
  SB_LIT(b, "{\"event\":\"move\",");
  sb_move_ids(b, r->id, mseq, nm.ply);
  SB_LIT(b, ",\"seat\":");
  sb_int(b, seat);
  SB_LIT(b, ",\"side\":");
  if (tm == GAME_CHOOSER) SB_LIT(b, "\"chooser\"");
  else sb_jstr(b, game_side_name(nm.vt, tm));
  SB_LIT(b, ",\"move\":");
  sb_jstr(b, nm.last_text);
  SB_LIT(b, ",\"clocks\":");
  sb_clocks(b, &k, now);
  SB_LIT(b, ",\"to_move\":");
  if (out.result != GAME_ONGOING || tm2 == GAME_NOBODY) SB_LIT(b, "null");
  else sb_jstr(b, game_side_name(nm.vt, tm2));
  SB_LIT(b, ",\"outcome\":");
  if (out.result == GAME_ONGOING) {
    SB_LIT(b, "null");
  } else {
    json_t *oj = game_outcome_json(nm.vt, out);
    char *os = json_dumps(oj, JSON_COMPACT);
    if (os) sb_put(b, os, strlen(os));
    else SB_LIT(b, "null");
    free(os);
    json_decref(oj);
  }
  if (set_sides) {
    SB_LIT(b, ",\"sides\":[");
    sb_jstr(b, game_side_name(nm.vt, nside[0]));
    SB_LIT(b, ",");
    sb_jstr(b, game_side_name(nm.vt, nside[1]));
    SB_LIT(b, "]");
  }
  SB_LIT(b, ",\"at_ms\":");
  sb_int(b, at);
  SB_LIT(b, "}\n");
  op->ev[0] = wbuf_from_bytes(b->p, b->len);
  if (out.result != GAME_ONGOING) {
    int8_t old0 = r->side[0], old1 = r->side[1];
    r->side[0] = nside[0];
    r->side[1] = nside[1];
    game_clock kk = k;
    clock_stop(&kk, (int64_t)now);
    op_end(op, r, out, 0, -1, &kk, mseq + 1, 1, at);
    r->side[0] = old0;
    r->side[1] = old1;
  }
  if (room_submit(r, op) != 0) return;
  /* Committed to the queue: the room takes the new state. */
  r->m = nm;
  r->clk = k;
  r->side[0] = nside[0];
  r->side[1] = nside[1];
  r->moved[seat] = 1;
  r->seq = op->last_seq;
  /* A draw offer lapses when the offerer's opponent moves. */
  if (r->draw_offer >= 0 && r->draw_offer != seat) r->draw_offer = -1;
  if (out.result != GAME_ONGOING) room_apply_end(r, out, 0);
  else room_arm(r);
}

/* ---- actions ----------------------------------------------------------------- */

static int unpack_game_id(conn *c, proto_msg *m, json_int_t *gid) {
  agon_err e;
  if (proto_unpack(m, &e, "{s:I}", "game_id", gid) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return -1;
  }
  return 0;
}

/* The room a game request names (its game_id field) and the caller's seat,
 * or NULL after replying the error: the preamble of every game request. */
static room *req_game(conn *c, proto_msg *m, int *seat, int active) {
  json_int_t gid;
  if (unpack_game_id(c, m, &gid)) return NULL;
  return req_room(c, m, gid, seat, active);
}

/* A side for a win of seat (null side before a Gambo choice). */
static game_outcome win_of_seat(const room *r, int seat, const char *reason) {
  game_outcome o = game_outcome_win(r->side[seat], reason);
  if (r->side[seat] < 0) o.winner = GAME_NOBODY;
  return o;
}

void room_h_resign(conn *c, proto_msg *m) {
  int seat;
  room *r = req_game(c, m, &seat, 1);
  if (r == NULL) return;
  room_end_now(r, win_of_seat(r, 1 - seat, "resign"), 0, 1 - seat, c, m,
               re_name(m->type));
}

/* A stored non-ending event (draw offer/decline, rematch offer). */
static int room_note(room *r, conn *c, proto_msg *m, int seat) {
  room_op *op = op_new(r, c, m, re_name(m->type));
  uint32_t seq = r->seq + 1;
  json_t *d = json_pack("{s:i, s:o}", "seat", seat, "clocks",
                        clocks_json(&r->clk, now_ms(r)));
  op_event(op, seq, m->type, r->side[seat], d, 0, db_now_ms());
  op->reply = json_pack("{s:I, s:I}", "game_id", (json_int_t)r->id, "seq",
                        (json_int_t)seq);
  if (room_submit(r, op) != 0) return -1;
  r->seq = seq;
  return 0;
}

void room_h_draw_offer(conn *c, proto_msg *m) {
  int seat;
  room *r = req_game(c, m, &seat, 1);
  if (r == NULL) return;
  if (r->draw_offer >= 0) {
    conn_reply_err(c, m->type, m->id, AGON_ESTATE,
                   r->draw_offer == seat ? "your offer is pending"
                                         : "your opponent offers a draw: accept or decline");
    return;
  }
  if (room_note(r, c, m, seat) == 0) r->draw_offer = (int8_t)seat;
}

void room_h_draw_accept(conn *c, proto_msg *m) {
  int seat;
  room *r = req_game(c, m, &seat, 1);
  if (r == NULL) return;
  if (r->draw_offer != 1 - seat) {
    conn_reply_err(c, m->type, m->id, AGON_ESTATE, "no draw offer from your opponent");
    return;
  }
  room_end_now(r, game_outcome_draw("agreement"), 0, -1, c, m, re_name(m->type));
}

void room_h_draw_decline(conn *c, proto_msg *m) {
  int seat;
  room *r = req_game(c, m, &seat, 1);
  if (r == NULL) return;
  if (r->draw_offer != 1 - seat) {
    conn_reply_err(c, m->type, m->id, AGON_ESTATE, "no draw offer from your opponent");
    return;
  }
  if (room_note(r, c, m, seat) == 0) r->draw_offer = -1;
}

void room_h_abort(conn *c, proto_msg *m) {
  int seat;
  room *r = req_game(c, m, &seat, 1);
  if (r == NULL) return;
  if (r->moved[0] && r->moved[1]) {
    conn_reply_err(c, m->type, m->id, AGON_ESTATE,
                   "both players have moved: resign or offer a draw");
    return;
  }
  game_outcome o = {GAME_ONGOING, GAME_NOBODY, "aborted"};
  room_end_now(r, o, 1, -1, c, m, re_name(m->type));
}

void room_h_claim(conn *c, proto_msg *m) {
  json_int_t gid;
  const char *result;
  agon_err e;
  if (proto_unpack(m, &e, "{s:I, s:s}", "game_id", &gid, "result", &result) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  int seat;
  room *r = req_room(c, m, gid, &seat, 1);
  if (r == NULL) return;
  int win = strcmp(result, "win") == 0;
  if (!win && strcmp(result, "draw") != 0) {
    conn_reply_err(c, m->type, m->id, AGON_EBADFIELD, "result must be \"win\" or \"draw\"");
    return;
  }
  int opp = 1 - seat;
  if (r->natt[opp] != 0) {
    conn_reply_err(c, m->type, m->id, AGON_ESTATE, "your opponent is connected");
    return;
  }
  uint64_t now = now_ms(r);
  int64_t left = (int64_t)(r->gone_since[opp] + (uint64_t)grace_ms(r)) - (int64_t)now;
  if (left > 0) {
    char msg[96];
    snprintf(msg, sizeof msg, "the grace period ends in %lld ms", (long long)left);
    conn_reply_err(c, m->type, m->id, AGON_ESTATE, msg);
    return;
  }
  room_end_now(r, win ? win_of_seat(r, seat, "abandoned")
                      : game_outcome_draw("abandoned"),
               0, win ? seat : -1, c, m, re_name(m->type));
}

typedef struct rematch_op {
  conn *c;
  json_t *id;
} rematch_op;

/* The new game is committed (or not): answer the accepting connection. */
static void rematch_done(void *arg, int64_t game_id, int status) {
  rematch_op *op = arg;
  if (conn_op_end(op->c)) {
    if (status == 0)
      conn_reply_ok(op->c, "rematch_accept", op->id,
                    json_pack("{s:I}", "game_id", (json_int_t)game_id));
    else
      conn_reply_err(op->c, "rematch_accept", op->id, status, NULL);
  }
  json_decref(op->id);
  free(op);
}

void room_h_rematch_offer(conn *c, proto_msg *m) {
  int seat;
  room *r = req_game(c, m, &seat, 0);
  if (r == NULL) return;
  if (r->state != ROOM_OVER || r->rematched) {
    conn_reply_err(c, m->type, m->id, AGON_ESTATE,
                   r->rematched ? "the rematch has started" : "the game is not over");
    return;
  }
  if (r->rematch_offer >= 0) {
    conn_reply_err(c, m->type, m->id, AGON_ESTATE,
                   r->rematch_offer == seat ? "your offer is pending"
                                            : "your opponent offers a rematch: accept it");
    return;
  }
  if (room_note(r, c, m, seat) == 0) r->rematch_offer = (int8_t)seat;
}

void room_h_rematch_accept(conn *c, proto_msg *m) {
  int seat;
  room *r = req_game(c, m, &seat, 0);
  if (r == NULL) return;
  if (r->state != ROOM_OVER || r->rematched || r->rematch_offer != 1 - seat) {
    conn_reply_err(c, m->type, m->id, AGON_ESTATE, "no rematch offer from your opponent");
    return;
  }
  /* Seats swap (the old seat 1 creates), and so do sides and the chooser. */
  room_setup rs;
  memset(&rs, 0, sizeof rs);
  rs.vt = r->m.vt;
  rs.options = game_setup_to_json(&r->m.setup);
  snprintf(rs.tc_text, sizeof rs.tc_text, "%s", r->tc_text);
  rs.rated = r->rated;
  for (int i = 0; i < 2; i++) {
    rs.player[i] = r->player[1 - i];
    snprintf(rs.name[i], sizeof rs.name[i], "%s", r->name[1 - i]);
  }
  rs.creator_side = r->side[1] >= 0 ? r->side[0] : -1;
  rs.force_chooser_seat = r->chooser_seat >= 0 ? r->chooser_seat : -1;
  /* New seat 0 is the old seat 1: it takes the old seat 0's side; the old
   * chooser seat index now names the other player. */
  rs.rematch_of = r->id;
  if (r->delay) {
    rs.delay_plies = r->delay->plies;
    rs.delay_ms = (int64_t)r->delay->ms;
  }
  agon_err e;
  agon_err_clear(&e);
  rematch_op *op = xcalloc(1, sizeof *op);
  op->c = c;
  op->id = m->id ? json_incref(m->id) : NULL;
  int rc = room_create(c->srv, &rs, rematch_done, op, &e);
  json_decref(rs.options);
  if (rc != 0) {
    conn_reply_err(c, m->type, m->id, rc, e.msg[0] ? e.msg : NULL);
    json_decref(op->id);
    free(op);
    return;
  }
  conn_op_begin(c);
  r->rematched = 1;
}

/* ---- reconnecting ------------------------------------------------------------ */

void room_h_games_mine(conn *c, proto_msg *m) {
  agon_err e;
  if (proto_unpack(m, &e, "{}") != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  json_t *games = json_array();
  unsigned n = 0;
  for (room *r = c->srv->rooms->all; r && n < ROOM_MINE_MAX; r = r->next) {
    int seat = seat_of_player(r, c->player_id);
    if (seat < 0 || r->state == ROOM_OVER) continue;
    n++;
    json_array_append_new(
        games, json_pack("{s:I, s:s, s:i, s:I, s:o, s:s, s:o, s:s}", "game_id",
                         (json_int_t)r->id, "game", r->m.vt->name, "seat", seat,
                         "seq", (json_int_t)r->committed, "players",
                         players_json(r), "time_control", r->tc_text, "to_move",
                         to_move_json(r), "status",
                         r->state == ROOM_ACTIVE ? "active" : "reloading"));
  }
  conn_reply_ok(c, m->type, m->id, json_pack("{s:o}", "games", games));
}

typedef struct join_op {
  gs_since q;             /* first: db ctx */
  struct server *s;
  conn *c;
  json_t *id;
  int64_t game_id;
  int seat;               /* -1: a spectator (watch) */
  int spec_chat;          /* join: also get the spectators' chat */
  const char *re;         /* "join" or "watch" */
  unsigned tries;
  json_t *events;         /* accumulated across re-reads */
} join_op;

/* The last seq a connection at seat may see: spectators of a delayed game
 * see only what the delay released. */
static uint32_t visible_seq(const room *r, int seat) {
  return seat < 0 && r->delay ? r->delay->vis_seq : r->committed;
}

static void join_free(join_op *op) {
  gs_rows_free(op->q.rows, op->q.n);
  json_decref(op->id);
  json_decref(op->events);
  free(op);
}

static json_t *row_json(const room *r, const gs_row *w) {
  if (!w->is_move) return event_json(r->id, w->seq, w->kind, w->data);
  int seat = w->side == GAME_CHOOSER ? r->chooser_seat : seat_of_side(r, w->side);
  json_t *ms = w->timed ? json_pack("[I, I]", (json_int_t)w->clock_ms[0],
                                    (json_int_t)w->clock_ms[1])
                        : json_null();
  return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:s, s:{s:o}, s:I}", "event",
                   "move", "game_id", (json_int_t)r->id, "seq",
                   (json_int_t)w->seq, "ply", (json_int_t)w->ply, "seat",
                   seat >= 0 ? json_integer(seat) : json_null(), "side",
                   w->side == GAME_CHOOSER ? json_string("chooser")
                                           : side_json(r, w->side),
                   "move", w->move, "clocks", "ms", ms, "at_ms",
                   (json_int_t)w->at_ms);
}

static void watch_reply(join_op *op, room *r);

static void join_reply(join_op *op, room *r) {
  conn *c = op->c;
  if (op->seat < 0) {
    watch_reply(op, r);
    return;
  }
  int rc = room_attach(r, c, op->seat);
  if (rc != 0) {
    conn_reply_err(c, "join", op->id, rc, "too many games attached");
    return;
  }
  if (op->spec_chat) {
    room_att *a = att_find(c, r);
    if (a) a->spec_chat = 1;
  }
  json_t *g = room_start_json(r, op->seat);
  int opp = 1 - op->seat;
  json_object_set_new(g, "status", json_string(r->state == ROOM_ACTIVE ? "active" : "over"));
  json_object_set_new(g, "draw_offer",
                      r->draw_offer >= 0 ? json_integer(r->draw_offer) : json_null());
  json_object_set_new(g, "opponent_connected", json_boolean(r->natt[opp] > 0));
  if (r->natt[opp] == 0 && r->state == ROOM_ACTIVE) {
    int64_t left = (int64_t)(r->gone_since[opp] + (uint64_t)grace_ms(r)) -
                   (int64_t)now_ms(r);
    json_object_set_new(g, "claim_in_ms", json_integer(left < 0 ? 0 : left));
  } else {
    json_object_set_new(g, "claim_in_ms", json_null());
  }
  json_t *d = json_pack("{s:I, s:I, s:o}", "game_id", (json_int_t)r->id, "seq",
                        (json_int_t)r->committed, "game", g);
  if (op->events) {
    json_object_set_new(d, "events", op->events);
    op->events = NULL;
  }
  conn_reply_ok(c, "join", op->id, d);
}

static void join_cb(void *ctx, int status);

static int join_submit(join_op *op) {
  return db_read(op->s->db, gs_since_job, &op->q, join_cb);
}

static void join_cb(void *ctx, int status) {
  join_op *op = ctx;
  conn *c = op->c;
  if (!conn_op_end(c)) {
    join_free(op);
    return;
  }
  room *r = op->s->rooms ? room_find(op->s, op->game_id) : NULL;
  if (r == NULL) {
    conn_reply_err(c, op->re, op->id, AGON_ENOTFOUND, "no such live game");
    goto out;
  }
  if (status != 0) {
    conn_reply_err(c, op->re, op->id, AGON_ESTORAGE, NULL);
    goto out;
  }
  if (op->q.more) {
    /* Too many missed: the snapshot alone. */
    json_decref(op->events);
    op->events = NULL;
    join_reply(op, r);
    goto out;
  }
  /* Keep exactly the committed events: a write committed but not yet
   * delivered to the loop is broadcast later, to this connection too. */
  uint32_t last = op->q.since, lim = visible_seq(r, op->seat);
  for (uint32_t i = 0; i < op->q.n; i++) {
    if (op->q.rows[i].seq > lim) break;
    json_array_append_new(op->events, row_json(r, &op->q.rows[i]));
    last = op->q.rows[i].seq;
  }
  if (last < lim && op->tries++ < JOIN_RETRIES &&
      json_array_size(op->events) <= JOIN_MAX_EVENTS) {
    /* More was committed meanwhile: read the rest. */
    gs_rows_free(op->q.rows, op->q.n);
    op->q.rows = NULL;
    op->q.n = 0;
    op->q.since = last;
    if (join_submit(op) == 0) {
      conn_op_begin(c);
      return;
    }
  }
  if (last < lim) {
    json_decref(op->events);
    op->events = NULL;
  }
  join_reply(op, r);
out:
  join_free(op);
}

static void join_start(join_op *op, room *r, json_int_t since);

void room_h_join(conn *c, proto_msg *m) {
  json_int_t gid, since = -1;
  int spec_chat = 0;
  agon_err e;
  if (proto_unpack(m, &e, "{s:I, s?I, s?b}", "game_id", &gid, "since_seq", &since,
                   "spectator_chat", &spec_chat) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  int seat;
  room *r = req_room(c, m, gid, &seat, 0);
  if (r == NULL) return;
  join_op *op = xcalloc(1, sizeof *op);
  op->s = c->srv;
  op->c = c;
  op->id = m->id ? json_incref(m->id) : NULL;
  op->game_id = gid;
  op->seat = seat;
  op->re = "join";
  op->spec_chat = spec_chat;
  join_start(op, r, since);
}

/* Reply at once (snapshot) or read the missed events first. */
static void join_start(join_op *op, room *r, json_int_t since) {
  conn *c = op->c;
  uint32_t lim = visible_seq(r, op->seat);
  if (since < 0 || since >= (json_int_t)lim) {
    /* Nothing to read: snapshot (and an empty list when up to date). */
    if (since >= 0) op->events = json_array();
    join_reply(op, r);
    join_free(op);
    return;
  }
  op->events = json_array();
  op->q.game_id = op->game_id;
  op->q.since = (uint32_t)since;
  op->q.max = JOIN_MAX_EVENTS;
  int rc = join_submit(op);
  if (rc != 0) {
    conn_reply_err(c, op->re, op->id, rc == AGON_ESHUTDOWN ? rc : AGON_EBUSY, NULL);
    join_free(op);
    return;
  }
  conn_op_begin(c);
}

void room_h_leave(conn *c, proto_msg *m) {
  json_int_t gid;
  if (unpack_game_id(c, m, &gid)) return;
  room *r = room_find(c->srv, gid);
  room_att **pp = &c->atts;
  while (r && *pp && (*pp)->r != r) pp = &(*pp)->cnext;
  if (r == NULL || *pp == NULL) {
    conn_reply_err(c, m->type, m->id, AGON_ENOTFOUND, "not attached to this game");
    return;
  }
  room_att *a = *pp;
  *pp = a->cnext;
  room_detach(a);
  conn_reply_ok(c, m->type, m->id, NULL);
}

/* ---- spectating and chat (lists in spectate.c) -------------------------- */

/* Clocks as of the last released move (time does not run in the
 * spectators' delayed view). */
static json_t *delay_clocks_json(const room *r) {
  const spec_delay *d = r->delay;
  json_t *ms;
  if (r->clk.tc.kind == CLOCK_UNTIMED) ms = json_null();
  else if (d->vtimed)
    ms = json_pack("[I, I]", (json_int_t)d->vclock_ms[0], (json_int_t)d->vclock_ms[1]);
  else
    ms = json_pack("[I, I]", (json_int_t)r->clk.tc.base_ms, (json_int_t)r->clk.tc.base_ms);
  return json_pack("{s:o, s:n}", "ms", ms, "running");
}

/* players_json as the delayed view knows them: a chooser game's sides
 * are unknown until the choice (its first move) is released. */
static json_t *delay_players_json(const room *r) {
  json_t *a = players_json(r);
  if (r->chooser_seat >= 0 && r->delay->vm.ply == 0)
    for (size_t i = 0; i < json_array_size(a); i++)
      json_object_set_new(json_array_get(a, i), "side", json_null());
  return a;
}

static json_t *delay_json(const spec_delay *d) {
  return d->plies ? json_pack("{s:i}", "moves", (int)d->plies)
                  : json_pack("{s:I}", "seconds", (json_int_t)(d->ms / 1000));
}

/* room_view for another match of r (the spectators' delayed one). */
static json_t *match_view(const room *r, const game_match *m) {
  json_t *v = game_match_view(m, GAME_VIEW_ALL);
  if (json_object_get(v, "position") == NULL && r->m.vt->to_position) {
    char pos[GAME_POSITION_MAX];
    if (r->m.vt->to_position(&m->st, pos, sizeof pos) >= 0)
      json_object_set_new(v, "position", json_string(pos));
  }
  return v;
}

/* The neutral snapshot: game_start's shape for GAME_VIEW_ALL plus status
 * and the spectator count. */
static json_t *spec_game_json(room *r) {
  json_t *g = room_start_json(r, -1);
  spec_delay *d = r->delay;
  if (d) {
    /* Delayed: the released part only (no end, no seed before it is due). */
    json_object_set_new(g, "seq", json_integer(d->vis_seq));
    json_object_set_new(g, "players", delay_players_json(r));
    json_object_set_new(g, "clocks", delay_clocks_json(r));
    json_object_set_new(g, "state", match_view(r, &d->vm));
    json_object_set_new(g, "status", json_string(d->vover ? "over" : "active"));
    json_object_set_new(g, "draw_offer", json_null());
    json_object_set_new(g, "spectator_delay", delay_json(d));
  } else {
    json_object_set_new(g, "status", json_string(r->state == ROOM_ACTIVE ? "active" : "over"));
    json_object_set_new(g, "draw_offer",
                        r->draw_offer >= 0 ? json_integer(r->draw_offer) : json_null());
  }
  json_object_set_new(g, "spectators", json_integer(r->specs.n));
  return g;
}

/* A spectator that skipped events catches up with this (spectate.c). */
static wbuf *spec_snapshot(room *r) {
  json_t *ev = proto_event("game_snapshot");
  json_object_set_new(ev, "game_id", json_integer(r->id));
  json_object_set_new(ev, "seq", json_integer(visible_seq(r, -1)));
  json_object_set_new(ev, "game", spec_game_json(r));
  return encode_free(ev);
}

static void room_send_all(room *r, wbuf *b) {
  room_send(r, b, -1);
  r->hold++;  /* a send may close a connection that is the last holder */
  spec_broadcast(&r->specs, b, spec_snapshot);
  r->hold--;
}

/* The events of one committed write: to the spectators now, or into the
 * delay queue (a: what the write stored, to tell the move from the event
 * and give the delay queue the move's text, ply and clocks). */
static void spec_broadcast_events(room *r, const gs_append *a, wbuf *const *ev, int n) {
  r->hold++;
  if (r->delay == NULL) {
    for (int i = 0; i < n; i++)
      if (ev[i]) spec_broadcast(&r->specs, ev[i], spec_snapshot);
  } else {
    spec_delay *d = r->delay;
    uint64_t due = now_ms(r) + d->ms;
    int i = 0;
    if (a->has_move && ev[0]) {
      spec_delay_push(d, ev[0], a->move_seq, a->ply, 1, 0, a->move, a->timed,
                      a->clock_ms, due);
      i = 1;
    }
    if (a->has_event && i < n && ev[i])
      spec_delay_push(d, ev[i], a->event_seq, d->cur_ply, 0, a->end, NULL, 0,
                      NULL, due);
  }
  r->hold--;
}

/* A delayed event is due: the spectators' view takes it, then they get it.
 * Called from spec_delay_pump (a commit or the delay timer); the room is not
 * freed here (the queue being walked belongs to it). */
static void room_delay_release(room *r, const spec_delay_ev *e) {
  spec_delay *d = r->delay;
  if (e->is_move) {
    agon_err err;
    if (game_match_play(&d->vm, e->move, strlen(e->move), NULL, &err) != 0)
      log_error("game %lld: spectators' view: %s", (long long)r->id, err.msg);
    d->vtimed = e->timed;
    d->vclock_ms[0] = e->clock_ms[0];
    d->vclock_ms[1] = e->clock_ms[1];
  }
  if (e->is_end) {
    d->vover = 1;
    if (game_match_outcome(&d->vm).result == GAME_ONGOING)
      game_match_end(&d->vm, r->final);
  }
  r->hold++;
  spec_broadcast(&r->specs, e->b, spec_snapshot);
  r->hold--;
}

/* The spectators' view starts as the players' (a new game, or a replay
 * cut back by room_delay_rebuild). */
static void room_delay_init(room *r, uint32_t plies, int64_t ms) {
  spec_delay_free(r->delay);
  r->delay = NULL;
  if (plies == 0 && ms <= 0) return;
  spec_delay *d = spec_delay_new(r->srv->loop, r, plies, (uint64_t)(ms > 0 ? ms : 0),
                                 room_delay_release);
  d->vm = r->m;
  d->vm.hist = d->vhist;
  memcpy(d->vhist, r->hist, sizeof d->vhist);
  d->cur_ply = r->m.ply;
  d->vis_seq = r->committed;
  r->delay = d;
}

/* After a replay (recovery, reload): the spectators' view is the start
 * plus the stored events already due; the rest is queued again. */
static void room_delay_rebuild(room *r, const gs_game *g) {
  /* Spectators attached during a reload already saw the released part:
   * rebuild without them. */
  spec_list keep = r->specs;
  memset(&r->specs, 0, sizeof r->specs);
  room_delay_build(r, g);
  r->specs = keep;
}

static void room_delay_build(room *r, const gs_game *g) {
  room_delay_init(r, g->delay_plies, g->delay_ms);
  spec_delay *d = r->delay;
  agon_err e;
  game_setup setup = r->m.setup;
  if (game_match_init(&d->vm, &setup, r->m.seed, d->vhist, ROOM_HIST_CAP, &e) != 0) {
    log_error("game %lld: spectators' view: %s", (long long)r->id, e.msg);
    return;
  }
  d->cur_ply = 0;
  d->vis_seq = 0;
  d->ended = 0;
  int64_t wall = db_now_ms();
  uint64_t now = now_ms(r);
  for (uint32_t i = 0; i < g->n; i++) {
    const gs_row *w = &g->rows[i];
    int is_end = !w->is_move && strcmp(w->kind, "game_end") == 0;
    json_t *j = row_json(r, w);
    wbuf *b = encode_free(j);
    if (b == NULL) continue;
    int64_t left = w->at_ms + (int64_t)d->ms - wall;
    uint64_t due = now + (uint64_t)(left > 0 ? left : 0);
    spec_delay_push(d, b, w->seq, w->is_move ? w->ply : d->cur_ply, w->is_move,
                    is_end, w->is_move ? w->move : NULL, w->timed, w->clock_ms, due);
    wbuf_unref(b);
  }
}

/* The spectator count to the players, when due (spec_count_due). */
static void spec_notify_count(room *r) {
  if (r->state != ROOM_ACTIVE || !spec_count_due(&r->specs, now_ms(r))) return;
  json_t *ev = proto_event("spectators");
  json_object_set_new(ev, "game_id", json_integer(r->id));
  json_object_set_new(ev, "count", json_integer(r->specs.n));
  room_send_json(r, ev, -1);
  json_decref(ev);
}

static void watch_reply(join_op *op, room *r) {
  conn *c = op->c;
  int rc = spec_add(&r->specs, r, c, NULL);
  if (rc != 0) {
    conn_reply_err(c, "watch", op->id, rc, "too many spectators or watched games");
    return;
  }
  json_t *d = json_pack("{s:I, s:I, s:o}", "game_id", (json_int_t)r->id, "seq",
                        (json_int_t)visible_seq(r, -1), "game", spec_game_json(r));
  if (op->events) {
    json_object_set_new(d, "events", op->events);
    op->events = NULL;
  }
  conn_reply_ok(c, "watch", op->id, d);
  r->hold++;
  spec_notify_count(r);
  r->hold--;
}

void room_h_watch(conn *c, proto_msg *m) {
  json_int_t gid, since = -1;
  agon_err e;
  if (proto_unpack(m, &e, "{s:I, s?I}", "game_id", &gid, "since_seq", &since) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  room *r = room_find(c->srv, gid);
  if (r == NULL) {
    conn_reply_err(c, m->type, m->id, AGON_ENOTFOUND, "no such live game");
    return;
  }
  if (r->state == ROOM_BROKEN || r->state == ROOM_RELOADING) {
    conn_reply_err(c, m->type, m->id, AGON_ESTORAGE, "the game is being reloaded, retry");
    return;
  }
  join_op *op = xcalloc(1, sizeof *op);
  op->s = c->srv;
  op->c = c;
  op->id = m->id ? json_incref(m->id) : NULL;
  op->game_id = gid;
  op->seat = -1;
  op->re = "watch";
  join_start(op, r, since);
}

void room_h_unwatch(conn *c, proto_msg *m) {
  json_int_t gid;
  if (unpack_game_id(c, m, &gid)) return;
  room *r = room_find(c->srv, gid);
  spec_att *a = r ? spec_find(c, r) : NULL;
  if (a == NULL) {
    conn_reply_err(c, m->type, m->id, AGON_ENOTFOUND, "not watching this game");
    return;
  }
  r->hold++;
  spec_remove(&r->specs, a);
  spec_notify_count(r);
  r->hold--;
  conn_reply_ok(c, m->type, m->id, NULL);
  room_maybe_free(r);
}

void rooms_specs_gone(conn *c) {
  while (c->specs) {
    spec_att *a = c->specs;
    room *r = a->r;
    spec_remove(&r->specs, a);
    r->hold++;
    spec_notify_count(r);
    r->hold--;
    room_maybe_free(r);
  }
}

void rooms_specs_drained(conn *c) {
  /* A send may close c, which frees its nodes (and maybe rooms): stop. */
  spec_att *next;
  for (spec_att *a = c->specs; a && !c->closing; a = next) {
    next = a->cnext;
    if (a->lagging) spec_resync(a, spec_snapshot);
  }
}

void room_h_games_live(conn *c, proto_msg *m) {
  const char *game = NULL, *player = NULL;
  agon_err e;
  if (proto_unpack(m, &e, "{s?s, s?s}", "game", &game, "player", &player) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  json_t *games = json_array();
  unsigned n = 0;
  uint64_t now = uv_now(c->srv->loop);
  for (room *r = c->srv->rooms->all; r && n < LIVE_LIST_MAX; r = r->next) {
    const spec_delay *d = r->delay;
    if (d ? d->vover || r->state == ROOM_BROKEN || r->state == ROOM_RELOADING
          : r->state != ROOM_ACTIVE)
      continue;
    if (game && strcmp(game, r->m.vt->name) != 0) continue;
    if (player && strcasecmp(player, r->name[0]) != 0 &&
        strcasecmp(player, r->name[1]) != 0)
      continue;
    n++;
    json_t *ent = json_pack("{s:I, s:s, s:o, s:s, s:b, s:I, s:I, s:o, s:o, s:I}",
                          "game_id", (json_int_t)r->id, "game", r->m.vt->name,
                          "players", players_json(r), "time_control", r->tc_text,
                          "rated", r->rated, "moves", (json_int_t)r->m.ply, "seq",
                          (json_int_t)r->committed, "to_move", to_move_json(r),
                          "clocks", clocks_json(&r->clk, now), "spectators",
                          (json_int_t)r->specs.n);
    if (d) {
      /* What the delay has released, like every other spectator path. */
      int tm = game_match_to_move(&d->vm);
      json_object_set_new(ent, "moves", json_integer(d->vm.ply));
      json_object_set_new(ent, "seq", json_integer(d->vis_seq));
      json_object_set_new(ent, "to_move", tm == GAME_NOBODY || game_match_outcome(&d->vm).result != GAME_ONGOING
                                            ? json_null()
                                            : json_string(game_side_name(r->m.vt, tm)));
      json_object_set_new(ent, "clocks", delay_clocks_json(r));
      json_object_set_new(ent, "players", delay_players_json(r));
      json_object_set_new(ent, "spectator_delay", delay_json(d));
    }
    json_array_append_new(games, ent);
  }
  conn_reply_ok(c, m->type, m->id, json_pack("{s:o}", "games", games));
}

void room_h_chat_subscribe(conn *c, proto_msg *m) {
  json_int_t gid;
  int on;
  agon_err e;
  if (proto_unpack(m, &e, "{s:I, s:b}", "game_id", &gid, "on", &on) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  room *r = room_find(c->srv, gid);
  room_att *a = r ? att_find(c, r) : NULL;
  if (a == NULL) {
    conn_reply_err(c, m->type, m->id, AGON_ENOTFOUND, "not attached to this game as a player");
    return;
  }
  a->spec_chat = on;
  conn_reply_ok(c, m->type, m->id, NULL);
}

typedef struct chat_op {
  spec_chat_row row;      /* first: db ctx */
  struct server *s;
  conn *c;                /* held */
  json_t *id;
  char from[24];
} chat_op;

static void chat_cb(void *ctx, int status) {
  chat_op *op = ctx;
  if (conn_op_end(op->c)) {
    if (status == 0)
      conn_reply_ok(op->c, "chat", op->id,
                    json_pack("{s:I}", "chat_id", (json_int_t)op->row.chat_id));
    else
      conn_reply_err(op->c, "chat", op->id, status, NULL);
  }
  room *r = op->s->rooms ? room_find(op->s, op->row.game_id) : NULL;
  if (status == 0 && r) {
    json_t *ev = json_pack("{s:s, s:I, s:I, s:s, s:s, s:s, s:I}", "event", "chat",
                           "game_id", (json_int_t)r->id, "chat_id",
                           (json_int_t)op->row.chat_id, "room", op->row.room,
                           "from", op->from, "text", op->row.text, "at_ms",
                           (json_int_t)op->row.at_ms);
    wbuf *b = encode_free(ev);
    r->hold++;
    if (b && strcmp(op->row.room, "players") == 0) {
      room_send(r, b, -1);
    } else if (b) {
      /* Spectators, and the players who opted in. */
      conn *tg[ROOM_MAX_ATT];
      unsigned n = 0;
      for (room_att *a = r->atts; a && n < ROOM_MAX_ATT; a = a->rnext)
        if (a->spec_chat) {
          tg[n++] = a->c;
          conn_op_begin(a->c);
        }
      for (unsigned i = 0; i < n; i++)
        if (!tg[i]->closing) conn_send(tg[i], b);
      for (unsigned i = 0; i < n; i++) conn_op_end(tg[i]);
      spec_broadcast(&r->specs, b, spec_snapshot);
    }
    wbuf_unref(b);
    r->hold--;
    room_maybe_free(r);
  }
  json_decref(op->id);
  free(op->row.text);
  free(op);
}

void room_h_chat(conn *c, proto_msg *m) {
  json_int_t gid;
  const char *which, *text;
  agon_err e;
  if (proto_unpack(m, &e, "{s:I, s:s, s:s}", "game_id", &gid, "room", &which,
                   "text", &text) != 0) {
    conn_reply_err(c, m->type, m->id, e.code, e.msg);
    return;
  }
  int players = strcmp(which, "players") == 0;
  if (!players && strcmp(which, "spectators") != 0) {
    conn_reply_err(c, m->type, m->id, AGON_EBADFIELD,
                   "room must be \"players\" or \"spectators\"");
    return;
  }
  if (spec_chat_text_ok(text) != 0) {
    conn_reply_err(c, m->type, m->id, AGON_EBADFIELD,
                   "text must be 1-500 bytes without control characters");
    return;
  }
  room *r = room_find(c->srv, gid);
  if (r == NULL) {
    conn_reply_err(c, m->type, m->id, AGON_ENOTFOUND, "no such live game");
    return;
  }
  /* Players talk in "players"; watchers in "spectators" (players only read
   * it, and only when they opted in: no advice from the audience). */
  if (players ? seat_of_player(r, c->player_id) < 0 : spec_find(c, r) == NULL) {
    conn_reply_err(c, m->type, m->id, AGON_EFORBIDDEN,
                   players ? "not a player of this game" : "watch the game first");
    return;
  }
  uint64_t now = uv_now(c->srv->loop);
  if (!c->chat_init) {
    rl_init(&c->chat_bucket, CHAT_BURST, now);
    c->chat_init = 1;
  }
  uint64_t wait = rl_take(&c->chat_bucket, CHAT_RATE, CHAT_BURST, now);
  if (wait) {
    conn_reply_err_retry(c, m->type, m->id, AGON_ERATELIMIT, "chat: too fast",
                         (long long)wait);
    return;
  }
  chat_op *op = xcalloc(1, sizeof *op);
  op->s = c->srv;
  op->c = c;
  op->id = m->id ? json_incref(m->id) : NULL;
  snprintf(op->from, sizeof op->from, "%s", c->name);
  op->row.game_id = gid;
  op->row.player_id = c->player_id;
  op->row.at_ms = db_now_ms();
  snprintf(op->row.room, sizeof op->row.room, "%s", which);
  op->row.text = xstrdup(text);
  int rc = db_write(c->srv->db, spec_chat_job, &op->row, chat_cb);
  if (rc != 0) {
    conn_reply_err(c, m->type, m->id, rc == AGON_ESHUTDOWN ? rc : AGON_EBUSY, NULL);
    json_decref(op->id);
    free(op->row.text);
    free(op);
    return;
  }
  conn_op_begin(c);
}
