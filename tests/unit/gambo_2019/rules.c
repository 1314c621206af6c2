/* rules.c - Gambo (2019 rules): every test scenario of the spec's section 5
 * (shared/rules/gambo-2019.md) with exact legal-move sets and results, the
 * notation (lenient input, canonical output, describe_move), positions
 * (round trips, strict rejection), the seed deal, the placement set-up,
 * invariants over random games (pieces + prisoners + eliminated = 18), and
 * the frozen perft numbers of tests/data/gambo_2019.counts (argv[1]).
 * Everything goes through the public vtable and game_match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "test.h"

static const game_vtable *vt;

#define L0 "south=M2,E3,C1,E1,M3,C2,M1,C3,E2 north=C3,M1,E2,M3,C1,E1,C2,E3,M2"
#define HIST 256
static uint64_t hist[HIST];

/* ---- helpers ------------------------------------------------------------ */

static void setup_opts(game_setup *su, const char *opts) {
  agon_err err;
  game_setup_init(su, vt);
  char buf[512];
  snprintf(buf, sizeof buf, "%s", opts);
  for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
    CHECK_MSG(game_setup_set_kv(su, tok, &err) == 0, "option %s: %s", tok, err.msg);
}

/* Match from options (+ seed) or a position, then moves separated by '|'. */
static int start(game_match *m, const char *opts, const char *pos, const char *moves) {
  game_setup su;
  agon_err err;
  setup_opts(&su, opts);
  int rc = pos ? game_match_init_position(m, &su, pos, strlen(pos), hist, HIST, &err)
               : game_match_init(m, &su, 0, hist, HIST, &err);
  CHECK_MSG(rc == 0, "start: %s", err.msg);
  if (rc) return rc;
  if (!moves) return 0;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", moves);
  for (char *tok = strtok(buf, "|"); tok; tok = strtok(NULL, "|")) {
    rc = game_match_play(m, tok, strlen(tok), NULL, &err);
    CHECK_MSG(rc == 0, "move '%s': %s", tok, err.msg);
    if (rc) return rc;
  }
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted canonical legal moves joined by ", ". */
static const char *legal(const game_match *m) {
  static char out[8192];
  static char text[GAME_MAX_MOVES][GAME_MOVE_TEXT_MAX];
  static const char *ptr[GAME_MAX_MOVES];
  game_move mv[GAME_MAX_MOVES];
  size_t n = 0;
  CHECK_INT(game_match_legal(m, mv, GAME_MAX_MOVES, &n), 0);
  for (size_t i = 0; i < n; i++) {
    CHECK(vt->format_move(&m->st, &mv[i], text[i], GAME_MOVE_TEXT_MAX) > 0);
    ptr[i] = text[i];
  }
  qsort(ptr, n, sizeof *ptr, cmp_str);
  out[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    if (i) strcat(out, ", ");
    strcat(out, ptr[i]);
  }
  return out;
}

static size_t nlegal(const game_match *m) {
  game_move mv[GAME_MAX_MOVES];
  size_t n = 0;
  game_match_legal(m, mv, GAME_MAX_MOVES, &n);
  return n;
}

static const char *position(const game_match *m) {
  static char buf[GAME_POSITION_MAX];
  CHECK(vt->to_position(&m->st, buf, sizeof buf) > 0);
  return buf;
}

static int play(game_match *m, const char *mv) {
  agon_err err;
  int rc = game_match_play(m, mv, strlen(mv), NULL, &err);
  CHECK_MSG(rc == 0, "move '%s': %s", mv, err.msg);
  return rc;
}

/* Prisoner counts and other fields through the JSON view. */
static long long jint(const game_match *m, const char *obj, const char *key) {
  json_t *v = game_match_view(m, GAME_VIEW_ALL);
  json_t *o = json_object_get(v, obj);
  long long r = json_integer_value(json_object_get(o, key));
  json_decref(v);
  return r;
}

static const char *tomove(const game_match *m) {
  return game_side_name(vt, game_match_to_move(m));
}

/* ---- section 5 scenarios ------------------------------------------------- */

static void test_g19_1(void) {
  game_match m;
  start(&m, L0, NULL, NULL);
  CHECK_INT(game_match_to_move(&m), GAME_CHOOSER);
  CHECK_STR(legal(&m), "choose north, choose south");
  play(&m, "choose north");
  CHECK_STR(tomove(&m), "south");
  CHECK_STR(legal(&m),
            "engage a, engage b, engage c, engage d, engage e, engage f, engage g, "
            "engage h, engage i, permute a b, permute a c, permute a d, permute a e, "
            "permute a f, permute a g, permute a h, permute a i, permute b c, "
            "permute b d, permute b e, permute b f, permute b g, permute b h, "
            "permute b i, permute c d, permute c e, permute c f, permute c g, "
            "permute c h, permute c i, permute d e, permute d f, permute d g, "
            "permute d h, permute d i, permute e f, permute e g, permute e h, "
            "permute e i, permute f g, permute f h, permute f i, permute g h, "
            "permute g i, permute h i");
  CHECK_INT(nlegal(&m), 45);
  static const uint64_t spec[] = {1, 45, 341, 1224, 26095, 160548};
  for (unsigned d = 0; d <= 5; d++) CHECK_U64(game_perft(vt, &m.st, d), spec[d]);
  CHECK_STR(position(&m), "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0");
}

static void test_g19_2(void) {
  game_match m;
  start(&m, L0, NULL, "choose north|engage e");
  CHECK_STR(tomove(&m), "north");
  CHECK_STR(legal(&m), "respond d, respond e");
  /* (a) M3 vs M3: the attacker wins */
  start(&m, L0, NULL, "choose north|engage e|respond d");
  CHECK_INT(jint(&m, "prisoners", "south"), 1);
  CHECK_INT(jint(&m, "prisoners", "north"), 0);
  CHECK_STR(tomove(&m), "north");
  CHECK_STR(position(&m), "M2E3C1E1m3C2M1C3E2/C3M1E2-C1E1C2E3M2 n 1-0");
  /* (b) Cat beats Mouse */
  start(&m, L0, NULL, "choose north|engage e|respond e");
  CHECK_INT(jint(&m, "prisoners", "south"), 0);
  CHECK_INT(jint(&m, "prisoners", "north"), 1);
  CHECK_STR(tomove(&m), "south");
  CHECK_STR(position(&m), "M2E3C1E1-C2M1C3E2/C3M1E2M3c1E1C2E3M2 s 0-1");
}

static void test_g19_3(void) {
  game_match m;
  start(&m, L0, NULL, "choose north|engage a");
  CHECK_STR(legal(&m), "respond a");
  play(&m, "respond a");
  CHECK_STR(position(&m), "-E3C1E1M3C2M1C3E2/c3M1E2M3C1E1C2E3M2 s 0-1");
  CHECK_STR(tomove(&m), "south");
}

#define G19_4 "choose north|engage e|respond d|engage e|respond f|engage c|respond d"

static void test_g19_4_5(void) {
  game_match m;
  start(&m, L0, NULL, "choose north|engage e|respond d");
  CHECK_STR(position(&m), "M2E3C1E1m3C2M1C3E2/C3M1E2-C1E1C2E3M2 n 1-0");
  play(&m, "engage e");
  CHECK_STR(legal(&m), "respond d, respond f");
  play(&m, "respond f");
  CHECK_STR(position(&m), "M2E3C1E1m3c2M1C3E2/C3M1E2--E1C2E3M2 n 2-0");
  play(&m, "engage c");
  CHECK_STR(legal(&m), "respond c, respond d");
  play(&m, "respond d");
  CHECK_STR(position(&m), "M2E3C1-m3c2M1C3E2/C3M1e2--E1C2E3M2 n 2-1");
  CHECK_STR(tomove(&m), "north");
  play(&m, "engage f");
  CHECK_STR(legal(&m), "respond c, respond g");
  /* G19-5: Elephant beats Cat, 2-2, the engager keeps the initiative */
  game_match alt = m;
  play(&m, "respond c");
  CHECK_INT(jint(&m, "prisoners", "south"), 2);
  CHECK_INT(jint(&m, "prisoners", "north"), 2);
  CHECK_STR(tomove(&m), "north");
  CHECK_STR(position(&m), "M2E3--m3c2M1C3E2/C3M1e2--e1C2E3M2 n 2-2");
  play(&alt, "respond g");
  CHECK_INT(jint(&alt, "prisoners", "south"), 3);
  CHECK_INT(jint(&alt, "prisoners", "north"), 1);
  CHECK_STR(tomove(&alt), "north");
}

static void test_g19_6(void) {
  game_match m;
  start(&m, L0, NULL, "choose north|permute a b");
  CHECK_STR(position(&m), "E3M2C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 n! 0-0");
  CHECK_STR(tomove(&m), "north");
  CHECK_STR(legal(&m), "engage a, engage b, engage c, engage d, engage e, engage f, "
                       "engage g, engage h, engage i");
  agon_err err;
  game_move mv;
  CHECK_INT(vt->parse_move(&m.st, "permute a b", 11, &mv, &err), AGON_EILLEGAL);
  play(&m, "engage a");
  CHECK_STR(legal(&m), "respond a, respond b");
  play(&m, "respond a");
  CHECK_INT(jint(&m, "prisoners", "south"), 1);
  CHECK_STR(tomove(&m), "north");
  CHECK_INT(nlegal(&m), 36);
  CHECK_STR(legal(&m),
            "engage b, engage c, engage d, engage e, engage f, engage g, engage h, "
            "engage i, permute b c, permute b d, permute b e, permute b f, permute b g, "
            "permute b h, permute b i, permute c d, permute c e, permute c f, "
            "permute c g, permute c h, permute c i, permute d e, permute d f, "
            "permute d g, permute d h, permute d i, permute e f, permute e g, "
            "permute e h, permute e i, permute f g, permute f h, permute f i, "
            "permute g h, permute g i, permute h i");
}

#define G19_7 "E3---M1----/-C2-M3-E1-C1- s 5-7"

static void test_g19_7_8(void) {
  game_match m;
  start(&m, "", G19_7, NULL);
  CHECK_STR(legal(&m), "engage a, engage e, permute a e");
  play(&m, "engage e");
  CHECK_STR(legal(&m), "respond d, respond f");
  play(&m, "respond f");
  CHECK_STR(position(&m), "E3---m1----/-C2-M3---C1- s 6-7");
  play(&m, "engage a");
  CHECK_STR(legal(&m), "respond b");
  play(&m, "respond b");
  /* 7-7, South keeps; the series ends, North's d and h qualify */
  CHECK_STR(position(&m), "E3---M1----/---M3---C1- s 7-7");
  CHECK_STR(tomove(&m), "south");
  CHECK(game_match_outcome(&m).result == GAME_ONGOING);
  CHECK_STR(legal(&m), "engage a, engage e, permute a e");

  /* G19-8: advanced, the last duel was South's: d and h eliminated */
  start(&m, "variant=advanced", G19_7, "engage e|respond f|engage a|respond b");
  game_outcome o = game_match_outcome(&m);
  CHECK_INT(o.result, GAME_WIN);
  CHECK_INT(o.winner, 0);
  CHECK_STR(o.reason, "leftovers_eliminated");
  CHECK_INT(game_match_to_move(&m), GAME_NOBODY);
  CHECK_STR(legal(&m), "");
  CHECK_STR(position(&m), "e3---m1----/--------- over:eliminated 9-7");
  CHECK_INT(jint(&m, "prisoners", "south"), 9);
  agon_err err;
  game_move mv;
  CHECK_INT(vt->parse_move(&m.st, "engage a", 8, &mv, &err), AGON_EGAMEOVER);
  start(&m, "variant=advanced eliminated_are_prisoners=no", G19_7,
        "engage e|respond f|engage a|respond b");
  o = game_match_outcome(&m);
  CHECK_INT(o.winner, 0);
  CHECK_STR(o.reason, "leftovers_eliminated");
  CHECK_INT(jint(&m, "prisoners", "south"), 7);
  CHECK_INT(jint(&m, "eliminated", "north"), 2);
  CHECK_STR(position(&m), "e3---m1----/--------- over:eliminated 7-7");
}

static void test_g19_9(void) {
  game_match m;
  const char *mv = "engage e|respond d|engage a|respond b";
  start(&m, "", G19_7, "engage e|respond d");
  CHECK_INT(jint(&m, "prisoners", "north"), 8);
  CHECK_STR(tomove(&m), "south");
  play(&m, "engage a");
  CHECK_STR(legal(&m), "respond b");
  play(&m, "respond b");
  CHECK_STR(position(&m), "E3--------/---M3-E1-C1- s 6-8");
  CHECK_STR(legal(&m), "engage a");
  start(&m, "variant=advanced", G19_7, mv);
  CHECK_STR(position(&m), "E3--------/---M3----- s 8-8");
  CHECK_STR(tomove(&m), "south");
  CHECK(game_match_outcome(&m).result == GAME_ONGOING);
  start(&m, "variant=advanced eliminated_are_prisoners=no", G19_7, mv);
  CHECK_STR(position(&m), "E3--------/---M3----- s 6-8");
  CHECK_STR(tomove(&m), "south");
  CHECK_INT(jint(&m, "eliminated", "north"), 2);
  CHECK_INT(jint(&m, "prisoners", "north"), 8);
}

static void test_g19_10(void) {
  game_match m;
  start(&m, "", "E1--------/--------M2 s 8-8", NULL);
  CHECK_STR(legal(&m), "engage a");
  play(&m, "engage a");
  CHECK_STR(legal(&m), "respond i");
  play(&m, "respond i");
  game_outcome o = game_match_outcome(&m);
  CHECK_INT(o.result, GAME_WIN);
  CHECK_INT(o.winner, 1);
  CHECK_STR(o.reason, "last_piece_captured");
  CHECK_STR(position(&m), "---------/--------m2 over:captured 8-9");
}

static void test_g19_11(void) {
  game_match m;
  start(&m, L0, NULL, G19_4);
  agon_err err;
  game_move mv;
  CHECK_INT(vt->parse_move(&m.st, "permute c a", 11, &mv, &err), AGON_EILLEGAL);
  CHECK(strstr(err.msg, "withdrawn") != NULL);
  CHECK_INT(vt->parse_move(&m.st, "permute a b", 11, &mv, &err), 0);
  /* [OPTION] permute_withdrawn=yes: legal, and c stays withdrawn on a */
  start(&m, L0 " permute_withdrawn=yes", NULL, G19_4);
  CHECK_INT(vt->parse_move(&m.st, "permute c a", 11, &mv, &err), 0);
  play(&m, "permute c a");
  CHECK_STR(position(&m), "M2E3C1-m3c2M1C3E2/e2M1C3--E1C2E3M2 s! 2-1");
  CHECK_INT(nlegal(&m), 6); /* South's available a b c g h i */
}

/* ---- notation ------------------------------------------------------------ */

static int parse(const game_match *m, const char *t, game_move *mv, agon_err *err) {
  return vt->parse_move(&m->st, t, strlen(t), mv, err);
}

static void expect_parse(const game_match *m, const char *text, const char *canon) {
  game_move mv;
  agon_err err;
  int rc = parse(m, text, &mv, &err);
  CHECK_MSG(rc == 0, "'%s': %s", text, err.msg);
  if (rc) return;
  char out[GAME_MOVE_TEXT_MAX];
  vt->format_move(&m->st, &mv, out, sizeof out);
  CHECK_STR(out, canon);
}

static void expect_err(const game_match *m, const char *text, int code, const char *why) {
  game_move mv;
  agon_err err;
  agon_err_clear(&err);
  int rc = parse(m, text, &mv, &err);
  CHECK_MSG(rc == code, "'%s': got %d (%s), want %d", text, rc, err.msg, code);
  if (why) CHECK_MSG(strstr(err.msg, why) != NULL, "'%s': message '%s' lacks '%s'", text, err.msg, why);
}

static void test_notation(void) {
  game_match m;
  start(&m, L0, NULL, NULL);
  expect_parse(&m, "choose north", "choose north");
  expect_parse(&m, "  CHOOSE   North ", "choose north");
  expect_parse(&m, "choose s", "choose south");
  expect_err(&m, "engage e", AGON_EILLEGAL, "choose");
  expect_err(&m, "choose west", AGON_EBADMOVE, NULL);
  play(&m, "choose north");
  expect_err(&m, "choose south", AGON_EILLEGAL, "already");
  expect_parse(&m, "engage e", "engage e");
  expect_parse(&m, "ENGAGE E", "engage e");
  expect_parse(&m, "engage M3", "engage e");
  expect_parse(&m, "engage m3 (M3)", "engage e");
  expect_parse(&m, "\tengage\te\n", "engage e");
  expect_parse(&m, "permute b a", "permute a b");
  expect_parse(&m, "permute e3 m2", "permute a b");
  expect_parse(&m, "permute a,b", "permute a b");
  expect_parse(&m, "Permute  I  H", "permute h i");
  expect_err(&m, "permute a a", AGON_EILLEGAL, "different");
  expect_err(&m, "permute a", AGON_EBADMOVE, NULL);
  expect_err(&m, "permute a b c", AGON_EBADMOVE, NULL);
  expect_err(&m, "engage", AGON_EBADMOVE, NULL);
  expect_err(&m, "engage j", AGON_EBADMOVE, NULL);
  expect_err(&m, "engage e4", AGON_EBADMOVE, NULL);
  expect_err(&m, "", AGON_EBADMOVE, NULL);
  expect_err(&m, "duel e f", AGON_EBADMOVE, NULL);
  expect_err(&m, "pass", AGON_EBADMOVE, NULL);
  expect_err(&m, "respond d", AGON_EILLEGAL, "nothing to respond");
  expect_err(&m, "place a E3", AGON_EILLEGAL, "placement");
  play(&m, "engage e");
  expect_parse(&m, "respond d", "respond d");
  expect_parse(&m, "respond M3", "respond d");
  expect_parse(&m, "respond C1", "respond e");
  expect_parse(&m, "respond d (M3): South wins", "respond d");
  expect_err(&m, "respond a", AGON_EILLEGAL, "candidate");
  expect_err(&m, "respond E3", AGON_EILLEGAL, "candidate");
  expect_err(&m, "engage a", AGON_EILLEGAL, "must respond");
  expect_err(&m, "permute a b", AGON_EILLEGAL, "must respond");
  /* describe_move: the spec's echo */
  char buf[GAME_MOVE_TEXT_MAX];
  game_move mv;
  agon_err err;
  parse(&m, "respond d", &mv, &err);
  CHECK(vt->describe_move(&m.st, &mv, buf, sizeof buf) > 0);
  CHECK_STR(buf, "respond d (M3): South wins");
  expect_parse(&m, buf, "respond d");
  parse(&m, "respond e", &mv, &err);
  vt->describe_move(&m.st, &mv, buf, sizeof buf);
  CHECK_STR(buf, "respond e (C1): North wins");
  start(&m, L0, NULL, "choose north");
  parse(&m, "engage e", &mv, &err);
  vt->describe_move(&m.st, &mv, buf, sizeof buf);
  CHECK_STR(buf, "engage e (M3)");
  parse(&m, "permute b a", &mv, &err);
  vt->describe_move(&m.st, &mv, buf, sizeof buf);
  CHECK_STR(buf, "permute a b (M2 E3)");
  CHECK_INT(vt->format_move(&m.st, &mv, buf, 5), AGON_ENOSPACE);
  start(&m, "", "E1--------/--------M2 s 8-8", "engage a");
  parse(&m, "respond i", &mv, &err);
  vt->describe_move(&m.st, &mv, buf, sizeof buf);
  CHECK_STR(buf, "respond i (M2): North wins, last piece captured");
  /* G19-4: no piece on a captured square, withdrawn pieces cannot engage */
  start(&m, L0, NULL, G19_4);
  expect_err(&m, "engage c", AGON_EILLEGAL, "withdrawn");
  expect_err(&m, "engage d", AGON_EILLEGAL, "no piece");
  expect_err(&m, "engage e", AGON_EILLEGAL, "no piece");
  expect_err(&m, "engage M3", AGON_EILLEGAL, "no M3");
  expect_parse(&m, "engage E1", "engage f");
  /* forced engagement message */
  start(&m, L0, NULL, "choose north|permute a b");
  expect_err(&m, "permute c d", AGON_EILLEGAL, "must engage");
  /* arbitrary bytes never crash */
  static const char junk[] = "engage \0e\xff(";
  for (size_t n = 0; n <= sizeof junk; n++) {
    int rc = parse(&m, junk, &mv, &err);
    CHECK(rc == 0 || rc == AGON_EBADMOVE || rc == AGON_EILLEGAL);
  }
  char longtext[300];
  memset(longtext, 'e', sizeof longtext);
  CHECK_INT(vt->parse_move(&m.st, longtext, sizeof longtext, &mv, &err), AGON_EBADMOVE);
}

/* ---- positions ----------------------------------------------------------- */

static void roundtrip(const char *opts, const char *pos) {
  game_setup su;
  setup_opts(&su, opts);
  game_state st, st2;
  agon_err err;
  int rc = vt->from_position(&st, &su, pos, strlen(pos), &err);
  CHECK_MSG(rc == 0, "%s: %s", pos, err.msg);
  if (rc) return;
  char out[GAME_POSITION_MAX];
  CHECK(vt->to_position(&st, out, sizeof out) > 0);
  CHECK_STR(out, pos);
  CHECK_INT(vt->check(&st, &err), 0);
  CHECK_INT(vt->from_position(&st2, &su, out, strlen(out), &err), 0);
  CHECK(memcmp(&st, &st2, vt->state_size) == 0);
  CHECK(vt->hash(&st) == vt->hash(&st2));
}

static void reject(const char *opts, const char *pos) {
  game_setup su;
  setup_opts(&su, opts);
  game_state st;
  agon_err err;
  agon_err_clear(&err);
  int rc = vt->from_position(&st, &su, pos, strlen(pos), &err);
  CHECK_MSG(rc == AGON_EPOSITION, "accepted bad position '%s'", pos);
  CHECK_MSG(err.msg[0] != '\0', "no message for '%s'", pos);
}

static void test_positions(void) {
  roundtrip("", "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 choose 0-0");
  roundtrip("", "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0");
  roundtrip("", "M2E3C1-m3c2M1C3E2/C3M1e2--E1C2E3M2 n 2-1");
  roundtrip("", "M2E3C1-m3c2M1C3E2/C3M1e2--E1C2E3M2 n>f 2-1");
  roundtrip("", "E3M2C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 n! 0-0");
  roundtrip("", G19_7);
  roundtrip("", "E1--------/--------M2 s 8-8");
  roundtrip("", "---------/--------m2 over:captured 8-9");
  roundtrip("variant=advanced", "e3---m1----/--------- over:eliminated 9-7");
  roundtrip("variant=advanced eliminated_are_prisoners=no",
            "e3---m1----/--------- over:eliminated 7-7");
  roundtrip("variant=advanced eliminated_are_prisoners=no", "E3--------/---M3----- s 6-8");
  roundtrip("", "---------/--------- choose 0-0");
  roundtrip("", "---------/--------- place:n 0-0");
  roundtrip("", "E3M3-C3-C2--E2/M3E3C3------ place:s 0-0");
  /* lenient outer blanks, canonical output */
  {
    game_setup su;
    setup_opts(&su, "");
    game_state st;
    agon_err err;
    const char *p = "  E1--------/--------M2   s   8-8 \n";
    CHECK_INT(vt->from_position(&st, &su, p, strlen(p), &err), 0);
    char out[GAME_POSITION_MAX];
    vt->to_position(&st, out, sizeof out);
    CHECK_STR(out, "E1--------/--------M2 s 8-8");
    CHECK_INT(vt->to_position(&st, out, 10), AGON_ENOSPACE);
  }
  static const char *const bad[] = {
      "",
      "garbage",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2",          /* no phase */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s",        /* no prisoners */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 x 0-0",    /* bad phase */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0 x",  /* trailing text */
      "M2E3C1E1M3C2M1C3E2C3M1E2M3C1E1C2E3M2 s 0-0",     /* no slash */
      "M2E3C1E1M3C2M1C3/C3M1E2M3C1E1C2E3M2 s 0-0",      /* 8 cells */
      "M2E3C1E1M3C2M1C3E2E2/C3M1E2M3C1E1C2E3M2 s 0-0",  /* 10 cells */
      "M2M2C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0",    /* twice */
      "M2E4C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-0",    /* E4 */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 1-0",    /* counts */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0-10",   /* > 9 */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s -1-0",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s 0--0",
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 n>j 0-0",  /* bad column */
      "m2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 s>a 0-0",  /* engaged withdrawn */
      "M2E3C1-m3c2M1C3E2/C3M1e2--E1C2E3M2 n>d 2-1",     /* engaged empty */
      "m2e3c1e1m3c2m1c3e2/C3M1E2M3C1E1C2E3M2 s 0-0",    /* no available */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 choose 1-0",
      "m2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 choose 0-0",
      "M2E3C1E1M3C2M1C3-/C3M1E2M3C1E1C2E3M2 choose 0-0", /* not full */
      "M2E3C1E1M3C2M1C3E2/C3M1E2M3C1E1C2E3M2 place:s 0-0", /* complete */
      "E3M3-C3-C2--E2/M3E3C3-C2M2--E2 place:s 0-0",      /* out of order */
      "E2--------/--------- place:s 0-0",                 /* strength 2 first */
      "E1--------/--------M2 over:captured 8-8",         /* both have pieces */
      "E1--------/--------M2 s 8-7",
      "e3---m1----/--------- over:eliminated 9-7",       /* basic variant */
      "E1--------/--------M2 s!! 8-8",
      "E1--------/--------M2 S 8-8",
      "E1--------/--------M2 s 08-8x",
      "E1--------/--------M2 s 8-8;",
      "E1-------- /--------M2 s 8-8",
      "E1--------/--------M2 s 0008-8",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) reject("", bad[i]);
  roundtrip("", "E1--------/--------M2 s! 8-8");
  reject("variant=advanced", "E3--------/---M3----- s 6-8"); /* missing pieces */
  /* garbage bytes never crash */
  uint64_t r = 88172645463325252ULL;
  for (int t = 0; t < 20000; t++) {
    char buf[64];
    game_setup su;
    setup_opts(&su, "");
    game_state st;
    agon_err err;
    size_t n = 0;
    const char *alpha = "ECMecm123-/ sn!>:abcdefghiovrtuplz0789";
    const char *base = "M2E3C1-m3c2M1C3E2/C3M1e2--E1C2E3M2 n>f 2-1";
    strcpy(buf, base);
    n = strlen(buf);
    for (int k = 0; k < 3; k++) {
      r ^= r << 13; r ^= r >> 7; r ^= r << 17;
      buf[r % n] = alpha[(r >> 20) % strlen(alpha)];
    }
    r ^= r << 13; r ^= r >> 7; r ^= r << 17;
    size_t len = n - (r % 4 == 0 ? (r >> 8) % n : 0);
    int rc = vt->from_position(&st, &su, buf, len, &err);
    CHECK(rc == 0 || rc == AGON_EPOSITION);
    if (rc == 0) {
      CHECK_INT(vt->check(&st, &err), 0);
      char out[GAME_POSITION_MAX];
      vt->to_position(&st, out, sizeof out);
      game_state st2;
      CHECK_INT(vt->from_position(&st2, &su, out, strlen(out), &err), 0);
      char out2[GAME_POSITION_MAX];
      vt->to_position(&st2, out2, sizeof out2);
      CHECK_STR(out, out2);
    }
  }
}

/* ---- set-up --------------------------------------------------------------- */

static void test_deal(void) {
  static const char *const names[9] = {"E1", "E2", "E3", "C1", "C2", "C3", "M1", "M2", "M3"};
  for (uint64_t seed = 0; seed < 50; seed++) {
    /* the documented algorithm, written out again */
    game_rng r;
    game_rng_init(&r, seed);
    char want[GAME_POSITION_MAX] = "";
    char rows[2][32];
    for (int x = 0; x < 2; x++) {
      int a[9];
      for (int i = 0; i < 9; i++) a[i] = i;
      for (int i = 8; i >= 1; i--) {
        int j = (int)game_rng_below(&r, (uint32_t)i + 1);
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
      }
      rows[x][0] = '\0';
      for (int i = 0; i < 9; i++) strcat(rows[x], names[a[i]]);
    }
    snprintf(want, sizeof want, "%s/%s choose 0-0", rows[0], rows[1]);
    game_setup su;
    setup_opts(&su, "");
    game_state st;
    agon_err err;
    CHECK_INT(vt->init(&st, &su, seed, &err), 0);
    char got[GAME_POSITION_MAX];
    vt->to_position(&st, got, sizeof got);
    CHECK_STR(got, want);
    /* only south= given: North still as dealt */
    setup_opts(&su, "south=e1,e2,e3,c1,c2,c3,m1,m2,m3");
    CHECK_INT(vt->init(&st, &su, seed, &err), 0);
    vt->to_position(&st, got, sizeof got);
    snprintf(want, sizeof want, "E1E2E3C1C2C3M1M2M3/%s choose 0-0", rows[1]);
    CHECK_STR(got, want);
    setup_opts(&su, "north=m3M2m1C3c2C1e3E2e1");
    CHECK_INT(vt->init(&st, &su, seed, &err), 0);
    vt->to_position(&st, got, sizeof got);
    snprintf(want, sizeof want, "%s/M3M2M1C3C2C1E3E2E1 choose 0-0", rows[0]);
    CHECK_STR(got, want);
  }
  /* strict row validation */
  static const char *const badrows[] = {
      "south=E1,E2,E3,C1,C2,C3,M1,M2",       "south=E1,E2,E3,C1,C2,C3,M1,M2,M3,E1",
      "south=E1,E1,E3,C1,C2,C3,M1,M2,M3",    "north=E1,E2,E3,C1,C2,C3,M1,M2,M4",
      "north=E1,E2,E3,C1,C2,C3,M1,M2,X3",    "south=x",
      "setup=placement north=E1,E2,E3,C1,C2,C3,M1,M2,M3"};
  for (size_t i = 0; i < sizeof badrows / sizeof *badrows; i++) {
    game_setup su;
    setup_opts(&su, badrows[i]);
    game_state st;
    agon_err err;
    CHECK_MSG(vt->init(&st, &su, 1, &err) == AGON_EOPTION, "accepted %s", badrows[i]);
  }
  /* chooser option is declared (the server reads it) */
  CHECK(game_option_index(vt, "chooser") >= 0);
}

static void test_placement(void) {
  game_match m;
  start(&m, "setup=placement", NULL, NULL);
  CHECK_STR(position(&m), "---------/--------- choose 0-0");
  CHECK_STR(legal(&m), "choose north, choose south");
  play(&m, "choose north"); /* A = North places first and acts first */
  CHECK_STR(tomove(&m), "north");
  CHECK_INT(nlegal(&m), 27);
  agon_err err;
  game_move mv;
  CHECK_INT(parse(&m, "place a E2", &mv, &err), AGON_EILLEGAL);
  CHECK(strstr(err.msg, "strength-3") != NULL);
  CHECK_INT(parse(&m, "place E3 a", &mv, &err), 0); /* either order */
  expect_parse(&m, "PLACE a e3", "place a E3");
  expect_err(&m, "place a", AGON_EBADMOVE, NULL);
  expect_err(&m, "engage a", AGON_EILLEGAL, "placement");
  play(&m, "place a E3");
  expect_err(&m, "place a C3", AGON_EILLEGAL, "occupied");
  expect_err(&m, "place b E3", AGON_EILLEGAL, "already placed");
  CHECK_INT(nlegal(&m), 16); /* C3, M3 on 8 squares */
  play(&m, "place i M3");
  play(&m, "place e C3");
  CHECK_STR(tomove(&m), "south"); /* B's strength 3 */
  CHECK_INT(nlegal(&m), 27);
  play(&m, "place a M3");
  play(&m, "place b C3");
  play(&m, "place c E3");
  CHECK_STR(tomove(&m), "north"); /* A's strength 2 */
  expect_err(&m, "place b E1", AGON_EILLEGAL, "strength-2");
  play(&m, "place b E2");
  play(&m, "place c C2");
  play(&m, "place d M2");
  CHECK_STR(tomove(&m), "south");
  play(&m, "place d E2");
  play(&m, "place e C2");
  play(&m, "place f M2");
  CHECK_STR(tomove(&m), "north");
  play(&m, "place f E1");
  play(&m, "place g C1");
  CHECK_STR(legal(&m), "place h M1");
  play(&m, "place h M1");
  CHECK_STR(tomove(&m), "south");
  play(&m, "place g M1");
  play(&m, "place h C1");
  CHECK_STR(legal(&m), "place i E1");
  play(&m, "place i E1");
  CHECK_STR(position(&m), "M3C3E3E2C2M2M1C1E1/E3E2C2M2C3E1C1M1M3 n 0-0");
  CHECK_STR(tomove(&m), "north");
  CHECK_INT(nlegal(&m), 45);
  /* placement with south first */
  start(&m, "setup=placement", NULL, "choose south");
  CHECK_STR(tomove(&m), "south");
  CHECK_STR(position(&m), "---------/--------- place:s 0-0");
}

/* ---- random games: invariants and round trips ---------------------------- */

static void random_games(const char *opts, unsigned games) {
  game_setup su;
  setup_opts(&su, opts);
  uint64_t r = 0x9E3779B97F4A7C15ULL ^ games;
  unsigned max_plies = 0;
  for (unsigned g = 0; g < games; g++) {
    game_match m;
    agon_err err;
    CHECK_INT(game_match_init(&m, &su, g * 7919u + 1, hist, HIST, &err), 0);
    unsigned ply = 0;
    for (;; ply++) {
      CHECK_MSG(vt->check(&m.st, &err) == 0, "%s", err.msg);
      /* pieces on the board + prisoners + eliminated = 18 once dealt */
      json_t *v = game_match_view(&m, GAME_VIEW_ALL);
      const char *phase = json_string_value(json_object_get(v, "phase"));
      long long total = 0;
      for (int s = 0; s < 2; s++) {
        const char *sn = s ? "north" : "south";
        total += json_integer_value(json_object_get(json_object_get(v, "pieces"), sn));
        total += json_integer_value(json_object_get(json_object_get(v, "prisoners"), sn));
        total += json_integer_value(json_object_get(json_object_get(v, "eliminated"), sn));
      }
      if (strcmp(phase, "place") != 0 && !(strcmp(phase, "choose") == 0 && strstr(opts, "placement")))
        CHECK_INT(total, 18);
      if (strstr(opts, "no") == NULL || strstr(opts, "advanced") == NULL) {
        /* prisoners + pieces alone total 18 unless eliminations are not prisoners */
        long long e = json_integer_value(json_object_get(json_object_get(v, "eliminated"), "south")) +
                      json_integer_value(json_object_get(json_object_get(v, "eliminated"), "north"));
        CHECK_INT(e, 0);
      }
      json_decref(v);
      char pos[GAME_POSITION_MAX];
      CHECK(vt->to_position(&m.st, pos, sizeof pos) > 0);
      CHECK(strchr(pos, ';') == NULL);
      game_state st2;
      CHECK_MSG(vt->from_position(&st2, &su, pos, strlen(pos), &err) == 0, "%s: %s", pos, err.msg);
      CHECK(memcmp(&st2, &m.st, vt->state_size) == 0);
      char txt[GAME_TEXT_MAX];
      CHECK(vt->to_text(&m.st, txt, sizeof txt) > 0);
      game_move mv[GAME_MAX_MOVES];
      size_t n = 0;
      CHECK_INT(game_match_legal(&m, mv, GAME_MAX_MOVES, &n), 0);
      if (n == 0) break;
      for (size_t i = 0; i < n; i++) {
        char t[GAME_MOVE_TEXT_MAX], d[GAME_MOVE_TEXT_MAX];
        game_move back;
        CHECK(vt->format_move(&m.st, &mv[i], t, sizeof t) > 0);
        CHECK_MSG(vt->parse_move(&m.st, t, strlen(t), &back, &err) == 0, "%s: %s", t, err.msg);
        CHECK(game_move_eq(&back, &mv[i]));
        CHECK(vt->describe_move(&m.st, &mv[i], d, sizeof d) > 0);
        CHECK_MSG(vt->parse_move(&m.st, d, strlen(d), &back, &err) == 0, "%s: %s", d, err.msg);
        CHECK(game_move_eq(&back, &mv[i]));
      }
      r ^= r << 13;
      r ^= r >> 7;
      r ^= r << 17;
      CHECK_INT(game_match_apply(&m, &mv[r % n], &err), 0);
    }
    game_outcome o = game_match_outcome(&m);
    CHECK(o.result == GAME_WIN);
    CHECK(o.reason != NULL);
    if (ply > max_plies) max_plies = ply;
  }
  /* 17 duels at most, each with an engagement, a response and at most one
   * permutation before it, plus the choice (and 18 placements). */
  CHECK(max_plies <= 1 + 18 + 17 * 3);
}

/* ---- JSON view ------------------------------------------------------------ */

static void test_json(void) {
  game_match m;
  start(&m, L0, NULL, NULL);
  json_t *v = game_match_view(&m, GAME_VIEW_ALL);
  CHECK_STR(json_string_value(json_object_get(v, "to_move")), "chooser");
  CHECK_STR(json_string_value(json_object_get(v, "phase")), "choose");
  json_decref(v);
  start(&m, L0, NULL, "choose north|engage e");
  v = game_match_view(&m, 0);
  json_t *b = json_object_get(v, "board");
  CHECK_INT(json_array_size(json_object_get(b, "south")), 9);
  CHECK_INT(json_array_size(json_object_get(b, "north")), 9);
  CHECK_INT(json_array_size(json_object_get(b, "line")), 18);
  json_t *l9 = json_array_get(json_object_get(b, "line"), 8);
  CHECK_STR(json_string_value(json_object_get(l9, "piece")), "M3");
  CHECK_STR(json_string_value(json_object_get(l9, "side")), "south");
  json_t *se = json_array_get(json_object_get(b, "south"), 4);
  CHECK_STR(json_string_value(json_object_get(se, "state")), "on_line");
  CHECK_INT(json_integer_value(json_object_get(se, "line")), 9);
  json_t *ne = json_array_get(json_object_get(b, "north"), 4);
  CHECK_INT(json_integer_value(json_object_get(ne, "line")), 10);
  CHECK_STR(json_string_value(json_object_get(v, "to_move")), "north");
  CHECK_STR(json_string_value(json_object_get(v, "initiative")), "south");
  CHECK_INT(json_array_size(json_object_get(v, "candidates")), 2);
  json_decref(v);
  start(&m, "", "E1--------/--------M2 s 8-8", "engage a|respond i");
  v = game_match_view(&m, GAME_VIEW_ALL);
  CHECK(json_is_null(json_object_get(v, "to_move")));
  CHECK_STR(json_string_value(json_object_get(v, "winner")), "north");
  json_decref(v);
}

/* ---- perft numbers from tests/data/gambo_2019.counts --------------------- */

static void test_counts(const char *path) {
  FILE *f = fopen(path, "r");
  CHECK_MSG(f != NULL, "cannot open %s", path);
  if (!f) return;
  char line[2048];
  int cases = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0') continue;
    char *field[6];
    char *p = line;
    int nf = 0;
    for (; nf < 6; nf++) {
      field[nf] = p;
      char *semi = strchr(p, ';');
      if (!semi) {
        nf++;
        break;
      }
      *semi = '\0';
      p = semi + 1;
    }
    CHECK_INT(nf, 6);
    if (nf != 6) continue;
    unsigned long long nodes = strtoull(field[5], NULL, 10);
    unsigned depth = (unsigned)strtoul(field[4], NULL, 10);
    if (nodes > 3000000ULL) continue; /* keep the suite fast; the runner does more */
    game_match m;
    char moves[1024];
    snprintf(moves, sizeof moves, "%s", field[3]);
    for (char *c = moves; *c; c++)
      if (*c == ',') *c = '|';
    game_setup su;
    setup_opts(&su, field[0]);
    agon_err err;
    uint64_t seed = strtoull(field[1], NULL, 10);
    int rc = field[2][0] ? game_match_init_position(&m, &su, field[2], strlen(field[2]), hist, HIST, &err)
                         : game_match_init(&m, &su, seed, hist, HIST, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) continue;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", moves);
    for (char *tok = strtok(buf, "|"); tok; tok = strtok(NULL, "|")) play(&m, tok);
    CHECK_U64(game_perft(vt, &m.st, depth), nodes);
    cases++;
  }
  fclose(f);
  CHECK(cases >= 4);
}

int main(int argc, char **argv) {
  vt = game_find("gambo-2019");
  CHECK(vt != NULL);
  if (!vt) return test_summary();
  CHECK_INT(vt->state_size <= GAME_STATE_MAX, 1);
  test_g19_1();
  test_g19_2();
  test_g19_3();
  test_g19_4_5();
  test_g19_6();
  test_g19_7_8();
  test_g19_9();
  test_g19_10();
  test_g19_11();
  test_notation();
  test_positions();
  test_deal();
  test_placement();
  test_json();
  static const char *const optsets[] = {
      "", "variant=advanced", "variant=advanced eliminated_are_prisoners=no",
      "permute_withdrawn=yes", "setup=placement", "setup=placement variant=advanced"};
  for (size_t i = 0; i < sizeof optsets / sizeof *optsets; i++) random_games(optsets[i], 120);
  if (argc > 1) test_counts(argv[1]);
  return test_summary();
}
