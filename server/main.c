/* main.c - agond: flags, optional config file, signals, the loop.
 *
 *   agond [--config FILE] [--host ADDR] [--port N] [--db PATH] ...
 *
 * The config file holds "name = value" lines with the long flag names
 * (without "--"); '#' starts a comment; flags override it. Once listening,
 * the first stdout line is exactly "listening on HOST:PORT". */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <uv.h>

#include "log.h"
#include "server.h"

enum opt_kind { OPT_STR, OPT_INT, OPT_UNS, OPT_SIZE, OPT_U64, OPT_DBL, OPT_FLAG,
                OPT_LOG, OPT_SYNC };

typedef struct opt {
  const char *name;
  enum opt_kind kind;
  size_t off;
  const char *help;
} opt;

#define O(n, k, f, h) {n, k, offsetof(server_config, f), h}
static const opt opts[] = {
    O("host", OPT_STR, host, "listen address (default 127.0.0.1)"),
    O("port", OPT_INT, port, "listen port; 0 picks a free one (default 7878)"),
    O("db", OPT_STR, db_path, "database file (default ./var/agon.db)"),
    O("synchronous", OPT_SYNC, synchronous, "off|normal|full (default full)"),
    {"log-level", OPT_LOG, 0, "error|warn|info|debug (default info)"},
    O("max-line", OPT_SIZE, max_line, "longest request line in bytes"),
    O("max-conns", OPT_UNS, max_conns, "connections in total"),
    O("max-conns-per-addr", OPT_UNS, addr_max_conns, "connections per IP (0: no limit)"),
    O("rate", OPT_DBL, rate, "requests/s per connection (0: no limit)"),
    O("burst", OPT_DBL, burst, "request burst per connection"),
    O("strikes", OPT_DBL, strikes, "rate-limited requests before disconnect (0: never)"),
    O("addr-rate", OPT_DBL, addr_rate, "requests/s per IP (0: no limit)"),
    O("addr-burst", OPT_DBL, addr_burst, "request burst per IP"),
    O("write-queue-high", OPT_SIZE, wq_high, "stop reading a peer above (bytes)"),
    O("write-queue-low", OPT_SIZE, wq_low, "resume reading below (bytes)"),
    O("write-queue-max", OPT_SIZE, wq_max, "disconnect above (bytes)"),
    O("stall-timeout-ms", OPT_U64, stall_ms, "disconnect when output makes no progress"),
    O("hello-timeout-ms", OPT_U64, hello_timeout_ms, "hello deadline (0: none)"),
    O("idle-timeout-ms", OPT_U64, idle_timeout_ms, "unauthenticated idle limit (0: none)"),
    O("ping-interval-ms", OPT_U64, ping_interval_ms, "server ping period (0: off)"),
    O("ping-timeout-ms", OPT_U64, ping_timeout_ms, "pong deadline"),
    O("shutdown-deadline-ms", OPT_U64, shutdown_deadline_ms, "drain time at shutdown"),
    O("pwhash-fast", OPT_FLAG, pwhash_fast, "argon2id at its minimum cost (tests only)"),
    O("token-ttl-s", OPT_UNS, token_ttl_s, "session lifetime (0: 30 days)"),
    O("login-addr-burst", OPT_UNS, login_addr_burst, "login attempts per IP burst"),
    O("login-addr-period-ms", OPT_UNS, login_addr_period_ms, "one more attempt per IP every"),
    O("login-account-burst", OPT_UNS, login_account_burst, "failed logins per account burst"),
    O("login-account-period-ms", OPT_UNS, login_account_period_ms, "one more per account every"),
    O("claim-grace-ms", OPT_U64, claim_grace_ms, "grace before a disconnected opponent's game can be claimed (0: by time control)"),
};
#undef O

static void usage(FILE *f) {
  fprintf(f, "usage: agond [--config FILE] [--name value ...]\n");
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    fprintf(f, "  --%-26s %s\n", opts[i].name, opts[i].help);
}

static int parse_u64(const char *v, unsigned long long *out) {
  char *end;
  errno = 0;
  if (*v == '-') return -1;
  unsigned long long x = strtoull(v, &end, 10);
  if (errno || end == v || *end) return -1;
  *out = x;
  return 0;
}

/* Keeps strings alive for the process lifetime (config file values). */
static int set_opt(server_config *cfg, const opt *o, const char *v,
                   int keep_copy) {
  char *p = (char *)cfg + o->off;
  unsigned long long u;
  switch (o->kind) {
  case OPT_STR:
    *(const char **)p = keep_copy ? strdup(v) : v;
    return 0;
  case OPT_INT:
    if (parse_u64(v, &u) || u > 65535) return -1;
    *(int *)p = (int)u;
    return 0;
  case OPT_UNS:
    if (parse_u64(v, &u) || u > UINT_MAX) return -1;
    *(unsigned *)p = (unsigned)u;
    return 0;
  case OPT_SIZE:
    if (parse_u64(v, &u)) return -1;
    *(size_t *)p = (size_t)u;
    return 0;
  case OPT_U64:
    if (parse_u64(v, &u)) return -1;
    *(uint64_t *)p = u;
    return 0;
  case OPT_DBL: {
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || d < 0) return -1;
    *(double *)p = d;
    return 0;
  }
  case OPT_FLAG:
    if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 || strcmp(v, "yes") == 0)
      *(int *)p = 1;
    else if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0 || strcmp(v, "no") == 0)
      *(int *)p = 0;
    else return -1;
    return 0;
  case OPT_LOG: {
    int l = log_level_from_name(v);
    if (l < 0) return -1;
    log_set_level(l);
    return 0;
  }
  case OPT_SYNC:
    if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0) *(int *)p = 0;
    else if (strcmp(v, "normal") == 0 || strcmp(v, "1") == 0) *(int *)p = 1;
    else if (strcmp(v, "full") == 0 || strcmp(v, "2") == 0) *(int *)p = 2;
    else return -1;
    return 0;
  }
  return -1;
}

