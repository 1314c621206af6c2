/* conn.h - one client connection: framing, rate limits, write queue with
 * backpressure, timeouts, and its close contract.
 *
 * Lifetime: conn_accept allocates; conn_close (or conn_end, graceful) starts
 * closing: reads stop, timers stop, uv_close on both handles. The memory is
 * freed in the last close_cb AND only when no asynchronous operation is
 * pending (conn_op_begin/conn_op_end), so a late accounts/db callback never
 * touches freed memory. Nothing is freed inside a read callback.
 */
#ifndef AGON_CONN_H
#define AGON_CONN_H

#include <jansson.h>
#include <stdint.h>
#include <uv.h>

#include "proto.h"
#include "ratelimit.h"
#include "wbuf.h"

struct server;

/* Messages one connection may gather before they are written: beyond, the
 * oldest ones are written at once. A move needs two (reply and event). */
#define CONN_PEND_MAX 4

typedef struct conn {
  uv_tcp_t tcp;            /* first: (conn *)handle works for the stream */
  uv_timer_t timer;        /* single-shot: the nearest deadline */
  struct server *srv;
  struct conn *prev, *next; /* server's list of open connections */
  uint64_t id;
  rl_addr *addr;           /* per-address entry (conns counted), or NULL */
  char peer[48];           /* "127.0.0.1" (no port) */
  unsigned short peer_port;

  proto_framer fr;         /* its buffer is allocated on first read and
                              released whenever it holds no partial line */
  size_t wq_bytes;         /* queued output not yet written */
  /* Output of this loop iteration, written at its end with one writev
   * (conn_flush_all): a move's reply and event to the mover, or replies to
   * pipelined requests, cost one syscall instead of one each. */
  wbuf *pend[CONN_PEND_MAX];
  struct conn *flush_next; /* server's list of connections with pend */

  uint64_t opened_ms, last_rx_ms, last_req_ms, wq_progress_ms, ping_sent_ms;
  uint64_t end_ms;         /* graceful end started (linger deadline) */
  int64_t rtt_ms;          /* last measured round trip, -1 before any */
  uint32_t ping_nonce;
  rl_bucket bucket, strikes;

  unsigned pending;        /* async operations holding a pointer to us */
  unsigned char handles;   /* open uv handles (tcp, timer) */
  unsigned char closing, ending, paused, hello, ping_out, busy;
  unsigned char npend, flush_queued;

  /* session (after register/login/resume) */
  int64_t player_id, session_id;  /* set with conn_set_player */
  struct conn *pnext, **pprev; /* server's by_player chain (open only) */
  char name[24];

  /* live play */
  struct room_att *atts;   /* rooms this connection is attached to */
  unsigned short natts;
  unsigned char lobby_sub; /* gets seek_added/seek_removed */
  /* spectating and chat (spectate.h); no login needed to watch */
  struct spec_att *specs;  /* games this connection watches */
  unsigned short nspecs;
  unsigned short nlagging; /* watched games whose events it skipped */
  unsigned char chat_init; /* chat_bucket initialised */
  rl_bucket chat_bucket;   /* CHAT_RATE */
} conn;

/* Accept one pending connection on the listener. */
void conn_accept(struct server *s, uv_stream_t *listener);
/* Take over an accepted socket fd (steals it: closed on every path) whose
 * client address is *peer: the PROXY listener (ops.c) hands over
 * connections this way, with the address from the PROXY header. */
void conn_adopt(struct server *s, uv_os_sock_t fd,
                const struct sockaddr_storage *peer);

/* Queue b (borrowed: a reference is taken while needed). It is written at
 * the end of the current loop iteration together with the connection's
 * other messages of that iteration (conn_flush_all), in order. Over the
 * hard cap the connection is closed instead. No-op once closing/ending. */
void conn_send(conn *c, wbuf *b);
/* Write every connection's gathered messages (server.c runs it from a
 * uv_prepare and a uv_check handle: after the timers and after the I/O
 * callbacks of every iteration). */
void conn_flush_all(struct server *s);
/* Encode j (borrowed) and queue it. */
void conn_send_json(conn *c, const json_t *j);
/* Replies. id borrowed; data steals. */
void conn_reply_ok(conn *c, const char *re, json_t *id, json_t *data);
/* Success reply whose "data" is already encoded JSON (data_json, len
 * bytes): hello and ping are answered without building a tree. */
void conn_reply_raw(conn *c, const char *re, json_t *id, const char *data_json,
                    size_t len);
/* The start of that reply, {"re":re,"id":id,"ok":true,"data": (the "id" pair
 * omitted when id is NULL), into out: its length, or 0 if it does not fit
 * (CONN_REPLY_HEAD_MAX always does). For replies encoded by their caller. */
#define CONN_REPLY_HEAD_MAX (PROTO_TYPE_NAME_MAX + PROTO_ID_STR_MAX * 6 + 64)
size_t conn_reply_head(char *out, size_t cap, const char *re, const json_t *id);
void conn_reply_err(conn *c, const char *re, json_t *id, int code,
                    const char *msg);
void conn_reply_err_retry(conn *c, const char *re, json_t *id, int code,
                          const char *msg, long long retry_after_ms);
/* {"event":"disconnect","reason":reason,"message":msg} then conn_end. */
void conn_kick(conn *c, const char *reason, const char *msg);
/* Same with "retry_after_ms" in the event when retry_after_ms >= 0. */
void conn_kick_retry(conn *c, const char *reason, const char *msg,
                     long long retry_after_ms);

/* Graceful: stop reading, FIN after the queued output, close when done or
 * after CONN_LINGER_MS. */
void conn_end(conn *c);
/* Hard close now (queued output dropped). why is logged. Idempotent. */
void conn_close(conn *c, const char *why);

/* Log c in as player pid (0: log out), keeping the server's player index
 * current. A closing connection is not indexed. */
void conn_set_player(conn *c, int64_t pid);
/* Open connections of player pid: first, then next (NULL at the end).
 * O(chain) instead of O(connections). A conn_close during the walk
 * unlinks that connection: take the next one before anything that may
 * close, or snapshot the targets. */
conn *conn_player_first(struct server *s, int64_t pid);
conn *conn_player_next(const conn *c);

/* Async operations: begin before handing c to a callback-taking API; in the
 * callback, conn_op_end returns 1 when c is still usable (not closing), and
 * 0 when it is closing (it may have been freed by this very call then: do
 * not touch c afterwards). */
void conn_op_begin(conn *c);
int conn_op_end(conn *c);

#endif
