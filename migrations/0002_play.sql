-- 0002_play: what live play needs to rebuild a game after a restart that
-- 0001 did not hold.
--
-- time_control: the canonical text ("5+3", "corr:3", "untimed"): the
-- tc_initial_ms/tc_increment_ms pair cannot tell a correspondence game (time
-- per move) from a Fischer one. chooser_seat: the seat that makes the
-- GAME_CHOOSER move (Gambo), NULL for other games; the seed alone does not
-- decide it when the `chooser` option is `creator`.
ALTER TABLE games ADD COLUMN time_control TEXT NOT NULL DEFAULT 'untimed';
ALTER TABLE games ADD COLUMN chooser_seat INTEGER CHECK (chooser_seat IN (0, 1));
