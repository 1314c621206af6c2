-- 0005_move_index: moves are appended without a per-game index; the index
-- is written a game at a time (docs/storage.md "The move index").
--
-- With UNIQUE (game_id, seq) on moves, every commit of a busy server
-- rewrote one index leaf page per game that moved in it (each live game's
-- entries end on a page of their own), ~30 of the ~36 WAL frames a commit
-- wrote at 100 games: the pages to write and fsync, not the rows, set the
-- rate. Now a move is one append to moves (rowid order: a page or two per
-- commit for all games) and the writer adds a game's entries to move_idx
-- in runs of up to GS_IDX_PENDING_MAX, at the game's end, and for every
-- game once a second (GS_IDX_SWEEP_MS), so each leaf write carries many
-- entries of one game.
--
-- The invariant, kept by each of those transactions: every moves row with
-- id <= move_idx_mark.w has its move_idx entry. Rows above the mark (the
-- last second or so) may not: a game's events are its move_idx rows plus
-- its moves rows above the mark, deduplicated (gamestore.c rows_sql). A
-- crash loses nothing: the rows are in moves, and the first sweep after a
-- start indexes everything above the mark.
--
-- SQLite cannot drop a UNIQUE constraint: the table is rebuilt.
CREATE TABLE moves_0005 (
  id        INTEGER PRIMARY KEY,
  game_id   INTEGER NOT NULL REFERENCES games(id),
  seq       INTEGER NOT NULL,
  ply       INTEGER NOT NULL,
  side      INTEGER NOT NULL,                -- game.h side (0, 1, 2=chooser)
  move      TEXT    NOT NULL,                -- canonical text (format_move)
  clock0_ms INTEGER,                         -- remaining after the move;
  clock1_ms INTEGER,                         -- NULL when untimed
  at_ms     INTEGER NOT NULL                 -- server time
) STRICT;
INSERT INTO moves_0005 (id, game_id, seq, ply, side, move, clock0_ms,
                        clock1_ms, at_ms)
  SELECT id, game_id, seq, ply, side, move, clock0_ms, clock1_ms, at_ms
  FROM moves;
DROP TABLE moves;
ALTER TABLE moves_0005 RENAME TO moves;

-- (game_id, seq) is unique among moves: the primary key checks it again
-- when the writer adds the entries (gamestore.c checks it on append).
CREATE TABLE move_idx (
  game_id INTEGER NOT NULL,
  seq     INTEGER NOT NULL,
  id      INTEGER NOT NULL,                  -- moves.id
  PRIMARY KEY (game_id, seq)
) STRICT, WITHOUT ROWID;
INSERT INTO move_idx (game_id, seq, id) SELECT game_id, seq, id FROM moves;

CREATE TABLE move_idx_mark (
  k INTEGER PRIMARY KEY CHECK (k = 0),
  w INTEGER NOT NULL                         -- moves.id, see above
) STRICT;
INSERT INTO move_idx_mark (k, w) VALUES (0, coalesce((SELECT max(id) FROM moves), 0));
