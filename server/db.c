/* db.c - writer thread with group commit, reader threads, completions.
 *
 * Queues: one mutex guards the write FIFO, the read FIFO, the completion
 * list, the stop flag and the counters. Critical sections are a few pointer
 * moves, so one lock is cheaper than juggling three.
 *
 * Job records are allocated and freed on the loop thread only (db_write /
 * deliver), so their free list needs no lock.
 *
 * Readers: dedicated threads, not uv_queue_work. The libuv threadpool (4
 * threads by default) is shared with argon2id hashing, which holds a thread
 * for ~0.1 s per login; history queries would queue behind a login burst.
 * Dedicated threads also give each reader one connection for its lifetime
 * (uv_queue_work would need a connection per pool thread found through
 * thread-local lookup) and a private statement cache.
 */
#include "db.h"

#include <assert.h>
#include <stdio.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "limits_storage.h"
#include "migrate.h"

typedef struct db_job {
  struct db_job *next;
  db_job_fn fn;
  void *ctx;
  db_done_cb cb;
  int status;
  int is_read;
  int one_stmt;  /* db_write_one: no SAVEPOINT of its own */
} db_job;

typedef struct db_fifo {
  db_job *head, *tail;
  unsigned n;
} db_fifo;

/* A thread's connection and its statement cache (db_stmt). */
#define STMT_CACHE_SLOTS 128 /* power of two; > distinct SQL texts in jobs */
#define STMT_USED_MAX 32     /* statements one job may use before reset */
typedef struct db_worker {
  db *d;
  sqlite3 *conn;
  uv_thread_t thread;
  int started;
  struct {
    const char *sql;
    sqlite3_stmt *st;
    int used;
  } cache[STMT_CACHE_SLOTS];
  unsigned used[STMT_USED_MAX];
  unsigned nused;
  void *data; /* writer: db_writer_data() */
} db_worker;

struct db {
  uv_loop_t *loop;
  uv_async_t *async; /* heap: freed by its close_cb, after d is gone */
  db_config cfg;

  db_worker writer;
  db_worker *readers;
  /* Background checkpoints (see wal_hook): own connection and thread. */
  sqlite3 *ckpt_conn;
  uv_thread_t ckpt_thread;
  int ckpt_started, ckpt_want, ckpt_running;
  unsigned ckpt_mark; /* WAL pages when the last one was asked for */
  uv_cond_t ccond;
  uv_cond_t ckpt_over; /* a background checkpoint ended (wal_hook waits) */

  uv_mutex_t lock;
  uv_cond_t wcond, rcond;
  db_fifo wq, rq, done;
  int stopping;
  /* counters under lock */
  uint64_t commits, commit_failures, write_jobs, write_job_errors, read_jobs;
  uint64_t last_commit_us, total_commit_us, max_commit_us;
  unsigned max_batch;
  uint64_t checkpoints, writer_checkpoints, max_ckpt_us, wal_cap_waits;
  unsigned wal_pages_max;

  /* loop thread only */
  db_fifo lq;        /* writes submitted during this loop iteration */
  uv_prepare_t *hand_prep; /* hand lq to the writer at the iteration's end */
  uv_check_t *hand_check;
  int closing;
  unsigned writes_inflight, reads_inflight;
  uint64_t busy_rejects;
  db_job *free_jobs;
  unsigned nfree;
};

#define DB_FREE_JOBS_MAX 4096 /* recycled records kept: ~200 KiB */

static _Thread_local db_worker *tl_worker;

/* The thread's name as top -H, perf and gdb show it (15 bytes at most). */
static void name_thread(const char *name) {
#ifdef __linux__
  prctl(PR_SET_NAME, name, 0, 0, 0);
#else
  (void)name;
#endif
}

int64_t db_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void db_config_init(db_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->synchronous = DB_SYNC_FULL;
}

/* ---- FIFO --------------------------------------------------------------- */

static void fifo_push(db_fifo *q, db_job *j) {
  j->next = NULL;
  if (q->tail) q->tail->next = j;
  else q->head = j;
  q->tail = j;
  q->n++;
}

static db_job *fifo_pop(db_fifo *q) {
  db_job *j = q->head;
  if (!j) return NULL;
  q->head = j->next;
  if (!q->head) q->tail = NULL;
  q->n--;
  j->next = NULL;
  return j;
}

