/* main.c - the agon terminal client: subcommand dispatch.
 *
 *   agon local GAME [-o K=V]... [--seed N] [--position POS] [--clock M+S]
 *   agon show GAME [-o K=V]... [--seed N] [--position POS] [MOVE]...
 *   agon rules [GAME]
 *   agon [--host H] [--port P] [--json] register|login NAME [--password-stdin]
 *   agon [--host H] [--port P] [--json] logout|whoami|ping
 *   agon [...] seek GAME [-o K=V]... [--tc 5+3] [--side S] [--rated]
 *   agon [...] seeks [GAME] | accept SEEK-ID | games-mine
 *   agon [...] play GAME-ID | move GAME-ID MOVE | resign|draw GAME-ID
 *   agon [...] history [FILTERS] | profile NAME | leaderboard [GAME]
 *   agon [...] export GAME-ID [-o FILE] | replay GAME-ID [--ply N]
 *   agon [...] games [--game G] [--player NAME] | watch GAME-ID
 *   agon [...] chat GAME-ID TEXT
 *   agon [...] players [--prefix P] | lobby | join CODE
 *   agon [...] challenge NAME GAME | invite GAME  [-o K=V]... [--tc ..]
 *              [--side S] [--rated]
 *   --tls [--ca FILE]: TLS with certificate and host name verification
 *
 * Exit status: 0 success, 1 the server or the game said no, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "config.h"
#include "game.h"
#include "history.h"
#include "lobby.h"
#include "online.h"
#include "play.h"
#include "session.h"
#include "term.h"
#include "view.h"

#define MAX_ARGS 256

typedef struct opts {
  const char *host;
  int port;
  int json;
  int password_stdin;
  const char *seed;
  const char *position;
  int follow;     /* play: stream the game until it ends (not a tty) */
  long count;     /* ping: round trips (default 1) */
  long interval;  /* ping: ms between them (default 1000) */
  const char *clock; /* local: "MIN[+SEC]" */
  const char *tc;    /* seek: time control */
  const char *side;  /* seek: the creator's side */
  const char *game;  /* games: filter by game name */
  const char *player; /* games: filter by player name */
  const char *prefix; /* players: name prefix */
  int rated;          /* seek, challenge, invite: a rated game */
  sess_net net;      /* --tls, --ca, --source */
  const char *kv[GAME_MAX_OPTIONS * 2];
  int n_kv;
  const char *pos[MAX_ARGS];  /* positional arguments, subcommand first */
  int n_pos;
} opts;

static void usage(FILE *f) {
  fputs(
      "usage: agon [--host H] [--port P] [--json] COMMAND ...\n"
      "\n"
      "Offline:\n"
      "  agon local GAME [-o KEY=VALUE]... [--seed N] [--position POS]\n"
      "             [--clock MIN[+SEC]]\n"
      "        play both sides on this terminal (hot seat), with a clock\n"
      "  agon show GAME [same options] [MOVE]...\n"
      "        print the play screen after MOVEs (80x24 text)\n"
      "  agon rules [GAME]      the short rules of a game (or the list)\n"
      "Server (default 127.0.0.1:7878):\n"
      "  agon register NAME     create an account and log in\n"
      "  agon login NAME        log in (password from the terminal without\n"
      "                         echo, $AGON_PASSWORD or --password-stdin)\n"
      "  agon whoami            the saved session, resumed\n"
      "  agon logout            end the saved session\n"
      "  agon ping [--count N] [--interval MS]\n"
      "                         round trips; reconnects if the link drops\n"
      "Online play (logged in):\n"
      "  agon seek GAME [-o KEY=VALUE]... [--tc B+I|corr:D|untimed]\n"
      "            [--side SIDE] [--rated]  wait for an opponent, then play\n"
      "  agon seeks [GAME]      the open seeks\n"
      "  agon accept SEEK-ID    take a seek, then play\n"
      "  agon games-mine        your live games\n"
      "  agon lobby             the lobby screen (seeks, games, players,\n"
      "                         challenges; plain `agon` on a terminal)\n"
      "  agon players [--prefix P]  who is online (no login needed)\n"
      "  agon challenge NAME GAME [seek's options] [--rated]\n"
      "                         wait for NAME's answer, then play\n"
      "  agon invite GAME [seek's options] [--rated]\n"
      "                         a private game: print a code, then play\n"
      "  agon join CODE         take an invitation, then play\n"
      "  agon play GAME-ID [--follow]\n"
      "                         rejoin a game (on a terminal: play it;\n"
      "                         otherwise print the screen, and with\n"
      "                         --follow a line per change until the end)\n"
      "  agon move GAME-ID MOVE one move, for scripts\n"
      "  agon resign GAME-ID    give up a game\n"
      "  agon draw GAME-ID      offer a draw, or accept the opponent's\n"
      "Spectating (no login needed to list and watch):\n"
      "  agon games [--game G] [--player NAME]\n"
      "                         the live games\n"
      "  agon watch GAME-ID     watch a game (on a terminal: the play view,\n"
      "                         read-only, `say TEXT` chats; otherwise a\n"
      "                         line per event until the game ends)\n"
      "  agon chat GAME-ID TEXT one chat line (players' room for a player,\n"
      "                         spectators' room otherwise; needs a login)\n"
      "History (no login needed):\n"
      "  agon history [--player NAME] [--opponent NAME] [--game G]\n"
      "               [--result win|loss|draw] [--winner-side 0|1]\n"
      "               [--rated yes|no] [--from DATE] [--to DATE]\n"
      "               [--status finished|ongoing|all] [--limit N]\n"
      "               [--before ID] [--all]   stored games, newest first\n"
      "  agon profile NAME      a player's results\n"
      "  agon leaderboard [GAME] [--limit N]\n"
      "  agon export GAME-ID [--format text|json] [-o FILE]\n"
      "                         the game's record (docs/record-format.md)\n"
      "  agon replay GAME-ID [--ply N]\n"
      "                         step through a game (on a terminal), or\n"
      "                         print the screen at ply N (default the end)\n"
      "Connection: --host H --port P, --tls (verify the server's certificate\n"
      "and host name against the system CAs, or --ca FILE), --source ADDR.\n"
      "Sessions are kept in $XDG_CONFIG_HOME/agon/ (~/.config/agon/).\n"
      "--json prints one JSON object per line instead of text.\n",
      f);
}

