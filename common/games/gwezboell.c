/* gwezboell.c - Gwezboell, the Breton 9x9 tafl with corner escape
 * (shared/rules/gwezboell.md). Side 0 = defenders (King + 8 guards),
 * side 1 = attackers (16).
 *
 * Board: a 10-wide mailbox (9 files + one sentinel column that is also the
 * left border of the next row) with a sentinel row below and above, so rook
 * rays stop on GW_OFF without bounds checks: 110 bytes, and the whole state
 * is 128 bytes, which perft copies per node.
 *
 * Moves: kind GW_KIND_MOVE, n = 2, op = {from, to} as 0..80 (rank * 9 +
 * file, a1 = 0), unused bytes zero.
 *
 * Position text (docs/positions/gwezboell.md):
 *   <rank 9>/<rank 8>/.../<rank 1> <side d|a> <ply> <quiet>
 * pieces a (attacker), D (guard), K (King), k (captured King: game over),
 * digits 1-9 for runs of empty squares.
 */
#include "games.h"

#include <stdio.h>
#include <string.h>

/* ---- board geometry ------------------------------------------------------ */

#define GW_N 9
#define GW_W 10                 /* mailbox row width */
#define GW_MB 110               /* (9 + 2 rows) * 10 */
#define GW_MBSQ(r, f) (((r) + 1) * GW_W + (f))
#define GW_THRONE GW_MBSQ(4, 4)

enum { GW_EMPTY = 0, GW_ATT = 1, GW_DEF = 2, GW_KING = 3, GW_OFF = 4 };
enum { GW_DEFENDERS = 0, GW_ATTACKERS = 1 };
enum { GW_KIND_MOVE = 1 };
enum { GW_LIVE = 0, GW_ESCAPED = 1, GW_CAPTURED = 2 };

/* Square flags. */
#define GW_F_THRONE 1u
#define GW_F_CORNER 2u

/* Option bits copied into the state (apply needs them, the state has no
 * pointer back to the setup). */
#define GW_O_NO_REENTER 0x01u    /* king_reenter_throne=no */
#define GW_O_HT_EMPTY 0x02u      /* hostile_throne=empty */
#define GW_O_HT_ALWAYS 0x04u     /* hostile_throne=always */
#define GW_O_HCORNERS 0x08u      /* hostile_corners=yes */
#define GW_O_CORNERS_ANY 0x10u   /* corners_king_only=no */
#define GW_O_CORNER_KING 0x20u   /* corner_hostile_to_king=yes */
#define GW_O_ANY_CAPTURE 0x40u   /* king_capture=any_attacker_move */
#define GW_O_NOMOVE_DRAW 0x80u   /* no_move=draw */

typedef struct gw_state {
  uint8_t cell[GW_MB];  /* GW_EMPTY.. GW_OFF */
  uint8_t side;         /* side to move (also after the end: next mover) */
  uint8_t king;         /* mailbox square of the King */
  uint8_t over;         /* GW_LIVE, GW_ESCAPED, GW_CAPTURED */
  uint8_t opt;          /* GW_O_* */
  uint8_t rep;          /* repetition limit (0 = off) */
  uint32_t ply;         /* plies played since the start */
  uint32_t quiet;       /* plies since the last irreversible move */
  uint32_t max_plies;   /* 0 = no limit */
} gw_state;

_Static_assert(sizeof(gw_state) <= GAME_STATE_MAX, "gw_state too large");
_Static_assert(sizeof(gw_state) == 128, "gw_state layout changed");

/* Option indexes, in the order of gw_options. */
enum {
  GW_OPT_FIRST, GW_OPT_REENTER, GW_OPT_HTHRONE, GW_OPT_HCORNERS,
  GW_OPT_CORNERS_KING, GW_OPT_CORNER_KING, GW_OPT_KCAPTURE, GW_OPT_NOMOVE,
  GW_OPT_REPETITION, GW_OPT_MAXPLIES, GW_OPT_COUNT
};

