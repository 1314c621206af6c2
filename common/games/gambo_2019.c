/* gambo_2019.c - Gambo, 2019 rules (Claude Leroy Créations): series of duels
 * on a line of battle; the side with fewer prisoners holds the initiative;
 * the side that loses all its pieces loses.
 *
 * Contract: shared/rules/gambo-2019.md. Position format, JSON view, move
 * notation of the placement set-up and outcome reasons:
 * docs/positions/gambo_2019.md.
 *
 * Representation: per side, the piece code of each home column (a..i) and two
 * 9-bit masks (available, withdrawn). South column x faces line square 2x+1
 * and North column x faces 2x+2 (1-based, x from 0), so "nearest available
 * piece below/above the engaged one" is a highest/lowest set bit of a masked
 * availability word: no scan of the line at all. The whole state is 38 bytes.
 */
#include <stdio.h>
#include <string.h>

#include "gambo_common.h"
#include "games.h"

/* ---- constants --------------------------------------------------------- */

enum { G19_S = 0, G19_N = 1 };
enum { G19_CHOOSE = 0, G19_PLACE, G19_ACT, G19_RESPOND, G19_OVER, G19_NPHASE };
enum {
  G19_MV_CHOOSE = 1, /* op[0] = side chosen by the chooser */
  G19_MV_PLACE,      /* op[0] = column, op[1] = piece code (placement set-up) */
  G19_MV_ENGAGE,     /* op[0] = column of the initiative holder */
  G19_MV_RESPOND,    /* op[0] = column of the responder */
  G19_MV_PERMUTE     /* op[0] < op[1]: columns of the initiative holder */
};
/* Option bits copied into the state: apply needs them, the setup is gone. */
enum { G19_O_ADVANCED = 1, G19_O_ELIMPRIS = 2, G19_O_PERMWD = 4 };
enum { G19_END_CAPTURED = 1, G19_END_ELIMINATED = 2 };

#define G19_FULL 0x1FFu
#define G19_NONE 0xFF /* unused column byte (engaged, first, winner) */

/* Option indexes: follow g19_options[]. */
enum {
  G19_OPT_CHOOSER,
  G19_OPT_SETUP,
  G19_OPT_VARIANT,
  G19_OPT_ELIMPRIS,
  G19_OPT_PERMWD,
  G19_OPT_SOUTH,
  G19_OPT_NORTH,
  G19_OPT_COUNT
};

static const game_option g19_options[G19_OPT_COUNT] = {
    {"chooser", GAME_OPT_ENUM, "random|creator", "random", 0, 0,
     "who picks a side (the other player then acts first): drawn from the "
     "seed, or the game's creator"},
    {"setup", GAME_OPT_ENUM, "random|placement", "random", 0, 0,
     "rows dealt from the seed, or the French 2019 placement by strength "
     "(place <column> <piece>)"},
    {"variant", GAME_OPT_ENUM, "basic|advanced", "basic", 0, 0,
     "advanced: unplayed pieces at the end of a series are eliminated unless "
     "their side won the last duel"},
    {"eliminated_are_prisoners", GAME_OPT_ENUM, "yes|no", "yes", 0, 0,
     "advanced variant: eliminated pieces count as prisoners of the side that "
     "won the last duel"},
    {"permute_withdrawn", GAME_OPT_ENUM, "no|yes", "no", 0, 0,
     "a permutation may also move withdrawn pieces"},
    {"south", GAME_OPT_TEXT, NULL, "", 0, 0,
     "South's home row a..i, e.g. M2,E3,C1,E1,M3,C2,M1,C3,E2 (default: dealt "
     "from the seed)"},
    {"north", GAME_OPT_TEXT, NULL, "", 0, 0,
     "North's home row a..i, same form (default: dealt from the seed)"},
};

/* Piece code 1..9 = 1 + 3*species + (strength-1), species E=0, C=1, M=2:
 * E1 E2 E3 C1 C2 C3 M1 M2 M3, the deal's starting order. */
static const char *const g19_pname[10] = {"--", "E1", "E2", "E3", "C1",
                                          "C2", "C3", "M1", "M2", "M3"};
static const char *const g19_side[2] = {"south", "north"};
static const char *const g19_Side[2] = {"South", "North"};

typedef struct g19_state {
  uint16_t avail[2];     /* bit x: column x holds an available piece */
  uint16_t wdr[2];       /* bit x: column x holds a withdrawn piece */
  uint8_t piece[2][9];   /* piece code by column, 0 = empty */
  uint8_t prisoners[2];  /* pieces this side has taken */
  uint8_t elim[2];       /* own pieces eliminated without becoming prisoners
                            (advanced variant, eliminated_are_prisoners=no) */
  uint8_t phase;         /* G19_CHOOSE..G19_OVER */
  uint8_t init;          /* initiative holder (ACT, RESPOND: the engager) */
  uint8_t forced;        /* ACT: the holder must engage (opponent permuted) */
  uint8_t engaged;       /* RESPOND: engager's column (its piece is on the
                            line: in neither mask), else G19_NONE */
  uint8_t first;         /* PLACE: side A (the chooser, places and acts
                            first), else G19_NONE */
  uint8_t winner;        /* OVER: winning side, else G19_NONE */
  uint8_t reason;        /* OVER: G19_END_*, else 0 */
  uint8_t opts;          /* G19_O_* */
} g19_state;

_Static_assert(sizeof(g19_state) == 38, "g19_state has padding");
_Static_assert(sizeof(g19_state) <= GAME_STATE_MAX, "g19_state too large");

#define G19(gs) ((g19_state *)(void *)(gs)->u.bytes)
#define G19C(gs) ((const g19_state *)(const void *)(gs)->u.bytes)

/* ---- small helpers ----------------------------------------------------- */

static inline int g19_popc(unsigned x) { return __builtin_popcount(x); }
static inline int g19_low(unsigned x) { return __builtin_ctz(x); }
static inline int g19_high(unsigned x) { return 31 - __builtin_clz(x); }

static inline unsigned g19_occ(const g19_state *s, int side) {
  unsigned m = (unsigned)s->avail[side] | s->wdr[side];
  if (s->phase == G19_RESPOND && side == s->init) m |= 1u << s->engaged;
  return m;
}

/* Responder's candidates in RESPOND: nearest available piece on each side
 * of the engaged one along the line (spec 2.4). South x faces line 2x+1,
 * North x faces 2x+2: North's pieces below South's x are columns < x, above
 * are >= x; South's pieces below North's x are columns <= x. */
