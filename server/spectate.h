/* spectate.h - the spectators of one live game and the game's chat rooms.
 *
 * Loop thread only. Spectators are kept apart from the players' room_att
 * list: a room has at most ROOM_MAX_ATT player connections (collected into
 * a stack array per broadcast) but up to SPEC_MAX_PER_ROOM spectators, so
 * they get their own intrusive list and a broadcast that walks it without
 * copying.
 *
 * Broadcasts reuse the room's wbuf (encoded once for everybody). A spectator
 * whose write queue is above the server's wq_high mark is skipped ("lagging")
 * and, as soon as its queue falls to wq_low (conn.c's write_cb calls
 * rooms_specs_drained), gets a fresh snapshot; a broadcast meeting a
 * drained laggard first sends it the snapshot instead of the event (one
 * encoding shared by every spectator resyncing in that broadcast). The
 * stall timeout and the hard cap (wq_max) still cut off a peer that never
 * reads. So a slow spectator costs neither the players'
 * latency nor unbounded memory. */
#ifndef AGON_SPECTATE_H
#define AGON_SPECTATE_H

#include <sqlite3.h>
#include <stdint.h>
#include <uv.h>

#include "conn.h"
#include "game.h"
#include "limits.h"
#include "wbuf.h"

struct room;

typedef struct spec_att {
  struct room *r;
  conn *c;
  struct spec_att *rnext, *rprev; /* room's list */
  struct spec_att *cnext;         /* connection's list (singly linked) */
  uint8_t lagging;                /* events skipped: resync by snapshot */
} spec_att;

/* Embedded in the room (zeroed with it). */
typedef struct spec_list {
  spec_att *head;
  unsigned n;
  unsigned count_sent;            /* the count the players last got */
  uint64_t count_sent_ms;         /* when (loop ms) */
} spec_list;

/* Builds the spectators' snapshot event of r (new ref wbuf), or NULL. */
typedef wbuf *(*spec_snapshot_fn)(struct room *r);

/* Attach c as a spectator of r (list l of r). Returns 0 (also when already
 * attached; *out then the existing node), or AGON_ETOOLARGE (room or
 * connection full). Counts the spectators metric. */
int spec_add(spec_list *l, struct room *r, conn *c, spec_att **out);
/* The node of c in r's list, or NULL. */
spec_att *spec_find(conn *c, const struct room *r);
/* Unlink a from its room's list l and from its connection, free it. */
void spec_remove(spec_list *l, spec_att *a);
/* Send b (borrowed) to every spectator of l (see above for laggards). A
 * laggard is resynced here or, sooner, when its queue drains
 * (spec_resync from rooms_specs_drained). */
void spec_broadcast(spec_list *l, wbuf *b, spec_snapshot_fn snap);

/* ---- spectator delay ----------------------------------------------------
 *
 * A game created with spectator_delay holds every event for its spectators
 * in a FIFO until it is due: by moves, an event is released once the game is
 * `plies` moves further (at the game's end everything is released: with no
 * more moves there is nothing left to relay); by time, `ms` after it was
 * committed (a single-shot timer armed for the head; the game_end and its
 * seed wait like the rest). The spectators' view of the game (snapshots,
 * games_live, watch's since_seq replay) is `vm`, a second match advanced
 * only by released moves, and `vis_seq`. The FIFO is bounded
 * (SPEC_DELAY_QUEUE_MAX): when full the oldest event is released early. */

typedef struct spec_delay_ev {
  wbuf *b;                        /* the broadcast (a reference) */
  uint32_t seq, ply;              /* ply: committed moves at that point */
  uint64_t due_ms;                /* loop ms (time delay) */
  uint8_t is_move, is_end, timed;
  int64_t clock_ms[2];
  char move[GAME_MOVE_TEXT_MAX];
} spec_delay_ev;

/* Applies a released event to the spectators' view and broadcasts it. */
typedef void (*spec_release_fn)(struct room *r, const spec_delay_ev *e);

typedef struct spec_delay {
  uv_timer_t timer;               /* time delay: due time of the head */
  struct room *r;
  spec_release_fn release;
  uint32_t plies;
  uint64_t ms;
  uint32_t cur_ply;               /* committed moves (the players' view) */
  uint32_t vis_seq;               /* last seq released to spectators */
  uint8_t ended;                  /* the game_end is queued */
  uint8_t vover;                  /* the game_end was released */
  uint8_t vtimed;
  int64_t vclock_ms[2];           /* clocks with the last released move */
  unsigned head, n;
  spec_delay_ev q[SPEC_DELAY_QUEUE_MAX];
  game_match vm;                  /* the spectators' view */
  uint64_t vhist[ROOM_HIST_CAP];
} spec_delay;

/* New delay (plies or ms non-zero) for r; vm is a copy the caller sets.
 * Free with spec_delay_free (closes the timer; memory freed in close_cb). */
spec_delay *spec_delay_new(uv_loop_t *loop, struct room *r, uint32_t plies,
                           uint64_t ms, spec_release_fn release);
void spec_delay_free(spec_delay *d);
/* Queue a committed event (b borrowed: a reference is taken). is_move:
 * ply is the move's ply and move its text; otherwise ply is the current
 * one. Releases whatever became due. */
void spec_delay_push(spec_delay *d, wbuf *b, uint32_t seq, uint32_t ply,
                     int is_move, int is_end, const char *move, int timed,
                     const int64_t clock_ms[2], uint64_t due_ms);
/* Release every due event (in order) and re-arm the timer. */
void spec_delay_pump(spec_delay *d);

/* a lagged and its connection drained: send it the snapshot (built by
 * snap), clear the flag. */
void spec_resync(spec_att *a, spec_snapshot_fn snap);

/* Whether the players should be told the spectator count now: it changed
 * and the last notice is at least SPEC_COUNT_MIN_MS old (a crowd arriving
 * must not flood the players with one event each). Marks it sent. */
int spec_count_due(spec_list *l, uint64_t now_ms);

/* Chat text check: 1..CHAT_MAX_TEXT bytes, no control characters (chat is
 * one line of text). Returns 0 or AGON_EBADFIELD. */
int spec_chat_text_ok(const char *text);

/* The chat row job (db_write): ctx is a spec_chat_row. */
typedef struct spec_chat_row {
  int64_t game_id, player_id, at_ms;
  int64_t chat_id;                /* OUT: the row id */
  char room[12];                  /* "players" | "spectators" */
  char *text;                     /* owned by the caller */
} spec_chat_row;
int spec_chat_job(sqlite3 *sq, void *ctx);

#endif