static const game_option gw_options[GW_OPT_COUNT] = {
    {"first", GAME_OPT_ENUM, "defenders|attackers", "defenders", 0, 0,
     "side that moves first"},
    {"king_reenter_throne", GAME_OPT_ENUM, "yes|no", "yes", 0, 0,
     "may the King stop on the throne again after leaving it"},
    {"hostile_throne", GAME_OPT_ENUM, "no|empty|always", "no", 0, 0,
     "the throne as a capture partner for ordinary captures"},
    {"hostile_corners", GAME_OPT_ENUM, "no|yes", "no", 0, 0,
     "empty corners as capture partners for ordinary captures"},
    {"corners_king_only", GAME_OPT_ENUM, "yes|no", "yes", 0, 0,
     "only the King may stop on a corner"},
    {"corner_hostile_to_king", GAME_OPT_ENUM, "no|yes", "no", 0, 0,
     "an empty corner helps capture the King beside it"},
    {"king_capture", GAME_OPT_ENUM, "adjacent_move|any_attacker_move",
     "adjacent_move", 0, 0,
     "King captured only by an attacker move ending next to him, or by any"},
    {"no_move", GAME_OPT_ENUM, "loss|draw", "loss", 0, 0,
     "result for a side with no legal move on its turn"},
    {"repetition", GAME_OPT_INT, NULL, "3", 0, 100,
     "draw on this occurrence of a position (0 = off)"},
    {"max_plies", GAME_OPT_INT, NULL, "0", 0, 1000000,
     "draw when this many plies have been played (0 = no limit)"},
};

/* Is mailbox index i a board square (not a sentinel)? */
#define GW_ROWCOL_OK(i) ((i) >= GW_W && (i) < GW_MB - GW_W && (i) % GW_W != 9)

/* Mailbox square of board square 0..80. */
static const uint8_t gw_mb_of[81] = {
#define R_(r)                                                                \
  GW_MBSQ(r, 0), GW_MBSQ(r, 1), GW_MBSQ(r, 2), GW_MBSQ(r, 3), GW_MBSQ(r, 4), \
      GW_MBSQ(r, 5), GW_MBSQ(r, 6), GW_MBSQ(r, 7), GW_MBSQ(r, 8)
    R_(0), R_(1), R_(2), R_(3), R_(4), R_(5), R_(6), R_(7), R_(8)
#undef R_
};

/* Board square 0..80 of a mailbox square (only meaningful on the board). */
#define GW_SQ_OF(m) ((uint8_t)(((m) / GW_W - 1) * GW_N + (m) % GW_W))

/* Square flags by mailbox index (lookup in the ray loop). */
static const uint8_t gw_flag[GW_MB] = {
    [GW_THRONE] = GW_F_THRONE,     [GW_MBSQ(0, 0)] = GW_F_CORNER,
    [GW_MBSQ(0, 8)] = GW_F_CORNER, [GW_MBSQ(8, 0)] = GW_F_CORNER,
    [GW_MBSQ(8, 8)] = GW_F_CORNER,
};

/* West, east, south, north: also the order captures are listed in the
 * canonical notation (horizontal neighbours first, then vertical, each in
 * ascending coordinate), which gives the spec's g7-g3xf3/h3/g2. */
static const int gw_dir[4] = {-1, +1, -GW_W, +GW_W};

static inline gw_state *gw_of(game_state *st) { return (gw_state *)st->u.bytes; }
static inline const gw_state *gw_cof(const game_state *st) {
  return (const gw_state *)st->u.bytes;
}

/* Does cell c belong to side? Defenders: guard or King. */
static inline int gw_own(int side, unsigned c) {
  return side == GW_ATTACKERS ? c == GW_ATT : (c == GW_DEF || c == GW_KING);
}

/* Square flags on which piece c may not stop. */
static inline unsigned gw_forbid(const gw_state *s, unsigned c) {
  if (c == GW_KING) return (s->opt & GW_O_NO_REENTER) ? GW_F_THRONE : 0u;
  return GW_F_THRONE | ((s->opt & GW_O_CORNERS_ANY) ? 0u : GW_F_CORNER);
}

static inline int gw_max_reached(const gw_state *s) {
  return s->max_plies != 0 && s->ply >= s->max_plies;
}

/* ---- move generation ----------------------------------------------------- */

static int gw_any_move(const gw_state *s) {
  for (int i = 0; i < 81; i++) {
    int m = gw_mb_of[i];
    unsigned c = s->cell[m];
    if (!gw_own(s->side, c)) continue;
    unsigned forbid = gw_forbid(s, c);
    for (int d = 0; d < 4; d++)
      for (int t = m + gw_dir[d]; s->cell[t] == GW_EMPTY; t += gw_dir[d])
        if (!(gw_flag[t] & forbid)) return 1;
  }
  return 0;
}

static int gw_legal_moves(const game_state *st, game_move *out, size_t cap,
                          size_t *n) {
  const gw_state *s = gw_cof(st);
  size_t k = 0;
  *n = 0;
  if (s->over != GW_LIVE || gw_max_reached(s)) return 0;
  const int side = s->side;
  for (int i = 0; i < 81; i++) {
    int m = gw_mb_of[i];
    unsigned c = s->cell[m];
    if (!gw_own(side, c)) continue;
    unsigned forbid = gw_forbid(s, c);
    for (int d = 0; d < 4; d++) {
      const int step = gw_dir[d];
      for (int t = m + step; s->cell[t] == GW_EMPTY; t += step) {
        if (gw_flag[t] & forbid) continue;  /* crossed, not stopped on */
        if (k == cap) {
          *n = k;
          return AGON_ENOSPACE;
        }
        game_move *mv = &out[k++];
        memset(mv, 0, sizeof *mv);
        mv->kind = GW_KIND_MOVE;
        mv->n = 2;
        mv->op[0] = (uint8_t)i;
        mv->op[1] = GW_SQ_OF(t);
      }
    }
  }
  *n = k;
  return 0;
}