static int parse_args(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->host = "127.0.0.1";
  o->port = 7878;
  o->count = 1;
  o->interval = 1000;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
    if (!strcmp(a, "--host") || !strcmp(a, "--port") || !strcmp(a, "-o") ||
        !strcmp(a, "--seed") || !strcmp(a, "--position") ||
        !strcmp(a, "--count") || !strcmp(a, "--interval") ||
        !strcmp(a, "--clock") || !strcmp(a, "--tc") ||
        !strcmp(a, "--side") || !strcmp(a, "--ca") ||
        !strcmp(a, "--game") || !strcmp(a, "--player") ||
        !strcmp(a, "--source") || !strcmp(a, "--prefix")) {
      if (!val) {
        fprintf(stderr, "agon: %s needs a value\n", a);
        return 2;
      }
      i++;
      if (!strcmp(a, "--host")) {
        o->host = val;
      } else if (!strcmp(a, "--port")) {
        char *end;
        long p = strtol(val, &end, 10);
        if (*end || p <= 0 || p > 65535) {
          fprintf(stderr, "agon: bad port %s\n", val);
          return 2;
        }
        o->port = (int)p;
      } else if (!strcmp(a, "-o")) {
        if (o->n_kv >= (int)(sizeof o->kv / sizeof o->kv[0])) return 2;
        o->kv[o->n_kv++] = val;
      } else if (!strcmp(a, "--seed")) {
        o->seed = val;
      } else if (!strcmp(a, "--clock")) {
        o->clock = val;
      } else if (!strcmp(a, "--tc")) {
        o->tc = val;
      } else if (!strcmp(a, "--side")) {
        o->side = val;
      } else if (!strcmp(a, "--game")) {
        o->game = val;
      } else if (!strcmp(a, "--player")) {
        o->player = val;
      } else if (!strcmp(a, "--prefix")) {
        o->prefix = val;
      } else if (!strcmp(a, "--ca") || !strcmp(a, "--source")) {
        char *dst = a[2] == 'c' ? o->net.ca : o->net.source;
        size_t cap = a[2] == 'c' ? sizeof o->net.ca : sizeof o->net.source;
        if (strlen(val) >= cap) {
          fprintf(stderr, "agon: %s too long\n", a);
          return 2;
        }
        snprintf(dst, cap, "%s", val);
      } else if (!strcmp(a, "--count") || !strcmp(a, "--interval")) {
        char *end;
        long v = strtol(val, &end, 10);
        if (*end || v < 1 || v > 86400000) {
          fprintf(stderr, "agon: bad %s %s\n", a, val);
          return 2;
        }
        if (a[2] == 'c') o->count = v;
        else o->interval = v;
      } else {
        o->position = val;
      }
    } else if (!strcmp(a, "--json")) {
      o->json = 1;
    } else if (!strcmp(a, "--follow")) {
      o->follow = 1;
    } else if (!strcmp(a, "--rated")) {
      o->rated = 1;
    } else if (!strcmp(a, "--tls")) {
      o->net.tls = 1;
    } else if (!strcmp(a, "--password-stdin")) {
      o->password_stdin = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    } else if (a[0] == '-' && a[1] == '-') {  /* no move starts so */
      fprintf(stderr, "agon: unknown option %s\n", a);
      return 2;
    } else {
      if (o->n_pos >= MAX_ARGS) return 2;
      o->pos[o->n_pos++] = a;
    }
  }
  return 0;
}

static int fail(const opts *o, const char *what, const agon_err *err) {
  return cli_fail(o->json, what, err);
}

/* ---- offline ----------------------------------------------------------- */

static uint64_t random_seed(void) {
  uint64_t s = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, &s, sizeof s) != (ssize_t)sizeof s) s = 0;
    close(fd);
  }
  if (!s) s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
  return s;
}

/* Game, options, seed and position from the arguments into a fresh play. */
static int setup_game(const opts *o, const char *game, play *p) {
  const game_vtable *vt = game_find(game);
  if (!vt) {
    fprintf(stderr, "agon: unknown game '%s'; games:", game);
    for (size_t i = 0; game_registry[i]; i++)
      fprintf(stderr, " %s", game_registry[i]->name);
    fputc('\n', stderr);
    return 2;
  }
  game_setup setup;
  game_setup_init(&setup, vt);
  agon_err err;
  for (int i = 0; i < o->n_kv; i++) {
    if (game_setup_set_kv(&setup, o->kv[i], &err)) {
      fprintf(stderr, "agon: -o %s: %s\n", o->kv[i], err.msg);
      return 2;
    }
  }
  uint64_t seed;
  if (o->seed) {
    char *end;
    errno = 0;
    seed = strtoull(o->seed, &end, 10);
    if (*end || errno) {
      fprintf(stderr, "agon: bad seed %s\n", o->seed);
      return 2;
    }
  } else {
    seed = random_seed();
  }
  if (play_init(p, &setup, seed, o->position, &err)) {
    fprintf(stderr, "agon: %s\n", err.msg);
    return 2;
  }
  return 0;
}

static int cmd_local(const opts *o) {
  if (o->n_pos != 2) {
    fputs("usage: agon local GAME [-o KEY=VALUE]... [--seed N] "
          "[--position POS]\n", stderr);
    return 2;
  }
  static play p;  /* large (history): not on the stack */
  int rc = setup_game(o, o->pos[1], &p);
  if (rc) return rc;
  if (o->clock) {
    /* Minutes (fractions allowed) and an increment in seconds. */
    char *end;
    double min = strtod(o->clock, &end), inc = 0;
    if (*end == '+') inc = strtod(end + 1, &end);
    if (*end || !(min > 0) || min > 10000 || inc < 0 || inc > 3600) {
      fprintf(stderr, "agon: bad --clock %s (MINUTES[+SECONDS])\n",
              o->clock);
      play_close(&p);
      return 2;
    }
    play_set_clock(&p, (long long)(min * 60000), (long long)(inc * 1000));
  }
  term t;
  if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) &&
      term_open(&t, STDIN_FILENO, STDOUT_FILENO) == 0) {
    play_run_tty(&p, &t);
    term_close(&t);
  } else {
    play_run_plain(&p, stdin, stdout);
  }
  play_close(&p);
  return 0;
}

