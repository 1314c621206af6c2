/* history.h - stored games in the client: the history query, profiles, the
 * leaderboard, exports and the history browser (replay).
 *
 * Everything here reads the server's public history (docs/protocol.md,
 * History and Ratings): no login is needed. A replay fetches game_record
 * once and rebuilds the game on the local rules core (game_match through
 * play_apply), so the board, the move list and the outcome come from the
 * same code that draws live games; stepping backward replays from the
 * start (games are short; simple and always right).
 */
#ifndef AGON_HISTORY_H
#define AGON_HISTORY_H

#include "agon_err.h"
#include "session.h"
#include "term.h"

/* Is argv (the whole command line) one of this module's subcommands
 * (history, profile, leaderboard, export, replay)? */
int history_is_command(int argc, char **argv);

/* Run such a subcommand with its own options (connection options as for
 * every agon command). Exit status: 0, 1 the server said no, 2 usage. */
int history_main(int argc, char **argv);

/* The full-screen history browser on an open terminal t (borrowed) for
 * game_id, read from the open session s (borrowed; hello done, no login
 * needed; it is used for game_record and `export`, and s's event callback
 * is left alone). Returns 0 when the user quits, or an AGON_E* code with
 * err when the game cannot be shown (no such game, not over yet, a record
 * the local rules core refuses). For the lobby: pick a game, call this. */
int history_replay(sess *s, long long game_id, term *t, agon_err *err);

#endif
