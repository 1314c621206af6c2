/* db.h - durable storage: one writer thread with group commit, N readers.
 *
 * Threading (see docs/storage.md):
 *  - The loop thread calls every db_* function. Nothing here blocks the loop
 *    except db_open (start-up: open, migrate) and db_close (shutdown: drain,
 *    join).
 *  - One writer thread owns the read-write sqlite3 connection. db_write puts
 *    a job on a bounded FIFO; the writer takes everything queued (up to
 *    batch_max jobs) into ONE BEGIN..COMMIT, each job inside its own
 *    SAVEPOINT so a failing job is rolled back alone (a db_write_one job,
 *    whose one statement SQLite undoes by itself, goes without). After COMMIT returns
 *    (durable per `synchronous`), the batch's completions are posted in
 *    submission order and the loop is woken with uv_async_send (which
 *    coalesces, so the loop drains all posted completions at once).
 *  - `readers` threads each own a read-only connection (WAL: readers never
 *    block the writer nor each other). db_read jobs run inside one read
 *    transaction (a consistent snapshot), in no particular order relative to
 *    other reads. A read submitted after a write's completion was delivered
 *    sees that write.
 *
 * Callback contract: every call that returns 0 gets exactly one callback, on
 * the loop thread, after the job ran (and, for writes, after the COMMIT of its
 * batch). A call that returns an error never fires its callback.
 * Write completions are delivered in submission order.
 */
#ifndef AGON_DB_H
#define AGON_DB_H

#include <sqlite3.h>
#include <stdint.h>
#include <uv.h>

#include "agon_err.h"

typedef struct db db;

enum {
  DB_SYNC_OFF = 0,
  DB_SYNC_NORMAL = 1,
  DB_SYNC_FULL = 2 /* default: every acknowledged commit survives power loss */
};

typedef struct db_config {
  const char *path;      /* borrowed during db_open; created if missing */
  int synchronous;       /* DB_SYNC_*; db_config_init sets DB_SYNC_FULL */
  unsigned queue_max;    /* write jobs in flight (queued, running or awaiting
                            delivery) before db_write says AGON_EBUSY;
                            0 = DB_QUEUE_MAX_DEFAULT */
  unsigned readers;      /* reader threads; 0 = DB_READERS_DEFAULT */
  /* --- additions after the NET/STORE contract (0 = default) --- */
  unsigned batch_max;    /* jobs per transaction; 0 = DB_BATCH_MAX_DEFAULT */
  unsigned read_queue_max; /* reads in flight; 0 = DB_READ_QUEUE_MAX_DEFAULT */
  unsigned busy_timeout_ms; /* 0 = DB_BUSY_TIMEOUT_MS_DEFAULT */
} db_config;

/* A job. Runs on the writer (inside the group transaction and its own
 * SAVEPOINT) or on a reader (inside a read transaction, read-only
 * connection). `conn` is borrowed for the duration of the call; do not keep
 * statements across calls, do not BEGIN/COMMIT. Returns 0 or a negative
 * AGON_E* (anything else counts as AGON_ESTORAGE). A write job that fails has
 * its SAVEPOINT rolled back; the other jobs of the batch still commit.
 * Results go into ctx (caller-owned plain struct, never a json_t). */
typedef int (*db_job_fn)(sqlite3 *conn, void *ctx);

/* Completion, on the loop thread. status: the job's return value, or
 * AGON_ESTORAGE if the transaction failed to commit (the job is then NOT
 * stored even if it returned 0). */
typedef void (*db_done_cb)(void *ctx, int status);

/* Defaults: DB_SYNC_FULL and zeros (= each limit's default). */
void db_config_init(db_config *cfg);

/* Opens (creating it, and its parent directory if that one level is missing)
 * the database at cfg->path, sets WAL, synchronous and
 * busy_timeout, applies pending migrations (migrate.h), starts the writer
 * and reader threads and registers one uv_async_t on loop. Blocks: call at
 * start-up. On error returns AGON_ESTORAGE (or AGON_EINVAL) with a message in
 * *err (e.g. "database schema level 7 is newer than this agond (3)"), and
 * *out is left NULL. */
