/* naive.c - a deliberately naive second implementation of Gambo (2019
 * rules), written from the spec's wording (shared/rules/gambo-2019.md) and
 * sharing no code with common/games/gambo_2019.c, to cross-check the real
 * move generator: every syntactically possible action text is tried against
 * the rules as worded (line squares L1..L18, "largest below / smallest
 * above"), and the positions after each move are compared as text.
 *
 * Only the documented position format (docs/positions/gambo_2019.md) is
 * shared, through this file's own parser and printer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "test.h"

/* ---- naive model -------------------------------------------------------- */

typedef struct nv_opts {
  int advanced, elim_prisoners, permute_withdrawn;
} nv_opts;

typedef struct nv {
  char name[2][9][3];  /* "M2" or "" */
  char state[2][9];    /* 'A' available, 'W' withdrawn, 'L' on the line, 0 */
  char phase;          /* 'c' choose, 'p' place, 'a' act, 'r' respond, 'o' over */
  int initiative, forced, first, engaged_col, winner;
  int prisoners[2];
  const char *over_reason; /* "captured" / "eliminated" */
} nv;

static int nv_line(int side, int col) { return side == 0 ? 2 * (col + 1) - 1 : 2 * (col + 1); }

static int nv_count(const nv *p, int side, char st) {
  int n = 0;
  for (int c = 0; c < 9; c++)
    if (p->name[side][c][0] && (st == 0 || p->state[side][c] == st)) n++;
  return n;
}

/* Duel table of spec 1.2, as worded. */
static int nv_attacker_wins(const char *a, const char *d) {
  if (a[0] != d[0]) {
    if (a[0] == 'E' && d[0] == 'C') return 1;
    if (a[0] == 'C' && d[0] == 'M') return 1;
    if (a[0] == 'M' && d[0] == 'E') return 1;
    return 0;
  }
  if (a[1] > d[1]) return 1;
  if (a[1] < d[1]) return 0;
  return 1; /* same species and strength: the attacker wins */
}

static int nv_parse(nv *p, const char *s) {
  memset(p, 0, sizeof *p);
  p->first = p->engaged_col = p->winner = -1;
  const char *q = s;
  for (int side = 0; side < 2; side++) {
    for (int c = 0; c < 9; c++) {
      if (*q == '-') {
        q++;
        continue;
      }
      if (!strchr("ECMecm", q[0]) || !strchr("123", q[1]) || q[1] == 0) return -1;
      p->name[side][c][0] = (char)(q[0] & ~0x20);
      p->name[side][c][1] = q[1];
      p->state[side][c] = (q[0] & 0x20) ? 'W' : 'A';
      q += 2;
    }
    if (side == 0 && *q++ != '/') return -1;
  }
  if (*q++ != ' ') return -1;
  char ph[32];
  int a, b;
  if (sscanf(q, "%31s %d-%d", ph, &a, &b) != 3) return -1;
  p->prisoners[0] = a;
  p->prisoners[1] = b;
  if (strcmp(ph, "choose") == 0) p->phase = 'c';
  else if (strncmp(ph, "place:", 6) == 0) p->phase = 'p', p->first = ph[6] == 'n';
  else if (strncmp(ph, "over:", 5) == 0) {
    p->phase = 'o';
    p->over_reason = strcmp(ph + 5, "captured") == 0 ? "captured" : "eliminated";
    p->winner = nv_count(p, 0, 0) ? 0 : 1;
  } else {
    p->phase = 'a';
    p->initiative = ph[0] == 'n';
    if (ph[1] == '!') p->forced = 1;
    if (ph[1] == '>') {
      p->phase = 'r';
      p->engaged_col = ph[2] - 'a';
      p->state[p->initiative][p->engaged_col] = 'L';
    }
  }
  return 0;
}

