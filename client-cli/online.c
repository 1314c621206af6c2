/* online.c - see online.h. */
#include "online.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

static int side_of_seat(const online *o, int seat) {
  return seat == 0 || seat == 1 ? o->seat_side[seat] : -1;
}

/* Server clocks {"ms":[seat0,seat1]|null,"running":seat|null} into the
 * view's per-side clocks; the local countdown restarts from them. */
static void set_clocks(online *o, const json_t *clocks) {
  const json_t *ms = json_object_get(clocks, "ms");
  if (!json_is_array(ms) || json_array_size(ms) != 2) return;
  play *p = o->p;
  p->clock_on = 1;
  for (int seat = 0; seat < 2; seat++) {
    int side = side_of_seat(o, seat);
    if (side < 0) side = seat;  /* before the choice: by seat */
    p->clock_ms[side] = json_integer_value(json_array_get(ms, (size_t)seat));
  }
  p->clock_mark = play_now_ms();
}

static void set_names(online *o) {
  for (int seat = 0; seat < 2; seat++) {
    int side = side_of_seat(o, seat);
    if (side < 0) continue;
    snprintf(o->side_names[side], sizeof o->side_names[side], "%s%s",
             o->names[seat], seat == o->my_seat ? " (you)" : "");
    o->p->names[side] = o->side_names[side];
  }
}

static void draw_offer_text(const online *o, int seat, char *buf, size_t cap) {
  snprintf(buf, cap, "%s offers a draw: accept or decline.", o->names[seat]);
}

/* The status line while the opponent is away: a countdown to the claim
 * (redrawn by be_pump, the view polls at least every 250 ms). */
static void gone_status(online *o) {
  if (!o->opp_gone || o->end || o->my_seat < 0) return;
  const char *who = o->names[1 - o->my_seat];
  long long left = o->claim_at - play_now_ms();
  if (left > 0)
    snprintf(o->p->status, sizeof o->p->status,
             "%s disconnected \u2014 you may claim in %lld s", who,
             (left + 999) / 1000);
  else
    snprintf(o->p->status, sizeof o->p->status,
             "%s disconnected \u2014 you may claim now: claim win or claim "
             "draw", who);
}

static void set_gone(online *o, long long claim_in_ms) {
  if (o->my_seat < 0 || o->watching) return;
  o->opp_gone = 1;
  o->claim_at = play_now_ms() + (claim_in_ms > 0 ? claim_in_ms : 0);
  gone_status(o);
}

static void clear_gone(online *o) {
  if (!o->opp_gone) return;
  o->opp_gone = 0;
  if (o->end) return;  /* the status shows the result */
  o->p->status[0] = 0;
  int opp = o->my_seat >= 0 ? 1 - o->my_seat : -1;
  if (opp >= 0 && o->p->draw_offer >= 0 &&
      o->p->draw_offer == side_of_seat(o, opp))
    draw_offer_text(o, opp, o->p->status, sizeof o->p->status);
}

/* join's snapshot says whether the opponent is attached (players only). */
static void snapshot_presence(online *o, const json_t *g) {
  const json_t *oc = json_object_get(g, "opponent_connected");
  const json_t *ci = json_object_get(g, "claim_in_ms");
  if (json_is_false(oc) && json_is_integer(ci))
    set_gone(o, json_integer_value(ci));
  else if (json_is_true(oc))
    clear_gone(o);
}

static void apply_end(online *o, const json_t *ev) {
  if (o->end) return;
  o->end = json_incref((json_t *)ev);
  o->opp_gone = 0;
  play *p = o->p;
  const char *result = json_string_value(json_object_get(ev, "result"));
  const char *reason = json_string_value(json_object_get(ev, "reason"));
  snprintf(o->end_reason, sizeof o->end_reason, "%s", reason ? reason : "");
  set_clocks(o, json_object_get(ev, "clocks"));
  if (game_match_outcome(&p->m).result == GAME_ONGOING) {
    if (result && !strcmp(result, "win")) {
      int ws = (int)json_integer_value(json_object_get(ev, "winner_seat"));
      int side = side_of_seat(o, ws);
      if (side < 0) side = ws;
      game_match_end(&p->m, game_outcome_win(side, o->end_reason));
    } else if (result && !strcmp(result, "draw")) {
      game_match_end(&p->m, game_outcome_draw(o->end_reason));
    }
  }
  if (!result) {
    snprintf(p->status, sizeof p->status, "Game aborted. Type quit.");
  } else {
    char t[128];
    view_outcome_text(p->m.vt, game_match_outcome(&p->m), t, sizeof t);
    snprintf(p->status, sizeof p->status, "Game over: %s. Type quit.", t);
  }
  p->draw_offer = -1;
}

