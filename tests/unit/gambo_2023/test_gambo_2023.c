/* test_gambo_2023.c - the spec's section 5 scenarios (exact legal-move sets
 * and results), notation (lenient input, canonical and described output,
 * errors), options and the deal, positions (round trip, rejection), views,
 * outcomes and the repetition hooks. Public vtable and game_match only. */
#include "g23_test_util.h"

static uint64_t hist[4096];

/* A match from L0 (or a position), options "k=v" (NULL: defaults), then the
 * comma-separated moves. Fails the test on any error. */
static int start(game_match *m, const char *opt, const char *pos,
                 const char *moves) {
  game_setup su;
  agon_err err;
  g23t_setup(&su, opt);
  int rc = pos ? game_match_init_position(m, &su, pos, strlen(pos), hist, 4096, &err)
               : game_match_init(m, &su, 0, hist, 4096, &err);
  CHECK_MSG(rc == 0, "start %s: %s", pos ? pos : "L0", err.msg);
  if (rc < 0) return rc;
  if (moves == NULL) return 0;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", moves);
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
    rc = game_match_play(m, t, strlen(t), NULL, &err);
    CHECK_MSG(rc == 0, "move '%s': %s", t, err.msg);
    if (rc < 0) return rc;
  }
  return 0;
}

static void play(game_match *m, const char *mv) {
  agon_err err;
  int rc = game_match_play(m, mv, strlen(mv), NULL, &err);
  CHECK_MSG(rc == 0, "move '%s': %s", mv, err.msg);
}

#define EXPECT_LEGAL(m, list)                       \
  do {                                              \
    char got_[4096], want_[4096];                   \
    g23t_legal_str(&(m)->st, got_, sizeof got_);    \
    g23t_sort_list(list, want_, sizeof want_);      \
    CHECK_STR(got_, want_);                         \
  } while (0)

#define EXPECT_TO_MOVE(m, side) CHECK_INT(game_match_to_move(m), side)

static void expect_score(const game_match *m, int s, int n) {
  json_t *v = m->vt->to_json(&m->st, GAME_VIEW_ALL);
  json_t *sc = json_object_get(v, "scores");
  CHECK_INT(json_integer_value(json_object_get(sc, "south")), s);
  CHECK_INT(json_integer_value(json_object_get(sc, "north")), n);
  json_decref(v);
}

static size_t count_prefix(const game_match *m, const char *prefix) {
  game_move mv[GAME_MAX_MOVES];
  size_t n = 0, k = 0;
  m->vt->legal_moves(&m->st, mv, GAME_MAX_MOVES, &n);
  for (size_t i = 0; i < n; i++) {
    char t[GAME_MOVE_TEXT_MAX];
    m->vt->format_move(&m->st, &mv[i], t, sizeof t);
    if (strncmp(t, prefix, strlen(prefix)) == 0) k++;
  }
  return k;
}

static size_t count_legal(const game_match *m) {
  game_move mv[GAME_MAX_MOVES];
  size_t n = 0;
  m->vt->legal_moves(&m->st, mv, GAME_MAX_MOVES, &n);
  return n;
}

/* ---- section 5 --------------------------------------------------------- */

static void test_chooser(void) {
  game_match m;
  start(&m, NULL, NULL, NULL);
  EXPECT_TO_MOVE(&m, GAME_CHOOSER);
  EXPECT_LEGAL(&m, "choose north|choose south");
  agon_err err;
  game_move mv;
  CHECK_INT(m.vt->parse_move(&m.st, "advance e", 9, &mv, &err), AGON_EILLEGAL);
  game_move few[2];
  size_t n = 0;
  CHECK_INT(m.vt->legal_moves(&m.st, few, 2, &n), 0); /* small buffers work */
  CHECK_INT(n, 2);
  play(&m, "choose north");
  EXPECT_TO_MOVE(&m, GAME_SIDE0); /* the other player (South) starts */
  CHECK_INT(m.vt->legal_moves(&m.st, few, 2, &n), AGON_ENOSPACE);
  start(&m, NULL, NULL, "Choose South");
  EXPECT_TO_MOVE(&m, GAME_SIDE1);
  CHECK_INT(m.vt->parse_move(&m.st, "choose north", 12, &mv, &err), AGON_EILLEGAL);
}

