/* lobby.c - players, challenges, invitations and the lobby screen: see
 * lobby.h, docs/client.md ("The lobby") and docs/protocol.md ("Lobby"). */
#include "lobby.h"

#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli_util.h"
#include "game.h"
#include "history.h"
#include "online.h"
#include "play.h"
#include "term.h"

/* The screen refreshes the live games and the players this often: both
 * are requests (no events for them), cheap for the server (one walk). */
#define LOBBY_REFRESH_MS 3000
/* Lines of the message log at the bottom of the screen. */
#define LOBBY_LOG 4
#define LOBBY_LINE 160

json_t *lobby_game_fields(const char *game, const char *const *kv, int n_kv,
                          const char *tc, const char *side, int rated,
                          agon_err *err) {
  const game_vtable *vt = game_find(game);
  if (!vt) {
    char list[256] = "";
    size_t n = 0;
    for (size_t i = 0; game_registry[i] && n < sizeof list; i++) {
      int w = snprintf(list + n, sizeof list - n, " %s",
                       game_registry[i]->name);
      if (w < 0) break;
      n += (size_t)w;
    }
    agon_err_set(err, AGON_EUNKNOWNGAME, "unknown game '%s'; games:%s", game,
                 list);
    return NULL;
  }
  json_t *opt = json_object();
  for (int i = 0; i < n_kv; i++) {
    const char *eq = strchr(kv[i], '=');
    if (!eq || eq == kv[i] || eq - kv[i] >= 64) {
      json_decref(opt);
      agon_err_set(err, AGON_EINVAL, "-o %s: KEY=VALUE expected", kv[i]);
      return NULL;
    }
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - kv[i]), kv[i]);
    json_object_set_new(opt, key, json_string(eq + 1));
  }
  return json_pack("{s:s, s:o, s:s, s:s, s:b}", "game", vt->name, "options",
                   opt, "time_control", tc ? tc : "untimed", "side",
                   side ? side : "random", "rated", rated);
}

/* ---- scriptable commands ------------------------------------------------ */

int lobby_cmd_players(const lobby_env *e) {
  if (e->n_pos != 1) {
    fputs("usage: agon players [--prefix P] [--json]\n", stderr);
    return 2;
  }
  sess s;
  agon_err err;
  char token[160];
  int rc = e->connect(e, &s, 0, token, sizeof token, &err);
  json_t *d = NULL;
  if (!rc)
    rc = sess_request(&s, "players",
                      e->prefix ? json_pack("{s:s}", "prefix", e->prefix)
                                : NULL,
                      SESS_TIMEOUT_MS, &d, NULL, &err);
  sess_close(&s);
  if (rc) return e->fail(e, "players", &err);
  json_t *list = json_object_get(d, "players");
  int more = json_is_true(json_object_get(d, "more"));
  size_t i;
  json_t *p;
  /* --json: one player per line (JSON lines); a cut list ends with
   * {"more":true}. */
  if (!e->json) {
    if (!json_array_size(list)) puts("no players online");
    else printf("%-24s %-8s %s\n", "NAME", "ID", "GAMES");
  }
  json_array_foreach(list, i, p) {
    if (e->json) cli_print_json(json_incref(p));
    else printf("%-24s %-8lld %lld\n", cli_jstr(p, "name"), cli_jint(p, "player_id"),
                cli_jint(p, "games"));
  }
  if (more) {
    if (e->json) cli_print_json(json_pack("{s:b}", "more", 1));
    else puts("... more players: narrow the list with --prefix");
  }
  json_decref(d);
  return 0;
}

/* What a waiting challenger, inviter or joiner listens for. */
typedef struct wait_ev {
  json_t *start;         /* new: game_start */
  long long challenge;   /* our challenge id (0: none) */
  char removed[32];      /* its challenge_removed reason */
} wait_ev;

static void wait_cb(sess *s, const json_t *ev, void *arg) {
  (void)s;
  wait_ev *w = arg;
  const char *name = cli_jstr(ev, "event");
  if (!strcmp(name, "game_start") && !w->start)
    w->start = json_incref((json_t *)ev);
  else if (!strcmp(name, "challenge_removed") && w->challenge &&
           cli_jint(ev, "challenge_id") == w->challenge)
    snprintf(w->removed, sizeof w->removed, "%s", cli_jstr(ev, "reason"));
}

