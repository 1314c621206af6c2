/* test_gomony.c - the spec's scenarios (shared/rules/gomony.md section 5),
 * notation, position text, counters and random-game round trips, all through
 * the public hook table. */
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "test.h"

static const game_vtable *vt;

/* Setup from space-separated KEY=VALUE pairs (NULL or "" = defaults). */
static void make_setup(game_setup *su, const char *opts) {
  game_setup_init(su, vt);
  if (opts == NULL) return;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", opts);
  for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
    agon_err err;
    int rc = game_setup_set_kv(su, tok, &err);
    CHECK_MSG(rc == 0, "option %s: %s", tok, err.msg);
  }
}

static int load(game_state *st, const char *opts, const char *pos) {
  game_setup su;
  agon_err err;
  make_setup(&su, opts);
  int rc = pos ? vt->from_position(st, &su, pos, strlen(pos), &err)
               : vt->init(st, &su, 0, &err);
  CHECK_MSG(rc == 0, "load '%s': %s", pos ? pos : "(start)", err.msg);
  return rc;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted canonical legal moves joined by ','. */
static void legal_str(const game_state *st, char *out, size_t cap) {
  static game_move mv[GAME_MAX_MOVES];
  static char txt[GAME_MAX_MOVES][GAME_MOVE_TEXT_MAX];
  static const char *p[GAME_MAX_MOVES];
  size_t n = 0;
  int rc = vt->legal_moves(st, mv, GAME_MAX_MOVES, &n);
  CHECK_INT(rc, 0);
  for (size_t i = 0; i < n; i++) {
    vt->format_move(st, &mv[i], txt[i], GAME_MOVE_TEXT_MAX);
    p[i] = txt[i];
  }
  qsort(p, n, sizeof *p, cmp_str);
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < n; i++)
    len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "," : "", p[i]);
}

#define CHECK_LEGAL(st, want)                   \
  do {                                          \
    char got_[4096];                            \
    legal_str((st), got_, sizeof got_);         \
    CHECK_STR(got_, (want));                    \
  } while (0)

/* Play text on st (must be legal). */
static void play(game_state *st, const char *text) {
  game_move mv;
  agon_err err;
  int rc = vt->parse_move(st, text, strlen(text), &mv, &err);
  CHECK_MSG(rc == 0, "play %s: %s", text, err.msg);
  if (rc == 0) {
    vt->apply(st, &mv, &err);
    CHECK_INT(vt->check(st, &err), 0);
  }
}

/* Expect parse_move to fail with code (and, if given, this message). */
static void refuse(const game_state *st, const char *text, int code,
                   const char *msg) {
  game_move mv;
  agon_err err;
  agon_err_clear(&err);
  int rc = vt->parse_move(st, text, strlen(text), &mv, &err);
  CHECK_MSG(rc == code, "parse '%s': %d (%s), want %d", text, rc, err.msg,
            code);
  if (msg) CHECK_STR(err.msg, msg);
}

/* Column text of square name in the JSON view ("" if empty). */
static void column(const game_state *st, const char *sq, char *out) {
  json_t *v = vt->to_json(st, GAME_VIEW_ALL);
  json_t *c = json_object_get(json_object_get(v, "board"), sq);
  snprintf(out, 32, "%s", c ? json_string_value(c) : "");
  json_decref(v);
}

#define CHECK_COL(st, sq, want)      \
  do {                               \
    char c_[32];                     \
    column((st), (sq), c_);          \
    CHECK_STR(c_, (want));           \
  } while (0)

static size_t board_size(const game_state *st) {
  json_t *v = vt->to_json(st, GAME_VIEW_ALL);
  size_t n = json_object_size(json_object_get(v, "board"));
  json_decref(v);
  return n;
}

static void check_outcome(const game_state *st, game_result r, int winner,
                          const char *reason) {
  game_outcome o = vt->outcome(st);
  CHECK_INT(o.result, r);
  CHECK_INT(o.winner, winner);
  if (reason) CHECK_STR(o.reason, reason);
  else CHECK(o.reason == NULL);
}

