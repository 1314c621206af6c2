/* test_view.c - renderer snapshots: each game's play screen at 80x24 as
 * text (what NO_COLOR and the plain fallback show) compared with golden
 * files, plus targeted checks of board contents on known positions (spec
 * scenarios from docs/games/), the last-move highlight, whose turn, the
 * small-terminal notice and NO_COLOR output.
 *
 * Run with the golden directory as argument; AGON_UPDATE_GOLDEN=1 rewrites
 * the files (review the diff before committing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "play.h"
#include "term.h"
#include "test.h"
#include "view.h"

static const char *golden_dir;
static play p;  /* big: static */

static int start(const char *game, const char *opts, uint64_t seed,
                 const char *position, const char *const *moves) {
  const game_vtable *vt = game_find(game);
  game_setup setup;
  agon_err err;
  game_setup_init(&setup, vt);
  if (opts) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", opts);
    for (char *kv = strtok(buf, " "); kv; kv = strtok(NULL, " "))
      if (game_setup_set_kv(&setup, kv, &err)) return -1;
  }
  if (play_init(&p, &setup, seed, position, &err)) {
    fprintf(stderr, "%s: %s\n", game, err.msg);
    return -1;
  }
  for (size_t i = 0; moves && moves[i]; i++)
    if (play_apply(&p, moves[i], &err)) {
      fprintf(stderr, "%s: %s: %s\n", game, moves[i], err.msg);
      return -1;
    }
  return 0;
}

static void render(term_frame *f, int w, int h) {
  term_frame_init(f, w, h);
  view_state vs;
  char prompt[64];
  int cr, cc;
  play_view(&p, &vs);
  play_prompt(&p, prompt, sizeof prompt);
  vs.prompt = prompt;
  view_render(f, &vs, &cr, &cc);
}

/* Does some row of the frame contain s? Returns the row or -1. */
static int find_row(const term_frame *f, const char *s) {
  char row[1024];
  for (int r = 0; r < f->h; r++) {
    term_frame_row(f, r, row, sizeof row);
    if (strstr(row, s)) return r;
  }
  return -1;
}

#define HAS(f, s) CHECK_MSG(find_row(f, s) >= 0, "screen lacks \"%s\"", s)

static void golden(const char *name, const term_frame *f) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.txt", golden_dir, name);
  char *txt = term_frame_text(f);
  if (getenv("AGON_UPDATE_GOLDEN")) {
    FILE *o = fopen(path, "w");
    if (o) {
      fputs(txt, o);
      fclose(o);
    }
  }
  FILE *in = fopen(path, "r");
  char want[8192] = "";
  size_t n = in ? fread(want, 1, sizeof want - 1, in) : 0;
  want[n] = 0;
  if (in) fclose(in);
  CHECK_MSG(!strcmp(txt, want), "%s differs from the golden file:\n%s", name,
            txt);
  free(txt);
}

static void test_gok(void) {
  term_frame f;
  const char *mv[] = {"e2-e4", "e9-f8", NULL};
  CHECK(start("gambit-of-kings", "first=light", 1, NULL, mv) == 0);
  render(&f, 80, 24);
  golden("gambit-of-kings", &f);
  HAS(&f, "10 │ k  l  g  t  p  c  t  g  l  k │10");
  HAS(&f, " 4 │ ·  ·  ·  ·  S  ·  ·  ·  ·  · │4");
  HAS(&f, " 1 │ K  L  G  T  C  P  T  G  L  K │1");
  HAS(&f, "Light to move");
  HAS(&f, "2 D e9-f8");
  /* last move e9-f8: e9 is row 3 (rank 10 on row 2), f8 row 4; file e is
   * column 5 + 3*4, f column 5 + 3*5 */
  int r9 = find_row(&f, " 9 │");
  CHECK(r9 > 0);
  CHECK(f.c[r9 * f.w + 5 + 3 * 4].st.at & TERM_REVERSE);
  CHECK(f.c[(r9 + 1) * f.w + 5 + 3 * 5].st.at & TERM_REVERSE);
  CHECK(!(f.c[r9 * f.w + 5 + 3 * 3].st.at & TERM_REVERSE));
  term_frame_close(&f);
  play_close(&p);
  /* GK-12 after d5xe5=K: a promoted Knight is marked */
  CHECK(start("gambit-of-kings", NULL, 1,
              "5c4/10/10/10/10/4+K5/10/10/10/4C5 d 0 0 1 0", NULL) == 0);
  render(&f, 80, 24);
  HAS(&f, " 5 │ ·  ·  ·  · +K  ·  ·  ·  ·  · │5");
  /* Dark has only its Castle: no move, a loss by default */
  HAS(&f, "Game over: Light wins (no moves)");
  HAS(&f, "Promotions: light 1, dark 0");
  term_frame_close(&f);
  play_close(&p);
}

