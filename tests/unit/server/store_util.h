/* store_util.h - helpers shared by the storage unit tests: temporary
 * directories and a bounded way to run a uv loop until a condition holds. */
#ifndef AGON_STORE_UTIL_H
#define AGON_STORE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include <dirent.h>
#include <unistd.h>

#include "db.h"

/* A fresh directory under $TMPDIR (or /tmp); path into buf. */
static inline int store_tmpdir(char *buf, size_t cap) {
  const char *base = getenv("TMPDIR");
  snprintf(buf, cap, "%s/agon-store-XXXXXX", base && *base ? base : "/tmp");
  return mkdtemp(buf) ? 0 : -1;
}

/* rm -r of a directory holding only files. */
static inline void store_rmdir(const char *dir) {
  DIR *dp = opendir(dir);
  if (dp) {
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char p[1024];
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(dp);
  }
  rmdir(dir);
}

static void store_tick_cb(uv_timer_t *t) { (void)t; }

/* Runs loop until *flag != 0 or timeout_ms passes; returns *flag. A 5 ms
 * repeating timer keeps UV_RUN_ONCE from blocking forever. */
static inline int store_run_until(uv_loop_t *loop, const volatile int *flag,
                                  unsigned timeout_ms) {
  uv_timer_t tick;
  uv_timer_init(loop, &tick);
  uv_timer_start(&tick, store_tick_cb, 5, 5);
  uint64_t deadline = uv_hrtime() + (uint64_t)timeout_ms * 1000000u;
  while (!*flag && uv_hrtime() < deadline) uv_run(loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&tick, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
  return *flag;
}

/* Runs until nothing is left (handles closed), bounded. */
static inline void store_run_drain(uv_loop_t *loop) {
  for (int i = 0; i < 100 && uv_run(loop, UV_RUN_NOWAIT); i++) {
  }
}

/* db_open of path with `synchronous` (DB_SYNC_*) and these limits (0: the
 * default); says why on stderr and returns NULL if it fails. */
static inline db *store_db_open(uv_loop_t *loop, const char *path,
                                int synchronous, unsigned queue_max,
                                unsigned batch_max) {
  db_config cfg;
  db_config_init(&cfg);
  cfg.path = path;
  cfg.synchronous = synchronous;
  cfg.queue_max = queue_max;
  cfg.batch_max = batch_max;
  agon_err err = {0};
  db *d = NULL;
  int rc = db_open(&d, loop, &cfg, &err);
  if (rc != 0) fprintf(stderr, "db_open %s: %d %s\n", path, rc, err.msg);
  return d;
}

/* db_close, then the loop runs until the closed handles are gone. */
static inline void store_db_close(uv_loop_t *loop, db *d) {
  db_close(d);
  store_run_drain(loop);
}

#endif