/* ---- section 5 --------------------------------------------------------- */

static void test_gm1(void) {
  game_state st;
  load(&st, NULL, NULL);
  CHECK_LEGAL(&st, "a3-b4,c3-b4,c3-d4,e3-d4,e3-f4,g3-f4,g3-h4");
  static const uint64_t want[] = {1, 7, 49, 302, 1469, 7361, 36690, 179367};
  for (unsigned d = 0; d < 8; d++) CHECK_U64(game_perft(vt, &st, d), want[d]);
  char pos[GAME_POSITION_MAX];
  vt->to_position(&st, pos, sizeof pos);
  CHECK_STR(pos, "1b1b1b1b/b1b1b1b1/1b1b1b1b/8/8/w1w1w1w1/1w1w1w1w/w1w1w1w1 w 0 0");
  CHECK_INT(vt->to_move(&st), GAME_SIDE0);
}

static void test_gm2(void) {
  game_state st;
  load(&st, NULL, "7b/8/8/8/1b1b4/2w3w1/8/8 w");
  CHECK_LEGAL(&st, "c3xa5,c3xe5");
  refuse(&st, "g3-f4", AGON_EILLEGAL, "jump is compulsory");
  refuse(&st, "g3-h4", AGON_EILLEGAL, "jump is compulsory");
  refuse(&st, "c3-b4", AGON_EILLEGAL, "jump is compulsory");
  refuse(&st, "c3-d4", AGON_EILLEGAL, "jump is compulsory");
}

static void test_gm3(void) {
  game_state st;
  load(&st, NULL, "7b/8/8/8/3(bww)4/2w5/8/8 w");
  CHECK_LEGAL(&st, "c3xe5");
  play(&st, "c3xe5");
  CHECK_COL(&st, "e5", "wb");
  CHECK_COL(&st, "d4", "ww");
  CHECK_COL(&st, "h8", "b");
  CHECK_INT(board_size(&st), 3);
  /* d4 now belongs to White: Black's only column is h8. */
  CHECK_LEGAL(&st, "h8-g7");
}

static void test_gm4(void) {
  game_state st;
  const char *pos = "7b/8/8/8/5b2/8/1b1b4/2w5 w";
  load(&st, NULL, pos);
  CHECK_LEGAL(&st, "c1xa3,c1xe3xg5");
  refuse(&st, "c1xe3", AGON_EILLEGAL,
         "the jump must continue (multi-jumps are compulsory)");
  play(&st, "c1xe3xg5");
  CHECK_COL(&st, "g5", "wbb");
  CHECK_COL(&st, "b2", "b");
  CHECK_COL(&st, "d2", "");
  CHECK_COL(&st, "f4", "");
  CHECK_INT(board_size(&st), 3);
  /* max_capture=yes (option): only the longer sequence. */
  load(&st, "max_capture=yes", pos);
  CHECK_LEGAL(&st, "c1xe3xg5");
  refuse(&st, "c1xa3", AGON_EILLEGAL, "a jump taking more markers is compulsory");
}

static void test_gm5(void) {
  static const char *const opts[] = {"rule7=once", "rule7=no_reverse"};
  for (int i = 0; i < 2; i++) {
    game_state st;
    load(&st, opts[i], "7b/8/8/8/3(bbb)4/2W5/8/8 w");
    CHECK_LEGAL(&st, "c3xe5");
    play(&st, "c3xe5");
    CHECK_COL(&st, "e5", "Wb");
    CHECK_COL(&st, "d4", "bb");
    CHECK_COL(&st, "c3", "");
  }
}

