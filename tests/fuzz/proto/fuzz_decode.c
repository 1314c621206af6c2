/* fuzz_decode - message decoding and reply encoding.
 *
 * Any bytes: proto_decode either fails with bad_json/bad_field (and owns at
 * most an id) or yields a short type and an object without "type"/"id".
 * Every reply built from what was decoded must encode to exactly one line
 * that parses back with the same "re" and "id". Whatever proto_flat_scan
 * (the hot path's in-place decoder) accepts, jansson must read as an object
 * with exactly those keys and values. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define FUZZ_CHECK(c) \
  do { if (!(c)) { fprintf(stderr, "check failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

static void check_line(const json_t *j, const char *re, const json_t *id) {
  char buf[512];
  long n = proto_encode(j, buf, sizeof buf);
  FUZZ_CHECK(n > 0);
  char *p = buf, *big = NULL;
  if ((size_t)n > sizeof buf) {
    big = malloc((size_t)n);
    FUZZ_CHECK(big != NULL);
    FUZZ_CHECK(proto_encode(j, big, (size_t)n) == n);
    p = big;
  }
  FUZZ_CHECK(p[n - 1] == '\n');
  FUZZ_CHECK(memchr(p, '\n', (size_t)n - 1) == NULL);
  json_error_t e;
  json_t *back = json_loadb(p, (size_t)n - 1, JSON_REJECT_DUPLICATES, &e);
  FUZZ_CHECK(back != NULL && json_is_object(back));
  json_t *bre = json_object_get(back, "re");
  if (re) FUZZ_CHECK(json_is_string(bre) && strcmp(json_string_value(bre), re) == 0);
  else FUZZ_CHECK(json_is_null(bre));
  if (id) FUZZ_CHECK(json_equal(json_object_get(back, "id"), (json_t *)id));
  else FUZZ_CHECK(json_object_get(back, "id") == NULL);
  json_decref(back);
  free(big);
}

/* proto_encode is its own encoder: byte for byte what jansson's
 * json_dumpb(JSON_COMPACT) makes, plus the newline. */
static void same_as_jansson(const json_t *j) {
  size_t need = json_dumpb(j, NULL, 0, JSON_COMPACT);
  FUZZ_CHECK(need > 0);
  char *a = malloc(need + 1), *b = malloc(need + 1);
  FUZZ_CHECK(a != NULL && b != NULL);
  FUZZ_CHECK(json_dumpb(j, a, need, JSON_COMPACT) == need);
  FUZZ_CHECK(proto_encode(j, b, need) == (long)need + 1);  /* too small */
  FUZZ_CHECK(proto_encode(j, b, need + 1) == (long)need + 1);
  FUZZ_CHECK(memcmp(a, b, need) == 0 && b[need] == '\n');
  free(a);
  free(b);
}

/* proto_flat_scan's promise, checked against jansson itself. */
static void flat_same_as_jansson(const char *p, size_t n) {
  proto_flat f;
  if (proto_flat_scan(p, n, &f) != 0) return;
  json_error_t e;
  json_t *j = json_loadb(p, n, JSON_REJECT_DUPLICATES, &e);
  FUZZ_CHECK(j != NULL && json_is_object(j));
  /* as many keys, each found with its value, flat keys distinct: the same
   * object */
  FUZZ_CHECK(f.n > 0 && f.n <= PROTO_FLAT_MAX && json_object_size(j) == f.n);
  for (unsigned i = 0; i < f.n; i++) {
    const proto_flat_val *v = &f.v[i];
    json_t *x = json_object_getn(j, v->key, v->klen);
    FUZZ_CHECK(x != NULL);
    if (v->is_str) {
      FUZZ_CHECK(json_is_string(x) && json_string_length(x) == v->slen &&
                 memcmp(json_string_value(x), v->str, v->slen) == 0);
    } else {
      FUZZ_CHECK(json_is_integer(x) && json_integer_value(x) == v->num);
    }
  }
  json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  flat_same_as_jansson((const char *)data, size);
  proto_msg m;
  agon_err err;
  agon_err_clear(&err);
  int rc = proto_decode((const char *)data, size, &m, &err);
  if (rc != 0) {
    FUZZ_CHECK(rc == AGON_EBADJSON || rc == AGON_EBADFIELD);
    FUZZ_CHECK(err.code == rc && err.msg[0] != '\0');
    FUZZ_CHECK(m.root == NULL);
    json_t *r = proto_reply_err(NULL, m.id, rc, err.msg, -1);
    check_line(r, NULL, m.id);
    json_decref(r);
    proto_msg_clear(&m);
    return 0;
  }
  size_t tl = strlen(m.type);
  FUZZ_CHECK(tl > 0 && tl <= PROTO_TYPE_NAME_MAX);
  FUZZ_CHECK(json_is_object(m.root));
  FUZZ_CHECK(json_object_get(m.root, "type") == NULL);
  FUZZ_CHECK(json_object_get(m.root, "id") == NULL);
  FUZZ_CHECK(m.id == NULL || json_is_integer(m.id) || json_is_string(m.id));

  /* The strict unpacks the handlers use must never crash. */
  const char *a = NULL, *b = NULL;
  json_int_t nonce = 0;
  (void)proto_unpack(&m, &err, "{s:s, s:s}", "name", &a, "password", &b);
  (void)proto_unpack(&m, &err, "{s:I}", "nonce", &nonce);
  (void)proto_unpack(&m, &err, "{s?I, s?s}", "version", &nonce, "client", &a);
  (void)proto_unpack(&m, &err, "{}");

  json_t *r = proto_reply_ok(m.type, m.id, json_deep_copy(m.root));
  check_line(r, m.type, m.id);
  same_as_jansson(r);
  json_decref(r);
  r = proto_reply_err(m.type, m.id, AGON_ERATELIMIT, NULL, 1200);
  check_line(r, m.type, m.id);
  json_decref(r);
  proto_msg_clear(&m);
  return 0;
}
