/* test_perft.c - runs a frozen perft table, tests/data/<game>.counts.
 *
 * Line format (one case per line, '#' starts a comment):
 *   options;seed;position;moves;depth;nodes
 * options: space-separated KEY=VALUE; position: empty for the start
 * position drawn from seed; moves: comma-separated, played first.
 *
 * Cases whose node count exceeds AGON_PERFT_MAX_NODES (environment; default
 * 200 000 000) are skipped and reported, so sanitizer builds can run a
 * cheaper subset of the same table. */
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "test.h"

static uint64_t hist[1 << 12];

/* Split s at the next ';' (in place); returns the field. */
static char *field(char **s) {
  char *f = *s;
  if (f == NULL) return NULL;
  char *semi = strchr(f, ';');
  if (semi) {
    *semi = '\0';
    *s = semi + 1;
  } else {
    *s = NULL;
  }
  return f;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
    s[--n] = '\0';
  return s;
}

static int run_case(const game_vtable *vt, char *line, int lineno,
                    uint64_t budget, unsigned *skipped) {
  char *rest = line;
  char *opts = field(&rest), *seed_s = field(&rest), *pos = field(&rest);
  char *moves = field(&rest), *depth_s = field(&rest), *nodes_s = field(&rest);
  if (nodes_s == NULL || rest != NULL) {
    TEST_FAIL_("line %d: want 6 ';'-separated fields", lineno);
    return -1;
  }
  uint64_t nodes = strtoull(trim(nodes_s), NULL, 10);
  unsigned depth = (unsigned)strtoul(trim(depth_s), NULL, 10);
  if (nodes > budget) {
    (*skipped)++;
    printf("line %d: skipped (%llu nodes > budget)\n", lineno, (unsigned long long)nodes);
    return 0;
  }
  game_setup setup;
  agon_err err;
  game_setup_init(&setup, vt);
  for (char *tok = strtok(trim(opts), " "); tok; tok = strtok(NULL, " ")) {
    if (game_setup_set_kv(&setup, tok, &err) < 0) {
      TEST_FAIL_("line %d: %s", lineno, err.msg);
      return -1;
    }
  }
  static game_match m;
  pos = trim(pos);
  int rc = *pos ? game_match_init_position(&m, &setup, pos, strlen(pos), hist, 4096, &err)
                : game_match_init(&m, &setup, strtoull(trim(seed_s), NULL, 10), hist, 4096, &err);
  if (rc < 0) {
    TEST_FAIL_("line %d: start: %s", lineno, err.msg);
    return -1;
  }
  moves = trim(moves);
  for (char *save = NULL, *tok = strtok_r(moves, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    tok = trim(tok);
    if (game_match_play(&m, tok, strlen(tok), NULL, &err) < 0) {
      TEST_FAIL_("line %d: move '%s': %s", lineno, tok, err.msg);
      return -1;
    }
  }
  uint64_t got = game_perft(vt, &m.st, depth);
  CHECK_MSG(got == nodes, "line %d: perft %u = %llu, expected %llu", lineno, depth,
            (unsigned long long)got, (unsigned long long)nodes);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test_perft GAME FILE.counts\n");
    return 2;
  }
  const game_vtable *vt = game_find(argv[1]);
  FILE *f = fopen(argv[2], "r");
  if (vt == NULL || f == NULL) {
    fprintf(stderr, "test_perft: cannot use %s / %s\n", argv[1], argv[2]);
    return 2;
  }
  const char *b = getenv("AGON_PERFT_MAX_NODES");
  uint64_t budget = b ? strtoull(b, NULL, 10) : 200000000ULL;
  char line[4096];
  int lineno = 0, cases = 0;
  unsigned skipped = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *l = trim(line);
    if (*l == '\0' || *l == '#') continue;
    cases++;
    run_case(vt, l, lineno, budget, &skipped);
  }
  fclose(f);
  CHECK_MSG(cases > 0, "no perft cases in %s", argv[2]);
  if (skipped) printf("%u case(s) over the node budget skipped\n", skipped);
  return test_summary();
}
