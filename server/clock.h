/* clock.h - game clocks measured by the server: Fischer (base + increment
 * per move), correspondence (a fixed time per move, in days) and untimed.
 * Pure arithmetic on caller-supplied monotonic milliseconds (the room passes
 * uv_now), so it is exact to test and never reads a clock itself.
 *
 * Clocks belong to seats (0, 1: the two players), not to game sides: in
 * Gambo a player may act several times in a row, and before the side choice
 * sides are not assigned yet. The room tells the clock whose turn it is. */
#ifndef AGON_CLOCK_H
#define AGON_CLOCK_H

#include <stdint.h>

#include "agon_err.h"

typedef enum clock_kind {
  CLOCK_UNTIMED = 0,
  CLOCK_FISCHER = 1,
  CLOCK_CORRESPONDENCE = 2
} clock_kind;

typedef struct clock_tc {
  clock_kind kind;
  int64_t base_ms;  /* Fischer: initial time; correspondence: time per move */
  int64_t inc_ms;   /* Fischer: added after each of the mover's moves */
} clock_tc;

#define CLOCK_MAX_BASE_MS (24LL * 3600 * 1000)        /* Fischer: 24 h */
#define CLOCK_MAX_INC_MS (3600LL * 1000)              /* Fischer: 1 h */
#define CLOCK_MAX_CORR_DAYS 30                        /* per move */

/* Parse "untimed", "B+I" (minutes + seconds, e.g. "5+3", "0.5+0") or
 * "corr:D" (days per move). AGON_EINVAL with a message otherwise. */
int clock_tc_parse(clock_tc *tc, const char *text, agon_err *err);
/* Canonical text of tc into buf (at least 32 bytes). */
void clock_tc_format(const clock_tc *tc, char *buf, unsigned long cap);

typedef struct game_clock {
  clock_tc tc;
  int64_t remaining[2];  /* ms left per seat (correspondence: for this move) */
  int running;           /* seat whose time runs, or -1 */
  int64_t since;         /* monotonic ms when it started running */
} game_clock;

void clock_init(game_clock *c, const clock_tc *tc);
/* Start seat's time at now (stops nobody: call clock_switch between moves). */
void clock_start(game_clock *c, int seat, int64_t now);
/* The running seat made a move at now: charge it, add the increment (or
 * reset the per-move time), and start `next` (-1: stop). Returns the
 * mover's remaining time after the move; <= 0 means the flag had fallen
 * before the move arrived (the room then declares a loss on time). */
int64_t clock_switch(game_clock *c, int next, int64_t now);
/* Stop the clock without charging increment (game over, server stopping):
 * the elapsed time is charged. */
void clock_stop(game_clock *c, int64_t now);
/* Remaining ms of seat at now (running time deducted), may be <= 0. */
int64_t clock_remaining(const game_clock *c, int seat, int64_t now);
/* Ms until the running seat's flag falls (for a single-shot timer); -1 if
 * nothing runs or the game is untimed. */
int64_t clock_flag_in(const game_clock *c, int64_t now);

#endif
