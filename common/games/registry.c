/* registry.c - every game the server offers, in display order. */
#include "games.h"

const game_vtable *const game_registry[] = {
    &gambo23_vtable, &gambo19_vtable, &gok_vtable, &gwez_vtable, &gomony_vtable,
    NULL,
};
