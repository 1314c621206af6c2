/* gambo_2023.c - Gambo, 2023 rules (Cosmoludo): a shared corridor, scored
 * duels, the trailing player holds the hand, +4 for the last duel's winner.
 * Contract: shared/rules/gambo-2023.md. Position format, outcome reasons and
 * the JSON view: docs/positions/gambo_2023.md.
 *
 * Representation. Each side owns nine columns a..i; by the spec's invariant
 * (section 1.1) a column holds at most one piece of a side, either on its
 * home square or on the line square it faces (South's column c faces line
 * index 2c, North's 2c+1, 0-based). So a piece is (side, column) plus an
 * at-home/on-line bit, and a permutation only swaps two piece ids: it never
 * changes which squares are occupied. Masks of the home and line columns are
 * kept next to the ids so move generation is a few bit loops (perft copies
 * the whole state per node, so it stays under 48 bytes).
 */
#include <stdio.h>
#include <string.h>

#include "gambo_common.h"
#include "games.h"

/* ---- pieces ------------------------------------------------------------ */

/* Piece ids 1..9: E1 E2 E3 C1 C2 C3 M1 M2 M3 (species * 3 + strength).
 * 0 = no piece. */
#define G23_NPIECE 9
#define G23_NCOL 9
#define G23_NLINE 18
#define G23_NONE 0xff
#define G23_COLMASK 0x1ffu
#define G23_MAX_LEGAL 64 /* > 9 advances + 36 permutations + 17 duels */

enum { G23_E = 0, G23_C = 1, G23_M = 2 };

static int g23_species(int id) { return (id - 1) / 3; }
static int g23_strength(int id) { return (id - 1) % 3 + 1; }

static const char g23_species_ch[3] = {'E', 'C', 'M'};

/* ---- options ----------------------------------------------------------- */

enum {
  G23_OPT_CHOOSER = 0,
  G23_OPT_TURN_ORDER,
  G23_OPT_REPETITION_END,
  G23_OPT_SOUTH,
  G23_OPT_NORTH,
  G23_NOPT
};

enum { G23_TURN_HAND = 0, G23_TURN_ALTERNATE = 1 };

static const game_option gambo23_options[G23_NOPT] = {
    {"chooser", GAME_OPT_ENUM, "random|creator", "random", 0, 0,
     "which player chooses the side (the other moves first)"},
    {"turn_order", GAME_OPT_ENUM, "hand|alternate", "hand", 0, 0,
     "hand: the trailing player keeps playing; alternate: only right after a duel"},
    {"repetition_end", GAME_OPT_INT, NULL, "3", 0, 100,
     "end the game (scores as they stand) when a state occurs this often; 0 = off"},
    {"south", GAME_OPT_TEXT, NULL, "", 0, 0,
     "South's home row a..i, e.g. M2,E3,C1,E1,M3,C2,M1,C3,E2 (default: dealt from the seed)"},
    {"north", GAME_OPT_TEXT, NULL, "", 0, 0,
     "North's home row a..i (default: dealt from the seed)"},
};

/* ---- state ------------------------------------------------------------- */

#define G23_CHOOSER 2
#define G23_OVER 3

#define G23_F_LASTPERM 1u  /* the most recent action was a permutation */
#define G23_F_ALTERNATE 2u /* option turn_order=alternate (copied by init) */

typedef struct g23_state {
  uint8_t pc[2][G23_NCOL]; /* piece id per side and column, 0 = none */
  uint16_t home[2];        /* columns whose piece is on its home square */
  uint16_t lcol[2];        /* columns whose piece is on the line */
  uint32_t line;           /* occupied line squares, bit 2c+side */
  uint8_t score[2];        /* totals, bonus included once over */
  uint8_t to_move;         /* 0, 1, G23_CHOOSER or G23_OVER */
  uint8_t flags;           /* G23_F_* */
  uint8_t run[2];          /* own consecutive permutations (0..2) */
  uint8_t duels;           /* duels played (0..9) */
  uint8_t last_winner;     /* winner of the 9th duel, G23_NONE before */
  uint16_t quiet;          /* plies since the last choose/advance/duel,
                              saturating: the repetition window */
  uint8_t rep_limit;       /* option repetition_end */
  uint8_t pad_;
} g23_state;

_Static_assert(sizeof(g23_state) <= GAME_STATE_MAX, "gambo-2023 state too big");

/* Move kinds. Operands: columns 0..8 (choose: the side chosen). */
enum {
  G23_MV_CHOOSE = 1,  /* op0 = side chosen by the chooser */
  G23_MV_ADVANCE = 2, /* op0 = column */
  G23_MV_PERMUTE = 3, /* op0 < op1 = columns */
  G23_MV_DUEL = 4,    /* op0 = mover's column, op1 = opponent's column */
  G23_MV_PASS = 5
};

/* Spread a 9-bit column mask onto the even bits of the 18-bit line. */
static uint32_t g23_spread(unsigned cols) {
  uint32_t r = 0;
  for (unsigned c = 0; c < G23_NCOL; c++)
    if (cols & (1u << c)) r |= 1u << (2 * c);
  return r;
}

/* ---- set-up ------------------------------------------------------------ */

static const char *const g23_piece_names[10] = {"-",  "E1", "E2", "E3", "C1",
                                                "C2", "C3", "M1", "M2", "M3"};