/* Wait for game_start (or, challenging, its removal) while connected. The
 * offer lives as long as the connection: a lost one ends the wait. */
static int wait_start(sess *s, wait_ev *w, agon_err *err) {
  /* "accepted" comes before game_start (sent once the game row is
   * committed): then wait for that, bounded. */
  int after_accept = 0;
  while (!w->start && (!w->removed[0] || !strcmp(w->removed, "accepted"))) {
    if (w->removed[0] && ++after_accept > SESS_TIMEOUT_MS / 1000)
      return agon_err_set(err, AGON_ETIMEOUT, "accepted, but no game_start");
    int rc = sess_pump(s, 1000, err);
    if (rc) return rc;
    if (s->closed)
      return agon_err_set(err, AGON_ESHUTDOWN,
                          "connection lost (%s): the offer is gone",
                          s->close_reason[0] ? s->close_reason : "closed");
  }
  return 0;
}

/* challenge and invite: post the offer, say so, wait for the game. */
static int offer_cmd(const lobby_env *e, int is_challenge) {
  const char *what = is_challenge ? "challenge" : "invite";
  int want = is_challenge ? 3 : 2;
  if (e->n_pos != want) {
    fprintf(stderr, "usage: agon %s%s GAME [-o KEY=VALUE]... [--tc TC] "
                    "[--side SIDE] [--rated]\n",
            what, is_challenge ? " NAME" : "");
    return 2;
  }
  agon_err err;
  json_t *f = lobby_game_fields(e->pos[want - 1], e->kv, e->n_kv, e->tc,
                                e->side, e->rated, &err);
  if (!f) {
    fprintf(stderr, "agon: %s: %s\n", what, err.msg);
    return 2;
  }
  if (is_challenge) json_object_set_new(f, "to", json_string(e->pos[1]));
  sess s;
  char token[160];
  wait_ev w = {NULL, 0, ""};
  int rc = e->connect(e, &s, 1, token, sizeof token, &err);
  json_t *d = NULL;
  if (!rc) {
    s.on_event = wait_cb;
    s.ev_arg = &w;
    rc = sess_request(&s, is_challenge ? "challenge" : "invite_create", f,
                      SESS_TIMEOUT_MS, &d, NULL, &err);
  } else {
    json_decref(f);
  }
  if (!rc && is_challenge) {
    w.challenge = cli_jint(d, "challenge_id");
    if (e->json)
      cli_print_json(json_pack("{s:b, s:s, s:I, s:s}", "ok", 1, "command",
                           what, "challenge_id", (json_int_t)w.challenge,
                           "to", e->pos[1]));
    else
      printf("challenge %lld: waiting for %s to answer (Ctrl-C cancels)\n",
             w.challenge, e->pos[1]);
  } else if (!rc) {
    if (e->json)
      cli_print_json(json_pack("{s:b, s:s, s:I, s:s}", "ok", 1, "command",
                           what, "invite_id",
                           (json_int_t)cli_jint(d, "invite_id"), "code",
                           cli_jstr(d, "code")));
    else
      printf("invitation %lld: code %s (agon join %s); waiting "
             "(Ctrl-C cancels)\n",
             cli_jint(d, "invite_id"), cli_jstr(d, "code"), cli_jstr(d, "code"));
  }
  json_decref(d);
  fflush(stdout);
  if (!rc) rc = wait_start(&s, &w, &err);
  if (!rc && !w.start) {
    /* Removed without a game: declined, or the target left. */
    if (!strcmp(w.removed, "declined"))
      rc = agon_err_set(&err, AGON_EFORBIDDEN, "%s declined the challenge",
                        e->pos[1]);
    else
      rc = agon_err_set(&err, AGON_ENOTFOUND, "the challenge is gone (%s)",
                        w.removed);
  }
  return e->finish(e, &s, token, w.start, rc, what, &err);
}

int lobby_cmd_challenge(const lobby_env *e) { return offer_cmd(e, 1); }
int lobby_cmd_invite(const lobby_env *e) { return offer_cmd(e, 0); }

