/* agon-rules - the rules core on the command line (analysis, teaching, tests).
 *
 *   agon-rules games
 *   agon-rules legal  GAME [-o K=V]... [--seed N] [--position POS] [MOVE]...
 *   agon-rules perft  GAME DEPTH [same] [--divide]
 *   agon-rules show   GAME [same] [--json]
 *   agon-rules random GAME --seed N [--max-plies K] [-o K=V]...
 *   agon-rules record GAME [same as show] [--json]   (a game record)
 *   agon-rules replay [FILE|-]                       (check records)
 *
 * Exit status: 0 success, 2 bad usage, unknown game/option, bad position, or
 * an unparsable/illegal move (the message names the move's index).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "record.h"

#define HIST_CAP 65536 /* positions kept for repetition: far above any game */

static uint64_t hist[HIST_CAP];
static game_move moves[GAME_MAX_MOVES];

typedef struct args {
  const char *cmd;
  const game_vtable *vt;
  game_setup setup;
  const char *position;
  uint64_t seed;
  int have_seed;
  unsigned depth;
  int divide, json;
  long max_plies;
  const char *argv_moves[4096];
  size_t n_moves;
} args;

static void usage(FILE *f) {
  fputs(
      "usage: agon-rules games\n"
      "       agon-rules legal  GAME [-o KEY=VALUE]... [--seed N] [--position POS] [MOVE]...\n"
      "       agon-rules perft  GAME DEPTH [-o KEY=VALUE]... [--seed N] [--position POS] [MOVE]... [--divide]\n"
      "       agon-rules show   GAME [-o KEY=VALUE]... [--seed N] [--position POS] [MOVE]... [--json]\n"
      "       agon-rules random GAME --seed N [--max-plies K] [-o KEY=VALUE]...\n"
      "       agon-rules record GAME [-o KEY=VALUE]... [--seed N] [--position POS] [MOVE]... [--json]\n"
      "       agon-rules replay [FILE|-]   (text records or NDJSON; checks every move)\n"
      "MOVE arguments are one move each (quote moves with spaces: 'engage e').\n",
      f);
}

static int fail(const char *fmt, const char *a, const char *b) {
  fputs("agon-rules: ", stderr);
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  return 2;
}

static int parse_u64(const char *s, uint64_t *out) {
  char *end = NULL;
  if (*s == '\0' || *s == '-') return -1;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end != '\0') return -1;
  *out = (uint64_t)v;
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmd_games(void) {
  for (size_t i = 0; game_registry[i]; i++) {
    const game_vtable *vt = game_registry[i];
    printf("%s  %s  (sides: %s, %s)\n", vt->name, vt->title, vt->side_names[0],
           vt->side_names[1]);
    for (size_t k = 0; k < vt->n_options; k++) {
      const game_option *o = &vt->options[k];
      if (o->kind == GAME_OPT_ENUM)
        printf("  %s=%s  default %s  %s\n", o->name, o->choices, o->def, o->help);
      else if (o->kind == GAME_OPT_INT)
        printf("  %s=%d..%d  default %s  %s\n", o->name, o->min, o->max, o->def,
               o->help);
      else
        printf("  %s=TEXT  default %s  %s\n", o->name, *o->def ? o->def : "(none)",
               o->help);
    }
  }
  return 0;
}

