/* proxyproto.h - PROXY protocol v1 and v2 header parser (HAProxy's
 * "proxy-protocol.txt"). Pure: no I/O, no allocation, no globals, so it is
 * fuzzed directly (tests/fuzz/proxyproto/).
 *
 * Strict: v1 needs exactly "PROXY TCP4|TCP6|UNKNOWN", single spaces,
 * addresses of the announced family, decimal ports without leading zeros,
 * CRLF within 107 bytes. v2 needs the 12-byte signature, version 2, command
 * LOCAL or PROXY, family UNSPEC/TCP4/TCP6 (UDP and unix sockets make no
 * sense in front of a TCP server and are refused), and a length of at most
 * PP_V2_MAX_LEN; TLVs after the addresses are skipped.
 */
#ifndef AGON_PROXYPROTO_H
#define AGON_PROXYPROTO_H

#include <stddef.h>
#include <sys/socket.h>

typedef struct pp_info {
  int version;                  /* 1 or 2 */
  int local;                    /* 1: no client address carried (v1
                                   UNKNOWN, v2 LOCAL or UNSPEC): use the
                                   socket's own peer address */
  struct sockaddr_storage src;  /* client (when !local) */
  struct sockaddr_storage dst;  /* address the client connected to */
  size_t len;                   /* header length in bytes */
} pp_info;

/* Parse the header at the start of buf[0..len). Returns:
 *   > 0  the header is complete: its length (bytes after it are the
 *        client's), *out filled;
 *   0    incomplete so far: *need (>= 1) more bytes certainly belong to
 *        the header, so a reader can ask for exactly that many and never
 *        consume the client's data;
 *   < 0  AGON_EINVAL: not a valid header (as soon as the bytes seen rule
 *        it out).
 * out and need may be NULL. */
long pp_parse(const unsigned char *buf, size_t len, pp_info *out,
              size_t *need);

#endif