int lobby_cmd_join(const lobby_env *e) {
  if (e->n_pos != 2) {
    fputs("usage: agon join CODE\n", stderr);
    return 2;
  }
  sess s;
  agon_err err;
  char token[160];
  wait_ev w = {NULL, 0, ""};
  int rc = e->connect(e, &s, 1, token, sizeof token, &err);
  json_t *d = NULL;
  if (!rc) {
    s.on_event = wait_cb;
    s.ev_arg = &w;
    rc = sess_request(&s, "invite_join", json_pack("{s:s}", "code",
                                                   e->pos[1]),
                      SESS_TIMEOUT_MS, &d, NULL, &err);
  }
  json_decref(d);
  /* game_start goes to every connection of both players, this one too. */
  for (int i = 0; !rc && !w.start && i < SESS_TIMEOUT_MS / 100; i++)
    rc = sess_pump(&s, 100, &err);
  if (!rc && !w.start) rc = agon_err_set(&err, AGON_ETIMEOUT, "no game_start");
  return e->finish(e, &s, token, w.start, rc, "join", &err);
}

/* ---- the lobby screen ---------------------------------------------------- */

typedef struct lobby {
  const lobby_env *e;
  sess s;
  char token[160];
  json_t *seeks;        /* new: array of SEEK, oldest first (live) */
  json_t *games;        /* new: games_live list */
  json_t *players;      /* new: players list */
  int players_more;
  json_t *chals;        /* new: array of incoming challenge events */
  json_t *mine;         /* new: object "id" -> target name, my challenges */
  json_t *start;        /* new: a game_start to switch to */
  char filter[32];      /* game name, or "" for all */
  char log[LOBBY_LOG][LOBBY_LINE];  /* messages, oldest first */
  char input[PLAY_INPUT_MAX];
  size_t in_len;
  long long next_refresh;
  int quit;
} lobby;

static void say(lobby *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(lobby *l, const char *fmt, ...) {
  memmove(l->log[0], l->log[1], sizeof l->log[0] * (LOBBY_LOG - 1));
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->log[LOBBY_LOG - 1], LOBBY_LINE, fmt, ap);
  va_end(ap);
}

static void drop_by_id(json_t *arr, const char *key, long long id) {
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) {
    if (cli_jint(v, key) == id) {
      json_array_remove(arr, i);
      return;
    }
  }
}

static void lobby_event(sess *s, const json_t *ev, void *arg) {
  (void)s;
  lobby *l = arg;
  const char *name = cli_jstr(ev, "event");
  if (!strcmp(name, "seek_added")) {
    const json_t *sk = json_object_get(ev, "seek");
    if (json_is_object(sk)) {
      drop_by_id(l->seeks, "seek_id", cli_jint(sk, "seek_id"));
      json_array_append(l->seeks, (json_t *)sk);
    }
  } else if (!strcmp(name, "seek_removed")) {
    drop_by_id(l->seeks, "seek_id", cli_jint(ev, "seek_id"));
  } else if (!strcmp(name, "challenge")) {
    drop_by_id(l->chals, "challenge_id", cli_jint(ev, "challenge_id"));
    json_array_append(l->chals, (json_t *)ev);
    say(l, "challenge %lld from %s: %s %s (yes %lld / no %lld)",
        cli_jint(ev, "challenge_id"), cli_jstr(ev, "from"), cli_jstr(ev, "game"),
        cli_jstr(ev, "time_control"), cli_jint(ev, "challenge_id"),
        cli_jint(ev, "challenge_id"));
  } else if (!strcmp(name, "challenge_removed")) {
    long long id = cli_jint(ev, "challenge_id");
    char key[32];
    snprintf(key, sizeof key, "%lld", id);
    const char *to = json_string_value(json_object_get(l->mine, key));
    const char *why = cli_jstr(ev, "reason");
    /* accepted: game_start follows, the play view says the rest. */
    if (to && !strcmp(why, "declined"))
      say(l, "%s declined your challenge %lld", to, id);
    else if (to && strcmp(why, "accepted") != 0)
      say(l, "your challenge %lld to %s is gone (%s)", id, to, why);
    if (to) json_object_del(l->mine, key);
    drop_by_id(l->chals, "challenge_id", id);
  } else if (!strcmp(name, "game_start") && !l->start) {
    l->start = json_incref((json_t *)ev);
  }
}

