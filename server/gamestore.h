/* gamestore.h - the database side of live play: plain-struct jobs for the
 * writer (create a game, append moves/events/endings) and the readers (the
 * events of a game since a seq, a whole game for recovery).
 *
 * Every job function has the db_job_fn signature and runs on a db thread:
 * it touches only its ctx (plain data, never json_t), the sqlite3
 * connection it is given and (gs_append_job) the writer's cache of the seqs
 * it wrote, kept in db_writer_data(). The loop fills the ctx, calls db_write/db_read,
 * and reads the results in the completion callback (db.h).
 *
 * Sequence numbers: every stored game event (a row of `moves` or of
 * `game_events`) has a per-game seq, 1, 2, 3, ... without gaps; seq 0 is the
 * game's start (the games row). gs_append_job refuses to store seq N unless
 * seq N-1 is stored, so a failed write can never leave a hole that a later
 * write would paper over (docs/protocol.md, Durability). It knows that from
 * what it wrote itself (a per-game cache of the last seq, dropped when a
 * batch fails) or, when the cache cannot tell, from an index probe. */
#ifndef AGON_GAMESTORE_H
#define AGON_GAMESTORE_H

#include <sqlite3.h>
#include <stdint.h>

#include "db.h"
#include "game.h"
#include "limits.h"

#define GS_KIND_MAX 33  /* event kinds ("draw_offer", "game_end", ...): as long
                           as a request type (32), which names some of them */

/* ---- create ------------------------------------------------------------ */

typedef struct gs_create {
  /* in */
  char game_type[32];
  unsigned rules_version;
  char *options_json;        /* owned by the caller (malloc), JSON object */
  char seed[24];             /* uint64 in decimal */
  char commitment[65];
  int rated;
  char tc_text[24];
  int64_t tc_initial_ms;     /* < 0: NULL (untimed) */
  int64_t tc_increment_ms;
  int chooser_seat;          /* -1: NULL */
  int64_t player[2];
  int side[2];               /* -1: NULL (chooser game before the choice) */
  uint32_t delay_plies;      /* spectator delay (0: none) */
  int64_t delay_ms;
  int64_t now_ms;
  /* out */
  int64_t game_id;
  double rating[2];          /* per seat, for game_type (1500 if none) */
} gs_create;

/* Inserts the games row (status active, started now) and both players;
 * reads both players' current ratings for the game type (shown in
 * game_start and games_live; a primary-key probe each). */
int gs_create_job(sqlite3 *conn, void *ctx);

/* ---- append ------------------------------------------------------------ */

typedef struct gs_append {
  int64_t game_id;
  /* A move (has_move): one `moves` row at seq move_seq. */
  int has_move;
  uint32_t move_seq, ply;
  int side;                          /* game side, GAME_CHOOSER included */
  char move[GAME_MOVE_TEXT_MAX];
  int timed;                         /* clocks stored (else NULL) */
  int64_t clock_ms[2];               /* per seat, after the move */
  int64_t at_ms;
  /* Side assignment after a chooser move: side of each seat. */
  int set_sides;
  int seat_side[2];
  /* An event (has_event): one `game_events` row, after the move if any. */
  int has_event;
  uint32_t event_seq;
  char kind[GS_KIND_MAX];
  int event_side;                    /* -1: NULL */
  char *data;                        /* malloc'd JSON text or NULL; freed by
                                        the owner of the ctx */
  /* The game ended: games.status/result/winner_side/reason/ended_at. */
  int end;
  int aborted;                       /* status 'aborted', else 'finished' */
  int result;                        /* GAME_WIN, GAME_DRAW or 0 (abort) */
  int winner_side;                   /* -1: NULL */
  char reason[32];
  /* Rating (rate, only with end and not aborted): both players' Glicko-2
   * ratings for game_type move in this same job (one rating period per
   * game, glicko2.h), so a stored result and its rating change commit or
   * fail together. The game_end data (which must then be a JSON object) is
   * extended with "ratings":{"before":[..],"after":[..]} per seat before the
   * event row is written; the loop re-encodes its broadcast from it. */
  int rate;
  char game_type[32];
  int64_t player[2];                 /* per seat */
  double score0;                     /* seat 0's score: 1, 0.5 or 0 */
  int rated_out;                     /* out: ratings were updated */
} gs_append;

