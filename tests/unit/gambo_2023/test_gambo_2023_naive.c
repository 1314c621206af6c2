/* test_gambo_2023_naive.c - a deliberately naive second implementation of
 * the gambo-2023 rules, written from the spec's wording and sharing no code
 * with common/games/gambo_2023.c: it reads the documented position text,
 * tries EVERY syntactically possible action ("advance x" for each column,
 * "permute x y" and "duel x y" for each pair, "pass", "choose ..."), keeps
 * the legal ones, and writes the resulting position text itself.
 *
 * The test walks every position reachable to depth 3 from the start and
 * from mid-game positions (spec positions, random-game positions with duels
 * played, forced passes, permutation restrictions, end of game) and checks
 * that the module agrees on the move set AND on every resulting position. */
#include "g23_test_util.h"

/* ---- the naive model --------------------------------------------------- */

typedef struct nv {
  char piece[2][9][3]; /* "M2" or "" (no piece) per side and column */
  int online[2][9];    /* 1 when that piece is on the line */
  int tm;              /* 0 south, 1 north, 2 chooser, 3 over */
  int last_winner;     /* when over */
  int score[2];
  int run[2];          /* own permutations in a row */
  int lastperm;        /* most recent action was a permutation */
  int quiet;           /* plies since the last choose/advance/duel */
  int duels;           /* derived from the pieces */
} nv;

/* Line square (1..18) that column x (0-based) of side s faces: South's
 * column x faces L(2x-1), North's L(2x), with x counted from 1. */
static int nv_square(int s, int x) { return s == 0 ? 2 * (x + 1) - 1 : 2 * (x + 1); }

/* Who stands on line square L (1..18): side or -1, column in *col. */
static int nv_on_square(const nv *p, int L, int *col) {
  for (int s = 0; s < 2; s++)
    for (int x = 0; x < 9; x++)
      if (p->piece[s][x][0] && p->online[s][x] && nv_square(s, x) == L) {
        *col = x;
        return s;
      }
  return -1;
}

static int nv_parse(const char *str, nv *p) {
  memset(p, 0, sizeof *p);
  const char *s = str;
  for (int side = 0; side < 2; side++) {
    for (int x = 0; x < 9; x++) {
      if (*s == '-') {
        s++;
        continue;
      }
      char sp = s[0], st = s[1];
      p->online[side][x] = (sp >= 'a' && sp <= 'z');
      p->piece[side][x][0] = (char)(sp >= 'a' ? sp - 32 : sp);
      p->piece[side][x][1] = st;
      s += 2;
    }
    if (side == 0) {
      if (*s != '/') return -1;
      s++;
    }
  }
  char tm[4];
  int n = 0;
  char perm[4];
  if (sscanf(s, " %3s %d-%d %3s %d%n", tm, &p->score[0], &p->score[1], perm,
             &p->quiet, &n) != 5)
    return -1;
  if (strcmp(tm, "s") == 0) p->tm = 0;
  else if (strcmp(tm, "n") == 0) p->tm = 1;
  else if (strcmp(tm, "c") == 0) p->tm = 2;
  else {
    p->tm = 3;
    p->last_winner = tm[1] == 'n';
  }
  p->run[0] = perm[0] - '0';
  p->run[1] = perm[1] - '0';
  p->lastperm = perm[2] == 'p';
  int left = 0;
  for (int x = 0; x < 9; x++) left += p->piece[0][x][0] != 0;
  p->duels = 9 - left;
  return 0;
}

static void nv_format(const nv *p, char *out, size_t cap) {
  size_t k = 0;
  for (int side = 0; side < 2; side++) {
    if (side) out[k++] = '/';
    for (int x = 0; x < 9; x++) {
      if (!p->piece[side][x][0]) {
        out[k++] = '-';
        continue;
      }
      char sp = p->piece[side][x][0];
      out[k++] = p->online[side][x] ? (char)(sp + 32) : sp;
      out[k++] = p->piece[side][x][1];
    }
  }
  const char *tm = p->tm == 0   ? "s"
                   : p->tm == 1 ? "n"
                   : p->tm == 2 ? "c"
                   : p->last_winner ? "-n" : "-s";
  snprintf(out + k, cap - k, " %s %d-%d %d%d%c %d", tm, p->score[0],
           p->score[1], p->run[0], p->run[1], p->lastperm ? 'p' : '-',
           p->quiet);
}