static void test_g23_1(void) {
  game_match m;
  start(&m, NULL, NULL, "choose north");
  CHECK_INT(count_legal(&m), 45);
  CHECK_INT(count_prefix(&m, "advance"), 9);
  CHECK_INT(count_prefix(&m, "permute"), 36);
  play(&m, "advance e");
  EXPECT_TO_MOVE(&m, GAME_SIDE1);
  CHECK_INT(count_legal(&m), 45);
  CHECK_INT(count_prefix(&m, "duel"), 0);
  start(&m, NULL, NULL, "choose north");
  CHECK_U64(game_perft(m.vt, &m.st, 1), 45);
  CHECK_U64(game_perft(m.vt, &m.st, 2), 729);
  CHECK_U64(game_perft(m.vt, &m.st, 3), 20817);
  CHECK_U64(game_perft(m.vt, &m.st, 4), 399732);
}

static void test_g23_2(void) {
  game_match m;
  start(&m, NULL, NULL, "choose north,advance e,advance e");
  EXPECT_TO_MOVE(&m, GAME_SIDE0);
  CHECK_INT(count_legal(&m), 45);
  CHECK_INT(count_prefix(&m, "advance"), 8);
  CHECK_INT(count_prefix(&m, "permute"), 36);
  CHECK_INT(count_prefix(&m, "duel"), 1);
  CHECK_INT(count_prefix(&m, "duel e e"), 1);
  char d[GAME_MOVE_TEXT_MAX];
  game_move mv;
  agon_err err;
  CHECK_INT(m.vt->parse_move(&m.st, "duel e e", 8, &mv, &err), 0);
  m.vt->describe_move(&m.st, &mv, d, sizeof d);
  CHECK_STR(d, "duel e e (M3 x C1): North +3");
  play(&m, "duel e e");
  expect_score(&m, 0, 3);
  EXPECT_TO_MOVE(&m, GAME_SIDE0); /* South is behind: plays again */
  CHECK_INT(count_prefix(&m, "duel"), 0);
}

static void test_g23_3(void) {
  game_match m;
  start(&m, NULL, "E1---m3-c2--/-M1--c1e1--- s 0-0 00- 0", NULL);
  EXPECT_LEGAL(&m, "advance a|duel e e|duel g f|permute a e|permute a g|permute e g");
  agon_err err;
  game_move mv;
  CHECK_INT(m.vt->parse_move(&m.st, "duel e f", 8, &mv, &err), AGON_EILLEGAL);
  CHECK_INT(m.vt->parse_move(&m.st, "duel g e", 8, &mv, &err), AGON_EILLEGAL);
  CHECK_INT(m.vt->parse_move(&m.st, "duel e b", 8, &mv, &err), AGON_EILLEGAL);
  CHECK_INT(m.vt->parse_move(&m.st, "duel a b", 8, &mv, &err), AGON_EILLEGAL);
  start(&m, NULL, "E1---m3-c2--/-M1--c1e1--- n 0-0 00- 0", NULL);
  CHECK_INT(count_prefix(&m, "duel"), 2);
  CHECK_INT(count_prefix(&m, "duel e e"), 1);
  CHECK_INT(count_prefix(&m, "duel f g"), 1);
}

static void test_g23_4(void) {
  game_match m;
  /* (a) North c = E1: E beats C, North +2, 4-4: North (tied) again. */
  start(&m, NULL, "--c2M1-----/--e1----M2- n 4-2 00- 0", "duel c c");
  expect_score(&m, 4, 4);
  EXPECT_TO_MOVE(&m, GAME_SIDE1);
  /* (b) E3: North +6, 4-8: South. */
  start(&m, NULL, "--c2M1-----/--e3----M2- n 4-2 00- 0", "duel c c");
  expect_score(&m, 4, 8);
  EXPECT_TO_MOVE(&m, GAME_SIDE0);
  /* (c) M3: C beats M, South +6, 10-2: North (attacker lost, behind). */
  start(&m, NULL, "--c2M1-----/--m3----M2- n 4-2 00- 0", "duel c c");
  expect_score(&m, 10, 2);
  EXPECT_TO_MOVE(&m, GAME_SIDE1);
}

static void test_g23_5(void) {
  game_match m;
  start(&m, NULL, NULL, "choose north,permute a b");
  EXPECT_LEGAL(&m, "advance a|advance b|advance c|advance d|advance e|advance f|"
                   "advance g|advance h|advance i");
  play(&m, "advance a");
  CHECK_INT(count_prefix(&m, "permute"), 36);
  play(&m, "permute c d");
  play(&m, "advance b");
  EXPECT_TO_MOVE(&m, GAME_SIDE0);
  EXPECT_LEGAL(&m, "advance a|advance b|advance c|advance d|advance e|advance f|"
                   "advance g|advance h|advance i");
  agon_err err;
  game_move mv;
  CHECK_INT(m.vt->parse_move(&m.st, "permute e f", 11, &mv, &err), AGON_EILLEGAL);
  CHECK(strstr(err.msg, "third") != NULL);
}

