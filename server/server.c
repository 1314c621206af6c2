/* server.c - listener, start-up and graceful shutdown. */
#include "server.h"

#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "handlers.h"
#include "limits.h"
#include "lobby.h"
#include "room.h"
#include "log.h"
#include "ops.h"
#include "server_int.h"
#include "util.h"

void server_config_init(server_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->host = "127.0.0.1";
  cfg->port = 7878;
  cfg->db_path = "./var/agon.db";
  cfg->synchronous = DB_SYNC_FULL;
  cfg->max_line = CONN_MAX_LINE_DEFAULT;
  cfg->wq_high = CONN_WQ_HIGH_DEFAULT;
  cfg->wq_low = CONN_WQ_LOW_DEFAULT;
  cfg->wq_max = CONN_WQ_MAX_DEFAULT;
  cfg->stall_ms = CONN_STALL_MS_DEFAULT;
  cfg->hello_timeout_ms = CONN_HELLO_TIMEOUT_MS_DEFAULT;
  cfg->idle_timeout_ms = CONN_IDLE_TIMEOUT_MS_DEFAULT;
  cfg->ping_interval_ms = CONN_PING_INTERVAL_MS_DEFAULT;
  cfg->ping_timeout_ms = CONN_PING_TIMEOUT_MS_DEFAULT;
  cfg->shutdown_deadline_ms = SERVER_SHUTDOWN_DEADLINE_MS;
  cfg->rate = CONN_RATE_DEFAULT;
  cfg->burst = CONN_BURST_DEFAULT;
  cfg->strikes = CONN_STRIKES_DEFAULT;
  cfg->addr_rate = ADDR_RATE_DEFAULT;
  cfg->addr_burst = ADDR_BURST_DEFAULT;
  cfg->addr_max_conns = ADDR_MAX_CONNS_DEFAULT;
  cfg->max_conns = SERVER_MAX_CONNS_DEFAULT;
  cfg->proxy_host = "127.0.0.1";
  cfg->proxy_port = -1;
}

static void on_connection(uv_stream_t *l, int status) {
  struct server *s = l->data;
  if (status < 0) {
    log_warn("accept: %s", uv_strerror(status));
    return;
  }
  conn_accept(s, l);
}

/* mkdir -p of the directory part of path (the default ./var/). */
static int make_parent_dirs(const char *path, agon_err *err) {
  char buf[4096];
  size_t n = strlen(path);
  if (n >= sizeof buf) return agon_err_set(err, AGON_EINVAL, "path too long");
  memcpy(buf, path, n + 1);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      return agon_err_set(err, AGON_ESTORAGE, "cannot create %s: %s", buf,
                          strerror(errno));
    *p = '/';
  }
  return 0;
}

static void clamp_config(server_config *c) {
  if (c->max_line < CONN_MAX_LINE_MIN) c->max_line = CONN_MAX_LINE_MIN;
  if (c->max_line > CONN_MAX_LINE_MAX) c->max_line = CONN_MAX_LINE_MAX;
  if (c->wq_low > c->wq_high) c->wq_low = c->wq_high;
  if (c->wq_max < c->wq_high) c->wq_max = c->wq_high;
  if (c->burst < 1) c->burst = 1;
  if (c->addr_burst < 1) c->addr_burst = 1;
  if (c->ping_interval_ms && c->ping_timeout_ms == 0)
    c->ping_timeout_ms = CONN_PING_TIMEOUT_MS_DEFAULT;
  if (c->max_conns == 0) c->max_conns = SERVER_MAX_CONNS_DEFAULT;
}

/* ---- output flushing ---------------------------------------------------- */

/* conn_send gathers each connection's messages of one loop iteration; these
 * write them. uv_prepare runs after the timers (clock flags, pings) and
 * before the loop blocks; uv_check right after the I/O callbacks (requests,
 * database completions), so nothing waits past its own iteration. Both are
 * unreferenced: they never keep the loop alive. */
static void flush_prep_cb(uv_prepare_t *h) { conn_flush_all(h->data); }
static void flush_check_cb(uv_check_t *h) { conn_flush_all(h->data); }
static void heap_handle_closed_cb(uv_handle_t *h) { free(h); }

static void flush_start(struct server *s) {
  s->flush_prep = xmalloc(sizeof *s->flush_prep);
  s->flush_check = xmalloc(sizeof *s->flush_check);
  uv_prepare_init(s->loop, s->flush_prep);
  uv_check_init(s->loop, s->flush_check);
  s->flush_prep->data = s->flush_check->data = s;
  uv_prepare_start(s->flush_prep, flush_prep_cb);
  uv_check_start(s->flush_check, flush_check_cb);
  uv_unref((uv_handle_t *)s->flush_prep);
  uv_unref((uv_handle_t *)s->flush_check);
}

