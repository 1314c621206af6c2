/* limits.h - every server limit, with why it has that value (like SQLite's
 * sqliteLimit.h). Operators may lower or raise some through flags/config;
 * these are the defaults. */
#ifndef AGON_LIMITS_H
#define AGON_LIMITS_H

/* ---- network and protocol (server core) -------------------------------- */

/* Protocol version spoken by this server (hello.data.protocol). Bumped only
 * on incompatible changes; a client asking for another version gets
 * unsupported_version. */
#define PROTO_VERSION 1

/* Longest request line in bytes, newline excluded. It is also the size of
 * the per-connection read buffer, so it bounds memory per reading peer. The
 * largest legitimate request (register: name <= 20, password <= 128, plus
 * keys) is far below 1 KiB; moves and chat in later issues stay under 4 KiB.
 * 16 KiB leaves room without letting a peer pin much memory. Configurable
 * (--max-line), clamped to [256, 1 MiB]. */
#define CONN_MAX_LINE_DEFAULT (16 * 1024)
#define CONN_MAX_LINE_MIN 256
#define CONN_MAX_LINE_MAX (1024 * 1024)

/* Write queue of one connection, in bytes not yet accepted by the kernel.
 * Above HIGH we stop reading that peer (it cannot make us produce more
 * replies); below LOW we resume. Over MAX (only broadcasts and server events
 * can push it there once reads stopped) the peer is cut off: a spectator that
 * never reads must not grow our memory. 64 KiB/16 KiB/1 MiB: a game's full
 * state fits many times in HIGH; MAX x max connections bounds the worst case
 * (1 MiB x 10 000 = 10 GiB would be too much, but reaching it needs every
 * peer to stall at once and the stall timeout cuts them first). */
#define CONN_WQ_HIGH_DEFAULT (64 * 1024)
#define CONN_WQ_LOW_DEFAULT (16 * 1024)
#define CONN_WQ_MAX_DEFAULT (1024 * 1024)

/* A peer whose queued output made no progress for this long is cut off
 * (a client that never reads). Long enough for a slow mobile link to catch
 * up after a burst of events, short enough to free memory soon. */
#define CONN_STALL_MS_DEFAULT 30000

/* A connection must say hello within this time, or it is closed. */
#define CONN_HELLO_TIMEOUT_MS_DEFAULT 10000
/* An unauthenticated connection that sends no request (pongs do not count)
 * for this long is closed: spectators will count as active once watching
 * (next issue). */
#define CONN_IDLE_TIMEOUT_MS_DEFAULT 120000
/* Server keepalive: an event ping every interval; no pong (or any line)
 * within the timeout closes the connection. 25 s stays under common NAT
 * idle timeouts (30 s+). */
#define CONN_PING_INTERVAL_MS_DEFAULT 25000
#define CONN_PING_TIMEOUT_MS_DEFAULT 20000
/* Graceful end of one connection (final event then FIN): if the peer does
 * not read it within this time, close anyway. */
#define CONN_LINGER_MS 2000

/* Per-connection request rate: token bucket, tokens per second and burst.
 * 20/s sustained with a burst of 60 is far above a human player (a move or
 * a chat line per second) and above what a reasonable bot needs; a flood
 * trips it at once. 0 rate disables the limit (benchmarks). */
#define CONN_RATE_DEFAULT 20.0
#define CONN_BURST_DEFAULT 60.0
/* Sustained abuse: every rejected (rate_limited) request spends one strike;
 * strikes refill at STRIKE_RATE per second up to STRIKES. Out of strikes:
 * the peer gets a final event and is disconnected. A client that respects
 * retry_after_ms never runs out. */
#define CONN_STRIKES_DEFAULT 50.0
#define CONN_STRIKE_RATE 1.0

/* Per-address limits: all connections of one IP share one bucket, so
 * opening many connections does not multiply the rate; and at most
 * MAX_CONNS_PER_ADDR connections per IP (a household behind NAT plays a few
 * games at once; 64 is generous). Benchmarks from 127.0.0.1 raise both. */