/* Appends the chain first..last (n jobs) to q. */
static void fifo_append(db_fifo *q, db_job *first, db_job *last, unsigned n) {
  if (!first) return;
  last->next = NULL;
  if (q->tail) q->tail->next = first;
  else q->head = first;
  q->tail = last;
  q->n += n;
}

/* ---- statement cache ---------------------------------------------------- */

sqlite3_stmt *db_stmt(sqlite3 *conn, const char *sql) {
  db_worker *w = tl_worker;
  if (!w || w->conn != conn) {
    assert(!"db_stmt outside a db job");
    return NULL;
  }
  uintptr_t h = (uintptr_t)sql;
  h ^= h >> 17;
  h *= 0x9e3779b97f4a7c15u;
  unsigned i = (unsigned)(h >> 7) & (STMT_CACHE_SLOTS - 1);
  for (unsigned probe = 0; probe < STMT_CACHE_SLOTS; probe++) {
    unsigned k = (i + probe) & (STMT_CACHE_SLOTS - 1);
    if (w->cache[k].sql == sql) {
      if (!w->cache[k].used && w->nused < STMT_USED_MAX) {
        w->cache[k].used = 1;
        w->used[w->nused++] = k;
      }
      return w->cache[k].st;
    }
    if (w->cache[k].sql == NULL) {
      sqlite3_stmt *st = NULL;
      if (sqlite3_prepare_v3(conn, sql, -1, SQLITE_PREPARE_PERSISTENT, &st,
                             NULL) != SQLITE_OK)
        return NULL;
      w->cache[k].sql = sql;
      w->cache[k].st = st;
      if (w->nused < STMT_USED_MAX) {
        w->cache[k].used = 1;
        w->used[w->nused++] = k;
      }
      return st;
    }
  }
  assert(!"db_stmt cache full: raise STMT_CACHE_SLOTS");
  return NULL;
}

uint64_t db_writer_broken_batches(void) {
  db_worker *w = tl_worker;
  /* Written by this same thread (run_batch, under the lock): no race. */
  return w && w == &w->d->writer ? w->d->commit_failures : 0;
}

void **db_writer_data(void) {
  db_worker *w = tl_worker;
  return w && w == &w->d->writer ? &w->data : NULL;
}

/* After a job: reset what it used, so no statement stays active across the
 * RELEASE/COMMIT and bindings never leak into the next job. Statements beyond
 * STMT_USED_MAX are caught by the full sweep. */
static void worker_reset_used(db_worker *w) {
  if (w->nused >= STMT_USED_MAX) {
    for (unsigned k = 0; k < STMT_CACHE_SLOTS; k++)
      if (w->cache[k].st) {
        sqlite3_reset(w->cache[k].st);
        sqlite3_clear_bindings(w->cache[k].st);
        w->cache[k].used = 0;
      }
  } else {
    for (unsigned u = 0; u < w->nused; u++) {
      unsigned k = w->used[u];
      sqlite3_reset(w->cache[k].st);
      sqlite3_clear_bindings(w->cache[k].st);
      w->cache[k].used = 0;
    }
  }
  w->nused = 0;
}

static void worker_finalize_cache(db_worker *w) {
  for (unsigned k = 0; k < STMT_CACHE_SLOTS; k++) {
    sqlite3_finalize(w->cache[k].st);
    w->cache[k].st = NULL;
    w->cache[k].sql = NULL;
  }
}

/* ---- helpers ------------------------------------------------------------ */

static int norm_status(int rc) {
  if (rc == 0) return 0;
  if (rc < 0 && rc >= -(int)AGON__I_COUNT) return rc;
  return AGON_ESTORAGE;
}