static void test_gm6(void) {
  const char *pos = "8/b7/8/8/3(bb)1b2/2W5/3b1b2/8 w";
  game_state st, a, b;
  char pa[GAME_POSITION_MAX], pb[GAME_POSITION_MAX];
  load(&st, NULL, pos);
  CHECK_LEGAL(&st, "c3xe1xg3xe5xc3,c3xe5xg3xe1xc3");
  a = st;
  b = st;
  play(&a, "c3xe5xg3xe1xc3");
  play(&b, "c3xe1xg3xe5xc3");
  CHECK_COL(&a, "c3", "Wbbbb");
  CHECK_COL(&a, "d4", "b");
  CHECK_COL(&a, "a7", "b");
  CHECK_INT(board_size(&a), 3);
  vt->to_position(&a, pa, sizeof pa);
  vt->to_position(&b, pb, sizeof pb);
  CHECK_STR(pa, pb);
  CHECK(memcmp(&a, &b, vt->state_size) == 0);
  /* Two paths to one position are two moves (perft counts both). */
  CHECK_U64(game_perft(vt, &st, 1), 2);

  load(&st, "rule7=no_reverse", pos);
  CHECK_LEGAL(&st, "c3xe1xg3xe5xc3,c3xe5xg3xe1xc3xe5");
  a = st;
  b = st;
  play(&a, "c3xe5xg3xe1xc3xe5");
  CHECK_COL(&a, "e5", "Wbbbbb");
  CHECK_COL(&a, "d4", "");
  CHECK_COL(&a, "a7", "b");
  CHECK_INT(board_size(&a), 2);
  play(&b, "c3xe1xg3xe5xc3");
  CHECK_COL(&b, "c3", "Wbbbb");
  CHECK_COL(&b, "d4", "b");
  refuse(&st, "c3xe5xg3xe1xc3", AGON_EILLEGAL,
         "the jump must continue (multi-jumps are compulsory)");
}

/* GM-7 as printed puts every marker but h2 on light squares (a6, b7, d7,
 * c8): it is not a position of the game. We test it shifted one file right
 * (b6, c7, e7; h2 kept), which is what it illustrates. */
static void test_gm7(void) {
  game_state st;
  game_setup su;
  agon_err err;
  make_setup(&su, NULL);
  const char *literal = "8/1b1b4/w7/8/8/8/7w/8 w";
  CHECK_INT(vt->from_position(&st, &su, literal, strlen(literal), &err),
            AGON_EPOSITION);
  load(&st, NULL, "8/2b1b3/1w6/8/8/8/7w/8 w");
  CHECK_LEGAL(&st, "b6xd8=P");
  refuse(&st, "b6xd8xf6", AGON_EILLEGAL, "promotion ends the move");
  refuse(&st, "h2-g3", AGON_EILLEGAL, "jump is compulsory");
  game_state t = st;
  play(&t, "b6xd8");
  CHECK_COL(&t, "d8", "Wb");
  CHECK_COL(&t, "e7", "b");
  /* Canonical text and its suffix-tolerant parse give the same move. */
  game_move m1, m2;
  CHECK_INT(vt->parse_move(&st, "b6xd8=P", 7, &m1, &err), 0);
  CHECK_INT(vt->parse_move(&st, " B6 - D8 = p ", 13, &m2, &err), 0);
  CHECK(game_move_eq(&m1, &m2));
}

static void test_gm8(void) {
  game_setup su;
  game_match m;
  agon_err err;
  uint64_t hist[64];
  make_setup(&su, NULL);
  const char *pos = "7b/8/8/8/3(bW)4/2w5/8/8 w";
  CHECK_INT(game_match_init_position(&m, &su, pos, strlen(pos), hist, 64, &err), 0);
  CHECK_LEGAL(&m.st, "c3xe5");
  CHECK_INT(game_match_play(&m, "c3xe5", 5, NULL, &err), 0);
  CHECK_COL(&m.st, "e5", "wb");
  CHECK_COL(&m.st, "d4", "W");
  CHECK_INT(game_match_play(&m, "h8-g7", 5, NULL, &err), 0);
  CHECK_LEGAL(&m.st, "d4-c3,d4-c5,d4-e3,e5-d6,e5-f6");
}

