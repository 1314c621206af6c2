/* fuzz_framing - the line framer against a byte-by-byte model.
 *
 * Input: byte 0 picks the max line length (1..64, small so over-long lines
 * are common), byte 1 the read chunk size (1..256), the rest is the stream.
 * The framer's events (lines and too-long reports) must equal the model's:
 * split at '\n', strip one '\r'; a line whose raw bytes reach max + 2 before
 * its newline is reported too long once (even without a newline yet) and
 * skipped; a complete line longer than max after the strip is too long. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define FUZZ_CHECK(c) \
  do { if (!(c)) { fprintf(stderr, "check failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

typedef struct ev {
  int kind;
  size_t off, len;  /* line bytes in the input (model) or a copy (framer) */
} ev;

typedef struct rec {
  ev *evs;
  size_t n, cap;
  unsigned char *bytes;  /* framer lines copied here */
  size_t blen;
} rec;

static void rec_add(rec *r, int kind, const char *p, size_t len) {
  if (r->n == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 16;
    r->evs = realloc(r->evs, r->cap * sizeof *r->evs);
    FUZZ_CHECK(r->evs != NULL);
  }
  r->evs[r->n].kind = kind;
  r->evs[r->n].len = len;
  r->evs[r->n].off = r->blen;
  if (len) {
    r->bytes = realloc(r->bytes, r->blen + len);
    FUZZ_CHECK(r->bytes != NULL);
    memcpy(r->bytes + r->blen, p, len);
    r->blen += len;
  }
  r->n++;
}

static int on_line(void *arg, int kind, const char *line, size_t len) {
  rec *r = arg;
  FUZZ_CHECK(kind == PROTO_LINE || kind == PROTO_TOO_LONG);
  if (kind == PROTO_LINE) {
    FUZZ_CHECK(memchr(line, '\n', len) == NULL);
  } else {
    FUZZ_CHECK(line == NULL && len == 0);
  }
  rec_add(r, kind, line, len);
  return 0;
}

static void model(const unsigned char *d, size_t n, size_t max, rec *out) {
  size_t start = 0;
  int skipping = 0;
  for (size_t i = 0; i < n; i++) {
    size_t raw = i - start;  /* bytes of the current line before d[i] */
    if (d[i] == '\n') {
      if (!skipping) {
        size_t ll = raw;
        if (ll > 0 && d[i - 1] == '\r') ll--;
        if (ll > max) rec_add(out, PROTO_TOO_LONG, NULL, 0);
        else rec_add(out, PROTO_LINE, (const char *)d + start, ll);
      }
      skipping = 0;
      start = i + 1;
      continue;
    }
    if (!skipping && raw + 1 >= max + 2) {
      /* the buffer (max + 2) is now full without a newline */
      rec_add(out, PROTO_TOO_LONG, NULL, 0);
      skipping = 1;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  size_t max = 1 + data[0] % 64;
  size_t chunk = 1 + data[1];
  data += 2;
  size -= 2;

  proto_framer f;
  proto_framer_init(&f, max);
  char *buf = malloc(f.cap);
  FUZZ_CHECK(buf != NULL);
  proto_framer_attach(&f, buf);
  rec got = {0}, want = {0};
  size_t off = 0;
  while (off < size) {
    char *p;
    size_t room;
    proto_framer_space(&f, &p, &room);
    FUZZ_CHECK(room > 0 && room <= f.cap);
    size_t k = size - off;
    if (k > chunk) k = chunk;
    if (k > room) k = room;
    memcpy(p, data + off, k);
    off += k;
    FUZZ_CHECK(proto_framer_feed(&f, k, on_line, &got) == 0);
    FUZZ_CHECK(f.len < f.cap);
  }
  model(data, size, max, &want);
  FUZZ_CHECK(got.n == want.n);
  for (size_t i = 0; i < got.n; i++) {
    FUZZ_CHECK(got.evs[i].kind == want.evs[i].kind);
    FUZZ_CHECK(got.evs[i].len == want.evs[i].len);
    if (got.evs[i].len)
      FUZZ_CHECK(memcmp(got.bytes + got.evs[i].off,
                        want.bytes + want.evs[i].off, got.evs[i].len) == 0);
  }
  free(got.evs);
  free(got.bytes);
  free(want.evs);
  free(want.bytes);
  free(buf);
  return 0;
}
