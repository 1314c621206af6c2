/* gwez_common.h - helpers shared by the Gwezboell test programs: positions
 * from piece lists, matches with options, sorted move lists. Only the public
 * interface (game.h) is used. */
#ifndef GWEZ_COMMON_H
#define GWEZ_COMMON_H

#include <stdlib.h>

#include "game.h"
#include "test.h"

#define GW_HIST 4096

static inline const game_vtable *gw_vt(void) {
  static const game_vtable *vt;
  if (vt == NULL) vt = game_find("gwezboell");
  return vt;
}

/* Setup from space-separated KEY=VALUE pairs (NULL or "" = defaults). */
static inline game_setup gw_setup(const char *opts) {
  game_setup s;
  game_setup_init(&s, gw_vt());
  if (opts == NULL) return s;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", opts);
  for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
    agon_err err;
    if (game_setup_set_kv(&s, tok, &err) < 0) {
      fprintf(stderr, "bad test option %s: %s\n", tok, err.msg);
      abort();
    }
  }
  return s;
}

/* Position string from a piece list such as "Kc3 Db7 ae9" (K King, D guard,
 * a attacker) and the side to move ('d' or 'a'). */
static inline void gw_pos_from_list(const char *pieces, char side, char *out,
                             size_t cap) {
  char grid[9][9];
  memset(grid, '.', sizeof grid);
  for (const char *p = pieces; *p;) {
    if (*p == ' ') {
      p++;
      continue;
    }
    grid[p[2] - '1'][p[1] - 'a'] = p[0];
    p += 3;
  }
  size_t k = 0;
  for (int r = 8; r >= 0; r--) {
    int run = 0;
    for (int f = 0; f < 9; f++) {
      if (grid[r][f] == '.') {
        run++;
        continue;
      }
      if (run) out[k++] = (char)('0' + run);
      run = 0;
      out[k++] = grid[r][f];
    }
    if (run) out[k++] = (char)('0' + run);
    if (r) out[k++] = '/';
  }
  snprintf(out + k, cap - k, " %c 0 0", side);
}

typedef struct gw_tm {
  game_match m;
  uint64_t hist[GW_HIST];
} gw_tm;

/* Match from a piece list; aborts the program on failure (test bug). */
static inline void gw_tm_list(gw_tm *t, const char *opts, const char *pieces,
                       char side) {
  char pos[GAME_POSITION_MAX];
  agon_err err;
  game_setup s = gw_setup(opts);
  gw_pos_from_list(pieces, side, pos, sizeof pos);
  if (game_match_init_position(&t->m, &s, pos, strlen(pos), t->hist, GW_HIST,
                               &err) < 0) {
    fprintf(stderr, "bad test position %s: %s\n", pos, err.msg);
    abort();
  }
  /* Every scenario position also round-trips through its text. */
  char back[GAME_POSITION_MAX];
  CHECK(gw_vt()->to_position(&t->m.st, back, sizeof back) > 0);
  CHECK_STR(back, pos);
  CHECK_INT(gw_vt()->check(&t->m.st, &err), 0);
}

static inline void gw_tm_start(gw_tm *t, const char *opts) {
  agon_err err;
  game_setup s = gw_setup(opts);
  if (game_match_init(&t->m, &s, 0, t->hist, GW_HIST, &err) < 0) abort();
}

static inline int gw_cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted canonical texts of the legal moves of st that start on square
 * `from` (NULL: all), joined with spaces into out. Returns the count. */
static inline int gw_moves_text(const game_state *st, const char *from, char *out,
                         size_t cap) {
  static game_move mv[GAME_MAX_MOVES];
  static char text[GAME_MAX_MOVES][GAME_MOVE_TEXT_MAX];
  const char *ptr[GAME_MAX_MOVES];
  size_t n = 0, k = 0;
  int cnt = 0;
  if (gw_vt()->legal_moves(st, mv, GAME_MAX_MOVES, &n) < 0) return -1;
  for (size_t i = 0; i < n; i++) {
    gw_vt()->format_move(st, &mv[i], text[i], GAME_MOVE_TEXT_MAX);
    if (from == NULL || strncmp(text[i], from, 2) == 0) ptr[cnt++] = text[i];
  }
  qsort(ptr, (size_t)cnt, sizeof *ptr, gw_cmp_str);
  out[0] = '\0';
  for (int i = 0; i < cnt; i++) {
    int w = snprintf(out + k, cap - k, "%s%s", i ? " " : "", ptr[i]);
    if (w < 0 || (size_t)w >= cap - k) return -1;
    k += (size_t)w;
  }
  return cnt;
}

/* Expected list: "from" + each target of the space-separated `targets`
 * ("d9 c9 ..."), as sorted "from-to" texts joined with spaces. */
static inline void gw_expect_text(const char *from, const char *targets, char *out,
                           size_t cap) {
  char buf[1024];
  char items[128][8];
  const char *ptr[128];
  int cnt = 0;
  size_t k = 0;
  snprintf(buf, sizeof buf, "%s", targets);
  for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
    snprintf(items[cnt], sizeof items[cnt], "%s-%s", from, tok);
    ptr[cnt] = items[cnt];
    cnt++;
  }
  qsort(ptr, (size_t)cnt, sizeof *ptr, gw_cmp_str);
  out[0] = '\0';
  for (int i = 0; i < cnt; i++)
    k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? " " : "", ptr[i]);
}

#endif
