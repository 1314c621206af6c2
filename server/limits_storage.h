/* limits_storage.h - limits of the storage writer, readers and accounts, each
 * with why it has that value. Defaults: db_config / accounts_config fields
 * set to 0 take these. */
#ifndef AGON_LIMITS_STORAGE_H
#define AGON_LIMITS_STORAGE_H

/* ---- storage (db.c) ------------------------------------------------------ */

/* Write jobs in flight (queued + running + awaiting delivery) before db_write
 * answers AGON_EBUSY. The target load is ~36 000 small jobs/s; 32 768 covers
 * a ~0.9 s fsync stall at that rate without rejecting, while the job records
 * themselves stay ~1.5 MiB (48 bytes each) plus the callers' ctx structs. */
#define DB_QUEUE_MAX_DEFAULT 32768u

/* Jobs per transaction. Group commit wants big batches (one fsync for many
 * jobs), but one transaction's latency is paid by every job in it, and the
 * WAL grows by the whole transaction before a checkpoint can run. At a few
 * microseconds per small job, 4 096 keeps a commit to ~10-20 ms of work. */
#define DB_BATCH_MAX_DEFAULT 4096u

/* Reader threads. History queries are short and the machine has 2 cores: two
 * readers overlap one slow query with others without oversubscribing. */
#define DB_READERS_DEFAULT 2u

/* Read jobs in flight before db_read answers AGON_EBUSY: reads are driven by
 * clients (history, lobby), so this bounds what a burst of them can queue. */
#define DB_READ_QUEUE_MAX_DEFAULT 1024u

/* SQLite busy_timeout. In WAL the single writer is never blocked by readers;
 * waits only happen around checkpoints or an external sqlite3 shell holding
 * a lock. 5 s rides those out; beyond it the job fails with storage_error. */
#define DB_BUSY_TIMEOUT_MS_DEFAULT 5000u

/* WAL pages before the checkpointer thread runs a (passive) checkpoint:
 * SQLite's default, ~4 MiB with 4 KiB pages; keeps the WAL and read cost
 * bounded. */
#define DB_WAL_AUTOCHECKPOINT 1000

/* Past DB_WAL_AUTOCHECKPOINT, WAL pages added between two background
 * checkpoints: small enough that little is left to copy when the writer's
 * own checkpoint comes (below), large enough not to run one per commit
 * (each ends with a database fsync). */
#define DB_WAL_CHECKPOINT_STEP 250

/* WAL pages past which the writer checkpoints itself so that the WAL can
 * start over (db.c, wal_hook): 8x the above, ~32 MiB. Reached only under
 * sustained load; the background checkpoints have done most of the copy. */
#define DB_WAL_WRITER_CHECKPOINT (8 * DB_WAL_AUTOCHECKPOINT)

/* WAL pages at which the writer, finding a background checkpoint still
 * running, waits for it to end and then checkpoints itself (db.c, wal_hook):
 * the WAL's hard bound, plus one transaction. A slow checkpoint on a loaded
 * machine otherwise lets the WAL grow for as long as it runs. */
#define DB_WAL_HARD_CAP (DB_WAL_WRITER_CHECKPOINT + 2 * DB_WAL_AUTOCHECKPOINT)

/* A WAL larger than this is truncated back after a checkpoint, so a burst
 * does not leave a huge file behind. */
#define DB_JOURNAL_SIZE_LIMIT (64 * 1024 * 1024)

/* ---- accounts (accounts.c) ----------------------------------------------- */

/* Requests in flight (hashing or waiting on the DB). Each argon2id hash at the
 * interactive limit uses 64 MiB while it runs; the threadpool runs at most
 * UV_THREADPOOL_SIZE (default 4) at once, so queued ones cost only their
 * ~300-byte request. 256 requests bound that and the CPU backlog (~0.1 s
 * each). Above: AGON_EBUSY. */
#define ACCOUNTS_INFLIGHT_MAX_DEFAULT 256u

/* Session lifetime: 30 days, a usual "remember me"; resume does not extend
 * it (log in again to get a new token). */
#define ACCOUNTS_TOKEN_TTL_S_DEFAULT (30u * 24u * 3600u)

/* Login/register/resume attempts per peer address: a burst of 20, then one
 * every 3 s (1 200/hour). A human never notices; a guesser gets nowhere,
 * and argon2id CPU per address is capped. */
#define ACCOUNTS_RL_ADDR_BURST_DEFAULT 20u
#define ACCOUNTS_RL_ADDR_PERIOD_MS_DEFAULT 3000u

/* Failed logins per account: 10, then one per minute (~1 440 guesses/day
 * from any number of addresses). A success refills the bucket. */
#define ACCOUNTS_RL_ACCOUNT_BURST_DEFAULT 10u
#define ACCOUNTS_RL_ACCOUNT_PERIOD_MS_DEFAULT 60000u

/* Entries per rate-limit table (addresses, accounts). 8-way set associative,
 * least recently used evicted: 4 096 entries * ~100 bytes = ~400 KiB each.
 * An attacker cycling addresses can evict entries, which only loosens the
 * limit for addresses it pushed out; memory stays fixed. */
#define ACCOUNTS_RL_TABLE_MAX_DEFAULT 4096u

/* Ratings reads (leaderboard, rating_history; server/ratings.c). Each
 * request is one reader job with its rows inline in the job's ctx (~70 B a
 * row): 100 leaderboard rows (~7 KiB) is a screenful, larger pages go by
 * the before_rating cursor; 200 history rows (~14 KiB) covers months of a
 * regular player's rated games while a reply stays far under the write
 * cap. The default page matches what a client shows at once. */
#define RATINGS_BOARD_MAX 100
#define RATINGS_BOARD_DEFAULT 20
#define RATINGS_HISTORY_MAX 200

#endif