/* ---- captures and the end of the game ----------------------------------- */

/* May square b close a sandwich for side? */
static inline int gw_partner(const gw_state *s, int side, int b) {
  unsigned c = s->cell[b];
  if (gw_own(side, c)) return 1;
  if (b == GW_THRONE)
    return (s->opt & GW_O_HT_ALWAYS) ||
           ((s->opt & GW_O_HT_EMPTY) && c == GW_EMPTY);
  if (gw_flag[b] & GW_F_CORNER)
    return (s->opt & GW_O_HCORNERS) && c == GW_EMPTY;
  return 0;
}

/* Is every on-board neighbour of the King an attacker or a helper square
 * (the empty throne; an empty corner with corner_hostile_to_king)? */
static int gw_king_framed(const gw_state *s) {
  unsigned helper =
      GW_F_THRONE | ((s->opt & GW_O_CORNER_KING) ? GW_F_CORNER : 0u);
  for (int d = 0; d < 4; d++) {
    int n = s->king + gw_dir[d];
    unsigned c = s->cell[n];
    if (c == GW_OFF || c == GW_ATT) continue;
    if (c == GW_EMPTY && (gw_flag[n] & helper)) continue;
    return 0;
  }
  return 1;
}

/* Play from -> to (mailbox squares) for the side to move; the move must be
 * legal. Captured squares go to caps (if not NULL). Returns the capture
 * count. */
static inline unsigned gw_play(gw_state *s, int from, int to, uint8_t *caps) {
  const int side = s->side;
  const unsigned pc = s->cell[from];
  const unsigned victim = side == GW_ATTACKERS ? GW_DEF : GW_ATT;
  unsigned nc = 0;
  s->cell[from] = GW_EMPTY;
  s->cell[to] = (uint8_t)pc;
  if (pc == GW_KING) s->king = (uint8_t)to;
  for (int d = 0; d < 4; d++) {
    int v = to + gw_dir[d];
    if (s->cell[v] == victim && gw_partner(s, side, v + gw_dir[d])) {
      s->cell[v] = GW_EMPTY;
      if (caps) caps[nc] = (uint8_t)v;
      nc++;
    }
  }
  int irreversible = nc != 0;
  if (side == GW_ATTACKERS) {
    int diff = to - s->king;
    int adjacent = diff == 1 || diff == -1 || diff == GW_W || diff == -GW_W;
    if ((adjacent || (s->opt & GW_O_ANY_CAPTURE)) && gw_king_framed(s))
      s->over = GW_CAPTURED;
  } else if (pc == GW_KING) {
    if (gw_flag[to] & GW_F_CORNER) s->over = GW_ESCAPED;
    /* Without re-entry the King never stands on the throne again. */
    if (from == GW_THRONE && (s->opt & GW_O_NO_REENTER)) irreversible = 1;
  }
  /* Saturating, so every state keeps a valid position text (counters are
   * read back up to UINT32_MAX). */
  s->ply += s->ply != UINT32_MAX;
  s->quiet = irreversible ? 0 : s->quiet + (s->quiet != UINT32_MAX);
  s->side = (uint8_t)(side ^ 1);
  return nc;
}

static int gw_apply(game_state *st, const game_move *mv, agon_err *err) {
  gw_state *s = gw_of(st);
  /* Only cheap sanity checks: callers pass moves from legal_moves or
   * parse_move, and a full legality test would slow perft down. These keep
   * a wrong caller from corrupting the board. */
  if (mv->kind != GW_KIND_MOVE || mv->n != 2 || mv->op[0] > 80 ||
      mv->op[1] > 80 || s->over != GW_LIVE ||
      !gw_own(s->side, s->cell[gw_mb_of[mv->op[0]]]) ||
      s->cell[gw_mb_of[mv->op[1]]] != GW_EMPTY)
    return agon_err_set(err, AGON_EINVAL, "not a move of this position");
  gw_play(s, gw_mb_of[mv->op[0]], gw_mb_of[mv->op[1]], NULL);
  return 0;
}