static void set_mode(online *o) {
  if (!o->loaded) return;
  if (!o->watching) {
    /* Players see their audience too (the server sends them the count). */
    if (o->spectators > 0)
      snprintf(o->mode, sizeof o->mode, "online game, %lld spectator%s",
               o->spectators, o->spectators == 1 ? "" : "s");
    else
      snprintf(o->mode, sizeof o->mode, "online game");
    o->p->mode = o->mode;
    return;
  }
  if (o->spectators >= 0)
    snprintf(o->mode, sizeof o->mode, "watching game %lld, %lld spectator%s",
             o->game_id, o->spectators, o->spectators == 1 ? "" : "s");
  else
    snprintf(o->mode, sizeof o->mode, "watching game %lld", o->game_id);
  o->p->mode = o->mode;
}

/* One game event (a broadcast or a join replay), applied once in seq
 * order: older seqs were seen already. */
static void apply_event_inner(online *o, const json_t *ev) {
  const char *name = json_string_value(json_object_get(ev, "event"));
  if (!name || json_integer_value(json_object_get(ev, "game_id")) !=
                   o->game_id || !o->loaded)
    return;
  long long seq = json_integer_value(json_object_get(ev, "seq"));
  play *p = o->p;
  if (!strcmp(name, "game_end")) {
    if (seq > o->seq) o->seq = seq;
    apply_end(o, ev);
    return;
  }
  if (!strcmp(name, "opponent_gone")) {
    snprintf(p->message, sizeof p->message,
             "Your opponent is disconnected.");
    set_gone(o, json_integer_value(json_object_get(ev, "grace_ms")));
    return;
  }
  if (!strcmp(name, "opponent_back")) {
    snprintf(p->message, sizeof p->message, "Your opponent is back.");
    clear_gone(o);
    return;
  }
  if (!strcmp(name, "game_reload") || !strcmp(name, "game_snapshot")) {
    /* game_snapshot: a slow spectator skipped events; watching again from
     * our seq replays them in order, as after a reconnection. */
    o->resync = 1;  /* rejoin from our seq */
    return;
  }
  if (!strcmp(name, "spectators")) {
    o->spectators = json_integer_value(json_object_get(ev, "count"));
    set_mode(o);
    return;
  }
  if (!strcmp(name, "chat")) {
    const char *from = json_string_value(json_object_get(ev, "from"));
    const char *text = json_string_value(json_object_get(ev, "text"));
    const char *room = json_string_value(json_object_get(ev, "room"));
    /* Control characters are refused by the server; the text is shown
     * as sent. */
    memcpy(o->chat[0], o->chat[1], sizeof o->chat[0]);
    snprintf(o->chat[1], sizeof o->chat[1], "%s%s: %s",
             room && !strcmp(room, "spectators") ? "[spectator] " : "",
             from ? from : "?", text ? text : "");
    snprintf(p->message, sizeof p->message, "%s%s%s", o->chat[0],
             o->chat[0][0] ? "\n" : "", o->chat[1]);
    return;
  }
  if (seq <= o->seq) return;
  if (seq != o->seq + 1) {
    /* Something in between was missed (e.g. it arrived before this game
     * was loaded): join from our seq fills the gap in order. */
    o->resync = 1;
    return;
  }
  int seat = (int)json_integer_value(json_object_get(ev, "seat"));
  if (!strcmp(name, "move")) {
    const char *mv = json_string_value(json_object_get(ev, "move"));
    agon_err err;
    if (!mv || play_apply(p, mv, &err)) {
      /* Cannot happen with the same rules core; resync from a snapshot. */
      snprintf(p->message, sizeof p->message,
               "local copy out of step (%s): rejoining", mv ? err.msg : "?");
      o->resync = 1;
      o->seq = -1;  /* join without since_seq: the snapshot, not a replay */
      return;
    }
    o->seq = seq;
    const json_t *ply = json_object_get(ev, "ply");
    o->ply = json_is_integer(ply) ? json_integer_value(ply) : o->ply + 1;
    if (json_is_object(json_object_get(ev, "outcome"))) o->ending = 1;
    const json_t *sides = json_object_get(ev, "sides");
    if (json_is_array(sides)) {
      for (int i = 0; i < 2; i++)
        o->seat_side[i] = game_side_from_name(
            p->m.vt, json_string_value(json_array_get(sides, (size_t)i)));
      set_names(o);
    }
    p->draw_offer = -1;  /* an offer lapses with the next move */
    set_clocks(o, json_object_get(ev, "clocks"));
    if (seat != o->my_seat) p->message[0] = 0;
  } else if (!strcmp(name, "draw_offer")) {
    o->seq = seq;
    p->draw_offer = side_of_seat(o, seat);
    if (seat != o->my_seat) {
      draw_offer_text(o, seat, p->message, sizeof p->message);
      draw_offer_text(o, seat, p->status, sizeof p->status);
    }
  } else if (!strcmp(name, "draw_decline")) {
    o->seq = seq;
    p->draw_offer = -1;
    p->status[0] = 0;
    snprintf(p->message, sizeof p->message, "Draw declined.");
  } else if (!strcmp(name, "rematch_offer")) {
    o->seq = seq;
    if (seat != o->my_seat)
      snprintf(p->message, sizeof p->message,
               "%s offers a rematch (agon accept is not needed: type "
               "rematch).", o->names[seat]);
  } else {
    o->seq = seq;
  }
}