static void nv_print(const nv *p, char *out, size_t cap) {
  char rows[64] = "";
  for (int side = 0; side < 2; side++) {
    if (side) strcat(rows, "/");
    for (int c = 0; c < 9; c++) {
      if (!p->name[side][c][0]) {
        strcat(rows, "-");
        continue;
      }
      char cell[3] = {p->name[side][c][0], p->name[side][c][1], 0};
      if (p->state[side][c] == 'W') cell[0] = (char)(cell[0] | 0x20);
      strcat(rows, cell);
    }
  }
  char ph[32];
  const char *sn = "sn";
  switch (p->phase) {
    case 'c': snprintf(ph, sizeof ph, "choose"); break;
    case 'p': snprintf(ph, sizeof ph, "place:%c", sn[p->first]); break;
    case 'a': snprintf(ph, sizeof ph, "%c%s", sn[p->initiative], p->forced ? "!" : ""); break;
    case 'r': snprintf(ph, sizeof ph, "%c>%c", sn[p->initiative], 'a' + p->engaged_col); break;
    default: snprintf(ph, sizeof ph, "over:%s", p->over_reason); break;
  }
  snprintf(out, cap, "%s %s %d-%d", rows, ph, p->prisoners[0], p->prisoners[1]);
}

/* Placement order of spec 1.3: A's strength-3 pieces, B's, A's strength 2,
 * B's, A's strength 1, B's. Returns the side placing now, *strength. */
static int nv_placer(const nv *p, int *strength) {
  static const int order_side_is_a[6] = {1, 0, 1, 0, 1, 0};
  static const char order_strength[6] = {'3', '3', '2', '2', '1', '1'};
  for (int g = 0; g < 6; g++) {
    int side = order_side_is_a[g] ? p->first : 1 - p->first;
    int n = 0;
    for (int c = 0; c < 9; c++)
      if (p->name[side][c][0] && p->name[side][c][1] == order_strength[g]) n++;
    if (n < 3) {
      *strength = order_strength[g];
      return side;
    }
  }
  return -1;
}

static int nv_to_move(const nv *p) {
  int str;
  switch (p->phase) {
    case 'c': return GAME_CHOOSER;
    case 'p': return nv_placer(p, &str);
    case 'a': return p->initiative;
    case 'r': return 1 - p->initiative;
    default: return GAME_NOBODY;
  }
}

/* Is this action text legal, judged from the spec's wording? */
static int nv_legal(const nv *p, const nv_opts *o, const char *kind, int x, int y,
                    const char *piece) {
  int me = nv_to_move(p);
  if (strcmp(kind, "choose") == 0) return p->phase == 'c';
  if (strcmp(kind, "place") == 0) {
    if (p->phase != 'p') return 0;
    int str = 0;
    me = nv_placer(p, &str);
    if (piece[1] != str) return 0;
    if (p->name[me][x][0]) return 0;
    for (int c = 0; c < 9; c++)
      if (strcmp(p->name[me][c], piece) == 0) return 0;
    return 1;
  }
  if (strcmp(kind, "engage") == 0)
    return p->phase == 'a' && p->state[me][x] == 'A';
  if (strcmp(kind, "permute") == 0) {
    if (p->phase != 'a' || p->forced || x == y) return 0;
    for (int k = 0; k < 2; k++) {
      char st = p->state[me][k ? y : x];
      if (!(st == 'A' || (o->permute_withdrawn && st == 'W'))) return 0;
    }
    return 1;
  }
  if (strcmp(kind, "respond") == 0) {
    if (p->phase != 'r' || p->state[me][x] != 'A') return 0;
    int pl = nv_line(p->initiative, p->engaged_col);
    int below = -1, above = 99;
    for (int c = 0; c < 9; c++) {
      if (p->state[me][c] != 'A') continue;
      int l = nv_line(me, c);
      if (l < pl && l > below) below = l;
      if (l > pl && l < above) above = l;
    }
    int l = nv_line(me, x);
    return l == below || l == above;
  }
  return 0;
}