static void flush_stop(struct server *s) {
  if (s->flush_prep == NULL) return;
  conn_flush_all(s);
  /* Heap handles freed by their close_cb: server_free may free s before
   * the loop runs the callbacks. */
  uv_close((uv_handle_t *)s->flush_prep, heap_handle_closed_cb);
  uv_close((uv_handle_t *)s->flush_check, heap_handle_closed_cb);
  s->flush_prep = NULL;
  s->flush_check = NULL;
}

/* ---- the move index sweep ---------------------------------------------- */

static void index_done_cb(void *ctx, int status) {
  struct server *s = ctx;
  s->index_busy = 0;
  if (status != 0) log_warn("move index sweep failed: the next one retries");
}

/* One sweep in the writer's queue at a time (GS_IDX_SWEEP_MS apart). */
static void index_sweep(struct server *s) {
  if (s->db == NULL || s->index_busy) return;
  if (db_write(s->db, gs_index_job, s, index_done_cb) == 0) s->index_busy = 1;
}

static void index_timer_cb(uv_timer_t *t) { index_sweep(t->data); }

static void index_timer_stop(struct server *s) {
  if (s->index_timer == NULL) return;
  uv_close((uv_handle_t *)s->index_timer, heap_handle_closed_cb);
  s->index_timer = NULL;
}

int server_new(server **out, uv_loop_t *loop, const server_config *cfg,
               agon_err *err) {
  *out = NULL;
  struct server *s = xcalloc(1, sizeof *s);
  s->loop = loop;
  s->cfg = *cfg;
  clamp_config(&s->cfg);
  s->addrs = rl_table_new();
  s->hello_data = handlers_hello_data(s, &s->hello_len);
  s->rbuf = xmalloc(PROTO_FRAMER_BUFSIZE(s->cfg.max_line));
  flush_start(s);
  int rc;

  if ((rc = make_parent_dirs(cfg->db_path, err)) != 0) goto fail;
  db_config dc;
  db_config_init(&dc);
  dc.path = cfg->db_path;
  dc.synchronous = cfg->synchronous;
  if ((rc = db_open(&s->db, loop, &dc, err)) != 0) goto fail;
  /* The first sweep goes ahead of every write: the rows a crash left above
   * the mark get their entries before play resumes. */
  s->index_timer = xmalloc(sizeof *s->index_timer);
  uv_timer_init(loop, s->index_timer);
  s->index_timer->data = s;
  index_sweep(s);
  uv_timer_start(s->index_timer, index_timer_cb, GS_IDX_SWEEP_MS,
                 GS_IDX_SWEEP_MS);

  accounts_config ac;
  accounts_config_init(&ac);
  if (cfg->pwhash_fast) {
    ac.opslimit = crypto_pwhash_OPSLIMIT_MIN;
    ac.memlimit = crypto_pwhash_MEMLIMIT_MIN;
  }
  ac.token_ttl_s = cfg->token_ttl_s;
  ac.rl_addr_burst = cfg->login_addr_burst;
  ac.rl_addr_period_ms = cfg->login_addr_period_ms;
  ac.rl_account_burst = cfg->login_account_burst;
  ac.rl_account_period_ms = cfg->login_account_period_ms;
  if ((rc = accounts_new(&s->acc, loop, s->db, &ac, err)) != 0) goto fail;

  /* Live play: every unfinished game is rebuilt before anyone can connect
   * (blocking reads: start-up). */
  rooms_init(s);
  lobby_init(s);
  if ((rc = rooms_recover(s, cfg->db_path, err)) != 0) goto fail;

  /* Listener last: nobody connects before storage is ready. */
  s->listener = xmalloc(sizeof *s->listener);
  uv_tcp_init(loop, s->listener);
  s->listener->data = s;
  s->shutdown_timer = xmalloc(sizeof *s->shutdown_timer);
  uv_timer_init(loop, s->shutdown_timer);
  s->shutdown_timer->data = s;
  struct sockaddr_storage ss;
  int r = strchr(cfg->host, ':')
              ? uv_ip6_addr(cfg->host, cfg->port, (struct sockaddr_in6 *)&ss)
              : uv_ip4_addr(cfg->host, cfg->port, (struct sockaddr_in *)&ss);
  if (r < 0) {
    rc = agon_err_set(err, AGON_EINVAL, "bad listen address %s", cfg->host);
    goto fail;
  }
  if ((r = uv_tcp_bind(s->listener, (struct sockaddr *)&ss, 0)) < 0 ||
      (r = uv_listen((uv_stream_t *)s->listener, SERVER_BACKLOG,
                     on_connection)) < 0) {
    rc = agon_err_set(err, AGON_EINVAL, "cannot listen on %s:%d: %s",
                      cfg->host, cfg->port, uv_strerror(r));
    goto fail;
  }
  int sl = sizeof ss;
  uv_tcp_getsockname(s->listener, (struct sockaddr *)&ss, &sl);
  s->port = ntohs(ss.ss_family == AF_INET6
                      ? ((struct sockaddr_in6 *)&ss)->sin6_port
                      : ((struct sockaddr_in *)&ss)->sin_port);
  if ((rc = ops_start(&s->ops, s, err)) != 0) goto fail;
  *out = s;
  return 0;
fail:
  *out = s;  /* server_free releases what was opened */
  return rc;
}

