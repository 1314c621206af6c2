/* complete.h - Tab completion of moves from the rules core's legal moves.
 *
 * The candidates are exactly the legal moves of the position (game_match_
 * legal, formatted with format_move) whose canonical text starts with what
 * was typed, compared case-insensitively after leading blanks. This is a
 * convenience only: online, the server decides.
 */
#ifndef AGON_COMPLETE_H
#define AGON_COMPLETE_H

#include <stddef.h>

#include "game.h"

typedef struct complete_list {
  size_t n;
  char **v;  /* owned, sorted, unique */
} complete_list;

/* Fill *out (OUT) with the legal moves of m matching prefix. Returns n. */
size_t complete_moves(const game_match *m, const char *prefix,
                      complete_list *out);
/* Names from a NULL-terminated list matching prefix (commands). */
size_t complete_words(const char *const *words, const char *prefix,
                      complete_list *out);
void complete_free(complete_list *l);
/* Length of the longest prefix all candidates share (0 when none). */
size_t complete_common(const complete_list *l);

#endif
