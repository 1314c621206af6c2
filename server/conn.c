/* conn.c - connection lifecycle, reads, writes, timeouts, rate limits. */
#include "conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handlers.h"
#include "limits.h"
#include "lobby.h"
#include "room.h"
#include "log.h"
#include "metrics.h"
#include "server_int.h"
#include "util.h"

typedef struct wreq {
  uv_write_t req;
  wbuf *b;
  size_t len;       /* bytes of b in this request (after a partial try) */
} wreq;

static void conn_timer_arm(conn *c);

/* ---- freeing ----------------------------------------------------------- */

static void conn_maybe_free(conn *c) {
  /* On the flush list: conn_flush_all frees it when it gets there. */
  if (c->handles != 0 || c->pending != 0 || c->flush_queued) return;
  struct server *s = c->srv;
  free(c->fr.buf);
  free(c);
  s->nalive--;
  server_conn_gone(s);
}

static void close_cb(uv_handle_t *h) {
  conn *c = h->data;
  c->handles--;
  conn_maybe_free(c);
}

void conn_op_begin(conn *c) { c->pending++; }

int conn_op_end(conn *c) {
  c->pending--;
  if (c->closing) {
    conn_maybe_free(c);
    return 0;
  }
  return 1;
}

static void pend_drop(conn *c) {
  for (unsigned i = 0; i < c->npend; i++) wbuf_unref(c->pend[i]);
  c->npend = 0;
}

/* ---- player index ------------------------------------------------------- */

static conn **player_slot(struct server *s, int64_t pid) {
  /* Player ids are sequential rowids: the low bits spread them evenly. */
  return &s->by_player[(uint64_t)pid & (SERVER_PLAYER_SLOTS - 1)];
}

static void player_unlink(conn *c) {
  if (c->pprev == NULL) return;
  *c->pprev = c->pnext;
  if (c->pnext) c->pnext->pprev = c->pprev;
  c->pnext = NULL;
  c->pprev = NULL;
}

void conn_set_player(conn *c, int64_t pid) {
  player_unlink(c);
  c->player_id = pid;
  if (pid == 0 || c->closing) return;
  conn **head = player_slot(c->srv, pid);
  c->pnext = *head;
  if (*head) (*head)->pprev = &c->pnext;
  c->pprev = head;
  *head = c;
}

static conn *player_match(conn *c, int64_t pid) {
  while (c && c->player_id != pid) c = c->pnext;
  return c;
}

conn *conn_player_first(struct server *s, int64_t pid) {
  if (pid == 0) return NULL;
  return player_match(*player_slot(s, pid), pid);
}

conn *conn_player_next(const conn *c) {
  return player_match(c->pnext, c->player_id);
}

void conn_close(conn *c, const char *why) {
  if (c->closing) return;
  c->closing = 1;
  pend_drop(c);  /* queued output is dropped (documented) */
  struct server *s = c->srv;
  log_info("conn %llu: closed (%s)", (unsigned long long)c->id, why);
  uv_read_stop((uv_stream_t *)&c->tcp);
  uv_timer_stop(&c->timer);
  /* Pending writes and the shutdown request get ECANCELED callbacks before
   * close_cb (libuv's close contract), so c outlives them. */
  uv_close((uv_handle_t *)&c->timer, close_cb);
  uv_close((uv_handle_t *)&c->tcp, close_cb);
  if (c->prev) c->prev->next = c->next;
  else s->conns = c->next;
  if (c->next) c->next->prev = c->prev;
  c->prev = c->next = NULL;
  s->nconns--;
  player_unlink(c);
  if (c->addr) c->addr->conns--;
  c->addr = NULL;
  /* Unlinked first, so the lobby sees whether other connections of the
   * player remain. */
  if (c->player_id) {
    rooms_conn_gone(c);
    lobby_conn_gone(c);
  }
  rooms_specs_gone(c);  /* spectators need no login */
  server_conn_gone(s);
}

/* ---- writes ------------------------------------------------------------ */

static void resume_reading(conn *c);

