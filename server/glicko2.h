/* glicko2.h - Glicko-2 rating updates (Glickman, "Example of the Glicko-2
 * system", 2013). Pure computation, no I/O.
 *
 * agond treats every rated game as its own rating period for both players
 * (as most online servers do): ratings move right after each game instead
 * of at the end of an arbitrary period. Pass several games at once to rate a
 * whole period, as in the paper. */
#ifndef AGON_GLICKO2_H
#define AGON_GLICKO2_H

#include <stddef.h>

#define GLICKO2_DEFAULT_RATING 1500.0
#define GLICKO2_DEFAULT_RD 350.0      /* a new player: very uncertain */
#define GLICKO2_DEFAULT_VOL 0.06
#define GLICKO2_DEFAULT_TAU 0.5       /* paper: 0.3..1.2; 0.5 is its example */
#define GLICKO2_MIN_RD 30.0           /* floor so ratings never freeze */

typedef struct glicko2_rating {
  double rating;  /* Glicko scale (1500 = average) */
  double rd;      /* rating deviation */
  double vol;     /* volatility sigma */
} glicko2_rating;

typedef struct glicko2_game {
  double opp_rating, opp_rd;  /* the opponent before the period */
  double score;               /* 1 win, 0.5 draw, 0 loss */
} glicko2_game;

/* The player's rating after a period with n games (n may be 0: only the
 * deviation grows). tau constrains volatility change. *out may alias *p. */
void glicko2_update(const glicko2_rating *p, const glicko2_game *games,
                    size_t n, double tau, glicko2_rating *out);

#endif
