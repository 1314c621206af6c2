/* test_gok_rules.c - every scenario of section 5 of the Gambit of Kings spec
 * (exact legal-move sets and results), options, notation, positions. */
#include "gok_util.h"

static const game_vtable *vt;

/* Setup from "k=v k=v" (may be empty). */
static game_setup mk_setup(const char *opts) {
  game_setup s;
  game_setup_init(&s, vt);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", opts);
  for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
    agon_err err;
    if (game_setup_set_kv(&s, t, &err) < 0) {
      fprintf(stderr, "bad option %s: %s\n", t, err.msg);
      exit(1);
    }
  }
  return s;
}

static game_state load(const char *opts, const char *pos) {
  game_setup s = mk_setup(opts);
  game_state st;
  agon_err err;
  int rc = vt->from_position(&st, &s, pos, strlen(pos), &err);
  CHECK_MSG(rc == 0, "from_position(%s): %s", pos, err.msg);
  /* Every spec position round-trips to the very same string. */
  char back[GAME_POSITION_MAX];
  CHECK(vt->to_position(&st, back, sizeof back) > 0);
  CHECK_STR(back, pos);
  return st;
}

/* Assert the moves of the piece on `from` (NULL: all moves) equal `want`. */
#define CHECK_MOVES(st, from, want)                          \
  do {                                                       \
    char got_[8192], exp_[8192];                             \
    gok_moves_text(vt, &(st), (from), got_, sizeof got_);    \
    gok_sorted((want), exp_, sizeof exp_);                   \
    CHECK_STR(got_, exp_);                                   \
  } while (0)

/* Play text on st; returns rc. */
static int play(game_state *st, const char *text) {
  game_move m;
  agon_err err;
  int rc = vt->parse_move(st, text, strlen(text), &m, &err);
  if (rc < 0) return rc;
  return vt->apply(st, &m, &err);
}

static int count_moves(const game_state *st) {
  static game_move mv[GAME_MAX_MOVES];
  size_t n = 0;
  vt->legal_moves(st, mv, GAME_MAX_MOVES, &n);
  return (int)n;
}

static void check_state(const game_state *st) {
  agon_err err;
  int rc = vt->check(st, &err);
  CHECK_MSG(rc == 0, "check: %s", err.msg);
}

static const char *to_pos(const game_state *st) {
  static char buf[GAME_POSITION_MAX];
  vt->to_position(st, buf, sizeof buf);
  return buf;
}

static void test_gk1(void) {
  game_setup s = mk_setup("first=light");
  game_state st;
  CHECK_INT(vt->init(&st, &s, 7, NULL), 0);
  CHECK_MOVES(st, NULL,
              "a2-a3 a2-a4 b2-a3 b2-c3 b2-d4 c1-c3 c1-c4 c2-c3 c2-c4 "
              "d2-b4 d2-c3 d2-e3 d2-f4 e2-e3 e2-e4 f2-d4 f2-e3 f2-g3 f2-h4 "
              "g2-g3 g2-g4 h1-h3 h1-h4 h2-f4 h2-g3 h2-i3 h2-j4 i2-i3 i2-i4 "
              "j2-h4 j2-i3");
  CHECK_STR(to_pos(&st),
            "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0");
  static const uint64_t want[] = {1, 31, 961, 35661, 1322020};
  for (unsigned d = 0; d <= 4; d++) CHECK_U64(game_perft(vt, &st, d), want[d]);
  check_state(&st);
  /* Dark's reply count is also 31 (mirror), as first mover or after a move. */
  game_setup sd = mk_setup("first=dark");
  game_state std_;
  vt->init(&std_, &sd, 7, NULL);
  CHECK_INT(count_moves(&std_), 31);
  /* Dark's moves are Light's rotated by 180 degrees. */
  CHECK_MOVES(std_, NULL,
              "j9-j8 j9-j7 i9-j8 i9-h8 i9-g7 h10-h8 h10-h7 h9-h8 h9-h7 "
              "g9-i7 g9-h8 g9-f8 g9-e7 f9-f8 f9-f7 e9-g7 e9-f8 e9-d8 e9-c7 "
              "d9-d8 d9-d7 c10-c8 c10-c7 c9-e7 c9-d8 c9-b8 c9-a7 b9-b8 b9-b7 "
              "a9-c7 a9-b8");
  CHECK(play(&st, "e2-e4") == 0);
  CHECK_INT(count_moves(&st), 31);
  /* first=random: the seed's first draw decides (0 light, 1 dark). */
  game_setup sr = mk_setup("");
  for (uint64_t seed = 0; seed < 20; seed++) {
    game_rng r;
    game_rng_init(&r, seed);
    int first = (int)game_rng_below(&r, 2);
    vt->init(&st, &sr, seed, NULL);
    CHECK_INT(vt->to_move(&st), first);
  }
}

