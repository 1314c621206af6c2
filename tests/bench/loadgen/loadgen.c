/* loadgen - live-play load generator for agond (loopback only, bounded).
 *
 *   loadgen AGOND [--games G] [--secs S] [--max-moves N] [--game NAME|mix]
 *           [--tc untimed|B+I|corr:D] [--sync full|normal|off] [--dir DIR]
 *           [--seed N] [--verbose] [--bare]
 *
 * Starts agond (--port 0, a fresh database in DIR, limits lifted for one
 * local address), then sets up G games: two connections each (hello,
 * register), the first creates a seek, the second accepts it. Once every
 * game has started, each side plays random legal moves chosen with the
 * rules core (libgame: ask to_move, Gambo may give several moves in a row)
 * as soon as it is its turn, i.e. as soon as the acknowledgement (mover) or
 * the move event (opponent) of the previous move arrived. A game that ends
 * is replaced by a new seek/accept between the same two players.
 *
 * Prints moves/s, ack latency (move sent -> its reply read) p50/p99/p999
 * and the server's memory per live game: VmRSS growth from before the
 * first connection to after all G games started (and again after the run,
 * games still live), divided by G.
 *
 * One libuv loop drives every client connection. Hot messages (move replies
 * and move events) are scanned without building a JSON tree: the generator
 * shares the machine with the server and must cost it as little CPU as
 * possible. Everything else goes through jansson.
 *
 * Games are set up so that the start position does not depend on the secret
 * seed (explicit Gambo rows, Gambit of Kings' first mover): the clients
 * replay every move locally and must know the position before the seed is
 * revealed. The creator (seat 0) asks for side 0 (or to be Gambo's
 * chooser). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "game.h"
#include "proto.h"

#define CONNECT_WINDOW 128   /* connects in flight (agond's backlog is 511) */
#define SETUP_WINDOW 64      /* games registering at once: agond admits 256
                                accounts requests in flight */
#define LINE_MAX_BYTES 65536 /* a game_start with its view fits easily */
#define HIST_CAP 512         /* repetition history per local match */
#define LAT_BUCKET_US 10     /* latency histogram resolution */
#define LAT_BUCKETS 1000000  /* 10 s range; above goes to the last bucket */
#define SETUP_TIMEOUT_MS 120000
#define DRAIN_MS 3000        /* wait for in-flight acks after the run */

typedef struct lg_game lg_game;

typedef struct lg_conn {
  uv_tcp_t tcp;
  uv_connect_t creq;
  proto_framer fr;
  lg_game *g;
  int seat;
  int open, connected, registered, started;
  int64_t told_seq;          /* highest move seq this side has been told */
  uint64_t next_id;
} lg_conn;

enum { G_IDLE, G_CONNECTING, G_SEEKING, G_ACCEPTING, G_READY, G_PLAYING,
       G_OVER };

struct lg_game {
  int idx, state;
  const game_vtable *vt;
  char options_json[512];    /* the seek's options object */
  char side_pref[32];
  lg_conn c[2];
  int64_t game_id, seek_id;
  int64_t applied_seq;       /* seq of the last move applied locally */
  int64_t base_seq;          /* seq of the game_start (or -1: unknown) */
  int seat_of_side[2];       /* side -> seat; -1 until known (Gambo choice) */
  int chooser_seat;          /* seat that sends "choose <side>" */
  game_match m;
  uint64_t hist[HIST_CAP];
  game_move pending;         /* the move in flight */
  char pending_text[GAME_MOVE_TEXT_MAX];
  int inflight;              /* a move is in flight (one per game) */
  int inflight_seat;
  int64_t inflight_game;     /* the game_id it was sent for */
  uint64_t sent_ns;
  uint64_t moves, games_done;
  uint64_t seek_ns;          /* when the replacement seek was sent */
  lg_game *next_ready;       /* on B.ready_head: may move at the check */
  int queued;
};

typedef struct lg {
  uv_loop_t *loop;
  struct sockaddr_in addr;
  lg_game *games;
  int n, started_conns, done_conns, setups, setup_next, ready;
  int running, draining;
  uint64_t max_moves;
  uint64_t moves, move_errors, games_finished, restarts;
  uint64_t inflight_total;
  uint64_t replace_ns;       /* total time from a game's end to its
                                replacement's start (seek, accept, commit) */
  uint32_t *lat;             /* histogram */
  uint64_t lat_n, lat_max_ns;
  uint64_t rng;
  char tc[32];
  int verbose;
  int bare;                  /* the server has no rules (tests/bench/bare):
                                it reports no outcome to check */
  unsigned errors_printed;
  char name_prefix[16];
  lg_game *ready_head;       /* games whose side may move: see want_move */
  uv_check_t mover;
} lg;

