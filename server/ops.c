/* ops.c - PROXY listener, metrics/health endpoint, backup signal. */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backup.h"
#include "limits.h"
#include "limits_ops.h"
#include "log.h"
#include "metrics.h"
#include "proxyproto.h"
#include "server_int.h"
#include "util.h"

typedef struct pp_pending {
  uv_tcp_t tcp;
  uv_timer_t timer;
  struct ops *o;
  struct pp_pending *prev, *next;
  unsigned char handles, closing;
  size_t len, need;
  unsigned char buf[PP_HDR_MAX];
} pp_pending;

typedef struct http_conn {
  uv_tcp_t tcp;
  uv_timer_t timer;
  struct ops *o;
  struct http_conn *prev, *next;
  unsigned char handles, closing, answered;
  size_t len;
  char req[HTTP_REQ_MAX];
} http_conn;

typedef struct http_write {
  uv_write_t req;
  char *data;
} http_write;

struct ops {
  struct server *s;
  uv_tcp_t proxy, metrics;
  uv_signal_t sigusr1;
  int proxy_open, metrics_open, sig_open;
  int proxy_port, metrics_port;
  char metrics_host[64];
  unsigned handles;         /* open ops-level handles */
  int closing, draining;
  pp_pending *pending;
  unsigned npending;
  http_conn *https;
  unsigned nhttp;
  backup *bk;
  char backup_dir[4096];
  time_t started;
};

static void ops_maybe_free(ops *o) {
  if (o->closing && o->handles == 0 && o->pending == NULL && o->https == NULL)
    free(o);
}

static void ops_handle_closed(uv_handle_t *h) {
  ops *o = h->data;
  o->handles--;
  ops_maybe_free(o);
}

static int bind_listen(uv_tcp_t *t, ops *o, const char *host,
                       int port, uv_connection_cb cb, int *bound,
                       agon_err *err) {
  struct sockaddr_storage ss;
  int r = strchr(host, ':')
              ? uv_ip6_addr(host, port, (struct sockaddr_in6 *)&ss)
              : uv_ip4_addr(host, port, (struct sockaddr_in *)&ss);
  if (r < 0) return agon_err_set(err, AGON_EINVAL, "bad listen address %s", host);
  if ((r = uv_tcp_bind(t, (struct sockaddr *)&ss, 0)) < 0 ||
      (r = uv_listen((uv_stream_t *)t, SERVER_BACKLOG, cb)) < 0)
    return agon_err_set(err, AGON_EINVAL, "cannot listen on %s:%d: %s", host,
                        port, uv_strerror(r));
  int sl = sizeof ss;
  uv_tcp_getsockname(t, (struct sockaddr *)&ss, &sl);
  *bound = ntohs(ss.ss_family == AF_INET6
                     ? ((struct sockaddr_in6 *)&ss)->sin6_port
                     : ((struct sockaddr_in *)&ss)->sin_port);
  (void)o;
  return 0;
}

/* ---- PROXY listener ---------------------------------------------------- */

static void pp_close_cb(uv_handle_t *h) {
  pp_pending *p = h->data;
  if (--p->handles) return;
  ops *o = p->o;
  if (p->prev) p->prev->next = p->next;
  else o->pending = p->next;
  if (p->next) p->next->prev = p->prev;
  o->npending--;
  free(p);
  ops_maybe_free(o);
}

static void pp_close(pp_pending *p) {
  if (p->closing) return;
  p->closing = 1;
  uv_close((uv_handle_t *)&p->tcp, pp_close_cb);
  uv_close((uv_handle_t *)&p->timer, pp_close_cb);
}

static void pp_fail(pp_pending *p, const char *why) {
  metrics_inc(METRICS_PROXY_BAD);
  log_warn("proxy listener: closing a connection: %s", why);
  pp_close(p);
}

static void pp_timer_cb(uv_timer_t *t) { pp_fail(t->data, "no PROXY header in time"); }

