/* test_glicko2.c - the worked example of Glickman's paper "Example of the
 * Glicko-2 system": r=1500, RD=200, sigma=0.06, tau=0.5, against 1400/30
 * (win), 1550/100 (loss), 1700/300 (loss) gives r'=1464.06, RD'=151.52,
 * sigma'=0.05999. */
#include <math.h>

#include "../../../server/glicko2.h"
#include "test.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

int main(void) {
  glicko2_rating p = {1500.0, 200.0, 0.06}, out;
  glicko2_game games[] = {{1400.0, 30.0, 1.0}, {1550.0, 100.0, 0.0}, {1700.0, 300.0, 0.0}};
  glicko2_update(&p, games, 3, 0.5, &out);
  CHECK_MSG(NEAR(out.rating, 1464.06, 0.01), "rating %.4f", out.rating);
  CHECK_MSG(NEAR(out.rd, 151.52, 0.01), "rd %.4f", out.rd);
  CHECK_MSG(NEAR(out.vol, 0.05999, 0.00001), "vol %.6f", out.vol);

  /* No games: only the deviation grows (step 6), capped at the default. */
  glicko2_update(&p, NULL, 0, 0.5, &out);
  CHECK_MSG(NEAR(out.rating, 1500.0, 1e-9), "idle rating %.4f", out.rating);
  CHECK_MSG(out.rd > 200.0 && out.rd < 201.0, "idle rd %.4f", out.rd);

  /* A win against an equal player raises, a loss lowers, symmetrically. */
  glicko2_rating a = {1500.0, 350.0, 0.06}, w, l;
  glicko2_game win = {1500.0, 350.0, 1.0}, loss = {1500.0, 350.0, 0.0};
  glicko2_update(&a, &win, 1, 0.5, &w);
  glicko2_update(&a, &loss, 1, 0.5, &l);
  CHECK(w.rating > 1500.0 && l.rating < 1500.0);
  CHECK_MSG(NEAR(w.rating - 1500.0, 1500.0 - l.rating, 1e-6), "asymmetric %.6f %.6f", w.rating, l.rating);
  CHECK(w.rd < 350.0 && w.rd >= GLICKO2_MIN_RD);
  return test_summary();
}
