/* test_gomony_naive.c - a deliberately naive second Gomony move generator,
 * written from the spec's wording and sharing nothing with the module: an
 * 8x8 array of column strings ("bWw" = top first), every from/to square pair
 * tried for steps, every landing square tried for each jump. It must agree
 * with the module (same canonical move strings, same resulting positions) on
 * every position reachable to depth 3 from the start and from mid-game
 * positions, and on every position of random games, under several options. */
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "test.h"

static const game_vtable *vt;

typedef struct nv_board {
  char col[8][8][26]; /* [file][rank], top first, "" = empty */
  int side;           /* 0 white, 1 black */
  int quiet, since;   /* counters as in the position text */
} nv_board;

typedef struct nv_opts {
  int no_reverse, max_capture, promote_on_release;
} nv_opts;

typedef struct nv_move {
  char text[128];
  nv_board after;
} nv_move;

#define NV_MAX 4096
static nv_move nv_list[NV_MAX];
static int nv_n;

static int nv_colour(char c) { return (c == 'w' || c == 'W') ? 0 : 1; }
static int nv_promoted(char c) { return c == 'W' || c == 'B'; }
static char nv_promote(char c) { return c == 'w' ? 'W' : c == 'b' ? 'B' : c; }
/* "Forward" is towards rank 8 for White, rank 1 for Black. */
static int nv_forward(int side) { return side == 0 ? 1 : -1; }
static int nv_far_rank(int side) { return side == 0 ? 7 : 0; }

/* May a column topped by c move/jump by dr ranks? */
static int nv_dir_ok(char c, int dr) {
  return nv_promoted(c) || dr == nv_forward(nv_colour(c));
}

static void nv_add(const nv_board *after, const char *text) {
  if (nv_n >= NV_MAX) {
    CHECK_MSG(0, "naive list overflow");
    return;
  }
  snprintf(nv_list[nv_n].text, sizeof nv_list[nv_n].text, "%s", text);
  nv_list[nv_n].after = *after;
  nv_n++;
}

static void nv_sqname(int f, int r, char *out) {
  out[0] = (char)('a' + f);
  out[1] = (char)('1' + r);
  out[2] = '\0';
}

/* Finish a move: counters, side. */
static void nv_finish(nv_board *b, int jumped, int promoted) {
  b->quiet = (jumped || promoted) ? 0 : b->quiet + 1;
  b->since = promoted ? 0 : b->since + 1;
  b->side ^= 1;
}

/* The jumping column stands on (f,r) in b (already updated). */
static void nv_jump_rec(const nv_board *b, const nv_opts *o, int f, int r,
                        char *text, int jumps, const int *jumped_f,
                        const int *jumped_r, int promoted_release) {
  int found = 0;
  const char *me = b->col[f][r];
  for (int tf = 0; tf < 8; tf++)
    for (int tr = 0; tr < 8; tr++) {
      int df = tf - f, dr = tr - r;
      if ((df != 2 && df != -2) || (dr != 2 && dr != -2)) continue;
      if (!nv_dir_ok(me[0], dr / 2)) continue;
      int mf = f + df / 2, mr = r + dr / 2;
      const char *mid = b->col[mf][mr];
      if (mid[0] == '\0' || nv_colour(mid[0]) == b->side) continue;
      if (b->col[tf][tr][0] != '\0') continue;
      /* Rule 7. */
      int bad = 0;
      if (o->no_reverse) {
        if (jumps > 0 && jumped_f[jumps - 1] == mf && jumped_r[jumps - 1] == mr)
          bad = 1;
      } else {
        for (int k = 0; k < jumps; k++)
          if (jumped_f[k] == mf && jumped_r[k] == mr) bad = 1;
      }
      if (bad) continue;
      found = 1;
      nv_board nb = *b;
      /* Only the top of the jumped column is taken, to the very bottom. */
      char taken = nb.col[mf][mr][0];
      memmove(nb.col[mf][mr], nb.col[mf][mr] + 1, strlen(nb.col[mf][mr]));
      int rel = 0;
      char *rest = nb.col[mf][mr];
      if (o->promote_on_release && rest[0] && !nv_promoted(rest[0]) &&
          mr == nv_far_rank(nv_colour(rest[0]))) {
        rest[0] = nv_promote(rest[0]);
        rel = 1;
      }
      char moving[26];
      snprintf(moving, sizeof moving, "%s%c", b->col[f][r], taken);
      nb.col[f][r][0] = '\0';
      strcpy(nb.col[tf][tr], moving);
      char t2[128], sq[3];
      nv_sqname(tf, tr, sq);
      snprintf(t2, sizeof t2, "%sx%s", text, sq);
      int jf[16], jr[16];
      for (int k = 0; k < jumps; k++) {
        jf[k] = jumped_f[k];
        jr[k] = jumped_r[k];
      }
      jf[jumps] = mf;
      jr[jumps] = mr;
      /* Promotion ends the move. */
      if (!nv_promoted(moving[0]) && tr == nv_far_rank(b->side)) {
        nb.col[tf][tr][0] = nv_promote(moving[0]);
        strcat(t2, "=P");
        nv_finish(&nb, 1, 1);
        nv_add(&nb, t2);
      } else {
        nv_jump_rec(&nb, o, tf, tr, t2, jumps + 1, jf, jr,
                    promoted_release | rel);
      }
    }
  if (!found && jumps > 0) {
    nv_board nb = *b;
    nv_finish(&nb, 1, promoted_release);
    nv_add(&nb, text);
  }
}