static lg B;
static pid_t server_pid;
static char tmpdir[256];
static int keep_dir;

/* ---- helpers ------------------------------------------------------------ */

static void cleanup_server(void) {
  if (server_pid > 0) {
    kill(server_pid, SIGKILL);
    waitpid(server_pid, NULL, 0);
    server_pid = 0;
  }
  if (tmpdir[0] && !keep_dir) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "loadgen: could not remove %s\n", tmpdir);
    tmpdir[0] = '\0';
  }
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "loadgen: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  cleanup_server();
  exit(1);
}

static uint64_t rnd(void) {  /* xorshift64*: the client's own choices */
  B.rng ^= B.rng >> 12;
  B.rng ^= B.rng << 25;
  B.rng ^= B.rng >> 27;
  return B.rng * 0x2545F4914F6CDD1DULL;
}

static long rss_kib(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  long v = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) v = strtol(line + 6, NULL, 10);
  if (f) fclose(f);
  return v;
}

/* memmem is a GNU extension; lines are short, a plain scan does. */
static const char *find(const char *h, size_t hl, const char *n, size_t nl) {
  if (nl == 0 || hl < nl) return NULL;
  for (const char *p = h, *end = h + hl - nl; p <= end; p++) {
    p = memchr(p, n[0], (size_t)(end - p) + 1);
    if (!p) return NULL;
    if (memcmp(p, n, nl) == 0) return p;
  }
  return NULL;
}

/* utime + stime of a process in seconds (/proc/PID/stat fields 14, 15). */
static double cpu_s(pid_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *p = strrchr(buf, ')');  /* the command name may hold blanks */
  unsigned long ut = 0, st = 0;
  if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                   &ut, &st) != 2)
    return 0;
  return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static double self_cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
         (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Integer after `key` (e.g. "\"seq\":") in line, or def. */
static int64_t scan_int(const char *line, size_t len, const char *key,
                        int64_t def) {
  size_t kl = strlen(key);
  const char *p = find(line, len, key, kl);
  if (!p) return def;
  p += kl;
  const char *end = line + len;
  int neg = 0;
  if (p < end && *p == '-') {
    neg = 1;
    p++;
  }
  if (p >= end || *p < '0' || *p > '9') return def;
  int64_t v = 0;
  while (p < end && *p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
  return neg ? -v : v;
}

static int has(const char *line, size_t len, const char *s) {
  return find(line, len, s, strlen(s)) != NULL;
}

static int starts(const char *line, size_t len, const char *s) {
  size_t n = strlen(s);
  return len >= n && memcmp(line, s, n) == 0;
}

/* ---- writes ------------------------------------------------------------- */

typedef struct wreq {
  uv_write_t req;
  char data[];
} wreq;

static void write_cb(uv_write_t *w, int status) {
  (void)status;
  free(w);
}

static void send_line(lg_conn *c, const char *s, size_t n) {
  if (!c->open) return;
  uv_buf_t ub = uv_buf_init((char *)s, (unsigned)n);
  int r = uv_try_write((uv_stream_t *)&c->tcp, &ub, 1);
  if (r == (int)n) return;
  size_t off = r > 0 ? (size_t)r : 0;
  if (r < 0 && r != UV_EAGAIN) return;  /* the read side reports the loss */
  wreq *w = malloc(sizeof *w + (n - off));
  if (!w) die("out of memory");
  memcpy(w->data, s + off, n - off);
  ub = uv_buf_init(w->data, (unsigned)(n - off));
  if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &ub, 1, write_cb) < 0) free(w);
}

