/* test_gok_naive.c - a deliberately naive second move generator for Gambit
 * of Kings, written from the spec's wording (section 2) and sharing no code
 * with common/games/gambit_of_kings.c: it tries every (from, to) pair of
 * squares and asks "does the rule for this piece allow it?", using (x, y)
 * coordinates, explicit path lists and its own position parser/printer.
 *
 * The test walks every position reachable up to depth 3 from the start and
 * from hand-made and random mid-game positions and requires both engines to
 * agree on the set of canonical move strings, on every resulting position
 * string and on the outcome. Only after this agreement were the perft
 * numbers in tests/data/gambit_of_kings.counts frozen. */
#include <ctype.h>

#include "gok_util.h"

/* ---- the naive model ----------------------------------------------------- */

enum { CAP_PROMOTED, CAP_TOTAL, CAP_GAME, CAP_NONE };

typedef struct nv {
  char pc[10][10];            /* [x][y]: letter, 0 empty; upper = Light */
  unsigned char prom[10][10]; /* promoted Knight */
  int side;                   /* 0 light, 1 dark */
  unsigned quiet, rev, pe[2];
  /* options */
  int cap_mode, cap_n, quiet_limit;
} nv;

static int nv_owner(char c) { return isupper((unsigned char)c) ? 0 : 1; }
static char nv_kind(char c) { return (char)toupper((unsigned char)c); }

static int nv_parse(nv *p, const char *s) {
  memset(p->pc, 0, sizeof p->pc);
  memset(p->prom, 0, sizeof p->prom);
  int y = 9, x = 0;
  for (; *s && *s != ' '; s++) {
    if (*s == '/') {
      y--, x = 0;
    } else if (isdigit((unsigned char)*s)) {
      int n = *s - '0';
      if (s[1] == '0') n = 10, s++;
      x += n;
    } else if (*s == '+') {
      p->prom[x][y] = 1;
    } else {
      p->pc[x][y] = *s;
      x++;
    }
  }
  char side;
  if (sscanf(s, " %c %u %u %u %u", &side, &p->quiet, &p->rev, &p->pe[0],
             &p->pe[1]) != 5)
    return -1;
  p->side = side == 'd';
  return 0;
}

static void nv_print(const nv *p, char *out, size_t cap) {
  size_t k = 0;
  for (int y = 9; y >= 0; y--) {
    int run = 0;
    for (int x = 0; x < 10; x++) {
      if (!p->pc[x][y]) {
        run++;
        continue;
      }
      if (run) k += (size_t)snprintf(out + k, cap - k, "%d", run), run = 0;
      if (p->prom[x][y]) out[k++] = '+';
      out[k++] = p->pc[x][y];
    }
    if (run) k += (size_t)snprintf(out + k, cap - k, "%d", run);
    if (y) out[k++] = '/';
  }
  snprintf(out + k, cap - k, " %c %u %u %u %u", p->side ? 'd' : 'l', p->quiet,
           p->rev, p->pe[0], p->pe[1]);
}

static int nv_has_castle(const nv *p, int side) {
  for (int x = 0; x < 10; x++)
    for (int y = 0; y < 10; y++)
      if (p->pc[x][y] && nv_kind(p->pc[x][y]) == 'C' && nv_owner(p->pc[x][y]) == side)
        return 1;
  return 0;
}

static int nv_empty(const nv *p, int x, int y) { return !p->pc[x][y]; }

/* The destination rule shared by all pieces (spec 2.1): not a friend; a
 * lesser piece (unpromoted Soldier or Elf) never destroys a Giant. */
static int nv_dest_ok(const nv *p, int fx, int fy, int tx, int ty) {
  char me = p->pc[fx][fy], it = p->pc[tx][ty];
  if (!it) return 1;
  if (nv_owner(it) == nv_owner(me)) return 0;
  int lesser = nv_kind(me) == 'S' || nv_kind(me) == 'E';
  if (lesser && nv_kind(it) == 'T') return 0;
  return 1;
}

static int nv_sign(int v) { return (v > 0) - (v < 0); }

/* Squares strictly between two squares on one line are all empty. */
static int nv_line_clear(const nv *p, int fx, int fy, int tx, int ty) {
  int sx = nv_sign(tx - fx), sy = nv_sign(ty - fy);
  for (int x = fx + sx, y = fy + sy; x != tx || y != ty; x += sx, y += sy)
    if (!nv_empty(p, x, y)) return 0;
  return 1;
}

