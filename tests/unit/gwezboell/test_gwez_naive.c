/* test_gwez_naive.c - a deliberately naive second Gwezboell move generator,
 * written from the wording of shared/rules/gwezboell.md and sharing no code
 * with common/games/gwezboell.c: it reads the module's position TEXT with
 * its own parser, tries every (from, to) pair of squares, checks each
 * against the rules as stated, plays it on a plain 9x9 char grid and writes
 * the canonical move text and the resulting position text itself.
 *
 * The module must agree with it on every position reachable up to depth 3
 * from the start and from several mid-game positions (captures, multi-
 * captures, the King beside the throne, on edges and next to corners), under
 * the default options and under every non-default option: same set of
 * canonical move strings at each position, same resulting position text for
 * every move of the positions above the last level. */
#include "gwez_common.h"

/* ---- the naive model ----------------------------------------------------- */

typedef struct nv_opts {
  int no_reenter, ht_empty, ht_always, hcorners, corners_any, corner_king,
      any_capture, max_plies;
} nv_opts;

typedef struct nv_pos {
  char g[9][9];  /* [rank][file]: '.', 'a', 'D', 'K' */
  int kr, kf;    /* the King's square */
  char side;     /* 'd' or 'a' */
  int captured;  /* the King was captured ('k' in the text) */
  long ply, quiet;
} nv_pos;

static nv_opts nv_parse_opts(const char *s) {
  nv_opts o;
  memset(&o, 0, sizeof o);
  if (s == NULL) return o;
  o.no_reenter = strstr(s, "king_reenter_throne=no") != NULL;
  o.ht_empty = strstr(s, "hostile_throne=empty") != NULL;
  o.ht_always = strstr(s, "hostile_throne=always") != NULL;
  o.hcorners = strstr(s, "hostile_corners=yes") != NULL;
  o.corners_any = strstr(s, "corners_king_only=no") != NULL;
  o.corner_king = strstr(s, "corner_hostile_to_king=yes") != NULL;
  o.any_capture = strstr(s, "king_capture=any_attacker_move") != NULL;
  const char *mp = strstr(s, "max_plies=");
  o.max_plies = mp ? atoi(mp + 10) : 0;
  return o;
}

static int nv_read(const char *text, nv_pos *p) {
  int r = 8, f = 0;
  const char *c = text;
  memset(p, 0, sizeof *p);
  memset(p->g, '.', sizeof p->g);
  for (; *c && *c != ' '; c++) {
    if (*c == '/') {
      r--;
      f = 0;
    } else if (*c >= '1' && *c <= '9') {
      f += *c - '0';
    } else {
      if (r < 0 || f > 8) return -1;
      p->g[r][f] = *c == 'k' ? 'K' : *c;
      if (*c == 'k' || *c == 'K') p->kr = r, p->kf = f;
      if (*c == 'k') p->captured = 1;
      f++;
    }
  }
  if (sscanf(c, " %c %ld %ld", &p->side, &p->ply, &p->quiet) != 3) return -1;
  return 0;
}

static void nv_write(const nv_pos *p, char *out) {
  size_t k = 0;
  for (int r = 8; r >= 0; r--) {
    int run = 0;
    for (int f = 0; f < 9; f++) {
      char c = p->g[r][f];
      if (c == '.') {
        run++;
        continue;
      }
      if (run) out[k++] = (char)('0' + run);
      run = 0;
      out[k++] = c == 'K' && p->captured ? 'k' : c;
    }
    if (run) out[k++] = (char)('0' + run);
    if (r) out[k++] = '/';
  }
  sprintf(out + k, " %c %ld %ld", p->side, p->ply, p->quiet);
}

static int nv_is_corner(int r, int f) {
  return (r == 0 || r == 8) && (f == 0 || f == 8);
}
static int nv_is_throne(int r, int f) { return r == 4 && f == 4; }
static int nv_on_board(int r, int f) {
  return r >= 0 && r < 9 && f >= 0 && f < 9;
}

/* Does piece c belong to the side whose letter is s? */
static int nv_mine(char s, char c) {
  return s == 'a' ? c == 'a' : (c == 'D' || c == 'K');
}