static void sendf(lg_conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sendf(lg_conn *c, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  if (n < 0 || n >= (int)sizeof buf - 1) die("request too long");
  buf[n++] = '\n';
  send_line(c, buf, (size_t)n);
}

static char *put(char *p, const char *s) {
  size_t n = strlen(s);
  memcpy(p, s, n);
  return p + n;
}

static char *put_int(char *p, long long v) {
  return p + proto_fmt_int(p, v);
}

/* ---- game logic ---------------------------------------------------------- */

static void game_reset_local(lg_game *g) {
  agon_err e;
  game_setup su;
  game_setup_init(&su, g->vt);
  json_error_t je;
  json_t *opts = json_loads(g->options_json, 0, &je);
  if (!opts || game_setup_from_json(&su, g->vt, opts, &e) != 0)
    die("bad options for %s: %s", g->vt->name, opts ? e.msg : je.text);
  json_decref(opts);
  /* The seed is secret until the end; the options make the start position
   * independent of it, so any seed gives the server's position. */
  if (game_match_init(&g->m, &su, 0, g->hist, HIST_CAP, &e) != 0)
    die("game_match_init %s: %s", g->vt->name, e.msg);
  g->applied_seq = -1;
  g->base_seq = -1;
  g->game_id = -1;  /* late events of the previous game are ignored */
  g->c[0].told_seq = g->c[1].told_seq = -1;
  g->c[0].started = g->c[1].started = 0;
  int chooser = game_match_to_move(&g->m) == GAME_CHOOSER;
  g->seat_of_side[0] = chooser ? -1 : 0;
  g->seat_of_side[1] = chooser ? -1 : 1;
  g->chooser_seat = 0;  /* chooser=creator; game_start confirms */
}

/* Which seat acts for the side to move (-1: nobody / unknown). */
static int seat_to_move(lg_game *g) {
  int tm = game_match_to_move(&g->m);
  if (tm == GAME_CHOOSER) return g->chooser_seat;
  if (tm != GAME_SIDE0 && tm != GAME_SIDE1) return -1;
  return g->seat_of_side[tm];
}

static void start_seek(lg_game *g);

/* The side to move plays if it knows the latest position. */
static void maybe_move(lg_game *g) {
  if (g->state != G_PLAYING || g->inflight || !B.running) return;
  if (B.max_moves && B.moves + B.inflight_total >= B.max_moves) return;
  int seat = seat_to_move(g);
  if (seat < 0) return;
  lg_conn *c = &g->c[seat];
  int64_t latest = g->applied_seq >= 0 ? g->applied_seq : g->base_seq;
  if (c->told_seq < latest) return;  /* its event has not arrived yet */
  static game_move moves[GAME_MAX_MOVES];
  size_t n = 0;
  if (game_match_legal(&g->m, moves, GAME_MAX_MOVES, &n) != 0 || n == 0)
    die("game %d: no legal move but the game is not over", g->idx);
  g->pending = moves[rnd() % n];
  if (g->vt->format_move(&g->m.st, &g->pending, g->pending_text,
                         sizeof g->pending_text) < 0)
    die("format_move");
  g->inflight = 1;
  g->inflight_seat = seat;
  g->inflight_game = g->game_id;
  B.inflight_total++;
  g->sent_ns = uv_hrtime();
  /* Written by hand: vsnprintf per move showed in the generator's profile,
   * and its CPU is taken from the server's. Move texts need no escaping. */
  char buf[GAME_MOVE_TEXT_MAX + 160], *p = buf;
  p = put(p, "{\"type\":\"move\",\"id\":");
  p = put_int(p, (long long)++c->next_id);
  p = put(p, ",\"game_id\":");
  p = put_int(p, (long long)g->game_id);
  p = put(p, ",\"move\":\"");
  p = put(p, g->pending_text);
  p = put(p, "\"");
  if (latest >= 0) {
    p = put(p, ",\"seq\":");
    p = put_int(p, (long long)latest);
  }
  p = put(p, "}\n");
  send_line(c, buf, (size_t)(p - buf));
}

/* Replies and events only mark their game; the moves are chosen and sent
 * once the loop has read everything that was ready (its check phase). A
 * move chosen inside the read callback delayed the reading of every reply
 * behind it in the same iteration, and that wait, the generator's own
 * work, counted in those replies' ack latency. Separate clients would not
 * queue behind each other. */
static void want_move(lg_game *g) {
  if (g->queued) return;
  g->queued = 1;
  g->next_ready = B.ready_head;
  B.ready_head = g;
}

static void mover_cb(uv_check_t *h) {
  (void)h;
  while (B.ready_head) {
    lg_game *g = B.ready_head;
    B.ready_head = g->next_ready;
    g->queued = 0;
    maybe_move(g);
  }
}

static void game_over(lg_game *g) {
  if (g->state != G_PLAYING) return;
  g->state = G_OVER;
  /* A finished game's room stays attached to the connections (rematch)
   * until they leave it, and agond caps the rooms per connection. */
  for (int s = 0; s < 2; s++)
    sendf(&g->c[s], "{\"type\":\"leave\",\"id\":%llu,\"game_id\":%lld}",
          (unsigned long long)++g->c[s].next_id, (long long)g->game_id);
  g->games_done++;
  B.games_finished++;
  if (B.running) start_seek(g);  /* a new game between the same players */
}

/* The move in flight was committed with this seq (first of its ack and
 * its events to arrive): apply it locally. over_flag: what the server said
 * about the outcome (1 over, 0 ongoing, -1 not said). */
static void move_committed(lg_game *g, int64_t seq, int over_flag) {
  const char *text = g->pending_text;
  int chooser = game_match_to_move(&g->m) == GAME_CHOOSER;
  agon_err e;
  if (game_match_apply(&g->m, &g->pending, &e) != 0)
    die("game %d: local apply: %s", g->idx, e.msg);
  if (chooser) {
    /* "choose north": the chooser takes the side it named. */
    int k = strstr(text, g->vt->side_names[0]) ? 0 : 1;
    g->seat_of_side[k] = g->chooser_seat;
    g->seat_of_side[1 - k] = 1 - g->chooser_seat;
  }
  g->applied_seq = seq;
  int local_over = game_match_outcome(&g->m).result != GAME_ONGOING;
  if (over_flag >= 0 && !B.bare && local_over != over_flag)
    die("game %d: server says %s, local rules say %s after %s", g->idx,
        over_flag ? "over" : "ongoing", local_over ? "over" : "ongoing", text);
  if (local_over) game_over(g);
}

static void count_latency(uint64_t ns) {
  uint64_t b = ns / 1000 / LAT_BUCKET_US;
  if (b >= LAT_BUCKETS) b = LAT_BUCKETS - 1;
  B.lat[b]++;
  B.lat_n++;
  if (ns > B.lat_max_ns) B.lat_max_ns = ns;
}

static double lat_pct(double p) {
  uint64_t want = (uint64_t)(p * (double)B.lat_n);
  if (want >= B.lat_n) want = B.lat_n - 1;
  uint64_t acc = 0;
  for (uint64_t i = 0; i < LAT_BUCKETS; i++) {
    acc += B.lat[i];
    if (acc > want) return (double)(i * LAT_BUCKET_US + LAT_BUCKET_US / 2) / 1000.0;
  }
  return 0;
}

static void report_error(lg_game *g, const char *line, size_t len) {
  if (B.errors_printed++ < 10)
    fprintf(stderr, "loadgen: game %d: %.*s\n", g->idx, (int)(len > 300 ? 300 : len), line);
}

/* ---- setup --------------------------------------------------------------- */

static void start_seek(lg_game *g) {
  g->state = G_SEEKING;
  g->seek_ns = uv_hrtime();
  game_reset_local(g);
  sendf(&g->c[0], "{\"type\":\"seek_create\",\"id\":%llu,\"game\":\"%s\",\"options\":%s,"
        "\"time_control\":\"%s\",\"side\":\"%s\",\"rated\":false}",
        (unsigned long long)++g->c[0].next_id, g->vt->name, g->options_json,
        B.tc, g->side_pref);
}

static void setup_next(void);

static void game_started(lg_game *g) {
  if (g->state != G_ACCEPTING || !g->c[0].started || !g->c[1].started) return;
  if (B.ready < B.n) {
    g->state = G_READY;
    B.ready++;
    if (B.ready == B.n) uv_stop(B.loop);  /* setup phase done */
    return;
  }
  g->state = G_PLAYING;  /* a replacement game during the run */
  B.restarts++;
  B.replace_ns += uv_hrtime() - g->seek_ns;
  want_move(g);
}

/* {"event":"game_start",...}: the game id and which seat has which side. */
static void on_game_start(lg_conn *c, json_t *j) {
  lg_game *g = c->g;
  json_int_t gid = -1, seq = -1;
  json_t *gi = json_object_get(j, "game_id");
  if (json_is_integer(gi)) gid = json_integer_value(gi);
  json_t *sq = json_object_get(j, "seq");
  if (json_is_integer(sq)) seq = json_integer_value(sq);
  if (gid < 0) die("game_start without game_id");
  if (g->game_id != gid && c->seat == 1 && g->c[0].started && g->game_id >= 0)
    die("the two seats were told different games");
  g->game_id = gid;
  if (seq > g->base_seq) g->base_seq = seq;
  c->told_seq = seq;
  c->started = 1;
  /* Sides per seat as the server assigned them (we asked for side 0). */
  size_t i;
  json_t *p;
  json_array_foreach(json_object_get(j, "players"), i, p) {
    json_int_t seat = json_integer_value(json_object_get(p, "seat"));
    const char *side = json_string_value(json_object_get(p, "side"));
    int k = side ? game_side_from_name(g->vt, side) : -1;
    if (k >= 0 && (seat == 0 || seat == 1)) g->seat_of_side[k] = (int)seat;
  }
  json_t *cs = json_object_get(j, "chooser_seat");
  if (json_is_integer(cs)) g->chooser_seat = (int)json_integer_value(cs);
  game_started(g);
}

static void on_register(lg_conn *c) {
  lg_game *g = c->g;
  c->registered = 1;
  if (g->c[0].registered && g->c[1].registered) {
    B.setups--;
    start_seek(g);
    setup_next();
  }
}

/* ---- reading ------------------------------------------------------------- */

static void on_reply_other(lg_conn *c, json_t *j, const char *line,
                           size_t len) {
  lg_game *g = c->g;
  const char *re = json_string_value(json_object_get(j, "re"));
  int ok = json_is_true(json_object_get(j, "ok"));
  json_t *data = json_object_get(j, "data");
  if (!ok) {
    report_error(g, line, len);
    die("request %s failed", re ? re : "?");
  }
  if (re && strcmp(re, "hello") == 0) {
    sendf(c, "{\"type\":\"register\",\"id\":%llu,\"name\":\"%s%dx%d\","
          "\"password\":\"loadgen password\"}",
          (unsigned long long)++c->next_id, B.name_prefix, g->idx, c->seat);
  } else if (re && strcmp(re, "register") == 0) {
    on_register(c);
  } else if (re && strcmp(re, "seek_create") == 0) {
    json_t *sid = json_object_get(data, "seek_id");
    if (!json_is_integer(sid)) die("seek_create reply without seek_id");
    g->seek_id = json_integer_value(sid);
    g->state = G_ACCEPTING;
    sendf(&g->c[1], "{\"type\":\"seek_accept\",\"id\":%llu,\"seek_id\":%lld}",
          (unsigned long long)++g->c[1].next_id, (long long)g->seek_id);
  } else if (re && strcmp(re, "seek_accept") == 0) {
    /* the game_start events carry what we need */
  }
}

/* The mover's acknowledgement: sent by the server after COMMIT. */
static void on_move_reply(lg_conn *c, const char *line, size_t len) {
  lg_game *g = c->g;
  {
    if (!g->inflight || g->inflight_seat != c->seat)
      die("game %d: move reply without a move in flight", g->idx);
    uint64_t now = uv_hrtime();
    g->inflight = 0;
    B.inflight_total--;
    if (!has(line, len, "\"ok\":true")) {
      B.move_errors++;
      report_error(g, line, len);
      if (B.move_errors > 100) die("too many move errors");
      want_move(g);  /* e.g. busy: try again */
      return;
    }
    count_latency(now - g->sent_ns);
    B.moves++;
    g->moves++;
    int64_t seq = scan_int(line, len, "\"seq\":", -1);
    if (seq < 0) die("move reply without seq: %.*s", (int)len, line);
    if (g->state == G_PLAYING && g->inflight_game == g->game_id) {
      if (seq > c->told_seq) c->told_seq = seq;
      if (seq > g->applied_seq) move_committed(g, seq, -1);
    }
    if (B.max_moves && B.moves >= B.max_moves && B.running) {
      B.running = 0;
      uv_stop(B.loop);
    }
    want_move(g);
  }
}

static void on_move_event(lg_conn *c, const char *line, size_t len) {
  lg_game *g = c->g;
  {
    int64_t seq = scan_int(line, len, "\"seq\":", -1);
    if (seq < 0) die("move event without seq: %.*s", (int)len, line);
    int over = has(line, len, "\"outcome\":null") ? 0 : 1;
    int64_t gid = scan_int(line, len, "\"game_id\":", -1);
    if (gid != g->game_id || g->state != G_PLAYING) return;  /* a past game */
    if (seq > c->told_seq) c->told_seq = seq;
    if (seq > g->applied_seq) {
      /* The event overtook the mover's ack (the other connection was read
       * first): the move in flight is the one committed. */
      if (!g->inflight)
        die("game %d: move event seq %lld without a move in flight", g->idx,
            (long long)seq);
      move_committed(g, seq, over);
    } else if (seq == g->applied_seq) {
      int local_over = game_match_outcome(&g->m).result != GAME_ONGOING;
      if (local_over != over && !B.bare)
        die("game %d: server and local rules disagree on the outcome", g->idx);
    }
    want_move(g);
  }
}

static int on_line(void *arg, int kind, const char *line, size_t len) {
  lg_conn *c = arg;
  lg_game *g = c->g;
  if (kind != PROTO_LINE) die("reply line too long");
  if (len == 0) return 0;
  /* Fast path: the hot messages when the server puts the name first. */
  if (starts(line, len, "{\"re\":\"move\"")) {
    on_move_reply(c, line, len);
    return 0;
  }
  if (starts(line, len, "{\"event\":\"move\"")) {
    on_move_event(c, line, len);
    return 0;
  }
  json_error_t je;
  json_t *j = json_loadb(line, len, 0, &je);
  if (!j) die("bad line from the server: %s", je.text);
  const char *ev = json_string_value(json_object_get(j, "event"));
  const char *re = json_string_value(json_object_get(j, "re"));
  if (ev) {
    if (strcmp(ev, "move") == 0) on_move_event(c, line, len);
    else if (strcmp(ev, "game_start") == 0) on_game_start(c, j);
    else if (strcmp(ev, "game_end") == 0) {
      json_t *gi = json_object_get(j, "game_id");
      if (json_is_integer(gi) && json_integer_value(gi) == g->game_id) game_over(g);
    } else if (strcmp(ev, "ping") == 0) {
      sendf(c, "{\"type\":\"pong\",\"nonce\":%lld}",
            (long long)json_integer_value(json_object_get(j, "nonce")));
    } else if (strcmp(ev, "disconnect") == 0 || strcmp(ev, "shutdown") == 0) {
      die("server event: %.*s", (int)len, line);
    } else if (B.verbose) {
      fprintf(stderr, "loadgen: event %.*s\n", (int)(len > 200 ? 200 : len), line);
    }
  } else if (re && strcmp(re, "move") == 0) {
    on_move_reply(c, line, len);
  } else if (!re || strcmp(re, "pong") != 0) {
    on_reply_other(c, j, line, len);
  }
  json_decref(j);
  return 0;
}

static void alloc_cb(uv_handle_t *h, size_t sz, uv_buf_t *buf) {
  lg_conn *c = h->data;
  (void)sz;
  char *p;
  size_t n;
  proto_framer_space(&c->fr, &p, &n);
  *buf = uv_buf_init(p, (unsigned)n);
}

static void read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  lg_conn *c = s->data;
  (void)buf;
  if (n < 0) {
    if (B.draining) return;
    die("game %d seat %d: connection lost: %s", c->g->idx, c->seat,
        uv_strerror((int)n));
  }
  if (n > 0) proto_framer_feed(&c->fr, (size_t)n, on_line, c);
}