static void test_gm9(void) {
  game_state st;
  const char *pos = "8/8/8/8/8/w7/7b/6w1 b";
  load(&st, NULL, pos);
  CHECK_LEGAL(&st, "");
  check_outcome(&st, GAME_DRAW, GAME_NOBODY, "stalemate");
  CHECK_INT(vt->to_move(&st), GAME_NOBODY);
  refuse(&st, "h2-g1", AGON_EGAMEOVER, NULL);
  load(&st, "stalemate=loss", pos);
  check_outcome(&st, GAME_WIN, GAME_SIDE0, "stalemate");
}

static void test_gm10(void) {
  game_state st;
  load(&st, NULL, "8/8/8/8/3b4/2w5/8/w7 w");
  CHECK_LEGAL(&st, "c3xe5");
  check_outcome(&st, GAME_ONGOING, GAME_NOBODY, NULL);
  play(&st, "c3xe5");
  check_outcome(&st, GAME_WIN, GAME_SIDE0, "buried");
  CHECK_INT(vt->to_move(&st), GAME_NOBODY);
  CHECK_LEGAL(&st, "");
  refuse(&st, "e5-f6", AGON_EGAMEOVER, NULL);
  json_t *v = vt->to_json(&st, GAME_VIEW_ALL);
  CHECK(json_is_null(json_object_get(v, "to_move")));
  json_decref(v);
}

static void test_gm11(void) {
  game_state st;
  load(&st, NULL, "7b/8/8/8/3w4/2b5/8/8 w");
  CHECK_LEGAL(&st, "d4-c5,d4-e5");
  refuse(&st, "d4xb2", AGON_EILLEGAL, NULL);
}

static void test_gm12(void) {
  game_state st;
  load(&st, NULL, "5b2/8/8/8/3(Bw)4/2w5/8/8 w");
  CHECK_LEGAL(&st, "c3xe5");
  play(&st, "c3xe5");
  CHECK_COL(&st, "e5", "wB");
  CHECK_COL(&st, "d4", "w");
  play(&st, "f8-g7");
  CHECK_LEGAL(&st, "d4-c5,e5-d6,e5-f6");
  refuse(&st, "d4-e5", AGON_EILLEGAL, "e5 is occupied");
  refuse(&st, "d4-c3", AGON_EILLEGAL, "an unpromoted column moves forward only");
  /* The buried B keeps its flag: Black capturing e5's top releases it. */
  json_t *v = vt->to_json(&st, GAME_VIEW_ALL);
  CHECK_INT(json_integer_value(json_object_get(json_object_get(v, "promoted"),
                                               "black")),
            1);
  json_decref(v);
}

/* ---- notation ---------------------------------------------------------- */