/* ---- the request in flight (online_expect) ----------------------------- */

static void expect_start(online *o, const char *type, const char *result) {
  online_expect *x = &o->x;
  memset(x, 0, sizeof *x);
  x->state = ONLINE_X_PENDING;
  x->type = type;
  x->result = result;
  x->after = o->seq;
  x->ply = o->ply;
  x->my_turn = o->my_seat >= 0 && online_seat_to_move(o) == o->my_seat;
}

static void expect_decide(online *o, int state, long long at) {
  o->x.state = state;
  o->x.at = at;
}

/* Is a game ending (result "win"/"draw"/NULL, reason, winner's seat or -1)
 * the one the pending ending action produces? game_end does not name who
 * acted, so the outcome says it: our resignation is the opponent's win by
 * "resign", our claim a win for us (or a draw) by "abandoned". Agreement
 * and abort are the same ending whoever sent the last word. */
static int expect_end_is(const online *o, const char *result,
                         const char *reason, int winner_seat) {
  const online_expect *x = &o->x;
  if (!reason) return 0;
  if (!strcmp(x->type, "resign"))
    return !strcmp(reason, "resign") && winner_seat == 1 - o->my_seat;
  if (!strcmp(x->type, "draw_accept")) return !strcmp(reason, "agreement");
  if (!strcmp(x->type, "abort")) return !strcmp(reason, "aborted");
  if (!strcmp(x->type, "claim"))
    return !strcmp(reason, "abandoned") && result && x->result &&
           (!strcmp(x->result, "win") ? winner_seat == o->my_seat
                                      : !strcmp(result, "draw"));
  return 0;
}

/* ev was just applied at its seq, past the pending request's `after`.
 * Moves, draw offers/declines and rematch offers are broadcast under the
 * request's own name with the actor's seat; the ending actions as
 * game_end. A move is sent with its seq, so only the event right after
 * `after` can be it: whatever comes first decides. An action carries no
 * seq and may commit behind events already on their way, so only its own
 * event or the end of the game (nothing commits after it) decides. */
static void expect_see(online *o, const json_t *ev) {
  const online_expect *x = &o->x;
  const char *name = json_string_value(json_object_get(ev, "event"));
  long long seq = json_integer_value(json_object_get(ev, "seq"));
  if (x->state != ONLINE_X_PENDING || !name || seq <= x->after) return;
  const json_t *sj = json_object_get(ev, "seat");
  int seat = json_is_integer(sj) ? (int)json_integer_value(sj) : -1;
  int is_end = !strcmp(name, "game_end");
  int ours;
  if (is_end) {
    const json_t *ws = json_object_get(ev, "winner_seat");
    ours = expect_end_is(o, json_string_value(json_object_get(ev, "result")),
                         json_string_value(json_object_get(ev, "reason")),
                         json_is_integer(ws) ? (int)json_integer_value(ws)
                                             : -1);
  } else {
    ours = !strcmp(name, x->type) && seat >= 0 && seat == o->my_seat;
  }
  if (ours)
    expect_decide(o, ONLINE_X_DONE, seq);
  else if (!strcmp(x->type, "move") || is_end)
    expect_decide(o, ONLINE_X_NOT, 0);
}

