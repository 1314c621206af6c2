/* test_gwez_rules.c - every scenario of the spec's section 5 (GW-1..GW-14)
 * with its exact move sets and results, the options, the notation, the
 * position format, repetition and the views. */
#include "gwez_common.h"

static char got_[8192], want_[8192];

/* Moves of one piece (or all with from == NULL) equal the spec's list. */
#define CHECK_MOVES_OF(st, from, targets)                  \
  do {                                                     \
    gw_moves_text((st), (from), got_, sizeof got_);        \
    gw_expect_text((from), (targets), want_, sizeof want_); \
    CHECK_STR(got_, want_);                                \
  } while (0)

static int play(gw_tm *t, const char *mv) {
  agon_err err;
  agon_err_clear(&err);
  int rc = game_match_play(&t->m, mv, strlen(mv), NULL, &err);
  if (rc < 0) fprintf(stderr, "  play %s: %s\n", mv, err.msg);
  return rc;
}

/* Piece letter on a square from the JSON view ('.', '+', '#' when empty). */
static char at(const gw_tm *t, const char *sq) {
  json_t *v = gw_vt()->to_json(&t->m.st, GAME_VIEW_ALL);
  json_t *row = json_array_get(json_object_get(v, "board"), (size_t)('9' - sq[1]));
  char c = row ? json_string_value(row)[sq[0] - 'a'] : '?';
  json_decref(v);
  return c;
}

#define CHECK_ONGOING(t) \
  CHECK_INT(game_match_outcome(&(t)->m).result, GAME_ONGOING)

#define CHECK_WIN(t, side, why)                                  \
  do {                                                           \
    game_outcome o_ = game_match_outcome(&(t)->m);               \
    CHECK_INT(o_.result, GAME_WIN);                              \
    CHECK_INT(o_.winner, (side));                                \
    CHECK_STR(o_.reason, (why));                                 \
  } while (0)

enum { DEF = 0, ATT = 1 };

static void gw1_initial(void) {
  gw_tm t;
  gw_tm_start(&t, NULL);
  CHECK_INT(game_match_to_move(&t.m), DEF);
  char all[4096] = "";
  static const char *const lists[][2] = {
      {"c5", "c6 c7 c8 c9 c4 c3 c2 c1"},
      {"d5", "d6 d7 d8 d4 d3 d2"},
      {"e3", "f3 g3 h3 i3 d3 c3 b3 a3"},
      {"e4", "f4 g4 h4 d4 c4 b4"},
      {"e6", "f6 g6 h6 d6 c6 b6"},
      {"e7", "f7 g7 h7 i7 d7 c7 b7 a7"},
      {"f5", "f6 f7 f8 f4 f3 f2"},
      {"g5", "g6 g7 g8 g9 g4 g3 g2 g1"},
  };
  for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
    CHECK_MOVES_OF(&t.m.st, lists[i][0], lists[i][1]);
    gw_expect_text(lists[i][0], lists[i][1], want_, sizeof want_);
    if (*all) strcat(all, " ");
    strcat(all, want_);
  }
  CHECK_MOVES_OF(&t.m.st, "e5", "");  /* the King has none */
  /* The whole set: 56 moves, the union above (sorted per piece, and the
   * pieces' squares sort in the same order). */
  CHECK_INT(gw_moves_text(&t.m.st, NULL, got_, sizeof got_), 56);
  CHECK_STR(got_, all);
  /* Spec perft (defaults); deeper numbers are in tests/data. */
  CHECK_U64(game_perft(gw_vt(), &t.m.st, 1), 56);
  CHECK_U64(game_perft(gw_vt(), &t.m.st, 2), 3968);
  CHECK_U64(game_perft(gw_vt(), &t.m.st, 3), 225224);
  /* first=attackers */
  gw_tm_start(&t, "first=attackers");
  CHECK_INT(game_match_to_move(&t.m), ATT);
  CHECK_MOVES_OF(&t.m.st, "e8", "b8 c8 d8 f8 g8 h8 i8 a8");
}

static void gw2_throne_and_corners(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Kc3 Db7 ae9", 'a');
  CHECK_MOVES_OF(&t.m.st, "e9", "d9 c9 b9 f9 g9 h9 e8 e7 e6 e4 e3 e2 e1");
  CHECK_INT(gw_moves_text(&t.m.st, NULL, got_, sizeof got_), 13);
  /* Stopping on e5 / a9 is refused with a reason. */
  agon_err err;
  game_move mv;
  CHECK_INT(gw_vt()->parse_move(&t.m.st, "e9-e5", 5, &mv, &err), AGON_EILLEGAL);
  CHECK(strstr(err.msg, "throne") != NULL);
  CHECK_INT(gw_vt()->parse_move(&t.m.st, "e9-a9", 5, &mv, &err), AGON_EILLEGAL);
  CHECK(strstr(err.msg, "corner") != NULL);
  /* corners_king_only=no: the attacker may park on a9 and i9. */
  gw_tm_list(&t, "corners_king_only=no", "Kc3 Db7 ae9", 'a');
  CHECK_MOVES_OF(&t.m.st, "e9",
                 "a9 d9 c9 b9 f9 g9 h9 i9 e8 e7 e6 e4 e3 e2 e1");
}

