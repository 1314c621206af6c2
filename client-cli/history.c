/* history.c - see history.h.
 *
 *   agon history [filters] [--limit N] [--before ID] [--all] [--json]
 *   agon profile NAME [--json]
 *   agon leaderboard [GAME] [--limit N] [--json]
 *   agon export GAME-ID [--format text|json] [-o FILE]
 *   agon replay GAME-ID [--ply N] [--json]
 *
 * These commands take options main.c does not know (--opponent, --result,
 * --ply, -o FILE, ...), so they parse their whole command line here; main
 * only hands it over (history_is_command).
 */
#include "history.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "game.h"
#include "play.h"
#include "view.h"

/* --all follows the cursor at most this many pages (100 games each at
 * most): a runaway loop is impossible even against a misbehaving server. */
#define HIST_MAX_PAGES 100
#define HIST_MAX_POS 8

typedef struct hopts {
  const char *host;
  int port;
  int json;
  sess_net net;
  /* history filters, as given (checked when the request is built) */
  const char *player, *opponent, *game, *result, *winner_side, *rated;
  const char *from, *to, *status, *before;
  long limit;          /* 0: the server's default */
  int all;
  const char *format;  /* export */
  const char *out;     /* export -o FILE */
  long ply;            /* replay --ply, -1: the end */
  int help;
  const char *pos[HIST_MAX_POS];
  int n_pos;
} hopts;

/* Options that take a value, main.c's included: finding the command word
 * must skip their values. */
static const char *const value_opts[] = {
    "--host", "--port", "--ca", "--source", "-o", "--seed", "--position",
    "--count", "--interval", "--clock", "--tc", "--side", "--game",
    "--player", "--opponent", "--result", "--winner-side", "--rated",
    "--from", "--to", "--status", "--limit", "--before", "--format", "--ply",
    NULL};
static const char *const commands[] = {"history", "profile", "leaderboard",
                                       "export", "replay", NULL};

static int takes_value(const char *a) {
  for (size_t i = 0; value_opts[i]; i++)
    if (!strcmp(a, value_opts[i])) return 1;
  return 0;
}

static const char *command_word(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (takes_value(argv[i])) {
      i++;
      continue;
    }
    if (argv[i][0] != '-') return argv[i];
  }
  return NULL;
}

int history_is_command(int argc, char **argv) {
  const char *w = command_word(argc, argv);
  for (size_t i = 0; w && commands[i]; i++)
    if (!strcmp(w, commands[i])) return 1;
  return 0;
}

static int parse_long(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static int parse_id(const char *s, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno || v <= 0) return -1;
  *out = v;
  return 0;
}

static int parse_args(int argc, char **argv, hopts *o) {
  memset(o, 0, sizeof *o);
  o->host = "127.0.0.1";
  o->port = 7878;
  o->ply = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--json")) {
      o->json = 1;
      continue;
    }
    if (!strcmp(a, "--all")) {
      o->all = 1;
      continue;
    }
    if (!strcmp(a, "--tls")) {
      o->net.tls = 1;
      continue;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      o->help = 1;
      continue;
    }
    if (!takes_value(a)) {
      if (a[0] == '-' && a[1]) {
        fprintf(stderr, "agon: unknown option %s\n", a);
        return 2;
      }
      if (o->n_pos >= HIST_MAX_POS) {
        fputs("agon: too many arguments\n", stderr);
        return 2;
      }
      o->pos[o->n_pos++] = a;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "agon: %s needs a value\n", a);
      return 2;
    }
    const char *v = argv[++i];
    long n;
    if (!strcmp(a, "--host")) {
      o->host = v;
    } else if (!strcmp(a, "--port")) {
      if (parse_long(v, 1, 65535, &n)) {
        fprintf(stderr, "agon: bad port %s\n", v);
        return 2;
      }
      o->port = (int)n;
    } else if (!strcmp(a, "--ca") || !strcmp(a, "--source")) {
      char *dst = a[2] == 'c' ? o->net.ca : o->net.source;
      size_t cap = a[2] == 'c' ? sizeof o->net.ca : sizeof o->net.source;
      if (strlen(v) >= cap) {
        fprintf(stderr, "agon: %s too long\n", a);
        return 2;
      }
      snprintf(dst, cap, "%s", v);
    } else if (!strcmp(a, "--player")) {
      o->player = v;
    } else if (!strcmp(a, "--opponent")) {
      o->opponent = v;
    } else if (!strcmp(a, "--game")) {
      o->game = v;
    } else if (!strcmp(a, "--result")) {
      o->result = v;
    } else if (!strcmp(a, "--winner-side")) {
      o->winner_side = v;
    } else if (!strcmp(a, "--rated")) {
      o->rated = v;
    } else if (!strcmp(a, "--from")) {
      o->from = v;
    } else if (!strcmp(a, "--to")) {
      o->to = v;
    } else if (!strcmp(a, "--status")) {
      o->status = v;
    } else if (!strcmp(a, "--before")) {
      o->before = v;
    } else if (!strcmp(a, "--limit")) {
      if (parse_long(v, 1, 100, &n)) {
        fprintf(stderr, "agon: bad --limit %s (1-100)\n", v);
        return 2;
      }
      o->limit = n;
    } else if (!strcmp(a, "--format")) {
      o->format = v;
    } else if (!strcmp(a, "-o")) {
      o->out = v;
    } else if (!strcmp(a, "--ply")) {
      if (parse_long(v, 0, 1000000, &n)) {
        fprintf(stderr, "agon: bad --ply %s\n", v);
        return 2;
      }
      o->ply = n;
    } else {
      fprintf(stderr, "agon: %s does not apply to %s\n", a, o->pos[0] ?
              o->pos[0] : "this command");
      return 2;
    }
  }
  return 0;
}