static inline unsigned g19_candidates(const g19_state *s) {
  unsigned av = s->avail[!s->init];
  unsigned split = s->init == G19_S ? (1u << s->engaged) - 1
                                    : (2u << s->engaged) - 1;
  unsigned below = av & split, above = av & ~split, r = 0;
  if (below) r |= 1u << g19_high(below);
  if (above) r |= above & (0u - above);
  return r;
}

/* Placement: side to place and the strength it places now (spec 1.3: A's
 * strength 3, B's, A's strength 2, B's, A's strength 1, B's). */
static int g19_place_turn(const g19_state *s, int *strength) {
  int k = g19_popc(s->avail[0]) + g19_popc(s->avail[1]);
  int g = k / 3;
  *strength = 3 - g / 2;
  return g % 2 == 0 ? s->first : !s->first;
}

static int g19_to_move(const game_state *gs) {
  const g19_state *s = G19C(gs);
  int str;
  switch (s->phase) {
    case G19_CHOOSE: return GAME_CHOOSER;
    case G19_PLACE: return g19_place_turn(s, &str);
    case G19_ACT: return s->init;
    case G19_RESPOND: return !s->init;
    default: return GAME_NOBODY;
  }
}

/* ---- move generation --------------------------------------------------- */

static inline game_move g19_mv(int kind, int n, int a, int b) {
  game_move m;
  memset(&m, 0, sizeof m);
  m.kind = (uint8_t)kind;
  m.n = (uint8_t)n;
  m.op[0] = (uint8_t)a;
  m.op[1] = (uint8_t)b;
  return m;
}

static int g19_legal(const game_state *gs, game_move *out, size_t cap,
                     size_t *n) {
  const g19_state *s = G19C(gs);
  size_t k = 0;
  *n = 0;
#define G19_PUSH(m)                          \
  do {                                       \
    if (k >= cap) return AGON_ENOSPACE;      \
    out[k++] = (m);                          \
  } while (0)
  switch (s->phase) {
    case G19_ACT: {
      int me = s->init;
      unsigned av = s->avail[me];
      for (unsigned b = av; b; b &= b - 1) G19_PUSH(g19_mv(G19_MV_ENGAGE, 1, g19_low(b), 0));
      if (!s->forced) {
        unsigned pm = av;
        if (s->opts & G19_O_PERMWD) pm |= s->wdr[me];
        for (unsigned b = pm; b; b &= b - 1) {
          int x = g19_low(b);
          for (unsigned c = b & (b - 1); c; c &= c - 1)
            G19_PUSH(g19_mv(G19_MV_PERMUTE, 2, x, g19_low(c)));
        }
      }
      break;
    }
    case G19_RESPOND:
      for (unsigned b = g19_candidates(s); b; b &= b - 1)
        G19_PUSH(g19_mv(G19_MV_RESPOND, 1, g19_low(b), 0));
      break;
    case G19_CHOOSE:
      G19_PUSH(g19_mv(G19_MV_CHOOSE, 1, G19_S, 0));
      G19_PUSH(g19_mv(G19_MV_CHOOSE, 1, G19_N, 0));
      break;
    case G19_PLACE: {
      int str, me = g19_place_turn(s, &str);
      unsigned empty = G19_FULL & ~(unsigned)s->avail[me];
      for (int sp = 0; sp < 3; sp++) {
        int code = 1 + 3 * sp + (str - 1);
        int placed = 0;
        for (int x = 0; x < 9; x++) placed |= s->piece[me][x] == code;
        if (placed) continue;
        for (unsigned b = empty; b; b &= b - 1)
          G19_PUSH(g19_mv(G19_MV_PLACE, 2, g19_low(b), code));
      }
      break;
    }
    default: break;
  }
#undef G19_PUSH
  *n = k;
  return 0;
}

/* ---- apply ------------------------------------------------------------- */

/* End of a series (spec 2.5 END_OF_SERIES), right after the duel won by w. */
static void g19_end_series(g19_state *s, int w) {
  for (int x = 0; x < 2; x++) {
    if (s->avail[x] == 0 || x == w || !(s->opts & G19_O_ADVANCED)) continue;
    /* Advanced variant: leftovers of the side that lost the last duel go. */
    int cnt = g19_popc(s->avail[x]);
    for (unsigned b = s->avail[x]; b; b &= b - 1) s->piece[x][g19_low(b)] = 0;
    s->avail[x] = 0;
    if (s->opts & G19_O_ELIMPRIS)
      s->prisoners[!x] = (uint8_t)(s->prisoners[!x] + cnt);
    else
      s->elim[x] = (uint8_t)(s->elim[x] + cnt);
    if (s->wdr[x] == 0) {
      s->phase = G19_OVER;
      s->winner = (uint8_t)!x;
      s->reason = G19_END_ELIMINATED;
      s->init = 0;
      return;
    }
  }
  for (int x = 0; x < 2; x++) {
    s->avail[x] = (uint16_t)(s->avail[x] | s->wdr[x]);
    s->wdr[x] = 0;
  }
  if (s->prisoners[0] != s->prisoners[1])
    s->init = s->prisoners[0] < s->prisoners[1] ? G19_S : G19_N;
  s->forced = 0;
}

static void g19_duel(g19_state *s, int rc) {
  int e = s->init, r = !e, ec = s->engaged;
  int attw = gambo_attacker_wins(s->piece[e][ec], s->piece[r][rc]);
  s->avail[r] = (uint16_t)(s->avail[r] & ~(1u << rc));
  s->engaged = G19_NONE;
  int w = attw ? e : r, l = !w;
  int wc = attw ? ec : rc, lc = attw ? rc : ec;
  s->piece[l][lc] = 0;
  s->wdr[w] = (uint16_t)(s->wdr[w] | (1u << wc));
  s->prisoners[w]++;
  if (s->prisoners[0] != s->prisoners[1])
    s->init = s->prisoners[0] < s->prisoners[1] ? G19_S : G19_N;
  /* else: the engager (already s->init) keeps it (spec 3.8) */
  s->phase = G19_ACT;
  if ((s->avail[l] | s->wdr[l]) == 0) {
    s->phase = G19_OVER;
    s->winner = (uint8_t)w;
    s->reason = G19_END_CAPTURED;
    s->init = 0;
    return;
  }
  if (s->avail[0] == 0 || s->avail[1] == 0) g19_end_series(s, w);
}