static void nv_apply(nv *p, const nv_opts *o, const char *kind, int x, int y,
                     const char *piece) {
  int me = nv_to_move(p);
  if (strcmp(kind, "choose") == 0) {
    /* x: 0 south, 1 north (the side the chooser takes) */
    if (nv_count(p, 0, 0) == 0) {
      p->phase = 'p';
      p->first = x;
    } else {
      p->phase = 'a';
      p->initiative = 1 - x;
      p->forced = 0;
    }
    return;
  }
  if (strcmp(kind, "place") == 0) {
    strcpy(p->name[me][x], piece);
    p->state[me][x] = 'A';
    if (nv_count(p, 0, 0) == 9 && nv_count(p, 1, 0) == 9) {
      p->phase = 'a';
      p->initiative = p->first;
      p->first = -1;
    }
    return;
  }
  if (strcmp(kind, "engage") == 0) {
    p->state[me][x] = 'L';
    p->engaged_col = x;
    p->phase = 'r';
    p->forced = 0;
    return;
  }
  if (strcmp(kind, "permute") == 0) {
    char t[3];
    strcpy(t, p->name[me][x]);
    strcpy(p->name[me][x], p->name[me][y]);
    strcpy(p->name[me][y], t);
    char ts = p->state[me][x];
    p->state[me][x] = p->state[me][y];
    p->state[me][y] = ts;
    p->initiative = 1 - p->initiative;
    p->forced = 1;
    return;
  }
  /* respond: spec 2.5 RESPOND, line by line */
  int engager = p->initiative, resp = 1 - engager;
  int ec = p->engaged_col;
  p->state[resp][x] = 'L';
  int att_wins = nv_attacker_wins(p->name[engager][ec], p->name[resp][x]);
  int W = att_wins ? engager : resp;
  int wc = att_wins ? ec : x, lc = att_wins ? x : ec;
  p->name[1 - W][lc][0] = 0;
  p->name[1 - W][lc][1] = 0;
  p->state[1 - W][lc] = 0;
  p->state[W][wc] = 'W';
  p->prisoners[W]++;
  p->engaged_col = -1;
  int last_winner = W;
  if (p->prisoners[0] < p->prisoners[1]) p->initiative = 0;
  else if (p->prisoners[1] < p->prisoners[0]) p->initiative = 1;
  else p->initiative = engager;
  p->phase = 'a';
  for (int s = 0; s < 2; s++)
    if (nv_count(p, s, 0) == 0) {
      p->phase = 'o';
      p->winner = 1 - s;
      p->over_reason = "captured";
      p->initiative = 0;
      return;
    }
  if (nv_count(p, 0, 'A') && nv_count(p, 1, 'A')) return;
  /* END_OF_SERIES */
  for (int X = 0; X < 2; X++) {
    if (!nv_count(p, X, 'A')) continue;
    if (o->advanced && last_winner != X) {
      for (int c = 0; c < 9; c++)
        if (p->state[X][c] == 'A') {
          p->name[X][c][0] = 0;
          p->state[X][c] = 0;
          if (o->elim_prisoners) p->prisoners[1 - X]++;
        }
    }
  }
  for (int s = 0; s < 2; s++)
    if (nv_count(p, s, 0) == 0) {
      p->phase = 'o';
      p->winner = 1 - s;
      p->over_reason = "eliminated";
      p->initiative = 0;
      return;
    }
  for (int s = 0; s < 2; s++)
    for (int c = 0; c < 9; c++)
      if (p->state[s][c] == 'W') p->state[s][c] = 'A';
  if (p->prisoners[0] != p->prisoners[1])
    p->initiative = p->prisoners[0] < p->prisoners[1] ? 0 : 1;
  p->forced = 0;
}

/* Every syntactically possible action text. */
typedef struct nv_action {
  char text[24];
  const char *kind;
  int x, y;
  char piece[3];
} nv_action;

static nv_action nv_all[2 + 9 + 9 + 36 + 81];
static size_t nv_nall;

