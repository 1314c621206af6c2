/* view.h - the play screen: board renderers for the five games, the side
 * panel (players, clocks, turn, counters, move list), the status and message
 * lines and the command line, drawn into a term_frame.
 *
 * Everything is drawn from the rules core's view of the position
 * (game_match_view, i.e. the game's to_json) plus what the caller knows
 * (names, clocks, moves, messages): the same renderer serves the local
 * hot-seat game now and online play, watching and history later. Rendering
 * is a pure function of view_state, so tests compare frames as text.
 */
#ifndef AGON_VIEW_H
#define AGON_VIEW_H

#include <stddef.h>

#include "game.h"
#include "term.h"

typedef struct view_state {
  const game_match *m;      /* borrowed: the position shown */
  const char *mode;         /* title suffix: "local game", "watching", ... */
  const char *names[2];     /* players (NULL: the side names) */
  int last_mover;           /* side that made the last move, or -1 */
  const char *const *moves; /* borrowed: texts of the moves so far */
  size_t n_moves;
  const int *movers;        /* side of each move (may be NULL) */
  int clock_on;             /* clocks known (online); else "no clock" */
  long long clock_ms[2];    /* remaining time per side */
  int clock_running;        /* side whose clock runs, or -1 */
  const char *status;       /* one line above the messages (may be NULL) */
  const char *message;      /* up to two lines, '\n'-separated (may be NULL) */
  const char *prompt;       /* e.g. "light> " */
  const char *input;        /* command-line text being typed */
  int scroll;               /* move list: lines scrolled back from the end */
  int highlight;            /* move list: the move (1-based) to highlight,
                               later ones dimmed (history replay); 0: the
                               last move; -1: none */
} view_state;

/* Draw the whole screen into f (at f's size). *crow, *ccol: where the
 * cursor belongs (the end of the command line). Terminals smaller than
 * TERM_MIN_W x TERM_MIN_H get a notice instead. */
void view_render(term_frame *f, const view_state *v, int *crow, int *ccol);

/* Draw only the board of m with its top-left at (row, col); the last
 * move (m->last_text, played by last_mover) is highlighted. Returns the
 * rows used; *width (optional) gets the columns used. */
int view_board(term_frame *f, int row, int col, const game_match *m,
               int last_mover, int *width);

/* Short rules summary of a game for the `rules` command: a static string,
 * lines separated by '\n'. NULL for an unknown game. */
const char *view_rules(const char *game_name);

/* Side name capitalised ("Light") into buf. */
void view_side_title(const game_vtable *vt, int side, char *buf, size_t cap);

/* Human text of an outcome: "Light wins (castle captured)". */
void view_outcome_text(const game_vtable *vt, game_outcome o, char *buf,
                       size_t cap);

#endif