static int g19_apply(game_state *gs, const game_move *mv, agon_err *err) {
  g19_state *s = G19(gs);
  switch (mv->kind) {
    case G19_MV_ENGAGE: {
      int me = s->init;
      s->avail[me] = (uint16_t)(s->avail[me] & ~(1u << mv->op[0]));
      s->engaged = mv->op[0];
      s->phase = G19_RESPOND;
      s->forced = 0;
      return 0;
    }
    case G19_MV_RESPOND:
      g19_duel(s, mv->op[0]);
      return 0;
    case G19_MV_PERMUTE: {
      int me = s->init, a = mv->op[0], b = mv->op[1];
      uint8_t t = s->piece[me][a];
      s->piece[me][a] = s->piece[me][b];
      s->piece[me][b] = t;
      /* States travel with the pieces (only matters with
       * permute_withdrawn=yes: a withdrawn piece stays withdrawn). */
      for (int m = 0; m < 2; m++) {
        uint16_t *w = m ? &s->wdr[me] : &s->avail[me];
        unsigned ba = (*w >> a) & 1u, bb = (*w >> b) & 1u;
        if (ba != bb) *w = (uint16_t)(*w ^ ((1u << a) | (1u << b)));
      }
      s->init = (uint8_t)!me;
      s->forced = 1;
      return 0;
    }
    case G19_MV_CHOOSE: {
      int chosen = mv->op[0];
      if ((s->avail[0] | s->avail[1]) == 0) { /* placement follows */
        s->phase = G19_PLACE;
        s->first = (uint8_t)chosen;
      } else {
        s->phase = G19_ACT;
        s->init = (uint8_t)!chosen; /* the other player acts first */
        s->forced = 0;
      }
      return 0;
    }
    case G19_MV_PLACE: {
      int str, me = g19_place_turn(s, &str);
      s->piece[me][mv->op[0]] = mv->op[1];
      s->avail[me] = (uint16_t)(s->avail[me] | (1u << mv->op[0]));
      if (s->avail[0] == G19_FULL && s->avail[1] == G19_FULL) {
        s->phase = G19_ACT;
        s->init = s->first; /* spec 1.3: A then acts first */
        s->first = G19_NONE;
        s->forced = 0;
      }
      return 0;
    }
    default:
      return agon_err_set(err, AGON_EINVAL, "not a gambo-2019 move");
  }
}

/* ---- outcome, hash ----------------------------------------------------- */

static const char *const g19_reason[3] = {NULL, "last_piece_captured",
                                          "leftovers_eliminated"};

static game_outcome g19_outcome(const game_state *gs) {
  const g19_state *s = G19C(gs);
  if (s->phase != G19_OVER) return game_outcome_ongoing();
  return game_outcome_win(s->winner, g19_reason[s->reason]);
}

static uint64_t g19_hash(const game_state *gs) {
  return game_hash_bytes(GAME_HASH_INIT, gs->u.bytes, sizeof(g19_state));
}

static unsigned g19_repetition(const game_state *gs, unsigned *window) {
  /* Every duel removes a piece and a permutation is always followed by an
   * engagement, so no position can recur: no repetition rule. */
  (void)gs;
  if (window) *window = 0;
  return 0;
}

/* ---- invariants -------------------------------------------------------- */

/* Placement progress is consistent: groups (A s3, B s3, A s2, B s2, A s1,
 * B s1) are complete up to the current one, partial in it, empty after. */
static const char *g19_check_placement(const g19_state *s) {
  int cnt[2][4] = {{0}};
  for (int x = 0; x < 2; x++)
    for (int c = 0; c < 9; c++)
      if (s->piece[x][c]) cnt[x][(s->piece[x][c] - 1) % 3 + 1]++;
  int cur = -1;
  for (int g = 0; g < 6; g++) {
    int side = g % 2 == 0 ? s->first : !s->first, str = 3 - g / 2;
    int c = cnt[side][str];
    if (cur < 0) {
      if (c < 3) cur = g;
    } else if (c != 0) {
      return "placement out of order (pieces of a later group are placed)";
    }
  }
  if (cur < 0) return "placement is complete: the position should be in play";
  return NULL;
}

static const char *g19_invariants(const g19_state *s) {
  if (s->phase >= G19_NPHASE) return "bad phase";
  if (s->opts & ~7u) return "bad option bits";
  for (int x = 0; x < 2; x++) {
    if ((s->avail[x] | s->wdr[x]) & ~G19_FULL) return "mask out of range";
    if (s->avail[x] & s->wdr[x]) return "a piece is both available and withdrawn";
    unsigned seen = 0, occ = 0;
    for (int c = 0; c < 9; c++) {
      int p = s->piece[x][c];
      if (p > 9) return "bad piece code";
      if (p) {
        if (seen & (1u << p)) return "a piece appears twice in a row";
        seen |= 1u << p;
        occ |= 1u << c;
      }
    }
    if (occ != g19_occ(s, x)) return "piece codes disagree with the masks";
    if (s->prisoners[x] > 9 || s->elim[x] > 9) return "counter out of range";
  }
  if (s->phase != G19_RESPOND && s->engaged != G19_NONE) return "stray engaged column";
  if (s->phase != G19_PLACE && s->first != G19_NONE) return "stray placement side";
  if (s->phase != G19_OVER && (s->winner != G19_NONE || s->reason)) return "stray winner";
  if (s->phase != G19_ACT && s->forced) return "forced engagement outside ACT";
  if (s->forced > 1 || s->init > 1) return "bad flag";
  if (!(s->opts & G19_O_ADVANCED) && (s->elim[0] | s->elim[1]))
    return "eliminated pieces in the basic variant";
  if ((s->opts & G19_O_ELIMPRIS) && (s->elim[0] | s->elim[1]))
    return "eliminated pieces that are not prisoners with eliminated_are_prisoners=yes";
  switch (s->phase) {
    case G19_CHOOSE:
    case G19_PLACE: {
      if (s->wdr[0] | s->wdr[1]) return "withdrawn pieces before play";
      if (s->prisoners[0] | s->prisoners[1] | s->elim[0] | s->elim[1])
        return "prisoners before play";
      if (s->init != 0) return "initiative before play";
      if (s->phase == G19_CHOOSE) {
        unsigned a = s->avail[0], b = s->avail[1];
        if (!((a == G19_FULL && b == G19_FULL) || (a == 0 && b == 0)))
          return "before the choice both rows are full (dealt) or empty (placement)";
        return NULL;
      }
      if (s->first > 1) return "bad placement side";
      return g19_check_placement(s);
    }
    default: break;
  }
  /* In play: pieces + prisoners taken by the opponent + eliminated = 9. */
  for (int x = 0; x < 2; x++)
    if (g19_popc(g19_occ(s, x)) + s->prisoners[!x] + s->elim[x] != 9)
      return "pieces + opponent's prisoners + eliminated != 9";
  switch (s->phase) {
    case G19_ACT:
      if (!s->avail[0] || !s->avail[1]) return "a series runs with a side without available pieces";
      return NULL;
    case G19_RESPOND:
      if (s->engaged > 8 || !s->piece[s->init][s->engaged]) return "bad engaged column";
      if (!s->avail[!s->init]) return "the responder has no available piece";
      return NULL;
    case G19_OVER:
      if (s->winner > 1) return "bad winner";
      if (s->reason != G19_END_CAPTURED && s->reason != G19_END_ELIMINATED) return "bad reason";
      if (s->reason == G19_END_ELIMINATED && !(s->opts & G19_O_ADVANCED))
        return "elimination ending in the basic variant";
      if (g19_occ(s, s->winner) == 0) return "the winner has no piece";
      if (g19_occ(s, !s->winner) != 0) return "the loser still has pieces";
      if (s->init != 0) return "initiative after the end";
      return NULL;
    default: return "bad phase";
  }
}

