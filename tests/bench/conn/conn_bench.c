/* conn_bench - connection benchmark of agond (loopback only, bounded time).
 *
 *   conn_bench AGOND [idle_conns=2000] [seconds_per_run=2]
 *
 * Starts agond (--port 0, temporary database, limits lifted for one local
 * address), then:
 *  1. opens idle_conns connections that each say hello and then stay idle:
 *     server memory per connection = VmRSS growth / idle_conns;
 *  2. for 2, 200 and 2 000 connections: each keeps exactly one request in
 *     flight (send, wait for the reply, send the next) for the run time;
 *     prints hello and ping round trips per second.
 * One libuv loop drives every client connection. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#define CONNECT_WINDOW 128   /* connects in flight (listen backlog is 511) */

typedef struct client {
  uv_tcp_t tcp;
  uv_connect_t creq;
  int connected, hello_done, open;
  uint64_t replies;
  size_t partial;            /* bytes of an unfinished reply line */
  struct bench *b;
} client;

typedef struct bench {
  uv_loop_t *loop;
  struct sockaddr_in addr;
  client *cl;
  int n, started, connected, hellos, failed;
  int running;               /* request loop active */
  const char *req;           /* request line sent repeatedly */
  size_t req_len;
  uint64_t total;
} bench;

static pid_t server_pid;
static int server_port;
static char tmpdir[256];

static void die(const char *what) {
  fprintf(stderr, "conn_bench: %s\n", what);
  if (server_pid > 0) kill(server_pid, SIGKILL);
  exit(1);
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

static const char HELLO[] = "{\"type\":\"hello\",\"version\":1}\n";
static const char PING[] = "{\"type\":\"ping\"}\n";

static void wcb(uv_write_t *w, int status) {
  (void)status;
  free(w);
}

static void send_line(client *c, const char *s, size_t n) {
  uv_buf_t ub = uv_buf_init((char *)s, (unsigned)n);
  int r = uv_try_write((uv_stream_t *)&c->tcp, &ub, 1);
  if (r == (int)n) return;
  size_t off = r > 0 ? (size_t)r : 0;
  if (r < 0 && r != UV_EAGAIN) return;
  ub = uv_buf_init((char *)s + off, (unsigned)(n - off));
  uv_write_t *w = malloc(sizeof *w);
  if (uv_write(w, (uv_stream_t *)&c->tcp, &ub, 1, wcb) < 0) free(w);
}

static void alloc_cb(uv_handle_t *h, size_t sz, uv_buf_t *buf) {
  static char slab[65536];  /* one loop thread: replies are only counted */
  (void)h;
  (void)sz;
  *buf = uv_buf_init(slab, sizeof slab);
}

static void on_reply(client *c) {
  bench *b = c->b;
  if (!c->hello_done) {
    c->hello_done = 1;
    b->hellos++;
    if (b->hellos + b->failed == b->n) uv_stop(b->loop);
    return;
  }
  c->replies++;
  b->total++;
  if (b->running) send_line(c, b->req, b->req_len);
}

static void read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  client *c = s->data;
  if (n < 0) {
    fprintf(stderr, "conn_bench: connection lost: %s\n", uv_strerror((int)n));
    uv_read_stop(s);
    c->b->failed++;
    return;
  }
  for (ssize_t i = 0; i < n; i++)
    if (buf->base[i] == '\n') on_reply(c);
}

static void start_connects(bench *b);

static void connect_cb(uv_connect_t *req, int status) {
  client *c = req->data;
  bench *b = c->b;
  b->connected++;
  if (status < 0) {
    fprintf(stderr, "conn_bench: connect: %s\n", uv_strerror(status));
    b->failed++;
    if (b->hellos + b->failed == b->n) uv_stop(b->loop);
  } else {
    c->connected = 1;
    uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb);
    send_line(c, HELLO, sizeof HELLO - 1);
  }
  start_connects(b);
}

static void start_connects(bench *b) {
  while (b->started < b->n && b->started - b->connected < CONNECT_WINDOW) {
    client *c = &b->cl[b->started++];
    c->b = b;
    uv_tcp_init(b->loop, &c->tcp);
    c->open = 1;
    c->tcp.data = c;
    c->creq.data = c;
    uv_tcp_nodelay(&c->tcp, 1);
    if (uv_tcp_connect(&c->creq, &c->tcp, (struct sockaddr *)&b->addr,
                       connect_cb) < 0)
      die("uv_tcp_connect");
  }
}