static void pp_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  pp_pending *p = h->data;
  (void)hint;
  /* Exactly what certainly belongs to the header: the client's first
   * bytes stay in the kernel for the connection that adopts the socket. */
  *buf = uv_buf_init((char *)p->buf + p->len, (unsigned)p->need);
}

static void pp_read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf) {
  pp_pending *p = st->data;
  (void)buf;
  if (p->closing) return;
  if (nread < 0) {
    pp_fail(p, nread == UV_EOF ? "closed before the PROXY header"
                               : uv_strerror((int)nread));
    return;
  }
  p->len += (size_t)nread;
  pp_info info;
  long r = pp_parse(p->buf, p->len, &info, &p->need);
  if (r < 0) {
    pp_fail(p, "bad PROXY header");
    return;
  }
  if (r == 0) {
    if (p->len + p->need > sizeof p->buf) pp_fail(p, "PROXY header too long");
    return;
  }
  uv_read_stop(st);
  struct sockaddr_storage peer;
  memset(&peer, 0, sizeof peer);
  if (info.local) {
    int sl = sizeof peer;
    uv_tcp_getpeername(&p->tcp, (struct sockaddr *)&peer, &sl);
  } else {
    peer = info.src;
  }
  /* Hand the socket to a regular connection: a duplicate descriptor
   * survives closing this handle (libuv owns and closes the original). */
  uv_os_fd_t fd;
  int nfd = -1;
  if (uv_fileno((uv_handle_t *)&p->tcp, &fd) == 0)
    nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  ops *o = p->o;
  pp_close(p);
  if (nfd < 0) {
    log_warn("proxy listener: dup: %s", strerror(errno));
    return;
  }
  metrics_inc(METRICS_PROXY_OK);
  conn_adopt(o->s, nfd, &peer);
}

static void pp_on_connection(uv_stream_t *l, int status) {
  ops *o = l->data;
  if (status < 0) {
    log_warn("proxy accept: %s", uv_strerror(status));
    return;
  }
  pp_pending *p = xcalloc(1, sizeof *p);
  p->o = o;
  uv_tcp_init(o->s->loop, &p->tcp);
  uv_timer_init(o->s->loop, &p->timer);
  p->tcp.data = p->timer.data = p;
  p->handles = 2;
  p->next = o->pending;
  if (o->pending) o->pending->prev = p;
  o->pending = p;
  o->npending++;
  if (uv_accept(l, (uv_stream_t *)&p->tcp) < 0) {
    pp_close(p);
    return;
  }
  if (o->npending > PP_PENDING_MAX) {
    pp_fail(p, "too many pending PROXY handshakes");
    return;
  }
  pp_parse(NULL, 0, NULL, &p->need);
  uv_timer_start(&p->timer, pp_timer_cb, PP_HEADER_TIMEOUT_MS, 0);
  if (uv_read_start((uv_stream_t *)&p->tcp, pp_alloc_cb, pp_read_cb) < 0)
    pp_fail(p, "read_start failed");
}

/* ---- metrics page ------------------------------------------------------ */