static int g19_check(const game_state *gs, agon_err *err) {
  const char *why = g19_invariants(G19C(gs));
  if (why) return agon_err_set(err, AGON_EINTERNAL, "gambo-2019: %s", why);
  return 0;
}

/* ---- options and set-up ------------------------------------------------ */

static void g19_opts_from_setup(g19_state *s, const game_setup *setup) {
  s->opts = 0;
  if (setup->ival[G19_OPT_VARIANT] == 1) s->opts |= G19_O_ADVANCED;
  if (setup->ival[G19_OPT_ELIMPRIS] == 0) s->opts |= G19_O_ELIMPRIS;
  if (setup->ival[G19_OPT_PERMWD] == 1) s->opts |= G19_O_PERMWD;
}

static void g19_reset(g19_state *s) {
  memset(s, 0, sizeof *s);
  s->engaged = G19_NONE;
  s->first = G19_NONE;
  s->winner = G19_NONE;
}

static int g19_init(game_state *gs, const game_setup *setup, uint64_t seed,
                    agon_err *err) {
  g19_state *s = G19(gs);
  g19_reset(s);
  g19_opts_from_setup(s, setup);
  const char *south = setup->text[G19_OPT_SOUTH];
  const char *north = setup->text[G19_OPT_NORTH];
  if (setup->ival[G19_OPT_SETUP] == 1) {
    if (south[0] || north[0])
      return agon_err_set(err, AGON_EOPTION,
                          "options south=/north= conflict with setup=placement");
    return 0; /* empty rows: the choice, then placement */
  }
  /* The documented deal (gambo_common.h); both rows are always drawn, so
   * giving one row leaves the other as the seed made it. */
  gambo_deal(seed, s->piece);
  if (south[0] && gambo_parse_row("south", south, s->piece[G19_S], err) < 0)
    return AGON_EOPTION;
  if (north[0] && gambo_parse_row("north", north, s->piece[G19_N], err) < 0)
    return AGON_EOPTION;
  s->avail[0] = s->avail[1] = G19_FULL;
  return 0;
}

/* ---- position text ----------------------------------------------------- */

/* <south row>/<north row> <phase> <prisoners S>-<prisoners N>
 * row: nine cells a..i: "-" empty, "E1".."M3" available, "e1".."m3"
 * withdrawn. phase: "choose", "place:s|n" (side A), "s"/"n" (initiative
 * holder to act), "s!"/"n!" (must engage), "s>x"/"n>x" (engaged column x,
 * the other side responds), "over:captured"/"over:eliminated". */
static int g19_to_position(const game_state *gs, char *buf, size_t cap) {
  const g19_state *s = G19C(gs);
  char tmp[96];
  size_t k = 0;
  for (int x = 0; x < 2; x++) {
    if (x) tmp[k++] = '/';
    for (int c = 0; c < 9; c++) {
      int p = s->piece[x][c];
      if (!p) {
        tmp[k++] = '-';
        continue;
      }
      int wd = (s->wdr[x] >> c) & 1;
      tmp[k++] = (char)("ECM"[(p - 1) / 3] + (wd ? 'a' - 'A' : 0));
      tmp[k++] = (char)('1' + (p - 1) % 3);
    }
  }
  tmp[k] = '\0';
  char ph[24];
  switch (s->phase) {
    case G19_CHOOSE: snprintf(ph, sizeof ph, "choose"); break;
    case G19_PLACE: snprintf(ph, sizeof ph, "place:%c", "sn"[s->first & 1]); break;
    case G19_ACT: snprintf(ph, sizeof ph, "%c%s", "sn"[s->init & 1], s->forced ? "!" : ""); break;
    case G19_RESPOND: snprintf(ph, sizeof ph, "%c>%c", "sn"[s->init & 1], 'a' + (s->engaged % 9)); break;
    default:
      snprintf(ph, sizeof ph, "over:%s", s->reason == G19_END_ELIMINATED ? "eliminated" : "captured");
      break;
  }
  int w = snprintf(buf, cap, "%s %s %d-%d", tmp, ph, s->prisoners[0], s->prisoners[1]);
  if (w < 0 || (size_t)w >= cap) return AGON_ENOSPACE;
  return w;
}