static void test_gk2(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 cf10 Le5", 'l', 0, 0, 0, 0);
  game_state st = load("", pos);
  CHECK_MOVES(st, "e5",
              "e5-b3 e5-b7 e5-c2 e5-c4 e5-c6 e5-c8 e5-d3 e5-d5 e5-d7 e5-e4 "
              "e5-e6 e5-f3 e5-f5 e5-f7 e5-g2 e5-g4 e5-g6 e5-g8 e5-h3 e5-h7");
  /* The Lion in a corner: only the in-board part of the pattern. */
  gok_pos(pos, sizeof pos, "Ce1 cf10 La1", 'l', 0, 0, 0, 0);
  st = load("", pos);
  CHECK_MOVES(st, "a1", "a1-a2 a1-b3 a1-c4 a1-b1 a1-c2 a1-d3");
}

static void test_gk3(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "cf10 ec6 Se6 Le5 sf5 Sg2 Ce1", 'l', 0, 0, 0, 0);
  game_state st = load("", pos);
  CHECK_MOVES(st, "e5",
              "e5xf5 e5-e4 e5-f3 e5-d3 e5-c2 e5-d5 e5xc6 e5-c4 e5-b3");
  agon_err err;
  game_move m;
  CHECK_INT(vt->parse_move(&st, "e5-f7", 5, &m, &err), AGON_EILLEGAL);
  CHECK_INT(vt->parse_move(&st, "e5-b7", 5, &m, &err), AGON_EILLEGAL);
  CHECK_INT(vt->parse_move(&st, "e5-g2", 5, &m, &err), AGON_EILLEGAL);
  CHECK(strstr(err.msg, "friendly") != NULL);
}

static void test_gk4(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 cf10 Sb4 Sd4 Sg4 Si4 se4 sg5 eb6 ti5", 'l', 0, 0,
          0, 0);
  game_state st = load("", pos);
  CHECK_MOVES(st, "d4", "d4-c4 d4xe4 d4-d5 d4-d6");
  CHECK_MOVES(st, "g4", "g4-f4 g4-h4 g4xg5");
  CHECK_MOVES(st, "b4", "b4-a4 b4-c4 b4-b5");
  CHECK_MOVES(st, "i4", "i4-h4 i4-j4");
  agon_err err;
  game_move m;
  CHECK_INT(vt->parse_move(&st, "i4xi5", 5, &m, &err), AGON_EILLEGAL);
  CHECK(strstr(err.msg, "lesser") != NULL);
  CHECK_INT(vt->parse_move(&st, "b4-b6", 5, &m, &err), AGON_EILLEGAL);
  CHECK_INT(vt->parse_move(&st, "g4-g6", 5, &m, &err), AGON_EILLEGAL);
  /* Dark's Skeletons move towards rank 1, double step included. */
  gok_pos(pos, sizeof pos, "Ce1 cf10 se7 Ti3", 'd', 0, 0, 0, 0);
  st = load("", pos);
  CHECK_MOVES(st, "e7", "e7-d7 e7-f7 e7-e6 e7-e5");
}

static void test_gk5(void) {
  char pos[GAME_POSITION_MAX];
  /* (a) one promoted Knight already: capturing a greater piece promotes. */
  gok_pos(pos, sizeof pos, "Ce1 cf10 Sd7 +Ka3 kd8", 'l', 0, 0, 1, 0);
  game_state st = load("", pos);
  CHECK_MOVES(st, "d7", "d7-c7 d7-e7 d7xd8=K");
  game_state a = st;
  CHECK_INT(play(&a, "d7xd8"), 0);
  check_state(&a);
  CHECK_STR(to_pos(&a), "5c4/10/3+K6/10/10/10/10/+K9/10/4C5 d 0 0 2 0");
  json_t *j = vt->to_json(&a, GAME_VIEW_ALL);
  CHECK_INT(json_integer_value(json_object_get(
                json_object_get(j, "promoted_on_board"), "light")), 2);
  json_decref(j);
  a = st;
  CHECK_INT(play(&a, "D7XD8=k"), 0);
  CHECK_STR(to_pos(&a), "5c4/10/3+K6/10/10/10/10/+K9/10/4C5 d 0 0 2 0");
  /* (b) two promoted Knights: legal, but the Soldier stays a Soldier. */
  gok_pos(pos, sizeof pos, "Ce1 cf10 Sd7 +Ka3 +Kb3 kd8", 'l', 0, 0, 2, 0);
  st = load("", pos);
  CHECK_MOVES(st, "d7", "d7-c7 d7-e7 d7xd8");
  game_move m;
  agon_err err;
  CHECK_INT(vt->parse_move(&st, "d7xd8=K", 7, &m, &err), AGON_EILLEGAL);
  CHECK_INT(play(&st, "d7xd8"), 0);
  CHECK_STR(to_pos(&st), "5c4/10/3S6/10/10/10/10/+K+K8/10/4C5 d 0 0 2 0");
  check_state(&st);
}