int server_port(const server *s) { return s->port; }

/* ---- shutdown ---------------------------------------------------------- */

/* Phases: 1 draining peers (until none or the deadline), 2 closing accounts
 * (in-flight requests complete), 3 done (database closed). */
static void stop_step(struct server *s);

static void accounts_closed_cb(void *arg) {
  struct server *s = arg;
  s->acc = NULL;
  s->stop_phase = 3;
  stop_step(s);
}

static void listener_close(struct server *s) {
  if (s->listener == NULL) return;
  uv_close((uv_handle_t *)s->listener, heap_handle_closed_cb);
  s->listener = NULL;
}

static void shutdown_timer_close(struct server *s) {
  if (s->shutdown_timer == NULL) return;
  uv_close((uv_handle_t *)s->shutdown_timer, heap_handle_closed_cb);
  s->shutdown_timer = NULL;
}

static void stop_step(struct server *s) {
  if (s->stop_phase == 1 && s->nconns == 0 && s->nalive == 0) {
    s->stop_phase = 2;
    uv_timer_stop(s->shutdown_timer);
    if (s->acc) {
      accounts_close(s->acc, accounts_closed_cb, s);
      return;
    }
    s->stop_phase = 3;
  }
  if (s->stop_phase == 3) {
    s->stop_phase = 4;
    ops_close(s->ops);  /* aborts a running backup before the DB closes */
    s->ops = NULL;
    index_timer_stop(s);
    if (s->db) {
      /* Every queued write commits before this returns (blocks the loop:
       * nothing else is left to serve). */
      db_close(s->db);
      s->db = NULL;
      log_info("database closed");
    }
    /* After db_close: its last completions still reach the rooms. */
    rooms_close(s);
    lobby_close(s);
    shutdown_timer_close(s);
    flush_stop(s);
    if (s->done_cb) s->done_cb(s->done_arg);
  }
}

void server_conn_gone(struct server *s) {
  if (s->stopping) stop_step(s);
}

static void shutdown_timer_cb(uv_timer_t *t) {
  struct server *s = t->data;
  log_warn("shutdown deadline: closing %u connection(s) hard", s->nconns);
  while (s->conns) conn_close(s->conns, "shutdown deadline");
}

void server_shutdown(server *s, const char *reason, void (*done_cb)(void *),
                     void *arg) {
  if (s->stopping) return;
  s->stopping = 1;
  s->stop_phase = 1;
  s->done_cb = done_cb;
  s->done_arg = arg;
  log_info("shutting down (%s): %u connection(s)", reason, s->nconns);
  listener_close(s);
  ops_drain(s->ops);
  /* Encode the event once, share it (wbuf) with every peer. */
  json_t *ev = proto_event("shutdown");
  json_object_set_new(ev, "reason", json_string(reason));
  json_object_set_new(ev, "message", json_string("server is shutting down"));
  json_object_set_new(ev, "deadline_ms",
                      json_integer((json_int_t)s->cfg.shutdown_deadline_ms));
  wbuf *b = wbuf_from_json(ev);
  json_decref(ev);
  conn *next;
  for (conn *c = s->conns; c; c = next) {
    next = c->next;  /* conn_send may close c (output cap) */
    conn_send(c, b);
    conn_end(c);
  }
  wbuf_unref(b);
  uv_timer_start(s->shutdown_timer, shutdown_timer_cb,
                 s->cfg.shutdown_deadline_ms, 0);
  stop_step(s);
}

void server_free(server *s) {
  if (s == NULL) return;
  ops_close(s->ops);
  if (s->acc) {
    /* Only after a failed start: nothing is in flight. */
    accounts_close(s->acc, NULL, NULL);
    s->acc = NULL;
  }
  index_timer_stop(s);
  if (s->db) db_close(s->db);
  rooms_close(s);
  lobby_close(s);
  listener_close(s);
  shutdown_timer_close(s);
  flush_stop(s);
  rl_table_free(s->addrs);
  free(s->rbuf);
  free(s->hello_data);
  free(s);
}
