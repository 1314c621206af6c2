/* gambit_of_kings.c - PLACEHOLDER hook table until the Gambit of Kings module lands.
 * Every entry point reports that the game is not available. */
#include "games.h"

static int gok_unavail(agon_err *err) {
  return agon_err_set(err, AGON_EUNKNOWNGAME, "gambit-of-kings is not built yet");
}
static int gok_init(game_state *st, const game_setup *s, uint64_t seed, agon_err *err) {
  (void)st; (void)s; (void)seed; return gok_unavail(err);
}
static int gok_from_position(game_state *st, const game_setup *s, const char *p, size_t n, agon_err *err) {
  (void)st; (void)s; (void)p; (void)n; return gok_unavail(err);
}

const game_vtable gok_vtable = {
    .name = "gambit-of-kings", .title = "Gambit of Kings", .version = 0,
    .side_names = {"light", "dark"}, .state_size = 8,
    .init = gok_init, .from_position = gok_from_position,
};