static void test_gk6(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 cf10 Sc9 +Ka3 +Kb3 kb6", 'l', 0, 0, 2, 0);
  game_state st = load("", pos);
  CHECK_MOVES(st, "c9", "c9-b9 c9-d9 c9-c10");
  CHECK_INT(play(&st, "c9-c10"), 0);
  CHECK_STR(to_pos(&st), "2S2c4/10/10/10/1k8/10/10/+K+K8/10/4C5 d 0 0 2 0");
  /* Cap still reached (Dark plays elsewhere): only sideways steps remain. */
  game_state side = st;
  CHECK_INT(play(&side, "b6-b7"), 0);
  CHECK_MOVES(side, "c10", "c10-b10 c10-d10");
  /* Dark destroys a promoted Knight: a slot frees, no automatic promotion. */
  CHECK_INT(play(&st, "b6xb3"), 0);
  CHECK_STR(to_pos(&st), "2S2c4/10/10/10/10/10/10/+Kk8/10/4C5 l 0 0 2 0");
  CHECK_MOVES(st, "c10", "c10-b10=K c10-d10=K");
  char text[GAME_MOVE_TEXT_MAX];
  game_move m;
  agon_err err;
  CHECK_INT(vt->parse_move(&st, "c10-d10", 7, &m, &err), 0);
  vt->format_move(&st, &m, text, sizeof text);
  CHECK_STR(text, "c10-d10=K");
  vt->apply(&st, &m, &err);
  json_t *j = vt->to_json(&st, GAME_VIEW_ALL);
  CHECK_INT(json_integer_value(json_object_get(
                json_object_get(j, "promoted_on_board"), "light")), 2);
  json_decref(j);
  CHECK_STR(to_pos(&st), "3+K1c4/10/10/10/10/10/10/+Kk8/10/4C5 d 0 0 3 0");
  check_state(&st);
}

static void test_gk7(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 cf10 Sc5 sc4 Gc3 te3", 'l', 0, 0, 0, 0);
  game_state st = load("", pos);
  CHECK_MOVES(st, "c3", "c3xc4 c3-c6 c3-d3 c3xe3 c3-b3 c3-a3 c3-c2 c3-c1");
  gok_pos(pos, sizeof pos, "Ce1 cf10 Gd1", 'l', 0, 0, 0, 0);
  st = load("", pos);
  CHECK_MOVES(st, "d1", "d1-a1 d1-b1 d1-c1 d1-d2 d1-d3 d1-d4 d1-f1 d1-g1");
  /* A friendly Giant stops the flight too (decision 11). */
  gok_pos(pos, sizeof pos, "Ce1 cf10 Gd1 Td3", 'l', 0, 0, 0, 0);
  st = load("", pos);
  CHECK_MOVES(st, "d1", "d1-a1 d1-b1 d1-c1 d1-d2 d1-f1 d1-g1");
}

static void test_gk8(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 cf10 Te4 ef5", 'l', 0, 0, 0, 0);
  game_state st = load("", pos);
  CHECK_MOVES(st, "e4",
              "e4-e5 e4-e6 e4-e7 e4-d5 e4-c6 e4-b7 e4-f4 e4-g4 e4-h4 e4-d4 "
              "e4-c4 e4-b4 e4xf5");
  gok_pos(pos, sizeof pos, "Ce1 cf10 Te4 ef5", 'd', 0, 0, 0, 0);
  st = load("", pos);
  CHECK_MOVES(st, "f5", "f5-g6 f5-h7 f5-e6 f5-d7 f5-g4 f5-h3");
  game_move m;
  agon_err err;
  CHECK_INT(vt->parse_move(&st, "f5xe4", 5, &m, &err), AGON_EILLEGAL);
  gok_pos(pos, sizeof pos, "Ce1 cf10 Te4", 'l', 0, 0, 0, 0);
  st = load("", pos);
  CHECK_MOVES(st, "e4",
              "e4-e5 e4-e6 e4-e7 e4-d5 e4-c6 e4-b7 e4-f4 e4-g4 e4-h4 e4-d4 "
              "e4-c4 e4-b4 e4-f5 e4-g6 e4-h7");
  /* Dark's Ogre: forward is towards rank 1. */
  gok_pos(pos, sizeof pos, "Ce1 cf10 te7", 'd', 0, 0, 0, 0);
  st = load("", pos);
  CHECK_MOVES(st, "e7",
              "e7-e6 e7-e5 e7-e4 e7-d6 e7-c5 e7-b4 e7-f6 e7-g5 e7-h4 e7-d7 "
              "e7-c7 e7-b7 e7-f7 e7-g7 e7-h7");
}