static void nv_build_actions(void) {
  static const char *const pieces[9] = {"E1", "E2", "E3", "C1", "C2", "C3", "M1", "M2", "M3"};
  nv_nall = 0;
  for (int s = 0; s < 2; s++) {
    nv_action *a = &nv_all[nv_nall++];
    memset(a, 0, sizeof *a);
    a->kind = "choose";
    a->x = s;
    snprintf(a->text, sizeof a->text, "choose %s", s ? "north" : "south");
  }
  for (int k = 0; k < 2; k++)
    for (int x = 0; x < 9; x++) {
      nv_action *a = &nv_all[nv_nall++];
      memset(a, 0, sizeof *a);
      a->kind = k ? "respond" : "engage";
      a->x = x;
      snprintf(a->text, sizeof a->text, "%s %c", a->kind, 'a' + x);
    }
  for (int x = 0; x < 9; x++)
    for (int y = x + 1; y < 9; y++) {
      nv_action *a = &nv_all[nv_nall++];
      memset(a, 0, sizeof *a);
      a->kind = "permute";
      a->x = x;
      a->y = y;
      snprintf(a->text, sizeof a->text, "permute %c %c", 'a' + x, 'a' + y);
    }
  for (int x = 0; x < 9; x++)
    for (int k = 0; k < 9; k++) {
      nv_action *a = &nv_all[nv_nall++];
      memset(a, 0, sizeof *a);
      a->kind = "place";
      a->x = x;
      strcpy(a->piece, pieces[k]);
      snprintf(a->text, sizeof a->text, "place %c %s", 'a' + x, pieces[k]);
    }
}

/* ---- the cross-check ---------------------------------------------------- */

static const game_vtable *vt;
static uint64_t nodes_checked;