static int fail(const hopts *o, const char *what, const agon_err *err) {
  return cli_fail(o->json, what, err);
}

/* ---- output helpers ------------------------------------------------------ */

static int connect_to(const hopts *o, sess *s, agon_err *err) {
  return sess_open(s, o->host, o->port, &o->net, err);
}

/* ---- history ------------------------------------------------------------- */

/* YYYY-MM-DD (UTC midnight; next_day: the midnight after it) or unix ms. */
static int parse_date(const char *s, int next_day, long long *ms) {
  int y, mo, d, n = -1;
  if (strlen(s) == 10 && sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) == 3 &&
      n == 10 && s[4] == '-' && s[7] == '-') {
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    time_t t = timegm(&tm);
    struct tm back;
    /* timegm normalises 2026-02-31 to March: refuse what changed. */
    if (t == (time_t)-1 || !gmtime_r(&t, &back) || back.tm_year != y - 1900 ||
        back.tm_mon != mo - 1 || back.tm_mday != d)
      return -1;
    *ms = ((long long)t + (next_day ? 86400 : 0)) * 1000;
    return 0;
  }
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno || v < 0) return -1;
  *ms = v;
  return 0;
}

/* The request's filter fields from the options; 2 (usage) on bad input. */
static int history_filter(const hopts *o, json_t *f) {
  if (o->player) json_object_set_new(f, "player", json_string(o->player));
  if (o->opponent)
    json_object_set_new(f, "opponent", json_string(o->opponent));
  if (o->game) json_object_set_new(f, "game", json_string(o->game));
  if (o->result) {
    if (strcmp(o->result, "win") && strcmp(o->result, "loss") &&
        strcmp(o->result, "draw")) {
      fprintf(stderr, "agon: bad --result %s (win, loss or draw)\n",
              o->result);
      return 2;
    }
    json_object_set_new(f, "result", json_string(o->result));
  }
  if (o->winner_side) {
    if (strcmp(o->winner_side, "0") && strcmp(o->winner_side, "1")) {
      fprintf(stderr, "agon: bad --winner-side %s (0 or 1)\n",
              o->winner_side);
      return 2;
    }
    json_object_set_new(f, "winner_side",
                        json_integer(o->winner_side[0] - '0'));
  }
  if (o->rated) {
    int yes = !strcmp(o->rated, "yes");
    if (!yes && strcmp(o->rated, "no")) {
      fprintf(stderr, "agon: bad --rated %s (yes or no)\n", o->rated);
      return 2;
    }
    json_object_set_new(f, "rated", json_boolean(yes));
  }
  long long ms;
  if (o->from) {
    if (parse_date(o->from, 0, &ms)) {
      fprintf(stderr, "agon: bad --from %s (YYYY-MM-DD or unix ms)\n",
              o->from);
      return 2;
    }
    json_object_set_new(f, "from_ms", json_integer(ms));
  }
  if (o->to) {
    /* A day given as --to is included: up to the midnight after it. */
    if (parse_date(o->to, 1, &ms)) {
      fprintf(stderr, "agon: bad --to %s (YYYY-MM-DD or unix ms)\n", o->to);
      return 2;
    }
    json_object_set_new(f, "to_ms", json_integer(ms));
  }
  if (o->status) {
    if (strcmp(o->status, "finished") && strcmp(o->status, "ongoing") &&
        strcmp(o->status, "all")) {
      fprintf(stderr, "agon: bad --status %s (finished, ongoing or all)\n",
              o->status);
      return 2;
    }
    json_object_set_new(f, "status", json_string(o->status));
  }
  if (o->limit) json_object_set_new(f, "limit", json_integer(o->limit));
  return 0;
}

static void fmt_date(long long ms, char *buf, size_t cap) {
  time_t t = (time_t)(ms / 1000);
  struct tm tm;
  if (ms <= 0 || !gmtime_r(&t, &tm) ||
      !strftime(buf, cap, "%Y-%m-%d %H:%M", &tm))
    snprintf(buf, cap, "-");
}

/* Name of the player on side `side`, or NULL. */
static const char *name_on_side(const json_t *players, long long side) {
  size_t i;
  json_t *pl;
  json_array_foreach(players, i, pl) {
    const json_t *sd = json_object_get(pl, "side");
    if (json_is_integer(sd) && json_integer_value(sd) == side)
      return json_string_value(json_object_get(pl, "name"));
  }
  return NULL;
}