static void test_gk9(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 cf10 Pf3", 'l', 0, 0, 0, 0);
  game_state st = load("", pos);
  char got[4096];
  gok_moves_text(vt, &st, "f3", got, sizeof got);
  CHECK(strstr(got, "f3xf10") != NULL);
  CHECK_INT(count_moves(&st), 31);
  CHECK_INT(play(&st, "f3-f10"), 0); /* capture decided by the board */
  game_outcome o = vt->outcome(&st);
  CHECK_INT(o.result, GAME_WIN);
  CHECK_INT(o.winner, GAME_SIDE0);
  CHECK_STR(o.reason, "castle_captured");
  CHECK_INT(vt->to_move(&st), GAME_NOBODY);
  CHECK_INT(count_moves(&st), 0);
  game_move m;
  agon_err err;
  CHECK_INT(vt->parse_move(&st, "e1-e2", 5, &m, &err), AGON_EGAMEOVER);
  CHECK_STR(to_pos(&st), "5P4/10/10/10/10/10/10/10/10/4C5 d 0 0 0 0");
  check_state(&st);
  /* The finished position reloads as finished. */
  game_state again = load("", to_pos(&st));
  CHECK_INT(vt->outcome(&again).result, GAME_WIN);
  json_t *j = vt->to_json(&st, GAME_VIEW_ALL);
  CHECK(json_is_null(json_object_get(j, "to_move")));
  CHECK(json_is_null(json_object_get(json_object_get(j, "castles"), "dark")));
  json_decref(j);
  /* A lesser piece may destroy a Castle (decision 15); a Soldier doing it
   * destroys a greater piece, so it promotes (decision in the docs). */
  gok_pos(pos, sizeof pos, "Ce1 cf10 Sf9", 'l', 0, 0, 0, 0);
  st = load("", pos);
  CHECK_MOVES(st, "f9", "f9-e9 f9-g9 f9xf10=K");
}

static void test_gk10(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "cf10 ej10 Ce1 Ti9", 'd', 0, 0, 0, 0);
  game_state st = load("", pos);
  CHECK_INT(count_moves(&st), 0);
  game_outcome o = vt->outcome(&st);
  CHECK_INT(o.result, GAME_WIN);
  CHECK_INT(o.winner, GAME_SIDE0);
  CHECK_STR(o.reason, "no_moves");
  CHECK_INT(vt->to_move(&st), GAME_NOBODY);
  st = load("no_move=draw", pos);
  o = vt->outcome(&st);
  CHECK_INT(o.result, GAME_DRAW);
  CHECK_STR(o.reason, "no_moves");
}

static void test_gk11(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 cf10 Ed4 Se5 sc5 te3", 'l', 0, 0, 0, 0);
  game_state st = load("", pos);
  CHECK_MOVES(st, "d4", "d4xc5 d4-c3 d4-b2");
}

static void test_gk12(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 cf10 Sd5 le5", 'l', 0, 0, 0, 0);
  game_state st = load("", pos);
  CHECK_MOVES(st, "d5", "d5-c5 d5-d6 d5-d7 d5xe5=K");
  CHECK_INT(play(&st, "d5xe5"), 0);
  CHECK_STR(to_pos(&st), "5c4/10/10/10/10/4+K5/10/10/10/4C5 d 0 0 1 0");
}

static void test_gk13(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 Ka1 cf10 kj10", 'l', 0, 0, 0, 0);
  static const char *const line[] = {"a1-a2", "j10-j9", "a2-a1", "j9-j10",
                                     "a1-a2", "j10-j9", "a2-a1", "j9-j10"};
  for (int rep = 0; rep <= 1; rep++) {
    game_setup s = mk_setup(rep ? "repetition=0" : "repetition=3");
    uint64_t hist[64];
    game_match m;
    agon_err err;
    CHECK_INT(game_match_init_position(&m, &s, pos, strlen(pos), hist, 64, &err), 0);
    for (int i = 0; i < 8; i++) {
      CHECK_INT(game_match_outcome(&m).result, GAME_ONGOING);
      CHECK_INT(game_match_play(&m, line[i], strlen(line[i]), NULL, &err), 0);
    }
    game_outcome o = game_match_outcome(&m);
    if (rep == 0) {
      CHECK_INT(o.result, GAME_DRAW);
      CHECK_STR(o.reason, "repetition");
      CHECK_INT(game_match_play(&m, "a1-a2", 5, NULL, &err), AGON_EGAMEOVER);
    } else {
      CHECK_INT(o.result, GAME_ONGOING);
      CHECK_INT(game_match_play(&m, "a1-a2", 5, NULL, &err), 0);
    }
  }
  {
    game_setup s1 = mk_setup("repetition=1");
    game_state st;
    agon_err err;
    CHECK_INT(vt->init(&st, &s1, 0, &err), AGON_EOPTION);
    CHECK_INT(vt->from_position(&st, &s1, pos, strlen(pos), &err), AGON_EOPTION);
  }
  /* Sideways Soldier steps are reversible: they do not hide repetitions
   * (the window counts from the last irreversible move only). */
  gok_pos(pos, sizeof pos, "Ce1 Sa4 cf10 kj10", 'l', 0, 0, 0, 0);
  static const char *const line2[] = {"a4-b4", "j10-j9", "b4-a4", "j9-j10",
                                      "a4-b4", "j10-j9", "b4-a4", "j9-j10"};
  game_setup s = mk_setup("");
  uint64_t hist[64];
  game_match m;
  agon_err err;
  game_match_init_position(&m, &s, pos, strlen(pos), hist, 64, &err);
  for (int i = 0; i < 8; i++)
    CHECK_INT(game_match_play(&m, line2[i], strlen(line2[i]), NULL, &err), 0);
  CHECK_INT(game_match_outcome(&m).result, GAME_DRAW);
}

