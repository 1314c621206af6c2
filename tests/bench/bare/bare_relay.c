/* bare_relay - the reference transport the loadgen is compared with
 * (loopback only).
 *
 *   bare_relay [--port P] [--host 127.0.0.1] [agond's other options, ignored]
 *
 * The brief's reference point for live play is "a bare libuv+jansson
 * transport with no rules and no storage". This is one, speaking the part
 * of agond's protocol that tests/bench/loadgen uses, so that both servers
 * run under the same generator in the same minute: on this shared VM the
 * speed of a given binary swings by 30% within minutes, and only a
 * comparison made alternately says what agond's rules and storage cost.
 *
 * It does what a plain relay must and nothing more: jansson decodes every
 * request and encodes every reply and event; a move goes to its game's two
 * players at once, with the next seq, unchecked (no turn, no legality, no
 * end of game: the loadgen's own rules core decides those with --bare); no
 * accounts, no clocks, no database. Output is gathered per connection and
 * written once per loop iteration, as agond does, so the comparison is with
 * a good transport, not a naive one.
 *
 * Requests: hello, register, seek_create, seek_accept (a game_start event
 * to both seats: the creator is seat 0, side 0), move, leave. Anything else
 * gets an error reply. Prints "listening on HOST:PORT" like agond; exits 0
 * on SIGTERM or SIGINT. */
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "proto.h"

#define LINE_MAX_BYTES 65536
#define OUT_MAX (1u << 20) /* pending output per connection before closing it */

typedef struct conn conn;
typedef struct game game;

struct conn {
  uv_tcp_t tcp;
  proto_framer fr;
  char *out;
  size_t out_len, out_cap;
  conn *flush_next;
  int flush_queued, closing;
  long long player_id;
};

struct game {
  conn *seat[2];
  long long seq;
};

typedef struct {
  void **v;
  size_t n;
} table; /* id -> pointer; ids are handed out in order from 1 */

static uv_loop_t *loop;
static conn *flush_head, *flush_tail;
static table games, seeks;
static long long next_player = 1;

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q) {
    fprintf(stderr, "bare_relay: out of memory\n");
    exit(1);
  }
  return q;
}

static long long table_add(table *t, void *p) {
  if (t->n % 1024 == 0) t->v = xrealloc(t->v, (t->n + 1024) * sizeof *t->v);
  t->v[t->n++] = p;
  return (long long)t->n; /* id = index + 1 */
}

static void *table_get(const table *t, long long id) {
  return id >= 1 && (size_t)id <= t->n ? t->v[id - 1] : NULL;
}

static void table_clear(table *t, long long id) {
  if (id >= 1 && (size_t)id <= t->n) t->v[id - 1] = NULL;
}

/* ---- output ------------------------------------------------------------- */

static void conn_close(conn *c);

static void send_json(conn *c, json_t *j) {
  if (!j) return;
  char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(j);
  if (!s || c->closing) {
    free(s);
    return;
  }
  size_t n = strlen(s);
  if (c->out_len + n + 1 > OUT_MAX) {
    free(s);
    conn_close(c);
    return;
  }
  if (c->out_len + n + 1 > c->out_cap) {
    c->out_cap = (c->out_len + n + 1) * 2;
    c->out = xrealloc(c->out, c->out_cap);
  }
  memcpy(c->out + c->out_len, s, n);
  c->out[c->out_len + n] = '\n';
  c->out_len += n + 1;
  free(s);
  if (!c->flush_queued) {
    c->flush_queued = 1;
    c->flush_next = NULL;
    if (flush_tail) flush_tail->flush_next = c;
    else flush_head = c;
    flush_tail = c;
  }
}

typedef struct {
  uv_write_t req;
  char data[];
} wreq;

static void write_cb(uv_write_t *req, int status) {
  conn *c = req->data;
  free(req);
  if (status < 0) conn_close(c);
}