/* join's snapshot replaced the local copy (too much missed): no events to
 * look at, so what the snapshot g shows decides. A move is ours if the
 * ply moved on from one where our seat was to move (nobody else can make
 * our seat's move; another connection of this account counts as us); an
 * offer if the snapshot's pending offer is ours; an ending if the game
 * ended the way it ends. Anything else stays pending: the request is sent
 * again and the server's typed error decides. */
static void expect_snapshot(online *o, const json_t *g) {
  const online_expect *x = &o->x;
  if (x->state != ONLINE_X_PENDING) return;
  if (!strcmp(x->type, "move")) {
    if (x->my_turn && o->ply > x->ply) expect_decide(o, ONLINE_X_DONE, o->seq);
    return;
  }
  if (!strcmp(x->type, "draw_offer")) {
    const json_t *d = json_object_get(g, "draw_offer");
    if (json_is_integer(d) && json_integer_value(d) == o->my_seat)
      expect_decide(o, ONLINE_X_DONE, o->seq);
    return;
  }
  const json_t *oc = json_object_get(json_object_get(g, "state"), "outcome");
  if (!json_is_object(oc)) return;
  const char *w = json_string_value(json_object_get(oc, "winner"));
  int wside = w ? game_side_from_name(o->p->m.vt, w) : -1, wseat = -1;
  for (int seat = 0; seat < 2; seat++)
    if (wside >= 0 && o->seat_side[seat] == wside) wseat = seat;
  if (expect_end_is(o, json_string_value(json_object_get(oc, "result")),
                    json_string_value(json_object_get(oc, "reason")), wseat))
    expect_decide(o, ONLINE_X_DONE, o->seq);
  else if (strcmp(x->type, "rematch_offer"))
    expect_decide(o, ONLINE_X_NOT, 0);  /* over, and not by this request */
}

static void apply_event(online *o, const json_t *ev) {
  long long before = o->seq;
  int had_end = o->end != NULL;
  apply_event_inner(o, ev);
  if (o->seq > before) expect_see(o, ev);
  if (!o->hook || !o->loaded ||
      json_integer_value(json_object_get(ev, "game_id")) != o->game_id)
    return;
  if (json_is_integer(json_object_get(ev, "seq")) && o->seq <= before &&
      (had_end || !o->end))
    return;  /* seen already, or not applied (a gap: the rejoin brings it) */
  o->hook(o, ev, o->hook_arg);
}

static void on_event(sess *s, const json_t *ev, void *arg) {
  (void)s;
  apply_event(arg, ev);
}

/* ---- play_backend ------------------------------------------------------- */

static int be_move(play *p, const char *canonical, void *arg) {
  online *o = arg;
  if (o->watching) {
    snprintf(p->message, sizeof p->message,
             "You are watching this game: say TEXT chats, quit leaves.");
    return AGON_EFORBIDDEN;
  }
  agon_err err;
  agon_err_clear(&err);
  int rc = online_move(o, canonical, &err);
  if (rc) snprintf(p->message, sizeof p->message, "%s: %s", canonical,
                   err.msg);
  return rc;
}

