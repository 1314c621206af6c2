/* session.h - the client's protocol session: one TCP connection to agond
 * speaking docs/protocol.md through libproto (framing, encoding).
 *
 * This layer knows messages, not screens: the UI (play view, subcommands)
 * calls sess_request for request/reply pairs and gets every server event
 * through the event callback. Keepalive is handled here (the server's
 * {"event":"ping"} is answered with pong at once). Live play (online.c)
 * uses the same two paths: requests for moves and actions, the event
 * callback for the game's broadcasts.
 *
 * Blocking with deadlines (poll): the client has one user and one
 * connection, so an event loop library would buy nothing. TLS (sess_net)
 * wraps the socket I/O only; the waits stay the same.
 */
#ifndef AGON_SESSION_H
#define AGON_SESSION_H

#include <jansson.h>
#include <stddef.h>

#include "agon_err.h"
#include "proto.h"

/* Longest line accepted from the server: its whole output cap (hello with
 * every game's options is the largest reply). */
#define SESS_MAX_LINE (1u << 20)
#define SESS_TIMEOUT_MS 10000

/* How to reach the server beyond host:port; kept across sess_reconnect.
 * tls: wrap the connection in TLS (OpenSSL), verifying the certificate
 * chain (ca, or the system store when ca is empty) and the host name
 * (SSL_set1_host, or the IP address for a numeric host). source: local
 * address to bind before connecting (multi-homed hosts; tests use it to
 * tell the client's address from a proxy's), empty for any. */
typedef struct sess_net {
  int tls;
  char ca[512];
  char source[64];
} sess_net;

struct sess;
struct ssl_st;
struct ssl_ctx_st;
/* ev: borrowed, the whole event object. */
typedef void (*sess_event_cb)(struct sess *s, const json_t *ev, void *arg);

typedef struct sess {
  int fd;
  sess_net net;
  struct ssl_ctx_st *ssl_ctx;  /* owned, NULL without TLS */
  struct ssl_st *ssl;          /* owned, NULL without TLS */
  proto_framer fr;
  char *buf;            /* owned framer buffer */
  long long next_id;
  long long want_id;    /* reply being waited for, or -1 */
  json_t *reply;        /* new: the reply that arrived for want_id */
  json_t *hello;        /* new: data of the hello reply, or NULL */
  sess_event_cb on_event;
  void *ev_arg;
  int closed;           /* the connection ended */
  char close_reason[160];
  long long player_id;  /* after register/login/resume, else 0 */
  char name[64];
} sess;

/* Connect to host:port (numeric or resolvable) within timeout_ms.
 * 0 or AGON_ETIMEOUT / AGON_EINVAL with err. */
int sess_connect(sess *s, const char *host, int port, int timeout_ms,
                 agon_err *err);
/* The same with net (borrowed, copied; NULL: plain TCP). A TLS handshake
 * or verification failure is AGON_EFORBIDDEN with the reason in err (an
 * untrusted certificate, a host name mismatch): never retried. */
int sess_connect_net(sess *s, const char *host, int port,
                     const sess_net *net, int timeout_ms, agon_err *err);
/* Send hello; s->hello gets the data. */
int sess_hello(sess *s, const char *client, agon_err *err);
/* The client's name in hello. */
#define SESS_CLIENT_NAME "agon-cli 0.1"
/* What every command starts with: refuse --ca without --tls (AGON_EINVAL;
 * s is left closed), connect (sess_connect_net) and say hello. */
int sess_open(sess *s, const char *host, int port, const sess_net *net,
              agon_err *err);
/* Send {"type":type,"id":N,...fields} (fields: steals, may be NULL) and wait
 * for its reply. ok: 0 and *data (optional) a new reference to "data".
 * Error reply: the negative code of error.code, err->msg = its message
 * (and *retry_after_ms when given, else -1). Connection loss or timeout:
 * AGON_ESHUTDOWN / AGON_ETIMEOUT. Events arriving meanwhile are dispatched. */
int sess_request(sess *s, const char *type, json_t *fields, int timeout_ms,
                 json_t **data, long long *retry_after_ms, agon_err *err);
/* Read and dispatch whatever arrives within timeout_ms (0: only what is
 * already there). For live play: poll sess_fd, then call this. */
int sess_pump(sess *s, int timeout_ms, agon_err *err);
int sess_fd(const sess *s);
/* Convenience: register / login (store name and id; *token gets the new
 * token), resume, logout. */
int sess_register(sess *s, const char *name, const char *password,
                  char *token, size_t cap, agon_err *err);
int sess_login(sess *s, const char *name, const char *password, char *token,
               size_t cap, agon_err *err);
int sess_resume(sess *s, const char *token, agon_err *err);
int sess_logout(sess *s, agon_err *err);
/* After a lost connection (AGON_ESHUTDOWN from a request): connect again,
 * retrying with backoff (100 ms doubling to 2 s) for up to within_ms, say
 * hello and, with a token, resume the session. The event callback is kept.
 * This is how the client survives a server restart or a network drop; live
 * play will resubscribe to its game after it. 0, or the last error. */
int sess_reconnect(sess *s, const char *host, int port, const char *token,
                   int within_ms, agon_err *err);
void sess_close(sess *s);

#endif
