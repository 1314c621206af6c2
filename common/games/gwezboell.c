/* gwezboell.c - PLACEHOLDER hook table until the Gwezboell module lands.
 * Every entry point reports that the game is not available. */
#include "games.h"

static int gwez_unavail(agon_err *err) {
  return agon_err_set(err, AGON_EUNKNOWNGAME, "gwezboell is not built yet");
}
static int gwez_init(game_state *st, const game_setup *s, uint64_t seed, agon_err *err) {
  (void)st; (void)s; (void)seed; return gwez_unavail(err);
}
static int gwez_from_position(game_state *st, const game_setup *s, const char *p, size_t n, agon_err *err) {
  (void)st; (void)s; (void)p; (void)n; return gwez_unavail(err);
}

const game_vtable gwez_vtable = {
    .name = "gwezboell", .title = "Gwezboell", .version = 0,
    .side_names = {"defenders", "attackers"}, .state_size = 8,
    .init = gwez_init, .from_position = gwez_from_position,
};