static int g19_from_position(game_state *gs, const game_setup *setup,
                             const char *pos, size_t len, agon_err *err) {
  g19_state *s = G19(gs);
  g19_reset(s);
  g19_opts_from_setup(s, setup);
  size_t i = 0;
  while (len > 0 && (pos[len - 1] == ' ' || pos[len - 1] == '\t' ||
                     pos[len - 1] == '\n' || pos[len - 1] == '\r'))
    len--;
  while (i < len && (pos[i] == ' ' || pos[i] == '\t')) i++;
  /* rows */
  for (int x = 0; x < 2; x++) {
    if (x) {
      if (i >= len || pos[i] != '/')
        return agon_err_set(err, AGON_EPOSITION, "expected '/' after South's row");
      i++;
    }
    for (int c = 0; c < 9; c++) {
      if (i >= len)
        return agon_err_set(err, AGON_EPOSITION, "%s's row has fewer than nine cells",
                            g19_side[x]);
      if (pos[i] == '-') {
        i++;
        continue;
      }
      int code = gambo_piece_from(pos + i, len - i);
      if (!code)
        return agon_err_set(err, AGON_EPOSITION,
                            "%s's row, column %c: expected '-' or a piece E1..M3 "
                            "(lower case = withdrawn)", g19_side[x], 'a' + c);
      for (int d = 0; d < c; d++)
        if (s->piece[x][d] == code)
          return agon_err_set(err, AGON_EPOSITION, "%s's row holds %s twice",
                              g19_side[x], g19_pname[code]);
      s->piece[x][c] = (uint8_t)code;
      if (pos[i] >= 'a')
        s->wdr[x] = (uint16_t)(s->wdr[x] | (1u << c));
      else
        s->avail[x] = (uint16_t)(s->avail[x] | (1u << c));
      i += 2;
    }
  }
  if (i >= len || (pos[i] != ' ' && pos[i] != '\t'))
    return agon_err_set(err, AGON_EPOSITION,
                        "expected a blank after the rows (nine cells each)");
  while (i < len && (pos[i] == ' ' || pos[i] == '\t')) i++;
  size_t p0 = i;
  while (i < len && pos[i] != ' ' && pos[i] != '\t') i++;
  size_t plen = i - p0;
  const char *ph = pos + p0;
  while (i < len && (pos[i] == ' ' || pos[i] == '\t')) i++;
  /* prisoners "P-Q" */
  int pr[2] = {0, 0};
  for (int x = 0; x < 2; x++) {
    if (x) {
      if (i >= len || pos[i] != '-')
        return agon_err_set(err, AGON_EPOSITION, "prisoners must read S-N, e.g. 2-1");
      i++;
    }
    int digits = 0;
    while (i < len && pos[i] >= '0' && pos[i] <= '9' && digits < 3) {
      pr[x] = pr[x] * 10 + (pos[i] - '0');
      i++;
      digits++;
    }
    if (!digits)
      return agon_err_set(err, AGON_EPOSITION, "prisoners must read S-N, e.g. 2-1");
    if (pr[x] > 9)
      return agon_err_set(err, AGON_EPOSITION, "at most 9 prisoners per side");
  }
  if (i != len)
    return agon_err_set(err, AGON_EPOSITION, "unexpected text after the prisoners");
  s->prisoners[0] = (uint8_t)pr[0];
  s->prisoners[1] = (uint8_t)pr[1];
  /* phase */
  int sd = plen >= 1 && (ph[0] == 's' || ph[0] == 'n') ? (ph[0] == 'n') : -1;
  if (plen == 6 && memcmp(ph, "choose", 6) == 0) {
    s->phase = G19_CHOOSE;
  } else if (plen == 7 && memcmp(ph, "place:", 6) == 0 && (ph[6] == 's' || ph[6] == 'n')) {
    s->phase = G19_PLACE;
    s->first = ph[6] == 'n';
  } else if (sd >= 0 && plen == 1) {
    s->phase = G19_ACT;
    s->init = (uint8_t)sd;
  } else if (sd >= 0 && plen == 2 && ph[1] == '!') {
    s->phase = G19_ACT;
    s->init = (uint8_t)sd;
    s->forced = 1;
  } else if (sd >= 0 && plen == 3 && ph[1] == '>' && ph[2] >= 'a' && ph[2] <= 'i') {
    int c = ph[2] - 'a';
    if (!((s->avail[sd] >> c) & 1))
      return agon_err_set(err, AGON_EPOSITION,
                          "the engaged piece (%s's column %c) must be written as an "
                          "available piece of its row", g19_side[sd], 'a' + c);
    s->phase = G19_RESPOND;
    s->init = (uint8_t)sd;
    s->engaged = (uint8_t)c;
    s->avail[sd] = (uint16_t)(s->avail[sd] & ~(1u << c));
  } else if ((plen == 13 && memcmp(ph, "over:captured", 13) == 0) ||
             (plen == 15 && memcmp(ph, "over:eliminated", 15) == 0)) {
    s->phase = G19_OVER;
    s->reason = plen == 13 ? G19_END_CAPTURED : G19_END_ELIMINATED;
    unsigned o0 = s->avail[0] | s->wdr[0], o1 = s->avail[1] | s->wdr[1];
    if ((o0 == 0) == (o1 == 0))
      return agon_err_set(err, AGON_EPOSITION,
                          "a finished game has exactly one side without pieces");
    s->winner = o0 ? G19_S : G19_N;
  } else {
    return agon_err_set(err, AGON_EPOSITION,
                        "phase must be choose, place:s|n, s, n, s!, n!, s>x, n>x, "
                        "over:captured or over:eliminated");
  }
  /* Counters: what the options allow (eliminated pieces only exist in the
   * advanced variant without prisoners, and are whatever is missing). */
  if (s->phase != G19_CHOOSE && s->phase != G19_PLACE) {
    for (int x = 0; x < 2; x++) {
      int have = g19_popc(g19_occ(s, x)) + s->prisoners[!x];
      if (have > 9)
        return agon_err_set(err, AGON_EPOSITION,
                            "%s's pieces (%d) + %s's prisoners (%d) exceed 9",
                            g19_side[x], g19_popc(g19_occ(s, x)), g19_side[!x],
                            s->prisoners[!x]);
      if (have < 9 && ((s->opts & G19_O_ELIMPRIS) || !(s->opts & G19_O_ADVANCED)))
        return agon_err_set(err, AGON_EPOSITION,
                            "%s's pieces (%d) + %s's prisoners (%d) must total 9 "
                            "with these options", g19_side[x],
                            g19_popc(g19_occ(s, x)), g19_side[!x], s->prisoners[!x]);
      s->elim[x] = (uint8_t)(9 - have);
    }
  }
  const char *why = g19_invariants(s);
  if (why) return agon_err_set(err, AGON_EPOSITION, "inconsistent position: %s", why);
  return 0;
}

/* ---- notation ---------------------------------------------------------- */

