/* test_core.c - the game-independent parts of libgame: error codes, the
 * RNG stream, seed commitments, option parsing, and for every registered
 * game the deal/commitment contract of game_match_view. */
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "test.h"

static void test_errors(void) {
  CHECK_STR(agon_err_name(AGON_EILLEGAL), "illegal_move");
  CHECK_STR(agon_err_name(0), "unknown_error");
  CHECK_STR(agon_err_name(-100000), "unknown_error");
  CHECK_INT(agon_err_from_name("rate_limited"), AGON_ERATELIMIT);
  CHECK_INT(agon_err_from_name("no_such_code"), 0);
  /* Wire names are unique and round-trip. */
  for (int c = -1; c >= -AGON__I_COUNT; c--) {
    CHECK_INT(agon_err_from_name(agon_err_name(c)), c);
    for (int d = c - 1; d >= -AGON__I_COUNT; d--)
      CHECK_MSG(strcmp(agon_err_name(c), agon_err_name(d)) != 0,
                "duplicate wire name %s", agon_err_name(c));
  }
  agon_err e;
  CHECK_INT(agon_err_set(&e, AGON_EBADMOVE, "move %d", 3), AGON_EBADMOVE);
  CHECK_STR(e.msg, "move 3");
  agon_err_set(&e, AGON_EGAMEOVER, NULL);
  CHECK_STR(e.msg, "the game is over");
  CHECK_INT(agon_err_set(NULL, AGON_EINVAL, "x"), AGON_EINVAL);
}

static void test_rng(void) {
  /* splitmix64 reference values for seed 0 (computed independently). */
  game_rng r;
  game_rng_init(&r, 0);
  CHECK_U64(game_rng_next(&r), 0xe220a8397b1dcdafULL);
  CHECK_U64(game_rng_next(&r), 0x6e789e6aa1b965f4ULL);
  CHECK_U64(game_rng_next(&r), 0x06c45d188009454fULL);
  /* below(): in range and every value reachable. */
  unsigned seen[9] = {0};
  game_rng_init(&r, 12345);
  for (int i = 0; i < 9000; i++) {
    uint32_t v = game_rng_below(&r, 9);
    CHECK_MSG(v < 9, "below(9) gave %u", v);
    if (v < 9) seen[v]++;
  }
  for (int i = 0; i < 9; i++) CHECK_MSG(seen[i] > 800, "value %d seen %u times", i, seen[i]);
}

static void test_commitment(void) {
  char hex[65];
  /* Expected values: printf 'agon-seed:7' | sha256sum */
  game_seed_commitment(7, hex);
  CHECK_STR(hex, "a97c3356915565aa955b02e4a90c2217503e8cac564a9d3e23f4eac8f89b010a");
  game_seed_commitment(42, hex);
  CHECK_STR(hex, "682e62a39ff4efd633f364b594c120beb92714701222a9e8ef23079da3688a81");
}

/* Options: defaults, enum/int validation, unknown keys, JSON round trip. */
static void test_options(const game_vtable *vt) {
  game_setup s, t;
  agon_err err;
  game_setup_init(&s, vt);
  CHECK_INT(game_setup_set(&s, "no_such_option", "1", &err), AGON_EOPTION);
  CHECK_INT(game_setup_set_kv(&s, "novalue", &err), AGON_EOPTION);
  for (size_t i = 0; i < vt->n_options; i++) {
    const game_option *o = &vt->options[i];
    CHECK_STR(s.text[i], o->def);
    if (o->kind == GAME_OPT_ENUM) {
      CHECK_INT(game_setup_set(&s, o->name, "definitely-not-a-choice", &err), AGON_EOPTION);
      CHECK_INT(game_setup_set(&s, o->name, o->def, &err), 0);
    } else if (o->kind == GAME_OPT_INT) {
      char buf[32];
      snprintf(buf, sizeof buf, "%d", o->max);
      CHECK_INT(game_setup_set(&s, o->name, buf, &err), 0);
      snprintf(buf, sizeof buf, "%lld", (long long)o->max + 1);
      CHECK_INT(game_setup_set(&s, o->name, buf, &err), AGON_EOPTION);
      CHECK_INT(game_setup_set(&s, o->name, "12abc", &err), AGON_EOPTION);
    }
  }
  json_t *j = game_setup_to_json(&s);
  CHECK_INT(game_setup_from_json(&t, vt, j, &err), 0);
  for (size_t i = 0; i < vt->n_options; i++) CHECK_STR(t.text[i], s.text[i]);
  json_decref(j);
  json_t *bad = json_pack("{s:i}", "no_such_option", 1);
  CHECK_INT(game_setup_from_json(&t, vt, bad, &err), AGON_EOPTION);
  json_decref(bad);
}