static int parse_args(int argc, char **argv, args *a) {
  memset(a, 0, sizeof *a);
  a->max_plies = 10000;
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  a->cmd = argv[1];
  if (strcmp(a->cmd, "games") == 0 || strcmp(a->cmd, "replay") == 0) return 0;
  if (strcmp(a->cmd, "legal") && strcmp(a->cmd, "perft") && strcmp(a->cmd, "record") &&
      strcmp(a->cmd, "show") && strcmp(a->cmd, "random")) {
    usage(stderr);
    return fail("unknown command '%s'%s", a->cmd, "");
  }
  if (argc < 3) {
    usage(stderr);
    return 2;
  }
  a->vt = game_find(argv[2]);
  if (a->vt == NULL) return fail("unknown game '%s'%s", argv[2], "");
  game_setup_init(&a->setup, a->vt);
  int i = 3;
  if (strcmp(a->cmd, "perft") == 0) {
    uint64_t d;
    if (i >= argc || parse_u64(argv[i], &d) < 0 || d > 64)
      return fail("perft needs a DEPTH%s%s", "", "");
    a->depth = (unsigned)d;
    i++;
  }
  for (; i < argc; i++) {
    const char *s = argv[i];
    agon_err err;
    if (strcmp(s, "-o") == 0 || strcmp(s, "--option") == 0) {
      if (++i >= argc) return fail("%s needs KEY=VALUE%s", s, "");
      if (game_setup_set_kv(&a->setup, argv[i], &err) < 0)
        return fail("%s%s", err.msg, "");
    } else if (strncmp(s, "-o", 2) == 0 && strchr(s, '=')) {
      if (game_setup_set_kv(&a->setup, s + 2, &err) < 0)
        return fail("%s%s", err.msg, "");
    } else if (strcmp(s, "--position") == 0) {
      if (++i >= argc) return fail("--position needs a position%s%s", "", "");
      a->position = argv[i];
    } else if (strcmp(s, "--seed") == 0) {
      if (++i >= argc || parse_u64(argv[i], &a->seed) < 0)
        return fail("--seed needs a non-negative integer%s%s", "", "");
      a->have_seed = 1;
    } else if (strcmp(s, "--max-plies") == 0) {
      uint64_t k;
      if (++i >= argc || parse_u64(argv[i], &k) < 0 || k > 10000000)
        return fail("--max-plies needs an integer%s%s", "", "");
      a->max_plies = (long)k;
    } else if (strcmp(s, "--divide") == 0 && strcmp(a->cmd, "perft") == 0) {
      a->divide = 1;
    } else if (strcmp(s, "--json") == 0 &&
               (strcmp(a->cmd, "show") == 0 || strcmp(a->cmd, "record") == 0)) {
      a->json = 1;
    } else if (strcmp(s, "--") == 0) {
      for (i++; i < argc; i++) {
        if (a->n_moves == sizeof a->argv_moves / sizeof *a->argv_moves)
          return fail("too many moves%s%s", "", "");
        a->argv_moves[a->n_moves++] = argv[i];
      }
    } else if (s[0] == '-' && s[1] == '-') {
      return fail("unknown flag '%s'%s", s, "");
    } else {
      if (a->n_moves == sizeof a->argv_moves / sizeof *a->argv_moves)
        return fail("too many moves%s%s", "", "");
      a->argv_moves[a->n_moves++] = s;
    }
  }
  if (strcmp(a->cmd, "random") == 0) {
    if (!a->have_seed) return fail("random needs --seed N%s%s", "", "");
    if (a->n_moves || a->position)
      return fail("random takes no moves or position%s%s", "", "");
  }
  return 0;
}

/* Start position, then every MOVE argument. */
static int setup_match(const args *a, game_match *m) {
  agon_err err;
  agon_err_clear(&err);
  int rc = a->position
               ? game_match_init_position(m, &a->setup, a->position,
                                          strlen(a->position), hist, HIST_CAP,
                                          &err)
               : game_match_init(m, &a->setup, a->seed, hist, HIST_CAP, &err);
  if (rc < 0) {
    fprintf(stderr, "agon-rules: %s: %s\n", agon_err_name(rc), err.msg);
    return 2;
  }
  for (size_t k = 0; k < a->n_moves; k++) {
    const char *mv = a->argv_moves[k];
    rc = game_match_play(m, mv, strlen(mv), NULL, &err);
    if (rc < 0) {
      fprintf(stderr, "agon-rules: move %zu '%s': %s: %s\n", k + 1, mv,
              agon_err_name(rc), err.msg);
      return 2;
    }
  }
  return 0;
}

/* Legal moves of m as canonical strings, sorted; returns count or -1. */
static long sorted_legal(const game_match *m, char (*text)[GAME_MOVE_TEXT_MAX],
                         const char **ptrs, size_t *idx_of) {
  size_t n = 0;
  if (game_match_legal(m, moves, GAME_MAX_MOVES, &n) < 0) return -1;
  for (size_t k = 0; k < n; k++) {
    if (m->vt->format_move(&m->st, &moves[k], text[k], GAME_MOVE_TEXT_MAX) < 0)
      return -1;
    ptrs[k] = text[k];
  }
  qsort(ptrs, n, sizeof *ptrs, cmp_str);
  if (idx_of)
    for (size_t k = 0; k < n; k++)
      idx_of[k] = (size_t)((const char(*)[GAME_MOVE_TEXT_MAX])ptrs[k] - text);
  return (long)n;
}

