/* limits_ops.h - limits of the operations side (PROXY protocol listener,
 * metrics/health HTTP endpoint, online backup), with why each value. Kept
 * apart from limits.h so that the live-play work and this one merge
 * without touching the same lines; limits.h may include it. */
#ifndef AGON_LIMITS_OPS_H
#define AGON_LIMITS_OPS_H

/* ---- PROXY protocol (server/proxyproto.c, server/ops.c) ---------------- */

/* v1 headers are at most 107 bytes, CRLF included (the specification's
 * own bound: "PROXY TCP6" with two full IPv6 addresses and ports). */
#define PP_V1_MAX 107
/* v2: 16 fixed bytes plus the announced length. TCP over IPv6 needs 36;
 * HAProxy adds TLVs only when asked (send-proxy-v2-ssl, unique-id, ...).
 * 512 covers those with room and keeps the per-handshake buffer small; a
 * longer header is refused (the connection is closed). */
#define PP_V2_MAX_LEN 512
#define PP_HDR_MAX (16 + PP_V2_MAX_LEN)
/* The proxy sends the header first, at once: a connection that has not
 * delivered a complete header in 3 s is not a working proxy. */
#define PP_HEADER_TIMEOUT_MS 3000
/* Connections on the proxy listener still reading their header. Only the
 * proxy (on a private address) connects there; 1024 absorbs a reconnect
 * burst after a restart, each costs ~700 bytes. Beyond it new ones are
 * closed at once (the proxy retries). */
#define PP_PENDING_MAX 1024

/* ---- metrics and health HTTP endpoint (server/ops.c) ------------------- */

/* A scrape request is one short GET; 2 KiB holds the request line and the
 * headers Prometheus, curl or HAProxy send. Longer: 431 and close. */
#define HTTP_REQ_MAX 2048
/* Concurrent HTTP connections: Prometheus scrapes one at a time, plus a
 * health checker or two and an operator's curl. 16 is plenty; more are
 * closed at once so the endpoint cannot hold many descriptors. */
#define HTTP_CONNS_MAX 16
/* Whole request/response exchange deadline. */
#define HTTP_TIMEOUT_MS 5000
/* Largest metrics page. The page is a few KiB (no per-player series);
 * the cap only guards against a bug growing it. */
#define HTTP_BODY_MAX (256 * 1024)

/* ---- online backup (server/backup.c) ----------------------------------- */

/* Pages copied per sqlite3_backup_step: between steps the thread checks
 * for an abort (shutdown). 1024 pages of 4 KiB = 4 MiB per step, a few
 * milliseconds of I/O. */
#define BACKUP_STEP_PAGES 1024

#endif
