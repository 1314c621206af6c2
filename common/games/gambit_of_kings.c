/* gambit_of_kings.c - Gambit of Kings, standard rules (10x10 castle capture).
 *
 * Contract: /work/shared/rules/gambit-of-kings.md. Position format, JSON view,
 * outcome reasons and the decisions taken where the spec is silent:
 * docs/positions/gambit_of_kings.md.
 *
 * Representation: a 12x12 mailbox (the 10x10 board inside a one-square
 * border of GOK_OFF sentinels). Every probe of the move generator is a single
 * step from an on-board square (sliders, the Lion's path and the Griffin's
 * flight all walk square by square), so one border row suffices and no bounds
 * test is needed. A move's operands are mailbox indexes, which saves the
 * index conversions in the hot path; they are opaque to callers anyway.
 */
#include <stdio.h>
#include <string.h>

#include "games.h"

/* ---- pieces ------------------------------------------------------------ */

enum {
  GOK_EMPTY = 0,
  GOK_S = 1, /* Soldier / Skeleton (lesser) */
  GOK_E = 2, /* Elf / Orc (lesser) */
  GOK_K = 3, /* Knight / Death Knight (also promoted Soldiers) */
  GOK_L = 4, /* Lion / Dire Wolf */
  GOK_G = 5, /* Griffin / Dragon (flies) */
  GOK_T = 6, /* Giant / Ogre (immune to lesser pieces, cannot be flown over) */
  GOK_P = 7, /* Paladin / Lich */
  GOK_C = 8  /* Castle (never moves) */
};
#define GOK_TYPE 0x0F
#define GOK_DARK 0x10 /* colour bit: set for Dark */
#define GOK_PROM 0x20 /* a Knight promoted from a Soldier (cap count) */
#define GOK_OFF 0x80  /* border sentinel */

#define GOK_W 12                 /* mailbox width */
#define GOK_SQ (GOK_W * GOK_W)   /* mailbox squares */
#define GOK_MB(f, r) (((r) + 1) * GOK_W + (f) + 1)
#define GOK_FILE(m) ((m) % GOK_W - 1)
#define GOK_RANK(m) ((m) / GOK_W - 1)

#define GOK_QUIET_SAT 65535u /* counters saturate instead of wrapping */
#define GOK_MOVE_KIND 1

enum { GOK_FIRST_RANDOM = 0, GOK_FIRST_LIGHT = 1, GOK_FIRST_DARK = 2 };
enum {
  GOK_CAP_PROMOTED_ON_BOARD = 0,
  GOK_CAP_TOTAL_ON_BOARD = 1,
  GOK_CAP_PER_GAME = 2,
  GOK_CAP_NONE = 3
};
enum { GOK_NOMOVE_LOSS = 0, GOK_NOMOVE_DRAW = 1 };

/* Option indexes: the order of gok_options[]. */
enum {
  GOK_OPT_FIRST,
  GOK_OPT_KNIGHT_CAP,
  GOK_OPT_KNIGHT_CAP_N,
  GOK_OPT_NO_MOVE,
  GOK_OPT_REPETITION,
  GOK_OPT_QUIET,
  GOK_N_OPTS
};

static const game_option gok_options[GOK_N_OPTS] = {
    {"first", GAME_OPT_ENUM, "random|light|dark", "random", 0, 0,
     "who moves first (random: drawn from the seed)"},
    {"knight_cap", GAME_OPT_ENUM,
     "promoted_on_board|total_on_board|promotions_per_game|none",
     "promoted_on_board", 0, 0, "what the promotion limit counts"},
    {"knight_cap_n", GAME_OPT_INT, NULL, "2", 0, 5,
     "promotion limit (total_on_board: Knights allowed beyond the 2 original)"},
    {"no_move", GAME_OPT_ENUM, "loss|draw", "loss",
     0, 0, "result for a side to move without a legal move"},
    {"repetition", GAME_OPT_INT, NULL, "3", 0, 100,
     "draw when a position occurs this many times (0: off, else 2..100)"},
    {"quiet_plies", GAME_OPT_INT, NULL, "100", 0, 10000,
     "draw after this many plies without capture or Soldier move (0: off)"},
};

/* The whole game state: 166 bytes, copied per perft node. Counts of
 * promoted pieces and Knights are caches of the board (check() verifies
 * them) so that apply can enforce the cap without scanning. */
typedef struct gok_state {
  uint8_t b[GOK_SQ];
  uint8_t side;          /* 0 light, 1 dark: the side to move */
  uint8_t over;          /* 1: a Castle was destroyed */
  uint8_t winner;        /* side that destroyed it (when over) */
  uint8_t cap_mode;      /* option knight_cap */
  uint8_t cap_n;         /* option knight_cap_n */
  uint8_t no_move;       /* option no_move */
  uint8_t rep_limit;     /* option repetition */
  uint8_t prom_on[2];    /* promoted Knights on the board, per side */
  uint8_t knights[2];    /* Knights of any origin on the board, per side */
  uint8_t prom_ever[2];  /* promotions made so far, per side (<= 5) */
  uint8_t pad_;
  uint16_t quiet;        /* plies without capture or Soldier move */
  uint16_t rev;          /* plies since the last irreversible move */
  uint16_t quiet_limit;  /* option quiet_plies (0: off) */
  uint16_t pad2_;
} gok_state;

_Static_assert(sizeof(gok_state) <= GAME_STATE_MAX, "gok_state too big");

