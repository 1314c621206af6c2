/* proto.h - libproto: the agon wire protocol, pure C (jansson only).
 *
 * Newline-delimited JSON: one object per line (docs/protocol.md).
 *   request  {"type":"login","id":7,...}
 *   success  {"re":"login","id":7,"ok":true,"data":{...}}
 *   error    {"re":"login","id":7,"ok":false,"error":{"code":"..","message":".."}}
 *   event    {"event":"ping","nonce":3,...}          (never has "re")
 *
 * Framing works on a caller-owned fixed buffer: the reader asks for the free
 * tail (proto_framer_space), reads into it, then proto_framer_feed calls back
 * once per complete line, or once per over-long line (then skips to the next
 * newline). No allocation, no I/O: the fuzz target drives it directly.
 */
#ifndef AGON_PROTO_H
#define AGON_PROTO_H

#include <jansson.h>
#include <stddef.h>

#include "agon_err.h"

/* ---- framing ----------------------------------------------------------- */

typedef struct proto_framer {
  char *buf;     /* borrowed, cap bytes; may be NULL until proto_framer_attach */
  size_t max;    /* longest line, "\n" (and a "\r" before it) excluded */
  size_t cap;    /* buffer size: PROTO_FRAMER_BUFSIZE(max) */
  size_t len;    /* bytes held: the start of an unfinished line */
  size_t scan;   /* bytes of buf[0..len) known to hold no newline */
  int skipping;  /* discarding an over-long line until its newline */
} proto_framer;

/* What a line callback is told. */
enum {
  PROTO_LINE = 0,     /* line = the bytes, without "\n" (and without "\r") */
  PROTO_TOO_LONG = 1  /* a line exceeded max; line = NULL, len = 0. Reported
                         once, when it overflows; its rest is skipped. */
};

/* Return nonzero to stop feeding (e.g. the connection is closing); the bytes
 * not yet framed are dropped. */
typedef int (*proto_line_cb)(void *arg, int kind, const char *line,
                             size_t len);

/* Room for the longest line plus "\r\n". */
#define PROTO_FRAMER_BUFSIZE(max) ((max) + 2)

void proto_framer_init(proto_framer *f, size_t max);
/* Give the framer its buffer (f->cap bytes), e.g. lazily on first read. */
void proto_framer_attach(proto_framer *f, char *buf);
/* Detach the buffer if it holds nothing (returns it, else NULL), so idle
 * connections need not keep one. */
char *proto_framer_detach_if_empty(proto_framer *f);
/* OUT: *p, *n: the free tail of the buffer to read into (n > 0 always: a
 * full buffer is resolved by the previous feed). Buffer must be attached. */
void proto_framer_space(proto_framer *f, char **p, size_t *n);
/* n bytes were written at the free tail. Calls cb for each event, in order.
 * Returns 1 if cb stopped it, else 0. */
int proto_framer_feed(proto_framer *f, size_t n, proto_line_cb cb, void *arg);
/* Convenience for tests/fuzzing: copy data in chunks through the framer. */
int proto_framer_push(proto_framer *f, const char *data, size_t n,
                      proto_line_cb cb, void *arg);

/* ---- decoding ---------------------------------------------------------- */

#define PROTO_TYPE_NAME_MAX 32
/* Longest string "id" accepted (integers are always fine). */
#define PROTO_ID_STR_MAX 64

typedef struct proto_msg {
  json_t *root;        /* new: the object minus "type" and "id" */
  json_t *id;          /* new or NULL: integer or short string */
  char type[PROTO_TYPE_NAME_MAX + 1];
} proto_msg;

/* Parse one line into *msg (OUT). On success msg owns references: release
 * with proto_msg_clear. On failure nothing is owned except possibly msg->id
 * (set when the object parsed and had a valid id, so the error reply can
 * echo it; proto_msg_clear is always safe), and:
 *   AGON_EBADJSON  not JSON / not an object / duplicate keys / bad UTF-8
 *   AGON_EBADFIELD "type" missing or not a short string; "id" mistyped
 * err (optional) gets a message. */
int proto_decode(const char *line, size_t len, proto_msg *msg, agon_err *err);
void proto_msg_clear(proto_msg *msg);

/* Strict unpack of the remaining fields (jansson json_unpack format, e.g.
 * "{s:s, s:s}"): every key must be consumed (unknown keys are errors).
 * 0 or AGON_EBADFIELD with jansson's explanation in err. */
int proto_unpack(const proto_msg *msg, agon_err *err, const char *fmt, ...);

/* ---- flat requests (the hot path) ---------------------------------------- */

/* A "flat" request: one JSON object whose values are all integers or plain
 * strings, e.g. {"type":"move","id":7,"game_id":3,"move":"e2-e4","seq":12}.
 * proto_flat_scan reads such a line in place, without allocating, so that
 * the requests sent tens of thousands of times a second need no JSON tree.
 * It is deliberately narrow: anything it is unsure of is refused (-1) and
 * the caller takes proto_decode, which then decides (and reports errors).
 * When it returns 0, json_loadb(JSON_REJECT_DUPLICATES) of the same bytes
 * yields an object with exactly these keys and these values (a property the
 * fuzz target fuzz-proto-decode checks on every input):
 *  - keys and string values: bytes 0x20..0x7e other than '"' and '\\' (no
 *    escapes), pointed into the line, not NUL-terminated;
 *  - integers: -?(0|[1-9][0-9]{0,17}) (never overflow);
 *  - JSON whitespace between tokens; at most PROTO_FLAT_MAX keys, no
 *    duplicates. */
#define PROTO_FLAT_MAX 8
typedef struct proto_flat_val {
  const char *key;
  size_t klen;
  int is_str;
  const char *str;  /* is_str: the bytes, slen of them */
  size_t slen;
  long long num;    /* !is_str */
} proto_flat_val;

typedef struct proto_flat {
  unsigned n;
  proto_flat_val v[PROTO_FLAT_MAX];
} proto_flat;

int proto_flat_scan(const char *line, size_t len, proto_flat *out);
/* The value of key, or NULL. */
const proto_flat_val *proto_flat_get(const proto_flat *f, const char *key);

/* ---- encoding (all return new references; NULL only on OOM) ------------ */

/* v in decimal at out (room for PROTO_INT_MAX bytes), not NUL-terminated:
 * its length. For encoders that write protocol lines by hand. */
#define PROTO_INT_MAX 20
size_t proto_fmt_int(char *out, long long v);


/* {"re":re,"id":id,"ok":true,"data":data}. data: steals (NULL -> {}). id:
 * borrowed, omitted when NULL. re NULL -> null. */
json_t *proto_reply_ok(const char *re, json_t *id, json_t *data);
/* {"re":..,"id":..,"ok":false,"error":{"code":wire(code),"message":msg}}
 * plus "retry_after_ms" when retry_after_ms >= 0. msg NULL -> default. */
json_t *proto_reply_err(const char *re, json_t *id, int code, const char *msg,
                        long long retry_after_ms);
/* {"event":name} to be filled by the caller. */
json_t *proto_event(const char *name);

/* Compact one-line encoding + "\n" into buf. Returns the length written
 * (newline included), or the size needed if > cap (nothing usable written),
 * or -1 on error. Never emits a raw newline inside: JSON strings escape it. */
long proto_encode(const json_t *j, char *buf, size_t cap);

#endif
