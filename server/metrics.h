/* metrics.h - the metrics registry: counters, gauges and fixed-bucket
 * histograms, with names and help text, rendered in the Prometheus text
 * exposition format (version 0.0.4) by ops.c's HTTP endpoint.
 *
 * Threading: loop thread only. An increment is one add to a static
 * variable (no lock, no atomic, no allocation), so the hot paths (every
 * request, every move) pay nothing measurable. Other threads (storage
 * writer, backup) never touch the registry: their numbers are read at
 * scrape time (db_stats_get) or delivered to the loop first.
 *
 * What is counted here versus computed at scrape time: events (accepts,
 * errors, moves, ...) are counted here; levels that the server already
 * knows (open connections, authenticated players, storage queue depth) are
 * read from it when rendering (ops.c), so they can never drift.
 *
 * ---- Hooks for live play (room code) --------------------------------
 * One line at each event, nothing else to set up:
 *   game created and started ........ metrics_game_started();
 *   game over (any reason) .......... metrics_game_finished();
 *   spectator joins / leaves ........ metrics_spectators_add(+1 / -1);
 *   move acknowledged (commit cb) ... metrics_move_acked(uv_now(loop) -
 *                                       received_ms);   (or a us value:
 *                                       metrics_move_acked_us(us))
 * Until they are called the series exist and read 0.
 */
#ifndef AGON_METRICS_H
#define AGON_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "agon_err.h"

/* X(ID, "name", "help"): plain counters. Names end in _total. */
#define METRICS_COUNTERS(X)                                                   \
  X(CONNS_ACCEPTED, "agon_connections_accepted_total",                        \
    "Connections accepted on the game listeners (direct and PROXY).")         \
  X(PROXY_OK, "agon_proxy_connections_total",                                 \
    "Connections on the PROXY listener that sent a valid header.")            \
  X(PROXY_BAD, "agon_proxy_header_errors_total",                              \
    "PROXY listener connections closed for a bad, late or oversized header.") \
  X(GAMES_STARTED, "agon_games_started_total", "Games started.")              \
  X(GAMES_FINISHED, "agon_games_finished_total", "Games finished.")           \
  X(MOVES, "agon_moves_total",                                                \
    "Moves accepted, stored and acknowledged (rate() gives moves/s).")        \
  X(HTTP_REQUESTS, "agon_http_requests_total",                                \
    "Requests served by the metrics/health endpoint.")                        \
  X(BACKUPS_OK, "agon_backups_total", "Online backups completed.")            \
  X(BACKUPS_FAILED, "agon_backup_failures_total", "Online backups failed.")

/* Gauges set by hooks (levels the server cannot recompute cheaply). */
#define METRICS_GAUGES(X)                                                     \
  X(LIVE_GAMES, "agon_live_games", "Games in progress.")                      \
  X(SPECTATORS, "agon_spectators", "Spectators watching live games.")         \
  X(BACKUP_RUNNING, "agon_backup_in_progress",                                \
    "1 while an online backup runs.")                                         \
  X(BACKUP_LAST_OK, "agon_backup_last_success_timestamp_seconds",             \
    "Unix time of the last completed backup (0: none since start).")

/* Rate-limit hits, by scope (label scope="..."). */
#define METRICS_RL_SCOPES(X)                                                  \
  X(REQUEST, "request")         /* request refused: connection or address  \
                                   bucket empty (rate_limited reply) */       \
  X(STRIKES, "strikes")         /* connection cut after sustained abuse */   \
  X(CONNECT, "connect")         /* connection refused: address reconnects  \
                                   too fast */                                \
  X(ADDR_CONNS, "addr_conns")   /* connection refused: too many from the   \
                                   address */                                 \
  X(SERVER_FULL, "server_full") /* connection refused: max-conns reached */