static void gw3_king_reenters(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Ke3 De7 ah8", 'd');
  CHECK_MOVES_OF(&t.m.st, "e3", "a3 b3 c3 d3 f3 g3 h3 i3 e2 e1 e4 e5 e6");
  CHECK_MOVES_OF(&t.m.st, "e7", "a7 b7 c7 d7 f7 g7 h7 i7 e8 e9 e6 e4");
  /* king_reenter_throne=no: e5 becomes a square he only crosses. */
  gw_tm_list(&t, "king_reenter_throne=no", "Ke3 De7 ah8", 'd');
  CHECK_MOVES_OF(&t.m.st, "e3", "a3 b3 c3 d3 f3 g3 h3 i3 e2 e1 e4 e6");
  agon_err err;
  game_move mv;
  CHECK_INT(gw_vt()->parse_move(&t.m.st, "e3e5", 4, &mv, &err), AGON_EILLEGAL);
  CHECK(strstr(err.msg, "return") != NULL);
  /* Starting on the throne he may leave; then never come back. */
  gw_tm_list(&t, "king_reenter_throne=no", "Ke5 De7 ah8", 'd');
  CHECK_INT(play(&t, "e5-e4"), 0);
  CHECK_INT(play(&t, "h8-h7"), 0);
  CHECK_MOVES_OF(&t.m.st, "e4", "a4 b4 c4 d4 f4 g4 h4 i4 e3 e2 e1 e6");
}

static void gw4_sandwich(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Kb8 Dd4 ac4 ag4", 'a');
  CHECK_INT(play(&t, "g4-e4"), 0);
  CHECK_STR(t.m.last_text, "g4-e4xd4");
  CHECK_INT(at(&t, "d4"), '.');
  CHECK_ONGOING(&t);

  gw_tm_list(&t, NULL, "Kb8 ac6 ae6 Dd9", 'd');
  CHECK_INT(play(&t, "d9-d6"), 0);
  CHECK_STR(t.m.last_text, "d9-d6");
  CHECK_INT(at(&t, "d6"), 'D');
  CHECK_INT(play(&t, "c6-c7"), 0);
  CHECK_INT(at(&t, "d6"), 'D');
  CHECK_INT(play(&t, "b8-a8"), 0);
  CHECK_INT(play(&t, "c7-c6"), 0);
  CHECK_STR(t.m.last_text, "c7-c6xd6");
  CHECK_INT(at(&t, "d6"), '.');
  CHECK_ONGOING(&t);
}

static void gw5_throne_not_hostile(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Kb8 De6 ah7", 'a');
  CHECK_INT(play(&t, "h7-e7"), 0);
  CHECK_STR(t.m.last_text, "h7-e7");
  CHECK_INT(at(&t, "e6"), 'D');
  gw_tm_list(&t, "hostile_throne=empty", "Kb8 De6 ah7", 'a');
  CHECK_INT(play(&t, "h7-e7"), 0);
  CHECK_STR(t.m.last_text, "h7-e7xe6");
  CHECK_INT(at(&t, "e6"), '.');
  CHECK_INT(at(&t, "e5"), '+');
  /* empty: not hostile while the King sits on it; always: hostile then too. */
  gw_tm_list(&t, "hostile_throne=empty", "Ke5 De6 ah7", 'a');
  CHECK_INT(play(&t, "h7-e7"), 0);
  CHECK_STR(t.m.last_text, "h7-e7");
  gw_tm_list(&t, "hostile_throne=always", "Ke5 De6 ah7", 'a');
  CHECK_INT(play(&t, "h7-e7"), 0);
  CHECK_STR(t.m.last_text, "h7-e7xe6");
  /* The hostile throne helps defenders capture attackers too. */
  gw_tm_list(&t, "hostile_throne=empty", "Kb8 ae6 Dh7", 'd');
  CHECK_INT(play(&t, "h7-e7"), 0);
  CHECK_STR(t.m.last_text, "h7-e7xe6");
}