static void test_quiet_plies(void) {
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 Ka1 cf10 kj10", 'l', 98, 98, 0, 0);
  game_state st = load("repetition=0", pos);
  CHECK_INT(play(&st, "a1-a2"), 0);
  CHECK_INT(vt->outcome(&st).result, GAME_ONGOING);
  CHECK_INT(play(&st, "j10-j9"), 0);
  game_outcome o = vt->outcome(&st);
  CHECK_INT(o.result, GAME_DRAW);
  CHECK_STR(o.reason, "quiet_plies");
  CHECK_INT(count_moves(&st), 0);
  /* quiet_plies=0 disables it. */
  st = load("quiet_plies=0", pos);
  play(&st, "a1-a2");
  play(&st, "j10-j9");
  CHECK_INT(vt->outcome(&st).result, GAME_ONGOING);
  /* Soldier moves (sideways too) and captures reset the counter; a promoted
   * Knight's move is quiet. */
  gok_pos(pos, sizeof pos, "Ce1 Sa4 +Kb1 cf10 kj10", 'l', 50, 50, 1, 0);
  st = load("", pos);
  play(&st, "a4-b4");
  CHECK_STR(to_pos(&st), "5c3k/10/10/10/10/10/1S8/10/10/1+K2C5 d 0 51 1 0");
  play(&st, "j10-j9");
  play(&st, "b1-b2");
  CHECK_STR(to_pos(&st), "5c4/9k/10/10/10/10/1S8/10/1+K8/4C5 d 2 53 1 0");
  play(&st, "j9-j8");
  play(&st, "b4-b5");
  CHECK_STR(to_pos(&st), "5c4/10/9k/10/10/1S8/10/10/1+K8/4C5 d 0 0 1 0");
  /* quiet must not exceed the option's limit in a loaded position. */
  game_setup s = mk_setup("quiet_plies=10");
  game_state tmp;
  agon_err err;
  gok_pos(pos, sizeof pos, "Ce1 cf10", 'l', 11, 0, 0, 0);
  CHECK_INT(vt->from_position(&tmp, &s, pos, strlen(pos), &err), AGON_EPOSITION);
}

static void test_cap_options(void) {
  char pos[GAME_POSITION_MAX];
  /* total_on_board: Knights of any origin, 2 + knight_cap_n. */
  gok_pos(pos, sizeof pos, "Ce1 cf10 Ka1 Kj1 +Ka3 Sd7 kd8", 'l', 0, 0, 1, 0);
  game_state st = load("knight_cap=total_on_board", pos);
  CHECK_MOVES(st, "d7", "d7-c7 d7-e7 d7xd8=K");
  gok_pos(pos, sizeof pos, "Ce1 cf10 Ka1 Kj1 +Ka3 +Kb3 Sd7 kc7", 'l', 0, 0, 2, 0);
  st = load("knight_cap=total_on_board", pos);
  CHECK_MOVES(st, "d7", "d7xc7 d7-e7 d7-d8 d7-d9");
  /* Original Knights lost: promotions are allowed again up to 4 Knights. */
  gok_pos(pos, sizeof pos, "Ce1 cf10 +Ka3 +Kb3 +Kc3 Sd7 kc7", 'l', 0, 0, 3, 0);
  st = load("knight_cap=total_on_board", pos);
  CHECK_MOVES(st, "d7", "d7xc7=K d7-e7 d7-d8 d7-d9");
  gok_pos(pos, sizeof pos, "Ce1 cf10 Ka1 Kj1 +Ka3 Sd7 kc7", 'l', 0, 0, 1, 0);
  st = load("knight_cap=total_on_board knight_cap_n=1", pos);
  CHECK_MOVES(st, "d7", "d7xc7 d7-e7 d7-d8 d7-d9");
  /* promotions_per_game: a destroyed promoted Knight frees nothing. */
  gok_pos(pos, sizeof pos, "Ce1 cf10 Sd7 kd8", 'l', 0, 0, 2, 0);
  st = load("knight_cap=promotions_per_game", pos);
  CHECK_MOVES(st, "d7", "d7-c7 d7-e7 d7xd8");
  st = load("", pos);
  CHECK_MOVES(st, "d7", "d7-c7 d7-e7 d7xd8=K");
  /* none: no limit. */
  gok_pos(pos, sizeof pos, "Ce1 cf10 Sd7 kd8 +Ka3 +Kb3 +Kc3", 'l', 0, 0, 3, 0);
  st = load("knight_cap=none", pos);
  CHECK_MOVES(st, "d7", "d7-c7 d7-e7 d7xd8=K");
  /* ... but 3 promoted Knights break the default cap: rejected. */
  game_setup s = mk_setup("");
  agon_err err;
  CHECK_INT(vt->from_position(&st, &s, pos, strlen(pos), &err), AGON_EPOSITION);
  /* knight_cap_n=0: never promote. */
  gok_pos(pos, sizeof pos, "Ce1 cf10 Sd9", 'l', 0, 0, 0, 0);
  st = load("knight_cap_n=0", pos);
  CHECK_MOVES(st, "d9", "d9-c9 d9-e9 d9-d10");
}