static int cmd_show(const opts *o) {
  if (o->n_pos < 2) {
    fputs("usage: agon show GAME [-o KEY=VALUE]... [--seed N] "
          "[--position POS] [MOVE]...\n", stderr);
    return 2;
  }
  static play p;
  int rc = setup_game(o, o->pos[1], &p);
  if (rc) return rc;
  for (int i = 2; i < o->n_pos; i++) {
    agon_err err;
    if (play_apply(&p, o->pos[i], &err)) {
      fprintf(stderr, "agon: move %d '%s': %s\n", i - 1, o->pos[i], err.msg);
      play_close(&p);
      return 1;
    }
  }
  if (o->json) {
    json_t *v = game_match_view(&p.m, GAME_VIEW_ALL);
    char pos[GAME_POSITION_MAX];
    if (p.m.vt->to_position(&p.m.st, pos, sizeof pos) >= 0)
      json_object_set_new(v, "position", json_string(pos));
    char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
    puts(s ? s : "null");
    free(s);
    json_decref(v);
  } else {
    term_frame f;
    term_frame_init(&f, TERM_MIN_W, TERM_MIN_H);
    view_state vs;
    int cr, cc;
    char prompt[64];
    play_view(&p, &vs);
    play_prompt(&p, prompt, sizeof prompt);
    vs.prompt = prompt;
    view_render(&f, &vs, &cr, &cc);
    char *txt = term_frame_text(&f);
    fputs(txt, stdout);
    free(txt);
    term_frame_close(&f);
  }
  play_close(&p);
  return 0;
}

static int cmd_rules(const opts *o) {
  if (o->n_pos < 2) {
    for (size_t i = 0; game_registry[i]; i++)
      printf("%-16s %s\n", game_registry[i]->name, game_registry[i]->title);
    return 0;
  }
  const game_vtable *vt = game_find(o->pos[1]);
  const char *r = vt ? view_rules(vt->name) : NULL;
  if (!r) {
    fprintf(stderr, "agon: unknown game '%s'\n", o->pos[1]);
    return 2;
  }
  puts(r);
  return 0;
}

/* ---- server commands --------------------------------------------------- */

static void server_key(const opts *o, char *buf, size_t cap) {
  snprintf(buf, cap, "%s:%d", o->host, o->port);
}

/* Connect and say hello; with resume, log in with the saved token (a token
 * the server refuses is forgotten). */
static int connect_server(const opts *o, sess *s, int resume, agon_err *err) {
  int rc = sess_open(s, o->host, o->port, &o->net, err);
  if (rc) return rc;
  if (!resume) return 0;
  char key[300], name[64], token[160];
  server_key(o, key, sizeof key);
  if (config_token_load(key, name, sizeof name, token, sizeof token) != 0)
    return 0;
  agon_err e2;
  rc = sess_resume(s, token, &e2);
  if (rc == AGON_EBADTOKEN) {
    config_token_delete(key, NULL);
    if (!o->json)
      fprintf(stderr, "agon: the saved session of %s has expired; "
                      "log in again\n", name);
    return 0;
  }
  if (rc) *err = e2;
  return rc;
}

static int read_password(const opts *o, char *buf, size_t cap) {
  const char *env = getenv("AGON_PASSWORD");
  if (o->password_stdin) {
    if (!fgets(buf, (int)cap, stdin)) return -1;
    buf[strcspn(buf, "\r\n")] = 0;
    return 0;
  }
  if (env) {
    snprintf(buf, cap, "%s", env);
    return 0;
  }
  int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    fputs("agon: no terminal for the password: use AGON_PASSWORD or "
          "--password-stdin\n", stderr);
    return -1;
  }
  struct termios old, tio;
  int have = tcgetattr(fd, &old) == 0;
  if (have) {
    tio = old;
    tio.c_lflag &= ~(tcflag_t)ECHO;
    tcsetattr(fd, TCSAFLUSH, &tio);
  }
  if (write(fd, "Password: ", 10) < 0) { /* nothing to do */
  }
  size_t n = 0;
  char c;
  while (n + 1 < cap && read(fd, &c, 1) == 1 && c != '\n' && c != '\r')
    buf[n++] = c;
  buf[n] = 0;
  if (have) tcsetattr(fd, TCSAFLUSH, &old);
  if (write(fd, "\n", 1) < 0) { /* nothing to do */
  }
  close(fd);
  return 0;
}

static int cmd_auth(const opts *o, int is_register) {
  const char *what = is_register ? "register" : "login";
  if (o->n_pos != 2) {
    fprintf(stderr, "usage: agon %s NAME\n", what);
    return 2;
  }
  char password[256];
  if (read_password(o, password, sizeof password)) return 2;
  sess s;
  agon_err err;
  char token[160];
  int rc = connect_server(o, &s, 0, &err);
  if (!rc)
    rc = is_register
             ? sess_register(&s, o->pos[1], password, token, sizeof token,
                             &err)
             : sess_login(&s, o->pos[1], password, token, sizeof token, &err);
  memset(password, 0, sizeof password);
  if (!rc) {
    char key[300];
    server_key(o, key, sizeof key);
    rc = config_token_save(key, s.name, token, &err);
  }
  if (rc) {
    sess_close(&s);
    return fail(o, what, &err);
  }
  if (o->json)
    cli_print_json(json_pack("{s:b, s:s, s:s, s:I}", "ok", 1, "command", what,
                         "name", s.name, "player_id",
                         (json_int_t)s.player_id));
  else
    printf("%s as %s (player %lld)\n",
           is_register ? "registered and logged in" : "logged in", s.name,
           s.player_id);
  sess_close(&s);
  return 0;
}

static int cmd_whoami(const opts *o, int logout) {
  const char *what = logout ? "logout" : "whoami";
  sess s;
  agon_err err;
  agon_err_clear(&err);
  int rc = connect_server(o, &s, 1, &err);
  if (!rc && !s.name[0])
    rc = agon_err_set(&err, AGON_EUNAUTH, "not logged in");
  char name[64];
  snprintf(name, sizeof name, "%s", s.name);
  long long id = s.player_id;
  if (!rc && logout) {
    rc = sess_logout(&s, &err);
    if (!rc) {
      char key[300];
      server_key(o, key, sizeof key);
      rc = config_token_delete(key, &err);
    }
  }
  sess_close(&s);
  if (rc) return fail(o, what, &err);
  if (o->json)
    cli_print_json(json_pack("{s:b, s:s, s:s, s:I}", "ok", 1, "command", what,
                         "name", name, "player_id", (json_int_t)id));
  else if (logout)
    printf("logged out %s\n", name);
  else
    printf("%s (player %lld)\n", name, id);
  return 0;
}