#define GOK_ST(st) ((gok_state *)(void *)(st)->u.bytes)
#define GOK_CST(st) ((const gok_state *)(const void *)(st)->u.bytes)

/* Piece letters by type (index 0 unused), and names for messages/views. */
static const char gok_letters[] = ".SEKLGTPC";
static const char *const gok_type_names[] = {
    "", "soldier", "elf", "knight", "lion", "griffin", "giant", "paladin",
    "castle"};
static const char *const gok_names[2][9] = {
    {"", "Soldier", "Elf", "Knight", "Lion", "Griffin", "Giant", "Paladin",
     "Castle"},
    {"", "Skeleton", "Orc", "Death Knight", "Dire Wolf", "Dragon", "Ogre",
     "Lich", "Castle"}};

/* Mailbox direction offsets. */
enum {
  D_N = GOK_W, D_S = -GOK_W, D_E = 1, D_W = -1,
  D_NE = GOK_W + 1, D_NW = GOK_W - 1, D_SE = -GOK_W + 1, D_SW = -GOK_W - 1
};
static const int gok_dirs8[8] = {D_N, D_S, D_E, D_W, D_NE, D_NW, D_SE, D_SW};
static const int gok_diag4[4] = {D_NE, D_NW, D_SE, D_SW};
static const int gok_orth4[4] = {D_N, D_E, D_S, D_W};
/* Lion: orthogonal first step, then the two diagonals continuing it (§2.2.1). */
static const int gok_lion[4][3] = {
    {D_N, D_NE, D_NW}, {D_E, D_NE, D_SE}, {D_S, D_SE, D_SW}, {D_W, D_NW, D_SW}};
/* Giant: forward, both forward diagonals, left, right (per side). */
static const int gok_giant[2][5] = {{D_N, D_NE, D_NW, D_E, D_W},
                                    {D_S, D_SE, D_SW, D_E, D_W}};

static inline int gok_colour(int side) { return side ? GOK_DARK : 0; }

/* Square holds an enemy of the side whose colour bit is cb. */
static inline int gok_enemy(uint8_t p, int cb) {
  return p != 0 && p != GOK_OFF && (p & GOK_DARK) != cb;
}
/* A greater piece may end here: empty or any enemy. */
static inline int gok_greater_ok(uint8_t p, int cb) {
  return p == 0 || gok_enemy(p, cb);
}
/* A lesser piece may end here: empty or an enemy other than a Giant. */
static inline int gok_lesser_ok(uint8_t p, int cb) {
  return p == 0 || (gok_enemy(p, cb) && (p & GOK_TYPE) != GOK_T);
}

/* ---- move generation ----------------------------------------------------- */

#define GOK_ADD(f, t)                                                    \
  do {                                                                   \
    if (n < cap) out[n] = (game_move){GOK_MOVE_KIND, 2, {(uint8_t)(f),   \
                                                         (uint8_t)(t)}}; \
    n++;                                                                 \
  } while (0)

/* Moves of the piece on `from` (a piece of the side to move). Returns the
 * new count; entries past cap are counted but not written. */
static size_t gok_gen_piece(const gok_state *s, int from, game_move *out,
                            size_t cap, size_t n) {
  const uint8_t *b = s->b;
  const uint8_t p = b[from];
  const int cb = p & GOK_DARK;
  switch (p & GOK_TYPE) {
    case GOK_S: {
      const int fwd = cb ? D_S : D_N;
      int t = from + D_W;
      if (gok_lesser_ok(b[t], cb)) GOK_ADD(from, t);
      t = from + D_E;
      if (gok_lesser_ok(b[t], cb)) GOK_ADD(from, t);
      t = from + fwd;
      if (b[t] == 0) {
        GOK_ADD(from, t);
        /* Double step: middle and destination empty; never a capture. */
        if (b[t + fwd] == 0) GOK_ADD(from, t + fwd);
      } else if (gok_lesser_ok(b[t], cb)) {
        GOK_ADD(from, t);
      }
      break;
    }
    case GOK_E:
      for (int d = 0; d < 4; d++) {
        int t = from + gok_diag4[d];
        uint8_t q = b[t];
        if (q == 0) {
          GOK_ADD(from, t);
          if (gok_lesser_ok(b[t + gok_diag4[d]], cb))
            GOK_ADD(from, t + gok_diag4[d]);
        } else if (gok_lesser_ok(q, cb)) {
          GOK_ADD(from, t);
        }
      }
      break;
    case GOK_K:
      for (int d = 0; d < 8; d++) {
        int t = from;
        for (int k = 0; k < 3; k++) {
          t += gok_dirs8[d];
          uint8_t q = b[t];
          if (q == 0) {
            GOK_ADD(from, t);
            continue;
          }
          if (gok_enemy(q, cb)) GOK_ADD(from, t);
          break;
        }
      }
      break;
    case GOK_L:
      for (int o = 0; o < 4; o++) {
        int s1 = from + gok_lion[o][0];
        uint8_t q = b[s1];
        if (q != 0) {
          /* An enemy on the orthogonal square is captured and ends the move;
           * a friend or the edge closes the whole branch. */
          if (gok_enemy(q, cb)) GOK_ADD(from, s1);
          continue;
        }
        GOK_ADD(from, s1);
        for (int k = 1; k <= 2; k++) {
          int d = gok_lion[o][k];
          int t1 = s1 + d;
          uint8_t q1 = b[t1];
          if (q1 != 0) {
            if (gok_enemy(q1, cb)) GOK_ADD(from, t1);
            continue;
          }
          GOK_ADD(from, t1);
          if (gok_greater_ok(b[t1 + d], cb)) GOK_ADD(from, t1 + d);
        }
      }
      break;
    case GOK_G:
      for (int d = 0; d < 4; d++) {
        int t = from;
        for (int k = 0; k < 3; k++) {
          t += gok_orth4[d];
          uint8_t q = b[t];
          if (q == GOK_OFF) break;
          if (q == 0) {
            GOK_ADD(from, t);
            continue;
          }
          if (gok_enemy(q, cb)) GOK_ADD(from, t);
          /* Flies over anything but a Giant/Ogre of either colour. */
          if ((q & GOK_TYPE) == GOK_T) break;
        }
      }
      break;
    case GOK_T: {
      const int *dirs = gok_giant[cb ? 1 : 0];
      for (int d = 0; d < 5; d++) {
        int t = from;
        for (int k = 0; k < 3; k++) {
          t += dirs[d];
          uint8_t q = b[t];
          if (q == 0) {
            GOK_ADD(from, t);
            continue;
          }
          if (gok_enemy(q, cb)) GOK_ADD(from, t);
          break;
        }
      }
      break;
    }
    case GOK_P:
      for (int d = 0; d < 8; d++) {
        int t = from;
        for (;;) {
          t += gok_dirs8[d];
          uint8_t q = b[t];
          if (q == 0) {
            GOK_ADD(from, t);
            continue;
          }
          if (gok_enemy(q, cb)) GOK_ADD(from, t);
          break;
        }
      }
      break;
    default: /* Castle: never moves */
      break;
  }
  return n;
}