/* Fetch the seek list (subscribing), the live games and the players. */
static int lobby_refresh(lobby *l, int subscribe, agon_err *err) {
  json_t *d = NULL;
  int rc = 0;
  if (subscribe) {
    rc = sess_request(&l->s, "lobby_subscribe", json_pack("{s:b}", "on", 1),
                      SESS_TIMEOUT_MS, &d, NULL, err);
    if (rc) return rc;
    json_decref(l->seeks);
    l->seeks = json_incref(json_object_get(d, "seeks"));
    if (!json_is_array(l->seeks)) {
      json_decref(l->seeks);
      l->seeks = json_array();
    }
    json_decref(d);
    d = NULL;
  }
  rc = sess_request(&l->s, "games_live", NULL, SESS_TIMEOUT_MS, &d, NULL,
                    err);
  if (rc) return rc;
  json_decref(l->games);
  l->games = json_incref(json_object_get(d, "games"));
  json_decref(d);
  d = NULL;
  rc = sess_request(&l->s, "players", NULL, SESS_TIMEOUT_MS, &d, NULL, err);
  if (rc) return rc;
  json_decref(l->players);
  l->players = json_incref(json_object_get(d, "players"));
  l->players_more = json_is_true(json_object_get(d, "more"));
  json_decref(d);
  l->next_refresh = play_now_ms() + LOBBY_REFRESH_MS;
  return 0;
}

static int shown(const lobby *l, const json_t *item) {
  return !l->filter[0] || !strcmp(cli_jstr(item, "game"), l->filter);
}

/* Draw the lobby into f. Layout (80x24; a larger screen gives the panels
 * more rows): title; open seeks above live games on the left, players
 * above incoming challenges on the right; a rule, the message log, a
 * hint and the command line. */
