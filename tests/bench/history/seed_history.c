/* seed_history - fill an agon database (already at the current schema:
 * start agond on it once) with finished games for the history benchmark:
 * players, games with two seats, results, and a realistic number of move
 * rows each, written directly with sqlite3 in big transactions.
 *
 *   seed_history DB GAMES PLAYERS [AVG_MOVES]
 *
 * GAMES <= 10 000 000, PLAYERS in [2, 1 000 000], AVG_MOVES <= 500 (each
 * game gets 20..2*AVG-20 moves, uniform): bounds the time and disk this may
 * take (~60 B per move row plus indexes: 1 000 000 games x 60 moves is
 * ~6 GB). The moves are placeholders, not legal games: history and profile
 * queries never replay them; export of a seeded game fails. Deterministic
 * (fixed PRNG seed). */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_GAMES 10000 /* per transaction: large commits, bounded WAL */

static const char *const types[] = {"gambit-of-kings", "gambo-2019", "gambo-2023",
                                    "gwezboell", "gomony"};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ull;
}

static void die(sqlite3 *db, const char *what) {
  fprintf(stderr, "seed_history: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
  exit(1);
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  return st;
}

static void step(sqlite3 *db, sqlite3_stmt *st) {
  if (sqlite3_step(st) != SQLITE_DONE) die(db, "insert");
  sqlite3_reset(st);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: seed_history DB GAMES PLAYERS [AVG_MOVES]\n");
    return 2;
  }
  long long games = atoll(argv[2]), players = atoll(argv[3]);
  long long avg = argc > 4 ? atoll(argv[4]) : 60;
  if (games < 1 || games > 10000000 || players < 2 || players > 1000000 || avg < 20 ||
      avg > 500) {
    fprintf(stderr, "seed_history: out of bounds (see the header comment)\n");
    return 2;
  }
  sqlite3 *db;
  if (sqlite3_open(argv[1], &db) != SQLITE_OK) die(db, "open");
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;", NULL, NULL, NULL);
  int64_t base_id = 0;
  sqlite3_stmt *q = prep(db, "SELECT coalesce(max(id), 0) FROM players");
  if (sqlite3_step(q) == SQLITE_ROW) base_id = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  int64_t now = 1766000000000;
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) die(db, "begin");
  sqlite3_stmt *ip = prep(db, "INSERT INTO players (name, name_folded, pwhash, created_at)"
                              " VALUES (?1, ?1, 'x', ?2)");
  for (long long i = 0; i < players; i++) {
    char name[24];
    snprintf(name, sizeof name, "p%lld", i);
    sqlite3_bind_text(ip, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(ip, 2, now);
    step(db, ip);
  }
  sqlite3_finalize(ip);
  if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) die(db, "commit");
  sqlite3_stmt *ig = prep(
      db, "INSERT INTO games (game_type, rules_version, seed, rated, status, result,"
          " winner_side, reason, created_at, started_at, ended_at, time_control)"
          " VALUES (?1, 1, '1', ?2, 'finished', ?3, ?4, ?5, ?6, ?6, ?7, '5+3')");
  sqlite3_stmt *igp = prep(db, "INSERT INTO game_players (game_id, seat, player_id, side)"
                               " VALUES (?1, ?2, ?3, ?2)");
  sqlite3_stmt *im = prep(db, "INSERT INTO moves (game_id, seq, ply, side, move, clock0_ms,"
                              " clock1_ms, at_ms) VALUES (?1, ?2, ?2, ?3, 'a1-a2', ?4, ?4, ?5)");
  long long nmoves = 0;
  for (long long g = 0; g < games; g++) {
    if (g % BATCH_GAMES == 0 &&
        sqlite3_exec(db, g ? "COMMIT; BEGIN" : "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
      die(db, "batch");
    int64_t t0 = now + g * 1000;
    int r = (int)(rnd() % 100);
    int nm = (int)(20 + rnd() % (uint64_t)(2 * avg - 39));
    sqlite3_bind_text(ig, 1, types[rnd() % 5], -1, SQLITE_STATIC);
    sqlite3_bind_int(ig, 2, (int)(rnd() % 2));
    if (r < 10) {
      sqlite3_bind_text(ig, 3, "draw", -1, SQLITE_STATIC);
      sqlite3_bind_null(ig, 4);
      sqlite3_bind_text(ig, 5, "agreement", -1, SQLITE_STATIC);
    } else {
      sqlite3_bind_text(ig, 3, "win", -1, SQLITE_STATIC);
      sqlite3_bind_int(ig, 4, r % 2);
      sqlite3_bind_text(ig, 5, "resign", -1, SQLITE_STATIC);
    }
    sqlite3_bind_int64(ig, 6, t0);
    sqlite3_bind_int64(ig, 7, t0 + nm * 5000);
    step(db, ig);
    int64_t gid = sqlite3_last_insert_rowid(db);
    int64_t a = base_id + 1 + (int64_t)(rnd() % (uint64_t)players), b;
    do b = base_id + 1 + (int64_t)(rnd() % (uint64_t)players);
    while (b == a);
    for (int s = 0; s < 2; s++) {
      sqlite3_bind_int64(igp, 1, gid);
      sqlite3_bind_int(igp, 2, s);
      sqlite3_bind_int64(igp, 3, s ? b : a);
      step(db, igp);
    }
    for (int k = 1; k <= nm; k++) {
      sqlite3_bind_int64(im, 1, gid);
      sqlite3_bind_int(im, 2, k);
      sqlite3_bind_int(im, 3, (k - 1) % 2);
      sqlite3_bind_int64(im, 4, 300000 - k * 1000);
      sqlite3_bind_int64(im, 5, t0 + k * 5000);
      step(db, im);
    }
    nmoves += nm;
  }
  if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) die(db, "commit");
  /* Finished games have their moves in move_idx (migrations/0005), as
   * agond's game-end write leaves them; the mark goes past them. */
  if (sqlite3_exec(db,
                   "BEGIN; INSERT OR IGNORE INTO move_idx (game_id, seq, id) "
                   "SELECT game_id, seq, id FROM moves WHERE id > (SELECT w FROM "
                   "move_idx_mark); UPDATE move_idx_mark SET w = coalesce((SELECT "
                   "max(id) FROM moves), 0); COMMIT",
                   NULL, NULL, NULL) != SQLITE_OK)
    die(db, "index");
  sqlite3_finalize(ig);
  sqlite3_finalize(igp);
  sqlite3_finalize(im);
  if (sqlite3_close(db) != SQLITE_OK) die(db, "close");
  printf("seeded %lld games, %lld players, %lld moves\n", games, players, nmoves);
  return 0;
}