static int nv_over(const nv_pos *p, const nv_opts *o) {
  if (p->captured) return 1;
  for (int r = 0; r < 9; r++)
    for (int f = 0; f < 9; f++)
      if (p->g[r][f] == 'K' && nv_is_corner(r, f)) return 1;
  return o->max_plies && p->ply >= o->max_plies;
}

/* §2.1: rook move over empty squares, the throne and corners as stated. */
static int nv_legal(const nv_pos *p, const nv_opts *o, int r1, int f1, int r2,
                    int f2) {
  char pc = p->g[r1][f1];
  if (!nv_mine(p->side, pc)) return 0;
  if (r1 == r2 && f1 == f2) return 0;
  if (r1 != r2 && f1 != f2) return 0;
  if (p->g[r2][f2] != '.') return 0;
  int dr = (r2 > r1) - (r2 < r1), df = (f2 > f1) - (f2 < f1);
  for (int r = r1 + dr, f = f1 + df; r != r2 || f != f2; r += dr, f += df)
    if (p->g[r][f] != '.') return 0;  /* never over another piece */
  if (nv_is_throne(r2, f2) && (pc != 'K' || o->no_reenter)) return 0;
  if (nv_is_corner(r2, f2) && pc != 'K' && !o->corners_any) return 0;
  return 1;
}

/* §2.2 + §3.5: may square (r, f) close a sandwich for side s? */
static int nv_partner(const nv_pos *p, const nv_opts *o, char s, int r, int f) {
  if (!nv_on_board(r, f)) return 0;
  char c = p->g[r][f];
  if (nv_mine(s, c)) return 1;
  if (nv_is_throne(r, f)) return o->ht_always || (o->ht_empty && c == '.');
  if (nv_is_corner(r, f)) return o->hcorners && c == '.';
  return 0;
}

/* "e3" at t; returns t + 2. */
static char *nv_sq(char *t, int r, int f) {
  t[0] = (char)('a' + f);
  t[1] = (char)('1' + r);
  return t + 2;
}

/* Play a legal move; writes the canonical text to txt. */
static void nv_play(nv_pos *p, const nv_opts *o, int r1, int f1, int r2,
                    int f2, char *txt) {
  static const int dr[4] = {0, 0, -1, 1}, df[4] = {-1, 1, 0, 0};  /* W E S N */
  char pc = p->g[r1][f1], s = p->side;
  int ncap = 0;
  char *t = nv_sq(txt, r1, f1);
  *t++ = '-';
  t = nv_sq(t, r2, f2);
  p->g[r1][f1] = '.';
  p->g[r2][f2] = pc;
  if (pc == 'K') p->kr = r2, p->kf = f2;
  for (int d = 0; d < 4; d++) {
    int r = r2 + dr[d], f = f2 + df[d];
    if (!nv_on_board(r, f)) continue;
    char c = p->g[r][f];
    if (c == '.' || c == 'K' || nv_mine(s, c)) continue;
    if (nv_partner(p, o, s, r + dr[d], f + df[d])) {
      p->g[r][f] = '.';
      *t++ = ncap ? '/' : 'x';
      t = nv_sq(t, r, f);
      ncap++;
    }
  }
  int irreversible = ncap > 0;
  if (s == 'a') {
    int kr = p->kr, kf = p->kf;
    int adjacent = abs(kr - r2) + abs(kf - f2) == 1;
    if (adjacent || o->any_capture) {
      int framed = 1;
      for (int d = 0; d < 4; d++) {
        int r = kr + dr[d], f = kf + df[d];
        if (!nv_on_board(r, f)) continue;  /* the edge helps */
        char c = p->g[r][f];
        if (c == 'a') continue;
        if (c == '.' && nv_is_throne(r, f)) continue;
        if (c == '.' && nv_is_corner(r, f) && o->corner_king) continue;
        framed = 0;
      }
      if (framed) {
        p->captured = 1;
        *t++ = '+';
        *t++ = '+';
      }
    }
  } else if (pc == 'K') {
    if (nv_is_corner(r2, f2)) *t++ = '-', *t++ = '-';
    if (nv_is_throne(r1, f1) && o->no_reenter) irreversible = 1;
  }
  *t = '\0';
  p->side = s == 'a' ? 'd' : 'a';
  p->ply++;
  p->quiet = irreversible ? 0 : p->quiet + 1;
}