static void nv_generate(const nv_board *b, const nv_opts *o) {
  nv_n = 0;
  int owns = 0;
  for (int f = 0; f < 8; f++)
    for (int r = 0; r < 8; r++)
      if (b->col[f][r][0] && nv_colour(b->col[f][r][0]) == b->side) owns = 1;
  if (!owns || b->quiet >= 100) return; /* buried, or quiet_plies=100 */
  /* Jumps from every column of the side to move. */
  for (int f = 0; f < 8; f++)
    for (int r = 0; r < 8; r++) {
      const char *c = b->col[f][r];
      if (!c[0] || nv_colour(c[0]) != b->side) continue;
      char text[128];
      nv_sqname(f, r, text);
      nv_jump_rec(b, o, f, r, text, 0, NULL, NULL, 0);
    }
  if (nv_n > 0) {
    if (o->max_capture) {
      size_t best = 0;
      for (int i = 0; i < nv_n; i++) {
        size_t x = 0;
        for (const char *p = nv_list[i].text; *p; p++) x += *p == 'x';
        if (x > best) best = x;
      }
      int k = 0;
      for (int i = 0; i < nv_n; i++) {
        size_t x = 0;
        for (const char *p = nv_list[i].text; *p; p++) x += *p == 'x';
        if (x == best) nv_list[k++] = nv_list[i];
      }
      nv_n = k;
    }
    return; /* jumping is compulsory */
  }
  /* Steps: every from/to pair. */
  for (int f = 0; f < 8; f++)
    for (int r = 0; r < 8; r++)
      for (int tf = 0; tf < 8; tf++)
        for (int tr = 0; tr < 8; tr++) {
          const char *c = b->col[f][r];
          if (!c[0] || nv_colour(c[0]) != b->side) continue;
          if (abs(tf - f) != 1 || abs(tr - r) != 1) continue;
          if (!nv_dir_ok(c[0], tr - r)) continue;
          if (b->col[tf][tr][0]) continue;
          nv_board nb = *b;
          strcpy(nb.col[tf][tr], c);
          nb.col[f][r][0] = '\0';
          char text[16], s1[3], s2[3];
          nv_sqname(f, r, s1);
          nv_sqname(tf, tr, s2);
          snprintf(text, sizeof text, "%s-%s", s1, s2);
          int prom = 0;
          if (!nv_promoted(c[0]) && tr == nv_far_rank(b->side)) {
            nb.col[tf][tr][0] = nv_promote(c[0]);
            strcat(text, "=P");
            prom = 1;
          }
          nv_finish(&nb, 0, prom);
          nv_add(&nb, text);
        }
}