static void history_row(const json_t *g, int with_outcome) {
  char date[32], players[160], result[80];
  fmt_date(cli_jint(g, "created_at"), date, sizeof date);
  const json_t *pl = json_object_get(g, "players");
  const char *n0 = json_string_value(
      json_object_get(json_array_get(pl, 0), "name"));
  const char *n1 = json_string_value(
      json_object_get(json_array_get(pl, 1), "name"));
  snprintf(players, sizeof players, "%s vs %s", n0 ? n0 : "?",
           n1 ? n1 : "?");
  const char *res = cli_jstr(g, "result");
  if (!strcmp(res, "win")) {
    const char *w = name_on_side(pl, cli_jint(g, "winner_side"));
    snprintf(result, sizeof result, "%s won", w ? w : "?");
  } else if (!strcmp(res, "draw")) {
    snprintf(result, sizeof result, "draw");
  } else {
    snprintf(result, sizeof result, "%s", cli_jstr(g, "status"));
  }
  const char *reason = cli_jstr(g, "reason");
  printf("%-6lld %-16s %-16s %-24s %-14s %-14s %5lld %s", cli_jint(g, "game_id"),
         date, cli_jstr(g, "game"), players, result, reason[0] ? reason : "-",
         cli_jint(g, "moves"), json_is_true(json_object_get(g, "rated")) ? "yes"
                                                                    : "no");
  if (with_outcome) {
    const char *oc = json_string_value(json_object_get(g, "outcome"));
    printf("%*s %s", json_is_true(json_object_get(g, "rated")) ? 2 : 3, "",
           oc ? oc : "-");
  }
  putchar('\n');
}

/* The command line again without --before/--all, for the "more:" hint. */
static void more_hint(FILE *f, int argc, char **argv, long long next) {
  fputs("more: agon", f);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--before")) {
      i++;
      continue;
    }
    if (!strcmp(argv[i], "--all")) continue;
    int plain = argv[i][0] != 0;
    for (const char *c = argv[i]; *c; c++)
      if (!isalnum((unsigned char)*c) && !strchr("-_.:/=+@,", *c)) plain = 0;
    if (plain) fprintf(f, " %s", argv[i]);
    else fprintf(f, " '%s'", argv[i]);  /* quoting enough for names */
  }
  fprintf(f, " --before %lld\n", next);
}

static int cmd_history(const hopts *o, int argc, char **argv) {
  if (o->n_pos != 1) {
    fputs("usage: agon history [--player NAME] [--opponent NAME] [--game G]\n"
          "         [--result win|loss|draw] [--winner-side 0|1] "
          "[--rated yes|no]\n"
          "         [--from DATE] [--to DATE] "
          "[--status finished|ongoing|all]\n"
          "         [--limit N] [--before ID] [--all] [--json]\n", stderr);
    return 2;
  }
  long long before = 0;
  if (o->before && parse_id(o->before, &before)) {
    fprintf(stderr, "agon: bad --before %s\n", o->before);
    return 2;
  }
  json_t *filter = json_object();
  int rc = history_filter(o, filter);
  if (rc) {
    json_decref(filter);
    return rc;
  }
  sess s;
  agon_err err;
  agon_err_clear(&err);
  rc = connect_to(o, &s, &err);
  int rows = 0, header = 0;
  long long next = 0;
  for (int page = 0; !rc && page < HIST_MAX_PAGES; page++) {
    json_t *f = json_deep_copy(filter);
    if (before) json_object_set_new(f, "before_id", json_integer(before));
    json_t *d = NULL;
    rc = sess_request(&s, "history", f, SESS_TIMEOUT_MS, &d, NULL, &err);
    if (rc) break;
    const json_t *games = json_object_get(d, "games");
    size_t i;
    json_t *g;
    json_array_foreach(games, i, g) {
      if (o->json) {
        cli_print_json(json_incref(g));
        continue;
      }
      if (!header++) {
        printf("%-6s %-16s %-16s %-24s %-14s %-14s %5s %-5s%s\n", "ID",
               "DATE", "GAME", "PLAYERS", "RESULT", "REASON", "MOVES",
               "RATED", o->player ? " OUTCOME" : "");
      }
      history_row(g, o->player != NULL);
    }
    rows += (int)json_array_size(games);
    const json_t *nb = json_object_get(d, "next_before_id");
    next = json_is_integer(nb) ? json_integer_value(nb) : 0;
    json_decref(d);
    if (!next || !o->all) break;
    before = next;
    fflush(stdout);
  }
  json_decref(filter);
  sess_close(&s);
  if (rc) return fail(o, "history", &err);
  if (!o->json && !rows) puts("no games");
  /* A full page: say how to get the next one (stderr with --json, so
   * stdout stays one game per line). With --all, only after the page cap. */
  if (next) more_hint(o->json ? stderr : stdout, argc, argv, next);
  return 0;
}

/* ---- profile, leaderboard ------------------------------------------------ */