static void test_notation(void) {
  game_state st;
  load(&st, NULL, NULL);
  refuse(&st, "", AGON_EBADMOVE, NULL);
  refuse(&st, "c3", AGON_EBADMOVE, NULL);
  refuse(&st, "c3-", AGON_EBADMOVE, NULL);
  refuse(&st, "c3-d9", AGON_EBADMOVE, NULL);
  refuse(&st, "i3-d4", AGON_EBADMOVE, NULL);
  refuse(&st, "c3-d4=Q", AGON_EBADMOVE, NULL);
  refuse(&st, "c3-d4=P x", AGON_EBADMOVE, NULL);
  refuse(&st, "c3--d4", AGON_EBADMOVE, NULL);
  refuse(&st, "c3-d4\x01", AGON_EBADMOVE, NULL);
  refuse(&st, "c3-c4", AGON_EILLEGAL, "c4 is not a dark square");
  refuse(&st, "d4-e5", AGON_EILLEGAL, "d4 holds no column of the side to move");
  refuse(&st, "b6-a5", AGON_EILLEGAL, "b6 holds no column of the side to move");
  refuse(&st, "c1-d2", AGON_EILLEGAL, "d2 is occupied");
  refuse(&st, "c3-e5", AGON_EILLEGAL, NULL);
  refuse(&st, "a1xa1xa1xa1xa1xa1xa1xa1xa1xa1xa1xa1xa1xa1xa1", AGON_EILLEGAL, NULL);
  game_move a, b;
  agon_err err;
  CHECK_INT(vt->parse_move(&st, "c3-d4", 5, &a, &err), 0);
  static const char *const same[] = {"C3-D4", " c3 - d4 ", "c3xd4", "c3d4",
                                     "c 3-d\t4", "c3-d4=P"};
  for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
    CHECK_INT(vt->parse_move(&st, same[i], strlen(same[i]), &b, &err), 0);
    CHECK(game_move_eq(&a, &b));
  }
  char buf[GAME_MOVE_TEXT_MAX];
  CHECK_INT(vt->format_move(&st, &a, buf, sizeof buf), 5);
  CHECK_STR(buf, "c3-d4");
  CHECK_INT(vt->format_move(&st, &a, buf, 5), AGON_ENOSPACE);
  /* Jump paths accept '-' too. */
  load(&st, NULL, "7b/8/8/8/5b2/8/1b1b4/2w5 w");
  CHECK_INT(vt->parse_move(&st, "c1xe3xg5", 8, &a, &err), 0);
  CHECK_INT(vt->parse_move(&st, "C1-E3-G5", 8, &b, &err), 0);
  CHECK(game_move_eq(&a, &b));
  /* A step text never matches when a jump is due; step promotion suffix. */
  load(&st, NULL, "8/w7/8/8/8/8/8/6B1 w");
  CHECK_LEGAL(&st, "a7-b8=P");
}

/* ---- positions --------------------------------------------------------- */