#define ADDR_RATE_DEFAULT 200.0
#define ADDR_BURST_DEFAULT 400.0
#define ADDR_MAX_CONNS_DEFAULT 64
/* The per-address table: fixed slots (bounded memory whatever the number of
 * peers), linear probing over a short window; when the window is full an
 * entry without connections is evicted (the least recently seen). A 4096
 * slot table costs ~200 KiB. */
#define ADDR_TABLE_SLOTS 4096
#define ADDR_TABLE_PROBE 16

/* Whole-server connection cap; also bounded by RLIMIT_NOFILE. Each idle
 * connection costs about 1 KiB of our memory plus kernel socket buffers. */
#define SERVER_MAX_CONNS_DEFAULT 10000
/* Logged-in connections are found by player id (lobby events, attaching
 * a new game's players) in a chained hash table of this many slots (power
 * of two, inline in the server): 8 KiB of pointers; chains stay short up
 * to the connection cap. The walk over every connection it replaces cost
 * ~2.5% of the loop at 2 000 connections and hundreds of game starts a
 * second. */
#define SERVER_PLAYER_SLOTS 1024
/* listen() backlog: bursts of reconnects after a restart. */
#define SERVER_BACKLOG 511

/* Graceful shutdown: time given to peers to receive the shutdown event and
 * their queued output before connections are closed hard. */
#define SERVER_SHUTDOWN_DEADLINE_MS 3000

/* Request field limits (type name 32 bytes, string id 64 bytes) live in
 * common/proto.h: the client shares them. */

/* ---- live play (lobby, rooms) ------------------------------------------- */

/* Open offers per player: enough for a few games waiting at once; a bot
 * flooding the lobby is capped. Whole-server cap bounds lobby memory
 * (~1 KiB per offer with its options) and the O(n) list scans. */
#define LOBBY_MAX_SEEKS 8
#define LOBBY_MAX_CHALLENGES 8
#define LOBBY_MAX_INVITES 8
#define LOBBY_MAX_OFFERS 10000
/* Seeks listed by `seeks`/`lobby_subscribe`: one reply line stays far
 * under the output high mark (~200 B per seek). */
#define LOBBY_LIST_MAX 200
/* Players listed by `players` (the online players): one reply line of
 * ~80 B per player stays far under the output high mark, and a lobby
 * screen shows a few dozen at most; a longer list is cut with more:true
 * (narrow it with prefix). */
#define LOBBY_PLAYERS_MAX 200
/* Invitation code length: 10 characters of 32 = 50 bits. */
#define LOBBY_CODE_LEN 10

/* Live rooms are found by game id in a chained hash table of this many
 * slots (power of two): 8 KiB of pointers, short chains up to ~10 000
 * live games. */
#define ROOM_HASH_SLOTS 1024
/* Position hashes kept per room for repetition: 128 x 8 bytes. Windows are
 * the plies since the last irreversible move; the default repetition limit
 * (3) is seen within that in practice, and a full buffer drops its older
 * half (game.h). Bounds the room to ~4.5 KiB with the match. */
#define ROOM_HIST_CAP 128
/* Connections attached to one room (both players' devices) and rooms one
 * connection may be attached to: a player on several devices, a few games
 * at once; bounded so a broadcast snapshot fits on the stack. */
#define ROOM_MAX_ATT 16
#define CONN_MAX_ROOMS 32
/* A finished game's room stays (for rematch offers and late joins) while a
 * connection is attached, at most this long; a new game of a player also
 * detaches its connections from their finished rooms. */
#define ROOM_LINGER_MS (5 * 60 * 1000)
/* games_mine lists at most this many games. */
#define ROOM_MINE_MAX 100
/* Grace before a disconnected player's game can be claimed: Fischer
 * base/5 clamped to [20 s, 2 min] (a reconnect after a network change
 * takes seconds; blitz cannot wait long); correspondence a day; untimed
 * 5 minutes. --claim-grace-ms overrides (tests). */
#define ROOM_GRACE_MIN_MS 20000
#define ROOM_GRACE_MAX_MS 120000
#define ROOM_GRACE_CORR_MS (24LL * 3600 * 1000)
#define ROOM_GRACE_UNTIMED_MS (5 * 60 * 1000)
/* A flag fall whose write the full storage queue refused is retried after
 * this delay. */