static int cmd_profile(const hopts *o) {
  if (o->n_pos != 2) {
    fputs("usage: agon profile NAME [--json]\n", stderr);
    return 2;
  }
  sess s;
  agon_err err;
  json_t *d = NULL;
  int rc = connect_to(o, &s, &err);
  if (!rc)
    rc = sess_request(&s, "profile", json_pack("{s:s}", "name", o->pos[1]),
                      SESS_TIMEOUT_MS, &d, NULL, &err);
  sess_close(&s);
  if (rc) return fail(o, "profile", &err);
  if (o->json) {
    json_object_set_new(d, "ok", json_true());
    json_object_set_new(d, "command", json_string("profile"));
    cli_print_json(d);
    return 0;
  }
  printf("%s: %lld played, %lld won, %lld lost, %lld drawn, %lld ongoing\n",
         cli_jstr(d, "name"), cli_jint(d, "played"), cli_jint(d, "wins"),
         cli_jint(d, "losses"), cli_jint(d, "draws"), cli_jint(d, "ongoing"));
  const json_t *bg = json_object_get(d, "by_game");
  if (json_object_size(bg)) {
    printf("%-16s %6s %6s %6s %6s\n", "GAME", "PLAYED", "WON", "LOST",
           "DRAWN");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)bg, k, v)
      printf("%-16s %6lld %6lld %6lld %6lld\n", k, cli_jint(v, "played"),
             cli_jint(v, "wins"), cli_jint(v, "losses"), cli_jint(v, "draws"));
  }
  json_decref(d);
  return 0;
}

static int cmd_leaderboard(const hopts *o) {
  if (o->n_pos > 2) {
    fputs("usage: agon leaderboard [GAME] [--limit N] [--json]\n", stderr);
    return 2;
  }
  sess s;
  agon_err err;
  int rc = connect_to(o, &s, &err);
  /* Without GAME: every game of the registry, one board each. */
  for (size_t gi = 0; !rc && game_registry[gi]; gi++) {
    const char *game = o->n_pos == 2 ? o->pos[1] : game_registry[gi]->name;
    json_t *f = json_pack("{s:s}", "game", game);
    if (o->limit) json_object_set_new(f, "limit", json_integer(o->limit));
    json_t *d = NULL;
    rc = sess_request(&s, "leaderboard", f, SESS_TIMEOUT_MS, &d, NULL, &err);
    if (rc) break;
    const json_t *pl = json_object_get(d, "players");
    if (o->json) {
      json_object_set_new(d, "ok", json_true());
      json_object_set_new(d, "command", json_string("leaderboard"));
      cli_print_json(d);
    } else {
      if (gi) putchar('\n');
      printf("%s\n", game);
      if (!json_array_size(pl)) puts("  no rated players");
      else printf("  %-4s %-24s %8s %7s %6s\n", "#", "PLAYER", "RATING",
                  "RD", "GAMES");
      size_t i;
      json_t *p;
      json_array_foreach(pl, i, p)
        printf("  %-4zu %-24s %8.1f %7.1f %6lld\n", i + 1, cli_jstr(p, "name"),
               json_number_value(json_object_get(p, "rating")),
               json_number_value(json_object_get(p, "rd")), cli_jint(p, "games"));
      json_decref(d);
    }
    if (o->n_pos == 2) break;
  }
  sess_close(&s);
  if (rc) return fail(o, "leaderboard", &err);
  return 0;
}

/* ---- export --------------------------------------------------------------- */

/* The export body: text as the server sent it, JSON as one compact line.
 * *out: new malloc'd bytes, *len their count. */
static int fetch_export(sess *s, long long gid, const char *format,
                        char **out, size_t *len, agon_err *err) {
  json_t *d = NULL;
  int rc = sess_request(s, "export",
                        json_pack("{s:I, s:s}", "game_id", (json_int_t)gid,
                                  "format", format),
                        SESS_TIMEOUT_MS, &d, NULL, err);
  if (rc) return rc;
  const json_t *r = json_object_get(d, "record");
  if (json_is_string(r)) {
    *len = json_string_length(r);
    *out = cli_xmalloc(*len + 1);
    memcpy(*out, json_string_value(r), *len + 1);
  } else if (json_is_object(r)) {
    char *txt = json_dumps(r, JSON_COMPACT);
    cli_buf b;
    cli_buf_init(&b);
    cli_buf_printf(&b, "%s\n", txt ? txt : "{}");
    free(txt);
    *len = b.len;
    *out = cli_buf_take(&b);
    cli_buf_close(&b);
  } else {
    rc = agon_err_set(err, AGON_EBADJSON, "export: no record in the reply");
  }
  json_decref(d);
  return rc;
}

static int write_file(const char *path, const char *data, size_t len,
                      agon_err *err) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return agon_err_set(err, AGON_EINVAL, "%s: %s", path, strerror(errno));
  size_t w = fwrite(data, 1, len, f);
  int bad = w != len;
  if (fclose(f) != 0) bad = 1;
  if (bad) return agon_err_set(err, AGON_EINVAL, "%s: write failed", path);
  return 0;
}

static int cmd_export(const hopts *o) {
  long long gid;
  const char *fmt = o->format ? o->format : "text";
  if (o->n_pos != 2 || parse_id(o->pos[1], &gid)) {
    fputs("usage: agon export GAME-ID [--format text|json] [-o FILE]\n",
          stderr);
    return 2;
  }
  if (strcmp(fmt, "text") && strcmp(fmt, "json")) {
    fprintf(stderr, "agon: bad --format %s (text or json)\n", fmt);
    return 2;
  }
  sess s;
  agon_err err;
  char *body = NULL;
  size_t len = 0;
  int rc = connect_to(o, &s, &err);
  if (!rc) rc = fetch_export(&s, gid, fmt, &body, &len, &err);
  sess_close(&s);
  if (!rc && o->out) rc = write_file(o->out, body, len, &err);
  if (rc) {
    free(body);
    return fail(o, "export", &err);
  }
  if (o->out) {
    if (o->json)
      cli_print_json(json_pack("{s:b, s:s, s:I, s:s, s:I}", "ok", 1, "command",
                           "export", "game_id", (json_int_t)gid, "file",
                           o->out, "bytes", (json_int_t)len));
    else
      printf("game %lld exported to %s (%zu bytes)\n", gid, o->out, len);
  } else if (fwrite(body, 1, len, stdout) != len) {
    rc = 1;
  }
  free(body);
  return rc;
}