/* Game already decided by the position (Castle gone, quiet limit). */
static inline int gok_ended(const gok_state *s) {
  return s->over || (s->quiet_limit != 0 && s->quiet >= s->quiet_limit);
}

/* Every legal move of the side to move; count may exceed cap. */
static size_t gok_gen(const gok_state *s, game_move *out, size_t cap) {
  size_t n = 0;
  if (gok_ended(s)) return 0;
  const int cb = gok_colour(s->side);
  const uint8_t *b = s->b;
  for (int r = 0; r < 10; r++) {
    int m = GOK_MB(0, r);
    for (int f = 0; f < 10; f++, m++) {
      uint8_t p = b[m];
      if (p == 0 || (p & GOK_DARK) != cb) continue;
      n = gok_gen_piece(s, m, out, cap, n);
    }
  }
  return n;
}

/* Whether the side to move has a legal move. The outcome check (after
 * every move, and in to_move) asks this; generating the whole list cost
 * ~3% of the server's loop in the load generator. Stops at the first piece
 * that can move and writes no move (cap 0: gok_gen_piece only counts). */
static int gok_any_move(const gok_state *s) {
  if (gok_ended(s)) return 0;
  const int cb = gok_colour(s->side);
  const uint8_t *b = s->b;
  game_move none[1];
  for (int r = 0; r < 10; r++) {
    int m = GOK_MB(0, r);
    for (int f = 0; f < 10; f++, m++) {
      uint8_t p = b[m];
      if (p == 0 || (p & GOK_DARK) != cb) continue;
      if (gok_gen_piece(s, m, none, 0, 0) > 0) return 1;
    }
  }
  return 0;
}

/* ---- promotion ----------------------------------------------------------- */

/* The cap allows side to promote one more Soldier now. */
static int gok_cap_allows(const gok_state *s, int side) {
  switch (s->cap_mode) {
    case GOK_CAP_PROMOTED_ON_BOARD: return s->prom_on[side] < s->cap_n;
    case GOK_CAP_TOTAL_ON_BOARD: return s->knights[side] < 2 + s->cap_n;
    case GOK_CAP_PER_GAME: return s->prom_ever[side] < s->cap_n;
    default: return 1;
  }
}

/* Whether the legal move from->to of the side to move promotes. */
static int gok_promotes(const gok_state *s, int from, int to) {
  uint8_t p = s->b[from];
  if ((p & GOK_TYPE) != GOK_S) return 0;
  uint8_t q = s->b[to];
  int last = s->side ? 0 : 9;
  int trig = GOK_RANK(to) == last ||
             (q != 0 && (q & GOK_TYPE) != GOK_S && (q & GOK_TYPE) != GOK_E);
  return trig && gok_cap_allows(s, s->side);
}

/* ---- setup -------------------------------------------------------------- */

/* Option combinations the INT ranges cannot express. */
static int gok_check_options(const game_setup *setup, agon_err *err) {
  if (setup->ival[GOK_OPT_REPETITION] == 1)
    return agon_err_set(err, AGON_EOPTION,
                        "option repetition: 1 would end every game at once (0 or 2..100)");
  return 0;
}

static void gok_clear(gok_state *s, const game_setup *setup) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < GOK_SQ; i++) s->b[i] = GOK_OFF;
  for (int r = 0; r < 10; r++)
    for (int f = 0; f < 10; f++) s->b[GOK_MB(f, r)] = GOK_EMPTY;
  s->cap_mode = (uint8_t)setup->ival[GOK_OPT_KNIGHT_CAP];
  s->cap_n = (uint8_t)setup->ival[GOK_OPT_KNIGHT_CAP_N];
  s->no_move = (uint8_t)setup->ival[GOK_OPT_NO_MOVE];
  s->rep_limit = (uint8_t)setup->ival[GOK_OPT_REPETITION];
  s->quiet_limit = (uint16_t)setup->ival[GOK_OPT_QUIET];
}