static game_outcome gw_outcome(const game_state *st) {
  const gw_state *s = gw_cof(st);
  if (s->over == GW_ESCAPED)
    return game_outcome_win(GW_DEFENDERS, "king_escaped");
  if (s->over == GW_CAPTURED)
    return game_outcome_win(GW_ATTACKERS, "king_captured");
  /* A decisive blockade on the last allowed ply still decides the game. */
  if (!gw_any_move(s))
    return (s->opt & GW_O_NOMOVE_DRAW)
               ? game_outcome_draw("no_moves")
               : game_outcome_win(s->side ^ 1, "no_moves");
  if (gw_max_reached(s)) return game_outcome_draw("max_plies");
  return game_outcome_ongoing();
}

static int gw_to_move(const game_state *st) {
  if (gw_outcome(st).result != GAME_ONGOING) return GAME_NOBODY;
  return gw_cof(st)->side;
}

/* ---- setup --------------------------------------------------------------- */

static void gw_clear(gw_state *s) {
  memset(s, 0, sizeof *s);
  for (int m = 0; m < GW_MB; m++)
    s->cell[m] = GW_ROWCOL_OK(m) ? GW_EMPTY : GW_OFF;
}

static int gw_read_options(gw_state *s, const game_setup *setup,
                           agon_err *err) {
  const int *v = setup->ival;
  if (setup->vt != &gwez_vtable)
    return agon_err_set(err, AGON_EOPTION, "options are not gwezboell's");
  if (v[GW_OPT_REPETITION] == 1)
    return agon_err_set(err, AGON_EOPTION,
                        "option repetition: 1 would end every game at once "
                        "(use 0 to disable, or 2 or more)");
  uint8_t o = 0;
  if (v[GW_OPT_REENTER] == 1) o |= GW_O_NO_REENTER;
  if (v[GW_OPT_HTHRONE] == 1) o |= GW_O_HT_EMPTY;
  if (v[GW_OPT_HTHRONE] == 2) o |= GW_O_HT_ALWAYS;
  if (v[GW_OPT_HCORNERS] == 1) o |= GW_O_HCORNERS;
  if (v[GW_OPT_CORNERS_KING] == 1) o |= GW_O_CORNERS_ANY;
  if (v[GW_OPT_CORNER_KING] == 1) o |= GW_O_CORNER_KING;
  if (v[GW_OPT_KCAPTURE] == 1) o |= GW_O_ANY_CAPTURE;
  if (v[GW_OPT_NOMOVE] == 1) o |= GW_O_NOMOVE_DRAW;
  s->opt = o;
  s->rep = (uint8_t)v[GW_OPT_REPETITION];
  s->max_plies = (uint32_t)v[GW_OPT_MAXPLIES];
  return 0;
}

static int gw_init(game_state *st, const game_setup *setup, uint64_t seed,
                   agon_err *err) {
  /* The seed only draws which player gets which side: the server's job. */
  (void)seed;
  gw_state *s = gw_of(st);
  memset(st, 0, sizeof *st);
  gw_clear(s);
  int rc = gw_read_options(s, setup, err);
  if (rc < 0) return rc;
  static const char att[16][3] = {"d1", "e1", "f1", "e2", "a4", "a5",
                                  "a6", "b5", "i4", "i5", "i6", "h5",
                                  "d9", "e9", "f9", "e8"};
  static const char def[8][3] = {"e3", "e4", "e6", "e7",
                                 "c5", "d5", "f5", "g5"};
  for (int i = 0; i < 16; i++)
    s->cell[GW_MBSQ(att[i][1] - '1', att[i][0] - 'a')] = GW_ATT;
  for (int i = 0; i < 8; i++)
    s->cell[GW_MBSQ(def[i][1] - '1', def[i][0] - 'a')] = GW_DEF;
  s->cell[GW_THRONE] = GW_KING;
  s->king = GW_THRONE;
  s->side = (uint8_t)(setup->ival[GW_OPT_FIRST] == 1 ? GW_ATTACKERS
                                                     : GW_DEFENDERS);
  return 0;
}

/* ---- invariants ---------------------------------------------------------- */

