/* test_gwez_counts.c - replays tests/data/gwezboell.counts through the
 * public interface (options;seed;position;moves;depth;nodes), skipping lines
 * above a node budget so the suite stays fast (the generic perft runner
 * covers the rest). Usage: test-gwezboell-counts FILE [BUDGET]. */
#include <inttypes.h>
#include <stdlib.h>

#include "gwez_common.h"

/* Split line at ';' into exactly n fields (in place). */
static int split(char *line, char **f, int n) {
  int k = 0;
  f[k++] = line;
  for (char *p = line; *p; p++)
    if (*p == ';') {
      if (k == n) return -1;
      *p = '\0';
      f[k++] = p + 1;
    }
  return k == n ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [BUDGET]\n", argv[0]);
    return 2;
  }
  uint64_t budget = argc > 2 ? strtoull(argv[2], NULL, 10) : 30000000u;
  FILE *fp = fopen(argv[1], "r");
  CHECK(fp != NULL);
  if (fp == NULL) return test_summary();
  char line[2048];
  unsigned lines = 0, run = 0;
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0') continue;
    lines++;
    char *f[6];
    CHECK_MSG(split(line, f, 6) == 0, "line %u: not 6 fields", lines);
    uint64_t want = strtoull(f[5], NULL, 10);
    if (want > budget) continue;
    gw_tm t;
    agon_err err;
    game_setup s = gw_setup(f[0]);
    int rc = *f[2] ? game_match_init_position(&t.m, &s, f[2], strlen(f[2]),
                                              t.hist, GW_HIST, &err)
                   : game_match_init(&t.m, &s, strtoull(f[1], NULL, 10),
                                     t.hist, GW_HIST, &err);
    CHECK_MSG(rc == 0, "line %u: %s", lines, err.msg);
    if (rc < 0) continue;
    for (char *mv = strtok(f[3], ","); mv; mv = strtok(NULL, ","))
      CHECK_MSG(game_match_play(&t.m, mv, strlen(mv), NULL, &err) == 0,
                "line %u: move %s: %s", lines, mv, err.msg);
    uint64_t got = game_perft(gw_vt(), &t.m.st, (unsigned)atoi(f[4]));
    CHECK_MSG(got == want, "line %u: perft %s = %" PRIu64 ", file says %" PRIu64,
              lines, f[4], got, want);
    run++;
  }
  fclose(fp);
  printf("%u count lines, %u run\n", lines, run);
  CHECK(run >= 10);
  return test_summary();
}