/* Option-derived fields shared by init and from_position. */
static int g23_apply_options(g23_state *g, const game_setup *setup,
                             agon_err *err) {
  int rep = setup->ival[G23_OPT_REPETITION_END];
  if (rep == 1)
    return agon_err_set(err, AGON_EOPTION,
                        "option repetition_end: 0 (off) or at least 2");
  g->rep_limit = (uint8_t)rep;
  if (setup->ival[G23_OPT_TURN_ORDER] == G23_TURN_ALTERNATE)
    g->flags |= G23_F_ALTERNATE;
  return 0;
}

static int gambo23_init(game_state *st, const game_setup *setup, uint64_t seed,
                        agon_err *err) {
  g23_state *g = (g23_state *)st->u.bytes;
  uint8_t rows[2][9];
  memset(st, 0, sizeof *st);
  gambo_deal(seed, rows);
  static const int idx[2] = {G23_OPT_SOUTH, G23_OPT_NORTH};
  for (int s = 0; s < 2; s++) {
    if (setup->text[idx[s]][0] == '\0') continue;
    int rc = gambo_parse_row(gambo23_options[idx[s]].name, setup->text[idx[s]],
                           rows[s], err);
    if (rc < 0) return rc;
  }
  for (int s = 0; s < 2; s++) {
    memcpy(g->pc[s], rows[s], 9);
    g->home[s] = G23_COLMASK;
  }
  g->to_move = G23_CHOOSER;
  g->last_winner = G23_NONE;
  return g23_apply_options(g, setup, err);
}

/* ---- queries ----------------------------------------------------------- */

static int gambo23_to_move(const game_state *st) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  if (g->to_move == G23_OVER) return GAME_NOBODY;
  return g->to_move;
}

static int g23_may_permute(const g23_state *g, int p) {
  return !(g->flags & G23_F_LASTPERM) && g->run[p] < 2;
}

static game_move g23_mv(int kind, int n, int a, int b) {
  game_move m;
  memset(&m, 0, sizeof m);
  m.kind = (uint8_t)kind;
  m.n = (uint8_t)n;
  m.op[0] = (uint8_t)a;
  m.op[1] = (uint8_t)b;
  return m;
}

static int gambo23_legal_moves(const game_state *st, game_move *out,
                               size_t cap, size_t *n) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  size_t k = 0;
  *n = 0;
  if (g->to_move == G23_OVER) return 0;
  /* Worst case 9 advances + 36 permutations + 17 duels = 62: callers with
   * GAME_MAX_MOVES never need a per-move bound check; a smaller buffer goes
   * through a local one. */
  if (cap < G23_MAX_LEGAL) {
    game_move tmp[G23_MAX_LEGAL];
    size_t m = 0;
    gambo23_legal_moves(st, tmp, G23_MAX_LEGAL, &m);
    if (m > cap) return AGON_ENOSPACE;
    memcpy(out, tmp, m * sizeof *tmp);
    *n = m;
    return 0;
  }
  if (g->to_move == G23_CHOOSER) {
    out[k++] = g23_mv(G23_MV_CHOOSE, 1, GAME_SIDE1, 0);
    out[k++] = g23_mv(G23_MV_CHOOSE, 1, GAME_SIDE0, 0);
    *n = k;
    return 0;
  }
  int p = g->to_move;
  for (unsigned h = g->home[p]; h; h &= h - 1)
    out[k++] = g23_mv(G23_MV_ADVANCE, 1, __builtin_ctz(h), 0);
  if (g23_may_permute(g, p)) {
    unsigned occ = g->home[p] | g->lcol[p];
    for (unsigned a = occ; a; a &= a - 1) {
      int x = __builtin_ctz(a);
      for (unsigned b = a & (a - 1); b; b &= b - 1)
        out[k++] = g23_mv(G23_MV_PERMUTE, 2, x, __builtin_ctz(b));
    }
  }
  /* Duels: neighbours in the order of occupied line squares whose owners
   * differ (parity of the square). The mover's one attacks. */
  uint32_t line = g->line;
  if (line) {
    int prev = __builtin_ctz(line);
    for (line &= line - 1; line; line &= line - 1) {
      int sq = __builtin_ctz(line);
      if ((sq ^ prev) & 1) {
        int mine = (prev & 1) == p ? prev : sq;
        int theirs = prev + sq - mine;
        out[k++] = g23_mv(G23_MV_DUEL, 2, mine >> 1, theirs >> 1);
      }
      prev = sq;
    }
  }
  if (k == 0) out[k++] = g23_mv(G23_MV_PASS, 0, 0, 0);
  *n = k;
  return 0;
}

/* Squares strictly between line squares a and b are all empty. */
static int g23_line_clear(uint32_t line, int a, int b) {
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
  uint32_t between = ((1u << b) - 1) & ~((2u << a) - 1);
  return (line & between) == 0;
}

/* Any action besides pass is legal for the side to move. */
static int g23_has_action(const g23_state *g) {
  game_move buf[G23_MAX_LEGAL];
  size_t n = 0;
  game_state tmp;
  memcpy(tmp.u.bytes, g, sizeof *g);
  gambo23_legal_moves(&tmp, buf, G23_MAX_LEGAL, &n);
  return !(n == 1 && buf[0].kind == G23_MV_PASS);
}

/* ---- apply ------------------------------------------------------------- */

/* Who acts after an advance or a duel by p (spec 2.2). */
static void g23_after_scoring_action(g23_state *g, int p, int was_duel) {
  int o = p ^ 1;
  if (g->duels == 0 || (!was_duel && (g->flags & G23_F_ALTERNATE))) {
    g->to_move = (uint8_t)o;
    return;
  }
  /* Behind or tied: p keeps (or takes) the hand; ahead: it passes. */
  g->to_move = (uint8_t)(g->score[p] > g->score[o] ? o : p);
}

