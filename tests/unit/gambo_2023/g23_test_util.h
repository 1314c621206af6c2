/* g23_test_util.h - helpers shared by the gambo-2023 test programs: start
 * positions, sorted legal-move lists as text, play-by-text. Only the public
 * vtable is used. */
#ifndef G23_TEST_UTIL_H
#define G23_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "test.h"

/* Layout L0 of the spec (section 1.3). */
#define G23_L0_SOUTH "M2,E3,C1,E1,M3,C2,M1,C3,E2"
#define G23_L0_NORTH "C3,M1,E2,M3,C1,E1,C2,E3,M2"

static const game_vtable *g23t_vt(void) {
  const game_vtable *vt = game_find("gambo-2023");
  if (vt == NULL || vt->legal_moves == NULL) {
    fprintf(stderr, "gambo-2023 is not registered\n");
    exit(1);
  }
  return vt;
}

/* Setup with L0 rows and an optional extra "key=value" (NULL: none). */
static inline void g23t_setup(game_setup *su, const char *extra) {
  agon_err err;
  game_setup_init(su, g23t_vt());
  if (game_setup_set(su, "south", G23_L0_SOUTH, &err) < 0 ||
      game_setup_set(su, "north", G23_L0_NORTH, &err) < 0 ||
      (extra && game_setup_set_kv(su, extra, &err) < 0)) {
    fprintf(stderr, "setup: %s\n", err.msg);
    exit(1);
  }
}

static inline int g23t_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Legal moves of st as one string "m1|m2|..." in sorted canonical order. */
static inline void g23t_legal_str(const game_state *st, char *out, size_t cap) {
  const game_vtable *vt = g23t_vt();
  static game_move mv[GAME_MAX_MOVES];
  static char txt[GAME_MAX_MOVES][GAME_MOVE_TEXT_MAX];
  static const char *ptr[GAME_MAX_MOVES];
  size_t n = 0;
  out[0] = '\0';
  if (vt->legal_moves(st, mv, GAME_MAX_MOVES, &n) < 0) {
    snprintf(out, cap, "<error>");
    return;
  }
  for (size_t i = 0; i < n; i++) {
    vt->format_move(st, &mv[i], txt[i], GAME_MOVE_TEXT_MAX);
    ptr[i] = txt[i];
  }
  qsort(ptr, n, sizeof *ptr, g23t_cmp);
  size_t k = 0;
  for (size_t i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? "|" : "", ptr[i]);
}

/* Sort a "|"-separated list given in any order (for expected sets). */
static inline void g23t_sort_list(const char *in, char *out, size_t cap) {
  char buf[4096];
  const char *ptr[256];
  size_t n = 0;
  snprintf(buf, sizeof buf, "%s", in);
  for (char *t = strtok(buf, "|"); t && n < 256; t = strtok(NULL, "|"))
    ptr[n++] = t;
  qsort(ptr, n, sizeof *ptr, g23t_cmp);
  size_t k = 0;
  out[0] = '\0';
  for (size_t i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? "|" : "", ptr[i]);
}

#endif
