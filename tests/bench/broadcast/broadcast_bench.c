/* broadcast_bench - spectator broadcast latency of agond (loopback only,
 * bounded: a fixed number of moves per run, a setup deadline).
 *
 *   broadcast_bench AGOND [spectators=1000,10000] [moves=20]
 *
 * Starts agond (--port 0, temporary database, limits lifted for one local
 * address), starts one gomony game between two players, attaches N
 * spectators (hello + watch, pipelined), then plays `moves` moves one at a
 * time: for each, the time from sending the move to the mover's ack, and
 * to the last spectator having read the move event. Prints min / median /
 * max per N and agond's RSS growth per spectator. Spectators are read with
 * one epoll loop in this process (no JSON parsing: it counts move-event
 * lines), so the figure includes the client's own reading cost. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "game.h"

#define DEADLINE_S 120      /* any phase taking longer aborts the run */

static pid_t server_pid;
static int server_port;
static char tmpdir[256];

static void die(const char *what) {
  fprintf(stderr, "broadcast_bench: %s (errno %d)\n", what, errno);
  if (server_pid > 0) kill(server_pid, SIGKILL);
  exit(1);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

static void start_server(const char *agond) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/agon-bcast-XXXXXX");
  if (!mkdtemp(tmpdir)) die("mkdtemp");
  char db[320];
  snprintf(db, sizeof db, "%s/agon.db", tmpdir);
  int p[2];
  if (pipe(p) != 0) die("pipe");
  server_pid = fork();
  if (server_pid == 0) {
    dup2(p[1], 1);
    int dn = open("/dev/null", O_WRONLY);
    if (dn >= 0) dup2(dn, 2);
    execl(agond, agond, "--port", "0", "--db", db, "--synchronous", "normal",
          "--rate", "0", "--addr-rate", "0", "--max-conns", "20000",
          "--max-conns-per-addr", "0", "--pwhash-fast", "--log-level", "error",
          "--idle-timeout-ms", "0", "--ping-interval-ms", "0", (char *)NULL);
    _exit(127);
  }
  close(p[1]);
  FILE *f = fdopen(p[0], "r");
  char line[256];
  if (!f || !fgets(line, sizeof line, f)) die("agond did not start");
  char *colon = strrchr(line, ':');
  if (!colon) die("bad listening line");
  server_port = atoi(colon + 1);
}