/* Recompute the cached counts from the board. */
static void gok_recount(gok_state *s) {
  s->prom_on[0] = s->prom_on[1] = 0;
  s->knights[0] = s->knights[1] = 0;
  for (int m = 0; m < GOK_SQ; m++) {
    uint8_t p = s->b[m];
    if (p == 0 || p == GOK_OFF || (p & GOK_TYPE) != GOK_K) continue;
    int side = (p & GOK_DARK) ? 1 : 0;
    s->knights[side]++;
    if (p & GOK_PROM) s->prom_on[side]++;
  }
}

static int gok_init(game_state *st, const game_setup *setup, uint64_t seed,
                    agon_err *err) {
  gok_state *s = GOK_ST(st);
  memset(st, 0, sizeof *st);
  if (gok_check_options(setup, err) < 0) return AGON_EOPTION;
  gok_clear(s, setup);
  static const uint8_t back[10] = {GOK_K, GOK_L, GOK_G, GOK_T, GOK_C,
                                   GOK_P, GOK_T, GOK_G, GOK_L, GOK_K};
  for (int f = 0; f < 10; f++) {
    s->b[GOK_MB(f, 0)] = back[f];
    s->b[GOK_MB(f, 1)] = (f & 1) ? GOK_E : GOK_S;
    /* Dark is the 180-degree rotation of Light. */
    s->b[GOK_MB(9 - f, 9)] = back[f] | GOK_DARK;
    s->b[GOK_MB(9 - f, 8)] = ((f & 1) ? GOK_E : GOK_S) | GOK_DARK;
  }
  int first = setup->ival[GOK_OPT_FIRST];
  if (first == GOK_FIRST_RANDOM) {
    /* The draw every layer reproduces: 0 = light, 1 = dark. */
    game_rng r;
    game_rng_init(&r, seed);
    s->side = (uint8_t)game_rng_below(&r, 2);
  } else {
    s->side = first == GOK_FIRST_DARK;
  }
  gok_recount(s);
  return 0;
}

/* ---- invariants ---------------------------------------------------------- */

/* Everything a reachable state satisfies; shared by check and
 * from_position so that a loaded position is one check() accepts. */
static int gok_validate(const gok_state *s, int code, agon_err *err) {
  int cnt[2][9] = {{0}}, prom[2] = {0}, knights[2] = {0}, castle[2] = {0};
  for (int m = 0; m < GOK_SQ; m++) {
    int f = GOK_FILE(m), r = GOK_RANK(m);
    int inside = m / GOK_W >= 1 && m / GOK_W <= 10 && m % GOK_W >= 1 &&
                 m % GOK_W <= 10;
    uint8_t p = s->b[m];
    if (!inside) {
      if (p != GOK_OFF) return agon_err_set(err, code, "border square %d damaged", m);
      continue;
    }
    if (p == 0) continue;
    int t = p & GOK_TYPE, side = (p & GOK_DARK) ? 1 : 0;
    if ((p & ~(GOK_TYPE | GOK_DARK | GOK_PROM)) || t < GOK_S || t > GOK_C)
      return agon_err_set(err, code, "bad piece code %d on %c%d", p, 'a' + f, r + 1);
    if ((p & GOK_PROM) && t != GOK_K)
      return agon_err_set(err, code, "only a Knight can carry the promoted flag (%c%d)",
                          'a' + f, r + 1);
    if (t == GOK_S && r == (side ? 9 : 0))
      return agon_err_set(err, code,
                          "a %s on %c%d: Soldiers never move backward to their own back rank",
                          gok_names[side][GOK_S], 'a' + f, r + 1);
    if ((p & GOK_PROM)) prom[side]++;
    else cnt[side][t]++;
    if (t == GOK_K) knights[side]++;
    if (t == GOK_C) castle[side]++;
  }
  static const int maxn[9] = {0, 5, 5, 2, 2, 2, 2, 1, 1};
  for (int side = 0; side < 2; side++) {
    for (int t = GOK_S; t <= GOK_C; t++)
      if (cnt[side][t] > maxn[t])
        return agon_err_set(err, code, "%s has %d %s pieces (at most %d)",
                            side ? "dark" : "light", cnt[side][t], gok_type_names[t],
                            maxn[t]);
    if (cnt[side][GOK_S] + s->prom_ever[side] > 5)
      return agon_err_set(err, code,
                          "%s: %d Soldiers plus %d promotions exceed the 5 Soldiers",
                          side ? "dark" : "light", cnt[side][GOK_S], s->prom_ever[side]);
    if (prom[side] > s->prom_ever[side])
      return agon_err_set(err, code, "%s has %d promoted Knights but %d promotions",
                          side ? "dark" : "light", prom[side], s->prom_ever[side]);
    if (prom[side] != s->prom_on[side] || knights[side] != s->knights[side])
      return agon_err_set(err, code, "cached Knight counts are stale");
    /* The cap is checked before each promotion, so it bounds the board. */
    int over_cap = 0;
    switch (s->cap_mode) {
      case GOK_CAP_PROMOTED_ON_BOARD: over_cap = prom[side] > s->cap_n; break;
      case GOK_CAP_TOTAL_ON_BOARD:
        over_cap = prom[side] > 0 && knights[side] > 2 + s->cap_n;
        break;
      case GOK_CAP_PER_GAME: over_cap = s->prom_ever[side] > s->cap_n; break;
      default: break;
    }
    if (over_cap)
      return agon_err_set(err, code, "%s has more promotions than knight_cap allows",
                          side ? "dark" : "light");
  }
  if (s->side > 1) return agon_err_set(err, code, "bad side to move %d", s->side);
  if (s->cap_mode > GOK_CAP_NONE || s->cap_n > 5 || s->no_move > 1)
    return agon_err_set(err, code, "bad option fields");
  if (castle[0] + castle[1] == 0)
    return agon_err_set(err, code, "both Castles are missing");
  if (castle[0] + castle[1] == 1) {
    int loser = castle[0] ? 1 : 0;
    if (!s->over || s->winner != 1 - loser)
      return agon_err_set(err, code, "a Castle is missing but the game is not won");
    if (s->side != loser)
      return agon_err_set(err, code,
                          "the %s Castle was just destroyed, so %s must be to move",
                          loser ? "dark" : "light", loser ? "dark" : "light");
    if (s->quiet != 0 || s->rev != 0)
      return agon_err_set(err, code,
                          "a Castle capture was the last move: counters must be 0");
  } else if (s->over || s->winner) {
    return agon_err_set(err, code, "game marked won with both Castles standing");
  }
  if (s->quiet_limit != 0 && s->quiet > s->quiet_limit)
    return agon_err_set(err, code, "quiet plies %u beyond the limit %u", s->quiet,
                        s->quiet_limit);
  if (s->pad_ || s->pad2_) return agon_err_set(err, code, "padding not zero");
  return 0;
}

