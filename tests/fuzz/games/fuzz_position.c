/* fuzz_position.c - libFuzzer target: a game's position parser on
 * arbitrary bytes. Whatever from_position accepts prints back to a stable
 * canonical string, and every legal move of it formats, re-parses and
 * applies without fault. Built per game with -DFUZZ_GAME="name". */
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
  static game_state st, st2, copy;
  static game_move moves[GAME_MAX_MOVES];
  const game_vtable *vt = game_find(FUZZ_GAME);
  FUZZ_ASSERT(vt != NULL);
  game_setup s;
  game_setup_init(&s, vt);
  agon_err err;
  int rc = vt->from_position(&st, &s, (const char *)data, size, &err);
  if (rc < 0) {
    FUZZ_ASSERT(rc == AGON_EPOSITION || rc == AGON_EOPTION);
    FUZZ_ASSERT(memchr(err.msg, '\0', sizeof err.msg) != NULL);
    return 0;
  }
  char a[GAME_POSITION_MAX], b[GAME_POSITION_MAX];
  int la = vt->to_position(&st, a, sizeof a);
  FUZZ_ASSERT(la > 0);
  FUZZ_ASSERT(vt->from_position(&st2, &s, a, (size_t)la, &err) == 0);
  FUZZ_ASSERT(vt->to_position(&st2, b, sizeof b) == la && memcmp(a, b, (size_t)la) == 0);
  FUZZ_ASSERT(vt->hash(&st) == vt->hash(&st2));
  json_decref(vt->to_json(&st, GAME_VIEW_ALL));
  static char board[GAME_TEXT_MAX];
  FUZZ_ASSERT(vt->to_text(&st, board, sizeof board) > 0);
  (void)vt->outcome(&st);
  size_t n = 0;
  FUZZ_ASSERT(vt->legal_moves(&st, moves, GAME_MAX_MOVES, &n) == 0);
  for (size_t k = 0; k < n; k++) {
    char text[GAME_MOVE_TEXT_MAX];
    int len = vt->format_move(&st, &moves[k], text, sizeof text);
    FUZZ_ASSERT(len > 0);
    game_move back;
    FUZZ_ASSERT(vt->parse_move(&st, text, (size_t)len, &back, &err) == 0);
    FUZZ_ASSERT(game_move_eq(&back, &moves[k]));
    memcpy(&copy, &st, vt->state_size);
    FUZZ_ASSERT(vt->apply(&copy, &moves[k], &err) == 0);
    (void)vt->outcome(&copy);
  }
  return 0;
}