#define METRICS__ENUM(id, ...) METRICS_##id,
typedef enum { METRICS_COUNTERS(METRICS__ENUM) METRICS_NCOUNTERS } metrics_counter_id;
typedef enum { METRICS_GAUGES(METRICS__ENUM) METRICS_NGAUGES } metrics_gauge_id;
#undef METRICS__ENUM
#define METRICS__RL(id, ...) METRICS_RL_##id,
typedef enum { METRICS_RL_SCOPES(METRICS__RL) METRICS_NRL } metrics_rl_scope;
#undef METRICS__RL

/* Fixed buckets (upper bounds in microseconds, ascending; +Inf implied). */
#define METRICS_MAX_BUCKETS 16
typedef struct metrics_histogram {
  const char *name, *help;
  unsigned nbuckets;
  uint64_t bound_us[METRICS_MAX_BUCKETS];
  uint64_t count[METRICS_MAX_BUCKETS + 1]; /* non-cumulative; last: +Inf */
  uint64_t sum_us, n;
} metrics_histogram;

typedef struct metrics_registry {
  uint64_t counters[METRICS_NCOUNTERS];
  int64_t gauges[METRICS_NGAUGES];
  uint64_t errors[AGON__I_COUNT];  /* error replies by code */
  uint64_t ratelimit[METRICS_NRL];
  metrics_histogram move_ack;      /* agon_move_ack_seconds */
} metrics_registry;

/* The one registry (the process has one server). Zero-initialised; the
 * histogram bounds are constant. */
extern metrics_registry metrics_g;

static inline void metrics_inc(metrics_counter_id id) { metrics_g.counters[id]++; }
static inline void metrics_gauge_set(metrics_gauge_id id, int64_t v) {
  metrics_g.gauges[id] = v;
}
static inline void metrics_gauge_add(metrics_gauge_id id, int64_t d) {
  metrics_g.gauges[id] += d;
}
static inline void metrics_ratelimit(metrics_rl_scope s) { metrics_g.ratelimit[s]++; }
/* An error reply with code (negative AGON_E*); other values are ignored. */
static inline void metrics_error(int code) {
  if (code < 0 && -code - 1 < AGON__I_COUNT) metrics_g.errors[-code - 1]++;
}
void metrics_observe(metrics_histogram *h, uint64_t us);

/* Live-play hooks (see the top of this file). */
static inline void metrics_game_started(void) {
  metrics_inc(METRICS_GAMES_STARTED);
  metrics_gauge_add(METRICS_LIVE_GAMES, 1);
}
static inline void metrics_game_finished(void) {
  metrics_inc(METRICS_GAMES_FINISHED);
  metrics_gauge_add(METRICS_LIVE_GAMES, -1);
}
static inline void metrics_spectators_add(int d) {
  metrics_gauge_add(METRICS_SPECTATORS, d);
}
static inline void metrics_move_acked_us(uint64_t us) {
  metrics_inc(METRICS_MOVES);
  metrics_observe(&metrics_g.move_ack, us);
}
static inline void metrics_move_acked(uint64_t ms) { metrics_move_acked_us(ms * 1000); }

/* Zero every value (tests; a restarted server in one process). */
void metrics_reset(void);

/* ---- text output -------------------------------------------------------- */

/* A growable text buffer with a hard cap (HTTP_BODY_MAX): past it, output
 * is dropped and `overflow` set (the endpoint then answers 500). */
typedef struct metrics_text {
  char *p;          /* owned; NUL-terminated when len < cap */
  size_t len, cap;
  int overflow;
} metrics_text;

void metrics_text_init(metrics_text *t);
void metrics_text_free(metrics_text *t);
void metrics_text_printf(metrics_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "# HELP name help\n# TYPE name type\n" */
void metrics_text_family(metrics_text *t, const char *name, const char *type,
                         const char *help);
/* One family with one unlabelled sample. */
void metrics_text_gauge(metrics_text *t, const char *name, const char *help,
                        double v);
void metrics_text_counter(metrics_text *t, const char *name, const char *help,
                          double v);

/* Appends every registry family (counters, gauges, errors by code,
 * rate-limit hits by scope, histograms). */
void metrics_render(metrics_text *t);

#endif