static void write_cb(uv_write_t *req, int status) {
  wreq *w = (wreq *)req;
  conn *c = req->data;
  c->wq_bytes -= w->len;
  wbuf_unref(w->b);
  free(w);
  if (c->closing) return;
  if (status < 0) {
    conn_close(c, uv_strerror(status));
    return;
  }
  c->wq_progress_ms = uv_now(c->srv->loop);
  if (c->paused && c->wq_bytes <= c->srv->cfg.wq_low) {
    c->paused = 0;
    resume_reading(c);
  }
  if (c->nlagging && c->wq_bytes <= c->srv->cfg.wq_low) rooms_specs_drained(c);
}

/* Queue what the kernel did not take of b (from off) behind libuv's queue. */
static void queue_write(conn *c, wbuf *b, size_t off) {
  uv_stream_t *st = (uv_stream_t *)&c->tcp;
  size_t rest = b->len - off;
  if (c->wq_bytes + rest > c->srv->cfg.wq_max) {
    /* Hard cap (Redis's client-output-buffer-limit): a peer that does not
     * read cannot make us buffer without bound. */
    log_warn("conn %llu: output queue over %zu bytes", (unsigned long long)c->id,
             c->srv->cfg.wq_max);
    conn_close(c, "output queue over limit");
    return;
  }
  wreq *w = xmalloc(sizeof *w);
  w->b = wbuf_ref(b);
  w->len = rest;
  w->req.data = c;
  uv_buf_t ub = uv_buf_init(b->data + off, (unsigned)rest);
  int r = uv_write(&w->req, st, &ub, 1, write_cb);
  if (r < 0) {
    wbuf_unref(w->b);
    free(w);
    conn_close(c, uv_strerror(r));
    return;
  }
  int was_empty = c->wq_bytes == 0;
  c->wq_bytes += rest;
  if (was_empty) {
    c->wq_progress_ms = uv_now(c->srv->loop);
    conn_timer_arm(c);  /* the stall deadline may now be the nearest */
  }
  if (!c->paused && c->wq_bytes > c->srv->cfg.wq_high) {
    /* Backpressure: stop reading this peer until its output drains. */
    c->paused = 1;
    uv_read_stop(st);
  }
}

/* Write the gathered messages: one writev when libuv's queue is empty (the
 * kernel usually takes everything), the rest queued in order. */
static void conn_flush(conn *c) {
  unsigned n = c->npend;
  if (n == 0) return;
  wbuf *bufs[CONN_PEND_MAX];
  memcpy(bufs, c->pend, n * sizeof bufs[0]);
  c->npend = 0;
  size_t taken = 0;
  if (!c->closing && c->wq_bytes == 0) {
    /* libuv refuses (EAGAIN) while its own queue is non-empty, keeping
     * order; so does the check above. */
    uv_buf_t ub[CONN_PEND_MAX];
    for (unsigned i = 0; i < n; i++)
      ub[i] = uv_buf_init(bufs[i]->data, (unsigned)bufs[i]->len);
    int r = uv_try_write((uv_stream_t *)&c->tcp, ub, n);
    if (r >= 0) taken = (size_t)r;
    else if (r != UV_EAGAIN) conn_close(c, uv_strerror(r));
  }
  for (unsigned i = 0; i < n; i++) {
    if (!c->closing) {
      if (taken >= bufs[i]->len) taken -= bufs[i]->len;
      else {
        queue_write(c, bufs[i], taken);
        taken = 0;
      }
    }
    wbuf_unref(bufs[i]);
  }
}

void conn_send(conn *c, wbuf *b) {
  if (c->closing || c->ending) return;
  if (c->npend == CONN_PEND_MAX) {
    conn_flush(c);
    if (c->closing) return;
  }
  c->pend[c->npend++] = wbuf_ref(b);
  if (!c->flush_queued) {
    struct server *s = c->srv;
    c->flush_queued = 1;
    c->flush_next = NULL;
    if (s->flush_tail) s->flush_tail->flush_next = c;
    else s->flush_head = c;
    s->flush_tail = c;
  }
}

/* Connections are written in the order they were first queued. After a
 * group commit the moves it acknowledges are delivered oldest first, so a
 * move that waited longest for the commit is not also written last: with
 * the list in LIFO order the loadgen's ack p99 at 100 games was ~2.0 x its
 * p50, FIFO ~1.75 x (tests/bench/loadgen/README.md). */
