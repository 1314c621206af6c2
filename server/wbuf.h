/* wbuf.h - refcounted, immutable write buffers.
 *
 * A message is encoded once into a wbuf; every connection that sends it
 * takes a reference until its uv_write completes (libuv needs the bytes to
 * live until write_cb). A broadcast to 1 000 spectators is one encoding and
 * one allocation (Neovim's WBuffer). Loop thread only: the count is not
 * atomic. */
#ifndef AGON_WBUF_H
#define AGON_WBUF_H

#include <jansson.h>
#include <stddef.h>

typedef struct wbuf {
  unsigned refs;
  size_t len;
  char data[];  /* len bytes, the last being '\n' for protocol lines */
} wbuf;

/* New buffer of len bytes (uninitialised), refs = 1. Dies on OOM. */
wbuf *wbuf_new(size_t len);
/* Encode j (borrowed) as one protocol line. refs = 1; NULL if j cannot be
 * encoded (not an object/array, or invalid UTF-8 from a caller bug). */
wbuf *wbuf_from_json(const json_t *j);
/* Copy of bytes. refs = 1. */
wbuf *wbuf_from_bytes(const void *p, size_t len);
static inline wbuf *wbuf_ref(wbuf *b) {
  b->refs++;
  return b;
}
/* Drop one reference; frees at zero. NULL is fine. */
void wbuf_unref(wbuf *b);

#endif