static int gambo23_apply(game_state *st, const game_move *mv, agon_err *err) {
  g23_state *g = (g23_state *)st->u.bytes;
  (void)err;
  int p = g->to_move;
  switch (mv->kind) {
    case G23_MV_CHOOSE:
      /* The chooser takes side op0; the other player moves first. */
      g->to_move = (uint8_t)(mv->op[0] ^ 1);
      g->quiet = 0;
      return 0;
    case G23_MV_ADVANCE: {
      int c = mv->op[0];
      g->home[p] &= (uint16_t) ~(1u << c);
      g->lcol[p] |= (uint16_t)(1u << c);
      g->line |= 1u << (2 * c + p);
      g->run[p] = 0;
      g->flags &= (uint8_t)~G23_F_LASTPERM;
      g->quiet = 0;
      g23_after_scoring_action(g, p, 0);
      return 0;
    }
    case G23_MV_PERMUTE: {
      uint8_t t = g->pc[p][mv->op[0]];
      g->pc[p][mv->op[0]] = g->pc[p][mv->op[1]];
      g->pc[p][mv->op[1]] = t;
      g->run[p]++;
      g->flags |= G23_F_LASTPERM;
      if (g->quiet < UINT16_MAX) g->quiet++;
      g->to_move = (uint8_t)(p ^ 1);
      return 0;
    }
    case G23_MV_DUEL: {
      int o = p ^ 1, x = mv->op[0], y = mv->op[1];
      int a = g->pc[p][x], d = g->pc[o][y];
      int w = gambo_attacker_wins(a, d) ? p : o;
      g->score[w] = (uint8_t)(g->score[w] + g23_strength(a) * g23_strength(d));
      g->pc[p][x] = 0;
      g->pc[o][y] = 0;
      g->lcol[p] &= (uint16_t) ~(1u << x);
      g->lcol[o] &= (uint16_t) ~(1u << y);
      g->line &= ~((1u << (2 * x + p)) | (1u << (2 * y + o)));
      g->duels++;
      g->run[p] = 0;
      g->flags &= (uint8_t)~G23_F_LASTPERM;
      g->quiet = 0;
      if (g->duels == G23_NPIECE) {
        g->score[w] = (uint8_t)(g->score[w] + 4);
        g->last_winner = (uint8_t)w;
        g->to_move = G23_OVER;
        return 0;
      }
      g23_after_scoring_action(g, p, 1);
      return 0;
    }
    case G23_MV_PASS:
      g->run[p] = 0;
      g->flags &= (uint8_t)~G23_F_LASTPERM;
      if (g->quiet < UINT16_MAX) g->quiet++;
      g->to_move = (uint8_t)(p ^ 1);
      return 0;
    default:
      return agon_err_set(err, AGON_EINTERNAL, "gambo-2023: bad move kind %d",
                          mv->kind);
  }
}

/* ---- notation ---------------------------------------------------------- */

static const char *const g23_side_title[2] = {"South", "North"};

static int g23_out(size_t cap, int len) {
  if (len < 0 || (size_t)len >= cap) return AGON_ENOSPACE;
  return len;
}

static int gambo23_format_move(const game_state *st, const game_move *mv,
                               char *buf, size_t cap) {
  (void)st;
  int len;
  switch (mv->kind) {
    case G23_MV_CHOOSE:
      len = snprintf(buf, cap, "choose %s", mv->op[0] ? "north" : "south");
      break;
    case G23_MV_ADVANCE:
      len = snprintf(buf, cap, "advance %c", 'a' + mv->op[0]);
      break;
    case G23_MV_PERMUTE:
      len = snprintf(buf, cap, "permute %c %c", 'a' + mv->op[0], 'a' + mv->op[1]);
      break;
    case G23_MV_DUEL:
      len = snprintf(buf, cap, "duel %c %c", 'a' + mv->op[0], 'a' + mv->op[1]);
      break;
    case G23_MV_PASS:
      len = snprintf(buf, cap, "pass");
      break;
    default:
      len = snprintf(buf, cap, "?");
      break;
  }
  return g23_out(cap, len);
}

/* The spec's echo: "duel e e (M3 x C1): North +3", plus the bonus and the
 * result on the ninth duel; the pieces moved for the other actions. */
static int gambo23_describe_move(const game_state *st, const game_move *mv,
                                 char *buf, size_t cap) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  int len = gambo23_format_move(st, mv, buf, cap);
  if (len < 0) return len;
  int p = g->to_move, w;
  if (p > 1) {
    if (mv->kind == G23_MV_CHOOSE)
      len += snprintf(buf + len, cap - (size_t)len, " (%s moves first)",
                      g23_side_title[mv->op[0] ^ 1]);
    return g23_out(cap, len);
  }
  switch (mv->kind) {
    case G23_MV_ADVANCE:
      len += snprintf(buf + len, cap - (size_t)len, " (%s to L%d)",
                      g23_piece_names[g->pc[p][mv->op[0]]], 2 * mv->op[0] + p + 1);
      break;
    case G23_MV_PERMUTE:
      len += snprintf(buf + len, cap - (size_t)len, " (%s <-> %s)",
                      g23_piece_names[g->pc[p][mv->op[0]]],
                      g23_piece_names[g->pc[p][mv->op[1]]]);
      break;
    case G23_MV_DUEL: {
      int a = g->pc[p][mv->op[0]], d = g->pc[p ^ 1][mv->op[1]];
      w = gambo_attacker_wins(a, d) ? p : p ^ 1;
      len += snprintf(buf + len, cap - (size_t)len, " (%s x %s): %s +%d",
                      g23_piece_names[a], g23_piece_names[d], g23_side_title[w],
                      g23_strength(a) * g23_strength(d));
      if (len >= 0 && (size_t)len < cap && g->duels == G23_NPIECE - 1) {
        int s[2] = {g->score[0], g->score[1]};
        s[w] += g23_strength(a) * g23_strength(d) + 4;
        int win = s[0] == s[1] ? w : (s[0] > s[1] ? 0 : 1);
        len += snprintf(buf + len, cap - (size_t)len,
                        ", bonus +4: %s wins %d-%d", g23_side_title[win], s[0],
                        s[1]);
      }
      break;
    }
    default:
      break;
  }
  return g23_out(cap, len);
}

