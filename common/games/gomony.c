/* gomony.c - Gomony (Harvey Klein; Lasca-type stacking draughts on 8x8).
 * Contract: shared/rules/gomony.md. Position format, outcome reasons, JSON
 * view and decisions taken where the spec is silent: docs/positions/gomony.md.
 *
 * Representation. The 32 dark squares are numbered s = rank*4 + file/2
 * (a1 = 0, c1 = 1, ..., b2 = 4, ..., h8 = 31). A square holds a column; a
 * column is at most two blocks of one colour each (prisoners only ever go to
 * the bottom and only the top is ever taken), so it is described by
 *   h[s]     height,
 *   t[s]     length of the top block (owned by the top marker's colour),
 *   promo[s] promotion flag of each marker, bit 0 = top,
 * and bitboards (bit s) of occupied squares, squares owned by each side and
 * squares whose top marker is promoted. Neighbours come from const tables.
 * The state is 220 bytes without pointers: perft copies it per node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games.h"

/* ---- options ----------------------------------------------------------- */

enum {
  GM_OPT_FIRST,
  GM_OPT_RULE7,
  GM_OPT_MAXCAP,
  GM_OPT_PROMREL,
  GM_OPT_STALEMATE,
  GM_OPT_REPETITION,
  GM_OPT_QUIET,
  GM_OPT_HANDICAP,
  GM_N_OPTIONS
};

static const game_option gm_options[GM_N_OPTIONS] = {
    [GM_OPT_FIRST] = {"first", GAME_OPT_ENUM, "white|black", "white", 0, 0,
                      "side that moves first"},
    [GM_OPT_RULE7] = {"rule7", GAME_OPT_ENUM, "once|no_reverse", "once", 0, 0,
                      "once: no square jumped twice in a move; no_reverse: "
                      "only no immediate jump back over the same column"},
    [GM_OPT_MAXCAP] = {"max_capture", GAME_OPT_ENUM, "no|yes", "no", 0, 0,
                       "yes: a jump taking the most markers is compulsory"},
    [GM_OPT_PROMREL] = {"promote_on_release", GAME_OPT_ENUM, "no|yes", "no",
                        0, 0,
                        "yes: an uncovered unpromoted top on its far row "
                        "is promoted"},
    [GM_OPT_STALEMATE] = {"stalemate", GAME_OPT_ENUM, "draw|loss", "draw", 0,
                          0, "result for a side that owns a column but cannot move"},
    [GM_OPT_REPETITION] = {"repetition", GAME_OPT_INT, NULL, "3", 0, 100,
                           "draw on this occurrence of a position (0 = off, "
                           "1 is refused)"},
    [GM_OPT_QUIET] = {"quiet_plies", GAME_OPT_INT, NULL, "100", 0, 10000,
                      "draw after this many plies without jump or promotion "
                      "(0 = off)"},
    [GM_OPT_HANDICAP] = {"handicap_promoted", GAME_OPT_TEXT, NULL, "", 0, 0,
                         "markers of one side that start promoted, e.g. "
                         "white:a1,c1 (empty = none)"},
};

/* Option flags copied into the state (what legal_moves/apply need). */
#define GM_F_NOREV 0x01u    /* rule7=no_reverse */
#define GM_F_MAXCAP 0x02u   /* max_capture=yes */
#define GM_F_PROMREL 0x04u  /* promote_on_release=yes */
#define GM_F_STLOSS 0x08u   /* stalemate=loss */

/* ---- state ------------------------------------------------------------- */

#define GM_NSQ 32
#define GM_NONE 255
#define GM_MARKERS 12        /* per colour */
#define GM_COUNT_MAX 65535u  /* counters saturate here */
#define GM_KIND_STEP 1
#define GM_KIND_JUMP 2

typedef struct gm_state {
  uint32_t occ;            /* occupied squares */
  uint32_t own[2];         /* squares whose top marker is side's */
  uint32_t ptop;           /* squares whose top marker is promoted */
  uint32_t promo[GM_NSQ];  /* promotion flags, bit 0 = top; 0 when empty */
  uint8_t h[GM_NSQ];       /* column height, 0 = empty */
  uint8_t t[GM_NSQ];       /* top block length, 0 = empty */
  uint8_t side;            /* side to move */
  uint8_t flags;           /* GM_F_* */
  uint8_t rep;             /* repetition limit (0 = off) */
  uint8_t pad_;            /* zero */
  uint16_t quiet;          /* plies since the last jump or promotion */
  uint16_t quiet_limit;    /* 0 = off */
  uint16_t since_promo;    /* plies since the last promotion (repetition
                              window: a promotion is the only move that can
                              never be undone, see docs) */
  uint16_t pad2_;          /* zero */
} gm_state;

_Static_assert(sizeof(gm_state) <= GAME_STATE_MAX, "gm_state too big");
_Static_assert(GAME_MOVE_OPS >= GM_MARKERS + 1,
               "a jump path is up to 13 squares");