static void test_gwez(void) {
  term_frame f;
  const char *mv[] = {"e3-c3", NULL};
  CHECK(start("gwezboell", NULL, 1, NULL, mv) == 0);
  render(&f, 80, 24);
  golden("gwezboell", &f);
  HAS(&f, " 9 │[#] ·  ·  a  a  a  ·  · [#]│9");
  HAS(&f, " 5 │ a  a  D  D [K] D  D  a  a │5");
  HAS(&f, "Attackers to move");
  term_frame_close(&f);
  play_close(&p);
  /* GW-2: empty throne and corners, the King on c3 */
  CHECK(start("gwezboell", NULL, 1, "4a4/9/1D7/9/9/9/2K6/9/9 a 0 0", NULL) ==
        0);
  render(&f, 80, 24);
  HAS(&f, " 5 │ ·  ·  ·  · [+] ·  ·  ·  · │5");
  HAS(&f, " 3 │ ·  ·  K  ·  ·  ·  ·  ·  · │3");
  HAS(&f, " 1 │[#] ·  ·  ·  ·  ·  ·  · [#]│1");
  term_frame_close(&f);
  play_close(&p);
  /* GW-11 after c1-a1--: the King escaped onto a corner */
  CHECK(start("gwezboell", NULL, 1, "9/9/6D2/9/9/a8/9/9/K8 a 1 1", NULL) == 0);
  render(&f, 80, 24);
  HAS(&f, " 1 │[K] ·  ·  ·  ·  ·  ·  · [#]│1");
  HAS(&f, "Game over: Defenders win (king escaped)");
  term_frame_close(&f);
  play_close(&p);
}

static void test_gomony(void) {
  term_frame f;
  const char *mv[] = {"c3-d4", "d6-c5", NULL};
  CHECK(start("gomony", NULL, 1, NULL, mv) == 0);
  render(&f, 80, 24);
  golden("gomony", &f);
  HAS(&f, " 8 │    b     b     b     b │8");
  HAS(&f, " 4 │    ·     w     ·     · │4");
  HAS(&f, "Stacks (top first): none");
  term_frame_close(&f);
  play_close(&p);
  /* GM-6 after the four-jump: a column of five, the Black marker on top of
   * nothing - full composition listed top first */
  CHECK(start("gomony", NULL, 1, "8/b7/8/8/3(bb)1b2/2W5/3b1b2/8 w 0 0", NULL)
        == 0);
  agon_err err;
  CHECK(play_apply(&p, "c3xe5xg3xe1xc3", &err) == 0);
  render(&f, 80, 24);
  HAS(&f, " 3 │ ·     W5    ·     ·    │3");
  HAS(&f, "c3=Wbbbb");
  HAS(&f, "Prisoners: white 4, black 0");
  /* the whole jump path is highlighted: c3 e5 g3 e1 */
  int r1 = find_row(&f, " 1 │");
  CHECK(r1 > 0 && (f.c[r1 * f.w + 5 + 3 * 4].st.at & TERM_REVERSE));
  term_frame_close(&f);
  play_close(&p);
  /* GM-3 after: two stacks */
  CHECK(start("gomony", NULL, 1, "7b/8/8/4(wb)3/3(ww)4/8/8/8 b 0 1", NULL) ==
        0);
  render(&f, 80, 24);
  HAS(&f, "d4=ww");
  HAS(&f, "e5=wb");
  HAS(&f, " 5 │ ·     ·     w2    ·    │5");
  HAS(&f, " 4 │    ·     w2    ·     · │4");
  term_frame_close(&f);
  play_close(&p);
}