/* Spec 1.2: Elephant beats Cat, Cat beats Mouse, Mouse beats Elephant; same
 * species: higher strength; same piece: the attacker. */
static int nv_attacker_wins(const char *a, const char *d) {
  if (a[0] == d[0]) return a[1] >= d[1];
  return (a[0] == 'E' && d[0] == 'C') || (a[0] == 'C' && d[0] == 'M') ||
         (a[0] == 'M' && d[0] == 'E');
}

/* Legality of one candidate action, straight from spec 2.1 / 2.3. */
static int nv_legal_nopass(const nv *p, int kind, int x, int y);

enum { NV_ADV, NV_PERM, NV_DUEL, NV_PASS, NV_CHOOSE };

static int nv_any_other(const nv *p) {
  for (int x = 0; x < 9; x++) {
    if (nv_legal_nopass(p, NV_ADV, x, 0)) return 1;
    for (int y = 0; y < 9; y++)
      if (nv_legal_nopass(p, NV_PERM, x, y) || nv_legal_nopass(p, NV_DUEL, x, y))
        return 1;
  }
  return 0;
}

static int nv_legal_nopass(const nv *p, int kind, int x, int y) {
  int me = p->tm, op = 1 - p->tm;
  switch (kind) {
    case NV_ADV: {
      if (!p->piece[me][x][0] || p->online[me][x]) return 0;
      int c;
      return nv_on_square(p, nv_square(me, x), &c) < 0;
    }
    case NV_PERM:
      if (x >= y) return 0; /* canonical order: columns alphabetical */
      if (!p->piece[me][x][0] || !p->piece[me][y][0]) return 0;
      /* rule 1: the most recent action was the opponent's permutation (a
       * permutation always hands the move over, so any permutation just
       * played is the opponent's) */
      if (p->lastperm) return 0;
      /* rule 2: my two most recent actions were both permutations */
      if (p->run[me] >= 2) return 0;
      return 1;
    case NV_DUEL: {
      if (!p->piece[me][x][0] || !p->online[me][x]) return 0;
      if (!p->piece[op][y][0] || !p->online[op][y]) return 0;
      int a = nv_square(me, x), b = nv_square(op, y);
      int lo = a < b ? a : b, hi = a < b ? b : a;
      for (int L = lo + 1; L < hi; L++) {
        int c;
        if (nv_on_square(p, L, &c) >= 0) return 0;
      }
      return 1;
    }
    default:
      return 0;
  }
}

/* Next player per spec 2.2 (both turn orders). */
static int nv_next(const nv *after, int P, int kind, int alternate,
                   int duel_happened_before_or_now) {
  int O = 1 - P;
  if (kind == NV_PERM || kind == NV_PASS) return O;
  if (!alternate) {
    if (kind == NV_ADV && !duel_happened_before_or_now) return O;
  } else {
    if (kind == NV_ADV) return O;
  }
  if (after->score[P] < after->score[O]) return P;
  if (after->score[P] > after->score[O]) return O;
  return P;
}