/* ---- connecting ----------------------------------------------------------- */

static void connect_cb(uv_connect_t *req, int status) {
  lg_conn *c = req->data;
  B.done_conns++;
  if (status < 0) die("connect: %s", uv_strerror(status));
  c->connected = 1;
  uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb);
  sendf(c, "{\"type\":\"hello\",\"id\":%llu,\"version\":1,\"client\":\"loadgen\"}",
        (unsigned long long)++c->next_id);
  setup_next();
}

static void open_conn(lg_conn *c) {
  c->fr.buf = NULL;
  proto_framer_init(&c->fr, LINE_MAX_BYTES);
  proto_framer_attach(&c->fr, malloc(c->fr.cap));
  if (!c->fr.buf) die("out of memory");
  uv_tcp_init(B.loop, &c->tcp);
  c->open = 1;
  c->tcp.data = c;
  c->creq.data = c;
  if (uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)&B.addr,
                     connect_cb) < 0)
    die("uv_tcp_connect");
  uv_tcp_nodelay(&c->tcp, 1);
  B.started_conns++;
}

/* Start setting up more games while the windows allow. */
static void setup_next(void) {
  while (B.setup_next < B.n && B.setups < SETUP_WINDOW &&
         B.started_conns - B.done_conns + 2 <= CONNECT_WINDOW) {
    lg_game *g = &B.games[B.setup_next++];
    g->state = G_CONNECTING;
    B.setups++;
    open_conn(&g->c[0]);
    open_conn(&g->c[1]);
  }
}

