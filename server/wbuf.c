#include "wbuf.h"

#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "util.h"

wbuf *wbuf_new(size_t len) {
  wbuf *b = xmalloc(sizeof *b + len);
  b->refs = 1;
  b->len = len;
  return b;
}

wbuf *wbuf_from_bytes(const void *p, size_t len) {
  wbuf *b = wbuf_new(len);
  memcpy(b->data, p, len);
  return b;
}

wbuf *wbuf_from_json(const json_t *j) {
  /* Most replies fit 1 KiB: encode on the stack once, copy the exact size.
   * Larger ones are encoded a second time into their own buffer. */
  char tmp[1024];
  long n = proto_encode(j, tmp, sizeof tmp);
  if (n < 0) return NULL;
  if ((size_t)n <= sizeof tmp) return wbuf_from_bytes(tmp, (size_t)n);
  wbuf *b = wbuf_new((size_t)n);
  if (proto_encode(j, b->data, (size_t)n) != n) {
    free(b);
    return NULL;
  }
  return b;
}

void wbuf_unref(wbuf *b) {
  if (b != NULL && --b->refs == 0) free(b);
}