/* Diagonal neighbours and jump landings: NE, NW, SE, SW (north = rank 8). */
static const uint8_t gm_nb[GM_NSQ][4] = {
  {  4,255,255,255}, {  5,  4,255,255}, {  6,  5,255,255}, {  7,  6,255,255},
  {  9,  8,  1,  0}, { 10,  9,  2,  1}, { 11, 10,  3,  2}, {255, 11,255,  3},
  { 12,255,  4,255}, { 13, 12,  5,  4}, { 14, 13,  6,  5}, { 15, 14,  7,  6},
  { 17, 16,  9,  8}, { 18, 17, 10,  9}, { 19, 18, 11, 10}, {255, 19,255, 11},
  { 20,255, 12,255}, { 21, 20, 13, 12}, { 22, 21, 14, 13}, { 23, 22, 15, 14},
  { 25, 24, 17, 16}, { 26, 25, 18, 17}, { 27, 26, 19, 18}, {255, 27,255, 19},
  { 28,255, 20,255}, { 29, 28, 21, 20}, { 30, 29, 22, 21}, { 31, 30, 23, 22},
  {255,255, 25, 24}, {255,255, 26, 25}, {255,255, 27, 26}, {255,255,255, 27},
};
static const uint8_t gm_jp[GM_NSQ][4] = {
  {  9,255,255,255}, { 10,  8,255,255}, { 11,  9,255,255}, {255, 10,255,255},
  { 13,255,255,255}, { 14, 12,255,255}, { 15, 13,255,255}, {255, 14,255,255},
  { 17,255,  1,255}, { 18, 16,  2,  0}, { 19, 17,  3,  1}, {255, 18,255,  2},
  { 21,255,  5,255}, { 22, 20,  6,  4}, { 23, 21,  7,  5}, {255, 22,255,  6},
  { 25,255,  9,255}, { 26, 24, 10,  8}, { 27, 25, 11,  9}, {255, 26,255, 10},
  { 29,255, 13,255}, { 30, 28, 14, 12}, { 31, 29, 15, 13}, {255, 30,255, 14},
  {255,255, 17,255}, {255,255, 18, 16}, {255,255, 19, 17}, {255,255,255, 18},
  {255,255, 21,255}, {255,255, 22, 20}, {255,255, 23, 21}, {255,255,255, 22},
};

/* Far row of each side: where its unpromoted markers promote. */
static const uint32_t gm_far[2] = {0xF0000000u, 0x0000000Fu};
/* Directions an unpromoted top of each side may take (forward). */
static const unsigned gm_fwd[2] = {0x3u, 0xCu};

static int gm_file(int s) { return 2 * (s & 3) + ((s >> 2) & 1); }
static int gm_rank(int s) { return s >> 2; }
/* Dark square index of (file, rank), or -1 for a light square. */
static int gm_sq(int f, int r) {
  if (f < 0 || f > 7 || r < 0 || r > 7 || ((f + r) & 1)) return -1;
  return r * 4 + f / 2;
}

static const gm_state *gm_cst(const game_state *st) {
  return (const gm_state *)(const void *)st->u.bytes;
}
static gm_state *gm_st(game_state *st) { return (gm_state *)(void *)st->u.bytes; }


/* Whole-board shifts by one diagonal step in direction d (0 NE, 1 NW, 2 SE,
 * 3 SW). In this numbering the index step depends on the row's parity, and
 * the a/h files must not wrap. Opposite direction: 3 - d. */
#define GM_EVEN 0x0F0F0F0Fu  /* ranks 1, 3, 5, 7 */
#define GM_ODD 0xF0F0F0F0u   /* ranks 2, 4, 6, 8 */
#define GM_AFILE 0x01010101u /* a1, a3, a5, a7 */
#define GM_HFILE 0x80808080u /* h2, h4, h6, h8 */
static uint32_t gm_shift(uint32_t b, int d) {
  switch (d) {
    case 0: return ((b & GM_EVEN) << 4) | ((b & GM_ODD & ~GM_HFILE) << 5);
    case 1: return ((b & GM_EVEN & ~GM_AFILE) << 3) | ((b & GM_ODD) << 4);
    case 2: return ((b & GM_EVEN) >> 4) | ((b & GM_ODD & ~GM_HFILE) >> 3);
    default: return ((b & GM_EVEN & ~GM_AFILE) >> 5) | ((b & GM_ODD) >> 4);
  }
}

/* Directions the column on s (owned by side) may move or jump. */
static unsigned gm_dirs(const gm_state *s, int sq, int side) {
  return (s->ptop >> sq & 1u) ? 0xFu : gm_fwd[side];
}

/* ---- move generation --------------------------------------------------- */

typedef struct gm_gen {
  const gm_state *st;
  game_move *out;
  size_t cap, n;
  int err;              /* AGON_ENOSPACE once out overflowed */
  int norev;            /* rule7=no_reverse */
  unsigned dirs;        /* directions of the jumping column */
  uint32_t far;         /* squares where the jumper promotes (0: promoted) */
  uint32_t occ;         /* occupied now: origin vacated, captures applied */
  uint32_t opp;         /* owned by the opponent now */
  uint32_t jumped;      /* squares jumped so far (rule7=once) */
  uint8_t taken[GM_NSQ];/* markers taken from each square so far */
  game_move mv;         /* path so far; bytes past n stay zero */
} gm_gen;

static void gm_emit(gm_gen *g) {
  if (g->n >= g->cap) {
    g->err = AGON_ENOSPACE;
    return;
  }
  g->out[g->n++] = g->mv;
}

/* Extend the jump path standing on sq; last = square jumped last. Emits every
 * complete path (continuation is compulsory, so only maximal ones). */
static void gm_jumps_from(gm_gen *g, int sq, int last) {
  const gm_state *s = g->st;
  int any = 0;
  for (int d = 0; d < 4; d++) {
    if (!(g->dirs >> d & 1u)) continue;
    int l = gm_jp[sq][d];
    if (l == GM_NONE) continue;
    int v = gm_nb[sq][d];
    uint32_t vb = 1u << v;
    if (!(g->opp & vb) || (g->occ >> l & 1u)) continue;
    if (g->norev ? v == last : (g->jumped & vb) != 0) continue;
    any = 1;
    uint32_t occ0 = g->occ, opp0 = g->opp;
    int k = ++g->taken[v];
    if (k == s->h[v]) {
      g->occ &= ~vb;
      g->opp &= ~vb;
    } else if (k == s->t[v]) {
      g->opp &= ~vb; /* released: the column is now the mover's */
    }
    g->jumped |= vb;
    /* Each jump takes one enemy marker and there are at most 12. */
    if (g->mv.n < GAME_MOVE_OPS) {
      g->mv.op[g->mv.n++] = (uint8_t)l;
      if (g->far >> l & 1u)
        gm_emit(g); /* promotion ends the move */
      else
        gm_jumps_from(g, l, v);
      g->mv.op[--g->mv.n] = 0;
    }
    g->jumped &= ~vb;
    g->taken[v]--;
    g->occ = occ0;
    g->opp = opp0;
  }
  if (!any && g->mv.n > 1) gm_emit(g);
}

