-- 0004_history: the history request's "finished (or ongoing) games of one
-- type, newest first" without a player (docs/protocol.md "History"). With
-- only games_type (game_type, id), that scan reads every game of the type
-- and checks its status row by row; ongoing games are few among millions
-- of finished ones, so "ongoing gomony games" would read them all. This
-- index is an exact range for status = ? AND game_type = ? AND id < ?,
-- newest first, covering. (status IN (...) still uses games_type: no sort.)
CREATE INDEX games_status_type ON games(status, game_type, id);