static void gw6_king_by_four(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Kc3 ab3 ad3 ac2 ac7", 'a');
  CHECK_INT(play(&t, "c7-c4"), 0);
  CHECK_STR(t.m.last_text, "c7-c4++");
  CHECK_WIN(&t, ATT, "king_captured");
  CHECK_INT(game_match_to_move(&t.m), GAME_NOBODY);
  size_t n = 99;
  game_move mv[GAME_MAX_MOVES];
  game_match_legal(&t.m, mv, GAME_MAX_MOVES, &n);
  CHECK_INT(n, 0);
  CHECK_INT(gw_vt()->legal_moves(&t.m.st, mv, GAME_MAX_MOVES, &n), 0);
  CHECK_INT(n, 0);
  agon_err err;
  CHECK_INT(game_match_play(&t.m, "b3-b4", 5, NULL, &err), AGON_EGAMEOVER);
  CHECK_INT(gw_vt()->parse_move(&t.m.st, "b3-b4", 5, mv, &err), AGON_EGAMEOVER);

  gw_tm_list(&t, NULL, "Kc3 ab3 ah3", 'a');
  CHECK_INT(play(&t, "h3-d3"), 0);
  CHECK_STR(t.m.last_text, "h3-d3");
  CHECK_ONGOING(&t);
  CHECK_INT(game_match_to_move(&t.m), DEF);
}

static void gw7_king_three_and_throne(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Ke4 ad4 af4 aa3", 'a');
  CHECK_INT(play(&t, "a3-e3"), 0);
  CHECK_STR(t.m.last_text, "a3-e3++");
  CHECK_WIN(&t, ATT, "king_captured");
}

static void gw8_step_into_frame(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Ke5 ad4 af4 ae3 ab8", 'd');
  CHECK_INT(play(&t, "e5-e4"), 0);
  CHECK_ONGOING(&t);
  CHECK_INT(play(&t, "b8-b7"), 0);
  CHECK_STR(t.m.last_text, "b8-b7");
  CHECK_ONGOING(&t);
  CHECK_MOVES_OF(&t.m.st, "e4", "e5 e6 e7 e8 e9");
  /* king_capture=any_attacker_move: the far move b8-b7 closes the frame. */
  gw_tm_list(&t, "king_capture=any_attacker_move", "Ke5 ad4 af4 ae3 ab8", 'd');
  CHECK_INT(play(&t, "e5-e4"), 0);
  CHECK_ONGOING(&t);
  CHECK_INT(play(&t, "b8-b7"), 0);
  CHECK_STR(t.m.last_text, "b8-b7++");
  CHECK_WIN(&t, ATT, "king_captured");
  /* The King can also frame himself by crossing the empty throne (e7-e4):
   * the throne behind him is then the fourth side. Safe as well. */
  gw_tm_list(&t, NULL, "Ke7 ad4 af4 ae3 ab8", 'd');
  CHECK_INT(play(&t, "e7-e4"), 0);
  CHECK_STR(t.m.last_text, "e7-e4");
  CHECK_INT(play(&t, "b8-b7"), 0);
  CHECK_ONGOING(&t);
  gw_tm_list(&t, "king_capture=any_attacker_move", "Ke7 ad4 af4 ae3 ab8", 'd');
  CHECK_INT(play(&t, "e7-e4"), 0);
  CHECK_ONGOING(&t);
  CHECK_INT(play(&t, "b8-b7"), 0);
  CHECK_WIN(&t, ATT, "king_captured");
}

static void gw9_king_on_edge(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Kc1 ab1 ad1 ac6", 'a');
  CHECK_INT(play(&t, "c6-c2"), 0);
  CHECK_STR(t.m.last_text, "c6-c2++");
  CHECK_WIN(&t, ATT, "king_captured");
}

static void gw10_beside_corner(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Kb1 ac1 ag2 De8", 'a');
  CHECK_INT(play(&t, "g2-b2"), 0);
  CHECK_STR(t.m.last_text, "g2-b2");
  CHECK_ONGOING(&t);
  CHECK_INT(play(&t, "b1-a1"), 0);
  CHECK_STR(t.m.last_text, "b1-a1--");
  CHECK_WIN(&t, DEF, "king_escaped");
  CHECK_INT(game_match_to_move(&t.m), GAME_NOBODY);
  gw_tm_list(&t, "corner_hostile_to_king=yes", "Kb1 ac1 ag2 De8", 'a');
  CHECK_INT(play(&t, "g2-b2"), 0);
  CHECK_STR(t.m.last_text, "g2-b2++");
  CHECK_WIN(&t, ATT, "king_captured");
}

