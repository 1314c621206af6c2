/* gomony.c - PLACEHOLDER hook table until the Gomony module lands.
 * Every entry point reports that the game is not available. */
#include "games.h"

static int gomony_unavail(agon_err *err) {
  return agon_err_set(err, AGON_EUNKNOWNGAME, "gomony is not built yet");
}
static int gomony_init(game_state *st, const game_setup *s, uint64_t seed, agon_err *err) {
  (void)st; (void)s; (void)seed; return gomony_unavail(err);
}
static int gomony_from_position(game_state *st, const game_setup *s, const char *p, size_t n, agon_err *err) {
  (void)st; (void)s; (void)p; (void)n; return gomony_unavail(err);
}

const game_vtable gomony_vtable = {
    .name = "gomony", .title = "Gomony", .version = 0,
    .side_names = {"white", "black"}, .state_size = 8,
    .init = gomony_init, .from_position = gomony_from_position,
};