static int gok_check(const game_state *st, agon_err *err) {
  return gok_validate(GOK_CST(st), AGON_EINTERNAL, err);
}

/* ---- play --------------------------------------------------------------- */

static game_outcome gok_outcome(const game_state *st) {
  const gok_state *s = GOK_CST(st);
  if (s->over) return game_outcome_win(s->winner, "castle_captured");
  if (s->quiet_limit != 0 && s->quiet >= s->quiet_limit)
    return game_outcome_draw("quiet_plies");
  if (!gok_any_move(s))
    return s->no_move == GOK_NOMOVE_LOSS
               ? game_outcome_win(1 - s->side, "no_moves")
               : game_outcome_draw("no_moves");
  return game_outcome_ongoing();
}

static int gok_to_move(const game_state *st) {
  if (gok_outcome(st).result != GAME_ONGOING) return GAME_NOBODY;
  return GOK_CST(st)->side;
}

static int gok_legal_moves(const game_state *st, game_move *out, size_t cap,
                           size_t *n) {
  size_t k = gok_gen(GOK_CST(st), out, cap);
  if (k > cap) {
    *n = cap;
    return AGON_ENOSPACE;
  }
  *n = k;
  return 0;
}

static int gok_apply(game_state *st, const game_move *mv, agon_err *err) {
  (void)err;
  gok_state *s = GOK_ST(st);
  const int from = mv->op[0], to = mv->op[1];
  const int side = s->side, other = 1 - side;
  uint8_t p = s->b[from];
  const uint8_t q = s->b[to];
  int irreversible = 0;
  if (q != 0) {
    irreversible = 1;
    int qt = q & GOK_TYPE;
    if (qt == GOK_K) {
      s->knights[other]--;
      if (q & GOK_PROM) s->prom_on[other]--;
    } else if (qt == GOK_C) {
      s->over = 1;
      s->winner = (uint8_t)side;
    }
  }
  const int pt = p & GOK_TYPE;
  if (pt == GOK_S) {
    int d = to - from;
    if (d != 1 && d != -1) irreversible = 1; /* forward: never undone */
    int last = side ? 0 : 9;
    int qt = q & GOK_TYPE;
    if ((GOK_RANK(to) == last || (q != 0 && qt != GOK_S && qt != GOK_E)) &&
        gok_cap_allows(s, side)) {
      p = (uint8_t)(GOK_K | GOK_PROM | (p & GOK_DARK));
      s->knights[side]++;
      s->prom_on[side]++;
      s->prom_ever[side]++;
      irreversible = 1;
    }
    s->quiet = 0;
  } else {
    if (pt == GOK_T) {
      int d = to - from;
      /* Giants never retreat: a change of rank cannot be undone. */
      if (d > 3 || d < -3) irreversible = 1;
    }
    if (q != 0) s->quiet = 0;
    else if (s->quiet < GOK_QUIET_SAT) s->quiet++;
  }
  if (irreversible) s->rev = 0;
  else if (s->rev < GOK_QUIET_SAT) s->rev++;
  s->b[to] = p;
  s->b[from] = GOK_EMPTY;
  s->side = (uint8_t)other;
  return 0;
}

/* ---- notation ----------------------------------------------------------- */

static int gok_square_text(int m, char *buf) {
  int f = GOK_FILE(m), r = GOK_RANK(m) + 1, k = 0;
  buf[k++] = (char)('a' + f);
  if (r >= 10) buf[k++] = '1', r -= 10, buf[k++] = (char)('0' + r);
  else buf[k++] = (char)('0' + r);
  buf[k] = '\0';
  return k;
}

static int gok_format_move(const game_state *st, const game_move *mv,
                           char *buf, size_t cap) {
  const gok_state *s = GOK_CST(st);
  char tmp[16];
  int k = 0;
  int from = mv->op[0], to = mv->op[1];
  if (mv->kind != GOK_MOVE_KIND || from >= GOK_SQ || to >= GOK_SQ)
    return AGON_EINVAL;
  k += gok_square_text(from, tmp + k);
  tmp[k++] = s->b[to] != 0 ? 'x' : '-';
  k += gok_square_text(to, tmp + k);
  if (gok_promotes(s, from, to)) tmp[k++] = '=', tmp[k++] = 'K';
  tmp[k] = '\0';
  if ((size_t)k + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, tmp, (size_t)k + 1);
  return k;
}