static const opt *find_opt(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
      return &opts[i];
  return NULL;
}

static int load_config(server_config *cfg, const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "agond: cannot open config %s: %s\n", path, strerror(errno));
    return -1;
  }
  char line[1024];
  int lineno = 0, rc = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *h = strchr(line, '#');
    if (h) *h = '\0';
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t')) *--e = '\0';
    if (*s == '\0') continue;
    size_t klen = strcspn(s, " \t=");
    char *v = s + klen;
    while (*v == ' ' || *v == '\t' || *v == '=') v++;
    const opt *o = find_opt(s, klen);
    if (o == NULL || (*v == '\0' && o->kind != OPT_FLAG) ||
        set_opt(cfg, o, *v ? v : "1", 1) != 0) {
      fprintf(stderr, "agond: %s:%d: bad setting\n", path, lineno);
      rc = -1;
    }
  }
  fclose(f);
  return rc;
}

static int parse_args(server_config *cfg, int argc, char **argv) {
  /* The config file first, so flags override it. */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
      if (load_config(cfg, argv[i + 1]) != 0) return -1;
    } else if (strncmp(argv[i], "--config=", 9) == 0) {
      if (load_config(cfg, argv[i] + 9) != 0) return -1;
    }
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      exit(0);
    }
    if (strncmp(a, "--", 2) != 0) goto bad;
    a += 2;
    const char *eq = strchr(a, '=');
    size_t klen = eq ? (size_t)(eq - a) : strlen(a);
    if (klen == 6 && strncmp(a, "config", 6) == 0) {
      if (!eq) i++;
      continue;
    }
    const opt *o = find_opt(a, klen);
    if (o == NULL) goto bad;
    const char *v;
    if (eq) v = eq + 1;
    else if (o->kind == OPT_FLAG) v = "1";
    else if (i + 1 < argc) v = argv[++i];
    else goto bad;
    if (set_opt(cfg, o, v, 0) != 0) {
      fprintf(stderr, "agond: bad value for --%s: %s\n", o->name, v);
      return -1;
    }
    continue;
  bad:
    fprintf(stderr, "agond: unknown or incomplete option: %s\n", argv[i]);
    usage(stderr);
    return -1;
  }
  return 0;
}

/* ---- signals ----------------------------------------------------------- */

static uv_signal_t sig_int, sig_term;
static server *the_server;
static int signals_seen;

static void done_cb(void *arg) {
  (void)arg;
  uv_close((uv_handle_t *)&sig_int, NULL);
  uv_close((uv_handle_t *)&sig_term, NULL);
}

static void signal_cb(uv_signal_t *h, int signum) {
  (void)h;
  if (++signals_seen > 1) {
    /* Second signal: leave now. SQLite's WAL keeps the file consistent: a
     * transaction without its commit frame is ignored on the next open. */
    static const char msg[] = "agond: second signal, exiting at once\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
  }
  server_shutdown(the_server, signum == SIGINT ? "SIGINT" : "SIGTERM", done_cb,
                  NULL);
}

static void walk_close_cb(uv_handle_t *h, void *arg) {
  (void)arg;
  if (!uv_is_closing(h)) uv_close(h, NULL);
}

static void raise_nofile(void) {
  /* Each connection is a descriptor: use the hard limit. */
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

int main(int argc, char **argv) {
  server_config cfg;
  server_config_init(&cfg);
  if (parse_args(&cfg, argc, argv) != 0) return 2;
  signal(SIGPIPE, SIG_IGN);
  raise_nofile();

  uv_loop_t loop;
  uv_loop_init(&loop);
  agon_err err;
  agon_err_clear(&err);
  server *s;
  if (server_new(&s, &loop, &cfg, &err) != 0) {
    log_error("cannot start: %s", err.msg);
    fprintf(stderr, "agond: %s\n", err.msg);
    server_free(s);
    /* Let the handles closed by server_free finish (no leaks at exit). */
    uv_walk(&loop, walk_close_cb, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return 1;
  }
  the_server = s;
  uv_signal_init(&loop, &sig_int);
  uv_signal_init(&loop, &sig_term);
  uv_signal_start(&sig_int, signal_cb, SIGINT);
  uv_signal_start(&sig_term, signal_cb, SIGTERM);

  printf("listening on %s:%d\n", cfg.host, server_port(s));
  fflush(stdout);
  log_info("listening on %s:%d, database %s", cfg.host, server_port(s),
           cfg.db_path);

  uv_run(&loop, UV_RUN_DEFAULT);
  server_free(s);
  uv_walk(&loop, walk_close_cb, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  int rc = uv_loop_close(&loop);
  if (rc != 0) {
    log_error("event loop not clean at exit: %s", uv_strerror(rc));
    return 1;
  }
  log_info("bye");
  return 0;
}
