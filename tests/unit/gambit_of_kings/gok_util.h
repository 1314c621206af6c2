/* gok_util.h - helpers shared by the Gambit of Kings test programs: build
 * position strings from piece lists, and compare legal-move sets as sorted
 * canonical strings. Written against the public vtable only. */
#ifndef GOK_UTIL_H
#define GOK_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "test.h"

static inline const game_vtable *gok_vt(void) {
  const game_vtable *vt = game_find("gambit-of-kings");
  if (vt == NULL) {
    fprintf(stderr, "gambit-of-kings is not registered\n");
    exit(1);
  }
  return vt;
}

/* Position string from "Ce1 cf10 +Ka3 Le5 ..." (upper case Light, '+' marks a
 * promoted Knight), the side to move ('l'/'d') and counters. */
static inline void gok_pos(char *out, size_t cap, const char *pieces, char side,
                    unsigned quiet, unsigned rev, unsigned pl, unsigned pd) {
  char grid[10][10][3];
  memset(grid, 0, sizeof grid);
  const char *p = pieces;
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    int prom = 0;
    if (*p == '+') prom = 1, p++;
    char letter = *p++;
    int f = *p++ - 'a';
    int r = (int)strtol(p, (char **)&p, 10) - 1;
    if (f < 0 || f > 9 || r < 0 || r > 9) {
      fprintf(stderr, "bad piece list '%s'\n", pieces);
      exit(1);
    }
    grid[r][f][0] = prom ? '+' : letter;
    grid[r][f][1] = prom ? letter : '\0';
  }
  size_t k = 0;
  for (int r = 9; r >= 0; r--) {
    int run = 0;
    for (int f = 0; f < 10; f++) {
      if (!grid[r][f][0]) {
        run++;
        continue;
      }
      if (run) k += (size_t)snprintf(out + k, cap - k, "%d", run), run = 0;
      k += (size_t)snprintf(out + k, cap - k, "%s", grid[r][f]);
    }
    if (run) k += (size_t)snprintf(out + k, cap - k, "%d", run);
    if (r) out[k++] = '/';
  }
  snprintf(out + k, cap - k, " %c %u %u %u %u", side, quiet, rev, pl, pd);
}

static inline int cmp_cstr(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted, space-separated canonical moves of st, optionally only those whose
 * text starts with prefix (a from-square followed by '-' or 'x'). */
static inline void gok_moves_text(const game_vtable *vt, const game_state *st,
                           const char *from, char *out, size_t cap) {
  static game_move mv[GAME_MAX_MOVES];
  static char text[GAME_MAX_MOVES][GAME_MOVE_TEXT_MAX];
  static const char *ptr[GAME_MAX_MOVES];
  size_t n = 0, m = 0, k = 0;
  out[0] = '\0';
  if (vt->legal_moves(st, mv, GAME_MAX_MOVES, &n) < 0) {
    snprintf(out, cap, "(legal_moves failed)");
    return;
  }
  for (size_t i = 0; i < n; i++) {
    vt->format_move(st, &mv[i], text[i], GAME_MOVE_TEXT_MAX);
    if (from) {
      size_t fl = strlen(from);
      if (strncmp(text[i], from, fl) != 0 ||
          (text[i][fl] != '-' && text[i][fl] != 'x'))
        continue;
    }
    ptr[m++] = text[i];
  }
  qsort(ptr, m, sizeof *ptr, cmp_cstr);
  for (size_t i = 0; i < m; i++)
    k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? " " : "", ptr[i]);
}

/* Sort a space-separated list of moves (the spec's lists are unordered). */
static inline void gok_sorted(const char *list, char *out, size_t cap) {
  char buf[4096];
  const char *ptr[512];
  size_t m = 0, k = 0;
  snprintf(buf, sizeof buf, "%s", list);
  for (char *t = strtok(buf, " "); t && m < 512; t = strtok(NULL, " "))
    ptr[m++] = t;
  qsort(ptr, m, sizeof *ptr, cmp_cstr);
  out[0] = '\0';
  for (size_t i = 0; i < m; i++)
    k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? " " : "", ptr[i]);
}

#endif
