/* test_gambo_2023_random.c - property tests over many seeded random games
 * (random deals, both turn orders): every game ends; exactly nine duels
 * unless the repetition safeguard ended it; the scores are the sum of the
 * duels' products plus the +4 bonus; check() holds after every move; every
 * legal move survives format/parse and describe/parse; positions round-trip
 * with the same hash. Then the frozen perft counts (argv[1] = data dir). */
#include <errno.h>

#include "g23_test_util.h"

/* Sanitizer builds run ~10x slower: fewer games there keep the suite short. */
#if defined(__SANITIZE_ADDRESS__)
#define G23_GAMES 250
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define G23_GAMES 250
#endif
#endif
#ifndef G23_GAMES
#define G23_GAMES 800
#endif

/* Strength digit of column col of side s, read from the position text. */
static int cell_strength(const char *pos, int s, int col) {
  const char *p = pos;
  if (s) p = strchr(pos, '/') + 1;
  for (int c = 0; c < 9; c++) {
    if (*p == '-') {
      if (c == col) return 0;
      p++;
      continue;
    }
    if (c == col) return p[1] - '0';
    p += 2;
  }
  return 0;
}

static void read_scores(const game_state *st, int sc[2]) {
  json_t *v = g23t_vt()->to_json(st, GAME_VIEW_ALL);
  json_t *s = json_object_get(v, "scores");
  sc[0] = (int)json_integer_value(json_object_get(s, "south"));
  sc[1] = (int)json_integer_value(json_object_get(s, "north"));
  json_decref(v);
}

static uint64_t hist[1 << 12];

static unsigned long games, plies, repetition_ends, by_score, by_tiebreak;

static void one_game(uint64_t seed, int alternate) {
  const game_vtable *vt = g23t_vt();
  game_setup su;
  agon_err err;
  game_setup_init(&su, vt);
  if (alternate) game_setup_set(&su, "turn_order", "alternate", &err);
  game_match m;
  CHECK_INT(game_match_init(&m, &su, seed, hist, 1 << 12, &err), 0);
  game_rng r;
  game_rng_init(&r, seed ^ 0xabcdef);
  int duels = 0, sum[2] = {0, 0}, ok = 1;
  int fails_before = (int)test_failed_;
  for (int ply = 0; ply < 2000 && ok; ply++) {
    game_move mv[GAME_MAX_MOVES];
    size_t n = 0;
    if (game_match_legal(&m, mv, GAME_MAX_MOVES, &n) < 0 || n == 0) break;
    char pos[GAME_POSITION_MAX], pos2[GAME_POSITION_MAX];
    vt->to_position(&m.st, pos, sizeof pos);
    game_state back;
    if (vt->from_position(&back, &su, pos, strlen(pos), &err) < 0) {
      TEST_FAIL_("position '%s' rejected: %s", pos, err.msg);
      break;
    }
    vt->to_position(&back, pos2, sizeof pos2);
    if (strcmp(pos, pos2) != 0 || vt->hash(&back) != vt->hash(&m.st) ||
        memcmp(&back, &m.st, vt->state_size) != 0)
      TEST_FAIL_("position round trip '%s' -> '%s'", pos, pos2);
    for (size_t i = 0; i < n; i++) {
      char t[GAME_MOVE_TEXT_MAX], d[GAME_MOVE_TEXT_MAX];
      game_move p1, p2;
      vt->format_move(&m.st, &mv[i], t, sizeof t);
      vt->describe_move(&m.st, &mv[i], d, sizeof d);
      if (vt->parse_move(&m.st, t, strlen(t), &p1, &err) < 0 ||
          !game_move_eq(&p1, &mv[i]) ||
          vt->parse_move(&m.st, d, strlen(d), &p2, &err) < 0 ||
          !game_move_eq(&p2, &mv[i])) {
        TEST_FAIL_("move round trip '%s' / '%s' at %s", t, d, pos);
        ok = 0;
      }
    }
    const game_move *pick = &mv[game_rng_below(&r, (uint32_t)n)];
    int mover = vt->to_move(&m.st);
    int before[2];
    read_scores(&m.st, before);
    if (pick->kind == 4) {
      int prod = cell_strength(pos, mover, pick->op[0]) *
                 cell_strength(pos, mover ^ 1, pick->op[1]);
      int after[2];
      game_state tmp = m.st;
      vt->apply(&tmp, pick, NULL);
      read_scores(&tmp, after);
      int gain0 = after[0] - before[0], gain1 = after[1] - before[1];
      int bonus = vt->to_move(&tmp) == GAME_NOBODY ? 4 : 0;
      if (!((gain0 == prod + bonus && gain1 == 0) ||
            (gain1 == prod + bonus && gain0 == 0))) {
        TEST_FAIL_("duel at %s: gains %d/%d, product %d", pos, gain0, gain1, prod);
        ok = 0;
      }
      sum[gain0 ? 0 : 1] += gain0 ? gain0 : gain1;
      duels++;
    }
    if (game_match_apply(&m, pick, &err) < 0) {
      TEST_FAIL_("apply: %s", err.msg);
      break;
    }
    plies++;
    if (vt->check(&m.st, &err) < 0) {
      TEST_FAIL_("check after ply %d of game %" PRIu64 ": %s", ply, seed, err.msg);
      ok = 0;
    }
  }
  game_outcome o = game_match_outcome(&m);
  CHECK_MSG(o.result != GAME_ONGOING, "game %" PRIu64 " did not end", seed);
  games++;
  if (o.reason && strcmp(o.reason, "repetition") == 0) {
    repetition_ends++;
  } else {
    CHECK_INT(duels, 9);
    int sc[2];
    read_scores(&m.st, sc);
    CHECK_INT(sc[0], sum[0]);
    CHECK_INT(sc[1], sum[1]);
    CHECK_INT(o.result, GAME_WIN);
    if (sc[0] != sc[1]) {
      CHECK_INT(o.winner, sc[0] > sc[1] ? 0 : 1);
      by_score++;
    } else {
      CHECK_STR(o.reason, "last_duel_tiebreak");
      by_tiebreak++;
    }
  }
  if ((int)test_failed_ != fails_before)
    fprintf(stderr, "  (game seed %" PRIu64 ", alternate %d)\n", seed, alternate);
}