static void test_notation(void) {
  game_setup s = mk_setup("first=light");
  game_state st;
  vt->init(&st, &s, 0, NULL);
  game_move m, ref;
  agon_err err;
  CHECK_INT(vt->parse_move(&st, "e2-e4", 5, &ref, &err), 0);
  static const char *const ok[] = {"e2e4", "E2-E4", " e2 - e4 ", "e2xe4",
                                   "\te2E4\n", "E 2 X E 4"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    CHECK_MSG(vt->parse_move(&st, ok[i], strlen(ok[i]), &m, &err) == 0 &&
                  game_move_eq(&m, &ref),
              "'%s' should parse as e2-e4 (%s)", ok[i], err.msg);
  }
  static const char *const bad[] = {"", "e2", "e2-", "k2-k4", "e0-e4", "e11-e4",
                                    "e2--e4", "e2-e4+", "e2-e4=Q", "e2-e4=",
                                    "e02-e4", "e2-e4x", "pass", "e2:e4",
                                    "e2-e4=K=K", "e2-e4 garbage"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK_MSG(vt->parse_move(&st, bad[i], strlen(bad[i]), &m, &err) == AGON_EBADMOVE,
              "'%s' should be bad notation", bad[i]);
  CHECK_INT(vt->parse_move(&st, "e2\0e4", 5, &m, &err), AGON_EBADMOVE);
  CHECK_INT(vt->parse_move(&st, "e9-e8", 5, &m, &err), AGON_EILLEGAL);
  CHECK_STR(err.msg, "e9 holds no piece of the side to move");
  CHECK_INT(vt->parse_move(&st, "e1-e2", 5, &m, &err), AGON_EILLEGAL);
  CHECK_INT(vt->parse_move(&st, "e5-e6", 5, &m, &err), AGON_EILLEGAL);
  CHECK_INT(vt->parse_move(&st, "e2-e5", 5, &m, &err), AGON_EILLEGAL);
  CHECK_INT(vt->parse_move(&st, "e2-e2", 5, &m, &err), AGON_EILLEGAL);
  CHECK_INT(vt->parse_move(&st, "e2-e4=K", 7, &m, &err), AGON_EILLEGAL);
  /* Ranks 10 and 1 never mix up without a separator. */
  char pos[GAME_POSITION_MAX];
  gok_pos(pos, sizeof pos, "Ce1 cf10 Ka10", 'l', 0, 0, 0, 0);
  st = load("", pos);
  CHECK_INT(vt->parse_move(&st, "a10a9", 5, &m, &err), 0);
  char text[GAME_MOVE_TEXT_MAX];
  vt->format_move(&st, &m, text, sizeof text);
  CHECK_STR(text, "a10-a9");
  CHECK_INT(vt->format_move(&st, &m, text, 6), AGON_ENOSPACE);
}

static void test_positions(void) {
  game_setup s = mk_setup("");
  game_state st;
  agon_err err;
  static const char *const good[] = {
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK d 17 3 0 0",
      "5c4/10/10/10/10/4+K5/10/10/10/4C5 d 0 0 1 0",
      "3+k1c4/10/10/10/10/10/10/+K1k7/10/4C5 d 0 0 2 1",
      "5P4/10/10/10/10/10/10/10/10/4C5 d 0 0 0 0",
      "5c4/10/10/10/10/10/10/10/10/4C5 l 65535 65535 5 5",
  };
  game_setup none = mk_setup("quiet_plies=0");
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    int rc = vt->from_position(&st, &none, good[i], strlen(good[i]), &err);
    CHECK_MSG(rc == 0, "'%s' rejected: %s", good[i], err.msg);
    if (rc == 0) {
      CHECK_STR(to_pos(&st), good[i]);
      check_state(&st);
    }
  }
  static const char *const bad[] = {
      "",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK x 0 0 0 0",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0 ",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK  l 0 0 0 0",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 01 0 0 0",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 6",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 65536 0 0",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l -1 0 0 0",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE l 0 0 0 0",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK/10 l 0 0 0 0",
      "klgtpctglk/esesesese/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      "klgtpctglk/esesesesess/10/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      "klgtpctglk/eseseseses/55/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      "klgtpctglk/eseseseses/010/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      "klgtpctglk/eseseseses/0/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      "klgtpctglk/eseseseses/11/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      "klgtpctglk/eseseseses/10/10/10/10/10/10/SESESESESE/KLGTCPTGLQ l 0 0 0 0",
      "klgtpctglk/eseseseses/+S9/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      "klgtpctglk/eseseseses/9+/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      /* too many pieces of a kind */
      "klgtpctglk/eseseseses/P9/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      "klgtpctglk/eseseseses/S9/10/10/10/10/10/SESESESESE/KLGTCPTGLK l 0 0 0 0",
      /* two Castles of one side, none of the other */
      "5C4/10/10/10/10/10/10/10/10/4C5 l 0 0 0 0",
      /* both Castles gone */
      "10/10/10/10/10/10/10/10/10/10 l 0 0 0 0",
      /* a Castle gone but the winner to move */
      "5P4/10/10/10/10/10/10/10/10/4C5 l 0 0 0 0",
      "5P4/10/10/10/10/10/10/10/10/4C5 d 1 0 0 0",
      /* Soldier on its own back rank */
      "5c4/10/10/10/10/10/10/10/10/S3C5 l 0 0 0 0",
      "5c3s/10/10/10/10/10/10/10/10/4C5 l 0 0 0 0",
      /* promoted Knights without promotions, too many promotions */
      "5c4/10/10/10/10/4+K5/10/10/10/4C5 d 0 0 0 0",
      "5c4/10/10/10/10/4S5/10/10/10/4C5 d 0 0 5 0",
      /* promoted Knights over the default cap */
      "5c4/10/10/10/10/+K+K+K7/10/10/10/4C5 d 0 0 3 0",
      /* control characters, NUL */
      "5c4/10/10/10/10/10/10/10/10/4C5\tl 0 0 0 0",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int rc = vt->from_position(&st, &s, bad[i], strlen(bad[i]), &err);
    CHECK_MSG(rc == AGON_EPOSITION, "'%s' accepted (rc %d)", bad[i], rc);
    if (rc == AGON_EPOSITION) CHECK(err.msg[0] != '\0');
  }
  const char nul[] = "5c4/10/10/10/10/10/10/10/10/4C5 l 0 0 0 0\0";
  CHECK_INT(vt->from_position(&st, &s, nul, sizeof nul - 1, &err), AGON_EPOSITION);
  /* Truncations of a valid position never crash and are all rejected. */
  const char *full = good[3];
  for (size_t n = 0; n < strlen(full); n++)
    CHECK_MSG(vt->from_position(&st, &s, full, n, &err) == AGON_EPOSITION,
              "prefix %zu accepted", n);
}