void conn_flush_all(struct server *s) {
  while (s->flush_head) {
    conn *c = s->flush_head;
    s->flush_head = c->flush_next;
    if (!s->flush_head) s->flush_tail = NULL;
    c->flush_next = NULL;
    c->flush_queued = 0;
    conn_flush(c);
    conn_maybe_free(c);  /* it may have closed meanwhile */
  }
}

void conn_send_json(conn *c, const json_t *j) {
  if (c->closing || c->ending) return;
  wbuf *b = wbuf_from_json(j);
  if (b == NULL) {
    log_error("conn %llu: cannot encode a message", (unsigned long long)c->id);
    return;
  }
  conn_send(c, b);
  wbuf_unref(b);
}

void conn_reply_ok(conn *c, const char *re, json_t *id, json_t *data) {
  json_t *j = proto_reply_ok(re, id, data);
  conn_send_json(c, j);
  json_decref(j);
}

size_t conn_reply_head(char *out, size_t cap, const char *re, const json_t *id) {
  /* re is one of our own type names (no escaping needed); an integer id is
   * written here, a string id (validated by proto_decode) by jansson. */
  static const char h1[] = "{\"re\":\"", h2[] = "\",\"id\":",
                    h3[] = ",\"ok\":true,\"data\":";
  size_t rl = strlen(re), n = 0;
  if (cap < sizeof h1 + rl + sizeof h2 + sizeof h3 + 24) return 0;
  memcpy(out, h1, sizeof h1 - 1);
  n = sizeof h1 - 1;
  memcpy(out + n, re, rl);
  n += rl;
  if (id != NULL) {
    memcpy(out + n, h2, sizeof h2 - 1);
    n += sizeof h2 - 1;
    if (json_is_integer(id)) {
      n += proto_fmt_int(out + n, (long long)json_integer_value(id));
    } else {
      size_t il = json_dumpb(id, out + n, cap - n, JSON_ENCODE_ANY | JSON_COMPACT);
      if (il == 0 || il >= cap - n - sizeof h3) return 0;
      n += il;
    }
    memcpy(out + n, h3, sizeof h3 - 1);
    n += sizeof h3 - 1;
  } else {
    out[n++] = '"';
    memcpy(out + n, h3, sizeof h3 - 1);
    n += sizeof h3 - 1;
  }
  return n;
}

void conn_reply_raw(conn *c, const char *re, json_t *id, const char *data_json,
                    size_t len) {
  if (c->closing || c->ending) return;
  char head[CONN_REPLY_HEAD_MAX];
  size_t n = conn_reply_head(head, sizeof head, re, id);
  if (n == 0) {
    conn_reply_ok(c, re, id, json_loadb(data_json, len, 0, NULL));
    return;
  }
  wbuf *b = wbuf_new(n + len + 2);
  memcpy(b->data, head, n);
  memcpy(b->data + n, data_json, len);
  b->data[n + len] = '}';
  b->data[n + len + 1] = '\n';
  conn_send(c, b);
  wbuf_unref(b);
}

void conn_reply_err_retry(conn *c, const char *re, json_t *id, int code,
                          const char *msg, long long retry_after_ms) {
  json_t *j = proto_reply_err(re, id, code, msg, retry_after_ms);
  metrics_error(code);
  conn_send_json(c, j);
  json_decref(j);
}

void conn_reply_err(conn *c, const char *re, json_t *id, int code,
                    const char *msg) {
  conn_reply_err_retry(c, re, id, code, msg, -1);
}

/* ---- graceful end ------------------------------------------------------ */

static void shutdown_cb(uv_shutdown_t *req, int status) {
  conn *c = req->data;
  free(req);  /* also on ECANCELED, which comes before close_cb */
  if (status != UV_ECANCELED) conn_close(c, "ended");
}

void conn_end(conn *c) {
  if (c->closing || c->ending) return;
  conn_flush(c);  /* the final event goes out before the FIN */
  if (c->closing) return;
  c->ending = 1;
  uv_read_stop((uv_stream_t *)&c->tcp);
  c->end_ms = uv_now(c->srv->loop);
  /* Allocated only now: most connections never end gracefully, and 80
   * bytes per idle connection add up. */
  uv_shutdown_t *req = xmalloc(sizeof *req);
  req->data = c;
  if (uv_shutdown(req, (uv_stream_t *)&c->tcp, shutdown_cb) < 0) {
    free(req);
    conn_close(c, "shutdown failed");
    return;
  }
  conn_timer_arm(c);
}