static void render_server(ops *o, metrics_text *t) {
  struct server *s = o->s;
  unsigned players = 0;
  for (conn *c = s->conns; c; c = c->next)
    if (c->player_id != 0) players++;
  metrics_text_family(t, "agon_build_info", "gauge", "Version of agond.");
  metrics_text_printf(t, "agon_build_info{version=\"%s\"} 1\n", AGON_VERSION);
  metrics_text_gauge(t, "agon_start_time_seconds",
                     "Unix time agond started.", (double)o->started);
  metrics_text_gauge(t, "agon_draining",
                     "1 once shutdown began (players were told to reconnect).",
                     s->stopping ? 1 : 0);
  metrics_text_gauge(t, "agon_connections", "Open client connections.",
                     s->nconns);
  metrics_text_gauge(t, "agon_connections_limit",
                     "Maximum open client connections (max-conns).",
                     s->cfg.max_conns);
  metrics_text_gauge(t, "agon_players_authenticated",
                     "Open connections logged in as a player.", players);
  metrics_text_gauge(t, "agon_proxy_handshakes_pending",
                     "PROXY listener connections still sending their header.",
                     o->npending);
  if (s->db == NULL) return;
  db_stats d;
  db_stats_get(s->db, &d);
  metrics_text_gauge(t, "agon_storage_queue_depth",
                     "Write jobs waiting for the storage writer.", d.queue_depth);
  metrics_text_gauge(t, "agon_storage_writes_inflight",
                     "Accepted writes whose completion is pending.",
                     d.writes_inflight);
  metrics_text_gauge(t, "agon_storage_reads_inflight",
                     "Accepted reads whose completion is pending.",
                     d.reads_inflight);
  metrics_text_counter(t, "agon_storage_commits_total",
                       "Write transactions committed (one per group).",
                       (double)d.commits);
  metrics_text_counter(t, "agon_storage_commit_failures_total",
                       "Write transactions that failed.",
                       (double)d.commit_failures);
  metrics_text_counter(t, "agon_storage_write_jobs_total", "Write jobs run.",
                       (double)d.write_jobs);
  metrics_text_counter(t, "agon_storage_write_job_errors_total",
                       "Write jobs that returned an error.",
                       (double)d.write_job_errors);
  metrics_text_counter(t, "agon_storage_read_jobs_total", "Read jobs run.",
                       (double)d.read_jobs);
  metrics_text_counter(t, "agon_storage_busy_rejects_total",
                       "Storage requests refused because the queue was full.",
                       (double)d.busy_rejects);
  metrics_text_gauge(t, "agon_storage_batch_max_jobs",
                     "Largest group commit so far, in jobs.", d.max_batch);
  metrics_text_gauge(t, "agon_storage_commit_last_seconds",
                     "Duration of the last BEGIN..COMMIT.",
                     (double)d.last_commit_us / 1e6);
  metrics_text_gauge(t, "agon_storage_commit_max_seconds",
                     "Longest BEGIN..COMMIT so far.",
                     (double)d.max_commit_us / 1e6);
  metrics_text_counter(t, "agon_storage_checkpoints_total",
                       "WAL checkpoints run by the checkpointer thread.",
                       (double)d.checkpoints);
  metrics_text_counter(t, "agon_storage_writer_checkpoints_total",
                       "WAL checkpoints the writer ran itself (WAL size cap).",
                       (double)d.writer_checkpoints);
  metrics_text_counter(t, "agon_storage_wal_cap_waits_total",
                       "Times the writer waited for a background checkpoint "
                       "at the WAL's hard cap.",
                       (double)d.wal_cap_waits);
  metrics_text_gauge(t, "agon_storage_checkpoint_max_seconds",
                     "Longest background checkpoint so far.",
                     (double)d.max_checkpoint_us / 1e6);
  metrics_text_gauge(t, "agon_storage_wal_pages_max",
                     "Largest WAL seen after a commit, in pages.",
                     d.wal_pages_max);
  metrics_text_family(t, "agon_storage_commit_duration_seconds", "summary",
                      "Duration of write transactions (BEGIN..COMMIT, fsync "
                      "included).");
  metrics_text_printf(t, "agon_storage_commit_duration_seconds_sum %.6f\n"
                         "agon_storage_commit_duration_seconds_count %llu\n",
                      (double)d.avg_commit_us * (double)d.commits / 1e6,
                      (unsigned long long)d.commits);
}

/* ---- HTTP endpoint ----------------------------------------------------- */

static void http_close_cb(uv_handle_t *h) {
  http_conn *c = h->data;
  if (--c->handles) return;
  ops *o = c->o;
  if (c->prev) c->prev->next = c->next;
  else o->https = c->next;
  if (c->next) c->next->prev = c->prev;
  o->nhttp--;
  free(c);
  ops_maybe_free(o);
}

static void http_close(http_conn *c) {
  if (c->closing) return;
  c->closing = 1;
  uv_close((uv_handle_t *)&c->tcp, http_close_cb);
  uv_close((uv_handle_t *)&c->timer, http_close_cb);
}