static void test_views(void) {
  game_setup s = mk_setup("first=light");
  game_state st;
  vt->init(&st, &s, 0, NULL);
  json_t *j = vt->to_json(&st, GAME_VIEW_ALL);
  CHECK_STR(json_string_value(json_object_get(j, "to_move")), "light");
  json_t *b = json_object_get(j, "board");
  CHECK_INT(json_array_size(b), 10);
  CHECK_STR(json_string_value(json_array_get(b, 0)), "klgtpctglk");
  CHECK_STR(json_string_value(json_array_get(b, 9)), "KLGTCPTGLK");
  CHECK_INT(json_array_size(json_object_get(j, "pieces")), 40);
  CHECK_STR(json_string_value(json_object_get(json_object_get(j, "castles"), "dark")),
            "f10");
  json_decref(j);
  char text[GAME_TEXT_MAX];
  CHECK(vt->to_text(&st, text, sizeof text) > 0);
  CHECK(strstr(text, " 10  k l g t p c t g l k  10") != NULL);
  CHECK(strstr(text, "  1  K L G T C P T G L K  1") != NULL);
  CHECK_INT(vt->to_text(&st, text, 10), AGON_ENOSPACE);
  CHECK_INT(vt->to_position(&st, text, 10), AGON_ENOSPACE);
}

/* Random games: every layer's round trips on every position. */
static void test_random_games(void) {
  static game_move mv[GAME_MAX_MOVES];
  unsigned ended = 0, games = 200;
  for (uint64_t seed = 1; seed <= games; seed++) {
    game_setup s = mk_setup("");
    uint64_t hist[1024];
    game_match m;
    agon_err err;
    game_match_init(&m, &s, seed, hist, 1024, &err);
    game_rng r;
    game_rng_init(&r, seed * 7919);
    int bad = 0;
    for (int ply = 0; ply < 5000 && !bad; ply++) {
      size_t n = 0;
      game_match_legal(&m, mv, GAME_MAX_MOVES, &n);
      if (n == 0) break;
      const game_move *pick = &mv[game_rng_below(&r, (uint32_t)n)];
      char text[GAME_MOVE_TEXT_MAX], pos[GAME_POSITION_MAX], pos2[GAME_POSITION_MAX];
      vt->format_move(&m.st, pick, text, sizeof text);
      game_move back;
      if (vt->parse_move(&m.st, text, strlen(text), &back, &err) != 0 ||
          !game_move_eq(&back, pick)) {
        TEST_FAIL_("seed %" PRIu64 ": '%s' does not round-trip", seed, text);
        bad = 1;
      }
      CHECK_INT(game_match_apply(&m, pick, &err), 0);
      if (vt->check(&m.st, &err) != 0) {
        TEST_FAIL_("seed %" PRIu64 " after %s: check: %s", seed, text, err.msg);
        bad = 1;
      }
      vt->to_position(&m.st, pos, sizeof pos);
      game_state st2;
      if (vt->from_position(&st2, &s, pos, strlen(pos), &err) != 0) {
        TEST_FAIL_("seed %" PRIu64 ": '%s' does not load: %s", seed, pos, err.msg);
        bad = 1;
        continue;
      }
      vt->to_position(&st2, pos2, sizeof pos2);
      if (strcmp(pos, pos2) != 0 || memcmp(&st2, &m.st, vt->state_size) != 0 ||
          vt->hash(&st2) != vt->hash(&m.st)) {
        TEST_FAIL_("seed %" PRIu64 ": position '%s' does not round-trip", seed, pos);
        bad = 1;
      }
    }
    if (game_match_outcome(&m).result != GAME_ONGOING) ended++;
    else TEST_FAIL_("seed %" PRIu64 ": game did not end", seed);
  }
  CHECK_INT(ended, games);
}