/* Compare module and naive at st (whose position text is pos), recursing. */
static void cross(const game_state *st, const nv_opts *o, unsigned depth) {
  char pos[GAME_POSITION_MAX];
  CHECK(vt->to_position(st, pos, sizeof pos) > 0);
  nv p;
  if (nv_parse(&p, pos) < 0) {
    TEST_FAIL_("naive cannot parse %s", pos);
    return;
  }
  nodes_checked++;
  char back[GAME_POSITION_MAX];
  nv_print(&p, back, sizeof back);
  CHECK_STR(back, pos);
  CHECK_INT(vt->to_move(st), nv_to_move(&p));
  game_outcome oc = vt->outcome(st);
  CHECK_INT(oc.result == GAME_WIN, p.phase == 'o');
  if (p.phase == 'o') CHECK_INT(oc.winner, p.winner);

  static char mtext[GAME_MAX_MOVES][GAME_MOVE_TEXT_MAX];
  game_move mv[GAME_MAX_MOVES];
  size_t n = 0;
  CHECK_INT(vt->legal_moves(st, mv, GAME_MAX_MOVES, &n), 0);
  char (*mine)[GAME_MOVE_TEXT_MAX] = malloc(n * GAME_MOVE_TEXT_MAX + 1);
  game_move *mine_mv = malloc((n + 1) * sizeof *mine_mv);
  for (size_t i = 0; i < n; i++) {
    vt->format_move(st, &mv[i], mtext[i], GAME_MOVE_TEXT_MAX);
  }
  /* keep pairs (text, move) sorted by text */
  size_t *idx = malloc((n + 1) * sizeof *idx);
  for (size_t i = 0; i < n; i++) idx[i] = i;
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && strcmp(mtext[idx[j - 1]], mtext[idx[j]]) > 0; j--) {
      size_t t = idx[j];
      idx[j] = idx[j - 1];
      idx[j - 1] = t;
    }
  for (size_t i = 0; i < n; i++) {
    memcpy(mine[i], mtext[idx[i]], GAME_MOVE_TEXT_MAX);
    mine_mv[i] = mv[idx[i]];
  }

  char naive[sizeof nv_all / sizeof *nv_all][24];
  size_t nn = 0, naive_idx[sizeof nv_all / sizeof *nv_all];
  for (size_t a = 0; a < nv_nall; a++)
    if (nv_legal(&p, o, nv_all[a].kind, nv_all[a].x, nv_all[a].y, nv_all[a].piece)) {
      strcpy(naive[nn], nv_all[a].text);
      naive_idx[nn++] = a;
    }
  /* naive[] order follows nv_all, sort along with indexes */
  for (size_t i = 1; i < nn; i++)
    for (size_t j = i; j > 0 && strcmp(naive[j - 1], naive[j]) > 0; j--) {
      char t[24];
      strcpy(t, naive[j]);
      strcpy(naive[j], naive[j - 1]);
      strcpy(naive[j - 1], t);
      size_t ti = naive_idx[j];
      naive_idx[j] = naive_idx[j - 1];
      naive_idx[j - 1] = ti;
    }
  int same = n == nn;
  for (size_t i = 0; same && i < n; i++) same = strcmp(mine[i], naive[i]) == 0;
  CHECK_MSG(same, "legal sets differ at %s: module %zu moves, naive %zu", pos, n, nn);
  if (!same) {
    for (size_t i = 0; i < n; i++) fprintf(stderr, "  module: %s\n", mine[i]);
    for (size_t i = 0; i < nn; i++) fprintf(stderr, "  naive:  %s\n", naive[i]);
  }
  if (same && depth > 0) {
    for (size_t i = 0; i < n; i++) {
      game_state child;
      memcpy(&child, st, vt->state_size);
      CHECK_INT(vt->apply(&child, &mine_mv[i], NULL), 0);
      nv q = p;
      const nv_action *a = &nv_all[naive_idx[i]];
      nv_apply(&q, o, a->kind, a->x, a->y, a->piece);
      char got[GAME_POSITION_MAX], want[GAME_POSITION_MAX];
      vt->to_position(&child, got, sizeof got);
      nv_print(&q, want, sizeof want);
      CHECK_MSG(strcmp(got, want) == 0, "after %s from %s: module %s, naive %s",
                mine[i], pos, got, want);
      agon_err err;
      CHECK_INT(vt->check(&child, &err), 0);
      cross(&child, o, depth - 1);
    }
  }
  free(idx);
  free(mine);
  free(mine_mv);
}

static void set_opts(game_setup *su, nv_opts *o, const char *kv) {
  agon_err err;
  game_setup_init(su, vt);
  memset(o, 0, sizeof *o);
  o->elim_prisoners = 1;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", kv);
  for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
    CHECK_INT(game_setup_set_kv(su, tok, &err), 0);
    if (strcmp(tok, "variant=advanced") == 0) o->advanced = 1;
    if (strcmp(tok, "eliminated_are_prisoners=no") == 0) o->elim_prisoners = 0;
    if (strcmp(tok, "permute_withdrawn=yes") == 0) o->permute_withdrawn = 1;
  }
}

#define L0 "south=M2,E3,C1,E1,M3,C2,M1,C3,E2 north=C3,M1,E2,M3,C1,E1,C2,E3,M2"

static void cross_from(const char *opts, uint64_t seed, const char *pos,
                       const char *const *moves, unsigned depth) {
  game_setup su;
  nv_opts o;
  set_opts(&su, &o, opts);
  game_state st;
  agon_err err;
  int rc = pos ? vt->from_position(&st, &su, pos, strlen(pos), &err)
               : vt->init(&st, &su, seed, &err);
  CHECK_MSG(rc == 0, "start %s: %s", pos ? pos : "(init)", err.msg);
  if (rc) return;
  for (size_t i = 0; moves && moves[i]; i++) {
    game_move m;
    rc = vt->parse_move(&st, moves[i], strlen(moves[i]), &m, &err);
    CHECK_MSG(rc == 0, "%s: %s", moves[i], err.msg);
    if (rc) return;
    vt->apply(&st, &m, &err);
  }
  cross(&st, &o, depth);
}