/* Is the game over by the quiet-ply limit? */
static int gm_quiet_over(const gm_state *s) {
  return s->quiet_limit && s->quiet >= s->quiet_limit;
}

/* Every legal move ignoring game end by counters; maxcap applies the
 * max_capture option (parse_move also asks without it, to explain). */
static int gm_generate(const gm_state *s, game_move *out, size_t cap,
                       size_t *n, int maxcap) {
  int me = s->side;
  uint32_t mine = s->own[me];
  gm_gen g;
  g.st = s;
  g.out = out;
  g.cap = cap;
  g.n = 0;
  g.err = 0;
  g.norev = (s->flags & GM_F_NOREV) != 0;
  g.jumped = 0;
  memset(g.taken, 0, sizeof g.taken);
  memset(&g.mv, 0, sizeof g.mv);
  g.mv.kind = GM_KIND_JUMP;
  uint32_t opp = s->own[me ^ 1];
  uint32_t empty = ~s->occ;
  uint32_t src[4]; /* columns allowed to go in each direction */
  uint32_t jumpers = 0;
  for (int d = 0; d < 4; d++) {
    src[d] = (gm_fwd[me] >> d & 1u) ? mine : mine & s->ptop;
    jumpers |= src[d] & gm_shift(opp & gm_shift(empty, 3 - d), 3 - d);
  }
  for (uint32_t b = jumpers; b; b &= b - 1) {
    int sq = __builtin_ctz(b);
    g.dirs = gm_dirs(s, sq, me);
    g.far = (s->ptop >> sq & 1u) ? 0 : gm_far[me];
    g.occ = s->occ & ~(1u << sq);
    g.opp = opp;
    g.mv.n = 1;
    g.mv.op[0] = (uint8_t)sq;
    gm_jumps_from(&g, sq, GM_NONE);
  }
  if (g.err) {
    *n = g.n;
    return g.err;
  }
  if (g.n > 0) {
    if (maxcap) {
      uint8_t best = 0;
      for (size_t i = 0; i < g.n; i++)
        if (out[i].n > best) best = out[i].n;
      size_t k = 0;
      for (size_t i = 0; i < g.n; i++)
        if (out[i].n == best) out[k++] = out[i];
      g.n = k;
    }
    *n = g.n;
    return 0;
  }
  size_t k = 0;
  game_move m;
  memset(&m, 0, sizeof m);
  m.kind = GM_KIND_STEP;
  m.n = 2;
  for (int d = 0; d < 4; d++) {
    for (uint32_t b = gm_shift(src[d], d) & empty; b; b &= b - 1) {
      int to = __builtin_ctz(b);
      if (k >= cap) {
        *n = k;
        return AGON_ENOSPACE;
      }
      m.op[0] = gm_nb[to][3 - d];
      m.op[1] = (uint8_t)to;
      out[k++] = m;
    }
  }
  *n = k;
  return 0;
}

/* Does the side to move have any move (jump or step)? */
static int gm_has_move(const gm_state *s) {
  int me = s->side;
  uint32_t mine = s->own[me], opp = s->own[me ^ 1], empty = ~s->occ;
  for (int d = 0; d < 4; d++) {
    uint32_t src = (gm_fwd[me] >> d & 1u) ? mine : mine & s->ptop;
    uint32_t to = gm_shift(src, d);
    if ((to & empty) || (gm_shift(to & opp, d) & empty)) return 1;
  }
  return 0;
}

static int gm_legal_moves(const game_state *st, game_move *out, size_t cap,
                          size_t *n) {
  const gm_state *s = gm_cst(st);
  *n = 0;
  if (s->own[s->side] == 0 || gm_quiet_over(s)) return 0;
  return gm_generate(s, out, cap, n, (s->flags & GM_F_MAXCAP) != 0);
}

/* ---- outcome ----------------------------------------------------------- */

static game_outcome gm_outcome(const game_state *st) {
  const gm_state *s = gm_cst(st);
  if (s->own[s->side] == 0) return game_outcome_win(s->side ^ 1, "buried");
  if (!gm_has_move(s))
    return (s->flags & GM_F_STLOSS) ? game_outcome_win(s->side ^ 1, "stalemate")
                                    : game_outcome_draw("stalemate");
  if (gm_quiet_over(s)) return game_outcome_draw("quiet_plies");
  return game_outcome_ongoing();
}

static int gm_to_move(const game_state *st) {
  if (gm_outcome(st).result != GAME_ONGOING) return GAME_NOBODY;
  return gm_cst(st)->side;
}

/* ---- apply ------------------------------------------------------------- */

static void gm_count(uint16_t *c) {
  if (*c < GM_COUNT_MAX) (*c)++;
}