/* Lower-cased text without blanks, cut at a '(' (the echo is ignored).
 * Returns its length, or -1 if too long to be notation. */
static int g23_normalize(const char *text, size_t len, char *out, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == '(') break;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
        c == '\f')
      continue;
    if (k + 1 >= cap) return -1;
    out[k++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  out[k] = '\0';
  return (int)k;
}

/* One operand: a column letter a..i, or a piece code (e/c/m + 1..3).
 * *col gets the column (0..8) or -1, *piece the piece id or 0. Returns the
 * characters consumed, or 0 if nothing valid starts here. */
static int g23_operand(const char *s, int *col, int *piece) {
  *col = -1;
  *piece = 0;
  if ((s[0] == 'e' || s[0] == 'c' || s[0] == 'm') && s[1] >= '0' &&
      s[1] <= '9') {
    *piece = gambo_piece_from(s, 2);
    return *piece ? 2 : 0;
  }
  if (s[0] >= 'a' && s[0] <= 'i') {
    *col = s[0] - 'a';
    return 1;
  }
  return 0;
}

/* Column of side's piece id, or -1. */
static int g23_col_of(const g23_state *g, int side, int id) {
  for (int c = 0; c < G23_NCOL; c++)
    if (g->pc[side][c] == id) return c;
  return -1;
}

/* Resolve an operand to a column of side; EILLEGAL if the piece is gone. */
static int g23_resolve(const g23_state *g, int side, int col, int piece,
                       int *out, agon_err *err) {
  if (piece) {
    col = g23_col_of(g, side, piece);
    if (col < 0)
      return agon_err_set(err, AGON_EILLEGAL, "%s has no %s on the board",
                          g23_side_title[side], g23_piece_names[piece]);
  }
  *out = col;
  return 0;
}

static int gambo23_parse_move(const game_state *st, const char *text,
                              size_t len, game_move *out, agon_err *err) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  static const struct {
    const char *word;
    int kind, nops;
  } words[] = {{"choose", G23_MV_CHOOSE, 0},   {"advance", G23_MV_ADVANCE, 1},
               {"permute", G23_MV_PERMUTE, 2}, {"duel", G23_MV_DUEL, 2},
               {"pass", G23_MV_PASS, 0}};
  char s[48];
  if (text == NULL) return agon_err_set(err, AGON_EBADMOVE, "empty move");
  if (g->to_move == G23_OVER) return agon_err_set(err, AGON_EGAMEOVER, NULL);
  if (g23_normalize(text, len, s, sizeof s) <= 0)
    return agon_err_set(err, AGON_EBADMOVE, "not a Gambo move");
  int kind = 0, nops = 0;
  const char *p = s;
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    size_t wl = strlen(words[i].word);
    if (strncmp(s, words[i].word, wl) == 0) {
      kind = words[i].kind;
      nops = words[i].nops;
      p = s + wl;
      break;
    }
  }
  if (kind == 0)
    return agon_err_set(err, AGON_EBADMOVE,
                        "expected choose, advance, permute, duel or pass");
  int side = -1, cols[2] = {-1, -1}, pieces[2] = {0, 0};
  if (kind == G23_MV_CHOOSE) {
    if (strcmp(p, "south") == 0 || strcmp(p, "s") == 0) side = GAME_SIDE0;
    else if (strcmp(p, "north") == 0 || strcmp(p, "n") == 0) side = GAME_SIDE1;
    else return agon_err_set(err, AGON_EBADMOVE, "choose north or choose south");
  } else {
    for (int i = 0; i < nops; i++) {
      int used = g23_operand(p, &cols[i], &pieces[i]);
      if (used == 0)
        return agon_err_set(err, AGON_EBADMOVE,
                            "expected a column a-i or a piece code E1..M3");
      p += used;
    }
    if (*p != '\0')
      return agon_err_set(err, AGON_EBADMOVE, "unexpected text after the move");
  }

  /* Well-formed: now legality. */
  if (g->to_move == G23_CHOOSER) {
    if (kind != G23_MV_CHOOSE)
      return agon_err_set(err, AGON_EILLEGAL,
                          "a side must be chosen first (choose north|south)");
    *out = g23_mv(G23_MV_CHOOSE, 1, side, 0);
    return 0;
  }
  if (kind == G23_MV_CHOOSE)
    return agon_err_set(err, AGON_EILLEGAL, "sides are already chosen");
  int me = g->to_move, opp = me ^ 1;
  const char *who = g23_side_title[me];
  int x = -1, y = -1, rc;
  switch (kind) {
    case G23_MV_ADVANCE:
      if ((rc = g23_resolve(g, me, cols[0], pieces[0], &x, err)) < 0) return rc;
      if (!(g->home[me] & (1u << x)))
        return agon_err_set(err, AGON_EILLEGAL,
                            (g->lcol[me] & (1u << x))
                                ? "%s's piece of column %c is already on the line"
                                : "%s has no piece in column %c",
                            who, 'a' + x);
      *out = g23_mv(G23_MV_ADVANCE, 1, x, 0);
      return 0;
    case G23_MV_PERMUTE: {
      if ((rc = g23_resolve(g, me, cols[0], pieces[0], &x, err)) < 0) return rc;
      if ((rc = g23_resolve(g, me, cols[1], pieces[1], &y, err)) < 0) return rc;
      unsigned occ = g->home[me] | g->lcol[me];
      for (int i = 0; i < 2; i++) {
        int c = i ? y : x;
        if (!(occ & (1u << c)))
          return agon_err_set(err, AGON_EILLEGAL, "%s has no piece in column %c",
                              who, 'a' + c);
      }
      if (x == y)
        return agon_err_set(err, AGON_EILLEGAL,
                            "a permutation exchanges two different pieces");
      if (g->flags & G23_F_LASTPERM)
        return agon_err_set(err, AGON_EILLEGAL,
                            "no permutation right after the opponent's");
      if (g->run[me] >= 2)
        return agon_err_set(err, AGON_EILLEGAL,
                            "no third permutation in a row");
      *out = g23_mv(G23_MV_PERMUTE, 2, x < y ? x : y, x < y ? y : x);
      return 0;
    }
    case G23_MV_DUEL: {
      if ((rc = g23_resolve(g, me, cols[0], pieces[0], &x, err)) < 0) return rc;
      if ((rc = g23_resolve(g, opp, cols[1], pieces[1], &y, err)) < 0) return rc;
      if (!(g->lcol[me] & (1u << x)))
        return agon_err_set(err, AGON_EILLEGAL,
                            "%s has no piece on the line in column %c", who,
                            'a' + x);
      if (!(g->lcol[opp] & (1u << y)))
        return agon_err_set(err, AGON_EILLEGAL,
                            "%s has no piece on the line in column %c",
                            g23_side_title[opp], 'a' + y);
      if (!g23_line_clear(g->line, 2 * x + me, 2 * y + opp))
        return agon_err_set(err, AGON_EILLEGAL,
                            "L%d and L%d are not neighbours: a piece stands "
                            "between them",
                            2 * x + me + 1, 2 * y + opp + 1);
      *out = g23_mv(G23_MV_DUEL, 2, x, y);
      return 0;
    }
    case G23_MV_PASS:
      if (g23_has_action(g))
        return agon_err_set(err, AGON_EILLEGAL,
                            "pass is only legal when no other action is");
      *out = g23_mv(G23_MV_PASS, 0, 0, 0);
      return 0;
    default:
      return agon_err_set(err, AGON_EBADMOVE, "not a Gambo move");
  }
}