static void lobby_render(const lobby *l, term_frame *f, int *crow,
                         int *ccol) {
  term_frame_clear(f);
  if (f->w < TERM_MIN_W || f->h < TERM_MIN_H) {
    /* As the play view does: say so, keep the command line (quit). */
    term_style err = term_st(TERM_RED, 0, TERM_BOLD);
    term_printf(f, 0, 0, err, "Terminal %dx%d is too small:", f->w, f->h);
    term_printf(f, 1, 0, err, "the lobby needs %dx%d.", TERM_MIN_W,
                TERM_MIN_H);
    *ccol = term_put(f, 2, 0, TERM_PLAIN, "lobby> ", -1);
    *ccol += term_put(f, 2, *ccol, TERM_PLAIN, l->input, -1);
    *crow = 2;
    return;
  }
  term_style head = term_st(TERM_CYAN, 0, TERM_BOLD);
  term_style dim = term_st(0, 0, TERM_DIM);
  term_style title = term_st(TERM_CYAN, 0, TERM_REVERSE | TERM_BOLD);
  char buf[256];
  snprintf(buf, sizeof buf, " agon lobby - %s @ %s:%d   filter: %s",
           l->s.name, l->e->host, l->e->port,
           l->filter[0] ? l->filter : "all");
  term_restyle(f, 0, 0, f->w, title);
  term_put(f, 0, 0, title, buf, f->w);

  int body = f->h - 8;              /* rows 1 .. body */
  int n_seek = (body - 2) / 2;      /* seek rows */
  int n_game = body - 2 - n_seek;
  int n_chal = 4;
  int n_play = body - 2 - n_chal;
  int rc0 = f->w - 32;              /* right column */
  int lw = rc0 - 2;                 /* left width */

  /* Open seeks. */
  size_t i, n = 0, total = 0;
  json_t *v;
  json_array_foreach(l->seeks, i, v) total += shown(l, v);
  term_printf(f, 1, 0, head, "Open seeks (%zu)  accept N", total);
  int row = 2;
  json_array_foreach(l->seeks, i, v) {
    if (!shown(l, v)) continue;
    if ((int)n == n_seek - 1 && total > (size_t)n_seek) {
      term_printf(f, row, 0, dim, "  ... %zu more", total - n);
      break;
    }
    const char *by = cli_jstr(v, "by");
    int me = !strcasecmp(by, l->s.name);
    /* 46 columns; '*' after the id marks a rated seek. */
    term_printf(f, row++, 0, me ? dim : TERM_PLAIN,
                "%4lld%c%-15.15s %-10.10s %-7.7s %.6s", cli_jint(v, "seek_id"),
                json_is_true(json_object_get(v, "rated")) ? '*' : ' ',
                cli_jstr(v, "game"), by, cli_jstr(v, "time_control"),
                cli_jstr(v, "side"));
    n++;
  }
  if (!total) term_put(f, row, 2, dim, "none: seek GAME to post one", lw);

  /* Live games. */
  int top = 2 + n_seek;
  n = total = 0;
  json_array_foreach(l->games, i, v) total += shown(l, v);
  term_printf(f, top, 0, head, "Live games (%zu)  watch N", total);
  row = top + 1;
  json_array_foreach(l->games, i, v) {
    if (!shown(l, v)) continue;
    if ((int)n == n_game - 1 && total > (size_t)n_game) {
      term_printf(f, row, 0, dim, "  ... %zu more", total - n);
      break;
    }
    const json_t *pl = json_object_get(v, "players");
    snprintf(buf, sizeof buf, "%s-%s",
             cli_jstr(json_array_get(pl, 0), "name"),
             cli_jstr(json_array_get(pl, 1), "name"));
    term_printf(f, row++, 0, TERM_PLAIN, "%4lld %-15.15s %-13.13s %-5.5s %2lld mv",
                cli_jint(v, "game_id"), cli_jstr(v, "game"), buf,
                cli_jstr(v, "time_control"), cli_jint(v, "moves"));
    n++;
  }
  if (!total) term_put(f, row, 2, dim, "none", lw);

  /* Players online. */
  total = json_array_size(l->players);
  term_printf(f, 1, rc0, head, "Players online (%zu%s)", total,
              l->players_more ? "+" : "");
  row = 2;
  n = 0;
  json_array_foreach(l->players, i, v) {
    if ((int)n == n_play - 1 && total > (size_t)n_play) {
      term_printf(f, row, rc0, dim, "  ... %zu more", total - n);
      break;
    }
    const char *name = cli_jstr(v, "name");
    long long g = cli_jint(v, "games");
    int me = !strcasecmp(name, l->s.name);
    char gtxt[32] = "";
    if (me) snprintf(gtxt, sizeof gtxt, "(you)");
    else if (g) snprintf(gtxt, sizeof gtxt, "%lld game%s", g, g > 1 ? "s" : "");
    term_printf(f, row++, rc0, me ? dim : TERM_PLAIN, "%-18.18s %s", name,
                gtxt);
    n++;
  }

  /* Challenges to me. */
  top = 2 + n_play;
  total = json_array_size(l->chals);
  term_printf(f, top, rc0, head, "Challenges (%zu)  yes/no N", total);
  row = top + 1;
  n = 0;
  json_array_foreach(l->chals, i, v) {
    if ((int)n == n_chal) break;
    term_printf(f, row++, rc0, term_st(TERM_YELLOW, 0, TERM_BOLD),
                "%3lld %-8.8s %s %s", cli_jint(v, "challenge_id"),
                cli_jstr(v, "from"), cli_jstr(v, "game"), cli_jstr(v, "time_control"));
    n++;
  }
  if (!total) term_put(f, row, rc0 + 2, dim, "none", 30);

  /* Rule, log, hint, command line. */
  row = f->h - 7;
  for (int c = 0; c < f->w; c++) term_put(f, row, c, dim, "-", 1);
  for (int k = 0; k < LOBBY_LOG; k++)
    term_put(f, f->h - 6 + k, 0, TERM_PLAIN, l->log[k], f->w);
  term_put(f, f->h - 2, 0, dim,
           "commands: seek accept challenge yes no invite join watch play "
           "filter help quit",
           f->w);
  int col = term_put(f, f->h - 1, 0, term_st(0, 0, TERM_BOLD), "lobby> ", -1);
  /* The tail of a long input line stays visible. */
  const char *in = l->input;
  size_t room = (size_t)(f->w - col - 1);
  if (strlen(in) > room) in += strlen(in) - room;
  col += term_put(f, f->h - 1, col, TERM_PLAIN, in, -1);
  *crow = f->h - 1;
  *ccol = col;
}

/* Split line into words (in place); at most cap of them. */
static int split(char *line, char **w, int cap) {
  int n = 0;
  for (char *t = strtok(line, " \t"); t && n < cap; t = strtok(NULL, " \t"))
    w[n++] = t;
  return n;
}

static int word_id(const char *t, long long *out) {
  char *end;
  long long v = t ? strtoll(t, &end, 10) : 0;
  if (!t || *end || v <= 0) return -1;
  *out = v;
  return 0;
}

/* Game options from the words after GAME: -o K=V, K=V, --tc TC, --side S,
 * --rated. Returns the fields or NULL (said why). */