static void gw11_escape(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Kc1 aa4 Dg7", 'd');
  CHECK_MOVES_OF(&t.m.st, "c1",
                 "a1-- b1 d1 e1 f1 g1 h1 i1-- c2 c3 c4 c5 c6 c7 c8 c9");
  CHECK_INT(gw_moves_text(&t.m.st, "c1", got_, sizeof got_), 16);
  CHECK(strstr(got_, "c1-a1--") != NULL);
  CHECK(strstr(got_, "c1-i1--") != NULL);
  gw_tm_list(&t, NULL, "Kc1 aa4 Dg7", 'a');
  CHECK_MOVES_OF(&t.m.st, "a4", "a2 a3 a5 a6 a7 a8 b4 c4 d4 e4 f4 g4 h4 i4");
  gw_tm_list(&t, NULL, "Kc1 aa4 Dg7", 'd');
  CHECK_INT(play(&t, "c1-a1"), 0);
  CHECK_STR(t.m.last_text, "c1-a1--");
  CHECK_WIN(&t, DEF, "king_escaped");
  /* Escape and capture in one move: a2 framed by a1 (King) and a3. */
  gw_tm_list(&t, NULL, "Kc1 aa2 Da3 ah8", 'd');
  CHECK_INT(play(&t, "c1-a1"), 0);
  CHECK_STR(t.m.last_text, "c1-a1xa2--");
}

static void gw12_triple(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Kb8 Df3 Dh3 Dg2 ae3 ai3 ag1 ag7", 'a');
  CHECK_INT(play(&t, "g7-g3"), 0);
  CHECK_STR(t.m.last_text, "g7-g3xf3/h3/g2");
  CHECK_INT(at(&t, "f3"), '.');
  CHECK_INT(at(&t, "h3"), '.');
  CHECK_INT(at(&t, "g2"), '.');
  CHECK_INT(at(&t, "g3"), 'a');
  json_t *v = game_match_view(&t.m, GAME_VIEW_ALL);
  CHECK_INT(json_integer_value(json_object_get(v, "guards")), 0);
  CHECK_INT(json_integer_value(json_object_get(v, "attackers")), 4);
  json_decref(v);
}

static void gw13_king_captures(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Kc7 ad7 De9 ah2", 'd');
  CHECK_INT(play(&t, "e9-e7"), 0);
  CHECK_STR(t.m.last_text, "e9-e7xd7");
  CHECK_INT(at(&t, "d7"), '.');
  gw_tm_list(&t, NULL, "Kb2 af2 Dg2 ah8", 'd');
  CHECK_INT(play(&t, "b2-e2"), 0);
  CHECK_STR(t.m.last_text, "b2-e2xf2");
  CHECK_INT(at(&t, "f2"), '.');
}

static void gw14_no_moves(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Kc1 Dc2 ab1 ad1 ab2 ad2 ac3", 'd');
  CHECK_INT(gw_moves_text(&t.m.st, NULL, got_, sizeof got_), 0);
  CHECK_WIN(&t, ATT, "no_moves");
  CHECK_INT(game_match_to_move(&t.m), GAME_NOBODY);
  gw_tm_list(&t, "no_move=draw", "Kc1 Dc2 ab1 ad1 ab2 ad2 ac3", 'd');
  game_outcome o = game_match_outcome(&t.m);
  CHECK_INT(o.result, GAME_DRAW);
  CHECK_STR(o.reason, "no_moves");
  /* Attackers with no piece left cannot move either. */
  gw_tm_list(&t, NULL, "Ke5 De4", 'a');
  CHECK_WIN(&t, DEF, "no_moves");
}

/* Third occurrence of a position (same side to move) is a draw; a capture
 * in between resets the window. */
static void repetition(void) {
  gw_tm t;
  gw_tm_start(&t, NULL);
  const char *cycle[] = {"e3-h3", "e2-h2", "h3-e3", "h2-e2"};
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < 4; i++) {
      CHECK_ONGOING(&t);
      CHECK_INT(play(&t, cycle[i]), 0);
    }
  game_outcome o = game_match_outcome(&t.m);
  CHECK_INT(o.result, GAME_DRAW);
  CHECK_STR(o.reason, "repetition");
  /* repetition=0 disables it; repetition=4 needs one more cycle. */
  gw_tm_start(&t, "repetition=0");
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < 4; i++) CHECK_INT(play(&t, cycle[i]), 0);
  CHECK_ONGOING(&t);
  gw_tm_start(&t, "repetition=4");
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < 4; i++) CHECK_INT(play(&t, cycle[i]), 0);
  CHECK_ONGOING(&t);
  for (int i = 0; i < 4; i++) CHECK_INT(play(&t, cycle[i]), 0);
  CHECK_INT(game_match_outcome(&t.m).result, GAME_DRAW);
  /* The window is the quiet count (plies since the last capture). */
  unsigned window = 99;
  gw_tm_list(&t, NULL, "Kb8 Dd4 ac4 ag4", 'a');
  CHECK_INT(gw_vt()->repetition(&t.m.st, &window), 3);
  CHECK_INT(window, 0);
  CHECK_INT(play(&t, "g4-e4"), 0);
  gw_vt()->repetition(&t.m.st, &window);
  CHECK_INT(window, 0);
  CHECK_INT(play(&t, "b8-b7"), 0);
  gw_vt()->repetition(&t.m.st, &window);
  CHECK_INT(window, 1);
  game_setup s = gw_setup("repetition=1");
  agon_err err;
  CHECK_INT(gw_vt()->init(&t.m.st, &s, 0, &err), AGON_EOPTION);
}