static void timeout_cb(uv_timer_t *t) {
  bench *b = t->data;
  b->running = 0;
  uv_stop(b->loop);
}

/* Open n connections, each says hello; returns when all answered. */
static void open_conns(bench *b, int n) {
  memset(b, 0, sizeof *b);
  b->loop = uv_default_loop();
  uv_ip4_addr("127.0.0.1", server_port, &b->addr);
  b->cl = calloc((size_t)n, sizeof *b->cl);
  b->n = n;
  start_connects(b);
  uv_timer_t guard;
  uv_timer_init(b->loop, &guard);
  guard.data = b;
  uv_timer_start(&guard, timeout_cb, 60000, 0);  /* bounded */
  uv_run(b->loop, UV_RUN_DEFAULT);
  uv_close((uv_handle_t *)&guard, NULL);
  uv_run(b->loop, UV_RUN_NOWAIT);
  if (b->hellos != n) die("not every connection got its hello reply");
}

static void close_conns(bench *b) {
  for (int i = 0; i < b->n; i++)
    if (b->cl[i].open) uv_close((uv_handle_t *)&b->cl[i].tcp, NULL);
  uv_run(b->loop, UV_RUN_DEFAULT);
  free(b->cl);
}

static double run_requests(bench *b, const char *req, double secs) {
  b->req = req;
  b->req_len = strlen(req);
  b->running = 1;
  b->total = 0;
  uv_timer_t t;
  uv_timer_init(b->loop, &t);
  t.data = b;
  uv_update_time(b->loop);
  uint64_t t0 = uv_hrtime();
  for (int i = 0; i < b->n; i++) send_line(&b->cl[i], req, b->req_len);
  uv_timer_start(&t, timeout_cb, (uint64_t)(secs * 1000), 0);
  uv_run(b->loop, UV_RUN_DEFAULT);
  double el = (double)(uv_hrtime() - t0) / 1e9;
  uint64_t done = b->total;
  /* drain the replies still in flight so the next run starts clean */
  uv_close((uv_handle_t *)&t, NULL);
  uv_timer_t d;
  uv_timer_init(b->loop, &d);
  d.data = b;
  uv_timer_start(&d, timeout_cb, 300, 0);
  uv_run(b->loop, UV_RUN_DEFAULT);
  uv_close((uv_handle_t *)&d, NULL);
  uv_run(b->loop, UV_RUN_NOWAIT);
  return (double)done / el;
}

static int start_server(const char *agond) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/conn_bench.XXXXXX");
  if (mkdtemp(tmpdir) == NULL) die("mkdtemp");
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
          "--rate", "0", "--addr-rate", "0", "--max-conns-per-addr", "0",
          "--max-conns", "20000", "--ping-interval-ms", "0",
          "--idle-timeout-ms", "0", "--hello-timeout-ms", "0", (char *)NULL);
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
  const char *colon = strrchr(line, ':');
  if (strncmp(line, "listening on ", 13) != 0 || colon == NULL)
    die("unexpected first line from agond");
  return atoi(colon + 1);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: conn_bench AGOND [idle_conns] [seconds]\n");
    return 2;
  }
  int idle = argc > 2 ? atoi(argv[2]) : 2000;
  double secs = argc > 3 ? atof(argv[3]) : 2.0;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  signal(SIGPIPE, SIG_IGN);
  server_port = start_server(argv[1]);
  bench b;

  /* 1. memory per idle connection */
  usleep(200000);
  long r0 = rss_kib(server_pid);
  open_conns(&b, idle);
  usleep(300000);
  long r1 = rss_kib(server_pid);
  printf("idle connections: %d, server VmRSS %ld -> %ld KiB: %.2f KiB per connection\n",
         idle, r0, r1, (double)(r1 - r0) / idle);
  close_conns(&b);

  /* 2. round trips */
  static const int sizes[] = {2, 200, 2000};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    open_conns(&b, sizes[i]);
    double hello = run_requests(&b, HELLO, secs);
    double ping = run_requests(&b, PING, secs);
    printf("%5d connections: hello %9.0f round trips/s, ping %9.0f round trips/s\n",
           sizes[i], hello, ping);
    fflush(stdout);
    close_conns(&b);
  }
  kill(server_pid, SIGTERM);
  int st;
  waitpid(server_pid, &st, 0);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "conn_bench: could not remove %s\n", tmpdir);
  printf("agond exit status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  return 0;
}