void conn_kick(conn *c, const char *reason, const char *msg) {
  conn_kick_retry(c, reason, msg, -1);
}

void conn_kick_retry(conn *c, const char *reason, const char *msg,
                     long long retry_after_ms) {
  if (c->closing || c->ending) return;
  log_info("conn %llu: disconnecting: %s", (unsigned long long)c->id, reason);
  json_t *ev = proto_event("disconnect");
  json_object_set_new(ev, "reason", json_string(reason));
  json_object_set_new(ev, "message", json_string(msg));
  if (retry_after_ms >= 0)
    json_object_set_new(ev, "retry_after_ms", json_integer(retry_after_ms));
  conn_send_json(c, ev);
  json_decref(ev);
  conn_end(c);
}

/* ---- timers ------------------------------------------------------------ */

/* One single-shot timer per connection, armed for the nearest deadline. Most
 * deadlines only move later (a request pushes the idle deadline), so they
 * are not re-armed per request: when the timer fires early it re-arms for
 * what is left (lazy, like Redis's timeouts). */
static uint64_t conn_next_deadline(conn *c) {
  const server_config *cfg = &c->srv->cfg;
  uint64_t d = UINT64_MAX;
#define AT(t) do { uint64_t t_ = (t); if (t_ < d) d = t_; } while (0)
  if (c->ending) {
    AT(c->end_ms + CONN_LINGER_MS);
    return d;
  }
  if (!c->hello && cfg->hello_timeout_ms) AT(c->opened_ms + cfg->hello_timeout_ms);
  if (c->player_id == 0 && cfg->idle_timeout_ms)
    AT(c->last_req_ms + cfg->idle_timeout_ms);
  if (c->wq_bytes > 0 && cfg->stall_ms) AT(c->wq_progress_ms + cfg->stall_ms);
  if (cfg->ping_interval_ms) {
    if (c->ping_out) AT(c->ping_sent_ms + cfg->ping_timeout_ms);
    else AT(c->last_rx_ms + cfg->ping_interval_ms);
  }
#undef AT
  return d;
}

static void timer_cb(uv_timer_t *t) {
  conn *c = t->data;
  const server_config *cfg = &c->srv->cfg;
  uint64_t now = uv_now(c->srv->loop);
  if (c->closing) return;
  if (c->ending) {
    if (now >= c->end_ms + CONN_LINGER_MS) conn_close(c, "linger timeout");
    else conn_timer_arm(c);
    return;
  }
  if (c->wq_bytes > 0 && cfg->stall_ms && now >= c->wq_progress_ms + cfg->stall_ms) {
    /* Nothing we send gets through: a final event would not either. */
    conn_close(c, "peer does not read (output stalled)");
    return;
  }
  if (!c->hello && cfg->hello_timeout_ms && now >= c->opened_ms + cfg->hello_timeout_ms) {
    conn_kick(c, "hello_timeout", "no hello in time");
    return;
  }
  if (c->player_id == 0 && cfg->idle_timeout_ms &&
      now >= c->last_req_ms + cfg->idle_timeout_ms) {
    conn_kick(c, "idle_timeout", "idle for too long without logging in");
    return;
  }
  if (cfg->ping_interval_ms) {
    if (c->ping_out && now >= c->ping_sent_ms + cfg->ping_timeout_ms) {
      conn_kick(c, "ping_timeout", "no pong in time");
      return;
    }
    if (!c->ping_out && now >= c->last_rx_ms + cfg->ping_interval_ms) {
      c->ping_out = 1;
      c->ping_sent_ms = now;
      c->ping_nonce++;
      char line[64];
      int n = snprintf(line, sizeof line, "{\"event\":\"ping\",\"nonce\":%u}\n",
                       (unsigned)c->ping_nonce);
      wbuf *b = wbuf_from_bytes(line, (size_t)n);
      conn_send(c, b);
      wbuf_unref(b);
      if (c->closing) return;
    }
  }
  conn_timer_arm(c);
}