static void max_plies(void) {
  gw_tm t;
  gw_tm_start(&t, "max_plies=3");
  CHECK_INT(play(&t, "e3-h3"), 0);
  CHECK_INT(play(&t, "e2-h2"), 0);
  CHECK_ONGOING(&t);
  CHECK_INT(play(&t, "h3-e3"), 0);
  game_outcome o = game_match_outcome(&t.m);
  CHECK_INT(o.result, GAME_DRAW);
  CHECK_STR(o.reason, "max_plies");
  size_t n = 9;
  game_move mv[GAME_MAX_MOVES];
  CHECK_INT(gw_vt()->legal_moves(&t.m.st, mv, GAME_MAX_MOVES, &n), 0);
  CHECK_INT(n, 0);
}

static void hostile_corners(void) {
  gw_tm t;
  gw_tm_list(&t, NULL, "Ke5 Db1 ah1", 'a');
  CHECK_INT(play(&t, "h1-c1"), 0);
  CHECK_STR(t.m.last_text, "h1-c1");
  gw_tm_list(&t, "hostile_corners=yes", "Ke5 Db1 ah1", 'a');
  CHECK_INT(play(&t, "h1-c1"), 0);
  CHECK_STR(t.m.last_text, "h1-c1xb1");
  gw_tm_list(&t, "hostile_corners=yes", "Ke5 ab1 Dh1", 'd');
  CHECK_INT(play(&t, "h1-c1"), 0);
  CHECK_STR(t.m.last_text, "h1-c1xb1");
}

/* Lenient input, exact errors, suffixes ignored. */
static void notation(void) {
  gw_tm t;
  gw_tm_start(&t, NULL);
  const game_state *st = &t.m.st;
  game_move a, b;
  agon_err err;
  CHECK_INT(gw_vt()->parse_move(st, "e3-c3", 5, &a, &err), 0);
  const char *same[] = {"e3c3", "E3-C3", " e 3 - c 3 ", "e3-c3xd3", "e3-c3++",
                        "e3-c3--", "e3c3xd3/f3/g3", "e3-C3Xd3,f3", "\te3-c3\n"};
  for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
    memset(&b, 0xff, sizeof b);
    CHECK_INT(gw_vt()->parse_move(st, same[i], strlen(same[i]), &b, &err), 0);
    CHECK_MSG(game_move_eq(&a, &b), "%s parses differently", same[i]);
  }
  const char *bad[] = {"", "e3", "e3-", "e3--c3", "j3-c3", "e0-c3", "e3-c10",
                       "e3-c3x", "e3-c3xz9", "e3-c3+", "e3-c3 foo", "e3_c3",
                       "e3-c3xd3/", "pass", "e3-c3+++", "\xff\xfe"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK_MSG(gw_vt()->parse_move(st, bad[i], strlen(bad[i]), &b, &err) ==
                  AGON_EBADMOVE,
              "'%s' should be bad notation", bad[i]);
  /* Embedded NUL bytes are not notation either. */
  CHECK_INT(gw_vt()->parse_move(st, "e3\0c3", 5, &b, &err), AGON_EBADMOVE);
  struct { const char *mv, *why; } ill[] = {
      {"a1-a2", "a1 is empty"},
      {"e2-h2", "e2 holds an attacker, not a piece of the defenders"},
      {"e5-e7", "the way is blocked at e6"},  /* King blocked by his guard */
      {"e5-e6", "e6 is occupied"},
      {"e3-e3", "a move must leave its square"},
      {"e3-d4", "e3-d4 is not along a rank or a file"},
      {"e3-e1", "the way is blocked at e2"},
      {"e4-e2", "the way is blocked at e3"},
      {"c5-a5", "the way is blocked at b5"},
  };
  for (size_t i = 0; i < sizeof ill / sizeof *ill; i++) {
    agon_err_clear(&err);
    CHECK_INT(gw_vt()->parse_move(st, ill[i].mv, strlen(ill[i].mv), &b, &err),
              AGON_EILLEGAL);
    CHECK_STR(err.msg, ill[i].why);
  }
  gw_tm_list(&t, NULL, "Ke5 ac1 Dc2", 'a');
  CHECK_INT(gw_vt()->parse_move(&t.m.st, "c1-c2", 5, &b, &err), AGON_EILLEGAL);
  CHECK_STR(err.msg, "c2 is occupied");
  /* Every legal move: parse(format(m)) == m; small buffers refused. */
  gw_tm_start(&t, NULL);
  game_move mv[GAME_MAX_MOVES];
  size_t n = 0;
  gw_vt()->legal_moves(&t.m.st, mv, GAME_MAX_MOVES, &n);
  for (size_t i = 0; i < n; i++) {
    char text[GAME_MOVE_TEXT_MAX];
    int len = gw_vt()->format_move(&t.m.st, &mv[i], text, sizeof text);
    CHECK(len == 5);
    CHECK_INT(gw_vt()->parse_move(&t.m.st, text, (size_t)len, &b, &err), 0);
    CHECK(game_move_eq(&mv[i], &b));
  }
  char tiny[5];
  CHECK_INT(gw_vt()->format_move(&t.m.st, &mv[0], tiny, sizeof tiny), AGON_ENOSPACE);
  CHECK_INT(gw_vt()->legal_moves(&t.m.st, mv, 10, &n), AGON_ENOSPACE);
}

