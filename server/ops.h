/* ops.h - the operations side of agond (docs/operations.md):
 *  - a PROXY protocol (v1/v2) listener, for a TLS terminator in front
 *    (deploy/haproxy.cfg): the real client address from the header is the
 *    connection's address for per-address limits and logs. Only that
 *    listener accepts the header; the plain one never does, so a client
 *    cannot forge its address there.
 *  - a metrics (Prometheus text format) and health HTTP endpoint on its own
 *    listener: GET /metrics, GET /healthz (200 "ok", 503 "draining" once
 *    shutdown began, so a load balancer stops sending players).
 *  - online backup on SIGUSR1 (backup.h).
 * Each is off unless configured (server_config proxy_port,
 * metrics_listen; backup always armed). Loop thread only.
 */
#ifndef AGON_OPS_H
#define AGON_OPS_H

#include "agon_err.h"

struct server;
typedef struct ops ops;

/* Called at the end of server_new. *out is set even on error (ops_close
 * releases what was opened). */
int ops_start(ops **out, struct server *s, agon_err *err);
/* Shutdown began (server_shutdown): close the PROXY listener and drop the
 * handshakes in progress; /healthz turns 503. Idempotent. */
void ops_drain(ops *o);
/* Everything else closes (handles with uv_close; the loop must run once
 * more). A running backup is aborted. NULL is fine. */
void ops_close(ops *o);

/* Bound ports (-1 when off). */
int ops_proxy_port(const ops *o);
int ops_metrics_port(const ops *o);
/* Prints "proxy listening on H:P" / "metrics listening on H:P" lines on
 * stdout for what is enabled (after agond's first "listening on" line). */
void ops_announce(const struct server *s);

#endif