static double elapsed_ms(const struct timespec *a) {
  struct timespec b;
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (double)(b.tv_sec - a->tv_sec) * 1e3 +
         (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

/* Round trips like ping(8). A lost connection (server restart, network
 * drop) is reconnected and the saved session resumed, then the count goes
 * on: the same path live play will take. */
static int cmd_ping(const opts *o) {
  sess s;
  agon_err err;
  int rc = connect_server(o, &s, 1, &err);
  if (rc) {
    sess_close(&s);
    return fail(o, "ping", &err);
  }
  for (long i = 0; i < o->count; i++) {
    if (i > 0) {
      /* Wait the interval, answering the server's keepalive meanwhile. */
      struct timespec w;
      clock_gettime(CLOCK_MONOTONIC, &w);
      double left;
      while ((left = (double)o->interval - elapsed_ms(&w)) > 0 && !s.closed)
        if (sess_pump(&s, (int)left + 1, &err)) break;
    }
    struct timespec a;
    clock_gettime(CLOCK_MONOTONIC, &a);
    json_t *d = NULL;
    rc = s.closed ? AGON_ESHUTDOWN
                  : sess_request(&s, "ping", NULL, SESS_TIMEOUT_MS, &d, NULL,
                                 &err);
    json_decref(d);
    if (rc == AGON_ESHUTDOWN || rc == AGON_ETIMEOUT) {
      char key[300], name[64] = "", token[160] = "";
      server_key(o, key, sizeof key);
      config_token_load(key, name, sizeof name, token, sizeof token);
      if (!o->json)
        fprintf(stderr, "agon: connection lost (%s); reconnecting\n",
                s.close_reason[0] ? s.close_reason : err.msg);
      rc = sess_reconnect(&s, o->host, o->port, token, 30000, &err);
      if (rc == AGON_EBADTOKEN) {
        config_token_delete(key, NULL);
        rc = sess_reconnect(&s, o->host, o->port, NULL, 30000, &err);
      }
      if (rc) break;
      if (o->json)
        cli_print_json(json_pack("{s:b, s:s, s:s, s:s}", "ok", 1, "event",
                             "reconnected", "host", o->host, "name", s.name));
      else if (s.name[0])
        printf("reconnected to %s:%d, resumed as %s\n", o->host, o->port,
               s.name);
      else
        printf("reconnected to %s:%d\n", o->host, o->port);
      i--;  /* this round trip again */
      continue;
    }
    if (rc) break;
    double ms = elapsed_ms(&a);
    if (o->json)
      cli_print_json(json_pack("{s:b, s:s, s:s, s:i, s:I, s:f}", "ok", 1,
                           "command", "ping", "host", o->host, "port",
                           o->port, "seq", (json_int_t)i + 1, "rtt_ms", ms));
    else
      printf("pong from %s:%d in %.2f ms\n", o->host, o->port, ms);
    fflush(stdout);
  }
  sess_close(&s);
  if (rc) return fail(o, "ping", &err);
  return 0;
}


/* ---- online play --------------------------------------------------------- */

/* Connect, resume the saved session (required) and keep its token for
 * reconnecting. */
static int connect_player(const opts *o, sess *s, char *token, size_t cap,
                          agon_err *err) {
  token[0] = 0;
  int rc = connect_server(o, s, 1, err);
  if (!rc && !s->name[0])
    rc = agon_err_set(err, AGON_EUNAUTH, "not logged in (agon login NAME)");
  if (!rc) {
    char key[300], name[64];
    server_key(o, key, sizeof key);
    config_token_load(key, name, sizeof name, token, cap);
  }
  return rc;
}

static int parse_id(const char *txt, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(txt, &end, 10);
  if (*end || errno || v <= 0) return -1;
  *out = v;
  return 0;
}

/* The play screen as text (80x24), as agon show prints it. */
static void print_screen(const play *p) {
  term_frame f;
  term_frame_init(&f, TERM_MIN_W, TERM_MIN_H);
  view_state vs;
  int cr, cc;
  char prompt[64];
  play_view(p, &vs);
  play_prompt(p, prompt, sizeof prompt);
  vs.prompt = prompt;
  view_render(&f, &vs, &cr, &cc);
  char *txt = term_frame_text(&f);
  fputs(txt, stdout);
  free(txt);
  term_frame_close(&f);
}

/* One line for scripts and people: whose turn, or the result. */
static void print_turn(const online *g) {
  const play *p = &*g->p;
  if (g->end) {
    const char *result = json_string_value(json_object_get(g->end, "result"));
    const char *reason = json_string_value(json_object_get(g->end, "reason"));
    if (!result) {
      printf("game %lld: aborted\n", g->game_id);
      return;
    }
    char t[128];
    view_outcome_text(p->m.vt, game_match_outcome(&p->m), t, sizeof t);
    printf("game %lld: game over: %s [%s]\n", g->game_id, t,
           reason ? reason : "");
    return;
  }
  if (game_match_outcome(&p->m).result != GAME_ONGOING) {
    /* Over before we came (a watcher's snapshot): no game_end to quote. */
    char t[128];
    view_outcome_text(p->m.vt, game_match_outcome(&p->m), t, sizeof t);
    printf("game %lld: game over: %s\n", g->game_id, t);
    return;
  }
  int seat = online_seat_to_move(g);
  int tm = game_match_to_move(&p->m);
  if (seat >= 0)
    printf("game %lld: %s to move (%s)%s\n", g->game_id, g->names[seat],
           game_side_name(p->m.vt, tm), seat == g->my_seat ? ": you" : "");
  else
    printf("game %lld: %s to move\n", g->game_id, game_side_name(p->m.vt, tm));
}

/* Play the game on this terminal (tty), or report it (plain/json). */
static int run_game(const opts *o, online *g) {
  if (!o->json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
    term t;
    if (term_open(&t, STDIN_FILENO, STDOUT_FILENO) == 0) {
      play_run_tty(g->p, &t);
      term_close(&t);
      print_turn(g);
      return 0;
    }
  }
  if (o->json) {
    cli_print_json(online_state_json(g));
  } else {
    print_screen(g->p);
    print_turn(g);
  }
  /* --follow: a line (or state) per change until the game ends; the events
   * arrive on this connection (join attached it), reconnecting if needed. */
  long long seen = g->seq;
  while (o->follow && !g->end) {
    fflush(stdout);
    agon_err err;
    agon_err_clear(&err);
    if (online_pump(g, 1000, &err)) return fail(o, "play", &err);
    if (g->seq == seen) continue;
    seen = g->seq;
    if (o->json) cli_print_json(online_state_json(g));
    else print_turn(g);
  }
  return 0;
}

typedef struct start_wait {
  json_t *start;  /* new: the game_start event */
} start_wait;

static void start_cb(sess *s, const json_t *ev, void *arg) {
  (void)s;
  start_wait *w = arg;
  const char *name = json_string_value(json_object_get(ev, "event"));
  if (name && !strcmp(name, "game_start") && !w->start)
    w->start = json_incref((json_t *)ev);
}

/* After game_start: announce it and play it. */
static int started(const opts *o, sess *s, const char *token,
                   json_t *start) {
  static play p;
  online g;
  agon_err err;
  long long gid = json_integer_value(json_object_get(start, "game_id"));
  online_init(&g, s, &p, o->host, o->port, token, gid);
  int rc = online_load(&g, start, &err);
  if (rc) return fail(o, "game_start", &err);
  if (o->json) {
    json_t *j = online_state_json(&g);
    json_object_set_new(j, "event", json_string("game_start"));
    json_object_set_new(j, "seat", json_integer(g.my_seat));
    cli_print_json(j);
  } else {
    int side = g.my_seat >= 0 ? g.seat_side[g.my_seat] : -1;
    printf("game %lld started: %s (seat %d, %s) against %s\n", gid,
           g.names[g.my_seat], g.my_seat,
           side >= 0 ? game_side_name(p.m.vt, side) : "side not chosen yet",
           g.names[1 - g.my_seat]);
  }
  fflush(stdout);
  if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && !o->json)
    rc = run_game(o, &g);
  online_close(&g);
  return rc;
}

/* Post the seek (fields borrowed, copied) and say so. */
static int seek_post(const opts *o, sess *s, const json_t *fields,
                     long long *sid, agon_err *err) {
  json_t *d = NULL;
  int rc = sess_request(s, "seek_create", json_deep_copy(fields),
                        SESS_TIMEOUT_MS, &d, NULL, err);
  if (rc) return rc;
  *sid = json_integer_value(json_object_get(d, "seek_id"));
  json_decref(d);
  if (o->json)
    cli_print_json(json_pack("{s:b, s:s, s:I}", "ok", 1, "command", "seek",
                         "seek_id", (json_int_t)*sid));
  else
    printf("seek %lld: waiting for an opponent (Ctrl-C cancels)\n", *sid);
  fflush(stdout);
  return 0;
}

/* The end of seek and accept: rc != 0 reports err; otherwise the game w
 * waited for starts (interactive play or its announcement). Either way
 * the session and the event are released. */
static int start_finish(const opts *o, sess *s, const char *token,
                        start_wait *w, int rc, const char *what,
                        agon_err *err) {
  rc = rc ? fail(o, what, err) : started(o, s, token, w->start);
  json_decref(w->start);
  sess_close(s);
  return rc;
}

/* A live game not in known (games_mine data from before the seek): it
 * started while we were cut off; its join snapshot stands in for the lost
 * game_start. */
static int seek_find_game(sess *s, const json_t *known, start_wait *w,
                          agon_err *err) {
  json_t *d = NULL;
  int rc = sess_request(s, "games_mine", NULL, SESS_TIMEOUT_MS, &d, NULL,
                        err);
  if (rc) return rc;
  size_t i, j;
  json_t *g, *k;
  json_array_foreach(json_object_get(d, "games"), i, g) {
    json_int_t id = json_integer_value(json_object_get(g, "game_id"));
    int old = 0;
    json_array_foreach(json_object_get(known, "games"), j, k)
      old |= json_integer_value(json_object_get(k, "game_id")) == id;
    if (old) continue;
    json_t *jd = NULL;
    rc = sess_request(s, "join", json_pack("{s:I}", "game_id", id),
                      SESS_TIMEOUT_MS, &jd, NULL, err);
    if (!rc) w->start = json_incref(json_object_get(jd, "game"));
    json_decref(jd);
    break;
  }
  json_decref(d);
  return rc;
}

static int cmd_seek(const opts *o) {
  if (o->n_pos != 2) {
    fputs("usage: agon seek GAME [-o KEY=VALUE]... [--tc B+I] [--side S] [--rated]\n",
          stderr);
    return 2;
  }
  sess s;
  agon_err err;
  char token[160];
  int rc = connect_player(o, &s, token, sizeof token, &err);
  json_t *opt = json_object();
  for (int i = 0; !rc && i < o->n_kv; i++) {
    const char *eq = strchr(o->kv[i], '=');
    if (!eq) {
      fprintf(stderr, "agon: -o %s: KEY=VALUE expected\n", o->kv[i]);
      json_decref(opt);
      sess_close(&s);
      return 2;
    }
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - o->kv[i]), o->kv[i]);
    json_object_set_new(opt, key, json_string(eq + 1));
  }
  start_wait w = {NULL};
  json_t *f = NULL, *known = NULL;
  if (!rc) {
    f = json_pack("{s:s, s:o, s:s, s:s, s:b}", "game", o->pos[1], "options",
                  opt, "time_control", o->tc ? o->tc : "untimed", "side",
                  o->side ? o->side : "random", "rated", o->rated);
    opt = NULL;
    s.on_event = start_cb;
    s.ev_arg = &w;
    /* The games before seeking: after a reconnection, a game not among
     * them started from this seek while the game_start was lost. */
    rc = sess_request(&s, "games_mine", NULL, SESS_TIMEOUT_MS, &known, NULL,
                      &err);
  }
  json_decref(opt);
  long long sid = 0;
  if (!rc) rc = seek_post(o, &s, f, &sid, &err);
  /* The seek lives as long as this connection: wait on it; a lost
   * connection is reconnected and the seek posted again. */
  while (!rc && !w.start) {
    if (sess_pump(&s, 1000, &err) == 0 && !s.closed) continue;
    if (!o->json)
      fprintf(stderr, "agon: connection lost (%s); reconnecting\n", err.msg);
    rc = sess_reconnect(&s, o->host, o->port, token, ONLINE_RECONNECT_MS,
                        &err);
    if (!rc) rc = seek_find_game(&s, known, &w, &err);
    if (!rc && !w.start) rc = seek_post(o, &s, f, &sid, &err);
  }
  json_decref(f);
  json_decref(known);
  return start_finish(o, &s, token, &w, rc, "seek", &err);
}