static void flush_cb(uv_check_t *h) {
  (void)h;
  while (flush_head) {
    conn *c = flush_head;
    flush_head = c->flush_next;
    if (!flush_head) flush_tail = NULL;
    c->flush_queued = 0;
    if (c->closing || c->out_len == 0) continue;
    uv_buf_t b = uv_buf_init(c->out, (unsigned)c->out_len);
    int r = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
    size_t off = r > 0 ? (size_t)r : 0;
    if (r < 0 && r != UV_EAGAIN) {
      conn_close(c);
      continue;
    }
    if (off < c->out_len) { /* the rest behind libuv's queue, in order */
      wreq *w = xrealloc(NULL, sizeof *w + (c->out_len - off));
      memcpy(w->data, c->out + off, c->out_len - off);
      w->req.data = c;
      b = uv_buf_init(w->data, (unsigned)(c->out_len - off));
      if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, write_cb) < 0) {
        free(w);
        conn_close(c);
      }
    }
    c->out_len = 0;
  }
}

/* ---- requests ----------------------------------------------------------- */

static json_t *reply(const char *re, json_t *id, json_t *data) {
  return json_pack("{s:s, s:O, s:b, s:o}", "re", re, "id", id, "ok", 1, "data",
                   data ? data : json_object());
}

static json_t *error(const char *re, json_t *id, const char *code) {
  return json_pack("{s:s, s:O, s:b, s:{s:s}}", "re", re ? re : "", "id",
                   id ? id : json_null(), "ok", 0, "error", "code", code);
}

static void leave_game(conn *c, long long gid) {
  game *g = table_get(&games, gid);
  if (!g) return;
  for (int s = 0; s < 2; s++)
    if (g->seat[s] == c) g->seat[s] = NULL;
  if (!g->seat[0] && !g->seat[1]) {
    free(g);
    table_clear(&games, gid);
  }
}

static void on_move(conn *c, json_t *req, json_t *id) {
  json_int_t gid = json_integer_value(json_object_get(req, "game_id"));
  const char *mv = json_string_value(json_object_get(req, "move"));
  game *g = table_get(&games, gid);
  if (!g || !mv || (g->seat[0] != c && g->seat[1] != c)) {
    send_json(c, error("move", id, "not_a_player"));
    return;
  }
  long long seq = ++g->seq;
  send_json(c, reply("move", id,
                     json_pack("{s:I, s:I, s:s}", "game_id", gid, "seq",
                               (json_int_t)seq, "move", mv)));
  for (int s = 0; s < 2; s++)
    if (g->seat[s])
      send_json(g->seat[s],
                json_pack("{s:s, s:I, s:I, s:s, s:n}", "event", "move",
                          "game_id", gid, "seq", (json_int_t)seq, "move", mv,
                          "outcome"));
}

static void on_request(conn *c, json_t *req) {
  const char *type = json_string_value(json_object_get(req, "type"));
  json_t *id = json_object_get(req, "id");
  if (!type || !id) {
    send_json(c, error(type, id, "bad_request"));
    return;
  }
  if (strcmp(type, "move") == 0) {
    on_move(c, req, id);
  } else if (strcmp(type, "hello") == 0) {
    send_json(c, reply("hello", id, json_pack("{s:s}", "server", "bare_relay")));
  } else if (strcmp(type, "register") == 0) {
    c->player_id = next_player++;
    json_t *name = json_object_get(req, "name");
    send_json(c, reply("register", id,
                       json_pack("{s:s, s:O, s:I}", "token", "-", "name",
                                 name ? name : json_null(), "player_id",
                                 (json_int_t)c->player_id)));
  } else if (strcmp(type, "seek_create") == 0) {
    long long sid = table_add(&seeks, c);
    send_json(c, reply("seek_create", id, json_pack("{s:I}", "seek_id", (json_int_t)sid)));
  } else if (strcmp(type, "seek_accept") == 0) {
    json_int_t sid = json_integer_value(json_object_get(req, "seek_id"));
    conn *creator = table_get(&seeks, sid);
    if (!creator || creator == c) {
      send_json(c, error("seek_accept", id, "not_found"));
      return;
    }
    table_clear(&seeks, sid);
    game *g = xrealloc(NULL, sizeof *g);
    g->seat[0] = creator;
    g->seat[1] = c;
    g->seq = 0;
    long long gid = table_add(&games, g);
    send_json(c, reply("seek_accept", id, json_pack("{s:I}", "game_id", (json_int_t)gid)));
    for (int s = 0; s < 2; s++)
      send_json(g->seat[s],
                json_pack("{s:s, s:I, s:i, s:[{s:i},{s:i}], s:i}", "event",
                          "game_start", "game_id", (json_int_t)gid, "seq", 0,
                          "players", "seat", 0, "seat", 1, "chooser_seat", 0));
  } else if (strcmp(type, "leave") == 0) {
    leave_game(c, json_integer_value(json_object_get(req, "game_id")));
    send_json(c, reply("leave", id, NULL));
  } else {
    send_json(c, error(type, id, "unknown_type"));
  }
}

