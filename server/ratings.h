/* ratings.h - the read side of Glicko-2 ratings: leaderboard and
 * rating_history requests (docs/protocol.md, Ratings). The writes happen in
 * the game-end job (gamestore.h, gs_append.rate). Loop thread only; the
 * queries run on reader threads. No login needed: ratings are public. */
#ifndef AGON_RATINGS_H
#define AGON_RATINGS_H

#include "conn.h"
#include "proto.h"

void ratings_h_leaderboard(conn *c, proto_msg *m);
void ratings_h_history(conn *c, proto_msg *m);

#endif