static int cmd_accept(const opts *o) {
  long long sid;
  if (o->n_pos != 2 || parse_id(o->pos[1], &sid)) {
    fputs("usage: agon accept SEEK-ID\n", stderr);
    return 2;
  }
  sess s;
  agon_err err;
  char token[160];
  start_wait w = {NULL};
  int rc = connect_player(o, &s, token, sizeof token, &err);
  json_t *d = NULL;
  if (!rc) {
    s.on_event = start_cb;
    s.ev_arg = &w;
    rc = sess_request(&s, "seek_accept",
                      json_pack("{s:I}", "seek_id", (json_int_t)sid),
                      SESS_TIMEOUT_MS, &d, NULL, &err);
  }
  json_decref(d);
  /* game_start goes to every connection of both players, this one too. */
  for (int i = 0; !rc && !w.start && i < SESS_TIMEOUT_MS / 100; i++)
    rc = sess_pump(&s, 100, &err);
  if (!rc && !w.start) rc = agon_err_set(&err, AGON_ETIMEOUT, "no game_start");
  return start_finish(o, &s, token, &w, rc, "accept", &err);
}

static int cmd_seeks(const opts *o) {
  sess s;
  agon_err err;
  char token[160];
  int rc = connect_player(o, &s, token, sizeof token, &err);
  json_t *d = NULL;
  if (!rc)
    rc = sess_request(&s, "seeks",
                      o->n_pos > 1 ? json_pack("{s:s}", "game", o->pos[1])
                                   : NULL,
                      SESS_TIMEOUT_MS, &d, NULL, &err);
  sess_close(&s);
  if (rc) return fail(o, "seeks", &err);
  json_t *list = json_object_get(d, "seeks");
  if (o->json) {
    cli_print_json(json_pack("{s:b, s:s, s:O}", "ok", 1, "command", "seeks",
                         "seeks", list));
  } else {
    size_t i;
    json_t *sk;
    if (!json_array_size(list)) puts("no open seeks");
    json_array_foreach(list, i, sk) {
      printf("%-6lld %-16s %-16s %-10s %s\n",
             (long long)json_integer_value(json_object_get(sk, "seek_id")),
             json_string_value(json_object_get(sk, "game")),
             json_string_value(json_object_get(sk, "by")),
             json_string_value(json_object_get(sk, "time_control")),
             json_string_value(json_object_get(sk, "side")));
    }
  }
  json_decref(d);
  return 0;
}