/* ---- server --------------------------------------------------------------- */

static int start_server(const char *agond, const char *dir, const char *sync) {
  snprintf(tmpdir, sizeof tmpdir, "%s/loadgen.XXXXXX", dir);
  if (mkdtemp(tmpdir) == NULL) die("mkdtemp in %s: %s", dir, strerror(errno));
  char db[300];
  snprintf(db, sizeof db, "%s/agon.db", tmpdir);
  int fds[2];
  if (pipe(fds) != 0) die("pipe");
  server_pid = fork();
  if (server_pid < 0) die("fork");
  if (server_pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execl(agond, agond, "--port", "0", "--db", db, "--log-level", "warn",
          "--synchronous", sync, "--pwhash-fast",
          "--rate", "0", "--addr-rate", "0", "--max-conns-per-addr", "0",
          "--max-conns", "20000", "--ping-interval-ms", "0",
          "--idle-timeout-ms", "0", "--hello-timeout-ms", "0",
          "--login-addr-burst", "1000000", (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  char line[128];
  size_t n = 0;
  while (n < sizeof line - 1) {
    ssize_t k = read(fds[0], line + n, 1);
    if (k <= 0) die("agond did not start");
    if (line[n] == '\n') break;
    n++;
  }
  line[n] = '\0';
  close(fds[0]);
  const char *colon = strrchr(line, ':');
  if (strncmp(line, "listening on ", 13) != 0 || colon == NULL)
    die("unexpected first line from agond: %s", line);
  return atoi(colon + 1);
}

/* ---- games ---------------------------------------------------------------- */

/* Options that make the start position independent of the seed, and the
 * creator's side preference. */
static void game_config(lg_game *g, const game_vtable *vt) {
  g->vt = vt;
  const char *name = vt->name;
  snprintf(g->side_pref, sizeof g->side_pref, "%s", vt->side_names[0]);
  if (strncmp(name, "gambo-", 6) == 0) {
    snprintf(g->options_json, sizeof g->options_json,
             "{\"chooser\":\"creator\",\"south\":\"M2,E3,C1,E1,M3,C2,M1,C3,E2\","
             "\"north\":\"C3,M1,E2,M3,C1,E1,C2,E3,M2\"}");
    snprintf(g->side_pref, sizeof g->side_pref, "random");  /* ignored */
  } else if (strcmp(name, "gambit-of-kings") == 0) {
    snprintf(g->options_json, sizeof g->options_json, "{\"first\":\"light\"}");
  } else {
    snprintf(g->options_json, sizeof g->options_json, "{}");
  }
}

static void guard_cb(uv_timer_t *t) {
  (void)t;
  if (B.ready < B.n)
    die("setup did not finish in %d s (%d of %d games ready)",
        SETUP_TIMEOUT_MS / 1000, B.ready, B.n);
  B.running = 0;
  uv_stop(B.loop);
}

static void run_for(uint64_t ms) {
  uv_timer_t t;
  uv_timer_init(B.loop, &t);
  uv_timer_start(&t, guard_cb, ms, 0);
  uv_run(B.loop, UV_RUN_DEFAULT);
  uv_close((uv_handle_t *)&t, NULL);
  uv_run(B.loop, UV_RUN_NOWAIT);
}

static void usage(void) {
  fprintf(stderr,
          "usage: loadgen AGOND [--games G] [--secs S] [--max-moves N]\n"
          "               [--game NAME|mix] [--tc untimed|B+I|corr:D]\n"
          "               [--sync full|normal|off] [--dir DIR] [--seed N] [--keep] [--verbose]\n"
          "               [--bare]   (AGOND is tests/bench/bare's relay: no outcomes to check)\n");
  exit(2);
}

int main(int argc, char **argv) {
  if (argc < 2) usage();
  const char *agond = argv[1];
  int games = 100;
  double secs = 10;
  const char *game = "mix", *sync = "full", *dir = "/tmp";
  uint64_t seed = 0;
  B.max_moves = 20000000;  /* bound besides the duration (--max-moves 0: none) */
  snprintf(B.tc, sizeof B.tc, "10+5");
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--verbose") == 0) { B.verbose = 1; continue; }
    if (strcmp(a, "--bare") == 0) { B.bare = 1; continue; }
    if (strcmp(a, "--keep") == 0) { keep_dir = 1; continue; }
    if (!v) usage();
    if (strcmp(a, "--games") == 0) games = atoi(v);
    else if (strcmp(a, "--secs") == 0) secs = atof(v);
    else if (strcmp(a, "--max-moves") == 0) B.max_moves = strtoull(v, NULL, 10);
    else if (strcmp(a, "--game") == 0) game = v;
    else if (strcmp(a, "--tc") == 0) snprintf(B.tc, sizeof B.tc, "%s", v);
    else if (strcmp(a, "--sync") == 0) sync = v;
    else if (strcmp(a, "--dir") == 0) dir = v;
    else if (strcmp(a, "--seed") == 0) seed = strtoull(v, NULL, 10);
    else usage();
    i++;
  }
  if (games < 1 || games > 5000 || secs <= 0 || secs > 600) usage();
  B.rng = seed ? seed : (uint64_t)uv_hrtime() | 1;
  snprintf(B.name_prefix, sizeof B.name_prefix, "lg%x_", (unsigned)(B.rng & 0xfff));

  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  signal(SIGPIPE, SIG_IGN);

  B.n = games;
  B.games = calloc((size_t)games, sizeof *B.games);
  B.lat = calloc(LAT_BUCKETS, sizeof *B.lat);
  if (!B.games || !B.lat) die("out of memory");
  size_t nvt = 0;
  while (game_registry[nvt]) nvt++;
  for (int i = 0; i < games; i++) {
    lg_game *g = &B.games[i];
    const game_vtable *vt = strcmp(game, "mix") == 0 ? game_registry[i % nvt]
                                                     : game_find(game);
    if (!vt) die("unknown game %s", game);
    g->idx = i;
    g->game_id = -1;
    game_config(g, vt);
    game_reset_local(g);
    for (int s = 0; s < 2; s++) {
      g->c[s].g = g;
      g->c[s].seat = s;
    }
  }

  int port = start_server(agond, dir, sync);
  B.loop = uv_default_loop();
  uv_check_init(B.loop, &B.mover);
  uv_check_start(&B.mover, mover_cb);
  uv_unref((uv_handle_t *)&B.mover);
  uv_ip4_addr("127.0.0.1", port, &B.addr);
  usleep(200000);
  long rss0 = rss_kib(server_pid);

  /* 1. set up every game (connections, accounts, seek, accept) */
  uint64_t t0 = uv_hrtime();
  setup_next();
  run_for(SETUP_TIMEOUT_MS);
  if (B.ready < B.n) die("setup stopped early");
  double setup_s = (double)(uv_hrtime() - t0) / 1e9;
  usleep(300000);
  long rss1 = rss_kib(server_pid);

  /* 2. play */
  B.running = 1;
  for (int i = 0; i < games; i++) {
    B.games[i].state = G_PLAYING;
    maybe_move(&B.games[i]);
  }
  uv_update_time(B.loop);
  double scpu0 = cpu_s(server_pid), lcpu0 = self_cpu_s();
  t0 = uv_hrtime();
  run_for((uint64_t)(secs * 1000));
  double el = (double)(uv_hrtime() - t0) / 1e9;
  uint64_t moves = B.moves;
  double scpu = cpu_s(server_pid) - scpu0, lcpu = self_cpu_s() - lcpu0;
  B.running = 0;
  /* let the acks still in flight arrive (their latency counts) */
  B.draining = 1;
  uint64_t d0 = uv_hrtime();
  while (B.inflight_total > 0 && uv_hrtime() - d0 < (uint64_t)DRAIN_MS * 1000000) {
    uv_run(B.loop, UV_RUN_ONCE);
  }
  long rss2 = rss_kib(server_pid);

  int live = 0;
  for (int i = 0; i < games; i++)
    if (B.games[i].state == G_PLAYING) live++;
  printf("loadgen: %d games (%s), time control %s, synchronous=%s, db in %s\n",
         games, game, B.tc, sync, dir);
  printf("setup: %d games started in %.2f s\n", games, setup_s);
  printf("moves: %llu in %.2f s = %.0f moves/s (move errors %llu, games finished %llu, replaced %llu)\n",
         (unsigned long long)moves, el, (double)moves / el,
         (unsigned long long)B.move_errors, (unsigned long long)B.games_finished,
         (unsigned long long)B.restarts);
  if (B.restarts)
    printf("replacement games: %.3f ms from the end of a game to the start of the next (mean)\n",
           (double)B.replace_ns / (double)B.restarts / 1e6);
  printf("cpu: server %.2f s (%.1f us per move), loadgen %.2f s (%.1f us per move)\n",
         scpu, moves ? scpu * 1e6 / (double)moves : 0.0, lcpu,
         moves ? lcpu * 1e6 / (double)moves : 0.0);
  if (B.lat_n)
    printf("ack latency: p50 %.3f ms, p99 %.3f ms, p999 %.3f ms, max %.3f ms (%llu acks)\n",
           lat_pct(0.50), lat_pct(0.99), lat_pct(0.999),
           (double)B.lat_max_ns / 1e6, (unsigned long long)B.lat_n);
  printf("server VmRSS: %ld KiB before, %ld KiB with %d games started, %ld KiB after the run (%d live)\n",
         rss0, rss1, games, rss2, live);
  printf("memory per live game: %.2f KiB (after setup), %.2f KiB (after the run)\n",
         (double)(rss1 - rss0) / games, (double)(rss2 - rss0) / games);
  fflush(stdout);

  for (int i = 0; i < games; i++)
    for (int s = 0; s < 2; s++)
      if (B.games[i].c[s].open) uv_close((uv_handle_t *)&B.games[i].c[s].tcp, NULL);
  uv_run(B.loop, UV_RUN_NOWAIT);
  kill(server_pid, SIGTERM);
  int st;
  waitpid(server_pid, &st, 0);
  server_pid = 0;
  printf("agond exit status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  cleanup_server();
  for (int i = 0; i < games; i++)
    for (int s = 0; s < 2; s++) free(B.games[i].c[s].fr.buf);
  free(B.games);
  free(B.lat);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 && B.move_errors == 0 ? 0 : 1;
}