static void http_shutdown_cb(uv_shutdown_t *req, int status) {
  http_conn *c = req->data;
  free(req);
  (void)status;
  /* The peer reads our answer then closes; its EOF (read_cb) or the
   * deadline closes us. Closing now could reset unread request bytes. */
  (void)c;
}

static void http_write_cb(uv_write_t *req, int status) {
  http_write *w = (http_write *)req;
  http_conn *c = req->data;
  free(w->data);
  free(w);
  if (status < 0 || c->closing) {
    http_close(c);
    return;
  }
  uv_shutdown_t *sr = xmalloc(sizeof *sr);
  sr->data = c;
  if (uv_shutdown(sr, (uv_stream_t *)&c->tcp, http_shutdown_cb) < 0) {
    free(sr);
    http_close(c);
  }
}

static void http_respond(http_conn *c, int code, const char *reason,
                         const char *ctype, const char *body, size_t blen,
                         int head) {
  c->answered = 1;
  char hdr[256];
  int hn = snprintf(hdr, sizeof hdr,
                    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
                    "Content-Length: %zu\r\nConnection: close\r\n"
                    "Cache-Control: no-store\r\n\r\n",
                    code, reason, ctype, blen);
  if (head) blen = 0;
  http_write *w = xmalloc(sizeof *w);
  w->data = xmalloc((size_t)hn + blen);
  memcpy(w->data, hdr, (size_t)hn);
  if (blen) memcpy(w->data + hn, body, blen);
  w->req.data = c;
  uv_buf_t b = uv_buf_init(w->data, (unsigned)((size_t)hn + blen));
  if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, http_write_cb) < 0) {
    free(w->data);
    free(w);
    http_close(c);
  }
}

static void http_simple(http_conn *c, int code, const char *reason,
                        const char *body, int head) {
  http_respond(c, code, reason, "text/plain; charset=utf-8", body,
               strlen(body), head);
}

/* c->req[0..end) holds the request line and headers. Only the request line
 * matters: GET or HEAD, a path, HTTP/1.0 or 1.1. */
static void http_handle(http_conn *c, size_t end) {
  ops *o = c->o;
  metrics_inc(METRICS_HTTP_REQUESTS);
  char *line = c->req;
  size_t ll = strcspn(line, "\r\n");
  if (ll >= end) ll = end;
  line[ll] = '\0';
  char *sp1 = strchr(line, ' ');
  char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
  if (sp1 == NULL || sp2 == NULL || strchr(sp2 + 1, ' ') ||
      (strcmp(sp2 + 1, "HTTP/1.0") != 0 && strcmp(sp2 + 1, "HTTP/1.1") != 0)) {
    http_simple(c, 400, "Bad Request", "bad request\n", 0);
    return;
  }
  *sp1 = *sp2 = '\0';
  int head = strcmp(line, "HEAD") == 0;
  if (!head && strcmp(line, "GET") != 0) {
    http_simple(c, 405, "Method Not Allowed", "GET or HEAD only\n", 0);
    return;
  }
  char *path = sp1 + 1;
  path[strcspn(path, "?")] = '\0';
  if (strcmp(path, "/healthz") == 0) {
    if (o->s->stopping || o->draining)
      http_simple(c, 503, "Service Unavailable", "draining\n", head);
    else
      http_simple(c, 200, "OK", "ok\n", head);
    return;
  }
  if (strcmp(path, "/metrics") == 0) {
    metrics_text t;
    metrics_text_init(&t);
    render_server(o, &t);
    metrics_render(&t);
    if (t.overflow)
      http_simple(c, 500, "Internal Server Error", "metrics page too large\n", head);
    else
      http_respond(c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8",
                   t.p, t.len, head);
    metrics_text_free(&t);
    return;
  }
  http_simple(c, 404, "Not Found", "try /metrics or /healthz\n", head);
}

static void http_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  http_conn *c = h->data;
  (void)hint;
  if (c->answered) {
    /* Draining what the peer still sends after our answer: reuse. */
    *buf = uv_buf_init(c->req, sizeof c->req);
    return;
  }
  *buf = uv_buf_init(c->req + c->len, (unsigned)(sizeof c->req - 1 - c->len));
}