static int cmd_games_mine(const opts *o) {
  sess s;
  agon_err err;
  char token[160];
  int rc = connect_player(o, &s, token, sizeof token, &err);
  json_t *d = NULL;
  if (!rc)
    rc = sess_request(&s, "games_mine", NULL, SESS_TIMEOUT_MS, &d, NULL,
                      &err);
  sess_close(&s);
  if (rc) return fail(o, "games-mine", &err);
  json_t *list = json_object_get(d, "games");
  if (o->json) {
    cli_print_json(json_pack("{s:b, s:s, s:O}", "ok", 1, "command", "games-mine",
                         "games", list));
  } else {
    size_t i;
    json_t *gm;
    if (!json_array_size(list)) puts("no live games");
    json_array_foreach(list, i, gm) {
      const json_t *pl = json_object_get(gm, "players");
      printf("%-6lld %-16s %s vs %s  %-8s %s to move\n",
             (long long)json_integer_value(json_object_get(gm, "game_id")),
             json_string_value(json_object_get(gm, "game")),
             json_string_value(json_object_get(json_array_get(pl, 0), "name")),
             json_string_value(json_object_get(json_array_get(pl, 1), "name")),
             json_string_value(json_object_get(gm, "time_control")),
             json_string_value(json_object_get(gm, "to_move")));
    }
  }
  json_decref(d);
  return 0;
}

/* play / move / resign on one game: connect, join, act, report. */
static int cmd_game(const opts *o, const char *what) {
  long long gid;
  int is_move = !strcmp(what, "move");
  if (o->n_pos != (is_move ? 3 : 2) || parse_id(o->pos[1], &gid)) {
    fprintf(stderr, "usage: agon %s GAME-ID%s\n", what,
            is_move ? " MOVE" : "");
    return 2;
  }
  sess s;
  agon_err err;
  agon_err_clear(&err);
  char token[160];
  static play p;
  online g;
  int rc = connect_player(o, &s, token, sizeof token, &err);
  online_init(&g, &s, &p, o->host, o->port, token, gid);
  if (!rc) rc = online_join(&g, &err);
  if (!rc && is_move) rc = online_move(&g, o->pos[2], &err);
  if (!rc && !strcmp(what, "resign")) rc = online_action(&g, "resign", &err);
  /* draw: accept the opponent's pending offer, else offer one. */
  if (!rc && !strcmp(what, "draw"))
    rc = online_action(&g, g.p->draw_offer >= 0 && g.my_seat >= 0 &&
                                   g.p->draw_offer != g.seat_side[g.my_seat]
                               ? "draw_accept"
                               : "draw_offer",
                       &err);
  if (!rc) {
    /* A move may end the game: its game_end is on the way. */
    for (int i = 0; i < 20 && !g.end && !s.closed && online_over(&g); i++)
      sess_pump(&s, 100, NULL);
    rc = run_game(o, &g);
  } else {
    fail(o, what, &err);
    rc = 1;
  }
  online_close(&g);
  sess_close(&s);
  return rc;
}

/* ---- spectating ---------------------------------------------------------- */

