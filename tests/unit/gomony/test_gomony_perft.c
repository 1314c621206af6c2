/* test_gomony_perft.c - replay tests/data/gomony.counts (lines up to a node
 * budget, so sanitizer builds stay fast; the generic runner covers the rest).
 * Line format: options;seed;position;moves;depth;nodes */
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "test.h"

#define NODE_BUDGET 2000000ULL

static void run_line(const game_vtable *vt, char *line, unsigned lineno) {
  char *f[6];
  int n = 0;
  for (char *p = line; n < 6; n++) {
    f[n] = p;
    char *semi = strchr(p, ';');
    if (semi == NULL) {
      n++;
      break;
    }
    *semi = '\0';
    p = semi + 1;
  }
  CHECK_MSG(n == 6, "line %u: %d fields", lineno, n);
  if (n != 6) return;
  uint64_t want = strtoull(f[5], NULL, 10);
  if (want > NODE_BUDGET) return;
  game_setup su;
  agon_err err;
  game_setup_init(&su, vt);
  for (char *tok = strtok(f[0], " "); tok; tok = strtok(NULL, " "))
    CHECK_MSG(game_setup_set_kv(&su, tok, &err) == 0, "line %u: %s", lineno, err.msg);
  static uint64_t hist[1024];
  game_match m;
  int rc = f[2][0] ? game_match_init_position(&m, &su, f[2], strlen(f[2]), hist,
                                              1024, &err)
                   : game_match_init(&m, &su, strtoull(f[1], NULL, 10), hist,
                                     1024, &err);
  CHECK_MSG(rc == 0, "line %u: %s", lineno, err.msg);
  if (rc) return;
  for (char *mv = strtok(f[3], ","); mv; mv = strtok(NULL, ",")) {
    rc = game_match_play(&m, mv, strlen(mv), NULL, &err);
    CHECK_MSG(rc == 0, "line %u: move %s: %s", lineno, mv, err.msg);
    if (rc) return;
  }
  uint64_t got = game_perft(vt, &m.st, (unsigned)atoi(f[4]));
  CHECK_MSG(got == want, "line %u: perft %s = %llu, want %llu", lineno, f[4],
            (unsigned long long)got, (unsigned long long)want);
}

int main(int argc, char **argv) {
  const game_vtable *vt = game_find("gomony");
  CHECK(vt != NULL && argc == 2);
  if (vt == NULL || argc != 2) return test_summary();
  FILE *fp = fopen(argv[1], "r");
  CHECK_MSG(fp != NULL, "cannot open %s", argv[1]);
  if (fp == NULL) return test_summary();
  char line[1024];
  unsigned lineno = 0, cases = 0;
  while (fgets(line, sizeof line, fp)) {
    lineno++;
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0') continue;
    cases++;
    run_line(vt, line, lineno);
  }
  fclose(fp);
  CHECK(cases >= 10);
  return test_summary();
}