static int gm_apply(game_state *st, const game_move *mv, agon_err *err) {
  gm_state *s = gm_st(st);
  int me = s->side;
  (void)err;
  int from = mv->op[0];
  uint32_t fb = 1u << from;
  uint32_t promo = s->promo[from];
  int h = s->h[from], t = s->t[from];
  int promoted = 0;
  s->occ &= ~fb;
  s->own[me] &= ~fb;
  s->ptop &= ~fb;
  s->promo[from] = 0;
  s->h[from] = 0;
  s->t[from] = 0;
  if (mv->kind == GM_KIND_JUMP) {
    int sq = from;
    for (int i = 1; i < mv->n; i++) {
      int to = mv->op[i];
      int v = gm_sq((gm_file(sq) + gm_file(to)) / 2,
                    (gm_rank(sq) + gm_rank(to)) / 2);
      uint32_t vb = 1u << v;
      uint32_t top = s->promo[v] & 1u;
      s->promo[v] >>= 1;
      s->h[v]--;
      s->t[v]--;
      if (s->h[v] == 0) {
        s->occ &= ~vb;
        s->own[me ^ 1] &= ~vb;
      } else {
        if (s->t[v] == 0) { /* released: the rest is the mover's */
          s->t[v] = s->h[v];
          s->own[me ^ 1] &= ~vb;
          s->own[me] |= vb;
        }
        int owner = (s->own[me] & vb) ? me : me ^ 1;
        if ((s->flags & GM_F_PROMREL) && !(s->promo[v] & 1u) &&
            (gm_far[owner] & vb)) {
          s->promo[v] |= 1u;
          promoted = 1;
        }
      }
      s->ptop = (s->ptop & ~vb) | ((s->promo[v] & 1u) << v);
      promo |= top << h; /* the prisoner goes to the very bottom */
      h++;
      sq = to;
    }
    s->quiet = 0;
  } else {
    gm_count(&s->quiet);
  }
  int to = mv->op[mv->n - 1];
  uint32_t tb = 1u << to;
  if (!(promo & 1u) && (gm_far[me] & tb)) {
    promo |= 1u;
    promoted = 1;
  }
  s->occ |= tb;
  s->own[me] |= tb;
  s->ptop |= (promo & 1u) << to;
  s->promo[to] = promo;
  s->h[to] = (uint8_t)h;
  s->t[to] = (uint8_t)t;
  if (promoted) {
    s->quiet = 0;
    s->since_promo = 0;
  } else {
    gm_count(&s->since_promo);
  }
  s->side = (uint8_t)(me ^ 1);
  return 0;
}

/* ---- columns as text --------------------------------------------------- */

/* Marker i (0 = top) of the column on sq as w/W/b/B. */
static char gm_marker(const gm_state *s, int sq, int i) {
  int owner = (s->own[0] >> sq & 1u) ? 0 : 1;
  int colour = i < s->t[sq] ? owner : owner ^ 1;
  int pr = (s->promo[sq] >> i) & 1u;
  return colour == 0 ? (pr ? 'W' : 'w') : (pr ? 'B' : 'b');
}

/* Column text top first into buf (>= 25 bytes); returns its length. */
static int gm_column_text(const gm_state *s, int sq, char *buf) {
  int h = s->h[sq];
  for (int i = 0; i < h; i++) buf[i] = gm_marker(s, sq, i);
  buf[h] = '\0';
  return h;
}

static void gm_square_name(int sq, char out[3]) {
  out[0] = (char)('a' + gm_file(sq));
  out[1] = (char)('1' + gm_rank(sq));
  out[2] = '\0';
}

/* ---- move text --------------------------------------------------------- */

static int gm_format_move(const game_state *st, const game_move *mv, char *buf,
                          size_t cap) {
  const gm_state *s = gm_cst(st);
  char tmp[GAME_MOVE_TEXT_MAX];
  size_t len = 0;
  if (mv->n < 2 || mv->n > GAME_MOVE_OPS) return AGON_EINVAL;
  for (int i = 0; i < mv->n; i++) {
    if (mv->op[i] >= GM_NSQ) return AGON_EINVAL;
    if (i) tmp[len++] = mv->kind == GM_KIND_JUMP ? 'x' : '-';
    tmp[len++] = (char)('a' + gm_file(mv->op[i]));
    tmp[len++] = (char)('1' + gm_rank(mv->op[i]));
  }
  int from = mv->op[0], to = mv->op[mv->n - 1];
  int me = s->side;
  /* Output-only suffix: the move ends with an unpromoted top on its far row. */
  if ((s->own[me] >> from & 1u) && !(s->ptop >> from & 1u) &&
      (gm_far[me] >> to & 1u)) {
    tmp[len++] = '=';
    tmp[len++] = 'P';
  }
  tmp[len] = '\0';
  if (len + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, tmp, len + 1);
  return (int)len;
}

static int gm_is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int gm_lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

/* Path squares of text into sq[] (file,rank pairs as 0..63 = rank*8+file).
 * Returns the count, or -1 if the text is not notation. Accepts blanks
 * anywhere, '-' or 'x' between squares, and a trailing "=P". */
static int gm_tokenize(const char *text, size_t len, int *cells, int cap) {
  int n = 0;
  int want_sq = 1, done = 0;
  size_t i = 0;
  while (i < len) {
    char c = text[i];
    if (gm_is_blank(c)) {
      i++;
      continue;
    }
    if (done) return -1;
    int lc = gm_lower((unsigned char)c);
    if (want_sq) {
      if (lc < 'a' || lc > 'h') return -1;
      size_t j = i + 1;
      while (j < len && gm_is_blank(text[j])) j++;
      if (j >= len || text[j] < '1' || text[j] > '8') return -1;
      if (n >= cap) return -2; /* notation, but longer than any path */
      cells[n++] = (text[j] - '1') * 8 + (lc - 'a');
      i = j + 1;
      want_sq = 0;
    } else if (lc == '-' || lc == 'x') {
      want_sq = 1;
      i++;
    } else if (lc >= 'a' && lc <= 'h') {
      want_sq = 1; /* "c3d4": a missing separator is tolerated */
    } else if (lc == '=') {
      size_t j = i + 1;
      while (j < len && gm_is_blank(text[j])) j++;
      if (j >= len || gm_lower((unsigned char)text[j]) != 'p') return -1;
      i = j + 1;
      done = 1;
    } else {
      return -1;
    }
  }
  if (want_sq || n < 2) return -1;
  return n;
}