/* ---- the comparison ------------------------------------------------------ */

typedef struct nv_ctx {
  game_setup setup;
  nv_opts o;
  unsigned long nodes, moves, children, mismatches;
} nv_ctx;

/* Naive results of one node, indexed by from * 81 + to; an entry is valid
 * when its stamp is the node's (no clearing between nodes). One per level
 * of the walk. */
typedef struct nv_node {
  uint32_t ok[81 * 81];
  char text[81 * 81][24];
} nv_node;

static nv_node nv_levels[8];
static uint32_t nv_stamp;

/* Visited (position, depth) pairs: transpositions are checked once. */
#define NV_SEEN_BITS 20
static uint64_t nv_seen[1u << NV_SEEN_BITS];

static int nv_visit(const char *pos, unsigned depth) {
  uint64_t h = game_hash_bytes(GAME_HASH_INIT, pos, strlen(pos));
  h = game_hash_bytes(h, &depth, sizeof depth) | 1;
  size_t mask = (1u << NV_SEEN_BITS) - 1;
  for (size_t i = (size_t)(h >> 20) & mask;; i = (i + 1) & mask) {
    if (nv_seen[i] == h) return 0;
    if (nv_seen[i] == 0) {
      nv_seen[i] = h;
      return 1;
    }
  }
}

static void nv_report(nv_ctx *c, const char *pos, const char *what) {
  if (c->mismatches++ < 10) fprintf(stderr, "  at %s: %s\n", pos, what);
}

static void nv_walk(nv_ctx *c, const game_state *st, unsigned depth) {
  const game_vtable *vt = gw_vt();
  char pos[GAME_POSITION_MAX];
  vt->to_position(st, pos, sizeof pos);
  if (!nv_visit(pos, depth)) return;
  c->nodes++;
  nv_pos p;
  if (nv_read(pos, &p) < 0) {
    nv_report(c, pos, "naive reader failed");
    return;
  }
  nv_node *nd = &nv_levels[depth];
  const uint32_t stamp = ++nv_stamp, used = ++nv_stamp;
  size_t nn = 0;
  if (!nv_over(&p, &c->o))
    for (int a = 0; a < 81; a++) {
      if (!nv_mine(p.side, p.g[a / 9][a % 9])) continue;  /* saves time only */
      for (int b = 0; b < 81; b++)
        if (nv_legal(&p, &c->o, a / 9, a % 9, b / 9, b % 9)) {
          nv_pos q = p;
          nv_play(&q, &c->o, a / 9, a % 9, b / 9, b % 9, nd->text[a * 81 + b]);
          nd->ok[a * 81 + b] = stamp;
          nn++;
        }
    }
  game_move mv[GAME_MAX_MOVES];
  size_t n = 0;
  vt->legal_moves(st, mv, GAME_MAX_MOVES, &n);
  if (n != nn) {
    char msg[64];
    snprintf(msg, sizeof msg, "module %zu moves, naive %zu", n, nn);
    nv_report(c, pos, msg);
  }
  for (size_t i = 0; i < n; i++) {
    char text[GAME_MOVE_TEXT_MAX];
    vt->format_move(st, &mv[i], text, sizeof text);
    int a = (text[1] - '1') * 9 + (text[0] - 'a');
    int b = (text[4] - '1') * 9 + (text[3] - 'a');
    if (nd->ok[a * 81 + b] != stamp ||
        strcmp(nd->text[a * 81 + b], text) != 0) {
      char msg[2 * GAME_MOVE_TEXT_MAX + 32];
      snprintf(msg, sizeof msg, "module move %s, naive %s", text,
               nd->ok[a * 81 + b] == stamp ? nd->text[a * 81 + b] : "(none)");
      nv_report(c, pos, msg);
      continue;
    }
    nd->ok[a * 81 + b] = used;  /* matched once: a repeat fails */
    c->moves++;
    if (depth == 0) continue;
    game_state child;
    memcpy(&child, st, vt->state_size);
    vt->apply(&child, &mv[i], NULL);
    char cpos[GAME_POSITION_MAX], npos[GAME_POSITION_MAX];
    vt->to_position(&child, cpos, sizeof cpos);
    nv_pos q = p;
    char t2[24];
    nv_play(&q, &c->o, a / 9, a % 9, b / 9, b % 9, t2);
    nv_write(&q, npos);
    c->children++;
    if (strcmp(cpos, npos) != 0) {
      char msg[GAME_POSITION_MAX * 2 + GAME_MOVE_TEXT_MAX + 32];
      snprintf(msg, sizeof msg, "after %s module %s naive %s", text, cpos, npos);
      nv_report(c, pos, msg);
      continue;
    }
    nv_walk(c, &child, depth - 1);
  }
}

