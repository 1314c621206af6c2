/* fuzz_move.c - libFuzzer target: a game's move parser on arbitrary text.
 *
 * Input: byte 0 = seed of the start position and of the random plies,
 * byte 1 = number of random plies (mod 96) played first, the rest = move
 * text. Whatever parse_move accepts must be legal: it formats and re-parses
 * to itself, applies on a copy, and the result passes check(). Built per
 * game with -DFUZZ_GAME="name". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(c) \
  do {                 \
    if (!(c)) abort(); \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static uint64_t hist[256];
  static game_match m;
  static game_move moves[GAME_MAX_MOVES];
  const game_vtable *vt = game_find(FUZZ_GAME);
  FUZZ_ASSERT(vt != NULL);
  if (size < 2) return 0;
  game_setup s;
  game_setup_init(&s, vt);
  if (game_match_init(&m, &s, data[0], hist, 256, NULL) < 0) return 0;
  game_rng r;
  game_rng_init(&r, data[0]);
  for (unsigned k = 0; k < data[1] % 96u; k++) {
    size_t n = 0;
    if (game_match_legal(&m, moves, GAME_MAX_MOVES, &n) < 0 || n == 0) break;
    FUZZ_ASSERT(game_match_apply(&m, &moves[game_rng_below(&r, (uint32_t)n)], NULL) == 0);
  }
  game_move mv;
  agon_err err;
  int rc = vt->parse_move(&m.st, (const char *)data + 2, size - 2, &mv, &err);
  if (rc < 0) {
    FUZZ_ASSERT(rc == AGON_EBADMOVE || rc == AGON_EILLEGAL || rc == AGON_EGAMEOVER);
    FUZZ_ASSERT(memchr(err.msg, '\0', sizeof err.msg) != NULL);
    return 0;
  }
  char text[GAME_MOVE_TEXT_MAX];
  int len = vt->format_move(&m.st, &mv, text, sizeof text);
  FUZZ_ASSERT(len > 0);
  game_move back;
  FUZZ_ASSERT(vt->parse_move(&m.st, text, (size_t)len, &back, &err) == 0);
  FUZZ_ASSERT(game_move_eq(&back, &mv));
  if (vt->describe_move) FUZZ_ASSERT(vt->describe_move(&m.st, &mv, text, sizeof text) > 0);
  game_state copy = m.st;
  FUZZ_ASSERT(vt->apply(&copy, &mv, &err) == 0);
  FUZZ_ASSERT(vt->check(&copy, &err) == 0);
  return 0;
}
