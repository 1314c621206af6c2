/* gambo_common.h - what both Gambo rulesets share: the nine pieces, the
 * duel table, the home-row option syntax and the seeded deal
 * (docs/fair-deal.md). Both modules number pieces the same way:
 * 1..9 = E1 E2 E3 C1 C2 C3 M1 M2 M3, 0 = none. */
#ifndef AGON_GAMBO_COMMON_H
#define AGON_GAMBO_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "../agon_err.h"

#define GAMBO_NPIECES 9

/* Piece id from two characters ("E1".."M3", case-insensitive) at p, or 0
 * when len < 2 or they are not a piece code. */
static inline int gambo_piece_from(const char *p, size_t len) {
  int sp;
  if (len < 2) return 0;
  switch (p[0]) { /* p[0] first: p[1] may be past a NUL */
    case 'E': case 'e': sp = 0; break;
    case 'C': case 'c': sp = 1; break;
    case 'M': case 'm': sp = 2; break;
    default: return 0;
  }
  if (p[1] < '1' || p[1] > '3') return 0;
  return 3 * sp + (p[1] - '0');
}

/* Does attacker a beat defender d? Species cycle Elephant > Cat > Mouse >
 * Elephant; same species: the higher strength, the attacker winning ties.
 * Inline: it sits in both games' perft paths. */
static inline int gambo_attacker_wins(int a, int d) {
  int sa = (a - 1) / 3, sd = (d - 1) / 3;
  if (sa != sd) return sd == (sa + 1) % 3;
  return a >= d;
}

/* A home-row option (south=, north=): nine piece codes for columns a..i,
 * separated by commas and/or blanks, each exactly once, any case. Returns
 * 0 or AGON_EOPTION with a message naming the option. */
int gambo_parse_row(const char *name, const char *text, uint8_t row[9],
                    agon_err *err);

/* The documented deal: Fisher-Yates over E1..M3 (i = 8 down to 1, j =
 * game_rng_below(i + 1)) for South, then again from a fresh E1..M3 with the
 * same continuing stream for North. */
void gambo_deal(uint64_t seed, uint8_t rows[2][9]);

#endif