/* Shared by check and from_position: the rules' constraints on a board. */
static int gw_validate(const gw_state *s, int code, agon_err *err) {
  int kings = 0, att = 0, def = 0;
  for (int m = 0; m < GW_MB; m++) {
    unsigned c = s->cell[m];
    if (!GW_ROWCOL_OK(m)) {
      if (c != GW_OFF) return agon_err_set(err, code, "border cell %d not off", m);
      continue;
    }
    char name[3] = {(char)('a' + m % GW_W), (char)('1' + m / GW_W - 1), 0};
    unsigned fl = gw_flag[m];
    switch (c) {
      case GW_EMPTY: break;
      case GW_ATT: att++; break;
      case GW_DEF: def++; break;
      case GW_KING:
        kings++;
        if (s->king != m)
          return agon_err_set(err, code, "King on %s but recorded elsewhere", name);
        break;
      default:
        return agon_err_set(err, code, "bad cell value %u on %s", c, name);
    }
    if (c == GW_ATT || c == GW_DEF) {
      if (fl & GW_F_THRONE)
        return agon_err_set(err, code, "only the King may stand on the throne e5");
      if ((fl & GW_F_CORNER) && !(s->opt & GW_O_CORNERS_ANY))
        return agon_err_set(err, code, "only the King may stand on corner %s", name);
    }
  }
  if (kings != 1)
    return agon_err_set(err, code, "there must be exactly one King (found %d)", kings);
  if (att > 16)
    return agon_err_set(err, code, "at most 16 attackers (found %d)", att);
  if (def > 8) return agon_err_set(err, code, "at most 8 guards (found %d)", def);
  if (s->side > 1) return agon_err_set(err, code, "bad side to move %u", s->side);
  if (s->quiet > s->ply)
    return agon_err_set(err, code, "quiet plies %u exceed plies played %u",
                        (unsigned)s->quiet, (unsigned)s->ply);
  int on_corner = (gw_flag[s->king] & GW_F_CORNER) != 0;
  switch (s->over) {
    case GW_LIVE:
      if (on_corner)
        return agon_err_set(err, code, "King on a corner but the game goes on");
      break;
    case GW_ESCAPED:
      if (!on_corner)
        return agon_err_set(err, code, "King escaped but is not on a corner");
      if (s->side != GW_ATTACKERS)
        return agon_err_set(err, code,
                            "King escaped, so the defenders moved last "
                            "(side to move must be a)");
      break;
    case GW_CAPTURED:
      if (on_corner)
        return agon_err_set(err, code, "a King on a corner cannot be captured");
      if (!gw_king_framed(s))
        return agon_err_set(err, code, "King marked captured but not framed");
      if (s->side != GW_DEFENDERS)
        return agon_err_set(err, code,
                            "King captured, so the attackers moved last "
                            "(side to move must be d)");
      break;
    default:
      return agon_err_set(err, code, "bad end state %u", s->over);
  }
  return 0;
}

static int gw_check(const game_state *st, agon_err *err) {
  return gw_validate(gw_cof(st), AGON_EINTERNAL, err);
}

/* ---- position text ------------------------------------------------------- */

static int gw_to_position(const game_state *st, char *buf, size_t cap) {
  const gw_state *s = gw_cof(st);
  char tmp[GAME_POSITION_MAX];
  size_t k = 0;
  for (int r = GW_N - 1; r >= 0; r--) {
    int run = 0;
    for (int f = 0; f < GW_N; f++) {
      unsigned c = s->cell[GW_MBSQ(r, f)];
      if (c == GW_EMPTY) {
        run++;
        continue;
      }
      if (run) tmp[k++] = (char)('0' + run);
      run = 0;
      tmp[k++] = c == GW_ATT ? 'a' : c == GW_DEF ? 'D'
                 : s->over == GW_CAPTURED ? 'k' : 'K';
    }
    if (run) tmp[k++] = (char)('0' + run);
    if (r) tmp[k++] = '/';
  }
  int w = snprintf(tmp + k, sizeof tmp - k, " %c %u %u",
                   s->side == GW_ATTACKERS ? 'a' : 'd', (unsigned)s->ply,
                   (unsigned)s->quiet);
  if (w < 0) return AGON_EINTERNAL;
  k += (size_t)w;
  if (k + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, tmp, k + 1);
  return (int)k;
}

static int gw_is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}

/* Decimal counter field into *out (no sign, at most UINT32_MAX). */
static int gw_parse_count(const char *p, size_t n, uint32_t *out) {
  if (n == 0 || n > 10) return -1;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return -1;
    v = v * 10 + (uint64_t)(p[i] - '0');
  }
  if (v > UINT32_MAX) return -1;
  if (n > 1 && p[0] == '0') return -1;  /* one spelling per number */
  *out = (uint32_t)v;
  return 0;
}

