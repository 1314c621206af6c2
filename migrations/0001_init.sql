-- 0001_init: the first schema.
--
-- Conventions: times are unix milliseconds (INTEGER, *_at / *_ms); ids are
-- INTEGER PRIMARY KEY (rowid, monotonic, so "newest first" is "id DESC");
-- tables are STRICT so a type mistake fails loudly instead of storing text in
-- an integer column. Sides are 0/1 as in game.h (vt->side_names order).
-- Applied inside one transaction by server/migrate.c; user_version becomes 1.

CREATE TABLE players (
  id          INTEGER PRIMARY KEY,
  name        TEXT    NOT NULL,              -- as registered ("Alice_7")
  name_folded TEXT    NOT NULL UNIQUE,       -- ASCII lowercase: uniqueness
  pwhash      TEXT    NOT NULL,              -- crypto_pwhash_str (argon2id)
  created_at  INTEGER NOT NULL
) STRICT;

-- Session tokens are never stored: only BLAKE2b-256 (crypto_generichash) of
-- the 32 random bytes. A session is valid while revoked_at IS NULL and
-- expires_at > now.
CREATE TABLE sessions (
  id           INTEGER PRIMARY KEY,
  token_hash   BLOB    NOT NULL UNIQUE,
  player_id    INTEGER NOT NULL REFERENCES players(id),
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  revoked_at   INTEGER,
  last_addr    TEXT,                         -- peer address at last use
  last_seen_at INTEGER
) STRICT;
CREATE INDEX sessions_player ON sessions(player_id);

-- One row per game. The rules core is replayed from (game_type,
-- rules_version, options, seed, moves).
CREATE TABLE games (
  id              INTEGER PRIMARY KEY,
  game_type       TEXT    NOT NULL,          -- vt->name
  rules_version   INTEGER NOT NULL,          -- vt->version
  options         TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
  seed            TEXT,                      -- uint64 in decimal; revealed
                                             -- to clients only at the end
  seed_commitment TEXT,                      -- game_seed_commitment(), hex
  rated           INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1)),
  tc_initial_ms   INTEGER,                   -- NULL: untimed
  tc_increment_ms INTEGER NOT NULL DEFAULT 0,
  status          TEXT    NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'active', 'finished', 'aborted')),
  result          TEXT    CHECK (result IN ('win', 'draw')),
  winner_side     INTEGER CHECK (winner_side IN (0, 1)),
  reason          TEXT,                      -- game_outcome.reason, "resign",
                                             -- "timeout", "abandoned", ...
  spectator_delay_plies INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  started_at      INTEGER,
  ended_at        INTEGER
) STRICT;
CREATE INDEX games_type   ON games(game_type, id);   -- by type, newest first
CREATE INDEX games_status ON games(status, id);      -- lobby, active, recovery

-- Who plays a game. seat 0 is the creator; side is NULL until decided
-- (Gambo lets a chooser pick a side after the game is created).
CREATE TABLE game_players (
  game_id   INTEGER NOT NULL REFERENCES games(id),
  seat      INTEGER NOT NULL CHECK (seat IN (0, 1)),
  player_id INTEGER NOT NULL REFERENCES players(id),
  side      INTEGER CHECK (side IN (0, 1)),
  PRIMARY KEY (game_id, seat)
) STRICT, WITHOUT ROWID;
-- games of a player, newest first: covering, one index range scan.
CREATE INDEX game_players_player ON game_players(player_id, game_id);

-- Moves and game events share one per-game sequence number (seq, the value
-- clients see on game events); ply counts moves only.
-- A rowid table, not WITHOUT ROWID clustered on (game_id, seq): with many
-- games interleaved, every commit would then touch one leaf page per game,
-- and each touched page is a 4 KiB WAL frame to write and fsync. Appending
-- rows in arrival order touches a few pages; only the small index entries
-- scatter. tests/unit/server/bench_db.c measured ~1.5-3x more durable moves/s
-- at 1 000 games this way. A replay reads the index range, then the rows.
CREATE TABLE moves (
  id        INTEGER PRIMARY KEY,
  game_id   INTEGER NOT NULL REFERENCES games(id),
  seq       INTEGER NOT NULL,
  ply       INTEGER NOT NULL,
  side      INTEGER NOT NULL,                -- game.h side (0, 1, 2=chooser)
  move      TEXT    NOT NULL,                -- canonical text (format_move)
  clock0_ms INTEGER,                         -- remaining after the move;
  clock1_ms INTEGER,                         -- NULL when untimed
  at_ms     INTEGER NOT NULL,                -- server time
  UNIQUE (game_id, seq)
) STRICT;

-- Non-move events that change a game and must survive a restart (draw
-- offers, resignations, flag falls, aborts, side choice), in the same seq
-- space as moves.
CREATE TABLE game_events (
  game_id   INTEGER NOT NULL REFERENCES games(id),
  seq       INTEGER NOT NULL,
  kind      TEXT    NOT NULL,                -- "draw_offer", "resign", ...
  side      INTEGER,
  data      TEXT    CHECK (data IS NULL OR json_valid(data)),
  at_ms     INTEGER NOT NULL,
  PRIMARY KEY (game_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE chat (
  id        INTEGER PRIMARY KEY,
  game_id   INTEGER NOT NULL REFERENCES games(id),
  room      TEXT    NOT NULL CHECK (room IN ('players', 'spectators')),
  player_id INTEGER REFERENCES players(id),  -- NULL: system message
  text      TEXT    NOT NULL,
  at_ms     INTEGER NOT NULL
) STRICT;
CREATE INDEX chat_game ON chat(game_id, room, id);

-- Glicko-2 per player and game type.
CREATE TABLE ratings (
  player_id  INTEGER NOT NULL REFERENCES players(id),
  game_type  TEXT    NOT NULL,
  rating     REAL    NOT NULL DEFAULT 1500,
  rd         REAL    NOT NULL DEFAULT 350,
  volatility REAL    NOT NULL DEFAULT 0.06,
  games      INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (player_id, game_type)
) STRICT, WITHOUT ROWID;
CREATE INDEX ratings_board ON ratings(game_type, rating);  -- leaderboard

CREATE TABLE rating_history (
  id         INTEGER PRIMARY KEY,
  player_id  INTEGER NOT NULL REFERENCES players(id),
  game_type  TEXT    NOT NULL,
  game_id    INTEGER REFERENCES games(id),
  rating     REAL    NOT NULL,
  rd         REAL    NOT NULL,
  volatility REAL    NOT NULL,
  at_ms      INTEGER NOT NULL
) STRICT;
CREATE INDEX rating_history_player ON rating_history(player_id, game_type, id);
