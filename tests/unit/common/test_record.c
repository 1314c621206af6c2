/* test_record.c - records in text and JSON round-trip and replay for every
 * game; tampered records are refused with the move's number. */
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "record.h"
#include "test.h"

static uint64_t hist[RECORD_MAX_MOVES + 1];
static game_move moves[GAME_MAX_MOVES];
static char texts[2000][GAME_MOVE_TEXT_MAX];

/* A random game of at most max plies; returns its length. */
static size_t random_game(const game_vtable *vt, uint64_t seed, size_t max) {
  static game_match m;
  game_setup s;
  game_setup_init(&s, vt);
  if (game_match_init(&m, &s, seed, hist, RECORD_MAX_MOVES + 1, NULL) < 0) return 0;
  game_rng r;
  game_rng_init(&r, seed * 31 + 7);
  size_t k = 0;
  for (; k < max; k++) {
    size_t n = 0;
    if (game_match_legal(&m, moves, GAME_MAX_MOVES, &n) < 0 || n == 0) break;
    if (game_match_apply(&m, &moves[game_rng_below(&r, (uint32_t)n)], NULL) < 0) break;
    strcpy(texts[k], m.last_text);
  }
  return k;
}

static void test_game(const game_vtable *vt, uint64_t seed) {
  const char *ptr[2000];
  size_t n = random_game(vt, seed, 2000);
  CHECK_MSG(n > 0, "%s: random game", vt->name);
  for (size_t i = 0; i < n; i++) ptr[i] = texts[i];
  game_setup s;
  game_setup_init(&s, vt);
  game_record r, back;
  agon_err err;
  static game_match m;
  CHECK_INT(record_from_moves(&r, &s, seed, NULL, ptr, n, &err), 0);
  CHECK_INT(r.n_moves, n);
  record_set_tag(&r, "Event", "quote \" and backslash \\ survive");

  /* text round trip */
  char *t = record_to_text(&r);
  size_t used = 0;
  CHECK_INT(record_parse_text(&back, t, strlen(t), &used, &err), 0);
  CHECK_INT(used, strlen(t));
  CHECK_INT(back.n_moves, n);
  CHECK_STR(record_tag_value(&back, "Event"), "quote \" and backslash \\ survive");
  CHECK_STR(back.result, r.result);
  CHECK_MSG(record_replay(&back, &m, hist, RECORD_MAX_MOVES + 1, &err) == 0, "%s: replay text: %s",
            vt->name, err.msg);
  char *t2 = record_to_text(&back);
  CHECK_STR(t2, t);
  free(t2);
  record_free(&back);

  /* JSON round trip */
  json_t *j = record_to_json(&r);
  CHECK_INT(record_from_json(&back, j, &err), 0);
  CHECK_MSG(record_replay(&back, &m, hist, RECORD_MAX_MOVES + 1, &err) == 0, "%s: replay json: %s",
            vt->name, err.msg);
  json_decref(j);
  record_free(&back);

  /* A wrong result is refused. */
  if (strcmp(r.result, "draw") != 0) {
    game_record bad = r;
    strcpy(bad.result, "draw");
    CHECK(record_replay(&bad, &m, hist, RECORD_MAX_MOVES + 1, &err) < 0);
  }
  /* A move that is not notation at all, at move 2. */
  if (n >= 2) {
    game_record bad;
    CHECK_INT(record_parse_text(&bad, t, strlen(t), NULL, &err), 0);
    strcpy(bad.moves[1].text, "definitely not a move");
    CHECK(record_replay(&bad, &m, hist, RECORD_MAX_MOVES + 1, &err) < 0);
    CHECK_MSG(strstr(err.msg, "move 2") != NULL, "error names the move: %s", err.msg);
    record_free(&bad);
  }
  free(t);
  record_free(&r);
}

static void test_malformed(void) {
  static const char *bad[] = {
      "",
      "1. light e2-e4\n",
      "[Game \"gomony\"\n",
      "[Game \"no-such-game\"]\n\n",
      "[Game \"gomony\"]\n\n2. white a3-b4\n",
      "[Game \"gomony\"]\n\n1. white a3-b4 {clock=5\n",
      "[Game \"gomony\"]\n[Seed \"x\"]\n\n",
      "[Game \"gomony\"]\n[Options \"nope=1\"]\n\n",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    game_record r;
    agon_err err;
    CHECK_MSG(record_parse_text(&r, bad[i], strlen(bad[i]), NULL, &err) < 0, "malformed %zu accepted", i);
    record_free(&r);
  }
}

int main(void) {
  for (size_t i = 0; game_registry[i]; i++)
    for (uint64_t seed = 1; seed <= 20; seed++) test_game(game_registry[i], seed);
  test_malformed();
  return test_summary();
}