/* One square ("e10") at t[*i]; mailbox index or -1. */
static int gok_parse_square(const char *t, size_t len, size_t *i) {
  if (*i >= len || t[*i] < 'a' || t[*i] > 'j') return -1;
  int f = t[*i] - 'a';
  (*i)++;
  if (*i >= len || t[*i] < '1' || t[*i] > '9') return -1;
  int r = t[*i] - '0';
  (*i)++;
  if (r == 1 && *i < len && t[*i] == '0') {
    r = 10;
    (*i)++;
  }
  if (*i < len && t[*i] >= '0' && t[*i] <= '9') return -1;
  return GOK_MB(f, r - 1);
}

static int gok_parse_move(const game_state *st, const char *text, size_t len,
                          game_move *out, agon_err *err) {
  const gok_state *s = GOK_CST(st);
  char t[16] = {0};
  size_t n = 0;
  /* Normalise: drop blanks, lower-case ASCII; anything long is not notation. */
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (n == sizeof t) return agon_err_set(err, AGON_EBADMOVE, "move text too long");
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    t[n++] = c;
  }
  size_t i = 0;
  int from = gok_parse_square(t, n, &i);
  if (from < 0)
    return agon_err_set(err, AGON_EBADMOVE,
                        "expected a move like e2-e4, e2xe4 or e2e4");
  if (i < n && (t[i] == '-' || t[i] == 'x')) i++;
  int to = gok_parse_square(t, n, &i);
  if (to < 0)
    return agon_err_set(err, AGON_EBADMOVE,
                        "expected a destination square after the origin");
  int want_prom = 0;
  if (i + 2 == n && t[i] == '=' && t[i + 1] == 'k') {
    want_prom = 1;
    i += 2;
  }
  if (i != n)
    return agon_err_set(err, AGON_EBADMOVE,
                        "unexpected text after the move (only =K may follow)");
  if (gok_outcome(st).result != GAME_ONGOING)
    return agon_err_set(err, AGON_EGAMEOVER, NULL);

  char fs[4], ts[4];
  gok_square_text(from, fs);
  gok_square_text(to, ts);
  const int side = s->side, cb = gok_colour(side);
  const uint8_t p = s->b[from], q = s->b[to];
  if (p == 0 || (p & GOK_DARK) != cb)
    return agon_err_set(err, AGON_EILLEGAL, "%s holds no piece of the side to move", fs);
  const int pt = p & GOK_TYPE;
  if (pt == GOK_C) return agon_err_set(err, AGON_EILLEGAL, "the Castle never moves");
  if (from == to) return agon_err_set(err, AGON_EILLEGAL, "a move must change square");
  if (q != 0 && (q & GOK_DARK) == cb)
    return agon_err_set(err, AGON_EILLEGAL, "%s holds a friendly piece", ts);
  game_move buf[64]; /* one piece has at most 36 moves (a central Paladin) */
  size_t k = gok_gen_piece(s, from, buf, 64, 0);
  game_move mv = {GOK_MOVE_KIND, 2, {(uint8_t)from, (uint8_t)to}};
  int found = 0;
  for (size_t j = 0; j < k && j < 64; j++)
    if (game_move_eq(&buf[j], &mv)) found = 1;
  if (!found) {
    if ((pt == GOK_S || pt == GOK_E) && (q & GOK_TYPE) == GOK_T)
      return agon_err_set(err, AGON_EILLEGAL, "a lesser piece cannot destroy the %s on %s",
                          gok_names[1 - side][GOK_T], ts);
    return agon_err_set(err, AGON_EILLEGAL, "the %s on %s cannot move to %s",
                        (p & GOK_PROM) ? "promoted Knight" : gok_names[side][pt], fs, ts);
  }
  if (want_prom && !gok_promotes(s, from, to))
    return agon_err_set(err, AGON_EILLEGAL,
                        pt == GOK_S ? "%s%c%s does not promote (promotion cap reached or no trigger)"
                                    : "%s%c%s does not promote (only Soldiers promote)",
                        fs, q ? 'x' : '-', ts);
  *out = mv;
  return 0;
}

/* ---- positions ----------------------------------------------------------- */

/* Letter of a piece: upper case for Light. */
static char gok_letter(uint8_t p) {
  char c = gok_letters[p & GOK_TYPE];
  return (p & GOK_DARK) ? (char)(c - 'A' + 'a') : c;
}

/* Canonical position string into buf (OUT); length or AGON_ENOSPACE. */
static int gok_to_position(const game_state *st, char *buf, size_t cap) {
  const gok_state *s = GOK_CST(st);
  char tmp[GAME_POSITION_MAX];
  int k = 0;
  for (int r = 9; r >= 0; r--) {
    int run = 0;
    for (int f = 0; f < 10; f++) {
      uint8_t p = s->b[GOK_MB(f, r)];
      if (p == 0) {
        run++;
        continue;
      }
      if (run) k += snprintf(tmp + k, sizeof tmp - (size_t)k, "%d", run), run = 0;
      if (p & GOK_PROM) tmp[k++] = '+';
      tmp[k++] = gok_letter(p);
    }
    if (run) k += snprintf(tmp + k, sizeof tmp - (size_t)k, "%d", run);
    if (r) tmp[k++] = '/';
  }
  k += snprintf(tmp + k, sizeof tmp - (size_t)k, " %c %u %u %u %u",
                s->side ? 'd' : 'l', s->quiet, s->rev, s->prom_ever[0],
                s->prom_ever[1]);
  if ((size_t)k + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, tmp, (size_t)k + 1);
  return k;
}