static void test_g23_6(void) {
  game_match m;
  start(&m, NULL, "M2E3--c1----/--M1C3e2---- n 2-6 00- 0", "permute c d");
  EXPECT_TO_MOVE(&m, GAME_SIDE0);
  EXPECT_LEGAL(&m, "advance a|advance b|duel e e");
  play(&m, "duel e e");
  expect_score(&m, 2, 8);
  EXPECT_TO_MOVE(&m, GAME_SIDE0);
  EXPECT_LEGAL(&m, "advance a|advance b|permute a b");
}

static void test_g23_7(void) {
  game_match m;
  start(&m, NULL, NULL, "choose north,advance e,advance a,permute a e");
  char pos[GAME_POSITION_MAX];
  m.vt->to_position(&m.st, pos, sizeof pos);
  /* South: a M3 at home, e M2 on the line (L9). */
  CHECK_STR(pos, "M3E3C1E1m2C2M1C3E2/c3M1E2M3C1E1C2E3M2 n 0-0 10p 1");
  json_t *v = m.vt->to_json(&m.st, GAME_VIEW_ALL);
  json_t *l9 = json_array_get(json_object_get(json_object_get(v, "board"), "line"), 8);
  CHECK_STR(json_string_value(json_object_get(l9, "piece")), "M2");
  CHECK_STR(json_string_value(json_object_get(l9, "side")), "south");
  json_decref(v);
  play(&m, "advance b");
  game_move mv;
  agon_err err;
  char d[GAME_MOVE_TEXT_MAX];
  CHECK_INT(m.vt->parse_move(&m.st, "advance a", 9, &mv, &err), 0);
  m.vt->describe_move(&m.st, &mv, d, sizeof d);
  CHECK_STR(d, "advance a (M3 to L1)");
}

static void test_g23_8(void) {
  game_match m;
  start(&m, NULL, "----m3----/----e1---- s 20-22 00- 0", NULL);
  game_move mv;
  agon_err err;
  char d[GAME_MOVE_TEXT_MAX];
  CHECK_INT(m.vt->parse_move(&m.st, "duel e e", 8, &mv, &err), 0);
  m.vt->describe_move(&m.st, &mv, d, sizeof d);
  CHECK_STR(d, "duel e e (M3 x E1): South +3, bonus +4: South wins 27-22");
  play(&m, "duel e e");
  expect_score(&m, 27, 22);
  game_outcome o = game_match_outcome(&m);
  CHECK_INT(o.result, GAME_WIN);
  CHECK_INT(o.winner, GAME_SIDE0);
  CHECK_STR(o.reason, "score");
  EXPECT_TO_MOVE(&m, GAME_NOBODY);
  CHECK_INT(count_legal(&m), 0);
  CHECK_INT(m.vt->parse_move(&m.st, "pass", 4, &mv, &err), AGON_EGAMEOVER);
  char pos[GAME_POSITION_MAX];
  m.vt->to_position(&m.st, pos, sizeof pos);
  CHECK_STR(pos, "---------/--------- -s 27-22 00- 0");

  start(&m, NULL, "----e1----/----c1---- s 20-25 00- 0", "duel e e");
  expect_score(&m, 25, 25);
  o = game_match_outcome(&m);
  CHECK_INT(o.result, GAME_WIN);
  CHECK_INT(o.winner, GAME_SIDE0);
  CHECK_STR(o.reason, "last_duel_tiebreak");
  json_t *v = game_match_view(&m, GAME_VIEW_ALL);
  CHECK(json_is_null(json_object_get(v, "to_move")));
  CHECK_STR(json_string_value(json_object_get(json_object_get(v, "bonus"), "side")),
            "south");
  json_decref(v);
}