#define ROOM_RETRY_MS 50
/* join: at most this many missed events in the reply (each < 300 B, so the
 * reply stays ~150 KiB, under the output cap); more gives the snapshot
 * only. Re-reads when the game moved on during the read: bounded. */
#define JOIN_MAX_EVENTS 512
#define JOIN_RETRIES 4
/* Longest game a replay reads (stored events). Far above any real game;
 * bounds what a corrupt database could make recovery allocate (~170 MiB). */
#define GS_REPLAY_MAX 1000000u

/* Games whose last written seq the writer remembers (gamestore.c), so the
 * gap check needs no index probe, with the moves not yet in move_idx: ~150
 * bytes a slot, at most 3/4 full, so the largest table (10 MiB) covers
 * ~49 000 live games; past that it starts over and appends probe the
 * database until their game is cached again. Power of two. */
#define GS_SEQ_CACHE_MAX 65536u

/* A game's moves wait for their move_idx entries until this many are
 * pending (then the next append writes them: one leaf page for the run),
 * the game ends, or the sweep runs (migrations/0005_move_index.sql). */
#define GS_IDX_PENDING_MAX 16u

/* The sweep: every game's pending entries written and the mark moved up.
 * Bounds the moves rows a read scans beyond the index (those appended since
 * the last sweep). */
#define GS_IDX_SWEEP_MS 1000u

/* ---- spectators and chat (spectate.h) ---------------------------------- */
/* Spectators of one game: a big tournament final may draw thousands; each
 * costs a 48-byte node plus its connection, and a broadcast is one wbuf
 * shared by all, so the cap only bounds a single room's share of the
 * server-wide connection limit. */
#define SPEC_MAX_PER_ROOM 20000
/* Games one connection may watch at once (a "TV" page shows a few). */
#define CONN_MAX_WATCH 16
/* Spectator count events to the players: at most one per this interval (a
 * crowd arriving would otherwise be one event per spectator). */
#define SPEC_COUNT_MIN_MS 1000
/* games_live lists at most this many games (like the lobby list). */
#define LIVE_LIST_MAX 200
/* Chat line length in bytes: a few sentences; with JSON escaping (x6 for
 * control-free UTF-8 at worst x2) the event stays far under max_line. */
#define CHAT_MAX_TEXT 500
/* Chat rate per connection: a line per second sustained, bursts of 5.
 * Chat is stored (one row each): this bounds what one peer can make the
 * writer do, well under the general request rate. */
/* Spectator delay bounds (spectator_delay at game creation): enough to
 * defeat relaying moves to a player; the seconds delay stays well under
 * ROOM_LINGER_MS so a finished game's delayed end is still shown. */
#define SPEC_DELAY_MAX_PLIES 50
#define SPEC_DELAY_MAX_S 240
/* Delayed events held per room: beyond, the oldest is released early
 * (memory stays bounded whatever the move rate). ~150 B each (the move
 * text is kept for the delayed view): ~75 KiB per game with a delay, and
 * nothing for the others. 512 events in 240 s is two a second. */
#define SPEC_DELAY_QUEUE_MAX 512
#define CHAT_RATE 1.0
#define CHAT_BURST 5.0

/* history: games per page (default and maximum). A page is one reader
 * job building ~300 B of JSON per game: 100 games stay well under
 * max_line-sized replies and a few ms of reader time; clients page on with
 * before_id for more. */
#define HISTORY_PAGE_DEFAULT 50
#define HISTORY_PAGE_MAX 100
/* game_record/export: moves in one reply. The reply is one line queued
 * whole; the game_record JSON costs ~130 B a move, so 5 000 moves stay near
 * 650 KiB, under CONN_WQ_MAX_DEFAULT (1 MiB) which would cut the peer.
 * Real games are far shorter; a longer one answers too_large. */
#define HISTORY_RECORD_MAX_MOVES 5000
/* profile: game types reported (there are five; room to add more). */
#define PROFILE_TYPES_MAX 16

/* ---- storage and accounts: see limits_storage.h ------------------------ */
#include "limits_storage.h"

#endif