static int gm_parse_move(const game_state *st, const char *text, size_t len,
                         game_move *out, agon_err *err) {
  const gm_state *s = gm_cst(st);
  int cells[64];
  int n = gm_tokenize(text, len, cells, 64);
  if (n == -1)
    return agon_err_set(err, AGON_EBADMOVE,
                        "not a move: expected squares joined by '-' or 'x', "
                        "e.g. c3-d4 or c1xe3xg5");
  if (gm_outcome(st).result != GAME_ONGOING)
    return agon_err_set(err, AGON_EGAMEOVER, NULL);
  if (n < 0 || n > GAME_MOVE_OPS)
    return agon_err_set(err, AGON_EILLEGAL, "path longer than any jump");
  game_move mv;
  memset(&mv, 0, sizeof mv);
  mv.n = (uint8_t)n;
  char nm[3];
  for (int i = 0; i < n; i++) {
    int sq = gm_sq(cells[i] % 8, cells[i] / 8);
    if (sq < 0) {
      nm[0] = (char)('a' + cells[i] % 8);
      nm[1] = (char)('1' + cells[i] / 8);
      nm[2] = '\0';
      return agon_err_set(err, AGON_EILLEGAL, "%s is not a dark square", nm);
    }
    mv.op[i] = (uint8_t)sq;
  }
  game_move list[GAME_MAX_MOVES];
  size_t cnt = 0;
  if (gm_generate(s, list, GAME_MAX_MOVES, &cnt, (s->flags & GM_F_MAXCAP) != 0) <
      0)
    return agon_err_set(err, AGON_EINTERNAL, "too many legal moves");
  for (size_t i = 0; i < cnt; i++)
    if (list[i].n == mv.n && memcmp(list[i].op, mv.op, sizeof mv.op) == 0) {
      *out = list[i];
      return 0;
    }
  /* Not legal: say why, from the most specific reason down. */
  int from = mv.op[0], me = s->side;
  gm_square_name(from, nm);
  if (!(s->own[me] >> from & 1u))
    return agon_err_set(err, AGON_EILLEGAL,
                        "%s holds no column of the side to move", nm);
  int jumps = cnt > 0 && list[0].kind == GM_KIND_JUMP;
  int adjacent = abs(gm_file(mv.op[1]) - gm_file(from)) == 1;
  if (jumps && n == 2 && adjacent)
    return agon_err_set(err, AGON_EILLEGAL, "jump is compulsory");
  for (size_t i = 0; i < cnt; i++)
    if (list[i].n > mv.n && memcmp(list[i].op, mv.op, (size_t)n) == 0)
      return agon_err_set(err, AGON_EILLEGAL,
                          "the jump must continue (multi-jumps are compulsory)");
  for (size_t i = 0; i < cnt; i++)
    if (list[i].n < mv.n && memcmp(list[i].op, mv.op, list[i].n) == 0)
      return agon_err_set(err, AGON_EILLEGAL, "%s",
                          (gm_far[me] >> list[i].op[list[i].n - 1] & 1u) &&
                                  !(s->ptop >> from & 1u)
                              ? "promotion ends the move"
                              : "the jump cannot continue there");
  if (s->flags & GM_F_MAXCAP) {
    size_t c2 = 0;
    if (gm_generate(s, list, GAME_MAX_MOVES, &c2, 0) == 0)
      for (size_t i = 0; i < c2; i++)
        if (list[i].n == mv.n && memcmp(list[i].op, mv.op, sizeof mv.op) == 0)
          return agon_err_set(err, AGON_EILLEGAL,
                              "a jump taking more markers is compulsory");
  }
  if (n == 2 && adjacent) {
    char nt[3];
    gm_square_name(mv.op[1], nt);
    int d = -1;
    for (int k = 0; k < 4; k++)
      if (gm_nb[from][k] == mv.op[1]) d = k;
    if (d >= 0 && !(gm_dirs(s, from, me) >> d & 1u))
      return agon_err_set(err, AGON_EILLEGAL,
                          "an unpromoted column moves forward only");
    if (d >= 0 && (s->occ >> mv.op[1] & 1u))
      return agon_err_set(err, AGON_EILLEGAL, "%s is occupied", nt);
  }
  return agon_err_set(err, AGON_EILLEGAL, "not a legal move here");
}

/* ---- position text ----------------------------------------------------- */

static int gm_to_position(const game_state *st, char *buf, size_t cap) {
  const gm_state *s = gm_cst(st);
  char tmp[GAME_POSITION_MAX + 64];
  size_t len = 0;
  for (int r = 7; r >= 0; r--) {
    int empty = 0;
    for (int f = 0; f < 8; f++) {
      int sq = gm_sq(f, r);
      if (sq < 0 || s->h[sq] == 0) {
        empty++;
        continue;
      }
      if (empty) tmp[len++] = (char)('0' + empty);
      empty = 0;
      if (s->h[sq] == 1) {
        tmp[len++] = gm_marker(s, sq, 0);
      } else {
        tmp[len++] = '(';
        len += (size_t)gm_column_text(s, sq, tmp + len);
        tmp[len++] = ')';
      }
    }
    if (empty) tmp[len++] = (char)('0' + empty);
    if (r) tmp[len++] = '/';
  }
  /* 24 markers + 2 parentheses per square at most: well under the buffer. */
  int w = snprintf(tmp + len, sizeof tmp - len, " %c %u %u",
                   s->side ? 'b' : 'w', (unsigned)s->quiet,
                   (unsigned)s->since_promo);
  len += (size_t)w;
  if (len + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, tmp, len + 1);
  return (int)len;
}