static void test_positions(void) {
  static const char *const good[] = {
      "1b1b1b1b/b1b1b1b1/1b1b1b1b/8/8/w1w1w1w1/1w1w1w1w/w1w1w1w1 w 0 0",
      "7b/8/8/8/1b1b4/2w3w1/8/8 w 0 0",
      "7b/8/8/8/3(bww)4/2w5/8/8 w 0 0",
      "7b/8/8/8/5b2/8/1b1b4/2w5 w 0 0",
      "7b/8/8/8/3(bbb)4/2W5/8/8 w 0 0",
      "8/b7/8/8/3(bb)1b2/2W5/3b1b2/8 w 0 0",
      "8/2b1b3/1w6/8/8/8/7w/8 w 0 0",
      "7b/8/8/8/3(bW)4/2w5/8/8 w 0 0",
      "8/8/8/8/8/w7/7b/6w1 b 0 0",
      "8/8/8/8/3b4/2w5/8/w7 w 0 0",
      "7b/8/8/8/3w4/2b5/8/8 w 0 0",
      "5b2/8/8/8/3(Bw)4/2w5/8/8 w 0 0",
      "8/8/8/4(wb)3/8/8/8/w7 b 0 1", /* finished: Black is buried */
      "1B6/8/8/8/8/8/8/W7 b 17 40",
  };
  game_setup su;
  make_setup(&su, NULL);
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    game_state st, st2;
    agon_err err;
    char out[GAME_POSITION_MAX];
    memset(&st, 0xAA, sizeof st);
    int rc = vt->from_position(&st, &su, good[i], strlen(good[i]), &err);
    CHECK_MSG(rc == 0, "%s: %s", good[i], err.msg);
    if (rc) continue;
    CHECK_INT(vt->check(&st, &err), 0);
    CHECK(vt->to_position(&st, out, sizeof out) > 0);
    CHECK_STR(out, good[i]);
    CHECK_INT(vt->from_position(&st2, &su, out, strlen(out), &err), 0);
    CHECK(memcmp(&st, &st2, vt->state_size) == 0);
  }
  /* Lenient blanks, default counters, lower-case side. */
  game_state st;
  char out[GAME_POSITION_MAX];
  load(&st, NULL, "  8/8/8/8/8/8/8/W5B1   B  ");
  vt->to_position(&st, out, sizeof out);
  CHECK_STR(out, "8/8/8/8/8/8/8/W5B1 b 0 0");
  load(&st, NULL, "8/8/8/8/8/8/8/W5B1 b 5");
  vt->to_position(&st, out, sizeof out);
  CHECK_STR(out, "8/8/8/8/8/8/8/W5B1 b 5 5");

  static const char *const bad[] = {
      "",
      "w",
      "8/8/8/8/8/8/8/8 w",                /* nobody owns anything */
      "8/8/8/8/8/8/8/w7 w",               /* side that moved owns nothing */
      "8/8/8/8/8/8/8/1w5b w",             /* light square */
      "8/8/8/8/8/8/8/w5B1",                /* no side */
      "8/8/8/8/8/8/8/w5B1 x",
      "8/8/8/8/8/8/8/w5B1 w 1 2 3",
      "8/8/8/8/8/8/8/w5B1 w -1",
      "8/8/8/8/8/8/8/w5B1 w 01",
      "8/8/8/8/8/8/8/w5B1 w 65536",
      "8/8/8/8/8/8/8/w5B1 w 5 4",          /* quiet beyond since_promo */
      "8/8/8/8/8/8/8/w5B1 w 101 101",      /* beyond quiet_plies=100 */
      "8/8/8/8/8/8/8/w5B1/8 w",            /* 9 ranks */
      "8/8/8/8/8/8/w5B1 w",                /* 7 ranks */
      "8/8/8/8/8/8/8/w5B2 w",              /* 9 squares */
      "8/8/8/8/8/8/8/w5B w",              /* 7 squares */
      "8/8/8/8/8/8/8/44B w",              /* 9 squares via digits */
      "8/8/8/8/8/8/8/(w)6b w",            /* parentheses for one marker */
      "8/8/8/8/8/8/8/(wbw)6b w",          /* colours alternate twice */
      "8/8/8/8/8/8/8/(wb6b w",            /* unclosed */
      "8/8/8/8/8/8/8/(wx)6b w",
      "8/8/8/8/8/8/8/x6b w",
      "8/8/8/8/8/8/8/(wwwwwwwwwwwww)6b w", /* 13 white markers */
      "8/8/8/8/8/8/8/(wwwwwwwwwwwwwwwwwwwwwwwwwwwwwww)6b w",
      "1w6/8/8/8/8/8/8/6B1 b",             /* unpromoted White top on rank 8 */
      "8/8/8/8/8/8/8/w5b1 w",             /* unpromoted Black top on rank 1 */
      "8/8/8/8/8/8/8/w5B1 w 0 0 \x01",
      "8/8/8/8/8/8/8/w5B1; w",
      "9/8/8/8/8/8/8/w5B1 w",
      "0w5B1/8/8/8/8/8/8/8 w",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    agon_err err;
    agon_err_clear(&err);
    int rc = vt->from_position(&st, &su, bad[i], strlen(bad[i]), &err);
    CHECK_MSG(rc == AGON_EPOSITION, "accepted bad position '%s' (%d)", bad[i], rc);
    CHECK_MSG(err.msg[0] != '\0', "no message for '%s'", bad[i]);
  }
  /* Garbage bytes never crash (not NUL-terminated either). */
  char junk[64];
  game_rng r;
  game_rng_init(&r, 7);
  for (int k = 0; k < 2000; k++) {
    size_t n = game_rng_below(&r, sizeof junk);
    for (size_t i = 0; i < n; i++) junk[i] = (char)"wWbB()/12345678 x"[game_rng_below(&r, 17)];
    agon_err err;
    game_state g;
    if (vt->from_position(&g, &su, junk, n, &err) == 0)
      CHECK_INT(vt->check(&g, &err), 0);
  }
}

/* ---- options, counters, repetition ------------------------------------- */