static void http_read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf) {
  http_conn *c = st->data;
  (void)buf;
  if (c->closing) return;
  if (nread < 0) {
    http_close(c);
    return;
  }
  if (c->answered || nread == 0) return;
  c->len += (size_t)nread;
  c->req[c->len] = '\0';
  char *e = strstr(c->req, "\r\n\r\n");
  char *e2 = strstr(c->req, "\n\n");
  if (e == NULL || (e2 && e2 < e)) e = e2;
  if (memchr(c->req, '\0', c->len)) {
    http_simple(c, 400, "Bad Request", "bad request\n", 0);
    return;
  }
  if (e) {
    http_handle(c, (size_t)(e - c->req));
    return;
  }
  if (c->len >= sizeof c->req - 1)
    http_simple(c, 431, "Request Header Fields Too Large", "request too large\n", 0);
}

static void http_timer_cb(uv_timer_t *t) { http_close(t->data); }

static void http_on_connection(uv_stream_t *l, int status) {
  ops *o = l->data;
  if (status < 0) return;
  http_conn *c = xcalloc(1, sizeof *c);
  c->o = o;
  uv_tcp_init(o->s->loop, &c->tcp);
  uv_timer_init(o->s->loop, &c->timer);
  c->tcp.data = c->timer.data = c;
  c->handles = 2;
  c->next = o->https;
  if (o->https) o->https->prev = c;
  o->https = c;
  o->nhttp++;
  if (uv_accept(l, (uv_stream_t *)&c->tcp) < 0 || o->nhttp > HTTP_CONNS_MAX) {
    http_close(c);
    return;
  }
  uv_timer_start(&c->timer, http_timer_cb, HTTP_TIMEOUT_MS, 0);
  if (uv_read_start((uv_stream_t *)&c->tcp, http_alloc_cb, http_read_cb) < 0)
    http_close(c);
}

/* ---- backup on SIGUSR1 ------------------------------------------------- */

static void backup_done(void *arg, int status, const char *path,
                        const char *msg) {
  (void)arg;
  metrics_gauge_set(METRICS_BACKUP_RUNNING, 0);
  if (status == 0) {
    metrics_inc(METRICS_BACKUPS_OK);
    metrics_gauge_set(METRICS_BACKUP_LAST_OK, (int64_t)time(NULL));
    log_info("backup done: %s (%s)", path, msg);
  } else {
    metrics_inc(METRICS_BACKUPS_FAILED);
    log_error("backup failed: %s", msg);
  }
}

static void sigusr1_cb(uv_signal_t *h, int signum) {
  ops *o = h->data;
  (void)signum;
  if (o->s->stopping) {
    log_warn("backup: not started, shutting down");
    return;
  }
  int r = backup_start(o->bk, backup_done, o);
  if (r == AGON_EBUSY) {
    log_warn("backup: one is already running; signal ignored");
    return;
  }
  if (r != 0) {
    metrics_inc(METRICS_BACKUPS_FAILED);
    log_error("backup: cannot start: %s", agon_err_name(r));
    return;
  }
  metrics_gauge_set(METRICS_BACKUP_RUNNING, 1);
  log_info("backup started into %s", o->backup_dir);
}

/* ---- lifecycle --------------------------------------------------------- */

static int split_host_port(const char *spec, char *host, size_t cap,
                           int *port) {
  const char *colon = strrchr(spec, ':');
  if (colon == NULL || colon == spec) return -1;
  const char *h = spec, *he = colon;
  if (*h == '[') {
    if (he[-1] != ']') return -1;
    h++;
    he--;
  }
  if ((size_t)(he - h) >= cap || he == h) return -1;
  memcpy(host, h, (size_t)(he - h));
  host[he - h] = '\0';
  char *end;
  errno = 0;
  long p = strtol(colon + 1, &end, 10);
  if (errno || end == colon + 1 || *end || p < 0 || p > 65535) return -1;
  *port = (int)p;
  return 0;
}