static int be_command(play *p, const char *cmd, const char *rest,
                      void *arg) {
  online *o = arg;
  const char *type = NULL;
  if (!strcmp(cmd, "say") || !strcmp(cmd, "chat")) {
    agon_err err;
    agon_err_clear(&err);
    int rc = *rest ? online_chat(o, rest, &err)
                   : agon_err_set(&err, AGON_EINVAL, "say TEXT");
    if (rc) snprintf(p->message, sizeof p->message, "%s: %s", cmd, err.msg);
    return rc;
  }
  if (o->watching) {
    snprintf(p->message, sizeof p->message,
             "You are watching this game: say TEXT chats, quit leaves.");
    return AGON_EFORBIDDEN;
  }
  if (!strcmp(cmd, "claim")) {
    agon_err err;
    agon_err_clear(&err);
    int rc = strcmp(rest, "win") && strcmp(rest, "draw")
                 ? agon_err_set(&err, AGON_EINVAL, "claim win or claim draw")
                 : online_claim(o, rest, &err);
    if (rc) snprintf(p->message, sizeof p->message, "claim: %s", err.msg);
    return rc;
  }
  if (!strcmp(cmd, "resign")) type = "resign";
  else if (!strcmp(cmd, "draw")) type = "draw_offer";
  else if (!strcmp(cmd, "accept")) type = "draw_accept";
  else if (!strcmp(cmd, "decline")) type = "draw_decline";
  else if (!strcmp(cmd, "abort")) type = "abort";
  else if (!strcmp(cmd, "rematch")) type = "rematch_offer";
  if (!type) {
    snprintf(p->message, sizeof p->message,
             "%s is not available in online games yet", cmd);
    return AGON_EINVAL;
  }
  agon_err err;
  agon_err_clear(&err);
  int rc = online_action(o, type, &err);
  if (rc)
    snprintf(p->message, sizeof p->message, "%s: %s", cmd, err.msg);
  else if (!strcmp(type, "draw_offer"))
    snprintf(p->message, sizeof p->message, "Draw offered.");
  else if (!strcmp(type, "rematch_offer"))
    snprintf(p->message, sizeof p->message, "Rematch offered.");
  return rc;
}

static int lost(int rc) { return rc == AGON_ESHUTDOWN || rc == AGON_ETIMEOUT; }

static int be_pump(play *p, void *arg) {
  online *o = arg;
  agon_err err;
  agon_err_clear(&err);
  gone_status(o);
  if (!o->lost && !o->resync) {
    int rc = sess_pump(o->s, 0, &err);
    if (lost(rc) || o->s->closed) {
      /* Reconnect on the next call, after the view has shown this: the
       * reconnection blocks (up to ONLINE_RECONNECT_MS). */
      o->lost = 1;
      snprintf(p->message, sizeof p->message,
               "Connection lost; reconnecting...");
      return -1;
    }
    if (!o->resync) return sess_fd(o->s);
  }
  if (online_pump(o, 0, &err))
    snprintf(p->message, sizeof p->message, "%s", err.msg);
  return o->lost ? -1 : sess_fd(o->s);
}

void online_init(online *o, sess *s, play *p, const char *host, int port,
                 const char *token, long long game_id) {
  memset(o, 0, sizeof *o);
  o->s = s;
  o->p = p;
  o->host = host;
  o->port = port;
  snprintf(o->token, sizeof o->token, "%s", token ? token : "");
  o->game_id = game_id;
  o->my_seat = -1;
  o->spectators = -1;
  o->seat_side[0] = o->seat_side[1] = -1;
  o->chooser_seat = -1;
  o->be.move = be_move;
  o->be.command = be_command;
  o->be.pump = be_pump;
  o->be.arg = o;
  s->on_event = on_event;
  s->ev_arg = o;
}

void online_close(online *o) {
  if (o->loaded) play_close(o->p);
  json_decref(o->end);
  json_decref(o->options);
  o->end = o->options = NULL;
  o->loaded = 0;
  if (o->s && o->s->ev_arg == o) o->s->on_event = NULL;
}