static int dial(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) die("socket");
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)server_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) die("connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

static void send_all(int fd, const char *s) {
  size_t n = strlen(s), off = 0;
  while (off < n) {
    ssize_t w = write(fd, s + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) die("write");
    off += (size_t)w;
  }
}

/* A blocking player connection with a line buffer. */
typedef struct player {
  int fd;
  char buf[1 << 16];
  size_t len;
} player;

/* Next line containing needle (others dropped); copied into out. */
static void wait_line(player *p, const char *needle, char *out, size_t cap) {
  double end = now_s() + DEADLINE_S;
  for (;;) {
    char *nl;
    while ((nl = memchr(p->buf, '\n', p->len)) != NULL) {
      *nl = 0;
      size_t ll = (size_t)(nl - p->buf) + 1;
      int hit = strstr(p->buf, needle) != NULL;
      if (hit && out) snprintf(out, cap, "%s", p->buf);
      memmove(p->buf, p->buf + ll, p->len - ll);
      p->len -= ll;
      if (hit) return;
    }
    if (now_s() > end) die(needle);
    if (p->len == sizeof p->buf) p->len = 0;  /* an over-long line: drop */
    ssize_t r = read(p->fd, p->buf + p->len, sizeof p->buf - p->len);
    if (r <= 0) die("player read");
    p->len += (size_t)r;
  }
}

static long long field_ll(const char *line, const char *key) {
  const char *k = strstr(line, key);
  if (!k) die(key);
  return atoll(k + strlen(key));
}

typedef struct spec {
  int fd;
  unsigned moves;   /* move events read */
  size_t carry;     /* bytes of a split '"event":"move"' marker kept */
  char tail[16];
  int watching;
} spec;

static const char MARK[] = "\"event\":\"move\"";

/* Count complete markers in data (with the tail of the previous read). */
static void spec_scan(spec *s, const char *d, size_t n, char *scratch) {
  size_t m = sizeof MARK - 1;
  memcpy(scratch, s->tail, s->carry);
  memcpy(scratch + s->carry, d, n);
  size_t tot = s->carry + n;
  scratch[tot] = 0;
  if (!s->watching && strstr(scratch, "\"re\":\"watch\"")) s->watching = 1;
  for (char *q = scratch; (q = strstr(q, MARK)) != NULL; q += m) s->moves++;
  s->carry = tot < m - 1 ? tot : m - 1;
  memcpy(s->tail, scratch + tot - s->carry, s->carry);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void run(const char *agond, int nspec, int nmoves) {
  start_server(agond);
  long rss0 = rss_kib(server_pid);
  player pl[2];
  char line[1 << 16];
  const char *names[2] = {"bench_a", "bench_b"};
  for (int i = 0; i < 2; i++) {
    pl[i].fd = dial();
    pl[i].len = 0;
    char req[256];
    snprintf(req, sizeof req,
             "{\"type\":\"hello\"}\n{\"type\":\"register\",\"name\":\"%s\","
             "\"password\":\"password-123\"}\n", names[i]);
    send_all(pl[i].fd, req);
    wait_line(&pl[i], "\"re\":\"register\"", line, sizeof line);
    if (!strstr(line, "\"ok\":true")) die("register");
  }
  const game_vtable *vt = game_find("gomony");
  if (!vt) die("no gomony");
  char req[512];
  snprintf(req, sizeof req,
           "{\"type\":\"seek_create\",\"game\":\"gomony\",\"side\":\"%s\"}\n",
           vt->side_names[0]);
  send_all(pl[0].fd, req);
  wait_line(&pl[0], "\"re\":\"seek_create\"", line, sizeof line);
  long long seek = field_ll(line, "\"seek_id\":");
  snprintf(req, sizeof req, "{\"type\":\"seek_accept\",\"seek_id\":%lld}\n", seek);
  send_all(pl[1].fd, req);
  wait_line(&pl[0], "\"event\":\"game_start\"", line, sizeof line);
  long long gid = field_ll(line, "\"game_id\":");
  wait_line(&pl[1], "\"event\":\"game_start\"", NULL, 0);

  /* Local rules: gomony's start does not depend on the seed. */
  game_setup su;
  game_setup_init(&su, vt);
  static uint64_t hist[256];
  game_match m;
  agon_err e;
  if (game_match_init(&m, &su, 0, hist, 256, &e) != 0) die("match init");

  /* Spectators: hello + watch pipelined; connects are sequential (the
   * listen backlog absorbs them while agond accepts). */
  double t0 = now_s();
  spec *sp = calloc((size_t)nspec, sizeof *sp);
  int ep = epoll_create1(0);
  char wreq[160];
  snprintf(wreq, sizeof wreq,
           "{\"type\":\"hello\"}\n{\"type\":\"watch\",\"game_id\":%lld}\n", gid);
  for (int i = 0; i < nspec; i++) {
    sp[i].fd = dial();
    send_all(sp[i].fd, wreq);
    fcntl(sp[i].fd, F_SETFL, O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, sp[i].fd, &ev) != 0) die("epoll_ctl");
  }
  static char rb[1 << 16], scratch[(1 << 16) + 32];
  struct epoll_event evs[512];
  int watching = 0;
  while (watching < nspec) {
    if (now_s() - t0 > DEADLINE_S) die("spectators did not all attach");
    int n = epoll_wait(ep, evs, 512, 1000);
    for (int k = 0; k < n; k++) {
      spec *s = &sp[evs[k].data.u32];
      ssize_t r;
      while ((r = read(s->fd, rb, sizeof rb)) > 0) {
        int was = s->watching;
        spec_scan(s, rb, (size_t)r, scratch);
        if (!was && s->watching) watching++;
      }
    }
  }
  double attach_s = now_s() - t0;
  long rss1 = rss_kib(server_pid);

  double *ack = calloc((size_t)nmoves, sizeof *ack);
  double *last = calloc((size_t)nmoves, sizeof *last);
  int done = 0;
  long long seq = 0;
  for (int k = 0; k < nmoves; k++) {
    if (game_match_outcome(&m).result != GAME_ONGOING) break;
    int tm = game_match_to_move(&m);
    if (tm != GAME_SIDE0 && tm != GAME_SIDE1) break;
    static game_move mv[GAME_MAX_MOVES];
    size_t nm = 0;
    if (game_match_legal(&m, mv, GAME_MAX_MOVES, &nm) != 0 || nm == 0) break;
    char text[GAME_MOVE_TEXT_MAX];
    vt->format_move(&m.st, &mv[0], text, sizeof text);
    player *p = &pl[tm];  /* seat 0 plays side 0 */
    snprintf(req, sizeof req,
             "{\"type\":\"move\",\"game_id\":%lld,\"move\":\"%s\",\"seq\":%lld}\n",
             gid, text, seq);
    double ts = now_s();
    send_all(p->fd, req);
    wait_line(p, "\"re\":\"move\"", line, sizeof line);
    ack[k] = now_s() - ts;
    if (!strstr(line, "\"ok\":true")) die(line);
    seq = field_ll(line, "\"seq\":");
    if (game_match_apply(&m, &mv[0], &e) != 0) die("local apply");
    /* Every spectator must read this move's event. */
    int behind = 0;
    for (int i = 0; i < nspec; i++) behind += sp[i].moves < (unsigned)(k + 1);
    while (behind > 0) {
      if (now_s() - ts > DEADLINE_S) die("spectators did not get the move");
      int n = epoll_wait(ep, evs, 512, 1000);
      for (int j = 0; j < n; j++) {
        spec *s = &sp[evs[j].data.u32];
        ssize_t r;
        while ((r = read(s->fd, rb, sizeof rb)) > 0) {
          int was = s->moves >= (unsigned)(k + 1);
          spec_scan(s, rb, (size_t)r, scratch);
          if (!was && s->moves >= (unsigned)(k + 1)) behind--;
        }
      }
    }
    last[k] = now_s() - ts;
    /* The players' own move events (drained outside the timing). */
    wait_line(&pl[0], MARK, NULL, 0);
    wait_line(&pl[1], MARK, NULL, 0);
    done++;
  }
  if (done == 0) die("no move played");
  qsort(ack, (size_t)done, sizeof *ack, cmp_d);
  qsort(last, (size_t)done, sizeof *last, cmp_d);
  printf("spectators=%d moves=%d attach=%.2fs rss_per_spectator=%.1fKiB\n",
         nspec, done, attach_s, rss0 > 0 && rss1 > 0 ? (double)(rss1 - rss0) / nspec : -1.0);
  printf("  ack (mover)           min %.2f  median %.2f  max %.2f ms\n", ack[0] * 1e3,
         ack[done / 2] * 1e3, ack[done - 1] * 1e3);
  printf("  move -> last spectator min %.2f  median %.2f  max %.2f ms\n", last[0] * 1e3,
         last[done / 2] * 1e3, last[done - 1] * 1e3);
  fflush(stdout);
  for (int i = 0; i < nspec; i++) close(sp[i].fd);
  close(ep);
  close(pl[0].fd);
  close(pl[1].fd);
  free(sp);
  free(ack);
  free(last);
  kill(server_pid, SIGTERM);
  waitpid(server_pid, NULL, 0);
  server_pid = 0;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: broadcast_bench AGOND [N1,N2,...] [moves]\n");
    return 2;
  }
  const char *list = argc > 2 ? argv[2] : "1000,10000";
  int nmoves = argc > 3 ? atoi(argv[3]) : 20;
  if (nmoves < 1 || nmoves > 1000) nmoves = 20;
  signal(SIGPIPE, SIG_IGN);
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;  /* agond inherits it too */
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  char buf[128];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
    int n = atoi(t);
    if (n < 1 || n > 15000) {
      fprintf(stderr, "spectators must be 1..15000\n");
      return 2;
    }
    run(argv[1], n, nmoves);
  }
  return 0;
}