static int g19_format(const game_state *gs, const game_move *mv, char *buf,
                      size_t cap) {
  (void)gs;
  int w;
  switch (mv->kind) {
    case G19_MV_CHOOSE: w = snprintf(buf, cap, "choose %s", g19_side[mv->op[0] & 1]); break;
    case G19_MV_ENGAGE: w = snprintf(buf, cap, "engage %c", 'a' + mv->op[0] % 9); break;
    case G19_MV_RESPOND: w = snprintf(buf, cap, "respond %c", 'a' + mv->op[0] % 9); break;
    case G19_MV_PERMUTE:
      w = snprintf(buf, cap, "permute %c %c", 'a' + mv->op[0] % 9, 'a' + mv->op[1] % 9);
      break;
    case G19_MV_PLACE:
      w = snprintf(buf, cap, "place %c %s", 'a' + mv->op[0] % 9,
                   g19_pname[mv->op[1] <= 9 ? mv->op[1] : 0]);
      break;
    default: return AGON_EINVAL;
  }
  if (w < 0 || (size_t)w >= cap) return AGON_ENOSPACE;
  return w;
}

static int g19_describe(const game_state *gs, const game_move *mv, char *buf,
                        size_t cap) {
  const g19_state *s = G19C(gs);
  char base[32];
  int w = g19_format(gs, mv, base, sizeof base);
  if (w < 0) return w;
  switch (mv->kind) {
    case G19_MV_ENGAGE:
      w = snprintf(buf, cap, "%s (%s)", base, g19_pname[s->piece[s->init][mv->op[0]]]);
      break;
    case G19_MV_PERMUTE:
      w = snprintf(buf, cap, "%s (%s %s)", base, g19_pname[s->piece[s->init][mv->op[0]]],
                   g19_pname[s->piece[s->init][mv->op[1]]]);
      break;
    case G19_MV_RESPOND: {
      game_state after;
      memcpy(after.u.bytes, gs->u.bytes, sizeof(g19_state));
      g19_duel(G19(&after), mv->op[0]);
      const g19_state *a = G19C(&after);
      int w0 = a->prisoners[0] != s->prisoners[0] ? 0 : 1;
      const char *tail = "";
      if (a->phase == G19_OVER)
        tail = a->reason == G19_END_CAPTURED ? ", last piece captured"
                                             : ", leftovers eliminated";
      w = snprintf(buf, cap, "%s (%s): %s wins%s", base,
                   g19_pname[s->piece[!s->init][mv->op[0]]], g19_Side[w0], tail);
      break;
    }
    default:
      w = snprintf(buf, cap, "%s", base);
      break;
  }
  if (w < 0 || (size_t)w >= cap) return AGON_ENOSPACE;
  return w;
}

static int g19_is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Operand of a move: a column a..i (kind 0) or a piece code (kind 1). */
typedef struct g19_operand {
  int piece; /* 1..9: a piece code was given */
  int col;   /* 0..8: a column was given */
} g19_operand;

