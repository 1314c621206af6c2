/* bench_accounts.c - login latency with the default (interactive) argon2id
 * limits: right password, wrong password, unknown name. The last two must
 * cost the same (timing-safe unknown names). Not a test: prints figures.
 *
 *   bench_accounts [rounds=10] */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include "accounts.h"
#include "db.h"
#include "store_util.h"

static uv_loop_t loop;
static int got, status;

static void on_result(void *arg, const account_result *r) {
  (void)arg;
  status = r->status;
  got = 1;
}

static double timed(accounts *a, const char *name, const char *pw, int reg) {
  got = 0;
  uint64_t t0 = uv_hrtime();
  if (reg) accounts_register(a, name, pw, "127.0.0.1", NULL, on_result);
  else accounts_login(a, name, pw, "127.0.0.1", NULL, on_result);
  while (!got) uv_run(&loop, UV_RUN_ONCE);
  return (double)(uv_hrtime() - t0) / 1e6;
}

static void closed_cb(void *arg) { *(int *)arg = 1; }

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  char dir[512], path[600];
  if (store_tmpdir(dir, sizeof dir)) return 1;
  snprintf(path, sizeof path, "%s/acc.db", dir);
  uv_loop_init(&loop);
  db_config cfg;
  db_config_init(&cfg);
  cfg.path = path;
  db *d;
  agon_err err;
  if (db_open(&d, &loop, &cfg, &err)) return 1;
  accounts_config ac;
  accounts_config_init(&ac);
  ac.rl_addr_burst = ac.rl_account_burst = 1000000;
  accounts *a;
  uint64_t t0 = uv_hrtime();
  if (accounts_new(&a, &loop, d, &ac, &err)) return 1;
  printf("accounts_new (dummy hash): %.1f ms\n",
         (double)(uv_hrtime() - t0) / 1e6);
  printf("register: %.1f ms\n", timed(a, "Bench", "bench password", 1));
  double ok = 0, wrong = 0, unknown = 0;
  for (int i = 0; i < rounds; i++) {
    ok += timed(a, "bench", "bench password", 0);
    wrong += timed(a, "bench", "wrong password", 0);
    unknown += timed(a, "nobody", "wrong password", 0);
  }
  printf("login mean over %d: right %.1f ms, wrong password %.1f ms, "
         "unknown name %.1f ms\n",
         rounds, ok / rounds, wrong / rounds, unknown / rounds);
  int closed = 0;
  accounts_close(a, closed_cb, &closed);
  while (!closed) uv_run(&loop, UV_RUN_ONCE);
  db_close(d);
  store_run_drain(&loop);
  uv_loop_close(&loop);
  store_rmdir(dir);
  return 0;
}