/* ---- outcome ----------------------------------------------------------- */

static game_outcome gambo23_outcome(const game_state *st) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  if (g->to_move != G23_OVER) return game_outcome_ongoing();
  if (g->score[0] != g->score[1])
    return game_outcome_win(g->score[0] > g->score[1] ? 0 : 1, "score");
  return game_outcome_win(g->last_winner, "last_duel_tiebreak");
}

/* The safeguard: scores as they stand, no bonus, equal is a draw. */
static game_outcome gambo23_repetition_outcome(const game_state *st) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  if (g->score[0] == g->score[1]) return game_outcome_draw("repetition");
  return game_outcome_win(g->score[0] > g->score[1] ? 0 : 1, "repetition");
}

/* ---- invariants -------------------------------------------------------- */

/* Shared by check and from_position: err code is given by the caller. */
static int g23_validate(const g23_state *g, int code, agon_err *err) {
  int count[2] = {0, 0};
  for (int s = 0; s < 2; s++) {
    unsigned seen = 0, occ = 0;
    for (int c = 0; c < G23_NCOL; c++) {
      int id = g->pc[s][c];
      if (id > G23_NPIECE)
        return agon_err_set(err, code, "bad piece id %d", id);
      if (id == 0) continue;
      if (seen & (1u << id))
        return agon_err_set(err, code, "%s has two %s", g23_side_title[s],
                            g23_piece_names[id]);
      seen |= 1u << id;
      occ |= 1u << c;
      count[s]++;
    }
    if ((g->home[s] & g->lcol[s]) || ((g->home[s] | g->lcol[s]) != occ) ||
        ((g->home[s] | g->lcol[s]) & ~G23_COLMASK))
      return agon_err_set(err, code, "%s's home/line masks disagree with pieces",
                          g23_side_title[s]);
  }
  if (g->line != (g23_spread(g->lcol[0]) | (g23_spread(g->lcol[1]) << 1)))
    return agon_err_set(err, code, "line mask disagrees with pieces");
  if (count[0] != count[1])
    return agon_err_set(err, code,
                        "both sides must have as many pieces (%d vs %d): each "
                        "duel removes one of each",
                        count[0], count[1]);
  int duels = G23_NPIECE - count[0];
  if (g->duels != duels)
    return agon_err_set(err, code, "duel counter %d, pieces say %d", g->duels,
                        duels);
  if (g->run[0] > 2 || g->run[1] > 2)
    return agon_err_set(err, code, "permutation run out of 0..2");
  if (g->flags & ~(G23_F_LASTPERM | G23_F_ALTERNATE))
    return agon_err_set(err, code, "bad flags");
  int total = g->score[0] + g->score[1];
  if (g->to_move == G23_CHOOSER) {
    if (duels || g->lcol[0] || g->lcol[1] || total || g->run[0] || g->run[1] ||
        (g->flags & G23_F_LASTPERM) || g->quiet || g->last_winner != G23_NONE)
      return agon_err_set(err, code,
                          "the side choice happens before any action");
    return 0;
  }
  if (g->to_move == G23_OVER) {
    if (duels != G23_NPIECE)
      return agon_err_set(err, code, "game over with pieces left");
    if (g->last_winner > 1 || g->score[g->last_winner] < 5)
      return agon_err_set(err, code,
                          "the last duel's winner has at least 1 + 4 points");
    if (total > 9 * G23_NPIECE + 4)
      return agon_err_set(err, code, "scores above 9 per duel + 4");
    if (g->flags & G23_F_LASTPERM)
      return agon_err_set(err, code, "the last action was the final duel");
    return 0;
  }
  if (g->to_move > 1) return agon_err_set(err, code, "bad side to move");
  if (duels == G23_NPIECE)
    return agon_err_set(err, code, "no pieces left but the game goes on");
  if (g->last_winner != G23_NONE)
    return agon_err_set(err, code, "final duel winner set during play");
  if (total > 9 * duels)
    return agon_err_set(err, code, "scores above 9 points per duel played");
  if (g->flags & G23_F_LASTPERM) {
    if (g->run[g->to_move ^ 1] == 0)
      return agon_err_set(err, code,
                          "last action a permutation, but the opponent's "
                          "permutation run is 0");
    if (g->quiet == 0)
      return agon_err_set(err, code,
                          "last action a permutation, but quiet plies is 0");
  }
  return 0;
}