static void test_options(void) {
  game_state st;
  game_setup su;
  agon_err err;
  load(&st, "first=black", NULL);
  CHECK_INT(vt->to_move(&st), GAME_SIDE1);
  CHECK_LEGAL(&st, "b6-a5,b6-c5,d6-c5,d6-e5,f6-e5,f6-g5,h6-g5");
  load(&st, "handicap_promoted=black:b6,h6", NULL);
  CHECK_COL(&st, "b6", "B");
  CHECK_COL(&st, "h6", "B");
  CHECK_COL(&st, "d6", "b");
  load(&st, "handicap_promoted=White:A1,c3", NULL);
  CHECK_COL(&st, "a1", "W");
  CHECK_COL(&st, "c3", "W");
  static const char *const badh[] = {"white:a2", "white:a7", "red:a1", "white:",
                                     "white:a1,", "a1", "white:a1c1", "black:a1"};
  for (size_t i = 0; i < sizeof badh / sizeof *badh; i++) {
    make_setup(&su, NULL);
    CHECK_INT(game_setup_set(&su, "handicap_promoted", badh[i], &err), 0);
    CHECK_MSG(vt->init(&st, &su, 0, &err) == AGON_EOPTION, "handicap %s", badh[i]);
  }
  make_setup(&su, "repetition=1");
  CHECK_INT(vt->init(&st, &su, 0, &err), AGON_EOPTION);
  /* promote_on_release can never apply (edge squares cannot be jumped):
   * same tree as the default. */
  load(&st, NULL, NULL);
  uint64_t a = game_perft(vt, &st, 6);
  load(&st, "promote_on_release=yes", NULL);
  CHECK_U64(game_perft(vt, &st, 6), a);
}

static void test_quiet(void) {
  game_state st;
  load(&st, "quiet_plies=4 repetition=0", "8/8/8/8/8/8/8/W5B1 w");
  play(&st, "a1-b2");
  play(&st, "g1-f2");
  play(&st, "b2-c3");
  check_outcome(&st, GAME_ONGOING, GAME_NOBODY, NULL);
  play(&st, "f2-e3");
  check_outcome(&st, GAME_DRAW, GAME_NOBODY, "quiet_plies");
  CHECK_LEGAL(&st, "");
  char pos[GAME_POSITION_MAX];
  vt->to_position(&st, pos, sizeof pos);
  CHECK_STR(pos, "8/8/8/8/8/2W1B3/8/8 w 4 4");
  /* A promotion resets both counters; a jump resets the quiet one. */
  load(&st, NULL, "8/w7/8/8/8/8/8/6B1 w 7 9");
  play(&st, "a7-b8");
  vt->to_position(&st, pos, sizeof pos);
  CHECK_STR(pos, "1W6/8/8/8/8/8/8/6B1 b 0 0");
  load(&st, NULL, "8/8/8/8/8/8/1b6/W5B1 w 7 9");
  play(&st, "a1xc3");
  vt->to_position(&st, pos, sizeof pos);
  CHECK_STR(pos, "8/8/8/8/8/2(Wb)5/8/6B1 b 0 10");
}

static void test_repetition(void) {
  game_setup su;
  game_match m;
  agon_err err;
  uint64_t hist[64];
  static const char *const cyc[] = {"a1-b2", "h8-g7", "b2-a1", "g7-h8"};
  make_setup(&su, NULL);
  const char *pos = "7B/8/8/8/8/8/8/W7 w";
  CHECK_INT(game_match_init_position(&m, &su, pos, strlen(pos), hist, 64, &err), 0);
  for (int i = 0; i < 8; i++) {
    CHECK_INT(game_match_outcome(&m).result, GAME_ONGOING);
    CHECK_INT(game_match_play(&m, cyc[i % 4], 5, NULL, &err), 0);
  }
  game_outcome o = game_match_outcome(&m);
  CHECK_INT(o.result, GAME_DRAW);
  CHECK_STR(o.reason, "repetition");
  CHECK_INT(game_match_play(&m, "a1-b2", 5, NULL, &err), AGON_EGAMEOVER);
  make_setup(&su, "repetition=0");
  CHECK_INT(game_match_init_position(&m, &su, pos, strlen(pos), hist, 64, &err), 0);
  for (int i = 0; i < 12; i++)
    CHECK_INT(game_match_play(&m, cyc[i % 4], 5, NULL, &err), 0);
  CHECK_INT(game_match_outcome(&m).result, GAME_ONGOING);
}