int online_load(online *o, const json_t *start, agon_err *err) {
  const char *gname = json_string_value(json_object_get(start, "game"));
  const game_vtable *vt = gname ? game_find(gname) : NULL;
  if (!vt) return agon_err_set(err, AGON_EUNKNOWNGAME, "unknown game %s",
                               gname ? gname : "?");
  game_setup setup;
  game_setup_init(&setup, vt);
  const char *k;
  json_t *v;
  json_object_foreach(json_object_get(start, "options"), k, v) {
    char val[GAME_OPT_TEXT_MAX];
    if (json_is_string(v)) snprintf(val, sizeof val, "%s", json_string_value(v));
    else if (json_is_integer(v))
      snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v)) snprintf(val, sizeof val, "%s", json_is_true(v) ? "true" : "false");
    else continue;
    if (!val[0]) continue;
    int rc = game_setup_set(&setup, k, val, err);
    if (rc) return rc;
  }
  const json_t *state = json_object_get(start, "state");
  const char *pos = json_string_value(json_object_get(state, "position"));
  if (o->loaded) play_close(o->p);
  o->loaded = 0;
  int rc = play_init(o->p, &setup, 0, pos, err);
  if (rc) return rc;
  o->loaded = 1;
  json_decref(o->options);
  o->options = json_incref(json_object_get(start, "options"));
  o->p->mode = "online game";
  o->p->be = &o->be;
  o->seq = json_integer_value(json_object_get(start, "seq"));
  o->ply = json_integer_value(json_object_get(state, "ply"));
  const json_t *cs = json_object_get(start, "chooser_seat");
  o->chooser_seat = json_is_integer(cs) ? (int)json_integer_value(cs) : -1;
  const json_t *players = json_object_get(start, "players");
  for (size_t i = 0; i < json_array_size(players); i++) {
    const json_t *pl = json_array_get(players, i);
    int seat = (int)json_integer_value(json_object_get(pl, "seat"));
    if (seat < 0 || seat > 1) continue;
    const char *n = json_string_value(json_object_get(pl, "name"));
    snprintf(o->names[seat], sizeof o->names[seat], "%s", n ? n : "?");
    const char *sd = json_string_value(json_object_get(pl, "side"));
    o->seat_side[seat] = sd ? game_side_from_name(vt, sd) : -1;
    if (n && !strcmp(n, o->s->name)) o->my_seat = seat;
  }
  set_names(o);
  set_clocks(o, json_object_get(start, "clocks"));
  const json_t *d = json_object_get(start, "draw_offer");
  if (json_is_integer(d)) o->p->draw_offer = side_of_seat(o, (int)json_integer_value(d));
  const json_t *oc = json_object_get(state, "outcome");
  if (json_is_object(oc) && game_match_outcome(&o->p->m).result == GAME_ONGOING) {
    /* Ended from outside the rules (resign, time...): no event to replay. */
    const char *res = json_string_value(json_object_get(oc, "result"));
    const char *rs = json_string_value(json_object_get(oc, "reason"));
    const char *w = json_string_value(json_object_get(oc, "winner"));
    snprintf(o->end_reason, sizeof o->end_reason, "%s", rs ? rs : "");
    if (res && !strcmp(res, "win") && w)
      game_match_end(&o->p->m, game_outcome_win(game_side_from_name(vt, w),
                                                o->end_reason));
    else if (res && !strcmp(res, "draw"))
      game_match_end(&o->p->m, game_outcome_draw(o->end_reason));
  }
  const json_t *sc = json_object_get(start, "spectators");
  if (json_is_integer(sc)) o->spectators = json_integer_value(sc);
  if (o->watching) {
    o->my_seat = -1;  /* a player may watch too: still read-only here */
    o->p->read_only = 1;
    set_names(o);
  }
  set_mode(o);
  if (o->watching) {
    snprintf(o->p->message, sizeof o->p->message,
             "Watching game %lld: %s vs %s. say TEXT chats, quit leaves.",
             o->game_id, o->names[0], o->names[1]);
  }
  if (o->my_seat >= 0)
    snprintf(o->p->message, sizeof o->p->message,
             "Game %lld against %s. Type a move (Tab completes), or help.",
             o->game_id, o->names[1 - o->my_seat]);
  return 0;
}

int online_join(online *o, agon_err *err) {
  json_t *f = json_pack("{s:I}", "game_id", (json_int_t)o->game_id);
  if (o->loaded && o->seq >= 0)
    json_object_set_new(f, "since_seq", json_integer(o->seq));
  json_t *d = NULL;
  int rc = sess_request(o->s, o->watching ? "watch" : "join", f,
                        SESS_TIMEOUT_MS, &d, NULL, err);
  if (rc) return rc;
  const json_t *events = json_object_get(d, "events");
  if (o->loaded && o->seq >= 0 && json_is_array(events)) {
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev) apply_event(o, ev);
    /* The snapshot has the current clocks (replays carry only ms). */
    set_clocks(o, json_object_get(json_object_get(d, "game"), "clocks"));
  } else {
    /* First join, or too much missed: the snapshot is the truth. */
    rc = online_load(o, json_object_get(d, "game"), err);
    if (rc == 0) expect_snapshot(o, json_object_get(d, "game"));
  }
  if (rc == 0) snapshot_presence(o, json_object_get(d, "game"));
  o->lost = 0;
  o->resync = 0;
  json_decref(d);
  return rc;
}