/* ---- frozen perft counts ------------------------------------------------ */

static void run_counts(const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/gambo_2023.counts", dir);
  FILE *f = fopen(path, "r");
  CHECK_MSG(f != NULL, "open %s: %s", path, strerror(errno));
  if (f == NULL) return;
  const game_vtable *vt = g23t_vt();
  char line[2048];
  int cases = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0') continue;
    char *field[6];
    int nf = 0;
    char *p = line;
    for (; nf < 6; nf++) {
      field[nf] = p;
      char *semi = strchr(p, ';');
      if (semi == NULL) {
        nf++;
        break;
      }
      *semi = '\0';
      p = semi + 1;
    }
    CHECK_MSG(nf == 6, "counts line with %d fields", nf);
    if (nf != 6) continue;
    unsigned long long nodes = strtoull(field[5], NULL, 10);
    unsigned depth = (unsigned)atoi(field[4]);
    if (nodes > 3000000ULL) continue; /* the generic runner covers those */
    game_setup su;
    agon_err err;
    game_setup_init(&su, vt);
    char opts[2048];
    snprintf(opts, sizeof opts, "%s", field[0]);
    for (char *t = strtok(opts, " "); t; t = strtok(NULL, " "))
      CHECK_INT(game_setup_set_kv(&su, t, &err), 0);
    game_match m;
    int rc = field[2][0]
                 ? game_match_init_position(&m, &su, field[2], strlen(field[2]),
                                            hist, 1 << 12, &err)
                 : game_match_init(&m, &su, strtoull(field[1], NULL, 10), hist,
                                   1 << 12, &err);
    CHECK_MSG(rc == 0, "counts start: %s", err.msg);
    if (rc < 0) continue;
    char mv[1024];
    snprintf(mv, sizeof mv, "%s", field[3]);
    for (char *t = strtok(mv, ","); t; t = strtok(NULL, ","))
      CHECK_INT(game_match_play(&m, t, strlen(t), NULL, &err), 0);
    CHECK_U64(game_perft(vt, &m.st, depth), nodes);
    cases++;
  }
  fclose(f);
  printf("counts: %d cases checked\n", cases);
  CHECK(cases >= 12);
}

int main(int argc, char **argv) {
  for (uint64_t seed = 1; seed <= G23_GAMES; seed++) {
    one_game(seed, 0);
    one_game(seed + 100000, 1);
  }
  printf("random: %lu games, %lu plies, %lu by score, %lu by tie-break, %lu "
         "repetition\n",
         games, plies, by_score, by_tiebreak, repetition_ends);
  /* With the restriction state in the hash no state can recur (see
   * docs/positions/gambo_2023.md), so the safeguard never fires. */
  CHECK_INT(repetition_ends, 0);
  if (argc > 1) run_counts(argv[1]);
  return test_summary();
}