static int nv_is_line(int dx, int dy) {
  return dx == 0 || dy == 0 || abs(dx) == abs(dy);
}

/* Lion paths of spec 2.2.1, each listed square by square. */
static const int nv_lion_paths[20][3][2] = {
    {{0, 1}}, {{0, 1}, {1, 2}}, {{0, 1}, {1, 2}, {2, 3}}, {{0, 1}, {-1, 2}},
    {{0, 1}, {-1, 2}, {-2, 3}},
    {{1, 0}}, {{1, 0}, {2, 1}}, {{1, 0}, {2, 1}, {3, 2}}, {{1, 0}, {2, -1}},
    {{1, 0}, {2, -1}, {3, -2}},
    {{0, -1}}, {{0, -1}, {1, -2}}, {{0, -1}, {1, -2}, {2, -3}}, {{0, -1}, {-1, -2}},
    {{0, -1}, {-1, -2}, {-2, -3}},
    {{-1, 0}}, {{-1, 0}, {-2, 1}}, {{-1, 0}, {-2, 1}, {-3, 2}}, {{-1, 0}, {-2, -1}},
    {{-1, 0}, {-2, -1}, {-3, -2}},
};
static const int nv_lion_len[20] = {1, 2, 3, 2, 3, 1, 2, 3, 2, 3,
                                    1, 2, 3, 2, 3, 1, 2, 3, 2, 3};

static int nv_legal(const nv *p, int fx, int fy, int tx, int ty) {
  char me = p->pc[fx][fy];
  int dx = tx - fx, dy = ty - fy, ax = abs(dx), ay = abs(dy);
  int fwd = nv_owner(me) == 0 ? 1 : -1;
  if (!nv_dest_ok(p, fx, fy, tx, ty)) return 0;
  switch (nv_kind(me)) {
    case 'S':
      if (ax == 1 && dy == 0) return 1;
      if (dx == 0 && dy == fwd) return 1;
      if (dx == 0 && dy == 2 * fwd)
        return nv_empty(p, fx, fy + fwd) && nv_empty(p, tx, ty);
      return 0;
    case 'E':
      if (ax != ay || ax < 1 || ax > 2) return 0;
      return nv_line_clear(p, fx, fy, tx, ty);
    case 'K':
      if (!nv_is_line(dx, dy) || ax > 3 || ay > 3) return 0;
      return nv_line_clear(p, fx, fy, tx, ty);
    case 'L':
      for (int i = 0; i < 20; i++) {
        int n = nv_lion_len[i];
        if (nv_lion_paths[i][n - 1][0] != dx || nv_lion_paths[i][n - 1][1] != dy)
          continue;
        for (int k = 0; k + 1 < n; k++)
          if (!nv_empty(p, fx + nv_lion_paths[i][k][0], fy + nv_lion_paths[i][k][1]))
            return 0;
        return 1;
      }
      return 0;
    case 'G': {
      if ((dx == 0) == (dy == 0) || ax > 3 || ay > 3) return 0;
      int sx = nv_sign(dx), sy = nv_sign(dy);
      for (int x = fx + sx, y = fy + sy; x != tx || y != ty; x += sx, y += sy)
        if (p->pc[x][y] && nv_kind(p->pc[x][y]) == 'T') return 0;
      return 1;
    }
    case 'T': {
      if (!nv_is_line(dx, dy) || ax > 3 || ay > 3) return 0;
      if (nv_sign(dy) == -fwd) return 0; /* never backward */
      return nv_line_clear(p, fx, fy, tx, ty);
    }
    case 'P':
      if (!nv_is_line(dx, dy)) return 0;
      return nv_line_clear(p, fx, fy, tx, ty);
    default:
      return 0; /* Castle */
  }
}