static void test_g23_9(void) {
  game_match m;
  start(&m, NULL, "----c1----/--M1------ s 20-22 00- 0", NULL);
  EXPECT_LEGAL(&m, "pass");
  play(&m, "pass");
  EXPECT_TO_MOVE(&m, GAME_SIDE1);
  EXPECT_LEGAL(&m, "advance c");
  agon_err err;
  game_move mv;
  CHECK_INT(m.vt->parse_move(&m.st, "pass", 4, &mv, &err), AGON_EILLEGAL);
  play(&m, "advance c");
  EXPECT_TO_MOVE(&m, GAME_SIDE0);
  EXPECT_LEGAL(&m, "duel e c");
  play(&m, "duel e c");
  expect_score(&m, 25, 22);
  game_outcome o = game_match_outcome(&m);
  CHECK_INT(o.result, GAME_WIN);
  CHECK_INT(o.winner, GAME_SIDE0);
}

static void test_g23_10(void) {
  game_match m;
  start(&m, NULL, NULL, "choose north,advance e,advance e,duel e e,advance a");
  EXPECT_TO_MOVE(&m, GAME_SIDE0);
  start(&m, "turn_order=alternate", NULL,
        "choose north,advance e,advance e,duel e e");
  EXPECT_TO_MOVE(&m, GAME_SIDE0); /* right after the duel: the lower score */
  play(&m, "advance a");
  EXPECT_TO_MOVE(&m, GAME_SIDE1);
}

/* ---- notation ---------------------------------------------------------- */

