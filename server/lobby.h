/* lobby.h - open seeks, direct challenges and private invitations: offers
 * of a game that another player accepts, after which room_create starts it.
 *
 * Loop thread only; memory only (an offer does not survive its creator's
 * last connection, so it need not survive a restart). Bounded per player
 * (LOBBY_MAX_*) and in total (LOBBY_MAX_OFFERS). */
#ifndef AGON_LOBBY_H
#define AGON_LOBBY_H

#include "conn.h"
#include "proto.h"

struct server;

void lobby_init(struct server *s);
void lobby_close(struct server *s);

/* c is closing or logging out: if it was its player's last connection,
 * the player's offers and the challenges addressed to it vanish. Call after
 * c left the server's open list (or with its player_id still set, for
 * logout: c itself is skipped). */
void lobby_conn_gone(conn *c);

void lobby_h_seek_create(conn *c, proto_msg *m);
void lobby_h_seek_cancel(conn *c, proto_msg *m);
void lobby_h_seek_accept(conn *c, proto_msg *m);
void lobby_h_seeks(conn *c, proto_msg *m);
void lobby_h_subscribe(conn *c, proto_msg *m);
void lobby_h_challenge(conn *c, proto_msg *m);
void lobby_h_challenge_accept(conn *c, proto_msg *m);
void lobby_h_challenge_decline(conn *c, proto_msg *m);
void lobby_h_challenge_cancel(conn *c, proto_msg *m);
void lobby_h_invite_create(conn *c, proto_msg *m);
void lobby_h_invite_join(conn *c, proto_msg *m);
void lobby_h_invite_cancel(conn *c, proto_msg *m);
/* The players logged in now (no login needed to ask). */
void lobby_h_players(conn *c, proto_msg *m);

#endif