static int gw_from_position(game_state *st, const game_setup *setup,
                            const char *pos, size_t len, agon_err *err) {
  gw_state s;
  gw_clear(&s);
  int rc = gw_read_options(&s, setup, err);
  if (rc < 0) return rc;
  if (pos == NULL) return agon_err_set(err, AGON_EPOSITION, "no position");
  if (len >= GAME_POSITION_MAX)
    return agon_err_set(err, AGON_EPOSITION, "position longer than %d bytes",
                        GAME_POSITION_MAX - 1);
  /* Split into blank-separated fields. */
  const char *fs[5];
  size_t fl[5];
  int nf = 0;
  for (size_t i = 0; i < len;) {
    if (gw_is_blank(pos[i])) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < len && !gw_is_blank(pos[j])) j++;
    if (nf == 4)
      return agon_err_set(err, AGON_EPOSITION,
                          "too many fields (want: board side [ply quiet])");
    fs[nf] = pos + i;
    fl[nf++] = j - i;
    i = j;
  }
  if (nf != 2 && nf != 4)
    return agon_err_set(err, AGON_EPOSITION,
                        "want 2 or 4 fields: board side [ply quiet], e.g. "
                        "3aaa3/4a4/4D4/a3D3a/aaDDKDDaa/a3D3a/4D4/4a4/3aaa3 d 0 0");
  /* Board: ranks 9..1 separated by '/'. */
  int r = GW_N - 1, f = 0, captured = 0, kings = 0;
  char prev = 0;
  for (size_t i = 0; i < fl[0]; i++) {
    char c = fs[0][i];
    if (c == '/') {
      if (f != GW_N)
        return agon_err_set(err, AGON_EPOSITION, "rank %d has %d squares, not 9",
                            r + 1, f);
      if (r == 0)
        return agon_err_set(err, AGON_EPOSITION, "more than 9 ranks");
      r--;
      f = 0;
    } else if (c >= '1' && c <= '9') {
      if (prev >= '1' && prev <= '9')
        return agon_err_set(err, AGON_EPOSITION,
                            "two digits in a row in rank %d", r + 1);
      f += c - '0';
      if (f > GW_N)
        return agon_err_set(err, AGON_EPOSITION, "rank %d has more than 9 squares",
                            r + 1);
    } else if (c == 'a' || c == 'D' || c == 'K' || c == 'k') {
      if (f >= GW_N)
        return agon_err_set(err, AGON_EPOSITION, "rank %d has more than 9 squares",
                            r + 1);
      int m = GW_MBSQ(r, f);
      if (c == 'a') s.cell[m] = GW_ATT;
      else if (c == 'D') s.cell[m] = GW_DEF;
      else {
        if (++kings > 1)
          return agon_err_set(err, AGON_EPOSITION, "more than one King");
        s.cell[m] = GW_KING;
        s.king = (uint8_t)m;
        captured = c == 'k';
      }
      f++;
    } else {
      return agon_err_set(err, AGON_EPOSITION,
                          "unexpected byte 0x%02x in the board (pieces a, D, K, "
                          "k; digits 1-9; '/' between ranks)",
                          (unsigned)(unsigned char)c);
    }
    prev = c;
  }
  if (r != 0 || f != GW_N)
    return agon_err_set(err, AGON_EPOSITION,
                        "the board must have 9 ranks of 9 squares");
  if (kings == 0)
    return agon_err_set(err, AGON_EPOSITION, "there must be exactly one King");
  if (fl[1] != 1 || (fs[1][0] != 'd' && fs[1][0] != 'a'))
    return agon_err_set(err, AGON_EPOSITION,
                        "side to move must be d (defenders) or a (attackers)");
  s.side = fs[1][0] == 'a' ? GW_ATTACKERS : GW_DEFENDERS;
  if (nf == 4) {
    if (gw_parse_count(fs[2], fl[2], &s.ply) < 0 ||
        gw_parse_count(fs[3], fl[3], &s.quiet) < 0)
      return agon_err_set(err, AGON_EPOSITION,
                          "ply and quiet counters must be decimal numbers "
                          "up to 4294967295");
  }
  if (captured) s.over = GW_CAPTURED;
  else if (gw_flag[s.king] & GW_F_CORNER) s.over = GW_ESCAPED;
  rc = gw_validate(&s, AGON_EPOSITION, err);
  if (rc < 0) return rc;
  memset(st, 0, sizeof *st);
  memcpy(gw_of(st), &s, sizeof s);
  return 0;
}

/* ---- move text ----------------------------------------------------------- */

static void gw_sqname(int sq81, char *out) {
  out[0] = (char)('a' + sq81 % GW_N);
  out[1] = (char)('1' + sq81 / GW_N);
}

static int gw_format_move(const game_state *st, const game_move *mv, char *buf,
                          size_t cap) {
  const gw_state *s = gw_cof(st);
  char tmp[32];
  size_t k = 0;
  if (mv->kind != GW_KIND_MOVE || mv->n != 2 || mv->op[0] > 80 || mv->op[1] > 80)
    return AGON_EINVAL;
  gw_sqname(mv->op[0], tmp);
  tmp[2] = '-';
  gw_sqname(mv->op[1], tmp + 3);
  k = 5;
  if (s->over == GW_LIVE && gw_own(s->side, s->cell[gw_mb_of[mv->op[0]]])) {
    gw_state after = *s;
    uint8_t caps[4];
    unsigned nc = gw_play(&after, gw_mb_of[mv->op[0]], gw_mb_of[mv->op[1]], caps);
    for (unsigned i = 0; i < nc; i++) {
      tmp[k++] = i ? '/' : 'x';
      gw_sqname(GW_SQ_OF(caps[i]), tmp + k);
      k += 2;
    }
    if (after.over == GW_CAPTURED) tmp[k++] = '+', tmp[k++] = '+';
    if (after.over == GW_ESCAPED) tmp[k++] = '-', tmp[k++] = '-';
  }
  if (k + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, tmp, k);
  buf[k] = '\0';
  return (int)k;
}