static json_t *screen_fields(lobby *l, char **w, int n) {
  const char *kv[GAME_MAX_OPTIONS * 2];
  int n_kv = 0, rated = 0;
  const char *tc = NULL, *side = NULL;
  for (int i = 1; i < n; i++) {
    if (!strcmp(w[i], "--rated")) {
      rated = 1;
    } else if ((!strcmp(w[i], "--tc") || !strcmp(w[i], "--side") ||
                !strcmp(w[i], "-o")) && i + 1 < n) {
      const char *val = w[++i];
      if (w[i - 1][1] == 'o') {
        if (n_kv < (int)(sizeof kv / sizeof kv[0])) kv[n_kv++] = val;
      } else if (w[i - 1][2] == 't') {
        tc = val;
      } else {
        side = val;
      }
    } else if (strchr(w[i], '=') && n_kv < (int)(sizeof kv / sizeof kv[0])) {
      kv[n_kv++] = w[i];
    } else {
      say(l, "%s: what is '%s'? (-o K=V, --tc TC, --side S, --rated)", w[0],
          w[i]);
      return NULL;
    }
  }
  agon_err err;
  json_t *f = lobby_game_fields(w[0], kv, n_kv, tc, side, rated, &err);
  if (!f) say(l, "%s", err.msg);
  return f;
}

static void say_err(lobby *l, const char *what, const agon_err *err) {
  say(l, "%s: %s", what, err->msg);
}

static const char *const lobby_help[] = {
    "seek GAME [K=V]... [--tc 5+3|corr:D|untimed] [--side S] [--rated]",
    "accept N | challenge NAME GAME [opts] | yes N | no N (challenges to you)",
    "invite GAME [opts] (code) | join CODE | cancel N (your seek/challenge)",
    "watch N | play N (yours) | replay N (a finished game) | filter GAME|all | quit",
};

/* One command line of the lobby screen. Requests that fail say why in
 * the log; nothing here ends the lobby but quit. */