static void nv_apply(const nv *p, int kind, int x, int y, int alternate,
                     nv *q) {
  *q = *p;
  int P = p->tm, O = 1 - P;
  switch (kind) {
    case NV_CHOOSE:
      /* the chooser takes side x; the other player moves first */
      q->tm = 1 - x;
      q->quiet = 0;
      return;
    case NV_ADV:
      q->online[P][x] = 1;
      q->run[P] = 0;
      q->lastperm = 0;
      q->quiet = 0;
      q->tm = nv_next(q, P, kind, alternate, p->duels > 0);
      return;
    case NV_PERM: {
      /* exchange the squares: column x's piece goes where column y's piece
       * stands (home y or line y) and back. */
      char t[3];
      memcpy(t, q->piece[P][x], 3);
      memcpy(q->piece[P][x], q->piece[P][y], 3);
      memcpy(q->piece[P][y], t, 3);
      /* the square kinds stay with the columns: online[] is unchanged */
      q->run[P]++;
      q->lastperm = 1;
      q->quiet++;
      q->tm = O;
      return;
    }
    case NV_DUEL: {
      const char *a = p->piece[P][x], *d = p->piece[O][y];
      int w = nv_attacker_wins(a, d) ? P : O;
      q->score[w] += (a[1] - '0') * (d[1] - '0');
      memset(q->piece[P][x], 0, 3);
      memset(q->piece[O][y], 0, 3);
      q->online[P][x] = q->online[O][y] = 0;
      q->duels++;
      q->run[P] = 0;
      q->lastperm = 0;
      q->quiet = 0;
      int left = 0;
      for (int c = 0; c < 9; c++) left += q->piece[0][c][0] != 0;
      if (left == 0) {
        q->score[w] += 4;
        q->tm = 3;
        q->last_winner = w;
        return;
      }
      q->tm = nv_next(q, P, kind, alternate, 1);
      return;
    }
    case NV_PASS:
      q->run[P] = 0;
      q->lastperm = 0;
      q->quiet++;
      q->tm = O;
      return;
  }
}

/* Every legal action of p: text and resulting position. */
typedef struct nv_move {
  char text[32];
  char result[GAME_POSITION_MAX];
} nv_move;

static int nv_move_cmp(const void *a, const void *b) {
  return strcmp(((const nv_move *)a)->text, ((const nv_move *)b)->text);
}

static size_t nv_legal(const nv *p, int alternate, nv_move *out) {
  size_t n = 0;
  nv q;
  if (p->tm == 3) return 0;
  if (p->tm == 2) {
    for (int s = 0; s < 2; s++) {
      snprintf(out[n].text, sizeof out[n].text, "choose %s", s ? "north" : "south");
      nv_apply(p, NV_CHOOSE, s, 0, alternate, &q);
      nv_format(&q, out[n].result, sizeof out[n].result);
      n++;
    }
    qsort(out, n, sizeof *out, nv_move_cmp);
    return n;
  }
  for (int x = 0; x < 9; x++) {
    if (nv_legal_nopass(p, NV_ADV, x, 0)) {
      snprintf(out[n].text, sizeof out[n].text, "advance %c", 'a' + x);
      nv_apply(p, NV_ADV, x, 0, alternate, &q);
      nv_format(&q, out[n].result, sizeof out[n].result);
      n++;
    }
    for (int y = 0; y < 9; y++) {
      static const int kinds[2] = {NV_PERM, NV_DUEL};
      static const char *const words[2] = {"permute", "duel"};
      for (int k = 0; k < 2; k++) {
        if (!nv_legal_nopass(p, kinds[k], x, y)) continue;
        snprintf(out[n].text, sizeof out[n].text, "%s %c %c", words[k], 'a' + x,
                 'a' + y);
        nv_apply(p, kinds[k], x, y, alternate, &q);
        nv_format(&q, out[n].result, sizeof out[n].result);
        n++;
      }
    }
  }
  if (!nv_any_other(p)) {
    snprintf(out[n].text, sizeof out[n].text, "pass");
    nv_apply(p, NV_PASS, 0, 0, alternate, &q);
    nv_format(&q, out[n].result, sizeof out[n].result);
    n++;
  }
  qsort(out, n, sizeof *out, nv_move_cmp);
  return n;
}

/* ---- comparison walk --------------------------------------------------- */

typedef struct mod_move {
  char text[GAME_MOVE_TEXT_MAX];
  char result[GAME_POSITION_MAX];
} mod_move;

static unsigned long positions_checked, mismatches;
/* Special cases the walk must have met, so the comparison covers them. */
static unsigned long seen_pass, seen_over, seen_duel, seen_perm_blocked;