static void positions(void) {
  const game_vtable *vt = gw_vt();
  game_setup s = gw_setup(NULL);
  game_state st, st2;
  agon_err err;
  char buf[GAME_POSITION_MAX], buf2[GAME_POSITION_MAX];
  const char *start = "3aaa3/4a4/4D4/a3D3a/aaDDKDDaa/a3D3a/4D4/4a4/3aaa3 d 0 0";
  CHECK_INT(vt->init(&st, &s, 0, &err), 0);
  CHECK(vt->to_position(&st, buf, sizeof buf) > 0);
  CHECK_STR(buf, start);
  /* Spec positions round-trip; counters are optional on input. */
  const char *good[] = {
      start,
      "4a4/9/1D7/9/9/9/2K6/9/9 a 0 0",           /* GW-2 */
      "9/7a1/4D4/9/9/9/4K4/9/9 d 0 0",           /* GW-3 */
      "9/1K7/6a2/9/9/9/4aD1Da/6D2/6a2 a 17 4",   /* GW-12 */
  };
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    CHECK_INT(vt->from_position(&st, &s, good[i], strlen(good[i]), &err), 0);
    CHECK(vt->to_position(&st, buf, sizeof buf) > 0);
    CHECK_STR(buf, good[i]);
    CHECK_INT(vt->check(&st, &err), 0);
  }
  const char *blanks = "  4a4/9/1D7/9/9/9/2K6/9/9\ta ";
  CHECK_INT(vt->from_position(&st, &s, blanks, strlen(blanks), &err), 0);
  vt->to_position(&st, buf, sizeof buf);
  CHECK_STR(buf, "4a4/9/1D7/9/9/9/2K6/9/9 a 0 0");
  /* Finished games have a text too: captured King 'k', escaped King on a
   * corner. */
  gw_tm t;
  gw_tm_list(&t, NULL, "Kc3 ab3 ad3 ac2 ac7", 'a');
  play(&t, "c7-c4");
  vt->to_position(&t.m.st, buf, sizeof buf);
  CHECK_STR(buf, "9/9/9/9/9/2a6/1aka5/2a6/9 d 1 1");
  CHECK_INT(vt->from_position(&st, &s, buf, strlen(buf), &err), 0);
  CHECK_INT(vt->outcome(&st).result, GAME_WIN);
  CHECK_STR(vt->outcome(&st).reason, "king_captured");
  CHECK(memcmp(&st, &t.m.st, vt->state_size) == 0);
  gw_tm_list(&t, NULL, "Kc1 aa4 Dg7", 'd');
  play(&t, "c1-a1");
  vt->to_position(&t.m.st, buf, sizeof buf);
  CHECK_STR(buf, "9/9/6D2/9/9/a8/9/9/K8 a 1 1");
  CHECK_INT(vt->from_position(&st2, &s, buf, strlen(buf), &err), 0);
  CHECK_STR(vt->outcome(&st2).reason, "king_escaped");
  CHECK(memcmp(&st2, &t.m.st, vt->state_size) == 0);

  struct { const char *pos, *opts; } bad[] = {
      {"", NULL},
      {"garbage", NULL},
      {"9/9/9/9/9/9/9/9/9 d", NULL},                     /* no King */
      {"9/1K7/9/9/9/9/9/9/2K6 d", NULL},                 /* two Kings */
      {"9/9/9/9/4a4/9/9/9/K8 d", NULL},                  /* King on a corner, d */
      {"9/9/9/9/4a4/9/9/9/1K7 x", NULL},                 /* side */
      {"9/9/9/9/4a4/9/9/9/1K7", NULL},                   /* one field */
      {"9/9/9/9/4a4/9/9/9/1K7 d 0", NULL},               /* three fields */
      {"9/9/9/9/4a4/9/9/9/1K7 d 0 0 0", NULL},           /* five fields */
      {"9/9/9/9/4a4/9/9/9/1K7 d 1 2", NULL},             /* quiet > ply */
      {"9/9/9/9/4a4/9/9/9/1K7 d -1 0", NULL},
      {"9/9/9/9/4a4/9/9/9/1K7 d 01 0", NULL},
      {"9/9/9/9/4a4/9/9/9/1K7 d 4294967296 0", NULL},
      {"9/9/9/9/4a4/9/9/9/1K7 d 10000000000 0", NULL},
      {"9/9/9/9/4D4/9/9/9/1K7 d", NULL},                 /* guard on throne */
      {"9/9/9/9/9/9/9/9/1K6a d", NULL},                  /* attacker on i1 */
      {"9/9/9/9/9/9/9/9/1K8 d", NULL},                   /* 10 squares */
      {"9/9/9/9/9/9/9/9/1K6 d", NULL},                   /* 8 squares */
      {"9/9/9/9/9/9/9/9/9/1K7 d", NULL},                 /* 10 ranks */
      {"9/9/9/9/9/9/9/1K7 d", NULL},                     /* 8 ranks */
      {"9/9/9/9/9/9/9/9/1K34 d", NULL},                  /* digits in a row */
      {"9/9/9/9/9/9/9/9/1K07 d", NULL},
      {"9/9/9/9/9/9/9/9/1Q7 d", NULL},
      {"9/9/9/9/9/9/9/9/1k7 d", NULL},                   /* captured, not framed */
      {"9/9/9/9/9/9/9/a8/kaa6 d", NULL},                 /* corner: never captured */
      {"9/9/9/9/9/9/9/2a6/1aka5 a", NULL},                 /* captured, wrong side */
      {"aaaaaaaaa/aaaaaaaa1/9/9/9/9/9/9/1K7 d", NULL},   /* 17 attackers */
      {"DDDDDDDDD/9/9/9/9/9/9/9/1K7 d", "corners_king_only=no"}, /* 9 guards */
      {"9/9/9/9/9/9/9/9/1K7 d\xff", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    game_setup bs = gw_setup(bad[i].opts);
    CHECK_MSG(vt->from_position(&st, &bs, bad[i].pos, strlen(bad[i].pos),
                                &err) == AGON_EPOSITION,
              "position %zu '%s' should be rejected", i, bad[i].pos);
  }
  const char *two = "9/1K7/9/9/9/9/9/9/K8 a 3 1";
  CHECK_INT(vt->from_position(&st, &s, two, strlen(two), &err), AGON_EPOSITION);
  CHECK(strstr(err.msg, "more than one King") != NULL);
  /* With corners_king_only=no an attacker may stand on a corner. */
  game_setup any = gw_setup("corners_king_only=no");
  const char *corner = "9/9/9/9/9/9/9/9/1K6a d 0 0";
  CHECK_INT(vt->from_position(&st, &any, corner, strlen(corner), &err), 0);
  vt->to_position(&st, buf2, sizeof buf2);
  CHECK_STR(buf2, corner);
  /* The captured King frame also counts the corner with that option. */
  game_setup chk = gw_setup("corner_hostile_to_king=yes");
  const char *cap = "9/9/9/9/9/9/9/1a7/1ka6 d 5 0";
  CHECK_INT(vt->from_position(&st, &chk, cap, strlen(cap), &err), 0);
  CHECK_INT(vt->from_position(&st, &s, cap, strlen(cap), &err), AGON_EPOSITION);
  /* Counters saturate instead of wrapping. */
  const char *top = "4a4/9/1D7/9/9/9/2K6/9/9 a 4294967295 4294967294";
  CHECK_INT(vt->from_position(&st, &s, top, strlen(top), &err), 0);
  game_move mv;
  CHECK_INT(vt->parse_move(&st, "e9-e8", 5, &mv, &err), 0);
  vt->apply(&st, &mv, &err);
  CHECK_INT(vt->check(&st, &err), 0);
  vt->to_position(&st, buf2, sizeof buf2);
  CHECK_STR(buf2, "9/4a4/1D7/9/9/9/2K6/9/9 d 4294967295 4294967295");
  /* Buffer too small. */
  char small[10];
  CHECK_INT(vt->to_position(&st2, small, sizeof small), AGON_ENOSPACE);
}