/* The naive board in the position format of docs/positions/gomony.md. */
static void nv_format(const nv_board *b, char *out, size_t cap) {
  size_t len = 0;
  for (int r = 7; r >= 0; r--) {
    int e = 0;
    for (int f = 0; f < 8; f++) {
      const char *c = b->col[f][r];
      if (!c[0]) {
        e++;
        continue;
      }
      if (e) len += (size_t)snprintf(out + len, cap - len, "%d", e);
      e = 0;
      if (strlen(c) == 1) len += (size_t)snprintf(out + len, cap - len, "%s", c);
      else len += (size_t)snprintf(out + len, cap - len, "(%s)", c);
    }
    if (e) len += (size_t)snprintf(out + len, cap - len, "%d", e);
    if (r) len += (size_t)snprintf(out + len, cap - len, "/");
  }
  snprintf(out + len, cap - len, " %c %d %d", b->side ? 'b' : 'w', b->quiet,
           b->since);
}

/* The naive board from the module's JSON view and position counters. */
static void nv_from_module(const game_state *st, nv_board *b) {
  memset(b, 0, sizeof *b);
  json_t *v = vt->to_json(st, GAME_VIEW_ALL);
  const char *key;
  json_t *val;
  json_object_foreach(json_object_get(v, "board"), key, val) {
    snprintf(b->col[key[0] - 'a'][key[1] - '1'], 26, "%s", json_string_value(val));
  }
  json_decref(v);
  char pos[GAME_POSITION_MAX];
  vt->to_position(st, pos, sizeof pos);
  char sidec = 'w';
  sscanf(strchr(pos, ' '), " %c %d %d", &sidec, &b->quiet, &b->since);
  b->side = sidec == 'b';
}

static int cmp_nv(const void *a, const void *b) {
  return strcmp(((const nv_move *)a)->text, ((const nv_move *)b)->text);
}

typedef struct mod_move {
  char text[GAME_MOVE_TEXT_MAX];
  char after[GAME_POSITION_MAX];
} mod_move;
static int cmp_mod(const void *a, const void *b) {
  return strcmp(((const mod_move *)a)->text, ((const mod_move *)b)->text);
}

static unsigned long compared;

/* Compare both generators on st; if depth > 0, recurse into the children. */
static void compare(const game_state *st, const nv_opts *o, int depth) {
  static mod_move mm[GAME_MAX_MOVES];
  game_move mv[GAME_MAX_MOVES];
  size_t n = 0;
  CHECK_INT(vt->legal_moves(st, mv, GAME_MAX_MOVES, &n), 0);
  nv_board b;
  nv_from_module(st, &b);
  nv_generate(&b, o);
  compared++;
  char here[GAME_POSITION_MAX];
  vt->to_position(st, here, sizeof here);
  if ((int)n != nv_n) {
    CHECK_MSG(0, "%s: module %zu moves, naive %d", here, n, nv_n);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    game_state c = *st;
    vt->format_move(st, &mv[i], mm[i].text, GAME_MOVE_TEXT_MAX);
    vt->apply(&c, &mv[i], NULL);
    vt->to_position(&c, mm[i].after, GAME_POSITION_MAX);
  }
  qsort(mm, n, sizeof *mm, cmp_mod);
  qsort(nv_list, (size_t)nv_n, sizeof *nv_list, cmp_nv);
  /* nv_list is overwritten by the recursion: snapshot what we need. */
  int ok = 1;
  for (size_t i = 0; i < n; i++) {
    char want[GAME_POSITION_MAX];
    nv_format(&nv_list[i].after, want, sizeof want);
    if (strcmp(mm[i].text, nv_list[i].text) != 0 || strcmp(mm[i].after, want) != 0) {
      CHECK_MSG(0, "%s: module %s -> %s, naive %s -> %s", here, mm[i].text,
                mm[i].after, nv_list[i].text, want);
      ok = 0;
      break;
    }
  }
  CHECK(ok);
  if (!ok || depth == 0) return;
  for (size_t i = 0; i < n; i++) {
    game_state c = *st;
    vt->apply(&c, &mv[i], NULL);
    compare(&c, o, depth - 1);
  }
}

static void load(game_state *st, const char *opts, const char *pos) {
  game_setup su;
  agon_err err;
  game_setup_init(&su, vt);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", opts ? opts : "");
  for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
    CHECK_INT(game_setup_set_kv(&su, tok, &err), 0);
  int rc = pos ? vt->from_position(st, &su, pos, strlen(pos), &err)
               : vt->init(st, &su, 0, &err);
  CHECK_MSG(rc == 0, "load %s: %s", pos ? pos : "start", err.msg);
}