static int cmd_games(const opts *o) {
  if (o->n_pos != 1) {
    fputs("usage: agon games [--game G] [--player NAME]\n", stderr);
    return 2;
  }
  sess s;
  agon_err err;
  int rc = connect_server(o, &s, 0, &err);  /* no login needed */
  json_t *f = json_object();
  if (o->game) json_object_set_new(f, "game", json_string(o->game));
  if (o->player) json_object_set_new(f, "player", json_string(o->player));
  json_t *d = NULL;
  if (!rc) rc = sess_request(&s, "games_live", f, SESS_TIMEOUT_MS, &d, NULL,
                             &err);
  else json_decref(f);
  sess_close(&s);
  if (rc) return fail(o, "games", &err);
  json_t *list = json_object_get(d, "games");
  size_t i;
  json_t *gm;
  /* --json: one game per line (JSON lines), so a script can stream it. */
  if (!o->json) {
    if (!json_array_size(list)) puts("no live games");
    else printf("%-6s %-16s %-27s %-8s %5s %-12s %s\n", "ID", "GAME",
                "PLAYERS", "TC", "MOVES", "TO MOVE", "SPECTATORS");
  }
  json_array_foreach(list, i, gm) {
    if (o->json) {
      cli_print_json(json_incref(gm));
      continue;
    }
    const json_t *pl = json_object_get(gm, "players");
    const char *n0 =
        json_string_value(json_object_get(json_array_get(pl, 0), "name"));
    const char *n1 =
        json_string_value(json_object_get(json_array_get(pl, 1), "name"));
    const char *tm = json_string_value(json_object_get(gm, "to_move"));
    const char *tc = json_string_value(json_object_get(gm, "time_control"));
    char players[160];
    snprintf(players, sizeof players, "%s vs %s", n0 ? n0 : "?",
             n1 ? n1 : "?");
    printf("%-6lld %-16s %-27s %-8s %5lld %-12s %lld\n",
           (long long)json_integer_value(json_object_get(gm, "game_id")),
           json_string_value(json_object_get(gm, "game")), players,
           tc ? tc : "", (long long)json_integer_value(json_object_get(gm,
                                                                   "moves")),
           tm ? tm : "-",
           (long long)json_integer_value(json_object_get(gm, "spectators")));
  }
  json_decref(d);
  return 0;
}

/* Streaming watcher: one line per event (the event itself with --json). */
static void watch_hook(online *g, const json_t *ev, void *arg) {
  const opts *o = arg;
  if (o->json) {
    cli_print_json(json_deep_copy(ev));
    fflush(stdout);
    return;
  }
  const char *name = json_string_value(json_object_get(ev, "event"));
  long long seq = json_integer_value(json_object_get(ev, "seq"));
  if (!strcmp(name, "move")) {
    int seat = (int)json_integer_value(json_object_get(ev, "seat"));
    printf("game %lld: seq %lld: %s plays %s\n", g->game_id, seq,
           seat == 0 || seat == 1 ? g->names[seat] : "?",
           json_string_value(json_object_get(ev, "move")));
    if (!g->ending) print_turn(g);
  } else if (!strcmp(name, "game_end")) {
    print_turn(g);
  } else if (!strcmp(name, "chat")) {
    const char *room = json_string_value(json_object_get(ev, "room"));
    printf("game %lld: chat%s %s: %s\n", g->game_id,
           room && !strcmp(room, "spectators") ? " [spectator]" : "",
           json_string_value(json_object_get(ev, "from")),
           json_string_value(json_object_get(ev, "text")));
  } else if (!strcmp(name, "spectators")) {
    printf("game %lld: %lld spectators\n", g->game_id, g->spectators);
  } else {
    printf("game %lld: %s\n", g->game_id, name);
  }
  fflush(stdout);
}

static int cmd_watch(const opts *o) {
  long long gid;
  if (o->n_pos != 2 || parse_id(o->pos[1], &gid)) {
    fputs("usage: agon watch GAME-ID [--json]\n", stderr);
    return 2;
  }
  sess s;
  agon_err err;
  agon_err_clear(&err);
  char token[160] = "";
  static play p;
  online g;
  /* A saved session is resumed when there is one (to chat); watching
   * itself needs none. */
  int rc = connect_server(o, &s, 1, &err);
  if (!rc && s.name[0]) {
    char key[300], name[64];
    server_key(o, key, sizeof key);
    config_token_load(key, name, sizeof name, token, sizeof token);
  }
  online_init(&g, &s, &p, o->host, o->port, token, gid);
  g.watching = 1;
  if (!rc) rc = online_join(&g, &err);
  if (rc) {
    online_close(&g);
    sess_close(&s);
    return fail(o, "watch", &err);
  }
  if (!o->json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
    term t;
    if (term_open(&t, STDIN_FILENO, STDOUT_FILENO) == 0) {
      play_run_tty(g.p, &t);
      term_close(&t);
      print_turn(&g);
      online_close(&g);
      sess_close(&s);
      return 0;
    }
  }
  if (o->json) {
    json_t *j = online_state_json(&g);
    json_object_set_new(j, "event", json_string("watch"));
    json_object_set_new(j, "spectators", json_integer(g.spectators));
    cli_print_json(j);
  } else {
    print_screen(g.p);
    print_turn(&g);
  }
  fflush(stdout);
  g.hook = watch_hook;
  g.hook_arg = (void *)o;
  /* Ended before we came: its game_end may still be on the way, else the
   * snapshot was all there is. */
  int ended_before = online_over(&g);
  for (int i = 0; ended_before && !g.end && i < 20 && !s.closed; i++)
    sess_pump(&s, 100, NULL);
  /* Until the game ends; a lost connection is reconnected and the watch
   * renewed from the last seq seen (online_pump). */
  while (!rc && !g.end && !ended_before) {
    rc = online_pump(&g, 1000, &err);
    if (rc) fail(o, "watch", &err);
  }
  online_close(&g);
  sess_close(&s);
  return rc ? 1 : 0;
}