static int nv_promotes(const nv *p, int fx, int fy, int tx, int ty) {
  char me = p->pc[fx][fy], it = p->pc[tx][ty];
  if (nv_kind(me) != 'S') return 0;
  int side = nv_owner(me);
  int trig = ty == (side ? 0 : 9) ||
             (it && nv_kind(it) != 'S' && nv_kind(it) != 'E');
  if (!trig) return 0;
  int prom = 0, knights = 0;
  for (int x = 0; x < 10; x++)
    for (int y = 0; y < 10; y++)
      if (p->pc[x][y] && nv_owner(p->pc[x][y]) == side && nv_kind(p->pc[x][y]) == 'K') {
        knights++;
        prom += p->prom[x][y];
      }
  switch (p->cap_mode) {
    case CAP_PROMOTED: return prom < p->cap_n;
    case CAP_TOTAL: return knights < 2 + p->cap_n;
    case CAP_GAME: return (int)p->pe[side] < p->cap_n;
    default: return 1;
  }
}

static int nv_over(const nv *p) {
  return !nv_has_castle(p, 0) || !nv_has_castle(p, 1) ||
         (p->quiet_limit && (int)p->quiet >= p->quiet_limit);
}

typedef struct nv_move {
  int fx, fy, tx, ty;
  char text[32];
} nv_move;

static size_t nv_gen(const nv *p, nv_move *out) {
  size_t n = 0;
  if (nv_over(p)) return 0;
  for (int fx = 0; fx < 10; fx++)
    for (int fy = 0; fy < 10; fy++) {
      char me = p->pc[fx][fy];
      if (!me || nv_owner(me) != p->side) continue;
      /* Only the Paladin moves farther than 3 squares (spec 2.2): the
       * others are tried on the 7x7 box around them, to keep this fast. */
      int reach = nv_kind(me) == 'P' ? 9 : 3;
      for (int tx = fx - reach; tx <= fx + reach; tx++)
        for (int ty = fy - reach; ty <= fy + reach; ty++) {
          if (tx < 0 || tx > 9 || ty < 0 || ty > 9) continue;
          if ((tx == fx && ty == fy) || !nv_legal(p, fx, fy, tx, ty)) continue;
          nv_move *m = &out[n++];
          m->fx = fx, m->fy = fy, m->tx = tx, m->ty = ty;
          snprintf(m->text, sizeof m->text, "%c%d%c%c%d%s", 'a' + fx, fy + 1,
                   p->pc[tx][ty] ? 'x' : '-', 'a' + tx, ty + 1,
                   nv_promotes(p, fx, fy, tx, ty) ? "=K" : "");
        }
    }
  return n;
}

static void nv_apply(nv *p, const nv_move *m) {
  char me = p->pc[m->fx][m->fy], it = p->pc[m->tx][m->ty];
  int promote = nv_promotes(p, m->fx, m->fy, m->tx, m->ty);
  unsigned char was_prom = p->prom[m->fx][m->fy];
  int side = p->side;
  p->pc[m->tx][m->ty] = me;
  p->prom[m->tx][m->ty] = was_prom;
  p->pc[m->fx][m->fy] = 0;
  p->prom[m->fx][m->fy] = 0;
  if (promote) {
    p->pc[m->tx][m->ty] = side ? 'k' : 'K';
    p->prom[m->tx][m->ty] = 1;
    p->pe[side]++;
  }
  /* Quiet: no capture and no Soldier move (a promoted Knight is quiet). */
  if (it || nv_kind(me) == 'S') p->quiet = 0;
  else if (p->quiet < 65535) p->quiet++;
  /* Irreversible: capture, promotion, a Soldier or Giant changing rank. */
  int forward = m->ty != m->fy && (nv_kind(me) == 'S' || nv_kind(me) == 'T');
  if (it || promote || forward) p->rev = 0;
  else if (p->rev < 65535) p->rev++;
  p->side = 1 - side;
}

/* Result of the position as "ongoing", "win light castle_captured", ... */
static void nv_outcome(const nv *p, size_t n_moves, int no_move_draw, char *out,
                       size_t cap) {
  if (!nv_has_castle(p, 0) || !nv_has_castle(p, 1))
    snprintf(out, cap, "win %s castle_captured", nv_has_castle(p, 0) ? "light" : "dark");
  else if (p->quiet_limit && (int)p->quiet >= p->quiet_limit)
    snprintf(out, cap, "draw quiet_plies");
  else if (n_moves == 0)
    snprintf(out, cap, no_move_draw ? "draw no_moves" : "win %s no_moves",
             p->side ? "light" : "dark");
  else
    snprintf(out, cap, "ongoing");
}

/* ---- the comparison ------------------------------------------------------- */

static const game_vtable *vt;
static unsigned long nodes_compared, edges_compared;

