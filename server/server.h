/* server.h - the agond server: listener, connections, storage, accounts.
 *
 * Everything here runs on the loop thread (docs/protocol.md describes what
 * peers see; limits.h why each default). */
#ifndef AGON_SERVER_H
#define AGON_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "agon_err.h"

typedef struct server_config {
  const char *host;          /* listen address; default "127.0.0.1" */
  int port;                  /* 0 picks a free port; default 7878 */
  const char *db_path;       /* default "./var/agon.db" (dir created) */
  int synchronous;           /* 0 OFF, 1 NORMAL, 2 FULL (default) */
  size_t max_line;           /* CONN_MAX_LINE_DEFAULT */
  size_t wq_high, wq_low, wq_max;
  uint64_t stall_ms, hello_timeout_ms, idle_timeout_ms;
  uint64_t ping_interval_ms, ping_timeout_ms, shutdown_deadline_ms;
  double rate, burst, strikes;      /* per connection */
  double addr_rate, addr_burst;     /* per address */
  unsigned addr_max_conns, max_conns;
  /* accounts */
  int pwhash_fast;           /* argon2id at the library minimum (tests only) */
  unsigned token_ttl_s;
  unsigned login_addr_burst, login_addr_period_ms;
  unsigned login_account_burst, login_account_period_ms;
  /* live play */
  uint64_t claim_grace_ms;   /* 0: by time control (limits.h ROOM_GRACE_*) */
} server_config;

void server_config_init(server_config *cfg);

typedef struct server server;

/* Opens the database (migrations run here, blocking: start-up), starts the
 * accounts service and listens. *out is NULL on error. cfg is copied
 * (strings must outlive the server). */
int server_new(server **out, uv_loop_t *loop, const server_config *cfg,
               agon_err *err);
/* Port actually bound (useful with port 0). */
int server_port(const server *s);
/* Graceful stop: close the listener, send every peer a shutdown event, drain
 * their output until the deadline, close them, close accounts then the
 * database (every queued write commits). done_cb(arg) runs on the loop when
 * everything server-owned is closed; then server_free. Idempotent. */
void server_shutdown(server *s, const char *reason, void (*done_cb)(void *),
                     void *arg);
/* Frees what is left (after done_cb, or after a failed start). */
void server_free(server *s);

#endif