/* Garbage and mutated inputs: never crash, only the documented codes, and
 * whatever is accepted is consistent. */
static void test_garbage(void) {
  game_setup s = mk_setup("");
  game_state st, st2;
  agon_err err;
  game_rng r;
  game_rng_init(&r, 42);
  const char *base =
      "3k1c4/1lS4S2/3E3t2/7G2/10/10/9e/+K4s4/10/4C5 l 97 97 1 0";
  const char alphabet[] = "0123456789/+ kKsSeElLgGtTpPcCxXdD-=\t";
  unsigned accepted = 0;
  for (int iter = 0; iter < 20000; iter++) {
    char buf[GAME_POSITION_MAX];
    size_t n = strlen(base);
    memcpy(buf, base, n);
    int edits = 1 + (int)game_rng_below(&r, 3);
    for (int e = 0; e < edits; e++) {
      size_t at = game_rng_below(&r, (uint32_t)n);
      uint32_t op = game_rng_below(&r, 3);
      char c = iter & 1 ? (char)game_rng_below(&r, 256)
                        : alphabet[game_rng_below(&r, sizeof alphabet - 1)];
      if (op == 0) buf[at] = c;
      else if (op == 1 && n > 1) memmove(buf + at, buf + at + 1, n - at - 1), n--;
      else if (n + 1 < sizeof buf) memmove(buf + at + 1, buf + at, n - at), buf[at] = c, n++;
    }
    int rc = vt->from_position(&st, &s, buf, n, &err);
    CHECK_MSG(rc == 0 || rc == AGON_EPOSITION, "rc %d", rc);
    if (rc == 0) {
      accepted++;
      char out[GAME_POSITION_MAX];
      vt->to_position(&st, out, sizeof out);
      CHECK_MSG(vt->check(&st, &err) == 0, "accepted '%.*s' fails check: %s", (int)n, buf,
                err.msg);
      CHECK_MSG(vt->from_position(&st2, &s, out, strlen(out), &err) == 0 &&
                    memcmp(&st, &st2, vt->state_size) == 0,
                "'%s' does not round-trip", out);
    }
  }
  CHECK(accepted > 0);
  vt->from_position(&st, &s, base, strlen(base), &err);
  const char malpha[] = "abcdefghijk0123456789-xX=kK +#!";
  for (int iter = 0; iter < 50000; iter++) {
    char buf[24];
    size_t n = game_rng_below(&r, sizeof buf);
    for (size_t i = 0; i < n; i++)
      buf[i] = iter % 3 == 0 ? (char)game_rng_below(&r, 256)
                             : malpha[game_rng_below(&r, sizeof malpha - 1)];
    game_move m;
    int rc = vt->parse_move(&st, buf, n, &m, &err);
    CHECK_MSG(rc == 0 || rc == AGON_EBADMOVE || rc == AGON_EILLEGAL, "rc %d", rc);
    if (rc == 0) {
      char text[GAME_MOVE_TEXT_MAX];
      game_move back;
      vt->format_move(&st, &m, text, sizeof text);
      CHECK(vt->parse_move(&st, text, strlen(text), &back, &err) == 0 &&
            game_move_eq(&m, &back));
      game_state c = st;
      vt->apply(&c, &m, &err);
      CHECK(vt->check(&c, &err) == 0);
    }
  }
}

int main(void) {
  vt = gok_vt();
  CHECK_STR(vt->name, "gambit-of-kings");
  CHECK(vt->state_size <= GAME_STATE_MAX);
  test_gk1();
  test_gk2();
  test_gk3();
  test_gk4();
  test_gk5();
  test_gk6();
  test_gk7();
  test_gk8();
  test_gk9();
  test_gk10();
  test_gk11();
  test_gk12();
  test_gk13();
  test_quiet_plies();
  test_cap_options();
  test_notation();
  test_positions();
  test_views();
  test_random_games();
  test_garbage();
  return test_summary();
}