/* Runs one cached control statement ("BEGIN", "COMMIT", ...). */
static int ctl(sqlite3 *conn, const char *sql) {
  sqlite3_stmt *st = db_stmt(conn, sql);
  if (!st) return SQLITE_ERROR;
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static const char SQL_BEGIN_W[] = "BEGIN IMMEDIATE";
static const char SQL_BEGIN_R[] = "BEGIN";
static const char SQL_COMMIT[] = "COMMIT";
static const char SQL_ROLLBACK[] = "ROLLBACK";
static const char SQL_SAVEPOINT[] = "SAVEPOINT j";
static const char SQL_RELEASE[] = "RELEASE j";
static const char SQL_ROLLBACK_TO[] = "ROLLBACK TO j";

static void db_log_error(const char *what, sqlite3 *conn) {
  /* server/log.h belongs to the server core; until it is linked here the
   * storage layer reports its rare hard errors on stderr, one line each. */
  fprintf(stderr, "agond: error: storage: %s: %s\n", what,
          sqlite3_errmsg(conn));
}

/* ---- writer ------------------------------------------------------------- */

/* Runs n jobs from first in one transaction; sets each job's status. */
static void run_batch(db *d, db_job *first, unsigned n) {
  db_worker *w = &d->writer;
  sqlite3 *c = w->conn;
  uint64_t t0 = uv_hrtime();
  int broken = 0, errors = 0;

  if (ctl(c, SQL_BEGIN_W) != SQLITE_OK) {
    db_log_error("BEGIN", c);
    broken = 1;
  }
  for (db_job *j = first; j && !broken; j = j->next) {
    /* A one-statement job needs no savepoint: SQLite undoes a failed
     * statement by itself. A savepoint costs a copy of every page the job
     * then touches into the sub-journal (~20% of the writer's CPU per
     * move under load). */
    int sp = !j->one_stmt;
    if (sp && ctl(c, SQL_SAVEPOINT) != SQLITE_OK) {
      db_log_error("SAVEPOINT", c);
      broken = 1;
      break;
    }
    j->status = norm_status(j->fn(c, j->ctx));
    worker_reset_used(w);
    if (j->status != 0) {
      errors++;
      if (sp && ctl(c, SQL_ROLLBACK_TO) != SQLITE_OK) {
        /* the job's partial work could otherwise be committed */
        db_log_error("ROLLBACK TO", c);
        broken = 1;
        break;
      }
    }
    /* An I/O error, disk full or a job that ended the transaction itself
     * leaves autocommit on: the batch's earlier work is gone. */
    if (sqlite3_get_autocommit(c) || (sp && ctl(c, SQL_RELEASE) != SQLITE_OK)) {
      db_log_error("job ended the transaction", c);
      broken = 1;
    }
  }
  if (!broken && ctl(c, SQL_COMMIT) != SQLITE_OK) {
    db_log_error("COMMIT", c);
    broken = 1;
  }
  if (broken) {
    if (!sqlite3_get_autocommit(c)) ctl(c, SQL_ROLLBACK);
    for (db_job *j = first; j; j = j->next) j->status = AGON_ESTORAGE;
  }
  uint64_t us = (uv_hrtime() - t0) / 1000;

  uv_mutex_lock(&d->lock);
  d->write_jobs += n;
  d->write_job_errors += (uint64_t)errors;
  if (broken) d->commit_failures++;
  else d->commits++;
  d->last_commit_us = us;
  d->total_commit_us += us;
  if (us > d->max_commit_us) d->max_commit_us = us;
  if (n > d->max_batch) d->max_batch = n;
  uv_mutex_unlock(&d->lock);
}

static void writer_main(void *arg) {
  db *d = arg;
  tl_worker = &d->writer;
  name_thread("agond-writer");
  for (;;) {
    uv_mutex_lock(&d->lock);
    while (!d->wq.head && !d->stopping) uv_cond_wait(&d->wcond, &d->lock);
    if (!d->wq.head) { /* stopping and drained */
      uv_mutex_unlock(&d->lock);
      break;
    }
    /* Take up to batch_max jobs: everything that queued while the previous
     * commit was syncing goes into this one transaction. */
    db_job *first = d->wq.head, *last = first;
    unsigned n = 1;
    while (last->next && n < d->cfg.batch_max) {
      last = last->next;
      n++;
    }
    d->wq.head = last->next;
    if (!d->wq.head) d->wq.tail = NULL;
    d->wq.n -= n;
    last->next = NULL;
    uv_mutex_unlock(&d->lock);

    run_batch(d, first, n);

    uv_mutex_lock(&d->lock);
    fifo_append(&d->done, first, last, n);
    uv_mutex_unlock(&d->lock);
    uv_async_send(d->async);
  }
  worker_finalize_cache(&d->writer);
  tl_worker = NULL;
}

/* ---- checkpoints ---------------------------------------------------------- */

/* SQLite's automatic checkpoint runs inside the COMMIT that crosses the
 * threshold, on the writer: copying the WAL's pages into the database file
 * and syncing it took the writer away for milliseconds ~30 times a second at
 * full load, and every move queued meanwhile waited for it (the ack latency
 * tail). So the writer only reports the WAL's size (this hook, called after
 * each commit on the writer thread) and a checkpointer thread with its own
 * connection runs PASSIVE checkpoints, which never block the writer or the
 * readers: once the WAL holds DB_WAL_AUTOCHECKPOINT pages, and again each
 * time the commits have added DB_WAL_CHECKPOINT_STEP pages more.
 *
 * A checkpoint that runs beside the writer always finishes behind the WAL's
 * end, and SQLite restarts the WAL from its beginning only when a checkpoint
 * has copied all of it; under sustained load the file would grow without
 * end. So past DB_WAL_WRITER_CHECKPOINT pages the writer checkpoints itself
 * once: the background ones have copied nearly everything, so this one is
 * short, and the next transaction starts the WAL over.
 *
 * While a background checkpoint runs the writer does not wait for it, so
 * the WAL keeps growing for as long as that checkpoint lasts, which on a
 * loaded machine has no bound. At DB_WAL_HARD_CAP pages the writer waits
 * for it to end and then checkpoints: the WAL never holds more than the cap
 * plus one transaction. */
static int wal_hook(void *arg, sqlite3 *c, const char *name, int pages) {
  db *d = arg;
  (void)name;
  unsigned n = (unsigned)pages;
  uv_mutex_lock(&d->lock);
  if (n > d->wal_pages_max) d->wal_pages_max = n;
  if (n < d->ckpt_mark) d->ckpt_mark = 0; /* the WAL started over */
  if (n >= DB_WAL_HARD_CAP && d->ckpt_running) {
    d->wal_cap_waits++;
    while (d->ckpt_running) uv_cond_wait(&d->ckpt_over, &d->lock);
  }
  /* Past the cap no background checkpoint is started; the writer runs its
   * own as soon as the one in progress (which holds the checkpoint lock)
   * is over: a later commit retries. */
  int own = n >= DB_WAL_WRITER_CHECKPOINT && !d->ckpt_running;
  if (n < DB_WAL_WRITER_CHECKPOINT && n >= DB_WAL_AUTOCHECKPOINT &&
      n >= d->ckpt_mark + DB_WAL_CHECKPOINT_STEP && !d->ckpt_want) {
    d->ckpt_mark = n;
    d->ckpt_want = 1;
    uv_cond_signal(&d->ccond);
  }
  uv_mutex_unlock(&d->lock);
  if (own && sqlite3_wal_checkpoint_v2(c, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL,
                                       NULL) == SQLITE_OK) {
    uv_mutex_lock(&d->lock);
    d->writer_checkpoints++;
    uv_mutex_unlock(&d->lock);
  }
  return SQLITE_OK;
}

static void ckpt_main(void *arg) {
  db *d = arg;
  name_thread("agond-ckpt");
  for (;;) {
    uv_mutex_lock(&d->lock);
    while (!d->ckpt_want && !d->stopping) uv_cond_wait(&d->ccond, &d->lock);
    int run = d->ckpt_want && !d->stopping;
    d->ckpt_want = 0;
    d->ckpt_running = run;
    uv_mutex_unlock(&d->lock);
    if (!run) break; /* the writer's close checkpoints what is left */

    uint64_t t0 = uv_hrtime();
    int log = 0, done = 0;
    int rc = sqlite3_wal_checkpoint_v2(d->ckpt_conn, NULL,
                                       SQLITE_CHECKPOINT_PASSIVE, &log, &done);
    uint64_t us = (uv_hrtime() - t0) / 1000;
    /* SQLITE_BUSY: the writer's own checkpoint holds the lock; the next
     * commit asks again. */
    if (rc != SQLITE_OK && rc != SQLITE_BUSY) db_log_error("checkpoint", d->ckpt_conn);
    uv_mutex_lock(&d->lock);
    d->ckpt_running = 0;
    uv_cond_signal(&d->ckpt_over);
    if (rc == SQLITE_OK && done > 0) d->checkpoints++;
    if (us > d->max_ckpt_us) d->max_ckpt_us = us;
    uv_mutex_unlock(&d->lock);
  }
}

/* ---- readers ------------------------------------------------------------ */

static void reader_main(void *arg) {
  db_worker *w = arg;
  db *d = w->d;
  tl_worker = w;
  name_thread("agond-reader");
  for (;;) {
    uv_mutex_lock(&d->lock);
    while (!d->rq.head && !d->stopping) uv_cond_wait(&d->rcond, &d->lock);
    db_job *j = fifo_pop(&d->rq);
    uv_mutex_unlock(&d->lock);
    if (!j) break; /* stopping and drained */

    /* One read transaction per job: all its statements see one snapshot. */
    if (ctl(w->conn, SQL_BEGIN_R) != SQLITE_OK) {
      db_log_error("BEGIN (read)", w->conn);
      j->status = AGON_ESTORAGE;
    } else {
      j->status = norm_status(j->fn(w->conn, j->ctx));
      worker_reset_used(w);
      if (!sqlite3_get_autocommit(w->conn)) ctl(w->conn, SQL_COMMIT);
    }

    uv_mutex_lock(&d->lock);
    d->read_jobs++;
    fifo_push(&d->done, j);
    uv_mutex_unlock(&d->lock);
    uv_async_send(d->async);
  }
  worker_finalize_cache(w);
  tl_worker = NULL;
}

/* ---- completions (loop thread) ------------------------------------------ */

static void job_free(db *d, db_job *j) {
  if (d->nfree < DB_FREE_JOBS_MAX) {
    j->next = d->free_jobs;
    d->free_jobs = j;
    d->nfree++;
  } else {
    free(j);
  }
}

/* Delivers the completions posted so far; returns how many. One snapshot per
 * call: a completion posted meanwhile comes with its own uv_async_send, and
 * libuv guarantees a callback after every send, so async_cb needs no loop
 * (and a busy writer cannot starve the loop). */
static unsigned deliver(db *d) {
  uv_mutex_lock(&d->lock);
  db_job *j = d->done.head;
  unsigned n = d->done.n;
  d->done.head = d->done.tail = NULL;
  d->done.n = 0;
  uv_mutex_unlock(&d->lock);
  {
    while (j) {
      db_job *next = j->next;
      if (j->is_read) d->reads_inflight--;
      else d->writes_inflight--;
      db_done_cb cb = j->cb;
      void *ctx = j->ctx;
      int status = j->status;
      job_free(d, j); /* before cb: cb may submit again and reuse it */
      if (cb) cb(ctx, status);
      j = next;
    }
  }
  return n;
}

static void async_cb(uv_async_t *h) {
  if (h->data) deliver(h->data);
}

static void async_close_cb(uv_handle_t *h) { free(h); }

/* ---- submit -------------------------------------------------------------- */

/* Writes are handed to the writer once per loop iteration, not one by one:
 * one lock and at most one wake-up for everything the iteration produced
 * (a read of many sockets submits many moves). Waking the writer per job
 * cost a futex call, a context switch and lock contention per move, and
 * split the group commit into tiny transactions. uv_prepare covers jobs
 * from timers, uv_check those from I/O callbacks, so no job waits past its
 * own iteration. */
static void handoff(db *d) {
  if (!d->lq.head) return;
  uv_mutex_lock(&d->lock);
  int was_empty = d->wq.head == NULL;
  fifo_append(&d->wq, d->lq.head, d->lq.tail, d->lq.n);
  /* The writer only sleeps on an empty queue. */
  if (was_empty) uv_cond_signal(&d->wcond);
  uv_mutex_unlock(&d->lock);
  d->lq.head = d->lq.tail = NULL;
  d->lq.n = 0;
}

static void hand_prep_cb(uv_prepare_t *h) { handoff(h->data); }
static void hand_check_cb(uv_check_t *h) { handoff(h->data); }
static void hand_close_cb(uv_handle_t *h) { free(h); }

static int hand_start(db *d, uv_loop_t *loop) {
  d->hand_prep = malloc(sizeof *d->hand_prep);
  d->hand_check = malloc(sizeof *d->hand_check);
  if (!d->hand_prep || !d->hand_check) {
    free(d->hand_prep);
    free(d->hand_check);
    d->hand_prep = NULL;
    d->hand_check = NULL;
    return -1;
  }
  uv_prepare_init(loop, d->hand_prep);
  uv_check_init(loop, d->hand_check);
  d->hand_prep->data = d->hand_check->data = d;
  uv_prepare_start(d->hand_prep, hand_prep_cb);
  uv_check_start(d->hand_check, hand_check_cb);
  /* Never keep the loop alive by themselves. */
  uv_unref((uv_handle_t *)d->hand_prep);
  uv_unref((uv_handle_t *)d->hand_check);
  return 0;
}

static void hand_stop(db *d) {
  if (!d->hand_prep) return;
  /* Heap handles: d is freed before the loop runs their close callbacks. */
  uv_close((uv_handle_t *)d->hand_prep, hand_close_cb);
  uv_close((uv_handle_t *)d->hand_check, hand_close_cb);
  d->hand_prep = NULL;
  d->hand_check = NULL;
}

static int submit(db *d, db_job_fn fn, void *ctx, db_done_cb cb, int is_read,
                  int one_stmt) {
  if (!d || !fn) return AGON_EINVAL;
  if (d->closing) return AGON_ESHUTDOWN;
  if (is_read ? d->reads_inflight >= d->cfg.read_queue_max
              : d->writes_inflight >= d->cfg.queue_max) {
    d->busy_rejects++;
    return AGON_EBUSY;
  }
  db_job *j = d->free_jobs;
  if (j) {
    d->free_jobs = j->next;
    d->nfree--;
  } else {
    j = malloc(sizeof *j);
    if (!j) {
      fprintf(stderr, "agond: fatal: out of memory\n");
      abort();
    }
  }
  j->fn = fn;
  j->ctx = ctx;
  j->cb = cb;
  j->status = 0;
  j->is_read = is_read;
  j->one_stmt = one_stmt;
  if (is_read) d->reads_inflight++;
  else d->writes_inflight++;

  if (!is_read) {
    fifo_push(&d->lq, j);  /* handoff() at the end of this iteration */
    return 0;
  }
  uv_mutex_lock(&d->lock);
  fifo_push(&d->rq, j);
  /* Readers may all be asleep: wake one per read. */
  uv_cond_signal(&d->rcond);
  uv_mutex_unlock(&d->lock);
  return 0;
}

int db_write(db *d, db_job_fn fn, void *ctx, db_done_cb cb) {
  return submit(d, fn, ctx, cb, 0, 0);
}

int db_write_one(db *d, db_job_fn fn, void *ctx, db_done_cb cb) {
  return submit(d, fn, ctx, cb, 0, 1);
}

int db_read(db *d, db_job_fn fn, void *ctx, db_done_cb cb) {
  return submit(d, fn, ctx, cb, 1, 0);
}

/* ---- open / close -------------------------------------------------------- */

static int pragma(sqlite3 *c, const char *sql, agon_err *err) {
  char *msg = NULL;
  if (sqlite3_exec(c, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
  agon_err_set(err, AGON_ESTORAGE, "%s: %s", sql, msg ? msg : sqlite3_errmsg(c));
  sqlite3_free(msg);
  return AGON_ESTORAGE;
}

/* Creates the database's parent directory if it is missing (one level: the
 * default path is ./var/agon.db and a fresh checkout has no ./var). */
static void make_parent_dir(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash || slash == path) return;
  size_t n = (size_t)(slash - path);
  char dir[4096];
  if (n >= sizeof dir) return;
  memcpy(dir, path, n);
  dir[n] = '\0';
  mkdir(dir, 0750); /* EEXIST or a real error: sqlite3_open_v2 reports it */
}

static int open_conn(sqlite3 **out, const char *path, int readonly,
                     const db_config *cfg, agon_err *err) {
  int flags = SQLITE_OPEN_NOMUTEX |
              (readonly ? SQLITE_OPEN_READONLY
                        : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite3 *c = NULL;
  int rc = sqlite3_open_v2(path, &c, flags, NULL);
  if (rc != SQLITE_OK) {
    agon_err_set(err, AGON_ESTORAGE, "cannot open database %s: %s", path,
                 c ? sqlite3_errmsg(c) : sqlite3_errstr(rc));
    sqlite3_close(c);
    return AGON_ESTORAGE;
  }
  sqlite3_extended_result_codes(c, 1);
  sqlite3_busy_timeout(c, (int)cfg->busy_timeout_ms);
  *out = c;
  return 0;
}

static int setup_writer(db *d, agon_err *err) {
  sqlite3 *c = d->writer.conn;
  /* journal_mode=WAL answers the mode it ended in: a file on a filesystem
   * without shared memory support stays "delete", which we refuse. */
  sqlite3_stmt *st = NULL;
  int ok = 0;
  if (sqlite3_prepare_v2(c, "PRAGMA journal_mode=WAL", -1, &st, NULL) ==
          SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    const char *mode = (const char *)sqlite3_column_text(st, 0);
    ok = mode && strcmp(mode, "wal") == 0;
  }
  sqlite3_finalize(st);
  if (!ok)
    return agon_err_set(err, AGON_ESTORAGE,
                        "cannot put %s in WAL mode: %s", "the database",
                        sqlite3_errmsg(c));
  static const char *const sync_sql[] = {"PRAGMA synchronous=OFF",
                                         "PRAGMA synchronous=NORMAL",
                                         "PRAGMA synchronous=FULL"};
  char buf[64];
  if (pragma(c, sync_sql[d->cfg.synchronous], err) ||
      pragma(c, "PRAGMA foreign_keys=ON", err))
    return AGON_ESTORAGE;
  sqlite3_wal_hook(c, wal_hook, d); /* replaces wal_autocheckpoint */
  snprintf(buf, sizeof buf, "PRAGMA journal_size_limit=%d",
           DB_JOURNAL_SIZE_LIMIT);
  if (pragma(c, buf, err)) return AGON_ESTORAGE;
  return 0;
}

static void close_conns(db *d) {
  if (d->readers)
    for (unsigned i = 0; i < d->cfg.readers; i++) {
      sqlite3_close(d->readers[i].conn);
      d->readers[i].conn = NULL;
    }
  sqlite3_close(d->ckpt_conn);
  d->ckpt_conn = NULL;
  /* Writer last: the last connection to close checkpoints the WAL into the
   * main file and removes it. */
  sqlite3_close(d->writer.conn);
  d->writer.conn = NULL;
}

static void free_db(db *d) {
  while (d->free_jobs) {
    db_job *j = d->free_jobs;
    d->free_jobs = j->next;
    free(j);
  }
  uv_cond_destroy(&d->wcond);
  uv_cond_destroy(&d->rcond);
  uv_cond_destroy(&d->ccond);
  uv_cond_destroy(&d->ckpt_over);
  uv_mutex_destroy(&d->lock);
  free(d->readers);
  free(d->writer.data);
  free(d);
}

static void stop_threads(db *d) {
  uv_mutex_lock(&d->lock);
  d->stopping = 1;
  uv_cond_broadcast(&d->wcond);
  uv_cond_broadcast(&d->rcond);
  uv_cond_broadcast(&d->ccond);
  uv_mutex_unlock(&d->lock);
  if (d->ckpt_started) uv_thread_join(&d->ckpt_thread);
  for (unsigned i = 0; i < d->cfg.readers; i++)
    if (d->readers[i].started) uv_thread_join(&d->readers[i].thread);
  if (d->writer.started) uv_thread_join(&d->writer.thread);
}

int db_open(db **out, uv_loop_t *loop, const db_config *cfg, agon_err *err) {
  if (!out || !loop || !cfg || !cfg->path || cfg->synchronous < 0 ||
      cfg->synchronous > 2)
    return agon_err_set(err, AGON_EINVAL, "db_open: bad arguments");
  *out = NULL;
  if (!sqlite3_threadsafe())
    return agon_err_set(err, AGON_ESTORAGE,
                        "sqlite3 was built without thread support");
  /* No memory statistics: with them every sqlite3_malloc takes one global
   * mutex, shared by the writer, the readers and the checkpointer (nothing
   * here reads them). Only possible before SQLite's first use; later calls
   * fail harmlessly (SQLITE_MISUSE), e.g. a second db_open in a test. */
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  db *d = calloc(1, sizeof *d);
  if (!d) return agon_err_set(err, AGON_ESTORAGE, "out of memory");
  d->loop = loop;
  d->cfg = *cfg;
  d->cfg.path = NULL; /* borrowed: not kept */
  if (!d->cfg.queue_max) d->cfg.queue_max = DB_QUEUE_MAX_DEFAULT;
  if (!d->cfg.readers) d->cfg.readers = DB_READERS_DEFAULT;
  if (!d->cfg.batch_max) d->cfg.batch_max = DB_BATCH_MAX_DEFAULT;
  if (!d->cfg.read_queue_max) d->cfg.read_queue_max = DB_READ_QUEUE_MAX_DEFAULT;
  if (!d->cfg.busy_timeout_ms) d->cfg.busy_timeout_ms = DB_BUSY_TIMEOUT_MS_DEFAULT;
  d->writer.d = d;
  d->readers = calloc(d->cfg.readers, sizeof *d->readers);
  if (!d->readers || uv_mutex_init(&d->lock) != 0) {
    free(d->readers);
    free(d);
    return agon_err_set(err, AGON_ESTORAGE, "out of memory");
  }
  uv_cond_init(&d->wcond);
  uv_cond_init(&d->rcond);
  uv_cond_init(&d->ccond);
  uv_cond_init(&d->ckpt_over);

  make_parent_dir(cfg->path);
  int rc = open_conn(&d->writer.conn, cfg->path, 0, &d->cfg, err);
  if (rc == 0) rc = setup_writer(d, err);
  if (rc == 0)
    rc = migrate_apply(d->writer.conn, migrate_builtin, migrate_builtin_count,
                       NULL, err);
  /* A connection checkpoints only once its pager has opened the WAL, which
   * its first read does. */
  if (rc == 0) rc = open_conn(&d->ckpt_conn, cfg->path, 0, &d->cfg, err);
  if (rc == 0) rc = pragma(d->ckpt_conn, "SELECT 1 FROM sqlite_schema", err);
  for (unsigned i = 0; rc == 0 && i < d->cfg.readers; i++) {
    d->readers[i].d = d;
    rc = open_conn(&d->readers[i].conn, cfg->path, 1, &d->cfg, err);
  }
  if (rc == 0 && hand_start(d, loop) != 0)
    rc = agon_err_set(err, AGON_ESTORAGE, "out of memory");
  if (rc == 0) {
    d->async = malloc(sizeof *d->async);
    if (!d->async || uv_async_init(loop, d->async, async_cb) != 0) {
      free(d->async);
      d->async = NULL;
      rc = agon_err_set(err, AGON_ESTORAGE, "cannot create async handle");
    } else {
      d->async->data = d;
    }
  }
  if (rc == 0 && uv_thread_create(&d->writer.thread, writer_main, d) != 0)
    rc = agon_err_set(err, AGON_ESTORAGE, "cannot start the writer thread");
  else if (rc == 0)
    d->writer.started = 1;
  if (rc == 0 && uv_thread_create(&d->ckpt_thread, ckpt_main, d) != 0)
    rc = agon_err_set(err, AGON_ESTORAGE, "cannot start the checkpoint thread");
  else if (rc == 0)
    d->ckpt_started = 1;
  for (unsigned i = 0; rc == 0 && i < d->cfg.readers; i++) {
    if (uv_thread_create(&d->readers[i].thread, reader_main, &d->readers[i]))
      rc = agon_err_set(err, AGON_ESTORAGE, "cannot start a reader thread");
    else
      d->readers[i].started = 1;
  }
  if (rc != 0) {
    hand_stop(d);
    stop_threads(d);
    close_conns(d);
    if (d->async) uv_close((uv_handle_t *)d->async, async_close_cb);
    free_db(d);
    return rc;
  }
  *out = d;
  return 0;
}

void db_close(db *d) {
  if (!d) return;
  d->closing = 1;
  handoff(d);
  hand_stop(d);
  stop_threads(d); /* the threads drain their queues before exiting */
  while (deliver(d) > 0) {
  }
  assert(d->writes_inflight == 0 && d->reads_inflight == 0);
  close_conns(d);
  d->async->data = NULL;
  uv_close((uv_handle_t *)d->async, async_close_cb);
  free_db(d);
}

void db_stats_get(db *d, db_stats *out) {
  memset(out, 0, sizeof *out);
  out->writes_inflight = d->writes_inflight;
  out->reads_inflight = d->reads_inflight;
  out->busy_rejects = d->busy_rejects;
  uv_mutex_lock(&d->lock);
  out->queue_depth = d->wq.n + d->lq.n;
  out->commits = d->commits;
  out->commit_failures = d->commit_failures;
  out->write_jobs = d->write_jobs;
  out->write_job_errors = d->write_job_errors;
  out->read_jobs = d->read_jobs;
  out->max_batch = d->max_batch;
  out->last_commit_us = d->last_commit_us;
  out->max_commit_us = d->max_commit_us;
  out->checkpoints = d->checkpoints;
  out->writer_checkpoints = d->writer_checkpoints;
  out->wal_cap_waits = d->wal_cap_waits;
  out->max_checkpoint_us = d->max_ckpt_us;
  out->wal_pages_max = d->wal_pages_max;
  uint64_t batches = d->commits + d->commit_failures;
  out->avg_commit_us = batches ? d->total_commit_us / batches : 0;
  uv_mutex_unlock(&d->lock);
}