/* Copy option values the rules need into s. */
static int gm_setup_state(gm_state *s, const game_setup *setup, agon_err *err) {
  s->flags = 0;
  if (setup->ival[GM_OPT_RULE7]) s->flags |= GM_F_NOREV;
  if (setup->ival[GM_OPT_MAXCAP]) s->flags |= GM_F_MAXCAP;
  if (setup->ival[GM_OPT_PROMREL]) s->flags |= GM_F_PROMREL;
  if (setup->ival[GM_OPT_STALEMATE]) s->flags |= GM_F_STLOSS;
  int rep = setup->ival[GM_OPT_REPETITION];
  if (rep == 1)
    return agon_err_set(err, AGON_EOPTION,
                        "option repetition: 1 would end every game at once "
                        "(0 = off, or 2 and more)");
  s->rep = (uint8_t)rep;
  s->quiet_limit = (uint16_t)setup->ival[GM_OPT_QUIET];
  return 0;
}

static int gm_check_state(const gm_state *s, agon_err *err);

/* Decimal counter field (0..65535). */
static int gm_parse_count(const char *p, size_t n, uint16_t *out) {
  if (n == 0 || n > 5) return -1;
  unsigned v = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return -1;
    v = v * 10 + (unsigned)(p[i] - '0');
  }
  if (v > GM_COUNT_MAX || (n > 1 && p[0] == '0')) return -1;
  *out = (uint16_t)v;
  return 0;
}

static int gm_from_position(game_state *st, const game_setup *setup,
                            const char *pos, size_t len, agon_err *err) {
  gm_state s;
  memset(&s, 0, sizeof s);
  int rc = gm_setup_state(&s, setup, err);
  if (rc < 0) return rc;
  /* Split into blank-separated fields. */
  const char *fld[5];
  size_t flen[5];
  int nf = 0;
  for (size_t i = 0; i < len;) {
    if (gm_is_blank(pos[i])) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < len && !gm_is_blank(pos[j])) j++;
    if (nf == 5)
      return agon_err_set(err, AGON_EPOSITION,
                          "too many fields (board side [quiet [since_promotion]])");
    fld[nf] = pos + i;
    flen[nf++] = j - i;
    i = j;
  }
  if (nf < 2 || nf > 4)
    return agon_err_set(err, AGON_EPOSITION,
                        "expected: board side [quiet [since_promotion]]");
  /* Board: ranks 8..1 separated by '/'. */
  const char *b = fld[0];
  size_t bl = flen[0], i = 0;
  int count[2] = {0, 0};
  for (int r = 7; r >= 0; r--) {
    int f = 0;
    while (i < bl && b[i] != '/') {
      char c = b[i];
      if (c >= '1' && c <= '8') {
        f += c - '0';
        i++;
        if (f > 8)
          return agon_err_set(err, AGON_EPOSITION, "rank %d has more than 8 squares",
                              r + 1);
        continue;
      }
      char col[32];
      int h = 0;
      if (c == '(') {
        i++;
        while (i < bl && b[i] != ')') {
          if (h == 24)
            return agon_err_set(err, AGON_EPOSITION, "column taller than 24");
          col[h++] = b[i++];
        }
        if (i >= bl)
          return agon_err_set(err, AGON_EPOSITION, "unclosed '(' on rank %d", r + 1);
        i++;
        if (h < 2)
          return agon_err_set(err, AGON_EPOSITION,
                              "'(...)' is for columns of 2 or more markers");
      } else {
        col[h++] = c;
        i++;
      }
      if (f >= 8)
        return agon_err_set(err, AGON_EPOSITION, "rank %d has more than 8 squares",
                            r + 1);
      int sq = gm_sq(f, r);
      if (sq < 0)
        return agon_err_set(err, AGON_EPOSITION, "%c%d is a light square",
                            'a' + f, r + 1);
      int top = -1, blocks = 0, prev = -1;
      uint32_t promo = 0;
      int t = 0;
      for (int k = 0; k < h; k++) {
        int colour, pr;
        switch (col[k]) {
          case 'w': colour = 0; pr = 0; break;
          case 'W': colour = 0; pr = 1; break;
          case 'b': colour = 1; pr = 0; break;
          case 'B': colour = 1; pr = 1; break;
          default:
            return agon_err_set(err, AGON_EPOSITION,
                                "bad marker '%c' (w, W, b, B, digits, '(', ')', '/')",
                                col[k]);
        }
        if (k == 0) top = colour;
        if (colour != prev) blocks++;
        prev = colour;
        if (blocks == 1) t++;
        count[colour]++;
        promo |= (uint32_t)pr << k;
      }
      if (blocks > 2)
        return agon_err_set(err, AGON_EPOSITION,
                            "column on %c%d alternates colours twice", 'a' + f,
                            r + 1);
      s.occ |= 1u << sq;
      s.own[top] |= 1u << sq;
      s.ptop |= (promo & 1u) << sq;
      s.promo[sq] = promo;
      s.h[sq] = (uint8_t)h;
      s.t[sq] = (uint8_t)t;
      f++;
    }
    if (f != 8)
      return agon_err_set(err, AGON_EPOSITION, "rank %d has %d squares, not 8",
                          r + 1, f);
    if (r > 0) {
      if (i >= bl)
        return agon_err_set(err, AGON_EPOSITION, "expected 8 ranks separated by '/'");
      i++;
    }
  }
  if (i != bl)
    return agon_err_set(err, AGON_EPOSITION, "more than 8 ranks");
  for (int c = 0; c < 2; c++)
    if (count[c] > GM_MARKERS)
      return agon_err_set(err, AGON_EPOSITION, "more than 12 %s markers",
                          c ? "black" : "white");
  if (flen[1] != 1 || (gm_lower((unsigned char)fld[1][0]) != 'w' &&
                       gm_lower((unsigned char)fld[1][0]) != 'b'))
    return agon_err_set(err, AGON_EPOSITION, "side to move must be w or b");
  s.side = gm_lower((unsigned char)fld[1][0]) == 'b';
  if (nf >= 3 && gm_parse_count(fld[2], flen[2], &s.quiet) < 0)
    return agon_err_set(err, AGON_EPOSITION, "quiet ply count must be 0..65535");
  if (nf >= 4) {
    if (gm_parse_count(fld[3], flen[3], &s.since_promo) < 0)
      return agon_err_set(err, AGON_EPOSITION,
                          "plies since promotion must be 0..65535");
  } else {
    s.since_promo = s.quiet;
  }
  if (s.own[s.side ^ 1] == 0)
    return agon_err_set(err, AGON_EPOSITION,
                        "the side that just moved owns no column");
  if (s.quiet > s.since_promo)
    return agon_err_set(err, AGON_EPOSITION,
                        "quiet plies exceed plies since the last promotion");
  if (s.quiet_limit && s.quiet > s.quiet_limit)
    return agon_err_set(err, AGON_EPOSITION,
                        "quiet plies exceed the quiet_plies limit");
  agon_err why;
  if (gm_check_state(&s, &why) < 0)
    return agon_err_set(err, AGON_EPOSITION, "%s", why.msg);
  memset(st, 0, sizeof *st);
  memcpy(st->u.bytes, &s, sizeof s);
  return 0;
}