/* Square at p[0..1] as 0..80, or -1. */
static int gw_read_sq(const char *p) {
  char f = p[0], r = p[1];
  if (f >= 'A' && f <= 'I') f = (char)(f - 'A' + 'a');
  if (f < 'a' || f > 'i' || r < '1' || r > '9') return -1;
  return (r - '1') * GW_N + (f - 'a');
}

static const char *const gw_piece_name[] = {"nothing", "an attacker", "a guard",
                                            "the King", "nothing"};

static int gw_parse_move(const game_state *st, const char *text, size_t len,
                         game_move *out, agon_err *err) {
  const gw_state *s = gw_cof(st);
  char b[24];
  size_t n = 0;
  if (text == NULL) return agon_err_set(err, AGON_EBADMOVE, "empty move");
  /* Blanks are ignored anywhere; anything longer than the longest suffixed
   * form is not notation. */
  for (size_t i = 0; i < len; i++) {
    if (gw_is_blank(text[i])) continue;
    if (n == sizeof b - 1)
      return agon_err_set(err, AGON_EBADMOVE, "move text too long");
    b[n++] = text[i];
  }
  b[n] = '\0';
  if (gw_outcome(st).result != GAME_ONGOING)
    return agon_err_set(err, AGON_EGAMEOVER, NULL);
  size_t p = 0;
  int from = n >= 2 ? gw_read_sq(b) : -1;
  if (from < 0) goto bad;
  p = 2;
  if (p < n && b[p] == '-') p++;
  int to = p + 2 <= n ? gw_read_sq(b + p) : -1;
  if (to < 0) goto bad;
  p += 2;
  /* Output-only suffixes, accepted and ignored: xSQ[/SQ...], ++, --. */
  if (p < n && (b[p] == 'x' || b[p] == 'X')) {
    p++;
    for (;;) {
      if (p + 2 > n || gw_read_sq(b + p) < 0) goto bad;
      p += 2;
      if (p < n && (b[p] == '/' || b[p] == ',')) {
        p++;
        continue;
      }
      break;
    }
  }
  if (p + 2 == n && ((b[p] == '+' && b[p + 1] == '+') ||
                     (b[p] == '-' && b[p + 1] == '-')))
    p += 2;
  if (p != n) goto bad;

  char fn[3] = {0}, tn[3] = {0};
  gw_sqname(from, fn);
  gw_sqname(to, tn);
  int mf = gw_mb_of[from], mt = gw_mb_of[to];
  unsigned pc = s->cell[mf];
  if (pc == GW_EMPTY)
    return agon_err_set(err, AGON_EILLEGAL, "%s is empty", fn);
  if (!gw_own(s->side, pc))
    return agon_err_set(err, AGON_EILLEGAL,
                        "%s holds %s, not a piece of the %s", fn,
                        gw_piece_name[pc], gwez_vtable.side_names[s->side]);
  if (from == to)
    return agon_err_set(err, AGON_EILLEGAL, "a move must leave its square");
  int step;
  if (from / GW_N == to / GW_N) step = to > from ? 1 : -1;
  else if (from % GW_N == to % GW_N) step = to > from ? GW_W : -GW_W;
  else
    return agon_err_set(err, AGON_EILLEGAL,
                        "%s-%s is not along a rank or a file", fn, tn);
  for (int t = mf + step; t != mt; t += step)
    if (s->cell[t] != GW_EMPTY) {
      char on[3] = {0};
      gw_sqname(GW_SQ_OF(t), on);
      return agon_err_set(err, AGON_EILLEGAL, "the way is blocked at %s", on);
    }
  if (s->cell[mt] != GW_EMPTY)
    return agon_err_set(err, AGON_EILLEGAL, "%s is occupied", tn);
  unsigned fl = gw_flag[mt] & gw_forbid(s, pc);
  if (fl & GW_F_THRONE)
    return agon_err_set(err, AGON_EILLEGAL,
                        pc == GW_KING
                            ? "the King may not return to the throne (option "
                              "king_reenter_throne=no)"
                            : "only the King may stop on the throne e5");
  if (fl & GW_F_CORNER)
    return agon_err_set(err, AGON_EILLEGAL,
                        "only the King may stop on the corner %s", tn);
  memset(out, 0, sizeof *out);
  out->kind = GW_KIND_MOVE;
  out->n = 2;
  out->op[0] = (uint8_t)from;
  out->op[1] = (uint8_t)to;
  return 0;
bad:
  return agon_err_set(err, AGON_EBADMOVE,
                      "expected <from>-<to> such as e3-c3 (files a-i, ranks 1-9)");
}