/* Appends the move and/or event, updates the games row when ending. Returns
 * AGON_ESTORAGE if the previous seq is missing (a failed earlier write). */
int gs_append_job(sqlite3 *conn, void *ctx);
/* The move index sweep (migrations/0005_move_index.sql): writes every
 * game's pending move_idx entries (or, when the writer lost track of them,
 * indexes every moves row above the mark) and moves the mark up to the last
 * row. A writer job (db_write); ctx unused. agond queues one at start and
 * every GS_IDX_SWEEP_MS. */
int gs_index_job(sqlite3 *conn, void *ctx);
/* Queues gs_append_job for a (db_write's returns): with db_write_one when a
 * is a lone move row, the common case, which needs no savepoint. */
int gs_append_write(db *d, gs_append *a, db_done_cb cb);

/* ---- ratings ------------------------------------------------------------ */

#define GS_BOARD_MAX RATINGS_BOARD_MAX    /* limits_storage.h */
#define GS_HISTORY_MAX RATINGS_HISTORY_MAX

typedef struct gs_rating_row {
  char name[24];
  double rating, rd, vol;
  int64_t games;                     /* leaderboard: games rated */
  int64_t game_id;                   /* history: the game (0: none) */
  int64_t at_ms;
} gs_rating_row;

/* Leaderboard of game_type by rating (desc, then player id), at most limit
 * rows; with has_before only rows whose (rating, player id) sorts after the
 * cursor (before_rating, before_id). Walks ratings_board backwards. */
typedef struct gs_board {
  char game_type[32];
  uint32_t limit;
  int has_before;
  double before_rating;
  int64_t before_id;
  gs_rating_row rows[GS_BOARD_MAX];
  int64_t ids[GS_BOARD_MAX];
  uint32_t n;
} gs_board;

int gs_board_job(sqlite3 *conn, void *ctx);

/* The newest GS_HISTORY_MAX rating changes of one player (by name, case
 * insensitive) for game_type, oldest first. AGON_ENOTFOUND: no such
 * player. */
typedef struct gs_rhist {
  char name[24];
  char game_type[32];
  gs_rating_row rows[GS_HISTORY_MAX];
  uint32_t n;
  int found;
} gs_rhist;

int gs_rhist_job(sqlite3 *conn, void *ctx);

/* ---- read back ---------------------------------------------------------- */

/* One stored game event: a move (is_move) or a game_events row. */
typedef struct gs_row {
  uint32_t seq;
  uint32_t ply;
  int is_move;
  int side;                          /* -1 when NULL */
  int timed;
  int64_t clock_ms[2];
  int64_t at_ms;
  char kind[GS_KIND_MAX];
  char move[GAME_MOVE_TEXT_MAX];
  char *data;                        /* malloc'd or NULL */
} gs_row;

void gs_rows_free(gs_row *rows, uint32_t n);

/* Events of a game with seq > since, in seq order, at most max (more is set
 * when there were more). */
typedef struct gs_since {
  int64_t game_id;
  uint32_t since, max;
  gs_row *rows;                      /* out: malloc'd, n entries */
  uint32_t n;
  int more;
} gs_since;

int gs_since_job(sqlite3 *conn, void *ctx);

/* Everything needed to rebuild a game (recovery, reload). */
typedef struct gs_game {
  int64_t id;
  char game_type[32];
  unsigned rules_version;
  char *options_json;                /* malloc'd */
  char seed[24];
  char tc_text[24];
  int rated;
  int chooser_seat;                  /* -1 none */
  char status[16];
  int64_t player[2];
  char name[2][24];
  double rating[2];                  /* current, for game_type (1500 none) */
  int side[2];                       /* -1 NULL */
  uint32_t delay_plies;              /* spectator delay */
  int64_t delay_ms;
  gs_row *rows;                      /* every stored event, seq order */
  uint32_t n;
} gs_game;

void gs_game_clear(gs_game *g);

/* One game by id (reader job: ctx is a gs_game with id set). AGON_ENOTFOUND
 * if there is no such game. */
int gs_load_job(sqlite3 *conn, void *ctx);

/* Every game with status 'active', for the start-up recovery: calls cb for
 * each (the gs_game is cleared after cb returns; cb may steal fields by
 * setting them to NULL). Blocking: start-up only, on its own connection. */
int gs_load_active(sqlite3 *conn, void (*cb)(gs_game *g, void *arg),
                   void *arg, agon_err *err);

#endif