static char texts[GAME_MAX_MOVES][GAME_MOVE_TEXT_MAX];
static const char *ptrs[GAME_MAX_MOVES];
static size_t order[GAME_MAX_MOVES];

static int cmd_legal(const game_match *m) {
  long n = sorted_legal(m, texts, ptrs, NULL);
  if (n < 0) return fail("internal error listing moves%s%s", "", "");
  for (long k = 0; k < n; k++) puts(ptrs[k]);
  return 0;
}

static int cmd_perft(const args *a, const game_match *m) {
  if (game_match_outcome(m).result != GAME_ONGOING || a->depth == 0) {
    if (a->divide) printf("total: %d\n", a->depth == 0 ? 1 : 0);
    else printf("%d\n", a->depth == 0 ? 1 : 0);
    return 0;
  }
  if (!a->divide) {
    printf("%" PRIu64 "\n", game_perft(m->vt, &m->st, a->depth));
    return 0;
  }
  long n = sorted_legal(m, texts, ptrs, order);
  if (n < 0) return fail("internal error listing moves%s%s", "", "");
  uint64_t total = 0;
  game_state child;
  for (long k = 0; k < n; k++) {
    child = m->st;
    m->vt->apply(&child, &moves[order[k]], NULL);
    uint64_t c = game_perft(m->vt, &child, a->depth - 1);
    total += c;
    printf("%s: %" PRIu64 "\n", ptrs[k], c);
  }
  printf("total: %" PRIu64 "\n", total);
  return 0;
}

static void print_outcome(const game_match *m) {
  game_outcome o = game_match_outcome(m);
  if (o.result == GAME_ONGOING)
    puts("outcome: ongoing");
  else if (o.result == GAME_WIN)
    printf("outcome: %s wins (%s)\n", game_side_name(m->vt, o.winner), o.reason);
  else
    printf("outcome: draw (%s)\n", o.reason);
}