static void views(void) {
  gw_tm t;
  gw_tm_start(&t, NULL);
  json_t *v = game_match_view(&t.m, GAME_VIEW_ALL);
  json_t *board = json_object_get(v, "board");
  CHECK_INT(json_array_size(board), 9);
  CHECK_STR(json_string_value(json_array_get(board, 0)), "#..aaa..#");
  CHECK_STR(json_string_value(json_array_get(board, 4)), "aaDDKDDaa");
  CHECK_STR(json_string_value(json_object_get(v, "to_move")), "defenders");
  CHECK_STR(json_string_value(json_object_get(v, "king")), "e5");
  CHECK_INT(json_integer_value(json_object_get(v, "attackers")), 16);
  CHECK_INT(json_integer_value(json_object_get(v, "guards")), 8);
  CHECK(json_is_false(json_object_get(v, "king_captured")));
  json_decref(v);
  play(&t, "e4-b4");
  v = game_match_view(&t.m, 0);
  CHECK_STR(json_string_value(json_array_get(json_object_get(v, "board"), 5)),
            "aD......a");
  CHECK_INT(json_integer_value(json_object_get(v, "plies")), 1);
  json_decref(v);
  char text[GAME_TEXT_MAX];
  CHECK(gw_vt()->to_text(&t.m.st, text, sizeof text) > 0);
  CHECK(strstr(text, "     a b c d e f g h i\n  9  # . . a a a . . #\n") == text);
  CHECK(strstr(text, "  4  a D . . . . . . a\n") != NULL);
  gw_tm_list(&t, NULL, "Kc3 ab3", 'd');
  gw_vt()->to_text(&t.m.st, text, sizeof text);
  CHECK(strstr(text, "  5  . . . . + . . . .\n") != NULL);
  CHECK(strstr(text, "  1  # . . . . . . . #\n") != NULL);
  gw_tm_list(&t, NULL, "Kc3 ab3 ad3 ac2 ac7", 'a');
  play(&t, "c7-c4");
  v = game_match_view(&t.m, 1);
  CHECK(json_is_null(json_object_get(v, "to_move")));
  CHECK(json_is_true(json_object_get(v, "king_captured")));
  CHECK_STR(json_string_value(json_object_get(json_object_get(v, "outcome"), "reason")),
            "king_captured");
  json_decref(v);
}