/* ---- random games ------------------------------------------------------ */

/* Every move of many random games: format/parse round trip, position round
 * trip, check(), views; every game ends. */
static void test_random_games(const char *opts, int games) {
  game_setup su;
  make_setup(&su, opts);
  static game_move mv[GAME_MAX_MOVES];
  size_t maxn = 0;
  unsigned ended = 0;
  for (int g = 0; g < games; g++) {
    game_state st;
    agon_err err;
    game_rng r;
    game_rng_init(&r, (uint64_t)g * 7919u + 1);
    CHECK_INT(vt->init(&st, &su, (uint64_t)g, &err), 0);
    for (int ply = 0; ply < 3000; ply++) {
      size_t n = 0;
      CHECK_INT(vt->legal_moves(&st, mv, GAME_MAX_MOVES, &n), 0);
      if (n > maxn) maxn = n;
      game_outcome o = vt->outcome(&st);
      if (n == 0) {
        CHECK_MSG(o.result != GAME_ONGOING, "no moves but ongoing");
        ended++;
        break;
      }
      CHECK(o.result == GAME_ONGOING);
      for (size_t i = 0; i < n; i++) {
        char txt[GAME_MOVE_TEXT_MAX];
        game_move back;
        int len = vt->format_move(&st, &mv[i], txt, sizeof txt);
        CHECK(len > 0);
        int rc = vt->parse_move(&st, txt, (size_t)len, &back, &err);
        CHECK_MSG(rc == 0 && game_move_eq(&back, &mv[i]), "round trip %s", txt);
      }
      char pos[GAME_POSITION_MAX], pos2[GAME_POSITION_MAX];
      game_state st2;
      CHECK(vt->to_position(&st, pos, sizeof pos) > 0);
      CHECK_INT(vt->from_position(&st2, &su, pos, strlen(pos), &err), 0);
      CHECK(memcmp(&st, &st2, vt->state_size) == 0);
      vt->to_position(&st2, pos2, sizeof pos2);
      CHECK_STR(pos, pos2);
      CHECK(vt->hash(&st) == vt->hash(&st2));
      if (ply % 16 == 0) {
        char board[GAME_TEXT_MAX];
        CHECK(vt->to_text(&st, board, sizeof board) > 0);
        json_t *v = vt->to_json(&st, GAME_VIEW_ALL);
        CHECK(json_is_object(json_object_get(v, "board")));
        json_decref(v);
      }
      vt->apply(&st, &mv[game_rng_below(&r, (uint32_t)n)], &err);
      int rc = vt->check(&st, &err);
      CHECK_MSG(rc == 0, "check: %s", err.msg);
      if (rc) break;
    }
  }
  CHECK_INT(ended, games);
  CHECK(maxn < GAME_MAX_MOVES);
}

int main(void) {
  vt = game_find("gomony");
  CHECK(vt != NULL);
  if (vt == NULL) return test_summary();
  CHECK(vt->state_size <= GAME_STATE_MAX);
  test_gm1();
  test_gm2();
  test_gm3();
  test_gm4();
  test_gm5();
  test_gm6();
  test_gm7();
  test_gm8();
  test_gm9();
  test_gm10();
  test_gm11();
  test_gm12();
  test_notation();
  test_positions();
  test_options();
  test_quiet();
  test_repetition();
  test_random_games(NULL, 150);
  test_random_games("rule7=no_reverse max_capture=yes stalemate=loss", 60);
  test_random_games("first=black handicap_promoted=black:b8,d8", 40);
  return test_summary();
}
