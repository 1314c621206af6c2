/* games.h - the hook tables of the built-in games (one module each). */
#ifndef AGON_GAMES_H
#define AGON_GAMES_H

#include "../game.h"

extern const game_vtable gambo19_vtable;  /* games/gambo_2019.c */
extern const game_vtable gambo23_vtable;  /* games/gambo_2023.c */
extern const game_vtable gok_vtable;      /* games/gambit_of_kings.c */
extern const game_vtable gwez_vtable;     /* games/gwezboell.c */
extern const game_vtable gomony_vtable;   /* games/gomony.c */

#endif