static void test_gambo23(void) {
  term_frame f;
  const char *mv[] = {"choose north", "advance a", "advance b", NULL};
  CHECK(start("gambo-2023", NULL, 1, NULL, mv) == 0);
  render(&f, 80, 24);
  golden("gambo-2023", &f);
  HAS(&f, "North     M3    ..    M2    E3    C3    C2    E2    M1    E1");
  HAS(&f, "Line   E3 02 03 C1 05 06 07 08 09 10 11 12 13 14 15 16 17 18");
  HAS(&f, "South  ..    C2    C1    E1    M1    M3    E2    M2    C3");
  HAS(&f, "South to move");
  term_frame_close(&f);
  play_close(&p);
  /* G23-6: scores and gone pieces */
  CHECK(start("gambo-2023", NULL, 1,
              "M2E3--c1----/--M1C3e2---- n 2-6 00- 0", NULL) == 0);
  render(&f, 80, 24);
  HAS(&f, "Score: South 2, North 6");
  HAS(&f, "North to move");
  term_frame_close(&f);
  play_close(&p);
  /* Several moves in a row: after the first duel the side behind (South,
   * 0-1) holds the hand and moves again */
  const char *hand[] = {"choose north", "permute f h", "advance d",
                        "permute a b", "advance b", "advance h", "duel d h",
                        "advance d", "permute c i", "advance c",
                        "permute e f", "advance e", "advance a", NULL};
  CHECK(start("gambo-2023", NULL, 138, NULL, hand) == 0);
  render(&f, 80, 24);
  HAS(&f, "South to move again");
  HAS(&f, "Hand: south");
  HAS(&f, "Score: South 0, North 1");
  term_frame_close(&f);
  play_close(&p);
  /* Before the side choice */
  CHECK(start("gambo-2023", "south=M2,E3,C1,E1,M3,C2,M1,C3,E2 "
                            "north=C3,M1,E2,M3,C1,E1,C2,E3,M2",
              1, NULL, NULL) == 0);
  render(&f, 80, 24);
  HAS(&f, "Chooser: pick a side");
  term_frame_close(&f);
  play_close(&p);
}

static void test_gambo19(void) {
  term_frame f;
  const char *mv[] = {"choose north", "engage e", NULL};
  CHECK(start("gambo-2019", NULL, 1, NULL, mv) == 0);
  render(&f, 80, 24);
  golden("gambo-2019", &f);
  HAS(&f, "Line   01 02 03 04 05 06 07 08 M1 10 11 12 13 14 15 16 17 18");
  HAS(&f, "Engaged: south e (M1) on L9");
  HAS(&f, "Respond with: d e");
  HAS(&f, "North to move");
  term_frame_close(&f);
  play_close(&p);
  /* G19-4: withdrawn pieces in lower case, prisoners */
  CHECK(start("gambo-2019", NULL, 1,
              "M2E3C1-m3c2M1C3E2/C3M1e2--E1C2E3M2 n 2-1", NULL) == 0);
  render(&f, 80, 24);
  HAS(&f, "South  M2    E3    C1    --    m3    c2    M1    C3    E2");
  HAS(&f, "North     C3    M1    e2    --    --    E1    C2    E3    M2");
  HAS(&f, "Prisoners: South 2, North 1");
  HAS(&f, "Initiative: north");
  term_frame_close(&f);
  play_close(&p);
}