/* Walk depth plies below a position (NULL: the start) with options opts. */
static void nv_check(const char *label, const char *opts, const char *pieces,
                     char side, unsigned depth) {
  nv_ctx c;
  memset(&c, 0, sizeof c);
  c.setup = gw_setup(opts);
  c.o = nv_parse_opts(opts);
  memset(nv_seen, 0, sizeof nv_seen);
  gw_tm t;
  if (pieces) gw_tm_list(&t, opts, pieces, side);
  else gw_tm_start(&t, opts);
  nv_walk(&c, &t.m.st, depth);
  printf("%-10s %-60s nodes %lu moves %lu children %lu\n", label,
         opts ? opts : "(defaults)", c.nodes, c.moves, c.children);
  CHECK_MSG(c.mismatches == 0, "%s [%s]: %lu mismatches", label,
            opts ? opts : "defaults", c.mismatches);
  CHECK(c.nodes > 0 && c.moves > 0);
}

/* Mid-game positions (piece lists, see gwez_common.h). */
static const struct {
  const char *label, *pieces;
  char side;
} mids[] = {
    /* Crowded centre, many sandwiches available for both sides. */
    {"mid-1",
     "Ke5 Dc7 De6 Dc5 Dg5 Dh4 De3 ad9 af9 ae8 ag7 aa6 ad6 ai6 ab5 af5 aa4 "
     "ai4 ad3 af3 ad1 ae1",
     'd'},
    /* King near the a1 corner and the bottom edge, attackers closing in. */
    {"mid-2", "Kb2 Dc3 Dd2 Dg8 Dh6 ab4 ac1 aa3 ah2 ai3 ae9 ag9 ah7", 'a'},
    /* King beside the empty throne, triple-capture and King-capture
     * threats. */
    {"mid-3", "Ke4 ad4 af4 ac3 ag6 Db6 Dh5 De7 Dg3 Df2 Dh3 ag1 ai3 ab9",
     'a'},
    /* King on the edge, guards and attackers on edges and next to corners. */
    {"mid-4", "Ka5 aa3 aa7 ab6 Db4 Dc5 ae1 Dh8 ag2 Db1 ai2 Dh9", 'd'},
    /* King on the throne, three attackers waiting below it: he may step
     * into the frame (safe unless king_capture=any_attacker_move), guards
     * near the corners for the corner options. */
    {"mid-5", "Ke5 ad4 af4 ae3 ab8 Dc7 Dg7 ah2 Db2 Dh8 ab1 ag9 Dc5", 'd'},
};

int main(void) {
  static const char *const optsets[] = {
      NULL,
      "king_reenter_throne=no hostile_throne=empty corner_hostile_to_king=yes",
      "hostile_throne=always hostile_corners=yes corners_king_only=no "
      "king_capture=any_attacker_move",
  };
  nv_check("start", NULL, NULL, 'd', 3);
  for (size_t i = 0; i < sizeof mids / sizeof *mids; i++)
    for (size_t o = 0; o < sizeof optsets / sizeof *optsets; o++)
      nv_check(mids[i].label, optsets[o], mids[i].pieces, mids[i].side,
               o == 0 && i < 3 ? 3 : 2);
  nv_check("start", optsets[1], NULL, 'd', 2);
  nv_check("start", optsets[2], NULL, 'd', 2);
  nv_check("start", "first=attackers max_plies=2", NULL, 'd', 3);
  return test_summary();
}