/* Decimal number in [0, max] at p[*i] without leading zeros; -1 if not. */
static long gok_parse_num(const char *p, size_t len, size_t *i, long max) {
  size_t start = *i;
  long v = 0;
  while (*i < len && p[*i] >= '0' && p[*i] <= '9') {
    v = v * 10 + (p[*i] - '0');
    if (v > max) return -1;
    (*i)++;
  }
  if (*i == start || (*i - start > 1 && p[start] == '0')) return -1;
  return v;
}

static int gok_piece_from_letter(char c, uint8_t *out) {
  const char *hit = NULL;
  char u = c;
  uint8_t colour = 0;
  if (c >= 'a' && c <= 'z') u = (char)(c - 'a' + 'A'), colour = GOK_DARK;
  if (u >= 'A' && u <= 'Z') hit = strchr(gok_letters + 1, u);
  if (hit == NULL) return -1;
  *out = (uint8_t)((hit - gok_letters) | colour);
  return 0;
}

/* Strict parse of a position string (pos is not NUL-terminated: len bytes);
 * *st (OUT) is zeroed on failure. Options come from setup. */
static int gok_from_position(game_state *st, const game_setup *setup,
                             const char *pos, size_t len, agon_err *err) {
  gok_state *s = GOK_ST(st);
  memset(st, 0, sizeof *st);
  if (gok_check_options(setup, err) < 0) return AGON_EOPTION;
  gok_clear(s, setup);
  size_t i = 0;
  for (int r = 9; r >= 0; r--) {
    int f = 0, last_digit = 0;
    while (i < len && pos[i] != '/' && pos[i] != ' ') {
      char c = pos[i];
      if (c >= '0' && c <= '9') {
        if (last_digit)
          return agon_err_set(err, AGON_EPOSITION, "rank %d: two numbers in a row", r + 1);
        long v = gok_parse_num(pos, len, &i, 10);
        if (v < 1 || f + v > 10)
          return agon_err_set(err, AGON_EPOSITION, "rank %d: bad empty-square count", r + 1);
        f += (int)v;
        last_digit = 1;
        continue;
      }
      int prom = 0;
      if (c == '+') {
        prom = 1;
        if (++i >= len)
          return agon_err_set(err, AGON_EPOSITION, "'+' must precede a Knight");
        c = pos[i];
      }
      uint8_t p;
      if (gok_piece_from_letter(c, &p) < 0)
        return agon_err_set(err, AGON_EPOSITION, "rank %d: unexpected character 0x%02x",
                            r + 1, (unsigned char)c);
      if (prom) {
        if ((p & GOK_TYPE) != GOK_K)
          return agon_err_set(err, AGON_EPOSITION, "'+' must precede a Knight (K or k)");
        p |= GOK_PROM;
      }
      if (f >= 10)
        return agon_err_set(err, AGON_EPOSITION, "rank %d has more than 10 squares", r + 1);
      s->b[GOK_MB(f, r)] = p;
      f++;
      i++;
      last_digit = 0;
    }
    if (f != 10)
      return agon_err_set(err, AGON_EPOSITION, "rank %d has %d squares, not 10", r + 1, f);
    if (r > 0) {
      if (i >= len || pos[i] != '/')
        return agon_err_set(err, AGON_EPOSITION, "expected 10 ranks separated by '/'");
      i++;
    }
  }
  if (i + 2 > len || pos[i] != ' ' || (pos[i + 1] != 'l' && pos[i + 1] != 'd'))
    return agon_err_set(err, AGON_EPOSITION, "expected ' l' or ' d' (side to move) after the board");
  s->side = pos[i + 1] == 'd';
  i += 2;
  long v[4];
  static const long maxv[4] = {GOK_QUIET_SAT, GOK_QUIET_SAT, 5, 5};
  static const char *const what[4] = {"quiet plies", "reversible plies",
                                      "light promotions", "dark promotions"};
  for (int k = 0; k < 4; k++) {
    if (i >= len || pos[i] != ' ')
      return agon_err_set(err, AGON_EPOSITION, "missing %s counter", what[k]);
    i++;
    v[k] = gok_parse_num(pos, len, &i, maxv[k]);
    if (v[k] < 0)
      return agon_err_set(err, AGON_EPOSITION, "bad %s counter (0..%ld)", what[k],
                          maxv[k]);
  }
  if (i != len)
    return agon_err_set(err, AGON_EPOSITION, "unexpected text after the counters");
  s->quiet = (uint16_t)v[0];
  s->rev = (uint16_t)v[1];
  s->prom_ever[0] = (uint8_t)v[2];
  s->prom_ever[1] = (uint8_t)v[3];
  gok_recount(s);
  /* A missing Castle means the other side just destroyed it. */
  int castle[2] = {0, 0};
  for (int m = 0; m < GOK_SQ; m++)
    if (s->b[m] != GOK_OFF && (s->b[m] & GOK_TYPE) == GOK_C)
      castle[(s->b[m] & GOK_DARK) ? 1 : 0]++;
  if (castle[0] + castle[1] == 1) {
    s->over = 1;
    s->winner = castle[0] ? 0 : 1;
  }
  int rc = gok_validate(s, AGON_EPOSITION, err);
  if (rc < 0) memset(st, 0, sizeof *st);
  return rc;
}