/* ---- replay --------------------------------------------------------------- */

typedef struct replay {
  sess *s;                  /* borrowed */
  long long game_id;
  json_t *rec;              /* new: game_record's "game" */
  const json_t *moves;      /* borrowed from rec */
  size_t n;                 /* plies in the record */
  size_t ply;               /* shown */
  game_setup setup;
  uint64_t seed;
  int seat_side[2];         /* side of each seat, -1 unknown */
  char names[2][64];        /* by side */
  char **texts;             /* owned: canonical text of every move */
  int *movers;              /* owned: side of every move */
  char final[128];          /* the record's result, e.g. "Light wins (…)" */
  char title_result[64];    /* short, for the title */
  char mode[160];
  char input[PLAY_INPUT_MAX];
  size_t in_len;
  char message[PLAY_MSG_MAX];
  char status[256];
  int quit;
  play p;                   /* the position at ply */
} replay;

static const char replay_keys[] =
    "n/Right/Space next  p/Left back  Home/0 start  End/$ end\n"
    "g N: go to ply N  export [FILE]  q quit";

/* The record's ending as the rules core's outcome (ended from outside
 * the rules: resign, time, agreement...). Ongoing when it has none. */
static game_outcome record_outcome(const replay *r) {
  const char *res = cli_jstr(r->rec, "result");
  const char *reason = json_string_value(json_object_get(r->rec, "reason"));
  if (!reason) reason = "";
  if (!strcmp(res, "win")) {
    const json_t *ws = json_object_get(r->rec, "winner_side");
    if (json_is_integer(ws))
      return game_outcome_win((int)json_integer_value(ws), reason);
  } else if (!strcmp(res, "draw")) {
    return game_outcome_draw(reason);
  }
  return game_outcome_ongoing();
}

/* Rebuild the position after the first `ply` moves, from the start. */
static int replay_goto(replay *r, size_t ply, agon_err *err) {
  if (ply > r->n) ply = r->n;
  play_close(&r->p);
  int rc = play_init(&r->p, &r->setup, r->seed, NULL, err);
  if (rc) return rc;
  for (size_t i = 0; i < ply; i++) {
    const char *mv = cli_jstr(json_array_get(r->moves, i), "move");
    rc = play_apply(&r->p, mv, err);
    if (rc) {
      char why[sizeof err->msg];
      snprintf(why, sizeof why, "%s", err->msg);
      return agon_err_set(err, rc, "move %zu '%s': %s", i + 1, mv, why);
    }
  }
  r->ply = ply;
  if (ply == r->n &&
      game_match_outcome(&r->p.m).result == GAME_ONGOING) {
    game_outcome oc = record_outcome(r);
    if (oc.result != GAME_ONGOING) game_match_end(&r->p.m, oc);
  }
  /* The stored clocks after the current move (per seat), if timed. */
  const json_t *cl =
      ply ? json_object_get(json_array_get(r->moves, ply - 1), "clocks_ms")
          : NULL;
  r->p.clock_on = json_is_array(cl) && json_array_size(cl) == 2;
  for (int seat = 0; r->p.clock_on && seat < 2; seat++) {
    int side = r->seat_side[seat] >= 0 ? r->seat_side[seat] : seat;
    r->p.clock_ms[side] = json_integer_value(json_array_get(cl, (size_t)seat));
  }
  for (int s = 0; s < 2; s++) r->p.names[s] = r->names[s][0] ? r->names[s]
                                                             : NULL;
  snprintf(r->mode, sizeof r->mode, "game %lld \u00b7 ply %zu/%zu \u00b7 %s",
           r->game_id, ply, r->n, r->title_result);
  r->p.mode = r->mode;
  game_outcome oc = game_match_outcome(&r->p.m);
  if (oc.result != GAME_ONGOING) {
    char t[128];
    view_outcome_text(r->p.m.vt, oc, t, sizeof t);
    snprintf(r->status, sizeof r->status, "Game over: %s.", t);
  } else {
    char side[32];
    view_side_title(r->p.m.vt, game_match_to_move(&r->p.m), side,
                    sizeof side);
    snprintf(r->status, sizeof r->status, "%s to move. Final: %s.",
             game_match_to_move(&r->p.m) == GAME_CHOOSER ? "Chooser" : side,
             r->final);
  }
  return 0;
}

static void replay_free(replay *r) {
  for (size_t i = 0; r->texts && i < r->n; i++) free(r->texts[i]);
  free(r->texts);
  free(r->movers);
  play_close(&r->p);
  json_decref(r->rec);
  free(r);
}