/* Random games: check() after every move, format/parse and position round
 * trips, every game ends, under several option sets. */
static void random_games(void) {
  static const char *const optsets[] = {
      NULL,
      "first=attackers king_reenter_throne=no hostile_throne=always",
      "hostile_throne=empty hostile_corners=yes corners_king_only=no",
      "corner_hostile_to_king=yes king_capture=any_attacker_move no_move=draw",
  };
  const game_vtable *vt = gw_vt();
  game_rng rng;
  game_rng_init(&rng, 12345);
  unsigned ended = 0, games = 0, bad = 0;
  for (size_t o = 0; o < sizeof optsets / sizeof *optsets; o++) {
    game_setup s = gw_setup(optsets[o]);
    for (int g = 0; g < 100; g++, games++) {
      gw_tm t;
      gw_tm_start(&t, optsets[o]);
      for (int ply = 0; ply < 3000; ply++) {
        game_move mv[GAME_MAX_MOVES], back;
        size_t n = 0;
        agon_err err;
        game_match_legal(&t.m, mv, GAME_MAX_MOVES, &n);
        if (n == 0) break;
        const game_move *m = &mv[game_rng_below(&rng, (uint32_t)n)];
        char text[GAME_MOVE_TEXT_MAX], pos[GAME_POSITION_MAX], pos2[GAME_POSITION_MAX];
        vt->format_move(&t.m.st, m, text, sizeof text);
        if (vt->parse_move(&t.m.st, text, strlen(text), &back, &err) < 0 ||
            !game_move_eq(m, &back))
          bad++;
        if (game_match_apply(&t.m, m, &err) < 0) bad++;
        if (vt->check(&t.m.st, &err) < 0) {
          fprintf(stderr, "check: %s\n", err.msg);
          bad++;
        }
        game_state st2;
        vt->to_position(&t.m.st, pos, sizeof pos);
        if (vt->from_position(&st2, &s, pos, strlen(pos), &err) < 0 ||
            memcmp(&st2, &t.m.st, vt->state_size) != 0) {
          fprintf(stderr, "position %s: %s\n", pos, err.msg);
          bad++;
        }
        vt->to_position(&st2, pos2, sizeof pos2);
        if (strcmp(pos, pos2) != 0) bad++;
      }
      ended += game_match_outcome(&t.m).result != GAME_ONGOING;
    }
  }
  CHECK_INT(bad, 0);
  CHECK_INT(ended, games);
}

int main(void) {
  CHECK(gw_vt() != NULL);
  CHECK(gw_vt()->state_size <= GAME_STATE_MAX);
  gw1_initial();
  gw2_throne_and_corners();
  gw3_king_reenters();
  gw4_sandwich();
  gw5_throne_not_hostile();
  gw6_king_by_four();
  gw7_king_three_and_throne();
  gw8_step_into_frame();
  gw9_king_on_edge();
  gw10_beside_corner();
  gw11_escape();
  gw12_triple();
  gw13_king_captures();
  gw14_no_moves();
  repetition();
  max_plies();
  hostile_corners();
  notation();
  positions();
  views();
  random_games();
  return test_summary();
}