/* ---- init -------------------------------------------------------------- */

/* handicap_promoted: "SIDE:SQ,SQ,..." (case and blanks ignored), every square
 * holding a marker of SIDE in the initial position. */
static int gm_handicap(gm_state *s, const char *txt, agon_err *err) {
  char buf[GAME_OPT_TEXT_MAX];
  size_t n = 0;
  for (const char *p = txt; *p && n + 1 < sizeof buf; p++)
    if (!gm_is_blank(*p)) buf[n++] = (char)gm_lower((unsigned char)*p);
  buf[n] = '\0';
  if (n == 0) return 0;
  int side;
  const char *p;
  if (strncmp(buf, "white:", 6) == 0) {
    side = 0;
    p = buf + 6;
  } else if (strncmp(buf, "black:", 6) == 0) {
    side = 1;
    p = buf + 6;
  } else {
    return agon_err_set(err, AGON_EOPTION,
                        "option handicap_promoted: expected white:SQ,SQ... or "
                        "black:SQ,SQ...");
  }
  for (;;) {
    if (p[0] < 'a' || p[0] > 'h' || p[1] < '1' || p[1] > '8' ||
        (p[2] != ',' && p[2] != '\0'))
      return agon_err_set(err, AGON_EOPTION,
                          "option handicap_promoted: bad square list after the "
                          "side (e.g. white:a1,c1)");
    int sq = gm_sq(p[0] - 'a', p[1] - '1');
    if (sq < 0 || !(s->own[side] >> sq & 1u))
      return agon_err_set(err, AGON_EOPTION,
                          "option handicap_promoted: %c%c holds no %s marker "
                          "at the start",
                          p[0], p[1], side ? "black" : "white");
    s->promo[sq] = 1;
    s->ptop |= 1u << sq;
    if (p[2] == '\0') break;
    p += 3;
  }
  return 0;
}

static int gm_init(game_state *st, const game_setup *setup, uint64_t seed,
                   agon_err *err) {
  gm_state s;
  (void)seed; /* nothing is random */
  memset(&s, 0, sizeof s);
  int rc = gm_setup_state(&s, setup, err);
  if (rc < 0) return rc;
  for (int sq = 0; sq < 12; sq++) {
    s.own[0] |= 1u << sq;
    s.own[1] |= 1u << (31 - sq);
  }
  s.occ = s.own[0] | s.own[1];
  for (int sq = 0; sq < GM_NSQ; sq++)
    if (s.occ >> sq & 1u) s.h[sq] = s.t[sq] = 1;
  rc = gm_handicap(&s, setup->text[GM_OPT_HANDICAP], err);
  if (rc < 0) return rc;
  s.side = (uint8_t)setup->ival[GM_OPT_FIRST];
  memset(st, 0, sizeof *st);
  memcpy(st->u.bytes, &s, sizeof s);
  return 0;
}

/* ---- check ------------------------------------------------------------- */

static int gm_check_state(const gm_state *s, agon_err *err) {
  if (s->side > 1) return agon_err_set(err, AGON_EINTERNAL, "bad side to move");
  if (s->own[0] & s->own[1])
    return agon_err_set(err, AGON_EINTERNAL, "a square owned by both sides");
  if ((s->own[0] | s->own[1]) != s->occ)
    return agon_err_set(err, AGON_EINTERNAL, "owners disagree with occupancy");
  if (s->ptop & ~s->occ)
    return agon_err_set(err, AGON_EINTERNAL, "promoted top on an empty square");
  int count[2] = {0, 0};
  for (int sq = 0; sq < GM_NSQ; sq++) {
    int h = s->h[sq], t = s->t[sq];
    if (!(s->occ >> sq & 1u)) {
      if (h || t || s->promo[sq])
        return agon_err_set(err, AGON_EINTERNAL, "empty square %d has markers", sq);
      continue;
    }
    if (h < 1 || h > 2 * GM_MARKERS || t < 1 || t > h)
      return agon_err_set(err, AGON_EINTERNAL, "bad column shape on square %d", sq);
    if (s->promo[sq] >> h)
      return agon_err_set(err, AGON_EINTERNAL, "promotion flag below column %d", sq);
    if ((s->ptop >> sq & 1u) != (s->promo[sq] & 1u))
      return agon_err_set(err, AGON_EINTERNAL, "top promotion mismatch on %d", sq);
    int owner = (s->own[0] >> sq & 1u) ? 0 : 1;
    count[owner] += t;
    count[owner ^ 1] += h - t;
  }
  if (count[0] > GM_MARKERS || count[1] > GM_MARKERS)
    return agon_err_set(err, AGON_EINTERNAL, "more than 12 markers of a colour");
  /* A top changes only by moving (a move ending on the far row promotes) or
   * by release, and edge squares can never be jumped: so no unpromoted top
   * ever stands on its own far row. */
  for (int c = 0; c < 2; c++)
    if (s->own[c] & gm_far[c] & ~s->ptop)
      return agon_err_set(err, AGON_EINTERNAL,
                          "unpromoted %s top on its far row",
                          c ? "black" : "white");
  if (s->own[s->side ^ 1] == 0)
    return agon_err_set(err, AGON_EINTERNAL,
                        "the side that just moved owns no column");
  if (s->quiet > s->since_promo)
    return agon_err_set(err, AGON_EINTERNAL, "quiet plies beyond last promotion");
  if (s->quiet_limit && s->quiet > s->quiet_limit)
    return agon_err_set(err, AGON_EINTERNAL, "quiet plies beyond the limit");
  if (s->flags & ~0x0Fu || s->pad_ || s->pad2_ || s->rep == 1 || s->rep > 100 ||
      s->quiet_limit > 10000)
    return agon_err_set(err, AGON_EINTERNAL, "bad option fields");
  return 0;
}