static void walk(const game_vtable *vt, const game_state *st, int alternate,
                 int depth) {
  char pos[GAME_POSITION_MAX];
  vt->to_position(st, pos, sizeof pos);
  nv p;
  if (nv_parse(pos, &p) < 0) {
    mismatches++;
    TEST_FAIL_("naive parser rejects '%s'", pos);
    return;
  }
  char back[GAME_POSITION_MAX];
  nv_format(&p, back, sizeof back);
  if (strcmp(back, pos) != 0) {
    mismatches++;
    TEST_FAIL_("naive round trip '%s' -> '%s'", pos, back);
  }
  nv_move nmv[128];
  size_t nn = nv_legal(&p, alternate, nmv);

  game_move mv[GAME_MAX_MOVES];
  static mod_move mm[8][128]; /* one buffer per depth level */
  mod_move *m = mm[depth];
  size_t n = 0;
  vt->legal_moves(st, mv, GAME_MAX_MOVES, &n);
  game_state child[128];
  for (size_t i = 0; i < n && i < 128; i++) {
    vt->format_move(st, &mv[i], m[i].text, sizeof m[i].text);
    memcpy(&child[i], st, sizeof *st);
    vt->apply(&child[i], &mv[i], NULL);
    vt->to_position(&child[i], m[i].result, sizeof m[i].result);
  }
  /* keep child states aligned with the sorted texts */
  size_t order[128];
  for (size_t i = 0; i < n; i++) order[i] = i;
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && strcmp(m[order[j - 1]].text, m[order[j]].text) > 0; j--) {
      size_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  positions_checked++;
  if (nn == 1 && strcmp(nmv[0].text, "pass") == 0) seen_pass++;
  if (p.tm == 3) seen_over++;
  if (p.tm < 2 && (p.lastperm || p.run[p.tm] >= 2)) seen_perm_blocked++;
  for (size_t i = 0; i < nn; i++)
    if (strncmp(nmv[i].text, "duel", 4) == 0) {
      seen_duel++;
      break;
    }
  int bad = n != nn;
  for (size_t i = 0; !bad && i < n; i++) {
    const mod_move *a = &m[order[i]];
    if (strcmp(a->text, nmv[i].text) != 0 || strcmp(a->result, nmv[i].result) != 0)
      bad = 1;
  }
  if (bad) {
    mismatches++;
    if (mismatches < 5) {
      TEST_FAIL_("generators disagree at '%s' (module %zu, naive %zu)", pos, n, nn);
      for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  module: %s -> %s\n", m[order[i]].text, m[order[i]].result);
      for (size_t i = 0; i < nn; i++)
        fprintf(stderr, "  naive : %s -> %s\n", nmv[i].text, nmv[i].result);
    }
    return;
  }
  if (depth == 0) return;
  for (size_t i = 0; i < n; i++) walk(vt, &child[i], alternate, depth - 1);
}

static void walk_from(const char *opt, const char *pos, const char *moves,
                      int depth) {
  const game_vtable *vt = g23t_vt();
  game_setup su;
  g23t_setup(&su, opt);
  static uint64_t hist[4096];
  game_match m;
  agon_err err;
  int rc = pos ? game_match_init_position(&m, &su, pos, strlen(pos), hist, 4096, &err)
               : game_match_init(&m, &su, 0, hist, 4096, &err);
  CHECK_MSG(rc == 0, "start '%s': %s", pos ? pos : "(L0)", err.msg);
  if (rc < 0) return;
  if (moves) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", moves);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
      rc = game_match_play(&m, t, strlen(t), NULL, &err);
      CHECK_MSG(rc == 0, "move '%s': %s", t, err.msg);
      if (rc < 0) return;
    }
  }
  int alternate = opt && strstr(opt, "alternate") != NULL;
  unsigned long before = positions_checked, bad_before = mismatches;
  walk(vt, &m.st, alternate, depth);
  CHECK_MSG(mismatches == bad_before, "naive disagreement from %s",
            pos ? pos : "L0");
  printf("naive: %lu positions from %s%s%s\n", positions_checked - before,
         pos ? pos : "L0", moves ? " after " : "", moves ? moves : "");
}

/* Positions from a seeded random game after `plies` moves, played by the
 * module (the walk then checks them with the naive generator). */