static void lobby_submit(lobby *l, char *line) {
  char *w[32];
  int n = split(line, w, 32);
  if (n == 0) return;
  const char *c = w[0];
  agon_err err;
  json_t *d = NULL;
  long long id;
  int rc;
  if (!strcmp(c, "quit") || !strcmp(c, "q") || !strcmp(c, "exit")) {
    l->quit = 1;
  } else if (!strcmp(c, "help") || !strcmp(c, "?")) {
    for (int i = 0; i < LOBBY_LOG; i++) say(l, "%s", lobby_help[i]);
  } else if (!strcmp(c, "filter")) {
    if (n != 2) {
      say(l, "usage: filter GAME|all");
    } else if (!strcmp(w[1], "all")) {
      l->filter[0] = 0;
      say(l, "filter: all games");
    } else if (!game_find(w[1])) {
      say(l, "filter: unknown game '%s'", w[1]);
    } else {
      snprintf(l->filter, sizeof l->filter, "%s", game_find(w[1])->name);
      say(l, "filter: %s only", l->filter);
    }
  } else if (!strcmp(c, "seek") || !strcmp(c, "invite")) {
    int seek = c[0] == 's';
    if (n < 2) {
      say(l, "usage: %s GAME [K=V]... [--tc TC] [--side S] [--rated]", c);
      return;
    }
    json_t *f = screen_fields(l, w + 1, n - 1);
    if (!f) return;
    rc = sess_request(&l->s, seek ? "seek_create" : "invite_create", f,
                      SESS_TIMEOUT_MS, &d, NULL, &err);
    if (rc) say_err(l, c, &err);
    else if (seek)
      say(l, "seek %lld posted: waiting for an opponent", cli_jint(d, "seek_id"));
    else
      say(l, "invitation %lld: code %s (agon join %s)", cli_jint(d, "invite_id"),
          cli_jstr(d, "code"), cli_jstr(d, "code"));
  } else if (!strcmp(c, "challenge")) {
    if (n < 3) {
      say(l, "usage: challenge NAME GAME [K=V]... [--tc TC] [--side S]");
      return;
    }
    json_t *f = screen_fields(l, w + 2, n - 2);
    if (!f) return;
    json_object_set_new(f, "to", json_string(w[1]));
    rc = sess_request(&l->s, "challenge", f, SESS_TIMEOUT_MS, &d, NULL, &err);
    if (rc) {
      say_err(l, c, &err);
    } else {
      char key[32];
      snprintf(key, sizeof key, "%lld", cli_jint(d, "challenge_id"));
      json_object_set_new(l->mine, key, json_string(w[1]));
      say(l, "challenge %s sent to %s: waiting for the answer", key, w[1]);
    }
  } else if (!strcmp(c, "accept") || !strcmp(c, "yes") || !strcmp(c, "no")) {
    if (n != 2 || word_id(w[1], &id)) {
      say(l, "usage: %s N", c);
      return;
    }
    int seek = c[0] == 'a', yes = c[0] == 'y';
    rc = sess_request(&l->s,
                      seek  ? "seek_accept"
                      : yes ? "challenge_accept"
                            : "challenge_decline",
                      json_pack("{s:I}", seek ? "seek_id" : "challenge_id",
                                (json_int_t)id),
                      SESS_TIMEOUT_MS, &d, NULL, &err);
    if (rc) say_err(l, c, &err);
    else if (!seek) drop_by_id(l->chals, "challenge_id", id);
    if (!rc && !strcmp(c, "no")) say(l, "challenge %lld declined", id);
  } else if (!strcmp(c, "join")) {
    if (n != 2) {
      say(l, "usage: join CODE");
      return;
    }
    rc = sess_request(&l->s, "invite_join", json_pack("{s:s}", "code", w[1]),
                      SESS_TIMEOUT_MS, &d, NULL, &err);
    if (rc) say_err(l, c, &err);
  } else if (!strcmp(c, "cancel")) {
    if (n != 2 || word_id(w[1], &id)) {
      say(l, "usage: cancel N (a seek or challenge of yours)");
      return;
    }
    char key[32];
    snprintf(key, sizeof key, "%lld", id);
    int chal = json_object_get(l->mine, key) != NULL;
    rc = sess_request(&l->s, chal ? "challenge_cancel" : "seek_cancel",
                      json_pack("{s:I}", chal ? "challenge_id" : "seek_id",
                                (json_int_t)id),
                      SESS_TIMEOUT_MS, &d, NULL, &err);
    if (rc) {
      say_err(l, c, &err);
    } else {
      if (chal) json_object_del(l->mine, key);
      say(l, "%s %lld cancelled", chal ? "challenge" : "seek", id);
    }
  } else if (!strcmp(c, "watch") || !strcmp(c, "play") ||
             !strcmp(c, "replay")) {
    if (n != 2 || word_id(w[1], &id)) {
      say(l, "usage: %s N (a game id)", c);
      return;
    }
    l->start = json_pack("{s:s, s:I}", "lobby", c, "game_id", (json_int_t)id);
  } else {
    say(l, "unknown command '%s' (help lists them)", c);
  }
  json_decref(d);
}

/* Leave the screen for a game (started, rejoined or watched) and come
 * back: the terminal is the play view's meanwhile. */
static void lobby_leave_for(lobby *l, term *t) {
  json_t *st = l->start;
  l->start = NULL;
  const char *how = json_string_value(json_object_get(st, "lobby"));
  long long gid = cli_jint(st, "game_id");
  if (how && !strcmp(how, "replay")) {
    /* The browser shares the terminal and the connection; lobby events
     * keep arriving (and updating the lists) meanwhile. */
    agon_err err;
    int rc = history_replay(&l->s, gid, t, &err);
    json_decref(st);
    term_invalidate(t);
    if (rc) say_err(l, "replay", &err);
    else say(l, "back in the lobby after replaying game %lld", gid);
    return;
  }
  term_close(t);
  if (how && !strcmp(how, "watch")) l->e->watch(l->e, gid);
  else if (how) l->e->play(l->e, &l->s, l->token, NULL, gid);
  else l->e->play(l->e, &l->s, l->token, st, gid);
  json_decref(st);
  term_open(t, STDIN_FILENO, STDOUT_FILENO);
  term_invalidate(t);
  /* The play view took the connection's events (and may have
   * reconnected it): ours again, and everything fetched afresh. */
  l->s.on_event = lobby_event;
  l->s.ev_arg = l;
  json_decref(l->start);
  l->start = NULL;
  agon_err err;
  if (!l->s.closed && lobby_refresh(l, 1, &err) == 0)
    say(l, "back in the lobby after game %lld", gid);
}