static void test_notation(void) {
  game_match m;
  start(&m, NULL, NULL, "choose north,advance e,advance e");
  const game_vtable *vt = m.vt;
  static const struct {
    const char *in, *out;
  } ok[] = {
      {"duel e e", "duel e e"},
      {"  DUEL  E  E ", "duel e e"},
      {"duelee", "duel e e"},
      {"duel M3 C1", "duel e e"},
      {"duel m3 e", "duel e e"},
      {"duel e e (M3 x C1): North +3", "duel e e"},
      {"permute b a", "permute a b"},
      {"Permute A B", "permute a b"},
      {"permute m2 e3", "permute a b"},
      {"permute e1 m3", "permute d e"},
      {"advance E3", "advance b"},
      {"advance\ti", "advance i"},
      {"advance c (C1 to L5)", "advance c"},
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    game_move mv;
    agon_err err;
    char t[GAME_MOVE_TEXT_MAX];
    int rc = vt->parse_move(&m.st, ok[i].in, strlen(ok[i].in), &mv, &err);
    CHECK_MSG(rc == 0, "parse '%s': %s", ok[i].in, err.msg);
    if (rc < 0) continue;
    vt->format_move(&m.st, &mv, t, sizeof t);
    CHECK_STR(t, ok[i].out);
  }
  static const struct {
    const char *in;
    int rc;
    const char *msg; /* substring of the message, or NULL */
  } bad[] = {
      {"", AGON_EBADMOVE, NULL},
      {"   ", AGON_EBADMOVE, NULL},
      {"(duel e e)", AGON_EBADMOVE, NULL},
      {"dance e", AGON_EBADMOVE, NULL},
      {"advance", AGON_EBADMOVE, NULL},
      {"advance j", AGON_EBADMOVE, NULL},
      {"advance e4", AGON_EBADMOVE, NULL},
      {"advance e f", AGON_EBADMOVE, NULL},
      {"duel e", AGON_EBADMOVE, NULL},
      {"pass e", AGON_EBADMOVE, NULL},
      {"choose east", AGON_EBADMOVE, NULL},
      {"advance e-", AGON_EBADMOVE, NULL},
      {"advance e", AGON_EILLEGAL, "already on the line"},
      {"advance m3", AGON_EILLEGAL, "already on the line"},
      {"permute a a", AGON_EILLEGAL, "two different"},
      {"duel a e", AGON_EILLEGAL, "no piece on the line"},
      {"duel e a", AGON_EILLEGAL, "no piece on the line"},
      {"pass", AGON_EILLEGAL, "only legal"},
      {"choose north", AGON_EILLEGAL, "already chosen"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    game_move mv;
    agon_err err;
    agon_err_clear(&err);
    int rc = vt->parse_move(&m.st, bad[i].in, strlen(bad[i].in), &mv, &err);
    CHECK_MSG(rc == bad[i].rc, "parse '%s': %d, wanted %d (%s)", bad[i].in, rc,
              bad[i].rc, err.msg);
    if (bad[i].msg)
      CHECK_MSG(strstr(err.msg, bad[i].msg) != NULL, "'%s': message '%s'",
                bad[i].in, err.msg);
  }
  /* After the duel, E... piece codes of removed pieces are illegal. */
  play(&m, "duel e e");
  game_move mv;
  agon_err err;
  CHECK_INT(vt->parse_move(&m.st, "advance m3", 10, &mv, &err), AGON_EILLEGAL);
  CHECK(strstr(err.msg, "no M3") != NULL);
  CHECK_INT(vt->parse_move(&m.st, "advance e", 9, &mv, &err), AGON_EILLEGAL);
  /* Arbitrary bytes never crash and are never accepted as other moves. */
  unsigned char junk[64];
  game_rng r;
  game_rng_init(&r, 99);
  for (int i = 0; i < 20000; i++) {
    size_t len = game_rng_below(&r, sizeof junk);
    for (size_t k = 0; k < len; k++) {
      static const char alpha[] = "advncepmutdlsxhoi123 (),-ABCDEM\t\xff";
      junk[k] = game_rng_below(&r, 4) ? (unsigned char)alpha[game_rng_below(&r, sizeof alpha - 1)]
                                      : (unsigned char)game_rng_below(&r, 256);
    }
    int rc = vt->parse_move(&m.st, (const char *)junk, len, &mv, &err);
    if (rc == 0) {
      /* accepted: must be one of the legal moves */
      game_move all[GAME_MAX_MOVES];
      size_t n = 0, hit = 0;
      vt->legal_moves(&m.st, all, GAME_MAX_MOVES, &n);
      for (size_t k = 0; k < n; k++) hit += game_move_eq(&all[k], &mv);
      CHECK(hit == 1);
    } else {
      CHECK(rc == AGON_EBADMOVE || rc == AGON_EILLEGAL);
    }
  }
  /* Permutation right after the opponent's. */
  start(&m, NULL, NULL, "choose north,permute a b");
  CHECK_INT(vt->parse_move(&m.st, "permute a b", 11, &mv, &err), AGON_EILLEGAL);
  CHECK(strstr(err.msg, "opponent") != NULL);
}

/* ---- options and the deal ---------------------------------------------- */

/* The documented deal, written again here. */
static void deal(uint64_t seed, char rows[2][9][3]) {
  static const char *const base[9] = {"E1", "E2", "E3", "C1", "C2",
                                      "C3", "M1", "M2", "M3"};
  game_rng r;
  game_rng_init(&r, seed);
  for (int s = 0; s < 2; s++) {
    const char *a[9];
    memcpy(a, base, sizeof a);
    for (int i = 8; i >= 1; i--) {
      uint32_t j = game_rng_below(&r, (uint32_t)i + 1);
      const char *t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    for (int c = 0; c < 9; c++) snprintf(rows[s][c], 3, "%s", a[c]);
  }
}

static void test_options(void) {
  const game_vtable *vt = g23t_vt();
  CHECK_STR(vt->name, "gambo-2023");
  CHECK(game_option_index(vt, "chooser") >= 0);
  CHECK(game_option_index(vt, "turn_order") >= 0);
  CHECK(game_option_index(vt, "repetition_end") >= 0);
  for (uint64_t seed = 0; seed < 50; seed++) {
    char rows[2][9][3], want[GAME_POSITION_MAX], pos[GAME_POSITION_MAX];
    deal(seed, rows);
    size_t k = 0;
    for (int s = 0; s < 2; s++) {
      if (s) want[k++] = '/';
      for (int c = 0; c < 9; c++) {
        memcpy(want + k, rows[s][c], 2);
        k += 2;
      }
    }
    snprintf(want + k, sizeof want - k, " c 0-0 00- 0");
    game_setup su;
    game_setup_init(&su, vt);
    game_state st;
    agon_err err;
    CHECK_INT(vt->init(&st, &su, seed, &err), 0);
    vt->to_position(&st, pos, sizeof pos);
    CHECK_STR(pos, want);
    /* Only north= given: South's row still comes from the seed. */
    game_setup_set(&su, "north", "e1, E2,e3,c1,c2,c3,m1,m2,m3", &err);
    CHECK_INT(vt->init(&st, &su, seed, &err), 0);
    vt->to_position(&st, pos, sizeof pos);
    CHECK(strncmp(pos, want, 18) == 0);
    CHECK(strncmp(pos + 18, "/E1E2E3C1C2C3M1M2M3 c", 21) == 0);
  }
  static const char *const bad_rows[] = {
      "M2,E3,C1,E1,M3,C2,M1,C3",       "M2,E3,C1,E1,M3,C2,M1,C3,E2,E1",
      "M2,E3,C1,E1,M3,C2,M1,C3,C3",    "M2,E3,C1,E1,M3,C2,M1,C3,X2",
      "M2;E3,C1,E1,M3,C2,M1,C3,E2",    "M2,E3,C1,E1,M3,C2,M1,C3,E4",
      "x",
  };
  /* The shared row syntax (gambo_common.h) is lenient about separators:
   * commas and/or blanks, or none, as the 2019 module always accepted. */
  static const char *const lenient_rows[] = {
      "M2,E3,C1,E1,M3,C2,M1,C3,E2,", "M2E3C1E1M3C2M1C3E2", " m2 e3 c1 e1 m3 c2 m1 c3 e2 ",
  };
  for (size_t i = 0; i < sizeof lenient_rows / sizeof *lenient_rows; i++) {
    game_setup su;
    game_state st;
    agon_err err;
    game_setup_init(&su, vt);
    game_setup_set(&su, "south", lenient_rows[i], &err);
    CHECK_MSG(vt->init(&st, &su, 1, &err) == 0, "row '%s' refused: %s", lenient_rows[i], err.msg);
  }
  for (size_t i = 0; i < sizeof bad_rows / sizeof *bad_rows; i++) {
    game_setup su;
    game_state st;
    agon_err err;
    game_setup_init(&su, vt);
    game_setup_set(&su, "south", bad_rows[i], &err);
    CHECK_MSG(vt->init(&st, &su, 1, &err) == AGON_EOPTION, "row '%s' accepted",
              bad_rows[i]);
  }
  game_setup su;
  game_state st;
  agon_err err;
  game_setup_init(&su, vt);
  game_setup_set(&su, "repetition_end", "1", &err);
  CHECK_INT(vt->init(&st, &su, 1, &err), AGON_EOPTION);
}

/* ---- positions ---------------------------------------------------------- */

static void test_positions(void) {
  const game_vtable *vt = g23t_vt();
  game_setup su;
  g23t_setup(&su, NULL);
  static const char *const good[] = {
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 c 0-0 00- 0",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 00- 0",
      "E1---m3-c2--/-M1--c1e1--- s 0-0 00- 0",
      "--c2M1-----/--e1----M2- n 4-2 00- 0",
      "M2E3--c1----/--M1C3e2---- n 2-6 00- 0",
      "----m3----/----e1---- s 20-22 00- 0",
      "----c1----/--M1------ s 20-22 00- 0",
      "M3E3C1E1m2C2M1C3E2/c3M1E2M3C1E1C2E3M2 n 0-0 10p 1",
      "---------/--------- -s 27-22 00- 0",
      "---------/--------- -n 20-30 01- 0",
      "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 n 5-9 21p 65535",
  };
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    game_state st;
    agon_err err;
    char out[GAME_POSITION_MAX];
    int rc = vt->from_position(&st, &su, good[i], strlen(good[i]), &err);
    CHECK_MSG(rc == 0, "'%s': %s", good[i], err.msg);
    if (rc < 0) continue;
    CHECK_INT(vt->check(&st, &err), 0);
    vt->to_position(&st, out, sizeof out);
    CHECK_STR(out, good[i]);
    CHECK(strchr(out, ';') == NULL);
  }
  /* Surrounding blanks are tolerated, the output is canonical. */
  {
    game_state st;
    agon_err err;
    char out[GAME_POSITION_MAX];
    const char *p = "  ----c1----/--M1------ s 20-22 00- 0\n";
    CHECK_INT(vt->from_position(&st, &su, p, strlen(p), &err), 0);
    vt->to_position(&st, out, sizeof out);
    CHECK_STR(out, "----c1----/--M1------ s 20-22 00- 0");
  }
  static const char *const bad[] = {
      "",
      "garbage",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2",           /* fields missing */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 00-",  /* quiet missing */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 00- 0 x",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2  s 0-0 00- 0",
      "M2E3C1E1M3C2M1C3/C3M1E2M3C1E1C2E3M2 s 0-0 00- 0",  /* 8 cells */
      "M2E3C1E1M3C2M1C3E2E1/C3M1E2M3C1E1C2E3M2 s 0-0 00- 0",
      "M2E3C1E1M3C2M1C3M2/C3M1E2M3C1E1C2E3M2 s 0-0 00- 0", /* M2 twice */
      "M2E3C1E1M3C2M1C3E4/C3M1E2M3C1E1C2E3M2 s 0-0 00- 0",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 x 0-0 00- 0",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 00-0 00- 0",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 30- 0",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 00x 0",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 00- 65536",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 00- 01",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 00- -1",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 3-0 00- 0",   /* points, no duel */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 00p 1",   /* perm run 0 */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 01p 0",   /* quiet 0 */
      "m2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 c 0-0 00- 0",   /* chooser, line */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 c 0-0 10- 0",
      "----c1----/--M1--C2---- s 20-22 00- 0",                 /* 1 vs 2 pieces */
      "----c1----/--M1------ -s 20-22 00- 0",                  /* over, pieces */
      "---------/--------- s 20-22 00- 0",                     /* no pieces */
      "---------/--------- -s 2-22 00- 0",                     /* winner < 5 */
      "---------/--------- -s 80-22 00- 0",                    /* > 85 total */
      "----c1----/--M1------ s 60-22 00- 0",                   /* > 9 per duel */
      "----c1----/--M1------ s 20-22 00- 0;",
      "----c1----/--M1------ s 20-22 00- 0\x01",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    game_state st;
    agon_err err;
    agon_err_clear(&err);
    int rc = vt->from_position(&st, &su, bad[i], strlen(bad[i]), &err);
    CHECK_MSG(rc == AGON_EPOSITION, "accepted bad position '%s'", bad[i]);
    CHECK(err.msg[0] != '\0');
  }
  /* Truncations and byte flips of a valid position never crash. */
  const char *base = good[10];
  char buf[128];
  size_t blen = strlen(base);
  for (size_t cut = 0; cut <= blen; cut++) {
    game_state st;
    agon_err err;
    memcpy(buf, base, cut);
    int rc = vt->from_position(&st, &su, buf, cut, &err);
    /* only the last field (quiet plies) may be cut and still be valid */
    CHECK(rc == 0 ? cut + 5 >= blen : rc == AGON_EPOSITION);
  }
  game_rng r;
  game_rng_init(&r, 5);
  for (int i = 0; i < 20000; i++) {
    game_state st;
    agon_err err;
    memcpy(buf, base, blen);
    for (int k = 0; k < 3; k++)
      buf[game_rng_below(&r, (uint32_t)blen)] = (char)game_rng_below(&r, 256);
    if (vt->from_position(&st, &su, buf, blen, &err) == 0) {
      char out[GAME_POSITION_MAX], out2[GAME_POSITION_MAX];
      CHECK_INT(vt->check(&st, &err), 0);
      vt->to_position(&st, out, sizeof out);
      game_state st2;
      CHECK_INT(vt->from_position(&st2, &su, out, strlen(out), &err), 0);
      vt->to_position(&st2, out2, sizeof out2);
      CHECK_STR(out, out2);
    }
  }
}

/* ---- views, outcome, repetition ---------------------------------------- */

static void test_views(void) {
  game_match m;
  start(&m, NULL, NULL, "choose north,advance e,advance e,duel e e");
  json_t *v = game_match_view(&m, GAME_VIEW_ALL);
  json_t *board = json_object_get(v, "board");
  CHECK(json_is_array(json_object_get(board, "south")));
  CHECK_INT(json_array_size(json_object_get(board, "south")), 9);
  CHECK_INT(json_array_size(json_object_get(board, "north")), 9);
  CHECK_INT(json_array_size(json_object_get(board, "line")), 18);
  json_t *sa = json_array_get(json_object_get(board, "south"), 0);
  CHECK_STR(json_string_value(json_object_get(sa, "piece")), "M2");
  CHECK_STR(json_string_value(json_object_get(sa, "state")), "home");
  CHECK_INT(json_integer_value(json_object_get(sa, "faces")), 1);
  json_t *se = json_array_get(json_object_get(board, "south"), 4);
  CHECK(json_is_null(json_object_get(se, "piece")));
  CHECK_STR(json_string_value(json_object_get(se, "state")), "empty");
  CHECK_STR(json_string_value(json_object_get(v, "to_move")), "south");
  CHECK_STR(json_string_value(json_object_get(v, "phase")), "play");
  CHECK_STR(json_string_value(json_object_get(v, "hand")), "south");
  CHECK_INT(json_integer_value(json_object_get(v, "duels")), 1);
  CHECK_STR(json_string_value(json_object_get(v, "turn_order")), "hand");
  CHECK(json_is_true(json_object_get(json_object_get(v, "permutation"), "allowed")));
  CHECK(json_is_string(json_object_get(v, "seed_commitment")));
  CHECK(json_object_get(v, "seed") == NULL); /* revealed only at the end */
  json_decref(v);
  start(&m, NULL, NULL, NULL);
  v = m.vt->to_json(&m.st, 0);
  CHECK_STR(json_string_value(json_object_get(v, "to_move")), "chooser");
  CHECK_STR(json_string_value(json_object_get(v, "phase")), "choose");
  json_decref(v);
  char t[GAME_TEXT_MAX];
  start(&m, NULL, NULL, "choose north,advance e");
  CHECK(m.vt->to_text(&m.st, t, sizeof t) > 0);
  CHECK(strstr(t, "North:     C3    M1    E2    M3    C1    E1    C2    E3    M2") != NULL);
  CHECK(strstr(t, "Line:   01 02 03 04 05 06 07 08 M3 10") != NULL);
  CHECK(strstr(t, "South:  M2    E3    C1    E1    ..    C2") != NULL);
  CHECK_INT(m.vt->to_text(&m.st, t, 10), AGON_ENOSPACE);
  char small[8];
  CHECK_INT(m.vt->to_position(&m.st, small, sizeof small), AGON_ENOSPACE);
}

static void test_repetition(void) {
  const game_vtable *vt = g23t_vt();
  game_match m;
  /* The window is the number of reversible plies (permutation, pass). */
  start(&m, NULL, "----c1----/--M1------ s 20-22 00- 0", NULL);
  unsigned window = 99;
  CHECK_INT(vt->repetition(&m.st, &window), 3);
  CHECK_INT(window, 0);
  play(&m, "pass");
  vt->repetition(&m.st, &window);
  CHECK_INT(window, 1);
  play(&m, "advance c");
  vt->repetition(&m.st, &window);
  CHECK_INT(window, 0);
  start(&m, "repetition_end=0", NULL, NULL);
  CHECK_INT(vt->repetition(&m.st, &window), 0);
  /* The safeguard's result: scores as they stand, no bonus. */
  start(&m, NULL, "----c1----/--M1------ s 20-22 00- 0", NULL);
  game_outcome o = vt->repetition_outcome(&m.st);
  CHECK_INT(o.result, GAME_WIN);
  CHECK_INT(o.winner, GAME_SIDE1);
  CHECK_STR(o.reason, "repetition");
  start(&m, NULL, "----c1----/--M1------ s 22-22 00- 0", NULL);
  o = vt->repetition_outcome(&m.st);
  CHECK_INT(o.result, GAME_DRAW);
  CHECK_STR(o.reason, "repetition");
  /* The hash covers the permutation-restriction state, scores, side. */
  static const char *const distinct[] = {
      "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 n 5-9 21p 3",
      "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 n 5-9 21- 3",
      "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 n 5-9 11p 3",
      "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 n 5-9 20p 3",
      "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 s 5-9 21- 3",
      "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 n 6-9 21p 3",
      "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 n 5-8 21p 3",
      "m1E2c3m3-e3-C1e1/c2-M2e3M1m3E1-C3 n 5-9 21p 3",
      "m1E2c3M3-e3-C1E1/c2-M2e3M1m3E1-C3 n 5-9 21p 3",
      "m1E2c3M3-e3-E1c1/c2-M2e3M1m3E1-C3 n 5-9 21p 3",
  };
  uint64_t h[10];
  game_setup su;
  g23t_setup(&su, NULL);
  for (int i = 0; i < 10; i++) {
    game_state st;
    agon_err err;
    CHECK_INT(vt->from_position(&st, &su, distinct[i], strlen(distinct[i]), &err), 0);
    h[i] = vt->hash(&st);
    for (int j = 0; j < i; j++) CHECK_MSG(h[i] != h[j], "hash %d == %d", i, j);
  }
  /* The quiet counter is history, not identity. */
  {
    game_state a, b;
    agon_err err;
    const char *pa = "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 n 5-9 21p 3";
    const char *pb = "m1E2c3M3-e3-C1e1/c2-M2e3M1m3E1-C3 n 5-9 21p 7";
    vt->from_position(&a, &su, pa, strlen(pa), &err);
    vt->from_position(&b, &su, pb, strlen(pb), &err);
    CHECK_U64(vt->hash(&a), vt->hash(&b));
  }
}

int main(void) {
  test_chooser();
  test_g23_1();
  test_g23_2();
  test_g23_3();
  test_g23_4();
  test_g23_5();
  test_g23_6();
  test_g23_7();
  test_g23_8();
  test_g23_9();
  test_g23_10();
  test_notation();
  test_options();
  test_positions();
  test_views();
  test_repetition();
  return test_summary();
}
