/* online.h - one live game on the server, mirrored on the local rules core:
 * the online play_backend.
 *
 * The server is the referee; the client keeps a game_match of its own so
 * the play view can draw the board, complete and pre-check moves. A move
 * typed is sent as a `move` request with the last seen seq; the local copy
 * changes only when the server's `move` event (or join's replay) arrives,
 * applied in seq order and never twice. Clocks come from the server and are
 * only counted down locally between its updates. A lost connection is
 * reconnected (sess_reconnect), the session resumed, and `join` with
 * since_seq brings the missed events (docs/protocol.md, Reconnecting).
 */
#ifndef AGON_ONLINE_H
#define AGON_ONLINE_H

#include <jansson.h>

#include "play.h"
#include "session.h"

#define ONLINE_RECONNECT_MS 30000
/* A chat line as kept: two of them and a newline must fit the view's
 * message (PLAY_MSG_MAX, 1024). A longer line ("[spectator] NAME: " + up to
 * CHAT_MAX_TEXT, 500 bytes) is cut: the view shows only a screen's width
 * of it anyway. */
#define ONLINE_CHAT_LINE 500

/* The request in flight that commits one game event (a move or a game
 * action), for telling after a lost connection whether the server
 * committed it before the loss. A seq that moved on says nothing by itself
 * (the opponent's draw offer, a flag fall...): only the request's own
 * event, by our seat, does. apply_event looks at every event it applies
 * while one is pending; join's snapshot decides when it replaces the
 * events (online.c, expect_*). */
enum { ONLINE_X_NONE, ONLINE_X_PENDING, ONLINE_X_DONE, ONLINE_X_NOT };
typedef struct online_expect {
  int state;               /* ONLINE_X_*: NONE when nothing is in flight */
  const char *type;        /* the request: "move", "resign", "claim", ... */
  const char *result;      /* claim: "win" or "draw" (borrowed) */
  long long after;         /* o->seq when it was first sent */
  long long at;            /* DONE: the seq of its event (or the
                              snapshot's seq) */
  long long ply;           /* move: the server's ply when sent */
  int my_turn;             /* move: our seat was to move when sent */
} online_expect;

typedef struct online {
  sess *s;                 /* borrowed */
  const char *host;        /* borrowed, for reconnecting */
  int port;
  char token[160];         /* session token, for reconnecting */
  play *p;                 /* borrowed, initialised by online_load */
  play_backend be;
  long long game_id;
  long long seq;           /* last game seq applied */
  long long ply;           /* the server's ply (moves played) at seq */
  online_expect x;         /* the request in flight, if any */
  int my_seat;             /* 0/1, -1 when not a player */
  int seat_side[2];        /* side index of each seat, -1 before choosing */
  int chooser_seat;        /* -1 when not a chooser game */
  char names[2][64];       /* by seat */
  char side_names[2][72];  /* by side (for the view): name + " (you)" */
  char end_reason[48];     /* game_end reason (game_match_end keeps it) */
  json_t *end;             /* new: the game_end event, once seen */
  json_t *options;         /* new: the game's options as the server sent */
  int loaded;
  int lost;                /* the connection dropped; reconnect pending */
  int ending;              /* a move event said the game ended: game_end
                              follows (the local copy may not know, e.g.
                              repetition across a fresh join) */
  int resync;              /* a seq gap or game_reload: join again */
  int watching;            /* a spectator: `watch` instead of `join`, no
                              moves, chat in the spectators' room */
  long long spectators;    /* the count, from the snapshot and the
                              `spectators` events (-1 unknown) */
  /* The opponent's connection is gone (opponent_gone, or join's snapshot
   * with opponent_connected false): the status line counts down to
   * claim_at (monotonic ms), when `claim win|draw` becomes possible.
   * Cleared by opponent_back and by the end of the game. */
  int opp_gone;
  long long claim_at;
  char mode[64];           /* the view's title (watch mode shows the count) */
  /* The last two chat lines, oldest first: the view's two message rows
   * are the chat panel (another message replaces them until the next
   * line arrives). 2 rows x 80 columns is all a 80x24 screen has. */
  char chat[2][ONLINE_CHAT_LINE];
  /* Called after each event is applied (broadcast or replay), once per
   * seq: a replayed or repeated seq does not call it again. Events
   * without seq (chat, spectators) always do. For streaming watchers. */
  void (*hook)(struct online *o, const json_t *ev, void *arg);
  void *hook_arg;
} online;

/* Attach to sess s (sets its event callback) for game_id. */
void online_init(online *o, sess *s, play *p, const char *host, int port,
                 const char *token, long long game_id);
void online_close(online *o);
/* Load the game from a game_start event or join's "game" snapshot
 * (borrowed). 0 or an AGON_E* code. */
int online_load(online *o, const json_t *start, agon_err *err);
/* join (since_seq = o->seq when loaded) and apply what it returns. */
int online_join(online *o, agon_err *err);
/* Send a move (canonical or any notation) with the last seq; returns when
 * the server's reply arrived and its move event is applied (the game_end
 * too when the move ended the game). After a lost connection it
 * reconnects and rejoins: the move counts as committed only if the event
 * at the seq it was sent with + 1 is a move of our seat; otherwise it is
 * sent once more with the current seq, and the server's reply (or typed
 * error: stale_seq, not_your_turn, game_over...) is the answer. 0 or an
 * AGON_E* code with err. */
int online_move(online *o, const char *move, agon_err *err);
/* A game action request (resign, draw_offer, ...): 0 or AGON_E*. A lost
 * connection is handled as for moves: done if the rejoin shows the
 * action's own event by our seat (a game_end with its reason for the
 * ending actions), else sent once more. */
int online_action(online *o, const char *type, agon_err *err);
/* claim after the opponent's disconnection: result "win" or "draw".
 * 0, or AGON_E* (the server's bad_state while the grace period runs). */
int online_claim(online *o, const char *result, agon_err *err);
/* Read what has arrived (waiting up to timeout_ms), reconnecting when the
 * connection was lost. 0 or an AGON_E* code. */
int online_pump(online *o, int timeout_ms, agon_err *err);
/* Is the game over or its game_end on the way? */
int online_over(const online *o);
/* Seat of the player to move, -1 when none (over, or unknown). */
int online_seat_to_move(const online *o);
/* Send a chat line to the game's room: the spectators' when watching,
 * else the players'. 0 or AGON_E*. */
int online_chat(online *o, const char *text, agon_err *err);
/* Summary for scripts: game_id, seq, game, position, to_move (side name or
 * "chooser"), to_move_player, players, outcome/result. New reference. */
json_t *online_state_json(const online *o);

#endif