/* Random playouts with the module, cross-checking at depth 1 at every ply:
 * reaches late series, eliminations and endings that depth 3 does not. */
static void cross_random(const char *opts, unsigned games) {
  game_setup su;
  nv_opts o;
  set_opts(&su, &o, opts);
  uint64_t r = 0x243F6A8885A308D3ULL;
  for (unsigned g = 0; g < games; g++) {
    game_state st;
    agon_err err;
    CHECK_INT(vt->init(&st, &su, g, &err), 0);
    for (int ply = 0; ply < 400; ply++) {
      cross(&st, &o, 1);
      game_move mv[GAME_MAX_MOVES];
      size_t n = 0;
      vt->legal_moves(&st, mv, GAME_MAX_MOVES, &n);
      if (n == 0) break;
      r ^= r << 13;
      r ^= r >> 7;
      r ^= r << 17;
      vt->apply(&st, &mv[r % n], &err);
    }
    CHECK(vt->outcome(&st).result == GAME_WIN);
  }
}

int main(void) {
  vt = game_find("gambo-2019");
  CHECK(vt != NULL);
  if (!vt) return test_summary();
  nv_build_actions();
  static const char *const cn[] = {"choose north", NULL};

  /* From the start (choice included) and from L0 after the choice. */
  cross_from(L0, 0, NULL, NULL, 3);
  cross_from(L0, 0, NULL, cn, 3);
  cross_from(L0 " permute_withdrawn=yes", 0, NULL, cn, 3);
  cross_from("", 7, NULL, NULL, 3);
  cross_from("setup=placement", 0, NULL, NULL, 3);

  /* Mid-game positions (several options each):
   * - G19-4's position (withdrawn and captured pieces, North to act);
   * - G19-7 (few pieces, far-apart candidates, end of series next);
   * - pieces at both ends of the line, a forced engagement;
   * - a responder's choice during a series, with withdrawn pieces around;
   * - late placement. */
  static const char *const mid[] = {
      "M2E3C1-m3c2M1C3E2/C3M1e2--E1C2E3M2 n 2-1",
      "E3---M1----/-C2-M3-E1-C1- s 5-7",
      "E3---M1---C2/M3-------C1 n! 7-6",
      "m1E2-C3-e3-M2E1/-C1m2-E3M3-c3E2 s>d 3-3",
      "E2-M1C3-m3e1--/c1-M2-E3M3--e2 n 4-4",
      "E1--------/--------M2 s 8-8",
      "E3M3-C3-C2--E2/M3E3C3------ place:s 0-0",
      /* late series where basic and advanced differ (from random games) */
      "M2E1-----E2C3/--M2E2-c1-E3- n>c 5-5",
      "e1-C1--M1-e3-/-M2-M3E3---- n 6-5",
      "----M3-E3C1-/-M2e3e1----C3 s 5-6",
  };
  static const char *const optsets[] = {
      "", "variant=advanced", "variant=advanced eliminated_are_prisoners=no",
      "permute_withdrawn=yes"};
  for (size_t i = 0; i < sizeof mid / sizeof *mid; i++)
    for (size_t k = 0; k < sizeof optsets / sizeof *optsets; k++) {
      /* positions whose counters only fit some option sets */
      game_setup su;
      nv_opts o;
      set_opts(&su, &o, optsets[k]);
      game_state st;
      agon_err err;
      if (vt->from_position(&st, &su, mid[i], strlen(mid[i]), &err) < 0) {
        CHECK_MSG(0, "mid position %s rejected: %s", mid[i], err.msg);
        continue;
      }
      cross(&st, &o, 3);
    }
  for (size_t k = 0; k < sizeof optsets / sizeof *optsets; k++)
    cross_random(optsets[k], 40);
  cross_random("setup=placement variant=advanced", 20);

  printf("naive cross-check: %" PRIu64 " positions compared\n", nodes_checked);
  return test_summary();
}