int db_open(db **out, uv_loop_t *loop, const db_config *cfg, agon_err *err);

/* Stops accepting jobs (db_write/db_read return AGON_ESHUTDOWN from here on,
 * including from callbacks run by db_close), lets the writer run and commit
 * every queued job and the readers run every queued read, joins the threads,
 * then delivers every pending completion synchronously (in order) before
 * returning; closes the connections (final WAL checkpoint) and frees d.
 * Call on the loop thread, but not from inside a db_done_cb. The async handle
 * is closed with uv_close; the loop must run once more (as any shutdown does)
 * before uv_loop_close. Close the accounts service first (accounts.h). */
void db_close(db *d);

/* Queue a write job. Returns 0, AGON_EBUSY (queue_max jobs in flight: retry
 * later or tell the client), AGON_ESHUTDOWN (closing) or AGON_EINVAL. */
int db_write(db *d, db_job_fn fn, void *ctx, db_done_cb cb);

/* db_write for a job that changes the database with at most ONE statement
 * (any number of reads before it): it runs without a SAVEPOINT of its own,
 * since SQLite rolls a failed statement back by itself. A job that fails
 * after its one write succeeded would leave that write in the batch: such a
 * job must use db_write. */
int db_write_one(db *d, db_job_fn fn, void *ctx, db_done_cb cb);

/* Queue a read job on a reader connection. Same returns as db_write. */
int db_read(db *d, db_job_fn fn, void *ctx, db_done_cb cb);

/* Inside a job only: the job thread's cached prepared statement for sql on
 * conn (prepared on first use, SQLITE_PREPARE_PERSISTENT). sql must have
 * static storage duration (a string literal): its address is the cache key.
 * The statement is handed out as left by its last use in this job and is
 * reset with its bindings cleared after the job returns; the job must not
 * finalize it. Returns NULL if preparation failed (sqlite3_errmsg(conn)).
 * Saves the ~10 us prepare per statement that small write jobs would pay. */
sqlite3_stmt *db_stmt(sqlite3 *conn, const char *sql);

/* Inside a write job only: how many batches this writer could not commit so
 * far (all of their jobs were undone, whatever they returned). A job that
 * caches what earlier jobs wrote must drop the cache when this changes. */
uint64_t db_writer_broken_batches(void);

/* Inside a write job only: a pointer the writer keeps for its jobs from one
 * job to the next (NULL at first), e.g. a cache of what they wrote. It
 * belongs to this database's writer; what it points to must be a single
 * malloc'd block, which db_close frees. */
void **db_writer_data(void);

typedef struct db_stats {
  unsigned queue_depth;      /* write jobs waiting for the writer */
  unsigned writes_inflight;  /* accepted writes whose callback is pending */
  unsigned reads_inflight;   /* accepted reads whose callback is pending */
  uint64_t commits;          /* transactions committed */
  uint64_t commit_failures;  /* transactions that failed (jobs got ESTORAGE) */
  uint64_t write_jobs;       /* write jobs run */
  uint64_t write_job_errors; /* write jobs that returned an error */
  uint64_t read_jobs;        /* read jobs run */
  uint64_t busy_rejects;     /* db_write/db_read calls refused with EBUSY */
  unsigned max_batch;        /* largest batch so far */
  uint64_t last_commit_us;   /* BEGIN..COMMIT of the last batch */
  uint64_t avg_commit_us;    /* mean over all batches */
  uint64_t max_commit_us;
  uint64_t checkpoints;        /* background WAL checkpoints that copied */
  uint64_t writer_checkpoints; /* the writer's own, past the WAL size cap */
  uint64_t wal_cap_waits;      /* times the writer waited at DB_WAL_HARD_CAP */
  uint64_t max_checkpoint_us;  /* longest background checkpoint */
  unsigned wal_pages_max;      /* largest WAL seen after a commit (pages) */
} db_stats;

/* Snapshot of the counters (loop thread; takes the queue lock briefly). */
void db_stats_get(db *d, db_stats *out);

/* Current time in unix milliseconds (wall clock), as stored in the schema's
 * *_at columns. Thread-safe. */
int64_t db_now_ms(void);

#endif
