/* gambo_2023.c - PLACEHOLDER hook table until the Gambo (2023 rules) module lands.
 * Every entry point reports that the game is not available. */
#include "games.h"

static int gambo23_unavail(agon_err *err) {
  return agon_err_set(err, AGON_EUNKNOWNGAME, "gambo-2023 is not built yet");
}
static int gambo23_init(game_state *st, const game_setup *s, uint64_t seed, agon_err *err) {
  (void)st; (void)s; (void)seed; return gambo23_unavail(err);
}
static int gambo23_from_position(game_state *st, const game_setup *s, const char *p, size_t n, agon_err *err) {
  (void)st; (void)s; (void)p; (void)n; return gambo23_unavail(err);
}

const game_vtable gambo23_vtable = {
    .name = "gambo-2023", .title = "Gambo (2023 rules)", .version = 0,
    .side_names = {"south", "north"}, .state_size = 8,
    .init = gambo23_init, .from_position = gambo23_from_position,
};