static int cmd_show(const args *a, const game_match *m) {
  if (a->json) {
    json_t *v = game_match_view(m, GAME_VIEW_ALL);
    char pos[GAME_POSITION_MAX];
    if (m->vt->to_position(&m->st, pos, sizeof pos) >= 0)
      json_object_set_new(v, "position", json_string(pos));
    json_dumpf(v, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
    putchar('\n');
    json_decref(v);
    return 0;
  }
  static char board[GAME_TEXT_MAX];
  char pos[GAME_POSITION_MAX];
  if (m->vt->to_text(&m->st, board, sizeof board) >= 0) fputs(board, stdout);
  printf("to move: %s\n", game_side_name(m->vt, game_match_to_move(m)));
  print_outcome(m);
  if (m->vt->to_position(&m->st, pos, sizeof pos) >= 0) printf("position: %s\n", pos);
  return 0;
}

static int cmd_random(const args *a, game_match *m) {
  game_rng rng;
  /* A stream apart from the deal's, so the same seed can be reused. */
  game_rng_init(&rng, a->seed ^ 0x5eed5eed5eed5eedULL);
  for (long ply = 0; ply < a->max_plies; ply++) {
    size_t n = 0;
    if (game_match_legal(m, moves, GAME_MAX_MOVES, &n) < 0 || n == 0) break;
    const game_move *mv = &moves[game_rng_below(&rng, (uint32_t)n)];
    char text[GAME_MOVE_TEXT_MAX];
    m->vt->format_move(&m->st, mv, text, sizeof text);
    agon_err err;
    if (game_match_apply(m, mv, &err) < 0)
      return fail("internal error: %s%s", err.msg, "");
    puts(text);
  }
  if (game_match_outcome(m).result == GAME_ONGOING)
    printf("outcome: unfinished (max plies %ld)\n", a->max_plies);
  else
    print_outcome(m);
  return 0;
}

static int cmd_record(const args *a) {
  game_record r;
  agon_err err;
  agon_err_clear(&err);
  int rc = record_from_moves(&r, &a->setup, a->seed, a->position, a->argv_moves, a->n_moves,
                             &err);
  if (rc < 0) {
    record_free(&r);
    fprintf(stderr, "agon-rules: %s: %s\n", agon_err_name(rc), err.msg);
    return 2;
  }
  if (a->json) {
    json_t *j = record_to_json(&r);
    json_dumpf(j, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(j);
  } else {
    char *t = record_to_text(&r);
    fputs(t, stdout);
    free(t);
  }
  record_free(&r);
  return 0;
}

/* Reads the whole input (bounded) into a malloc'd buffer. */
static char *slurp(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  if (buf == NULL) abort();
  for (;;) {
    if (n == cap) {
      if (cap >= ((size_t)1 << 30)) break; /* 1 GiB of records is enough */
      cap *= 2;
      buf = realloc(buf, cap);
      if (buf == NULL) abort();
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    if (got == 0) break;
    n += got;
  }
  *len = n;
  return buf;
}

/* One record: replay it and report. Returns 0 or 2. */
static int replay_one(game_record *r, unsigned idx) {
  agon_err err;
  agon_err_clear(&err);
  static game_match m;
  if (record_replay(r, &m, hist, HIST_CAP, &err) < 0) {
    fprintf(stderr, "agon-rules: record %u (%s): %s\n", idx, r->vt->name, err.msg);
    return 2;
  }
  game_outcome o = game_match_outcome(&m);
  printf("record %u: %s, %zu moves, ok (%s%s%s)\n", idx, r->vt->name, r->n_moves,
         o.result == GAME_ONGOING ? r->result : (o.result == GAME_DRAW ? "draw" : game_side_name(r->vt, o.winner)),
         (o.reason || r->reason[0]) ? " " : "", o.reason ? o.reason : r->reason);
  return 0;
}

static int cmd_replay(int argc, char **argv) {
  FILE *f = stdin;
  if (argc > 2 && strcmp(argv[2], "-") != 0) {
    f = fopen(argv[2], "rb");
    if (f == NULL) return fail("cannot open %s%s", argv[2], "");
  }
  size_t len;
  char *buf = slurp(f, &len);
  if (f != stdin) fclose(f);
  size_t p = 0;
  while (p < len && (buf[p] == ' ' || buf[p] == '\n' || buf[p] == '\r' || buf[p] == '\t')) p++;
  unsigned idx = 0;
  int status = 0;
  game_record r;
  agon_err err;
  if (p < len && buf[p] == '{') { /* NDJSON: one record per line */
    while (p < len) {
      size_t e = p;
      while (e < len && buf[e] != '\n') e++;
      if (e > p) {
        idx++;
        json_error_t jerr;
        json_t *j = json_loadb(buf + p, e - p, JSON_REJECT_DUPLICATES, &jerr);
        if (j == NULL) {
          fprintf(stderr, "agon-rules: record %u: not JSON: %s\n", idx, jerr.text);
          status = 2;
        } else {
          if (record_from_json(&r, j, &err) < 0) {
            fprintf(stderr, "agon-rules: record %u: %s\n", idx, err.msg);
            status = 2;
          } else if (replay_one(&r, idx)) {
            status = 2;
          }
          record_free(&r);
          json_decref(j);
        }
      }
      p = e + 1;
    }
  } else {
    while (p < len) {
      size_t used = 0;
      idx++;
      if (record_parse_text(&r, buf + p, len - p, &used, &err) < 0) {
        fprintf(stderr, "agon-rules: record %u: %s\n", idx, err.msg);
        record_free(&r);
        status = 2;
        break;
      }
      if (replay_one(&r, idx)) status = 2;
      record_free(&r);
      p += used ? used : len - p;
      while (p < len && (buf[p] == ' ' || buf[p] == '\n' || buf[p] == '\r' || buf[p] == '\t')) p++;
    }
  }
  free(buf);
  if (idx == 0) return fail("no record in the input%s%s", "", "");
  return status;
}

int main(int argc, char **argv) {
  static args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc;
  if (strcmp(a.cmd, "games") == 0) return cmd_games();
  if (strcmp(a.cmd, "replay") == 0) return cmd_replay(argc, argv);
  if (strcmp(a.cmd, "record") == 0) return cmd_record(&a);
  static game_match m;
  rc = setup_match(&a, &m);
  if (rc) return rc;
  if (strcmp(a.cmd, "legal") == 0) return cmd_legal(&m);
  if (strcmp(a.cmd, "perft") == 0) return cmd_perft(&a, &m);
  if (strcmp(a.cmd, "show") == 0) return cmd_show(&a, &m);
  return cmd_random(&a, &m);
}