static int gambo23_check(const game_state *st, agon_err *err) {
  return g23_validate((const g23_state *)st->u.bytes, AGON_EINTERNAL, err);
}

/* ---- position text ----------------------------------------------------- */

/* "<south row>/<north row> <to move> <S>-<N> <runS><runN><p|-> <quiet>"
 * A row is nine cells a..i: "E1" at home, "e1" on the line, "-" empty.
 * To move: s, n, c (chooser), or -s / -n once over (the last duel's
 * winner, who decides a tie). */
static int gambo23_to_position(const game_state *st, char *buf, size_t cap) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  char tmp[GAME_POSITION_MAX];
  size_t k = 0;
  for (int s = 0; s < 2; s++) {
    if (s) tmp[k++] = '/';
    for (int c = 0; c < G23_NCOL; c++) {
      int id = g->pc[s][c];
      if (id == 0) {
        tmp[k++] = '-';
        continue;
      }
      int on_line = (g->lcol[s] >> c) & 1;
      char sp = g23_species_ch[g23_species(id)];
      tmp[k++] = on_line ? (char)(sp - 'A' + 'a') : sp;
      tmp[k++] = (char)('0' + g23_strength(id));
    }
  }
  const char *tm;
  switch (g->to_move) {
    case 0: tm = "s"; break;
    case 1: tm = "n"; break;
    case G23_CHOOSER: tm = "c"; break;
    default: tm = g->last_winner == 1 ? "-n" : "-s"; break;
  }
  int w = snprintf(tmp + k, sizeof tmp - k, " %s %u-%u %u%u%c %u", tm,
                   g->score[0], g->score[1], g->run[0], g->run[1],
                   (g->flags & G23_F_LASTPERM) ? 'p' : '-', g->quiet);
  k += (size_t)w;
  if (k + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, tmp, k + 1);
  return (int)k;
}

/* Strict decimal in [0, max] without sign or leading zeros; advances *p. */
static int g23_number(const char **p, const char *end, unsigned max,
                      unsigned *out) {
  const char *s = *p;
  unsigned v = 0;
  int digits = 0;
  while (s < end && *s >= '0' && *s <= '9') {
    if (digits == 1 && v == 0) return -1;
    v = v * 10 + (unsigned)(*s - '0');
    if (v > max) return -1;
    digits++;
    s++;
  }
  if (digits == 0) return -1;
  *p = s;
  *out = v;
  return 0;
}

