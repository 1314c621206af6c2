/* history.h - finished and ongoing games from the database: the `history`
 * listing (filters, keyset paging on games.id) and `profile` (per game type
 * totals). Every query runs on a db reader (db_read), never on the loop; the
 * job fills a plain result struct the loop turns into JSON. No login needed:
 * game results are public (docs/protocol.md, "History").
 */
#ifndef AGON_HISTORY_H
#define AGON_HISTORY_H

#include "conn.h"
#include "proto.h"

/* Request handlers (handlers.c dispatch table). Reply asynchronously; the
 * connection is held with conn_op_begin while the read is in flight. */
void history_h_history(conn *c, proto_msg *m);
void history_h_profile(conn *c, proto_msg *m);
/* One stored game: the full record as JSON (seed only once over). */
void history_h_game_record(conn *c, proto_msg *m);
/* A finished game as a common/record.h record (text or JSON), replayable
 * with `agon-rules replay`; built on a reader. */
void history_h_export(conn *c, proto_msg *m);

#endif