static int gm_check(const game_state *st, agon_err *err) {
  return gm_check_state(gm_cst(st), err);
}

/* ---- views ------------------------------------------------------------- */

static json_t *gm_to_json(const game_state *st, int viewer) {
  const gm_state *s = gm_cst(st);
  (void)viewer; /* nothing is hidden */
  json_t *board = json_object();
  int cols[2] = {0, 0}, prisoners[2] = {0, 0}, promoted[2] = {0, 0};
  for (int sq = 0; sq < GM_NSQ; sq++) {
    if (!s->h[sq]) continue;
    char nm[3], col[32];
    gm_square_name(sq, nm);
    gm_column_text(s, sq, col);
    json_object_set_new(board, nm, json_string(col));
    int owner = (s->own[0] >> sq & 1u) ? 0 : 1;
    cols[owner]++;
    prisoners[owner] += s->h[sq] - s->t[sq];
    for (int i = 0; i < s->h[sq]; i++)
      if (s->promo[sq] >> i & 1u) promoted[i < s->t[sq] ? owner : owner ^ 1]++;
  }
  int tm = gm_to_move(st);
  json_t *v = json_object();
  json_object_set_new(v, "board", board);
  json_object_set_new(v, "to_move",
                      tm == GAME_NOBODY ? json_null()
                                        : json_string(tm ? "black" : "white"));
  json_object_set_new(v, "columns", json_pack("{s:i, s:i}", "white", cols[0],
                                               "black", cols[1]));
  json_object_set_new(v, "prisoners", json_pack("{s:i, s:i}", "white",
                                                prisoners[0], "black",
                                                prisoners[1]));
  json_object_set_new(v, "promoted", json_pack("{s:i, s:i}", "white",
                                               promoted[0], "black",
                                               promoted[1]));
  json_object_set_new(v, "quiet_plies", json_integer(s->quiet));
  return v;
}

static int gm_to_text(const game_state *st, char *buf, size_t cap) {
  const gm_state *s = gm_cst(st);
  char tmp[GAME_TEXT_MAX];
  size_t len = 0;
  len += (size_t)snprintf(tmp + len, sizeof tmp - len,
                          "     a   b   c   d   e   f   g   h\n");
  for (int r = 7; r >= 0; r--) {
    len += (size_t)snprintf(tmp + len, sizeof tmp - len, " %d", r + 1);
    for (int f = 0; f < 8; f++) {
      int sq = gm_sq(f, r);
      char c = (sq >= 0 && s->h[sq]) ? gm_marker(s, sq, 0) : '.';
      len += (size_t)snprintf(tmp + len, sizeof tmp - len, "   %c", c);
    }
    /* Columns taller than one marker, top first, beside their rank. */
    const char *sepr = "   ";
    for (int f = 0; f < 8; f++) {
      int sq = gm_sq(f, r);
      if (sq < 0 || s->h[sq] < 2) continue;
      char col[32];
      gm_column_text(s, sq, col);
      len += (size_t)snprintf(tmp + len, sizeof tmp - len, "%s%c%d %s", sepr,
                              'a' + f, r + 1, col);
      sepr = ", ";
    }
    tmp[len++] = '\n';
  }
  tmp[len] = '\0';
  if (len + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, tmp, len + 1);
  return (int)len;
}

/* ---- repetition -------------------------------------------------------- */

static uint64_t gm_hash(const game_state *st) {
  const gm_state *s = gm_cst(st);
  uint64_t h = GAME_HASH_INIT;
  h = game_hash_bytes(h, &s->occ, sizeof s->occ);
  h = game_hash_bytes(h, s->own, sizeof s->own);
  h = game_hash_bytes(h, s->promo, sizeof s->promo);
  h = game_hash_bytes(h, s->h, sizeof s->h);
  h = game_hash_bytes(h, s->t, sizeof s->t);
  h = game_hash_bytes(h, &s->side, 1);
  return h;
}

static unsigned gm_repetition(const game_state *st, unsigned *window) {
  const gm_state *s = gm_cst(st);
  *window = s->since_promo;
  return s->rep;
}

const game_vtable gomony_vtable = {
    .name = "gomony",
    .title = "Gomony",
    .version = 1,
    .side_names = {"white", "black"},
    .state_size = sizeof(gm_state),
    .options = gm_options,
    .n_options = GM_N_OPTIONS,
    .init = gm_init,
    .from_position = gm_from_position,
    .to_position = gm_to_position,
    .to_move = gm_to_move,
    .legal_moves = gm_legal_moves,
    .parse_move = gm_parse_move,
    .format_move = gm_format_move,
    .describe_move = NULL,
    .apply = gm_apply,
    .outcome = gm_outcome,
    .check = gm_check,
    .to_json = gm_to_json,
    .to_text = gm_to_text,
    .hash = gm_hash,
    .repetition = gm_repetition,
    .repetition_outcome = NULL,
};
