/* test_gok_counts.c - replay tests/data/gambit_of_kings.counts (perft
 * numbers frozen after the naive cross-check) against the module. Lines of
 * more than GOK_NODE_BUDGET nodes are skipped in sanitizer builds. */
#include "gok_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define GOK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define GOK_SANITIZED 1
#endif
#endif
#ifdef GOK_SANITIZED
#define GOK_NODE_BUDGET 5000000ULL
#else
#define GOK_NODE_BUDGET 100000000ULL
#endif

/* Split s at ';' into at most n fields; returns the count. */
static int split(char *s, char **f, int n) {
  int k = 0;
  f[k++] = s;
  for (char *p = s; *p && k < n; p++)
    if (*p == ';') *p = '\0', f[k++] = p + 1;
  return k;
}

int main(int argc, char **argv) {
  const game_vtable *vt = gok_vt();
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE.counts\n", argv[0]);
    return 2;
  }
  FILE *fp = fopen(argv[1], "r");
  CHECK_MSG(fp != NULL, "cannot open %s", argv[1]);
  if (fp == NULL) return test_summary();
  char line[2048];
  unsigned lines = 0, skipped = 0;
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0') continue;
    char *f[6];
    if (split(line, f, 6) != 6) {
      TEST_FAIL_("malformed line '%s'", line);
      continue;
    }
    unsigned long long nodes = strtoull(f[5], NULL, 10);
    unsigned depth = (unsigned)strtoul(f[4], NULL, 10);
    if (nodes > GOK_NODE_BUDGET) {
      skipped++;
      continue;
    }
    game_setup s;
    game_setup_init(&s, vt);
    agon_err err;
    for (char *t = strtok(f[0], " "); t; t = strtok(NULL, " "))
      CHECK_MSG(game_setup_set_kv(&s, t, &err) == 0, "option %s: %s", t, err.msg);
    static uint64_t hist[4096];
    game_match m;
    int rc = f[2][0] ? game_match_init_position(&m, &s, f[2], strlen(f[2]), hist, 4096, &err)
                     : game_match_init(&m, &s, strtoull(f[1], NULL, 10), hist, 4096, &err);
    CHECK_MSG(rc == 0, "setup '%s': %s", f[2], err.msg);
    if (rc) continue;
    for (char *t = strtok(f[3], ","); t; t = strtok(NULL, ","))
      CHECK_MSG(game_match_play(&m, t, strlen(t), NULL, &err) == 0, "move %s: %s", t, err.msg);
    CHECK_U64(game_perft(vt, &m.st, depth), nodes);
    lines++;
  }
  fclose(fp);
  printf("%u lines checked, %u skipped (node budget)\n", lines, skipped);
  return test_summary();
}