/* ---- views -------------------------------------------------------------- */

/* Client view (new reference); fields documented in
 * docs/positions/gambit_of_kings.md. */
static json_t *gok_to_json(const game_state *st, int viewer) {
  (void)viewer; /* perfect information */
  const gok_state *s = GOK_CST(st);
  json_t *v = json_object();
  json_t *board = json_array(), *pieces = json_array();
  json_t *castles = json_object();
  json_object_set_new(castles, "light", json_null());
  json_object_set_new(castles, "dark", json_null());
  for (int r = 9; r >= 0; r--) {
    char row[11];
    for (int f = 0; f < 10; f++) {
      uint8_t p = s->b[GOK_MB(f, r)];
      row[f] = p ? gok_letter(p) : '.';
      if (p == 0) continue;
      char sq[4];
      gok_square_text(GOK_MB(f, r), sq);
      int side = (p & GOK_DARK) ? 1 : 0;
      json_array_append_new(
          pieces, json_pack("{s:s, s:s, s:s, s:s, s:b}", "square", sq, "side",
                            side ? "dark" : "light", "type",
                            gok_type_names[p & GOK_TYPE], "name",
                            gok_names[side][p & GOK_TYPE],
                            "promoted", (p & GOK_PROM) != 0));
      if ((p & GOK_TYPE) == GOK_C)
        json_object_set_new(castles, side ? "dark" : "light", json_string(sq));
    }
    row[10] = '\0';
    json_array_append_new(board, json_string(row));
  }
  json_object_set_new(v, "board", board);
  json_object_set_new(v, "pieces", pieces);
  int tm = gok_to_move(st);
  json_object_set_new(v, "to_move",
                      tm == GAME_NOBODY ? json_null()
                                        : json_string(tm ? "dark" : "light"));
  json_object_set_new(v, "castles", castles);
  json_object_set_new(v, "promoted_on_board",
                      json_pack("{s:i, s:i}", "light", s->prom_on[0], "dark",
                                s->prom_on[1]));
  json_object_set_new(v, "promotions",
                      json_pack("{s:i, s:i}", "light", s->prom_ever[0], "dark",
                                s->prom_ever[1]));
  json_object_set_new(v, "can_promote",
                      json_pack("{s:b, s:b}", "light", gok_cap_allows(s, 0),
                                "dark", gok_cap_allows(s, 1)));
  json_object_set_new(v, "quiet_plies", json_integer(s->quiet));
  return v;
}

static int gok_to_text(const game_state *st, char *buf, size_t cap) {
  const gok_state *s = GOK_CST(st);
  char tmp[1024];
  int k = 0;
  k += snprintf(tmp + k, sizeof tmp - (size_t)k, "     a b c d e f g h i j\n");
  for (int r = 9; r >= 0; r--) {
    k += snprintf(tmp + k, sizeof tmp - (size_t)k, " %2d ", r + 1);
    for (int f = 0; f < 10; f++) {
      uint8_t p = s->b[GOK_MB(f, r)];
      /* '+' before a letter marks a promoted Knight (it counts for the cap). */
      tmp[k++] = (p & GOK_PROM) ? '+' : ' ';
      tmp[k++] = p ? gok_letter(p) : '.';
    }
    k += snprintf(tmp + k, sizeof tmp - (size_t)k, "  %d\n", r + 1);
  }
  k += snprintf(tmp + k, sizeof tmp - (size_t)k,
                "     a b c d e f g h i j\n"
                "promoted on board: light %u, dark %u; quiet plies %u\n",
                s->prom_on[0], s->prom_on[1], s->quiet);
  if ((size_t)k + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, tmp, (size_t)k + 1);
  return k;
}

/* ---- repetition ---------------------------------------------------------- */

/* Pieces (with promoted flags), side to move and the promotions made (they
 * steer the per-game cap). Counters are left out: they differ between
 * repetitions of one position. */
static uint64_t gok_hash(const game_state *st) {
  const gok_state *s = GOK_CST(st);
  uint64_t h = game_hash_bytes(GAME_HASH_INIT, s->b, sizeof s->b);
  h = game_hash_bytes(h, &s->side, 1);
  return game_hash_bytes(h, s->prom_ever, sizeof s->prom_ever);
}

static unsigned gok_repetition(const game_state *st, unsigned *window) {
  const gok_state *s = GOK_CST(st);
  /* Captures, promotions and forward Soldier/Giant moves cannot be undone
   * (pieces never come back, Soldiers and Giants never retreat), so no
   * earlier position can recur across them. */
  if (window) *window = s->rev;
  return s->rep_limit;
}

const game_vtable gok_vtable = {
    .name = "gambit-of-kings",
    .title = "Gambit of Kings",
    .version = 1,
    .side_names = {"light", "dark"},
    .state_size = sizeof(gok_state),
    .options = gok_options,
    .n_options = GOK_N_OPTS,
    .init = gok_init,
    .from_position = gok_from_position,
    .to_position = gok_to_position,
    .to_move = gok_to_move,
    .legal_moves = gok_legal_moves,
    .parse_move = gok_parse_move,
    .format_move = gok_format_move,
    .describe_move = NULL,
    .apply = gok_apply,
    .outcome = gok_outcome,
    .check = gok_check,
    .to_json = gok_to_json,
    .to_text = gok_to_text,
    .hash = gok_hash,
    .repetition = gok_repetition,
    .repetition_outcome = NULL,
};