static void test_screen(void) {
  term_frame f;
  CHECK(start("gwezboell", NULL, 1, NULL, NULL) == 0);
  render(&f, 60, 20);
  HAS(&f, "Terminal 60x20 is too small");
  term_frame_close(&f);
  /* Bigger terminals: the same board, a longer move list */
  render(&f, 120, 40);
  HAS(&f, " 5 │ a  a  D  D [K] D  D  a  a │5");
  term_frame_close(&f);
  /* Clocks: minutes:seconds rounded up, hours when needed, the running
   * one in reverse video */
  {
    term_frame_init(&f, 80, 24);
    view_state vs;
    int cr, cc;
    play_view(&p, &vs);
    vs.prompt = "> ";
    vs.clock_on = 1;
    vs.clock_ms[0] = 299001;
    vs.clock_ms[1] = 3723000;
    vs.clock_running = 0;
    view_render(&f, &vs, &cr, &cc);
    HAS(&f, "05:00");
    HAS(&f, "1:02:03");
    int r = find_row(&f, "05:00");
    CHECK(r >= 0 && (f.c[r * f.w + 78].st.at & TERM_REVERSE));
    term_frame_close(&f);
  }
  /* NO_COLOR: no colour SGR codes, attributes stay */
  render(&f, 80, 24);
  size_t n;
  char *plain = term_frame_diff(NULL, &f, 0, 23, 0, &n);
  char *color = term_frame_diff(NULL, &f, 1, 23, 0, &n);
  CHECK(strstr(plain, ";33") == NULL && strstr(plain, ";31") == NULL);
  CHECK(strstr(color, ";33") != NULL);
  CHECK(strstr(plain, ";7") != NULL || strstr(plain, ";1") != NULL);
  /* A diff against the same frame only moves the cursor */
  term_frame same;
  render(&same, 80, 24);
  char *d = term_frame_diff(&f, &same, 1, 23, 0, &n);
  CHECK(n < 40);
  free(d);
  free(plain);
  free(color);
  term_frame_close(&f);
  term_frame_close(&same);
  play_close(&p);
  /* Commands of the controller */
  CHECK(start("gambit-of-kings", "first=light", 1, NULL, NULL) == 0);
  play_submit(&p, "draw");
  CHECK(strstr(p.status, "Light offers a draw") != NULL);
  play_submit(&p, "accept");
  CHECK(game_match_outcome(&p.m).result == GAME_DRAW);
  play_submit(&p, "rematch");
  CHECK(game_match_outcome(&p.m).result == GAME_ONGOING && p.n_moves == 0);
  play_submit(&p, "e2-e4");
  CHECK_INT(p.n_moves, 1);
  play_submit(&p, "resign");
  CHECK(game_match_outcome(&p.m).result == GAME_WIN &&
        game_match_outcome(&p.m).winner == 0);
  play_submit(&p, "rules");
  CHECK(p.message[0] == '\f' && strstr(p.message, "Castle") != NULL);
  play_close(&p);
  /* Tab: a unique prefix completes, several list the candidates */
  CHECK(start("gambit-of-kings", "first=light", 1, NULL, NULL) == 0);
  snprintf(p.input, sizeof p.input, "e2-e");
  p.in_len = strlen(p.input);
  play_tab(&p);
  CHECK_STR(p.input, "e2-e");
  CHECK(strstr(p.message, "e2-e3") && strstr(p.message, "e2-e4"));
  snprintf(p.input, sizeof p.input, "a2-a4");
  p.in_len = strlen(p.input);
  play_tab(&p);
  CHECK_STR(p.input, "a2-a4");
  snprintf(p.input, sizeof p.input, "resi");
  p.in_len = strlen(p.input);
  play_tab(&p);
  CHECK_STR(p.input, "resign");
  play_close(&p);
}

int main(int argc, char **argv) {
  golden_dir = argc > 1 ? argv[1] : "golden";
  test_gok();
  test_gwez();
  test_gomony();
  test_gambo23();
  test_gambo19();
  test_screen();
  return test_summary();
}