static nv_opts opts_of(const char *opts) {
  nv_opts o = {0, 0, 0};
  if (opts && strstr(opts, "rule7=no_reverse")) o.no_reverse = 1;
  if (opts && strstr(opts, "max_capture=yes")) o.max_capture = 1;
  if (opts && strstr(opts, "promote_on_release=yes")) o.promote_on_release = 1;
  return o;
}

static const char *const option_sets[] = {
    "",
    "rule7=no_reverse",
    "max_capture=yes",
    "rule7=no_reverse max_capture=yes promote_on_release=yes",
};
#define N_OPTION_SETS (sizeof option_sets / sizeof *option_sets)

/* Mid-game positions: tall mixed columns, promoted markers (also buried),
 * multi-jump trees and loops, pieces on the edges, promotions pending. */
static const char *const midgame[] = {
    /* Positions reached by `agon-rules random gomony --seed S` after K plies
     * (S/K in the comments), then one hand-made loop position. */
    "1b1(Wbb)1b2/b5(wb)1/3(wb)1(bw)1(wbb)/b7/8/w1(wb)5/1w1w1w2/w5w1 w 0 17", /* 8/30 */
    "7(Wb)/(Wbb)7/1(wb)5(wbb)/6(wb)1/1(BWw)1w1(Wbbbb)2/6(ww)1/8/6w1 w 7 7", /* 8/70 */
    "1(Wbbb)1b4/4b1(Bb)1/3b4/8/3(bw)1(wb)2/(Bwwww)5(ww)1/5(bwww)2/8 w 1 1", /* 13/50 */
    "7b/4(Wb)1(bB)1/1b5(bw)/4w3/8/4w1(BwwwW)1/1(bw)3(bb)1(Bw)/2(Bww)5 w 0 4", /* 5/70 */
    "3(Wbbb)4/2b1b1(wb)1/1b1(bW)3(wbb)/b7/7(wb)/w5(ww)1/1w1w4/w5w1 b 0 2", /* 8/41 */
    "8/b3(wBb)3/8/2w3(wb)1/1(Wwwbbbb)6/(wb)7/1(ww)1(BWw)4/w5(Bb)1 b 3 3", /* 34/61 */
    /* Two promoted White columns among single and double Black ones: long
     * loops, paths that differ only in order, edge landings. */
    "3b4/b7/1b1b4/8/1b1(bb)1b2/2W3W1/3b1b2/8 w 0 0",
    /* GM-6 with d4 = bw: the first jump releases d4 to White, so even
     * rule7=no_reverse cannot jump it again. */
    "8/b7/8/8/3(bw)1b2/2W5/3b1b2/8 w 0 0",
};

static void test_trees(void) {
  for (size_t k = 0; k < N_OPTION_SETS; k++) {
    nv_opts o = opts_of(option_sets[k]);
    game_state st;
    load(&st, option_sets[k], NULL);
    compare(&st, &o, 3);
    for (size_t i = 0; i < sizeof midgame / sizeof *midgame; i++) {
      load(&st, option_sets[k], midgame[i]);
      compare(&st, &o, 3);
    }
  }
}

/* Every position of random games (more varied than short trees). */
static void test_random(void) {
  static game_move mv[GAME_MAX_MOVES];
  for (size_t k = 0; k < N_OPTION_SETS; k++) {
    nv_opts o = opts_of(option_sets[k]);
    for (int g = 0; g < 60; g++) {
      game_state st;
      game_rng r;
      game_rng_init(&r, 1000u + (uint64_t)g);
      load(&st, option_sets[k], NULL);
      for (int ply = 0; ply < 400; ply++) {
        size_t n = 0;
        vt->legal_moves(&st, mv, GAME_MAX_MOVES, &n);
        compare(&st, &o, 0);
        if (n == 0) break;
        vt->apply(&st, &mv[game_rng_below(&r, (uint32_t)n)], NULL);
      }
    }
  }
}

int main(void) {
  vt = game_find("gomony");
  CHECK(vt != NULL);
  if (vt == NULL) return test_summary();
  test_trees();
  test_random();
  printf("%lu positions compared\n", compared);
  return test_summary();
}