static int g19_parse(const game_state *gs, const char *text, size_t len,
                     game_move *out, agon_err *err) {
  const g19_state *s = G19C(gs);
  char t[40];
  size_t k = 0;
  memset(out, 0, sizeof *out);
  /* Lower-case, blanks dropped, a trailing "(...)" or ": ..." echo ignored. */
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (c == '(' || c == ':') break;
    if (g19_is_blank(c)) continue;
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (k + 1 >= sizeof t) return agon_err_set(err, AGON_EBADMOVE, "move text too long");
    t[k++] = c;
  }
  t[k] = '\0';
  static const char *const words[] = {"choose", "place", "engage", "respond", "permute"};
  int kind = 0;
  size_t wl = 0;
  for (int w = 0; w < 5; w++) {
    size_t l = strlen(words[w]);
    if (k >= l && memcmp(t, words[w], l) == 0) {
      kind = w + 1;
      wl = l;
      break;
    }
  }
  if (!kind)
    return agon_err_set(err, AGON_EBADMOVE,
                        "expected engage x, respond y, permute x y, choose south|north "
                        "or place x piece");
  const char *rest = t + wl;
  size_t rl = k - wl;
  if (kind == G19_MV_CHOOSE) {
    int side;
    if ((rl == 5 && memcmp(rest, "south", 5) == 0) || (rl == 1 && rest[0] == 's'))
      side = G19_S;
    else if ((rl == 5 && memcmp(rest, "north", 5) == 0) || (rl == 1 && rest[0] == 'n'))
      side = G19_N;
    else
      return agon_err_set(err, AGON_EBADMOVE, "choose south or choose north");
    if (s->phase == G19_OVER) return agon_err_set(err, AGON_EGAMEOVER, NULL);
    if (s->phase != G19_CHOOSE)
      return agon_err_set(err, AGON_EILLEGAL, "sides are already chosen");
    *out = g19_mv(G19_MV_CHOOSE, 1, side, 0);
    return 0;
  }
  g19_operand ops[2];
  int nops = 0;
  for (size_t i = 0; i < rl;) {
    if (nops == 2) return agon_err_set(err, AGON_EBADMOVE, "too many operands");
    int code = gambo_piece_from(rest + i, rl - i);
    if (code) {
      ops[nops].piece = code;
      ops[nops++].col = -1;
      i += 2;
    } else if (rest[i] >= 'a' && rest[i] <= 'i') {
      ops[nops].piece = 0;
      ops[nops++].col = rest[i] - 'a';
      i++;
    } else if (rest[i] == ',' || rest[i] == '-') {
      i++; /* separators between operands */
    } else {
      return agon_err_set(err, AGON_EBADMOVE,
                          "operands are columns a..i or pieces E1..M3");
    }
  }
  int need = kind == G19_MV_PERMUTE || kind == G19_MV_PLACE ? 2 : 1;
  if (nops != need)
    return agon_err_set(err, AGON_EBADMOVE, "%s takes %s", words[kind - 1],
                        kind == G19_MV_PERMUTE ? "two columns"
                        : kind == G19_MV_PLACE ? "a column and a piece"
                                               : "one column");
  if (s->phase == G19_OVER) return agon_err_set(err, AGON_EGAMEOVER, NULL);
  int mover = g19_to_move(gs);

  if (kind == G19_MV_PLACE) {
    int col = -1, code = 0;
    for (int o = 0; o < 2; o++) {
      if (ops[o].piece) code = ops[o].piece;
      else col = ops[o].col;
    }
    if (col < 0 || !code)
      return agon_err_set(err, AGON_EBADMOVE, "place takes a column and a piece: place a E3");
    if (s->phase != G19_PLACE)
      return agon_err_set(err, AGON_EILLEGAL, "no placement now (setup=placement only, "
                                               "after the choice of sides)");
    int str;
    g19_place_turn(s, &str);
    if ((code - 1) % 3 + 1 != str)
      return agon_err_set(err, AGON_EILLEGAL, "%s places its strength-%d pieces now",
                          g19_side[mover], str);
    if (s->piece[mover][col])
      return agon_err_set(err, AGON_EILLEGAL, "%s's column %c is already occupied",
                          g19_side[mover], 'a' + col);
    for (int c = 0; c < 9; c++)
      if (s->piece[mover][c] == code)
        return agon_err_set(err, AGON_EILLEGAL, "%s's %s is already placed",
                            g19_side[mover], g19_pname[code]);
    *out = g19_mv(G19_MV_PLACE, 2, col, code);
    return 0;
  }
  if (s->phase == G19_CHOOSE)
    return agon_err_set(err, AGON_EILLEGAL, "sides are not chosen yet: choose south or choose north");
  if (s->phase == G19_PLACE)
    return agon_err_set(err, AGON_EILLEGAL, "placement is not finished: %s places a piece",
                        g19_side[mover]);
  /* Resolve piece codes to the mover's columns. */
  int col[2] = {-1, -1};
  for (int o = 0; o < nops; o++) {
    if (!ops[o].piece) {
      col[o] = ops[o].col;
      continue;
    }
    for (int c = 0; c < 9; c++)
      if (s->piece[mover][c] == ops[o].piece) col[o] = c;
    if (col[o] < 0)
      return agon_err_set(err, AGON_EILLEGAL, "%s has no %s in play", g19_side[mover],
                          g19_pname[ops[o].piece]);
  }
  if (kind == G19_MV_RESPOND) {
    if (s->phase != G19_RESPOND)
      return agon_err_set(err, AGON_EILLEGAL,
                          "nothing to respond to: %s must engage%s", g19_side[mover],
                          s->forced ? "" : " or permute");
    unsigned cand = g19_candidates(s);
    if (!((cand >> col[0]) & 1)) {
      char list[8];
      int n = 0;
      for (unsigned b = cand; b; b &= b - 1) {
        if (n) list[n++] = ' ';
        list[n++] = (char)('a' + g19_low(b));
      }
      list[n] = '\0';
      return agon_err_set(err, AGON_EILLEGAL,
                          "%s's %c is not a candidate: respond with the nearest available "
                          "piece on either side of the engaged one (%s)",
                          g19_side[mover], 'a' + col[0], list);
    }
    *out = g19_mv(G19_MV_RESPOND, 1, col[0], 0);
    return 0;
  }
  if (s->phase == G19_RESPOND)
    return agon_err_set(err, AGON_EILLEGAL, "%s must respond to %s's engagement",
                        g19_side[mover], g19_side[!mover]);
  int me = s->init;
  for (int o = 0; o < nops; o++) {
    int c = col[o];
    if (!s->piece[me][c])
      return agon_err_set(err, AGON_EILLEGAL, "%s's column %c holds no piece", g19_side[me],
                          'a' + c);
    if (((s->wdr[me] >> c) & 1) &&
        !(kind == G19_MV_PERMUTE && (s->opts & G19_O_PERMWD)))
      return agon_err_set(err, AGON_EILLEGAL,
                          "%s's %c (%s) is withdrawn until the series ends",
                          g19_side[me], 'a' + c, g19_pname[s->piece[me][c]]);
  }
  if (kind == G19_MV_ENGAGE) {
    *out = g19_mv(G19_MV_ENGAGE, 1, col[0], 0);
    return 0;
  }
  if (col[0] == col[1])
    return agon_err_set(err, AGON_EILLEGAL, "permute needs two different columns");
  if (s->forced)
    return agon_err_set(err, AGON_EILLEGAL,
                        "%s just permuted: %s must engage (no permutation in reply)",
                        g19_side[!me], g19_side[me]);
  int a = col[0] < col[1] ? col[0] : col[1], b = col[0] ^ col[1] ^ a;
  *out = g19_mv(G19_MV_PERMUTE, 2, a, b);
  return 0;
}

/* ---- views ------------------------------------------------------------- */

static const char *g19_phase_name[G19_NPHASE] = {"choose", "place", "act", "respond",
                                                 "over"};

static json_t *g19_cell_json(const g19_state *s, int x, int c) {
  int p = s->piece[x][c];
  const char *st = "empty";
  if (p) {
    if ((s->avail[x] >> c) & 1) st = "available";
    else if ((s->wdr[x] >> c) & 1) st = "withdrawn";
    else st = "on_line";
  }
  return json_pack("{s:s, s:i, s:o, s:s}", "column", (char[]){(char)('a' + c), 0},
                   "line", 2 * c + 1 + x, "piece", p ? json_string(g19_pname[p]) : json_null(),
                   "state", st);
}