static int reconnect(online *o, agon_err *err) {
  if (o->p && o->loaded)
    snprintf(o->p->message, sizeof o->p->message,
             "Connection lost; reconnecting...");
  int rc = sess_reconnect(o->s, o->host, o->port, o->token,
                          ONLINE_RECONNECT_MS, err);
  if (rc) return rc;
  rc = online_join(o, err);
  if (rc == 0 && o->loaded)
    snprintf(o->p->message, sizeof o->p->message,
             "Reconnected; game resumed at seq %lld.", o->seq);
  return rc;
}

int online_pump(online *o, int timeout_ms, agon_err *err) {
  int rc = 0;
  if (!o->lost && !o->resync) rc = sess_pump(o->s, timeout_ms, err);
  if (o->lost || lost(rc) || o->s->closed) {
    o->lost = 1;
    return reconnect(o, err);
  }
  if (!rc && o->resync) {
    rc = online_join(o, err);
    if (lost(rc)) {
      o->lost = 1;
      return reconnect(o, err);
    }
  }
  return rc;
}

/* The resend of a request after a reconnection failed while the first
 * one is still undecided: the server refuses it because something took
 * the seq meanwhile (stale_seq, not_your_turn, game_over, bad_state), and
 * that may be the first request itself, committed after our rejoin read
 * the events (its event follows on the connection). Wait for it briefly. */
#define ONLINE_SETTLE_MS 2000

static int refused_by_state(int rc) {
  return rc == AGON_ESTALE || rc == AGON_ENOTTURN || rc == AGON_EGAMEOVER ||
         rc == AGON_ESTATE;
}

/* Send a request that commits one game event (a move, a game action) and
 * get the seq of its event (*want; 0 when the reply has none). After a
 * lost connection it is not sent again blindly: the rejoin applies what
 * the server committed meanwhile and o->x says whether this request's own
 * event is among it (a later seq alone proves nothing). Only if not is it
 * sent once more, rebuilt by fields (a move then carries the current seq,
 * so the server refuses it with a typed error if the position moved on). */
static int commit_request(online *o, const char *type, const char *result,
                          json_t *(*fields)(const online *, const void *),
                          const void *arg, long long *want, agon_err *err) {
  expect_start(o, type, result);
  int rc;
  for (int attempt = 0;; attempt++) {
    json_t *d = NULL;
    rc = sess_request(o->s, type, fields(o, arg), SESS_TIMEOUT_MS, &d, NULL,
                      err);
    if (rc == 0) {
      *want = json_integer_value(json_object_get(d, "seq"));
      json_decref(d);
      break;
    }
    if (lost(rc) && attempt == 0) {
      rc = reconnect(o, err);
      if (rc) break;
      if (o->x.state == ONLINE_X_DONE) {
        *want = o->x.at;  /* committed before the loss: applied already */
        break;
      }
      continue;
    }
    if (attempt > 0 && o->x.state == ONLINE_X_PENDING &&
        refused_by_state(rc)) {
      agon_err keep = *err;
      long long deadline = play_now_ms() + ONLINE_SETTLE_MS;
      while (o->x.state == ONLINE_X_PENDING && play_now_ms() < deadline &&
             !o->resync)
        if (sess_pump(o->s, 100, NULL)) break;
      if (o->x.state == ONLINE_X_DONE) {
        *want = o->x.at;
        rc = 0;
      } else {
        *err = keep;
      }
    }
    break;
  }
  o->x.state = ONLINE_X_NONE;
  return rc;
}

static json_t *move_fields(const online *o, const void *move) {
  return json_pack("{s:I, s:s, s:I}", "game_id", (json_int_t)o->game_id,
                   "move", (const char *)move, "seq", (json_int_t)o->seq);
}

int online_move(online *o, const char *move, agon_err *err) {
  long long want = 0;
  int rc = commit_request(o, "move", NULL, move_fields, move, &want, err);
  if (rc) return rc;
  /* The event may follow the reply; and an ending move's game_end. */
  long long deadline = play_now_ms() + SESS_TIMEOUT_MS;
  while (play_now_ms() < deadline && !o->lost) {
    if (o->resync && (rc = online_pump(o, 0, err)) != 0) break;
    int over = online_over(o);
    if (o->seq >= want && (!over || o->end)) break;
    rc = sess_pump(o->s, 100, err);
    if (rc) break;
  }
  if (o->lost || lost(rc) || o->resync) return online_pump(o, 0, err);
  return 0;
}