/* Fetch the record and check it replays to the end. *out: new. */
static int replay_load(sess *s, long long gid, replay **out, agon_err *err) {
  replay *r = cli_xmalloc(sizeof *r);
  memset(r, 0, sizeof *r);
  r->s = s;
  r->game_id = gid;
  json_t *d = NULL;
  int rc = sess_request(s, "game_record",
                        json_pack("{s:I}", "game_id", (json_int_t)gid),
                        SESS_TIMEOUT_MS, &d, NULL, err);
  if (rc) goto out;
  r->rec = json_incref(json_object_get(d, "game"));
  json_decref(d);
  const char *gname = cli_jstr(r->rec, "game");
  const game_vtable *vt = game_find(gname);
  if (!vt) {
    rc = agon_err_set(err, AGON_EUNKNOWNGAME, "unknown game '%s'", gname);
    goto out;
  }
  const char *seed = json_string_value(json_object_get(r->rec, "seed"));
  if (!seed) {
    /* The server keeps the seed secret until the end: it would reveal a
     * Gambo deal. */
    rc = agon_err_set(err, AGON_ESTATE,
                      "game %lld is not over yet (agon watch %lld shows it)",
                      gid, gid);
    goto out;
  }
  char *end;
  errno = 0;
  r->seed = strtoull(seed, &end, 10);
  if (*end || errno) {
    rc = agon_err_set(err, AGON_EBADJSON, "bad seed in the record");
    goto out;
  }
  game_setup_init(&r->setup, vt);
  const char *k;
  json_t *v;
  json_object_foreach(json_object_get(r->rec, "options"), k, v) {
    char val[GAME_OPT_TEXT_MAX];
    if (json_is_string(v))
      snprintf(val, sizeof val, "%s", json_string_value(v));
    else if (json_is_integer(v))
      snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v))
      snprintf(val, sizeof val, "%s", json_is_true(v) ? "true" : "false");
    else
      continue;
    if (!val[0]) continue;
    if ((rc = game_setup_set(&r->setup, k, val, err))) goto out;
  }
  r->seat_side[0] = r->seat_side[1] = -1;
  size_t i;
  json_t *pl;
  json_array_foreach(json_object_get(r->rec, "players"), i, pl) {
    long long seat = cli_jint(pl, "seat");
    const json_t *sd = json_object_get(pl, "side");
    if (seat < 0 || seat > 1 || !json_is_integer(sd)) continue;
    int side = (int)json_integer_value(sd);
    if (side < 0 || side > 1) continue;
    r->seat_side[seat] = side;
    snprintf(r->names[side], sizeof r->names[side], "%s", cli_jstr(pl, "name"));
  }
  r->moves = json_object_get(r->rec, "moves");
  r->n = json_array_size(r->moves);
  game_outcome oc = record_outcome(r);
  if (oc.result == GAME_ONGOING) {
    snprintf(r->final, sizeof r->final, "%s", cli_jstr(r->rec, "status"));
    snprintf(r->title_result, sizeof r->title_result, "%s",
             cli_jstr(r->rec, "status"));
  } else {
    view_outcome_text(vt, oc, r->final, sizeof r->final);
    if (oc.result == GAME_DRAW)
      snprintf(r->title_result, sizeof r->title_result, "draw");
    else
      snprintf(r->title_result, sizeof r->title_result, "%s won",
               game_side_name(vt, oc.winner));
  }
  /* Play it all once: a record the rules core refuses is reported now,
   * not at some ply later; the texts and movers feed the move list. */
  if ((rc = replay_goto(r, r->n, err))) goto out;
  r->texts = cli_xmalloc(sizeof *r->texts * (r->n ? r->n : 1));
  r->movers = cli_xmalloc(sizeof *r->movers * (r->n ? r->n : 1));
  for (i = 0; i < r->n; i++) {
    r->texts[i] = cli_xstrdup(r->p.moves[i]);
    r->movers[i] = r->p.movers[i];
  }
out:
  if (rc) {
    r->n = 0;  /* texts not built */
    replay_free(r);
    return rc;
  }
  *out = r;
  return 0;
}

static void replay_view(replay *r, view_state *vs) {
  play_view(&r->p, vs);
  vs->moves = (const char *const *)r->texts;
  vs->movers = r->movers;
  vs->n_moves = r->n;
  vs->highlight = r->ply ? (int)r->ply : -1;
  /* Keep the current move in sight, a few of the next ones below it. */
  size_t end = r->ply + 3 < r->n ? r->ply + 3 : r->n;
  vs->scroll = (int)(r->n - end);
  vs->clock_running = -1;  /* stored clocks: none is running */
  vs->status = r->status;
  vs->message = r->message[0] ? r->message : replay_keys;
  vs->prompt = "replay> ";
  vs->input = r->input;
}

static char *replay_text(replay *r) {
  term_frame f;
  term_frame_init(&f, TERM_MIN_W, TERM_MIN_H);
  view_state vs;
  int cr, cc;
  replay_view(r, &vs);
  vs.prompt = "";
  view_render(&f, &vs, &cr, &cc);
  char *txt = term_frame_text(&f);
  term_frame_close(&f);
  return txt;
}

static void replay_step(replay *r, size_t ply) {
  agon_err err;
  r->message[0] = 0;
  /* Every ply was played at load: this cannot fail, but say so if. */
  if (replay_goto(r, ply, &err))
    snprintf(r->message, sizeof r->message, "%s", err.msg);
}