typedef struct cfg {
  const char *opts;
  int cap_mode, cap_n, quiet_limit, no_move_draw;
} cfg;

static int cmp_nv(const void *a, const void *b) {
  return strcmp(((const nv_move *)a)->text, ((const nv_move *)b)->text);
}

static void real_outcome(const game_state *st, char *out, size_t cap) {
  game_outcome o = vt->outcome(st);
  if (o.result == GAME_ONGOING) snprintf(out, cap, "ongoing");
  else if (o.result == GAME_DRAW) snprintf(out, cap, "draw %s", o.reason);
  else snprintf(out, cap, "win %s %s", vt->side_names[o.winner], o.reason);
}

/* Compare at st (whose position string is pos) and recurse. Returns 0 once
 * a mismatch has been reported (to keep the log short). */
static int walk(const cfg *c, const game_setup *setup, const game_state *st,
                unsigned depth) {
  char pos[GAME_POSITION_MAX];
  vt->to_position(st, pos, sizeof pos);
  nv p;
  if (nv_parse(&p, pos) < 0) {
    TEST_FAIL_("naive parser rejects '%s'", pos);
    return 0;
  }
  p.cap_mode = c->cap_mode, p.cap_n = c->cap_n, p.quiet_limit = c->quiet_limit;
  nodes_compared++;

  game_move mv[GAME_MAX_MOVES];
  size_t n = 0;
  vt->legal_moves(st, mv, GAME_MAX_MOVES, &n);
  char text[GAME_MAX_MOVES][GAME_MOVE_TEXT_MAX];
  size_t order[GAME_MAX_MOVES];
  for (size_t i = 0; i < n; i++) {
    vt->format_move(st, &mv[i], text[i], GAME_MOVE_TEXT_MAX);
    order[i] = i;
  }
  /* insertion sort of indexes by text (lists are short) */
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && strcmp(text[order[j - 1]], text[order[j]]) > 0; j--) {
      size_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  static nv_move nmv_stack[4][512];
  nv_move *nmv = nmv_stack[depth < 4 ? depth : 3];
  size_t nn = nv_gen(&p, nmv);
  qsort(nmv, nn, sizeof *nmv, cmp_nv);
  int same = nn == n;
  for (size_t i = 0; same && i < n; i++) same = strcmp(nmv[i].text, text[order[i]]) == 0;
  if (!same) {
    TEST_FAIL_("[%s] move sets differ at '%s': real %zu, naive %zu", c->opts, pos, n, nn);
    for (size_t i = 0; i < n; i++) fprintf(stderr, " %s", text[order[i]]);
    fprintf(stderr, "\n naive:");
    for (size_t i = 0; i < nn; i++) fprintf(stderr, " %s", nmv[i].text);
    fputc('\n', stderr);
    return 0;
  }
  char ro[64], no[64];
  real_outcome(st, ro, sizeof ro);
  nv_outcome(&p, nn, c->no_move_draw, no, sizeof no);
  if (strcmp(ro, no) != 0) {
    TEST_FAIL_("[%s] outcome differs at '%s': real '%s', naive '%s'", c->opts, pos, ro, no);
    return 0;
  }
  test_passed_++;
  if (depth == 0) return 1;
  for (size_t i = 0; i < n; i++) {
    size_t k = order[i];
    game_state child = *st;
    agon_err err;
    vt->apply(&child, &mv[k], &err);
    nv q = p;
    nv_apply(&q, &nmv[i]);
    char a[GAME_POSITION_MAX], b[GAME_POSITION_MAX];
    vt->to_position(&child, a, sizeof a);
    nv_print(&q, b, sizeof b);
    edges_compared++;
    if (strcmp(a, b) != 0) {
      TEST_FAIL_("[%s] after %s from '%s': real '%s', naive '%s'", c->opts, text[k], pos,
                 a, b);
      return 0;
    }
    if (vt->check(&child, &err) != 0) {
      TEST_FAIL_("check after %s from '%s': %s", text[k], pos, err.msg);
      return 0;
    }
    if (!walk(c, setup, &child, depth - 1)) return 0;
  }
  return 1;
}

static game_setup mk_setup(const char *opts) {
  game_setup s;
  game_setup_init(&s, vt);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", opts);
  for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
    agon_err err;
    if (game_setup_set_kv(&s, t, &err) < 0) {
      fprintf(stderr, "bad option %s: %s\n", t, err.msg);
      exit(1);
    }
  }
  return s;
}

