/* bench_perft.c - perft speed of every game on one core (nodes/second).
 *
 * usage: bench_perft [SECONDS_PER_GAME]   (default 3)
 * For each game, from its start position (seed 0; Gambo after `choose
 * north`), runs perft at increasing depth until one run takes at least the
 * given time or the depth limit is reached, and prints the last run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  double budget = argc > 1 ? atof(argv[1]) : 3.0;
  static uint64_t hist[64];
  printf("%-16s %5s %14s %9s %14s\n", "game", "depth", "nodes", "seconds", "nodes/s");
  for (size_t i = 0; game_registry[i]; i++) {
    const game_vtable *vt = game_registry[i];
    game_setup s;
    game_setup_init(&s, vt);
    static game_match m;
    agon_err err;
    if (game_match_init(&m, &s, 0, hist, 64, &err) < 0) {
      printf("%-16s unavailable: %s\n", vt->name, err.msg);
      continue;
    }
    if (game_match_to_move(&m) == GAME_CHOOSER) game_match_play(&m, "choose north", 12, NULL, &err);
    for (unsigned d = 1; d <= 12; d++) {
      double t0 = now();
      uint64_t n = game_perft(vt, &m.st, d);
      double dt = now() - t0;
      if (dt >= budget || d == 12 || n == 0) {
        printf("%-16s %5u %14llu %9.3f %14.0f\n", vt->name, d, (unsigned long long)n, dt,
               dt > 0 ? (double)n / dt : 0.0);
        break;
      }
      /* Stop before a depth that would take far longer than the budget. */
      if (dt * 40 > budget * 4 && d > 3) {
        printf("%-16s %5u %14llu %9.3f %14.0f\n", vt->name, d, (unsigned long long)n, dt,
               dt > 0 ? (double)n / dt : 0.0);
        break;
      }
    }
  }
  return 0;
}