/* ---- views --------------------------------------------------------------- */

static char gw_cell_char(const gw_state *s, int m) {
  switch (s->cell[m]) {
    case GW_ATT: return 'a';
    case GW_DEF: return 'D';
    case GW_KING: return 'K';
    default: break;
  }
  unsigned fl = gw_flag[m];
  return fl & GW_F_THRONE ? '+' : fl & GW_F_CORNER ? '#' : '.';
}

static json_t *gw_to_json(const game_state *st, int viewer) {
  (void)viewer;  /* perfect information */
  const gw_state *s = gw_cof(st);
  json_t *board = json_array();
  int att = 0, def = 0;
  for (int r = GW_N - 1; r >= 0; r--) {
    char row[GW_N + 1];
    for (int f = 0; f < GW_N; f++) {
      int m = GW_MBSQ(r, f);
      row[f] = gw_cell_char(s, m);
      att += s->cell[m] == GW_ATT;
      def += s->cell[m] == GW_DEF;
    }
    row[GW_N] = '\0';
    json_array_append_new(board, json_string(row));
  }
  int tm = gw_to_move(st);
  char king[3] = {0};
  gw_sqname(GW_SQ_OF(s->king), king);
  return json_pack(
      "{s:o, s:o, s:s, s:i, s:i, s:b, s:b, s:I, s:I, s:s, s:[ssss]}", "board",
      board, "to_move",
      tm == GAME_NOBODY ? json_null() : json_string(gwez_vtable.side_names[tm]),
      "king", king, "attackers", att, "guards", def, "king_captured",
      s->over == GW_CAPTURED, "king_escaped", s->over == GW_ESCAPED, "plies",
      (json_int_t)s->ply, "quiet_plies", (json_int_t)s->quiet, "throne", "e5",
      "exits", "a1", "i1", "a9", "i9");
}

static int gw_to_text(const game_state *st, char *buf, size_t cap) {
  const gw_state *s = gw_cof(st);
  char tmp[512];
  size_t k = 0;
  k += (size_t)snprintf(tmp + k, sizeof tmp - k, "     a b c d e f g h i\n");
  for (int r = GW_N - 1; r >= 0; r--) {
    k += (size_t)snprintf(tmp + k, sizeof tmp - k, "  %d ", r + 1);
    for (int f = 0; f < GW_N; f++) {
      tmp[k++] = ' ';
      tmp[k++] = gw_cell_char(s, GW_MBSQ(r, f));
    }
    tmp[k++] = '\n';
  }
  if (s->over == GW_CAPTURED)
    k += (size_t)snprintf(tmp + k, sizeof tmp - k, "  (the King is captured)\n");
  if (k + 1 > cap) return AGON_ENOSPACE;
  memcpy(buf, tmp, k);
  buf[k] = '\0';
  return (int)k;
}

/* ---- repetition ---------------------------------------------------------- */

static uint64_t gw_hash(const game_state *st) {
  const gw_state *s = gw_cof(st);
  /* Counters are left out: a repeated position has different ply counts. */
  uint64_t h = game_hash_bytes(GAME_HASH_INIT, s->cell, sizeof s->cell);
  uint8_t tail[2] = {s->side, s->over};
  return game_hash_bytes(h, tail, sizeof tail);
}

static unsigned gw_repetition(const game_state *st, unsigned *window) {
  const gw_state *s = gw_cof(st);
  *window = s->quiet;
  return s->rep;
}

const game_vtable gwez_vtable = {
    .name = "gwezboell",
    .title = "Gwezboell",
    .version = 1,
    .side_names = {"defenders", "attackers"},
    .state_size = sizeof(gw_state),
    .options = gw_options,
    .n_options = GW_OPT_COUNT,
    .init = gw_init,
    .from_position = gw_from_position,
    .to_position = gw_to_position,
    .to_move = gw_to_move,
    .legal_moves = gw_legal_moves,
    .parse_move = gw_parse_move,
    .format_move = gw_format_move,
    .describe_move = NULL,
    .apply = gw_apply,
    .outcome = gw_outcome,
    .check = gw_check,
    .to_json = gw_to_json,
    .to_text = gw_to_text,
    .hash = gw_hash,
    .repetition = gw_repetition,
    .repetition_outcome = NULL,
};
