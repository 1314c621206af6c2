/* test_proto_flat - the in-place decoder of flat requests (proto.h): what it
 * takes, what it leaves to proto_decode, and the values it reads. The fuzz
 * target fuzz-proto-decode checks the other half: whatever it takes, jansson
 * reads the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

static int failures;

#define CHECK(c)                                                      \
  do {                                                                \
    if (!(c)) {                                                       \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
      failures++;                                                     \
    }                                                                 \
  } while (0)

static int scan(const char *s, proto_flat *f) {
  return proto_flat_scan(s, strlen(s), f);
}

static int str_is(const proto_flat_val *v, const char *s) {
  return v && v->is_str && v->slen == strlen(s) && memcmp(v->str, s, v->slen) == 0;
}

static void test_move(void) {
  proto_flat f;
  CHECK(scan("{\"type\":\"move\",\"id\":7,\"game_id\":12,\"move\":\"e2-e4\",\"seq\":3}", &f) == 0);
  CHECK(f.n == 5);
  CHECK(str_is(proto_flat_get(&f, "type"), "move"));
  CHECK(str_is(proto_flat_get(&f, "move"), "e2-e4"));
  const proto_flat_val *v = proto_flat_get(&f, "id");
  CHECK(v && !v->is_str && v->num == 7);
  v = proto_flat_get(&f, "game_id");
  CHECK(v && !v->is_str && v->num == 12);
  v = proto_flat_get(&f, "seq");
  CHECK(v && !v->is_str && v->num == 3);
  CHECK(proto_flat_get(&f, "nope") == NULL);
  CHECK(proto_flat_get(&f, "gam") == NULL);
}

static void test_whitespace_and_numbers(void) {
  proto_flat f;
  CHECK(scan(" {\t\"a\" : -0 , \"b\":\"\" ,\"c\":999999999999999999 }\r\n ", &f) == 0);
  CHECK(f.n == 3);
  CHECK(proto_flat_get(&f, "a")->num == 0);
  CHECK(str_is(proto_flat_get(&f, "b"), ""));
  CHECK(proto_flat_get(&f, "c")->num == 999999999999999999LL);
  CHECK(scan("{\"a\":-42}", &f) == 0 && f.v[0].num == -42);
}

/* Everything here is valid or invalid JSON that the general path must
 * decide: the scanner declines. */
static void test_declines(void) {
  static const char *const lines[] = {
      "",
      "{}",
      "[]",
      "\"move\"",
      "{\"a\":1",
      "{\"a\":1,}",
      "{\"a\" 1}",
      "{\"a\":1}x",
      "{\"a\":1}{}",
      "{\"a\":01}",
      "{\"a\":-}",
      "{\"a\":1.5}",
      "{\"a\":1e3}",
      "{\"a\":1E3}",
      "{\"a\":1234567890123456789}",    /* 19 digits */
      "{\"a\":-9223372036854775808}",
      "{\"a\":true}",
      "{\"a\":null}",
      "{\"a\":{}}",
      "{\"a\":[1]}",
      "{\"a\":\"x\\\"y\"}",              /* escapes */
      "{\"a\":\"\\u0041\"}",
      "{\"a\\n\":1}",
      "{\"a\":\"tab\there\"}",           /* control byte in a string */
      "{\"a\":\"caf\xc3\xa9\"}",         /* non-ASCII */
      "{\"a\":1,\"a\":2}",               /* duplicate */
      "{'a':1}",
      "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9}",
  };
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    proto_flat f;
    if (scan(lines[i], &f) != -1) {
      fprintf(stderr, "scanner took: %s\n", lines[i]);
      failures++;
    }
  }
  /* A NUL byte inside the line. */
  proto_flat f;
  CHECK(proto_flat_scan("{\"a\":\"x\0y\"}", 11, &f) == -1);
  /* Exactly PROTO_FLAT_MAX keys is fine. */
  CHECK(scan("{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8}", &f) == 0 &&
        f.n == PROTO_FLAT_MAX);
}

int main(void) {
  test_move();
  test_whitespace_and_numbers();
  test_declines();
  if (failures) {
    fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  printf("proto-flat: ok\n");
  return 0;
}