static void replay_export(replay *r, const char *file) {
  char name[256];
  if (file && *file) snprintf(name, sizeof name, "%s", file);
  else snprintf(name, sizeof name, "agon-game-%lld.txt", r->game_id);
  agon_err err;
  char *body = NULL;
  size_t len = 0;
  int rc = fetch_export(r->s, r->game_id, "text", &body, &len, &err);
  if (!rc) rc = write_file(name, body, len, &err);
  free(body);
  if (rc)
    snprintf(r->message, sizeof r->message, "export: %s", err.msg);
  else
    snprintf(r->message, sizeof r->message, "Exported to %s (%zu bytes).",
             name, len);
}

/* A typed command line: g N / goto N, export [FILE], n, p, q, ... */
static void replay_submit(replay *r, const char *line) {
  while (*line == ' ') line++;
  char word[16];
  size_t wl = 0;
  while (line[wl] && line[wl] != ' ' && wl < sizeof word - 1) wl++;
  memcpy(word, line, wl);
  word[wl] = 0;
  const char *rest = line + wl;
  while (*rest == ' ') rest++;
  long n;
  if (!word[0]) return;
  if (!strcmp(word, "q") || !strcmp(word, "quit") || !strcmp(word, "exit")) {
    r->quit = 1;
  } else if (!strcmp(word, "n") || !strcmp(word, "next")) {
    replay_step(r, r->ply + 1);
  } else if (!strcmp(word, "p") || !strcmp(word, "prev")) {
    replay_step(r, r->ply ? r->ply - 1 : 0);
  } else if (!strcmp(word, "start") || !strcmp(word, "0")) {
    replay_step(r, 0);
  } else if (!strcmp(word, "end") || !strcmp(word, "$")) {
    replay_step(r, r->n);
  } else if (!strcmp(word, "g") || !strcmp(word, "goto")) {
    if (parse_long(rest, 0, (long)r->n, &n))
      snprintf(r->message, sizeof r->message, "g N: a ply from 0 to %zu",
               r->n);
    else
      replay_step(r, (size_t)n);
  } else if (!strcmp(word, "export")) {
    replay_export(r, rest);
  } else if (!parse_long(word, 0, (long)r->n, &n) && !*rest) {
    replay_step(r, (size_t)n);
  } else {
    snprintf(r->message, sizeof r->message, "'%s': not a replay command\n%s",
             word, "n p 0 $ g N export [FILE] q");
  }
}

static void replay_tty(replay *r, term *t) {
  term_frame f = {0, 0, NULL};
  while (!r->quit) {
    if (!f.c || f.w != t->w || f.h != t->h) {
      term_frame_close(&f);
      term_frame_init(&f, t->w, t->h);
      term_invalidate(t);
    }
    view_state vs;
    int crow, ccol;
    replay_view(r, &vs);
    view_render(&f, &vs, &crow, &ccol);
    term_present(t, &f, crow, ccol);
    /* Keep the session alive meanwhile (the server's pings want a pong;
     * the lobby's connection must survive a long look at a game). Any
     * event goes to whatever callback s has. */
    int sfd = r->s->closed ? -1 : sess_fd(r->s);
    struct pollfd pf[2] = {{t->in_fd, POLLIN, 0}, {sfd, POLLIN, 0}};
    poll(pf, sfd >= 0 ? 2 : 1, 250);
    if (sfd >= 0 && pf[1].revents) sess_pump(r->s, 0, NULL);
    int k = term_read_key(t, 0);
    if (k == TERM_KEY_NONE || k == TERM_KEY_RESIZE) continue;
    if (k == TERM_KEY_EOF || k == 3 || k == 4) break;  /* Ctrl-C, Ctrl-D */
    /* Arrows and keys step at once; a line being typed (g N, export)
     * takes letters as text until Enter. */
    int typing = r->in_len > 0;
    if (k == TERM_KEY_RIGHT || (!typing && (k == 'n' || k == ' '))) {
      replay_step(r, r->ply + 1);
    } else if (k == TERM_KEY_LEFT || (!typing && k == 'p')) {
      replay_step(r, r->ply ? r->ply - 1 : 0);
    } else if (k == TERM_KEY_HOME || (!typing && k == '0')) {
      replay_step(r, 0);
    } else if (k == TERM_KEY_END || (!typing && k == '$')) {
      replay_step(r, r->n);
    } else if (!typing && k == 'q') {
      r->quit = 1;
    } else if (k == '\r' || k == '\n') {
      char line[PLAY_INPUT_MAX];
      snprintf(line, sizeof line, "%s", r->input);
      r->input[0] = 0;
      r->in_len = 0;
      replay_submit(r, line);
    } else if (k == 127 || k == 8) {
      while (r->in_len > 0) {
        unsigned char c = (unsigned char)r->input[--r->in_len];
        if ((c & 0xc0) != 0x80) break;
      }
      r->input[r->in_len] = 0;
    } else if (k == 21 || k == 27) {  /* Ctrl-U, Esc: drop the line */
      r->in_len = 0;
      r->input[0] = 0;
    } else if (k == 12) {  /* Ctrl-L */
      term_invalidate(t);
    } else if (k >= 32) {
      char u[4];
      int n = term_utf8_encode((uint32_t)k, u);
      if (r->in_len + (size_t)n < sizeof r->input - 1) {
        memcpy(r->input + r->in_len, u, (size_t)n);
        r->in_len += (size_t)n;
        r->input[r->in_len] = 0;
      }
    }
  }
  term_frame_close(&f);
}