int ops_start(ops **out, struct server *s, agon_err *err) {
  ops *o = xcalloc(1, sizeof *o);
  *out = o;
  o->s = s;
  o->proxy_port = o->metrics_port = -1;
  o->started = time(NULL);
  const server_config *cfg = &s->cfg;

  if (cfg->backup_dir) {
    snprintf(o->backup_dir, sizeof o->backup_dir, "%s", cfg->backup_dir);
  } else {
    /* Default: "backups" next to the database. */
    const char *slash = strrchr(cfg->db_path, '/');
    int dl = slash ? (int)(slash - cfg->db_path) : 1;
    snprintf(o->backup_dir, sizeof o->backup_dir, "%.*s/backups", dl,
             slash ? cfg->db_path : ".");
  }
  o->bk = backup_new(s->loop, cfg->db_path, o->backup_dir);
  uv_signal_init(s->loop, &o->sigusr1);
  o->sigusr1.data = o;
  o->sig_open = 1;
  o->handles++;
  uv_signal_start(&o->sigusr1, sigusr1_cb, SIGUSR1);

  if (cfg->proxy_port >= 0) {
    uv_tcp_init(s->loop, &o->proxy);
    o->proxy.data = o;
    o->proxy_open = 1;
    o->handles++;
    int rc = bind_listen(&o->proxy, o, cfg->proxy_host, cfg->proxy_port,
                         pp_on_connection, &o->proxy_port, err);
    if (rc) return rc;
    log_info("PROXY protocol listener on %s:%d", cfg->proxy_host, o->proxy_port);
  }
  if (cfg->metrics_listen && *cfg->metrics_listen) {
    int port;
    if (split_host_port(cfg->metrics_listen, o->metrics_host,
                        sizeof o->metrics_host, &port) != 0)
      return agon_err_set(err, AGON_EINVAL, "bad --metrics-listen %s "
                          "(HOST:PORT)", cfg->metrics_listen);
    uv_tcp_init(s->loop, &o->metrics);
    o->metrics.data = o;
    o->metrics_open = 1;
    o->handles++;
    int rc = bind_listen(&o->metrics, o, o->metrics_host, port,
                         http_on_connection, &o->metrics_port, err);
    if (rc) return rc;
    log_info("metrics endpoint on %s:%d", o->metrics_host, o->metrics_port);
  }
  return 0;
}

void ops_drain(ops *o) {
  if (o == NULL || o->draining) return;
  o->draining = 1;
  if (o->proxy_open) {
    o->proxy_open = 0;
    uv_close((uv_handle_t *)&o->proxy, ops_handle_closed);
  }
  pp_pending *next;
  for (pp_pending *p = o->pending; p; p = next) {
    next = p->next;
    pp_close(p);
  }
}

void ops_close(ops *o) {
  if (o == NULL || o->closing) return;
  ops_drain(o);
  o->closing = 1;
  if (o->bk) backup_close(o->bk);
  o->bk = NULL;
  if (o->metrics_open) {
    o->metrics_open = 0;
    uv_close((uv_handle_t *)&o->metrics, ops_handle_closed);
  }
  if (o->sig_open) {
    o->sig_open = 0;
    uv_close((uv_handle_t *)&o->sigusr1, ops_handle_closed);
  }
  http_conn *next;
  for (http_conn *c = o->https; c; c = next) {
    next = c->next;
    http_close(c);
  }
  ops_maybe_free(o);
}

int ops_proxy_port(const ops *o) { return o ? o->proxy_port : -1; }
int ops_metrics_port(const ops *o) { return o ? o->metrics_port : -1; }

void ops_announce(const struct server *s) {
  const ops *o = s->ops;
  if (o == NULL) return;
  if (o->proxy_port >= 0)
    printf("proxy listening on %s:%d\n", s->cfg.proxy_host, o->proxy_port);
  if (o->metrics_port >= 0)
    printf("metrics listening on %s:%d\n", o->metrics_host, o->metrics_port);
}
