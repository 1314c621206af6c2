/* server_int.h - the server struct shared by server.c, conn.c and
 * handlers.c (not a public interface: use server.h). */
#ifndef AGON_SERVER_INT_H
#define AGON_SERVER_INT_H

#include <uv.h>

#include "accounts.h"
#include "limits.h"
#include "conn.h"
#include "db.h"
#include "ratelimit.h"
#include "server.h"

struct server {
  uv_loop_t *loop;
  server_config cfg;
  uv_tcp_t *listener;        /* heap, like every handle of the server's: */
  uv_timer_t *shutdown_timer; /* freed by its close_cb, which may run after
                                 server_free (a failed start) */
  int port;
  db *db;
  accounts *acc;
  rl_table *addrs;
  struct ops *ops;         /* PROXY listener, metrics, backup (ops.h) */
  conn *conns;             /* open (not closing) connections */
  conn *by_player[SERVER_PLAYER_SLOTS]; /* logged-in open connections,
                              chained by pnext (conn_set_player) */
  conn *flush_head;        /* connections with gathered output, in the */
  conn *flush_tail;        /* order they were first queued (FIFO) */
  char *rbuf;              /* read buffer shared by all connections
                              (conn.c), PROTO_FRAMER_BUFSIZE(max_line) */
  uv_prepare_t *flush_prep; /* heap: freed by their close_cb */
  uv_check_t *flush_check;
  unsigned nconns;
  unsigned nalive;         /* allocated connections, closing ones included */
  uint64_t next_conn_id;
  struct rooms *rooms;     /* live games (room.c) */
  struct lobby *lobby;     /* seeks, challenges, invites (lobby.c) */
  uv_timer_t *index_timer; /* the move index sweep (gamestore.h); heap:
                              freed by its close_cb */
  int index_busy;
  char *hello_data;        /* encoded hello "data" (built once) */
  size_t hello_len;
  /* shutdown */
  int stopping, stop_phase;
  void (*done_cb)(void *);
  void *done_arg;
};

/* conn.c tells the server a connection left the open list / was freed. */
void server_conn_gone(struct server *s);

#endif
