-- 0003_spectator_delay: the spectator delay by time. 0001 has
-- spectator_delay_plies (by moves); a delay in seconds needs its own column
-- (both 0: no delay; the lobby lets a game have at most one of them).
ALTER TABLE games ADD COLUMN spectator_delay_ms INTEGER NOT NULL DEFAULT 0
  CHECK (spectator_delay_ms >= 0);
