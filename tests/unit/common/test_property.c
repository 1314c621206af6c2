/* test_property.c - random games through the public interface, for one game:
 *  - every legal move formats and re-parses to itself;
 *  - position strings round-trip (and give the same hash);
 *  - check() holds after every move;
 *  - every game ends within the ply bound.
 * Half of the games also draw every enum option at random.
 *
 * usage: test_property GAME [GAMES [MAX_PLIES]]   (defaults 10000, 5000) */
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "test.h"

static uint64_t hist[1 << 14];
static game_move moves[GAME_MAX_MOVES];

/* Random enum options (deterministic from r); keeps INT and TEXT defaults so
 * the draw safeguards stay on. */
static void random_options(const game_vtable *vt, game_setup *s, game_rng *r) {
  for (size_t i = 0; i < vt->n_options; i++) {
    const game_option *o = &vt->options[i];
    if (o->kind != GAME_OPT_ENUM) continue;
    unsigned n = 1;
    for (const char *p = o->choices; *p; p++) n += *p == '|';
    unsigned pick = game_rng_below(r, n);
    const char *p = o->choices;
    for (unsigned k = 0; k < pick; k++) p = strchr(p, '|') + 1;
    char val[GAME_OPT_TEXT_MAX];
    size_t len = strcspn(p, "|");
    memcpy(val, p, len);
    val[len] = '\0';
    game_setup_set(s, o->name, val, NULL);
  }
}

static int check_position(const game_vtable *vt, const game_match *m,
                          const game_setup *s, unsigned gi, unsigned ply) {
  char a[GAME_POSITION_MAX], b[GAME_POSITION_MAX];
  agon_err err;
  static game_state copy;
  int la = vt->to_position(&m->st, a, sizeof a);
  if (la < 0 || (size_t)la != strlen(a) || strchr(a, ';')) {
    TEST_FAIL_("game %u ply %u: to_position failed", gi, ply);
    return -1;
  }
  if (vt->from_position(&copy, s, a, (size_t)la, &err) < 0) {
    TEST_FAIL_("game %u ply %u: from_position(%s): %s", gi, ply, a, err.msg);
    return -1;
  }
  vt->to_position(&copy, b, sizeof b);
  if (strcmp(a, b) != 0 || vt->hash(&copy) != vt->hash(&m->st)) {
    TEST_FAIL_("game %u ply %u: position round trip %s -> %s", gi, ply, a, b);
    return -1;
  }
  if (vt->check(&m->st, &err) < 0) {
    TEST_FAIL_("game %u ply %u: check: %s (%s)", gi, ply, err.msg, a);
    return -1;
  }
  return 0;
}

static int check_moves(const game_vtable *vt, const game_match *m, size_t n,
                       unsigned gi, unsigned ply) {
  char text[GAME_MOVE_TEXT_MAX];
  agon_err err;
  for (size_t k = 0; k < n; k++) {
    int len = vt->format_move(&m->st, &moves[k], text, sizeof text);
    game_move back;
    memset(&back, 0xAA, sizeof back);
    if (len < 0 || vt->parse_move(&m->st, text, (size_t)len, &back, &err) < 0 ||
        !game_move_eq(&back, &moves[k])) {
      TEST_FAIL_("game %u ply %u: move '%s' does not re-parse to itself (%s)", gi,
                 ply, len < 0 ? "?" : text, err.msg);
      return -1;
    }
    for (size_t j = 0; j < k; j++)
      if (game_move_eq(&moves[j], &moves[k])) {
        TEST_FAIL_("game %u ply %u: move '%s' listed twice", gi, ply, text);
        return -1;
      }
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_property GAME [GAMES [MAX_PLIES]]\n");
    return 2;
  }
  const game_vtable *vt = game_find(argv[1]);
  if (vt == NULL) return 2;
  unsigned games = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 10000;
  unsigned max_plies = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 5000;
  unsigned unfinished = 0, failed_games = 0;
  unsigned long long plies = 0;
  unsigned ends[3] = {0};
  for (unsigned gi = 0; gi < games; gi++) {
    game_rng r;
    game_rng_init(&r, 0xA60A000000000000ULL + gi);
    game_setup s;
    game_setup_init(&s, vt);
    if (gi % 2) random_options(vt, &s, &r);
    static game_match m;
    agon_err err;
    if (game_match_init(&m, &s, gi, hist, sizeof hist / sizeof *hist, &err) < 0) {
      TEST_FAIL_("game %u: init: %s", gi, err.msg);
      failed_games++;
      continue;
    }
    unsigned ply = 0;
    int bad = 0;
    for (; ply < max_plies; ply++) {
      if (check_position(vt, &m, &s, gi, ply) < 0) { bad = 1; break; }
      size_t n = 0;
      if (game_match_legal(&m, moves, GAME_MAX_MOVES, &n) < 0) {
        TEST_FAIL_("game %u ply %u: legal_moves failed", gi, ply);
        bad = 1;
        break;
      }
      game_outcome o = game_match_outcome(&m);
      if (o.result != GAME_ONGOING) {
        ends[o.result]++;
        if (n != 0 || game_match_to_move(&m) != GAME_NOBODY || o.reason == NULL) {
          TEST_FAIL_("game %u: over but moves/to_move/reason inconsistent", gi);
          bad = 1;
        }
        break;
      }
      if (n == 0) {
        TEST_FAIL_("game %u ply %u: no legal move but the game is not over", gi, ply);
        bad = 1;
        break;
      }
      if (check_moves(vt, &m, n, gi, ply) < 0) { bad = 1; break; }
      if (game_match_apply(&m, &moves[game_rng_below(&r, (uint32_t)n)], &err) < 0) {
        TEST_FAIL_("game %u ply %u: apply: %s", gi, ply, err.msg);
        bad = 1;
        break;
      }
    }
    plies += ply;
    if (!bad && ply == max_plies) unfinished++;
    if (bad) failed_games++;
    else test_passed_++;
    if (failed_games > 5) break; /* enough detail */
  }
  CHECK_MSG(unfinished == 0, "%u game(s) did not end within %u plies", unfinished, max_plies);
  printf("%s: %u games, %llu plies, %u wins, %u draws, %u unfinished\n", vt->name,
         games, plies, ends[GAME_WIN], ends[GAME_DRAW], unfinished);
  return test_summary();
}