static void conn_timer_arm(conn *c) {
  if (c->closing) return;
  uint64_t d = conn_next_deadline(c);
  if (d == UINT64_MAX) {
    uv_timer_stop(&c->timer);
    return;
  }
  uint64_t now = uv_now(c->srv->loop);
  uint64_t in = d > now ? d - now : 0;
  /* Only move the timer earlier (or start it); a later deadline is found
   * when the current one fires. */
  if (uv_is_active((uv_handle_t *)&c->timer) &&
      uv_timer_get_due_in(&c->timer) <= in)
    return;
  uv_timer_start(&c->timer, timer_cb, in, 0);
}

/* ---- reads ------------------------------------------------------------- */

static int on_line(void *arg, int kind, const char *line, size_t len) {
  conn *c = arg;
  struct server *s = c->srv;
  uint64_t now = uv_now(s->loop);
  c->last_rx_ms = now;
  if (len == 0 && kind == PROTO_LINE) return 0;  /* blank lines are ignored */

  /* Rate limits first: a flood must cost us as little as possible. */
  uint64_t wait = rl_take(&c->bucket, s->cfg.rate, s->cfg.burst, now);
  if (wait == 0 && c->addr)
    wait = rl_take(&c->addr->bucket, s->cfg.addr_rate, s->cfg.addr_burst, now);
  if (wait != 0) {
    metrics_ratelimit(METRICS_RL_REQUEST);
    if (s->cfg.strikes > 0 &&
        rl_take(&c->strikes, CONN_STRIKE_RATE, s->cfg.strikes, now) != 0) {
      metrics_ratelimit(METRICS_RL_STRIKES);
      conn_kick_retry(c, "rate_limited", "too many requests, sustained",
                      (long long)wait);
      return 1;
    }
    proto_msg m;
    agon_err e;
    const char *re = NULL;
    if (kind == PROTO_LINE && proto_decode(line, len, &m, &e) == 0) re = m.type;
    else if (kind != PROTO_LINE) memset(&m, 0, sizeof m);
    conn_reply_err_retry(c, re, m.id, AGON_ERATELIMIT, NULL, (long long)wait);
    proto_msg_clear(&m);
    return c->closing || c->ending;
  }

  if (kind == PROTO_TOO_LONG) {
    char msg[96];
    snprintf(msg, sizeof msg, "line exceeds %zu bytes; skipped to its end",
             s->cfg.max_line);
    conn_reply_err(c, NULL, NULL, AGON_ELINETOOLONG, msg);
    return c->closing || c->ending;
  }
  handlers_line(c, line, len);
  /* Paused (output above the high mark) does not stop this loop: the lines
   * already read are bounded by the read buffer, and dropping them would
   * lose requests of a client that merely pipelines. */
  return c->closing || c->ending;
}

/* Reads land in one buffer shared by every connection (s->rbuf): lines are
 * handled before read_cb returns, so only a partial line left at the end
 * needs a buffer of its own. Allocating and freeing 16 KiB per read showed
 * up in profiles (malloc consolidation) at tens of thousands of moves/s. */
static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  conn *c = h->data;
  (void)hint;
  if (c->fr.buf == NULL) proto_framer_attach(&c->fr, c->srv->rbuf);
  char *p;
  size_t n;
  proto_framer_space(&c->fr, &p, &n);
  *buf = uv_buf_init(p, (unsigned)n);
}

/* End of read_cb: give the shared buffer back; keep a partial line in a
 * private copy (a closing connection drops it). */
static void settle_buffer(conn *c) {
  if (c->fr.buf != c->srv->rbuf) {
    if (!c->closing) free(proto_framer_detach_if_empty(&c->fr));
    return;
  }
  if (c->fr.len == 0 || c->closing) {
    c->fr.buf = NULL;
    c->fr.len = 0;
    c->fr.scan = 0;
    return;
  }
  char *own = xmalloc(c->fr.cap);
  memcpy(own, c->fr.buf, c->fr.len);
  c->fr.buf = own;
}

static void read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf) {
  conn *c = st->data;
  (void)buf;
  if (nread < 0) {
    conn_close(c, nread == UV_EOF ? "peer closed" : uv_strerror((int)nread));
  } else if (nread > 0 && !c->closing) {
    proto_framer_feed(&c->fr, (size_t)nread, on_line, c);
  }
  /* Idle peers hold no read buffer: ~16 KiB saved per connection. */
  settle_buffer(c);
}

static void resume_reading(conn *c) {
  if (c->closing || c->ending) return;
  uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb);
}