static int gambo23_from_position(game_state *st, const game_setup *setup,
                                 const char *pos, size_t len, agon_err *err) {
  g23_state *g = (g23_state *)st->u.bytes;
  memset(st, 0, sizeof *st);
  if (pos == NULL) return agon_err_set(err, AGON_EPOSITION, "empty position");
  const char *p = pos, *end = pos + len;
  /* Surrounding blanks are tolerated; inside, the format is exact. */
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
                     end[-1] == '\r'))
    end--;
  for (int s = 0; s < 2; s++) {
    if (s) {
      if (p >= end || *p != '/')
        return agon_err_set(err, AGON_EPOSITION,
                            "expected '/' between South's and North's rows");
      p++;
    }
    for (int c = 0; c < G23_NCOL; c++) {
      if (p >= end)
        return agon_err_set(err, AGON_EPOSITION,
                            "%s's row: 9 cells needed (E1 home, e1 line, - empty)",
                            g23_side_title[s]);
      if (*p == '-') {
        p++;
        continue;
      }
      if (end - p < 2)
        return agon_err_set(err, AGON_EPOSITION, "%s's row: truncated cell",
                            g23_side_title[s]);
      int id = gambo_piece_from(p, 2);
      if (id == 0)
        return agon_err_set(err, AGON_EPOSITION,
                            "%s's row, column %c: '%c%c' is not a piece "
                            "(E1 home, e1 line, - empty)",
                            g23_side_title[s], 'a' + c, p[0] >= ' ' && p[0] < 127 ? p[0] : '?',
                            p[1] >= ' ' && p[1] < 127 ? p[1] : '?');
      g->pc[s][c] = (uint8_t)id;
      if (p[0] >= 'a')
        g->lcol[s] |= (uint16_t)(1u << c);
      else
        g->home[s] |= (uint16_t)(1u << c);
      p += 2;
    }
  }
  g->line = g23_spread(g->lcol[0]) | (g23_spread(g->lcol[1]) << 1);
  if (p >= end || *p != ' ')
    return agon_err_set(err, AGON_EPOSITION, "expected ' ' and the side to move");
  p++;
  g->last_winner = G23_NONE;
  if (p < end && *p == 's') g->to_move = 0, p++;
  else if (p < end && *p == 'n') g->to_move = 1, p++;
  else if (p < end && *p == 'c') g->to_move = G23_CHOOSER, p++;
  else if (end - p >= 2 && p[0] == '-' && (p[1] == 's' || p[1] == 'n')) {
    g->to_move = G23_OVER;
    g->last_winner = p[1] == 's' ? 0 : 1;
    p += 2;
  } else {
    return agon_err_set(err, AGON_EPOSITION,
                        "side to move: s, n, c (chooser), or -s/-n when over");
  }
  unsigned a, b;
  if (p >= end || *p != ' ' || (++p, g23_number(&p, end, 255, &a)) < 0 ||
      p >= end || *p != '-' || (++p, g23_number(&p, end, 255, &b)) < 0)
    return agon_err_set(err, AGON_EPOSITION, "scores: expected S-N (e.g. 4-2)");
  g->score[0] = (uint8_t)a;
  g->score[1] = (uint8_t)b;
  if (end - p < 4 || p[0] != ' ' || p[1] < '0' || p[1] > '2' || p[2] < '0' ||
      p[2] > '2' || (p[3] != 'p' && p[3] != '-'))
    return agon_err_set(err, AGON_EPOSITION,
                        "permutation state: South's run, North's run (0-2), "
                        "then p or - (last action a permutation)");
  g->run[0] = (uint8_t)(p[1] - '0');
  g->run[1] = (uint8_t)(p[2] - '0');
  if (p[3] == 'p') g->flags |= G23_F_LASTPERM;
  p += 4;
  unsigned q;
  if (p >= end || *p != ' ' || (++p, g23_number(&p, end, UINT16_MAX, &q)) < 0)
    return agon_err_set(err, AGON_EPOSITION,
                        "quiet plies: expected a number 0..65535");
  g->quiet = (uint16_t)q;
  if (p != end)
    return agon_err_set(err, AGON_EPOSITION, "unexpected text after the position");
  int count = 0;
  for (int c = 0; c < G23_NCOL; c++) count += g->pc[0][c] != 0;
  g->duels = (uint8_t)(G23_NPIECE - count);
  int rc = g23_validate(g, AGON_EPOSITION, err);
  if (rc < 0) return rc;
  return g23_apply_options(g, setup, err);
}

/* ---- views ------------------------------------------------------------- */

static json_t *gambo23_to_json(const game_state *st, int viewer) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  static const char *const names[2] = {"south", "north"};
  (void)viewer; /* nothing is hidden in Gambo */
  json_t *board = json_object();
  json_t *line = json_array();
  for (int i = 0; i < G23_NLINE; i++) json_array_append_new(line, json_null());
  for (int s = 0; s < 2; s++) {
    json_t *row = json_array();
    for (int c = 0; c < G23_NCOL; c++) {
      int id = g->pc[s][c];
      char col[2] = {(char)('a' + c), 0};
      int on = (g->lcol[s] >> c) & 1;
      int sq = 2 * c + s + 1;
      json_array_append_new(
          row, json_pack("{s:s, s:o, s:s, s:i}", "column", col, "piece",
                         id ? json_string(g23_piece_names[id]) : json_null(),
                         "state", id == 0 ? "empty" : on ? "line" : "home",
                         "faces", sq));
      if (id && on)
        json_array_set_new(line, (size_t)sq - 1,
                           json_pack("{s:s, s:s, s:s}", "side", names[s],
                                     "piece", g23_piece_names[id], "column",
                                     col));
    }
    json_object_set_new(board, names[s], row);
  }
  json_object_set_new(board, "line", line);

  json_t *v = json_object();
  json_object_set_new(v, "board", board);
  const char *tm = g->to_move < 2 ? names[g->to_move]
                   : g->to_move == G23_CHOOSER ? "chooser" : NULL;
  json_object_set_new(v, "to_move", tm ? json_string(tm) : json_null());
  json_object_set_new(v, "phase",
                      json_string(g->to_move == G23_CHOOSER ? "choose"
                                  : g->to_move == G23_OVER  ? "over"
                                                            : "play"));
  json_object_set_new(v, "scores",
                      json_pack("{s:i, s:i}", "south", g->score[0], "north",
                                g->score[1]));
  json_object_set_new(v, "duels", json_integer(g->duels));
  json_object_set_new(v, "pieces_left", json_integer(G23_NPIECE - g->duels));
  /* The hand: who keeps playing after advances/duels once duels began. */
  json_t *hand = json_null();
  if (g->duels > 0 && g->to_move < 2) {
    int h = g->score[0] == g->score[1] ? g->to_move
                                       : (g->score[0] < g->score[1] ? 0 : 1);
    hand = json_string(names[h]);
  }
  json_object_set_new(v, "hand", hand);
  json_object_set_new(
      v, "turn_order",
      json_string((g->flags & G23_F_ALTERNATE) ? "alternate" : "hand"));
  json_object_set_new(
      v, "permutation",
      json_pack("{s:b, s:{s:i, s:i}, s:o}", "after_opponent_permutation",
                (g->flags & G23_F_LASTPERM) != 0, "run", "south", g->run[0],
                "north", g->run[1], "allowed",
                g->to_move < 2 && g23_may_permute(g, g->to_move)
                    ? json_true()
                    : json_false()));
  json_object_set_new(v, "bonus",
                      g->to_move == G23_OVER
                          ? json_pack("{s:s, s:i}", "side",
                                      names[g->last_winner], "points", 4)
                          : json_null());
  json_object_set_new(v, "quiet_plies", json_integer(g->quiet));
  return v;
}