/* A game action with its fields (NULL: none; borrowed), sent again once
 * after a reconnection unless the rejoin shows it done; waits for the
 * event at the reply's seq. */
static json_t *action_fields(const online *o, const void *fields) {
  json_t *f = json_pack("{s:I}", "game_id", (json_int_t)o->game_id);
  if (fields) json_object_update(f, (json_t *)fields);
  return f;
}

static int action(online *o, const char *type, const json_t *fields,
                  agon_err *err) {
  long long want = 0;
  const char *result =
      fields ? json_string_value(json_object_get(fields, "result")) : NULL;
  int rc = commit_request(o, type, result, action_fields, fields, &want, err);
  if (rc) return rc;
  long long deadline = play_now_ms() + SESS_TIMEOUT_MS;
  while (want > 0 && o->seq < want && play_now_ms() < deadline)
    if (sess_pump(o->s, 100, err)) break;
  return 0;
}

int online_action(online *o, const char *type, agon_err *err) {
  return action(o, type, NULL, err);
}

int online_claim(online *o, const char *result, agon_err *err) {
  json_t *f = json_pack("{s:s}", "result", result);
  int rc = action(o, "claim", f, err);
  json_decref(f);
  return rc;
}

int online_chat(online *o, const char *text, agon_err *err) {
  json_t *d = NULL;
  int rc = sess_request(
      o->s, "chat",
      json_pack("{s:I, s:s, s:s}", "game_id", (json_int_t)o->game_id, "room",
                o->watching ? "spectators" : "players", "text", text),
      SESS_TIMEOUT_MS, &d, NULL, err);
  json_decref(d);
  return rc;
}

int online_over(const online *o) {
  return o->end || o->ending ||
         (o->loaded && game_match_outcome(&o->p->m).result != GAME_ONGOING);
}

int online_seat_to_move(const online *o) {
  if (!o->loaded) return -1;
  int tm = game_match_to_move(&o->p->m);
  if (game_match_outcome(&o->p->m).result != GAME_ONGOING) return -1;
  if (tm == GAME_CHOOSER) return o->chooser_seat;
  for (int seat = 0; seat < 2; seat++)
    if (o->seat_side[seat] == tm) return seat;
  return -1;
}

json_t *online_state_json(const online *o) {
  const play *p = o->p;
  char pos[GAME_POSITION_MAX];
  if (p->m.vt->to_position(&p->m.st, pos, sizeof pos) < 0) pos[0] = 0;
  game_outcome oc = game_match_outcome(&p->m);
  int seat = online_seat_to_move(o);
  json_t *players = json_array();
  for (int s = 0; s < 2; s++) {
    int side = o->seat_side[s];
    json_array_append_new(
        players, json_pack("{s:i, s:s, s:s?}", "seat", s, "name", o->names[s],
                           "side", side >= 0 ? game_side_name(p->m.vt, side)
                                             : NULL));
  }
  json_t *j = json_pack(
      "{s:b, s:I, s:I, s:s, s:s, s:s?, s:s?, s:o, s:o}", "ok", 1, "game_id",
      (json_int_t)o->game_id, "seq", (json_int_t)o->seq, "game",
      p->m.vt->name, "position", pos, "to_move",
      oc.result == GAME_ONGOING
          ? game_side_name(p->m.vt, game_match_to_move(&p->m))
          : NULL,
      "to_move_player", seat >= 0 ? o->names[seat] : NULL, "players", players,
      "outcome", game_outcome_json(p->m.vt, oc));
  if (o->end) json_object_set(j, "game_end", o->end);
  if (o->options) json_object_set(j, "options", o->options);
  /* The legal moves from the local rules core: a script can play without
   * a rules engine of its own. */
  static game_move mv[GAME_MAX_MOVES];
  size_t n = 0;
  json_t *legal = json_array();
  if (game_match_legal(&p->m, mv, GAME_MAX_MOVES, &n) == 0) {
    for (size_t i = 0; i < n; i++) {
      char t[GAME_MOVE_TEXT_MAX];
      if (p->m.vt->format_move(&p->m.st, &mv[i], t, sizeof t) >= 0)
        json_array_append_new(legal, json_string(t));
    }
  }
  json_object_set_new(j, "legal", legal);
  if (p->m.last_text[0] && p->n_moves)
    json_object_set_new(j, "last_move", json_string(p->m.last_text));
  return j;
}