int history_replay(sess *s, long long game_id, term *t, agon_err *err) {
  replay *r;
  int rc = replay_load(s, game_id, &r, err);
  if (rc) return rc;
  replay_step(r, 0);  /* a browser starts at the start */
  replay_tty(r, t);
  replay_free(r);
  return 0;
}

/* For scripts: the position at the shown ply, like agon play --json. */
static json_t *replay_json(const replay *r) {
  const play *p = &r->p;
  char pos[GAME_POSITION_MAX];
  if (p->m.vt->to_position(&p->m.st, pos, sizeof pos) < 0) pos[0] = 0;
  game_outcome oc = game_match_outcome(&p->m);
  int tm = game_match_to_move(&p->m);
  json_t *j = json_pack(
      "{s:b, s:s, s:I, s:s, s:I, s:I, s:s, s:s?, s:O?, s:O?, s:o, s:O?, s:O?}",
      "ok", 1, "command", "replay", "game_id", (json_int_t)r->game_id,
      "game", p->m.vt->name, "ply", (json_int_t)r->ply, "plies",
      (json_int_t)r->n, "position", pos, "to_move",
      oc.result == GAME_ONGOING ? game_side_name(p->m.vt, tm) : NULL,
      "players", json_object_get(r->rec, "players"), "options",
      json_object_get(r->rec, "options"), "outcome",
      game_outcome_json(p->m.vt, oc), "result",
      json_object_get(r->rec, "result"), "reason",
      json_object_get(r->rec, "reason"));
  if (r->ply)
    json_object_set_new(j, "last_move", json_string(r->texts[r->ply - 1]));
  if (p->clock_on)
    json_object_set_new(j, "clocks_ms",
                        json_pack("[I, I]", (json_int_t)p->clock_ms[0],
                                  (json_int_t)p->clock_ms[1]));
  return j;
}

static int cmd_replay(const hopts *o) {
  long long gid;
  if (o->n_pos != 2 || parse_id(o->pos[1], &gid)) {
    fputs("usage: agon replay GAME-ID [--ply N] [--json]\n", stderr);
    return 2;
  }
  sess s;
  agon_err err;
  agon_err_clear(&err);
  int rc = connect_to(o, &s, &err);
  int tty = !o->json && o->ply < 0 && isatty(STDIN_FILENO) &&
            isatty(STDOUT_FILENO);
  if (!rc && tty) {
    term t;
    if (term_open(&t, STDIN_FILENO, STDOUT_FILENO) == 0) {
      rc = history_replay(&s, gid, &t, &err);
      term_close(&t);
      sess_close(&s);
      return rc ? fail(o, "replay", &err) : 0;
    }
  }
  replay *r = NULL;
  if (!rc) rc = replay_load(&s, gid, &r, &err);
  sess_close(&s);
  if (rc) return fail(o, "replay", &err);
  if (o->ply > (long)r->n) {
    fprintf(stderr, "agon: replay: game %lld has %zu plies\n", gid, r->n);
    replay_free(r);
    return 2;
  }
  if (o->ply >= 0) replay_step(r, (size_t)o->ply);
  if (o->json) {
    cli_print_json(replay_json(r));
  } else {
    char *txt = replay_text(r);
    fputs(txt, stdout);
    free(txt);
    printf("game %lld: ply %zu/%zu: %s\n", gid, r->ply, r->n, r->status);
  }
  replay_free(r);
  return 0;
}

static const char usage_text[] =
    "usage: agon [CONN] [--json] history [--player NAME] [--opponent NAME]\n"
    "         [--game G] [--result win|loss|draw] [--winner-side 0|1]\n"
    "         [--rated yes|no] [--from DATE] [--to DATE]\n"
    "         [--status finished|ongoing|all] [--limit N] [--before ID]\n"
    "         [--all]           stored games, newest first; DATE is\n"
    "                           YYYY-MM-DD (UTC) or unix ms\n"
    "       agon [CONN] [--json] profile NAME\n"
    "       agon [CONN] [--json] leaderboard [GAME] [--limit N]\n"
    "       agon [CONN] export GAME-ID [--format text|json] [-o FILE]\n"
    "       agon [CONN] [--json] replay GAME-ID [--ply N]\n"
    "replay on a terminal: n/Right/Space next, p/Left back, Home/0 start,\n"
    "End/$ end, g N Enter: ply N, export [FILE] Enter, q quit.\n"
    "CONN: --host H --port P [--tls [--ca FILE]] [--source ADDR]\n";

int history_main(int argc, char **argv) {
  hopts o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc;
  const char *cmd = o.pos[0];
  if (o.help) {
    fputs(usage_text, stdout);
    return 0;
  }
  if (!strcmp(cmd, "history")) return cmd_history(&o, argc, argv);
  if (!strcmp(cmd, "profile")) return cmd_profile(&o);
  if (!strcmp(cmd, "leaderboard")) return cmd_leaderboard(&o);
  if (!strcmp(cmd, "export")) return cmd_export(&o);
  return cmd_replay(&o);
}