/* ---- accept ------------------------------------------------------------ */

static void peer_key(const struct sockaddr_storage *ss, unsigned char key[16],
                     char *name, size_t cap, unsigned short *port) {
  memset(key, 0, 16);
  if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
    key[10] = key[11] = 0xff;  /* IPv4-mapped IPv6 */
    memcpy(key + 12, &a->sin_addr, 4);
    uv_ip4_name(a, name, cap);
    *port = ntohs(a->sin_port);
  } else if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
    memcpy(key, &a->sin6_addr, 16);
    uv_ip6_name(a, name, cap);
    *port = ntohs(a->sin6_port);
  } else {
    snprintf(name, cap, "?");
    *port = 0;
  }
}

/* listener: accept from it; else adopt fd with address *peer_in. */
static void conn_open(struct server *s, uv_stream_t *listener, uv_os_sock_t fd,
                      const struct sockaddr_storage *peer_in) {
  conn *c = xcalloc(1, sizeof *c);
  c->srv = s;
  c->id = ++s->next_conn_id;
  c->rtt_ms = -1;
  uv_tcp_init(s->loop, &c->tcp);
  uv_timer_init(s->loop, &c->timer);
  c->tcp.data = c;
  c->timer.data = c;
  c->handles = 2;
  s->nalive++;
  /* On the list before anything can close it. */
  c->next = s->conns;
  if (s->conns) s->conns->prev = c;
  s->conns = c;
  s->nconns++;
  if (listener ? uv_accept(listener, (uv_stream_t *)&c->tcp) < 0
               : uv_tcp_open(&c->tcp, fd) < 0) {
    if (!listener) close(fd);
    conn_close(c, "accept failed");
    return;
  }
  metrics_inc(METRICS_CONNS_ACCEPTED);
  uint64_t now = uv_now(s->loop);
  c->opened_ms = c->last_rx_ms = c->last_req_ms = now;
  proto_framer_init(&c->fr, s->cfg.max_line);
  rl_init(&c->bucket, s->cfg.burst, now);
  rl_init(&c->strikes, s->cfg.strikes, now);
  uv_tcp_nodelay(&c->tcp, 1);  /* small request/reply lines: no Nagle delay */

  struct sockaddr_storage ss;
  int sl = sizeof ss;
  unsigned char key[16];
  memset(&ss, 0, sizeof ss);
  if (peer_in) ss = *peer_in;
  else uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &sl);
  peer_key(&ss, key, c->peer, sizeof c->peer, &c->peer_port);
  log_info("conn %llu: accepted from %s:%u", (unsigned long long)c->id, c->peer,
           c->peer_port);

  if (s->stopping) {
    conn_kick(c, "shutting_down", "server is shutting down");
    return;
  }
  if (s->nconns > s->cfg.max_conns) {
    metrics_ratelimit(METRICS_RL_SERVER_FULL);
    conn_kick(c, "server_full", "too many connections");
    return;
  }
  rl_addr *a = rl_table_get(s->addrs, key, s->cfg.addr_burst, now);
  if (a == NULL || (s->cfg.addr_max_conns && a->conns >= s->cfg.addr_max_conns)) {
    metrics_ratelimit(METRICS_RL_ADDR_CONNS);
    conn_kick(c, "too_many_connections", "too many connections from your address");
    return;
  }
  /* Opening a connection costs a token of the address's bucket too, so
   * reconnecting in a loop is limited like any other flood. */
  uint64_t wait = rl_take(&a->bucket, s->cfg.addr_rate, s->cfg.addr_burst, now);
  if (wait != 0) {
    metrics_ratelimit(METRICS_RL_CONNECT);
    conn_kick_retry(c, "rate_limited", "too many connections per second from your address",
                    (long long)wait);
    return;
  }
  a->conns++;
  c->addr = a;
  int r = uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb);
  if (r < 0) {
    conn_close(c, uv_strerror(r));
    return;
  }
  conn_timer_arm(c);
}

void conn_accept(struct server *s, uv_stream_t *listener) {
  conn_open(s, listener, -1, NULL);
}

void conn_adopt(struct server *s, uv_os_sock_t fd,
                const struct sockaddr_storage *peer) {
  conn_open(s, NULL, fd, peer);
}
