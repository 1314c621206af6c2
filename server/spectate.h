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
 * and, at the first broadcast after its queue fell to wq_low, gets a fresh
 * snapshot instead of the event (one encoding shared by every spectator
 * resyncing in that broadcast); the hard cap (wq_max) in conn_send still cuts
 * off a peer that never reads. So a slow spectator costs neither the players'
 * latency nor unbounded memory. */
#ifndef AGON_SPECTATE_H
#define AGON_SPECTATE_H

#include <sqlite3.h>
#include <stdint.h>

#include "conn.h"
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
/* Send b (borrowed) to every spectator of l (see above for laggards). */
void spec_broadcast(spec_list *l, wbuf *b, spec_snapshot_fn snap);

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