int lobby_cmd_screen(const lobby_env *e) {
  if (e->n_pos > 1) {
    fputs("usage: agon lobby\n", stderr);
    return 2;
  }
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || e->json) {
    fputs("agon: the lobby needs a terminal; for scripts use agon seeks, "
          "games, players, seek, accept, challenge, invite, join\n",
          stderr);
    return 2;
  }
  static lobby l;
  memset(&l, 0, sizeof l);
  l.e = e;
  l.seeks = json_array();
  l.chals = json_array();
  l.mine = json_object();
  agon_err err;
  int rc = e->connect(e, &l.s, 1, l.token, sizeof l.token, &err);
  if (!rc) {
    l.s.on_event = lobby_event;
    l.s.ev_arg = &l;
    rc = lobby_refresh(&l, 1, &err);
  }
  term t;
  if (!rc && term_open(&t, STDIN_FILENO, STDOUT_FILENO) != 0)
    rc = agon_err_set(&err, AGON_EINVAL, "cannot set up the terminal");
  if (rc) {
    sess_close(&l.s);
    json_decref(l.seeks);
    json_decref(l.chals);
    json_decref(l.mine);
    return e->fail(e, "lobby", &err);
  }
  say(&l, "welcome, %s: help lists the commands", l.s.name);
  term_frame f = {0, 0, NULL};
  while (!l.quit) {
    if (!f.c || f.w != t.w || f.h != t.h) {
      term_frame_close(&f);
      term_frame_init(&f, t.w, t.h);
      term_invalidate(&t);
    }
    int crow, ccol;
    lobby_render(&l, &f, &crow, &ccol);
    term_present(&t, &f, crow, ccol);
    if (l.start) {
      lobby_leave_for(&l, &t);
      continue;
    }
    if (l.s.closed) {
      say(&l, "connection lost (%s); reconnecting", l.s.close_reason);
      lobby_render(&l, &f, &crow, &ccol);
      term_present(&t, &f, crow, ccol);
      rc = sess_reconnect(&l.s, e->host, e->port, l.token,
                          ONLINE_RECONNECT_MS, &err);
      if (rc) break;
      /* Challenges to us and ours died with the connection unless another
       * connection of ours stayed (the server says nothing either way):
       * forget them rather than offer ones that may be gone. */
      json_array_clear(l.chals);
      json_object_clear(l.mine);
      rc = lobby_refresh(&l, 1, &err);
      if (rc) break;
      say(&l, "reconnected");
      continue;
    }
    long long now = play_now_ms();
    if (now >= l.next_refresh && lobby_refresh(&l, 0, &err) != 0 &&
        !l.s.closed)
      say_err(&l, "refresh", &err);
    struct pollfd pf[2] = {{t.in_fd, POLLIN, 0}, {sess_fd(&l.s), POLLIN, 0}};
    poll(pf, pf[1].fd >= 0 ? 2 : 1, 250);
    if (pf[1].fd >= 0 && pf[1].revents) sess_pump(&l.s, 0, NULL);
    int k = term_read_key(&t, 0);
    if (k == TERM_KEY_NONE || k == TERM_KEY_RESIZE) continue;
    if (k == TERM_KEY_EOF || k == 3 || k == 4) break;  /* Ctrl-C, Ctrl-D */
    if (k == '\r' || k == '\n') {
      char line[PLAY_INPUT_MAX];
      snprintf(line, sizeof line, "%s", l.input);
      l.input[0] = 0;
      l.in_len = 0;
      lobby_submit(&l, line);
    } else if (k == 127 || k == 8) {
      while (l.in_len > 0) {
        unsigned char c = (unsigned char)l.input[--l.in_len];
        if ((c & 0xc0) != 0x80) break;
      }
      l.input[l.in_len] = 0;
    } else if (k == 21) {  /* Ctrl-U */
      l.in_len = 0;
      l.input[0] = 0;
    } else if (k >= 32 && l.in_len + 4 < sizeof l.input) {
      l.in_len += (size_t)term_utf8_encode((uint32_t)k, l.input + l.in_len);
      l.input[l.in_len] = 0;
    }
  }
  term_frame_close(&f);
  term_close(&t);
  sess_close(&l.s);
  json_decref(l.seeks);
  json_decref(l.games);
  json_decref(l.players);
  json_decref(l.chals);
  json_decref(l.mine);
  json_decref(l.start);
  if (rc) return e->fail(e, "lobby", &err);
  return 0;
}