static int on_line(void *arg, int kind, const char *line, size_t len) {
  conn *c = arg;
  if (kind != PROTO_LINE) {
    send_json(c, error(NULL, NULL, "line_too_long"));
    return 0;
  }
  if (len == 0) return 0;
  json_t *req = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
  if (json_is_object(req)) on_request(c, req);
  else send_json(c, error(NULL, NULL, "bad_json"));
  json_decref(req);
  return 0;
}

/* ---- connections -------------------------------------------------------- */

static void close_cb(uv_handle_t *h) {
  conn *c = h->data;
  free(c->fr.buf);
  free(c->out);
  free(c);
}

static void conn_close(conn *c) {
  if (c->closing) return;
  c->closing = 1;
  for (size_t i = 0; i < games.n; i++) /* a benchmark tool: a scan is fine */
    if (games.v[i]) leave_game(c, (long long)i + 1);
  for (size_t i = 0; i < seeks.n; i++)
    if (seeks.v[i] == c) seeks.v[i] = NULL;
  uv_close((uv_handle_t *)&c->tcp, close_cb);
}

static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  conn *c = h->data;
  (void)hint;
  char *p;
  size_t n;
  proto_framer_space(&c->fr, &p, &n);
  *buf = uv_buf_init(p, (unsigned)n);
}

static void read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  conn *c = s->data;
  (void)buf;
  if (n < 0) {
    conn_close(c);
    return;
  }
  if (n > 0) proto_framer_feed(&c->fr, (size_t)n, on_line, c);
}

static void on_connection(uv_stream_t *server, int status) {
  if (status < 0) return;
  conn *c = xrealloc(NULL, sizeof *c);
  memset(c, 0, sizeof *c);
  proto_framer_init(&c->fr, LINE_MAX_BYTES);
  proto_framer_attach(&c->fr, xrealloc(NULL, c->fr.cap));
  uv_tcp_init(loop, &c->tcp);
  c->tcp.data = c;
  if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
    c->closing = 1;
    uv_close((uv_handle_t *)&c->tcp, close_cb);
    return;
  }
  uv_tcp_nodelay(&c->tcp, 1);
  uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb);
}

static void signal_cb(uv_signal_t *h, int signum) {
  (void)h;
  (void)signum;
  uv_stop(loop);
}

int main(int argc, char **argv) {
  const char *host = "127.0.0.1";
  int port = 0;
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--port") == 0) port = atoi(argv[++i]);
    else if (strcmp(argv[i], "--host") == 0) host = argv[++i];
  }
  if (strcmp(host, "127.0.0.1") != 0) {
    fprintf(stderr, "bare_relay: listens on 127.0.0.1 only\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  loop = uv_default_loop();
  uv_tcp_t server;
  struct sockaddr_in addr;
  uv_ip4_addr(host, port, &addr);
  uv_tcp_init(loop, &server);
  if (uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0) != 0 ||
      uv_listen((uv_stream_t *)&server, 511, on_connection) != 0) {
    fprintf(stderr, "bare_relay: cannot listen on %s:%d\n", host, port);
    return 1;
  }
  struct sockaddr_storage ss;
  int len = sizeof ss;
  uv_tcp_getsockname(&server, (struct sockaddr *)&ss, &len);
  printf("listening on %s:%d\n", host,
         ntohs(((struct sockaddr_in *)&ss)->sin_port));
  fflush(stdout);
  uv_check_t flusher;
  uv_check_init(loop, &flusher);
  uv_check_start(&flusher, flush_cb);
  uv_signal_t sigterm, sigint;
  uv_signal_init(loop, &sigterm);
  uv_signal_start(&sigterm, signal_cb, SIGTERM);
  uv_signal_init(loop, &sigint);
  uv_signal_start(&sigint, signal_cb, SIGINT);
  uv_run(loop, UV_RUN_DEFAULT);
  return 0;
}