static json_t *g19_to_json(const game_state *gs, int viewer) {
  const g19_state *s = G19C(gs);
  (void)viewer; /* nothing is hidden: both rows are public */
  json_t *board = json_object();
  for (int x = 0; x < 2; x++) {
    json_t *row = json_array();
    for (int c = 0; c < 9; c++) json_array_append_new(row, g19_cell_json(s, x, c));
    json_object_set_new(board, g19_side[x], row);
  }
  json_t *line = json_array();
  for (int l = 0; l < 18; l++) {
    int x = l % 2, c = l / 2;
    if (s->phase == G19_RESPOND && x == s->init && c == s->engaged)
      json_array_append_new(line, json_pack("{s:s, s:s, s:s}", "side", g19_side[x],
                                            "column", (char[]){(char)('a' + c), 0},
                                            "piece", g19_pname[s->piece[x][c]]));
    else
      json_array_append_new(line, json_null());
  }
  json_object_set_new(board, "line", line);
  json_t *v = json_object();
  json_object_set_new(v, "board", board);
  int tm = g19_to_move(gs);
  json_object_set_new(v, "to_move", tm == GAME_NOBODY ? json_null()
                                    : json_string(tm == GAME_CHOOSER ? "chooser" : g19_side[tm]));
  json_object_set_new(v, "phase", json_string(g19_phase_name[s->phase]));
  json_object_set_new(v, "initiative", s->phase == G19_ACT || s->phase == G19_RESPOND
                                           ? json_string(g19_side[s->init]) : json_null());
  json_object_set_new(v, "must_engage", json_boolean(s->phase == G19_ACT && s->forced));
  json_object_set_new(v, "prisoners", json_pack("{s:i, s:i}", "south", s->prisoners[0],
                                                "north", s->prisoners[1]));
  json_object_set_new(v, "eliminated", json_pack("{s:i, s:i}", "south", s->elim[0],
                                                 "north", s->elim[1]));
  json_object_set_new(v, "pieces", json_pack("{s:i, s:i}", "south", g19_popc(g19_occ(s, 0)),
                                             "north", g19_popc(g19_occ(s, 1))));
  if (s->phase == G19_RESPOND) {
    json_t *cand = json_array();
    for (unsigned b = g19_candidates(s); b; b &= b - 1)
      json_array_append_new(cand, json_string((char[]){(char)('a' + g19_low(b)), 0}));
    json_object_set_new(v, "engaged", json_pack("{s:s, s:s, s:s, s:i}", "side",
                                                g19_side[s->init], "column",
                                                (char[]){(char)('a' + s->engaged), 0},
                                                "piece",
                                                g19_pname[s->piece[s->init][s->engaged]],
                                                "line", 2 * s->engaged + 1 + s->init));
    json_object_set_new(v, "candidates", cand);
  } else {
    json_object_set_new(v, "engaged", json_null());
    json_object_set_new(v, "candidates", json_array());
  }
  if (s->phase == G19_PLACE) {
    int str, who = g19_place_turn(s, &str);
    json_object_set_new(v, "placement", json_pack("{s:s, s:s, s:i}", "first",
                                                  g19_side[s->first], "placer",
                                                  g19_side[who], "strength", str));
  } else {
    json_object_set_new(v, "placement", json_null());
  }
  json_object_set_new(v, "winner", s->phase == G19_OVER ? json_string(g19_side[s->winner])
                                                        : json_null());
  return v;
}

static int g19_to_text(const game_state *gs, char *buf, size_t cap) {
  const g19_state *s = G19C(gs);
  char out[1024];
  size_t k = 0;
#define G19_OUT(...) k += (size_t)snprintf(out + k, sizeof out - k, __VA_ARGS__)
  char row[2][64], line[64];
  for (int x = 0; x < 2; x++) {
    memset(row[x], ' ', sizeof row[x]);
    for (int c = 0; c < 9; c++) {
      int p = s->piece[x][c], at = 8 + 6 * c + 3 * x;
      const char *n = p ? g19_pname[p] : "..";
      row[x][at] = n[0];
      row[x][at + 1] = n[1];
      if (p && ((s->wdr[x] >> c) & 1)) row[x][at] = (char)(row[x][at] - 'A' + 'a');
      if (p && s->phase == G19_RESPOND && x == s->init && c == s->engaged)
        row[x][at] = row[x][at + 1] = '^';
    }
    row[x][8 + 6 * 8 + 3 * x + 2] = '\0';
  }
  size_t lk = 0;
  lk += (size_t)snprintf(line + lk, sizeof line - lk, "Line:   ");
  for (int l = 0; l < 18; l++) {
    int x = l % 2, c = l / 2;
    if (s->phase == G19_RESPOND && x == s->init && c == s->engaged)
      lk += (size_t)snprintf(line + lk, sizeof line - lk, "%s%s", g19_pname[s->piece[x][c]],
                             l < 17 ? " " : "");
    else
      lk += (size_t)snprintf(line + lk, sizeof line - lk, "%02d%s", l + 1, l < 17 ? " " : "");
  }
  memcpy(row[1], "North:", 6);
  memcpy(row[0], "South:", 6);
  G19_OUT("           a     b     c     d     e     f     g     h     i\n");
  G19_OUT("%s\n%s\n%s\n", row[1], line, row[0]);
  G19_OUT("        a     b     c     d     e     f     g     h     i\n");
  G19_OUT("(lower case = withdrawn, .. = empty, ^^ = on the line)\n");
  G19_OUT("prisoners: South %d, North %d", s->prisoners[0], s->prisoners[1]);
  if (s->elim[0] | s->elim[1])
    G19_OUT("; eliminated: South %d, North %d", s->elim[0], s->elim[1]);
  G19_OUT("\n");
  int str;
  switch (s->phase) {
    case G19_CHOOSE: G19_OUT("phase: choose a side\n"); break;
    case G19_PLACE: {
      int who = g19_place_turn(s, &str);
      G19_OUT("phase: placement, %s places a strength-%d piece\n", g19_Side[who], str);
      break;
    }
    case G19_ACT:
      G19_OUT("phase: %s holds the initiative%s\n", g19_Side[s->init],
              s->forced ? " and must engage" : "");
      break;
    case G19_RESPOND:
      G19_OUT("phase: %s engaged %c (%s on L%d), %s responds\n", g19_Side[s->init],
              'a' + s->engaged, g19_pname[s->piece[s->init][s->engaged]],
              2 * s->engaged + 1 + s->init, g19_Side[!s->init]);
      break;
    default: G19_OUT("phase: over, %s wins\n", g19_Side[s->winner & 1]); break;
  }
#undef G19_OUT
  if (k >= sizeof out) return AGON_ENOSPACE;
  if (k + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, out, k + 1);
  return (int)k;
}

/* ---- hook table -------------------------------------------------------- */

const game_vtable gambo19_vtable = {
    .name = "gambo-2019",
    .title = "Gambo (2019 rules)",
    .version = 1,
    .side_names = {"south", "north"},
    .state_size = sizeof(g19_state),
    .options = g19_options,
    .n_options = G19_OPT_COUNT,
    .init = g19_init,
    .from_position = g19_from_position,
    .to_position = g19_to_position,
    .to_move = g19_to_move,
    .legal_moves = g19_legal,
    .parse_move = g19_parse,
    .format_move = g19_format,
    .describe_move = g19_describe,
    .apply = g19_apply,
    .outcome = g19_outcome,
    .check = g19_check,
    .to_json = g19_to_json,
    .to_text = g19_to_text,
    .hash = g19_hash,
    .repetition = g19_repetition,
    .repetition_outcome = NULL,
};