static void run_pos(const cfg *c, const char *pos, unsigned depth) {
  game_setup s = mk_setup(c->opts);
  game_state st;
  agon_err err;
  if (vt->from_position(&st, &s, pos, strlen(pos), &err) != 0) {
    TEST_FAIL_("from_position('%s'): %s", pos, err.msg);
    return;
  }
  walk(c, &s, &st, depth);
}

/* A position reached by `plies` random moves from the start (seeded). */
static void random_position(uint64_t seed, int plies, char *out, size_t cap) {
  game_setup s = mk_setup("first=light");
  game_state st;
  vt->init(&st, &s, seed, NULL);
  game_rng r;
  game_rng_init(&r, seed);
  game_move mv[GAME_MAX_MOVES];
  for (int i = 0; i < plies; i++) {
    size_t n = 0;
    vt->legal_moves(&st, mv, GAME_MAX_MOVES, &n);
    if (n == 0) break;
    /* Avoid ending the game: skip Castle captures when possible. */
    game_state child;
    size_t pick = game_rng_below(&r, (uint32_t)n);
    for (size_t t = 0; t < n; t++) {
      child = st;
      vt->apply(&child, &mv[(pick + t) % n], NULL);
      if (vt->outcome(&child).result == GAME_ONGOING) break;
    }
    st = child;
  }
  vt->to_position(&st, out, cap);
}

int main(void) {
  vt = gok_vt();
  static const cfg defaults = {"", CAP_PROMOTED, 2, 100, 0};
  static const cfg light_first = {"first=light", CAP_PROMOTED, 2, 100, 0};
  static const cfg total = {"knight_cap=total_on_board", CAP_TOTAL, 2, 100, 0};
  static const cfg per_game = {"knight_cap=promotions_per_game knight_cap_n=3",
                               CAP_GAME, 3, 100, 1};
  static const cfg nocap = {"knight_cap=none no_move=draw quiet_plies=6", CAP_NONE,
                            2, 6, 1};

  /* The start, both sides first. */
  run_pos(&light_first,
          "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0", 3);
  run_pos(&defaults,
          "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK d 0 0 0 0", 2);
  if (getenv("GOK_START_ONLY")) return test_summary();

  char pos[GAME_POSITION_MAX];
  /* Soldiers about to promote under a nearly full cap (one promoted Knight
   * on an edge), a Griffin whose flight north is stopped by an Ogre, quiet
   * counter near the limit so that some lines end in a quiet-plies draw. */
  gok_pos(pos, sizeof pos, "Ce1 +Ka3 Sc9 Sh9 Gh7 Ed8 cf10 kd10 th8 sf3 ej4 lb9",
          'l', 97, 97, 1, 0);
  run_pos(&defaults, pos, 3);
  run_pos(&total, pos, 2);
  /* Dark with two promoted Death Knights (cap reached) and Skeletons near
   * rank 1, Giants/Ogres next to Griffins, pieces on the edges. */
  gok_pos(pos, sizeof pos, "Ce1 Kb1 Ta2 Sd3 Lh2 Gj1 cf10 +kc2 +ki4 sf2 sb3 ed5 te3",
          'd', 10, 4, 0, 2);
  run_pos(&defaults, pos, 3);
  run_pos(&per_game, pos, 2);
  /* Castles under direct attack (lines end by Castle capture, a Soldier
   * destroying a Castle), a Lion and an Elf next to the enemy Castle. */
  gok_pos(pos, sizeof pos, "Ce1 Lg9 Ed8 Sf9 Tf6 Ga10 cf10 pf2 ld2 sd1 td4 gb1",
          'l', 3, 3, 0, 2);
  run_pos(&nocap, pos, 3);
  run_pos(&defaults, pos, 2);
  /* Natural middle games from random play. */
  static const struct {
    uint64_t seed;
    int plies;
  } rnd[] = {{11, 30}, {12, 60}, {13, 90}, {14, 140}};
  for (size_t i = 0; i < sizeof rnd / sizeof *rnd; i++) {
    random_position(rnd[i].seed, rnd[i].plies, pos, sizeof pos);
    run_pos(&defaults, pos, 2);
  }
  printf("compared %lu positions and %lu moves\n", nodes_compared, edges_compared);
  return test_summary();
}