static void random_game_positions(const char *opt, uint64_t seed, int depth) {
  const game_vtable *vt = g23t_vt();
  game_setup su;
  game_setup_init(&su, vt);
  agon_err err;
  if (opt) game_setup_set_kv(&su, opt, &err);
  game_state st;
  vt->init(&st, &su, seed, &err);
  game_rng r;
  game_rng_init(&r, seed * 7 + 1);
  int alternate = opt && strstr(opt, "alternate") != NULL;
  for (int ply = 0; vt->to_move(&st) != GAME_NOBODY && ply < 400; ply++) {
    game_move mv[GAME_MAX_MOVES];
    size_t n = 0;
    vt->legal_moves(&st, mv, GAME_MAX_MOVES, &n);
    if (ply % 9 == 5) {
      unsigned long bad_before = mismatches;
      walk(vt, &st, alternate, depth);
      if (mismatches != bad_before) {
        TEST_FAIL_("naive disagreement in random game %" PRIu64 " ply %d", seed, ply);
        return;
      }
    }
    /* Prefer duels half of the time so games reach their end. */
    size_t pick = game_rng_below(&r, (uint32_t)n);
    if (game_rng_below(&r, 2))
      for (size_t i = 0; i < n; i++)
        if (mv[i].kind == 4) pick = i;
    vt->apply(&st, &mv[pick], NULL);
  }
  CHECK_MSG(vt->to_move(&st) == GAME_NOBODY, "random game %" PRIu64 " ended", seed);
  unsigned long bad_before = mismatches;
  walk(vt, &st, alternate, 0); /* the final position: no moves */
  CHECK(mismatches == bad_before);
}

int main(void) {
  /* From the chooser phase and from L0 after `choose north` (South first). */
  walk_from(NULL, NULL, NULL, 3);
  walk_from(NULL, NULL, "choose north", 3);
  walk_from(NULL, NULL, "choose south", 3);
  /* Mid-game: a duel played, the hand rule, home/line permutations. */
  walk_from(NULL, NULL, "choose north,advance e,advance e,duel e e", 3);
  walk_from("turn_order=alternate", NULL, "choose north,advance e,advance e,duel e e", 3);
  walk_from(NULL, NULL, "choose north,advance e,advance a,permute a e,advance b", 3);
  /* Spec positions: adjacency, who plays after a duel, permutation right
   * after the opponent's, the final duels and bonus, a forced pass. */
  walk_from(NULL, "E1---m3-c2--/-M1--c1e1--- s 0-0 00- 0", NULL, 3);
  walk_from(NULL, "E1---m3-c2--/-M1--c1e1--- n 0-0 00- 0", NULL, 3);
  walk_from(NULL, "--c2M1-----/--e1----M2- n 4-2 00- 0", NULL, 3);
  walk_from(NULL, "--c2M1-----/--m3----M2- n 4-2 00- 0", NULL, 4);
  walk_from(NULL, "M2E3--c1----/--M1C3e2---- n 2-6 00- 0", NULL, 3);
  walk_from("turn_order=alternate", "M2E3--c1----/--M1C3e2---- n 2-6 00- 0", NULL, 3);
  walk_from(NULL, "----m3----/----e1---- s 20-22 00- 0", NULL, 2);
  walk_from(NULL, "----c1----/--M1------ s 20-22 00- 0", NULL, 3);
  /* Pieces at both edges of the line, crowded line, runs in progress. */
  walk_from(NULL, "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 s 5-9 10- 3", NULL, 3);
  walk_from(NULL, "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 n 5-9 21p 3", NULL, 3);
  walk_from("turn_order=alternate", "m1e2c3M3-e3-C1e1/c2-m2e3M1m3E1-c3 s 12-4 02- 0", NULL, 3);
  /* Random games (both turn orders), checked every 9 plies to depth 2. */
  for (uint64_t seed = 1; seed <= 30; seed++) {
    random_game_positions(NULL, seed, 2);
    random_game_positions("turn_order=alternate", seed + 1000, 2);
  }
  printf("naive: %lu positions compared, %lu mismatches\n", positions_checked,
         mismatches);
  printf("naive: %lu forced passes, %lu finished games, %lu positions with "
         "duels, %lu with permutation blocked\n",
         seen_pass, seen_over, seen_duel, seen_perm_blocked);
  CHECK(mismatches == 0);
  CHECK(seen_pass > 0 && seen_over > 0 && seen_duel > 0 && seen_perm_blocked > 0);
  return test_summary();
}