static int gambo23_to_text(const game_state *st, char *buf, size_t cap) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  char t[GAME_TEXT_MAX];
  size_t k = 0;
  char rows[2][8 + 3 * G23_NLINE + 1];
  for (int s = 1; s >= 0; s--) {
    memset(rows[s], ' ', sizeof rows[s]);
    memcpy(rows[s], s ? "North:" : "South:", 6);
    for (int c = 0; c < G23_NCOL; c++) {
      int id = g->pc[s][c];
      int at = 8 + 3 * (2 * c + s);
      const char *cell = id == 0 ? "--" : (g->lcol[s] >> c) & 1 ? ".." : g23_piece_names[id];
      memcpy(rows[s] + at, cell, 2);
    }
    size_t e = sizeof rows[s] - 1;
    while (e > 0 && rows[s][e - 1] == ' ') e--;
    rows[s][e] = '\0';
  }
  char lrow[8 + 3 * G23_NLINE + 1];
  memcpy(lrow, "Line:   ", 8);
  for (int i = 0; i < G23_NLINE; i++) {
    int s = i & 1, c = i >> 1;
    char cell[4];
    if ((g->line >> i) & 1)
      snprintf(cell, sizeof cell, "%s ", g23_piece_names[g->pc[s][c]]);
    else
      snprintf(cell, sizeof cell, "%02d ", i + 1);
    memcpy(lrow + 8 + 3 * i, cell, 3);
  }
  lrow[8 + 3 * G23_NLINE - 1] = '\0';
  const char *cols_n = "           a     b     c     d     e     f     g     h     i";
  const char *cols_s = "        a     b     c     d     e     f     g     h     i";
  k += (size_t)snprintf(t + k, sizeof t - k, "%s\n%s\n%s\n%s\n%s\n", cols_n,
                        rows[1], lrow, rows[0], cols_s);
  k += (size_t)snprintf(t + k, sizeof t - k,
                        "(line: odd squares South, even North; '..' = on the "
                        "line, '--' = gone)\n");
  k += (size_t)snprintf(t + k, sizeof t - k, "Score: South %u, North %u",
                        g->score[0], g->score[1]);
  if (g->to_move == G23_OVER)
    k += (size_t)snprintf(t + k, sizeof t - k, " (bonus +4 to %s)",
                          g23_side_title[g->last_winner]);
  k += (size_t)snprintf(t + k, sizeof t - k, "  duels %u/9\n", g->duels);
  if (g->to_move < 2)
    k += (size_t)snprintf(
        t + k, sizeof t - k, "Permutations: run S %u N %u%s\n", g->run[0],
        g->run[1], (g->flags & G23_F_LASTPERM) ? ", opponent just permuted" : "");
  if (k + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, t, k + 1);
  return (int)k;
}

/* ---- repetition -------------------------------------------------------- */

/* Spec 2.4: all squares, scores, side to move and the permutation
 * restriction state. quiet is history, not identity, so it is left out. */
static uint64_t gambo23_hash(const game_state *st) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  unsigned char b[32];
  size_t k = 0;
  memcpy(b + k, g->pc, sizeof g->pc);
  k += sizeof g->pc;
  b[k++] = (unsigned char)(g->home[0] & 0xff);
  b[k++] = (unsigned char)(g->home[0] >> 8);
  b[k++] = (unsigned char)(g->home[1] & 0xff);
  b[k++] = (unsigned char)(g->home[1] >> 8);
  b[k++] = g->score[0];
  b[k++] = g->score[1];
  b[k++] = g->to_move;
  b[k++] = (unsigned char)(g->flags & G23_F_LASTPERM);
  b[k++] = g->run[0];
  b[k++] = g->run[1];
  return game_hash_bytes(GAME_HASH_INIT, b, k);
}

static unsigned gambo23_repetition(const game_state *st, unsigned *window) {
  const g23_state *g = (const g23_state *)st->u.bytes;
  /* Only permutations and passes are reversible: an advance empties a home
   * square for good and a duel removes pieces. */
  if (window) *window = g->quiet;
  return g->rep_limit;
}

const game_vtable gambo23_vtable = {
    .name = "gambo-2023",
    .title = "Gambo (2023 rules)",
    .version = 1,
    .side_names = {"south", "north"},
    .state_size = sizeof(g23_state),
    .options = gambo23_options,
    .n_options = G23_NOPT,
    .init = gambo23_init,
    .from_position = gambo23_from_position,
    .to_position = gambo23_to_position,
    .to_move = gambo23_to_move,
    .legal_moves = gambo23_legal_moves,
    .parse_move = gambo23_parse_move,
    .format_move = gambo23_format_move,
    .describe_move = gambo23_describe_move,
    .apply = gambo23_apply,
    .outcome = gambo23_outcome,
    .check = gambo23_check,
    .to_json = gambo23_to_json,
    .to_text = gambo23_to_text,
    .hash = gambo23_hash,
    .repetition = gambo23_repetition,
    .repetition_outcome = gambo23_repetition_outcome,
};