static int cmd_chat(const opts *o) {
  long long gid;
  if (o->n_pos < 3 || parse_id(o->pos[1], &gid)) {
    fputs("usage: agon chat GAME-ID TEXT\n", stderr);
    return 2;
  }
  char text[512] = "";  /* CHAT_MAX_TEXT (500) is the server's to check */
  size_t n = 0;
  for (int i = 2; i < o->n_pos; i++) {
    int w = snprintf(text + n, sizeof text - n, "%s%s", i > 2 ? " " : "",
                     o->pos[i]);
    if (w < 0 || (size_t)w >= sizeof text - n) {
      fputs("agon: chat: text too long\n", stderr);
      return 2;
    }
    n += (size_t)w;
  }
  sess s;
  agon_err err;
  char token[160];
  int rc = connect_player(o, &s, token, sizeof token, &err);
  const char *room = "players";
  json_t *d = NULL;
  /* A player writes in the players' room (after attaching with join);
   * anyone else is a spectator (forbidden to join) and must watch to
   * write in the spectators' room. */
  if (!rc)
    rc = sess_request(&s, "join", json_pack("{s:I}", "game_id",
                                            (json_int_t)gid),
                      SESS_TIMEOUT_MS, &d, NULL, &err);
  if (rc == AGON_EFORBIDDEN) {
    room = "spectators";
    rc = sess_request(&s, "watch", json_pack("{s:I}", "game_id",
                                             (json_int_t)gid),
                      SESS_TIMEOUT_MS, &d, NULL, &err);
  }
  json_decref(d);
  d = NULL;
  if (!rc)
    rc = sess_request(&s, "chat",
                      json_pack("{s:I, s:s, s:s}", "game_id", (json_int_t)gid,
                                "room", room, "text", text),
                      SESS_TIMEOUT_MS, &d, NULL, &err);
  sess_close(&s);
  if (rc) return fail(o, "chat", &err);
  long long cid = json_integer_value(json_object_get(d, "chat_id"));
  json_decref(d);
  if (o->json)
    cli_print_json(json_pack("{s:b, s:s, s:I, s:s}", "ok", 1, "command", "chat",
                         "chat_id", (json_int_t)cid, "room", room));
  else
    printf("chat %lld sent to the %s' room of game %lld\n", cid, room, gid);
  return 0;
}

/* ---- lobby (lobby.c): main.c's paths as callbacks ---------------------- */

static int lobby_connect(const lobby_env *e, sess *s, int login, char *token,
                         size_t cap, agon_err *err) {
  if (login) return connect_player(e->arg, s, token, cap, err);
  token[0] = 0;
  return connect_server(e->arg, s, 0, err);
}

static int lobby_fail(const lobby_env *e, const char *what,
                      const agon_err *err) {
  return fail(e->arg, what, err);
}

static int lobby_finish(const lobby_env *e, sess *s, const char *token,
                        json_t *start, int rc, const char *what,
                        agon_err *err) {
  start_wait w = {start};
  return start_finish(e->arg, s, token, &w, rc, what, err);
}

/* The lobby's options as the command line `agon CMD GID` (id: its text). */
static opts lobby_game_opts(const lobby_env *e, const char *cmd, long long gid,
                            char id[32]) {
  opts o = *(const opts *)e->arg;
  snprintf(id, 32, "%lld", gid);
  o.pos[0] = cmd;
  o.pos[1] = id;
  o.n_pos = 2;
  return o;
}

/* From the lobby screen: a started game on its connection, or `play N`
 * (cmd_game) and `watch N` (cmd_watch) on their own. */
static int lobby_play(const lobby_env *e, sess *s, const char *token,
                      const json_t *start, long long gid) {
  if (start) return started(e->arg, s, token, (json_t *)start);
  char id[32];
  opts o = lobby_game_opts(e, "play", gid, id);
  return cmd_game(&o, "play");
}

static int lobby_watch(const lobby_env *e, long long gid) {
  char id[32];
  opts o = lobby_game_opts(e, "watch", gid, id);
  return cmd_watch(&o);
}

static int cmd_lobby(const opts *o, int (*fn)(const lobby_env *)) {
  lobby_env e = {o->host, o->port, o->json, o->pos, o->n_pos, o->kv,
                 o->n_kv, o->tc, o->side, o->prefix, o->rated,
                 lobby_connect, lobby_fail, lobby_finish, lobby_play,
                 lobby_watch, (void *)o};
  return fn(&e);
}

/* Plain `agon` on a terminal with a saved session opens the lobby. */
static int have_session(const opts *o) {
  char key[300], name[64], token[160];
  server_key(o, key, sizeof key);
  return config_token_load(key, name, sizeof name, token, sizeof token) == 0;
}

int main(int argc, char **argv) {
  /* history, profile, leaderboard, export, replay: own options. */
  if (history_is_command(argc, argv)) return history_main(argc, argv);
  opts o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc;
  if (o.n_pos == 0 && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) &&
      have_session(&o))
    return cmd_lobby(&o, lobby_cmd_screen);
  if (o.n_pos == 0) {
    usage(stderr);
    return 2;
  }
  /* OpenSSL writes with write(2), not send(MSG_NOSIGNAL): a peer gone
   * mid-write must be an error we reconnect from, not SIGPIPE. */
  if (o.net.tls) signal(SIGPIPE, SIG_IGN);
  const char *cmd = o.pos[0];
  if (!strcmp(cmd, "local")) return cmd_local(&o);
  if (!strcmp(cmd, "show")) return cmd_show(&o);
  if (!strcmp(cmd, "rules")) return cmd_rules(&o);
  if (!strcmp(cmd, "register")) return cmd_auth(&o, 1);
  if (!strcmp(cmd, "login")) return cmd_auth(&o, 0);
  if (!strcmp(cmd, "logout")) return cmd_whoami(&o, 1);
  if (!strcmp(cmd, "whoami")) return cmd_whoami(&o, 0);
  if (!strcmp(cmd, "ping")) return cmd_ping(&o);
  if (!strcmp(cmd, "seek")) return cmd_seek(&o);
  if (!strcmp(cmd, "seeks")) return cmd_seeks(&o);
  if (!strcmp(cmd, "accept")) return cmd_accept(&o);
  if (!strcmp(cmd, "games-mine")) return cmd_games_mine(&o);
  if (!strcmp(cmd, "games")) return cmd_games(&o);
  if (!strcmp(cmd, "watch")) return cmd_watch(&o);
  if (!strcmp(cmd, "chat")) return cmd_chat(&o);
  if (!strcmp(cmd, "players")) return cmd_lobby(&o, lobby_cmd_players);
  if (!strcmp(cmd, "challenge")) return cmd_lobby(&o, lobby_cmd_challenge);
  if (!strcmp(cmd, "invite")) return cmd_lobby(&o, lobby_cmd_invite);
  if (!strcmp(cmd, "join")) return cmd_lobby(&o, lobby_cmd_join);
  if (!strcmp(cmd, "lobby")) return cmd_lobby(&o, lobby_cmd_screen);
  if (!strcmp(cmd, "play") || !strcmp(cmd, "move") || !strcmp(cmd, "resign") ||
      !strcmp(cmd, "draw"))
    return cmd_game(&o, cmd);
  if (!strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  fprintf(stderr, "agon: unknown command '%s'\n", cmd);
  usage(stderr);
  return 2;
}
