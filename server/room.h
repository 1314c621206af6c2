/* room.h - one live game: the authoritative rules state, the clocks, the
 * seats and the connections attached to it; and the table of live rooms.
 *
 * Loop thread only. A room exists for every active game (created when a
 * game starts, or at start-up by recovery) and for a finished game while a
 * connection is still attached to it (rematch). Moves and actions are
 * checked and applied to the room at once (so the next request sees them),
 * written to the database, and acknowledged/broadcast only from the write's
 * completion callback, in seq order (db.h delivers completions FIFO).
 *
 * A failed write makes the room "broken": every later request gets
 * storage_error until the in-flight writes have drained (they fail too:
 * gs_append_job refuses gaps); the room is then rebuilt from the database,
 * which holds exactly what was acknowledged, and attached connections get
 * `game_reload`. */
#ifndef AGON_ROOM_H
#define AGON_ROOM_H

#include <jansson.h>
#include <stdint.h>
#include <uv.h>

#include "clock.h"
#include "conn.h"
#include "game.h"
#include "gamestore.h"
#include "limits.h"
#include "proto.h"

struct server;
typedef struct room room;

/* A connection attached to a room: a node in two lists (the room's and the
 * connection's). */
typedef struct room_att {
  room *r;
  conn *c;
  int seat;                       /* 0, 1 */
  int spec_chat;                  /* opted in to the spectators' chat */
  struct room_att *rnext, *rprev; /* room's list */
  struct room_att *cnext;         /* connection's list (singly linked) */
} room_att;

/* What a new game needs (filled by the lobby from an accepted offer). */
typedef struct room_setup {
  const game_vtable *vt;
  json_t *options;        /* borrowed: validated options object */
  char tc_text[24];
  int rated;
  int creator_side;       /* side of seat 0: 0, 1, or -1 random */
  int64_t player[2];      /* seat 0 = creator */
  char name[2][24];
  int64_t rematch_of;     /* 0 or the previous game */
  int force_chooser_seat; /* -1: from the chooser option; else that seat */
  uint32_t delay_plies;   /* spectator delay: moves, or */
  int64_t delay_ms;       /* milliseconds (0: none) */
} room_setup;

/* Initialise/close the room table (server start/stop). */
void rooms_init(struct server *s);
void rooms_close(struct server *s);

/* Start-up recovery: rebuild every active game from the database at path
 * (its own read-only connection; blocks: before listening). */
int rooms_recover(struct server *s, const char *db_path, agon_err *err);

/* Create a game: seed, sides, the games row; when it is committed, the
 * room is created, every connection of both players attached and sent
 * game_start, then done(arg, game_id, status) runs (status 0 or AGON_E*).
 * Returns 0 or an error (then done never runs). */
int room_create(struct server *s, const room_setup *rs,
                void (*done)(void *arg, int64_t game_id, int status),
                void *arg, agon_err *err);

/* A connection closes or logs out: detach it from every room. */
void rooms_conn_gone(conn *c);

/* Handlers (handlers.c's table). */
void room_h_move(conn *c, proto_msg *m);
/* The move request with its fields already decoded (room_h_move, or the
 * flat fast path in handlers.c): seq < 0 when absent. */
void room_move(conn *c, proto_msg *m, int64_t game_id, const char *text,
               int64_t seq);
void room_h_resign(conn *c, proto_msg *m);
void room_h_draw_offer(conn *c, proto_msg *m);
void room_h_draw_accept(conn *c, proto_msg *m);
void room_h_draw_decline(conn *c, proto_msg *m);
void room_h_abort(conn *c, proto_msg *m);
void room_h_claim(conn *c, proto_msg *m);
void room_h_rematch_offer(conn *c, proto_msg *m);
void room_h_rematch_accept(conn *c, proto_msg *m);
void room_h_games_mine(conn *c, proto_msg *m);
void room_h_join(conn *c, proto_msg *m);
void room_h_leave(conn *c, proto_msg *m);
/* Spectating and chat (no login needed to list and watch). */
void room_h_games_live(conn *c, proto_msg *m);
void room_h_watch(conn *c, proto_msg *m);
void room_h_unwatch(conn *c, proto_msg *m);
void room_h_chat(conn *c, proto_msg *m);
void room_h_chat_subscribe(conn *c, proto_msg *m);

/* A connection closes: stop every watch of it (players detach through
 * rooms_conn_gone; watching survives a logout). */
void rooms_specs_gone(conn *c);
/* c's output drained (conn.c, c->nlagging set): every game it skipped
 * events of sends it a fresh game_snapshot now. */
void rooms_specs_drained(conn *c);

/* games[i] = live (not over) games of player pids[i]; pids sorted
 * ascending, n of them. One walk over the rooms: O(rooms log n), for the
 * lobby's `players` list. */
void rooms_count_live(const struct server *s, const int64_t *pids,
                      unsigned *games, size_t n);
/* qsort/bsearch order of int64_t player ids, the order rooms_count_live
 * wants. */
int rooms_pid_cmp(const void *a, const void *b);

/* Live rooms (for tests and memory measurements). */
unsigned rooms_count(const struct server *s);

#endif