/* The same seed gives the same start; the view commits to the seed while
 * the game runs and reveals it once the game is over. */
static void test_deal_and_reveal(const game_vtable *vt) {
  static uint64_t h1[4096], h2[4096];
  static game_match a, b;
  static game_move mv[GAME_MAX_MOVES];
  game_setup s;
  agon_err err;
  char pa[GAME_POSITION_MAX], pb[GAME_POSITION_MAX];
  game_setup_init(&s, vt);
  int ra = game_match_init(&a, &s, 7, h1, 4096, &err);
  CHECK_MSG(ra == 0, "%s: init: %s", vt->name, err.msg);
  int rb = game_match_init(&b, &s, 7, h2, 4096, &err);
  CHECK_INT(rb, 0);
  if (ra < 0 || rb < 0) return;
  vt->to_position(&a.st, pa, sizeof pa);
  vt->to_position(&b.st, pb, sizeof pb);
  CHECK_STR(pa, pb);

  json_t *v = game_match_view(&a, GAME_VIEW_ALL);
  CHECK_STR(json_string_value(json_object_get(v, "seed_commitment")),
            "a97c3356915565aa955b02e4a90c2217503e8cac564a9d3e23f4eac8f89b010a");
  CHECK(json_object_get(v, "seed") == NULL);
  CHECK(json_is_null(json_object_get(v, "outcome")));
  CHECK_STR(json_string_value(json_object_get(v, "game")), vt->name);
  json_decref(v);

  /* Play to the end (bounded) and check the reveal. */
  game_rng r;
  game_rng_init(&r, 99);
  for (int ply = 0; ply < 5000 && game_match_outcome(&a).result == GAME_ONGOING; ply++) {
    size_t n = 0;
    CHECK_INT(game_match_legal(&a, mv, GAME_MAX_MOVES, &n), 0);
    if (n == 0) break;
    CHECK_INT(game_match_apply(&a, &mv[game_rng_below(&r, (uint32_t)n)], &err), 0);
  }
  if (game_match_outcome(&a).result == GAME_ONGOING)
    game_match_end(&a, game_outcome_draw("agreement"));
  v = game_match_view(&a, GAME_VIEW_ALL);
  CHECK_STR(json_string_value(json_object_get(v, "seed")), "7");
  CHECK(json_is_object(json_object_get(v, "outcome")));
  CHECK(json_is_null(json_object_get(v, "to_move")));
  json_decref(v);
  /* Over: no legal moves, no more play. */
  size_t n = 1;
  CHECK_INT(game_match_legal(&a, mv, GAME_MAX_MOVES, &n), 0);
  CHECK_INT(n, 0);
  CHECK_INT(game_match_to_move(&a), GAME_NOBODY);
  CHECK_INT(game_match_play(&a, "x", 1, NULL, &err), AGON_EGAMEOVER);
}

int main(void) {
  test_errors();
  test_rng();
  test_commitment();
  CHECK(game_find("GOMONY") != NULL);
  CHECK(game_find("chess") == NULL);
  for (size_t i = 0; game_registry[i]; i++) {
    const game_vtable *vt = game_registry[i];
    CHECK(vt->state_size <= GAME_STATE_MAX);
    CHECK(vt->n_options <= GAME_MAX_OPTIONS);
    test_options(vt);
    test_deal_and_reveal(vt);
  }
  return test_summary();
}
