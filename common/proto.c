/* proto.c - framing, decoding and encoding of the agon protocol. */
#include "proto.h"

#include <stdarg.h>
#include <string.h>

/* ---- framing ----------------------------------------------------------- */

void proto_framer_init(proto_framer *f, size_t max) {
  memset(f, 0, sizeof *f);
  f->max = max;
  f->cap = PROTO_FRAMER_BUFSIZE(max);
}

void proto_framer_attach(proto_framer *f, char *buf) {
  f->buf = buf;
  f->len = 0;
  f->scan = 0;
}

char *proto_framer_detach_if_empty(proto_framer *f) {
  char *b = f->buf;
  if (b == NULL || f->len != 0) return NULL;
  f->buf = NULL;
  f->scan = 0;
  return b;
}

void proto_framer_space(proto_framer *f, char **p, size_t *n) {
  *p = f->buf + f->len;
  *n = f->cap - f->len;
}

int proto_framer_feed(proto_framer *f, size_t n, proto_line_cb cb,
                      void *arg) {
  size_t start = 0;
  f->len += n;
  for (;;) {
    char *nl = memchr(f->buf + f->scan, '\n', f->len - f->scan);
    if (nl == NULL) break;
    size_t end = (size_t)(nl - f->buf);
    if (f->skipping) {
      f->skipping = 0;  /* the over-long line ends here; nothing to report */
    } else {
      size_t ll = end - start;
      if (ll > 0 && f->buf[start + ll - 1] == '\r') ll--;
      /* The buffer holds max + 2 bytes, so a complete line can still be
       * one byte too long: same error, nothing left to skip. */
      int kind = ll > f->max ? PROTO_TOO_LONG : PROTO_LINE;
      if (cb(arg, kind, kind == PROTO_LINE ? f->buf + start : NULL,
             kind == PROTO_LINE ? ll : 0)) {
        f->len = 0;
        f->scan = 0;
        return 1;
      }
    }
    start = end + 1;
    f->scan = start;
  }
  /* Keep the unfinished tail, moved to the front (a memmove per read of at
   * most one partial line: cheaper than a ring buffer's split lines). */
  if (f->skipping) {
    f->len = 0;  /* still inside the over-long line: drop what we got */
    f->scan = 0;
    return 0;
  }
  size_t rest = f->len - start;
  if (rest == f->cap) {
    /* Full without a newline: the line is too long. Report once, drop it
     * and skip everything up to the next newline. */
    f->len = 0;
    f->scan = 0;
    f->skipping = 1;
    return cb(arg, PROTO_TOO_LONG, NULL, 0) ? 1 : 0;
  }
  if (start > 0 && rest > 0) memmove(f->buf, f->buf + start, rest);
  f->len = rest;
  f->scan = rest;
  return 0;
}

int proto_framer_push(proto_framer *f, const char *data, size_t n,
                      proto_line_cb cb, void *arg) {
  while (n > 0) {
    char *p;
    size_t room;
    proto_framer_space(f, &p, &room);
    size_t k = n < room ? n : room;
    memcpy(p, data, k);
    data += k;
    n -= k;
    if (proto_framer_feed(f, k, cb, arg)) return 1;
  }
  return 0;
}

/* ---- decoding ---------------------------------------------------------- */

void proto_msg_clear(proto_msg *msg) {
  json_decref(msg->root);
  json_decref(msg->id);
  msg->root = NULL;
  msg->id = NULL;
  msg->type[0] = '\0';
}

int proto_decode(const char *line, size_t len, proto_msg *msg,
                 agon_err *err) {
  json_error_t jerr;
  int rc = 0;
  memset(msg, 0, sizeof *msg);
  /* JSON_REJECT_DUPLICATES: {"type":"a","type":"b"} is ambiguous; refuse.
   * JSON_DISABLE_EOF_CHECK is not set: trailing garbage is an error. */
  json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL)
    return agon_err_set(err, AGON_EBADJSON, "bad JSON: %s (column %d)",
                        jerr.text, jerr.column);
  if (!json_is_object(root)) {
    rc = agon_err_set(err, AGON_EBADJSON, "a request must be a JSON object");
    goto out;
  }
  json_t *id = json_object_get(root, "id");
  if (id != NULL) {
    if (json_is_integer(id) ||
        (json_is_string(id) && json_string_length(id) <= PROTO_ID_STR_MAX)) {
      msg->id = json_incref(id);
    } else {
      rc = agon_err_set(err, AGON_EBADFIELD,
                        "\"id\" must be an integer or a string of at most %d "
                        "bytes", PROTO_ID_STR_MAX);
      goto out;
    }
  }
  json_t *type = json_object_get(root, "type");
  if (!json_is_string(type)) {
    rc = agon_err_set(err, AGON_EBADFIELD, "\"type\" must be a string");
    goto out;
  }
  size_t tl = json_string_length(type);
  if (tl == 0 || tl > PROTO_TYPE_NAME_MAX ||
      memchr(json_string_value(type), '\0', tl) != NULL) {
    rc = agon_err_set(err, AGON_EBADFIELD, "\"type\" is not a known name");
    goto out;
  }
  memcpy(msg->type, json_string_value(type), tl + 1);
  json_object_del(root, "type");
  json_object_del(root, "id");
  msg->root = root;
  return 0;
out:
  json_decref(root);
  return rc;
}

int proto_unpack(const proto_msg *msg, agon_err *err, const char *fmt, ...) {
  json_error_t jerr;
  va_list ap;
  va_start(ap, fmt);
  int r = json_vunpack_ex(msg->root, &jerr, JSON_STRICT, fmt, ap);
  va_end(ap);
  if (r != 0)
    return agon_err_set(err, AGON_EBADFIELD, "%s", jerr.text);
  return 0;
}

/* ---- flat requests --------------------------------------------------------- */

static size_t skip_ws(const char *p, size_t i, size_t len) {
  while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
    i++;
  return i;
}

/* A plain string at p[i] (the opening quote): its bytes in *s, *n. Returns
 * the index after the closing quote, or 0 when it is not plain. */
static size_t flat_str(const char *p, size_t i, size_t len, const char **s,
                       size_t *n) {
  if (i >= len || p[i] != '"') return 0;
  size_t b = ++i;
  for (; i < len; i++) {
    unsigned char ch = (unsigned char)p[i];
    if (ch == '"') {
      *s = p + b;
      *n = i - b;
      return i + 1;
    }
    if (ch < 0x20 || ch > 0x7e || ch == '\\') return 0;
  }
  return 0;
}

/* An integer at p[i]: at most 18 digits, so it cannot overflow. Returns
 * the index after it, or 0 (not an integer we take: a real, leading zeros,
 * too long). */
static size_t flat_int(const char *p, size_t i, size_t len, long long *out) {
  int neg = 0;
  if (i < len && p[i] == '-') {
    neg = 1;
    i++;
  }
  size_t b = i;
  long long v = 0;
  while (i < len && p[i] >= '0' && p[i] <= '9' && i - b < 18) {
    v = v * 10 + (p[i] - '0');
    i++;
  }
  size_t nd = i - b;
  if (nd == 0 || (p[b] == '0' && nd > 1)) return 0;
  if (i < len && (p[i] == '.' || p[i] == 'e' || p[i] == 'E' ||
                  (p[i] >= '0' && p[i] <= '9')))
    return 0;
  *out = neg ? -v : v;
  return i;
}

int proto_flat_scan(const char *p, size_t len, proto_flat *out) {
  out->n = 0;
  size_t i = skip_ws(p, 0, len);
  if (i >= len || p[i] != '{') return -1;
  i = skip_ws(p, i + 1, len);
  if (i < len && p[i] == '}') return -1; /* {}: proto_decode says why */
  for (;;) {
    if (out->n == PROTO_FLAT_MAX) return -1;
    proto_flat_val *v = &out->v[out->n];
    size_t j = flat_str(p, i, len, &v->key, &v->klen);
    if (j == 0) return -1;
    for (unsigned k = 0; k < out->n; k++)
      if (out->v[k].klen == v->klen && memcmp(out->v[k].key, v->key, v->klen) == 0)
        return -1; /* duplicate: proto_decode refuses it */
    i = skip_ws(p, j, len);
    if (i >= len || p[i] != ':') return -1;
    i = skip_ws(p, i + 1, len);
    if (i < len && p[i] == '"') {
      v->is_str = 1;
      v->num = 0;
      j = flat_str(p, i, len, &v->str, &v->slen);
    } else {
      v->is_str = 0;
      v->str = NULL;
      v->slen = 0;
      j = flat_int(p, i, len, &v->num);
    }
    if (j == 0) return -1;
    out->n++;
    i = skip_ws(p, j, len);
    if (i >= len) return -1;
    if (p[i] == '}') break;
    if (p[i] != ',') return -1;
    i = skip_ws(p, i + 1, len);
  }
  return skip_ws(p, i + 1, len) == len ? 0 : -1;
}

const proto_flat_val *proto_flat_get(const proto_flat *f, const char *key) {
  size_t kl = strlen(key);
  for (unsigned k = 0; k < f->n; k++)
    if (f->v[k].klen == kl && memcmp(f->v[k].key, key, kl) == 0) return &f->v[k];
  return NULL;
}

/* ---- encoding ---------------------------------------------------------- */

static json_t *reply_head(const char *re, json_t *id, int ok) {
  json_t *o = json_object();
  if (o == NULL) return NULL;
  json_object_set_new(o, "re", re ? json_string(re) : json_null());
  if (id != NULL) json_object_set(o, "id", id);
  json_object_set_new(o, "ok", json_boolean(ok));
  return o;
}

json_t *proto_reply_ok(const char *re, json_t *id, json_t *data) {
  json_t *o = reply_head(re, id, 1);
  if (o == NULL) {
    json_decref(data);
    return NULL;
  }
  json_object_set_new(o, "data", data ? data : json_object());
  return o;
}

json_t *proto_reply_err(const char *re, json_t *id, int code, const char *msg,
                        long long retry_after_ms) {
  json_t *o = reply_head(re, id, 0);
  if (o == NULL) return NULL;
  json_t *e = json_object();
  json_object_set_new(e, "code", json_string(agon_err_name(code)));
  json_object_set_new(e, "message",
                      json_string(msg && msg[0] ? msg
                                                : agon_err_default_msg(code)));
  if (retry_after_ms >= 0)
    json_object_set_new(e, "retry_after_ms", json_integer(retry_after_ms));
  json_object_set_new(o, "error", e);
  return o;
}

json_t *proto_event(const char *name) {
  json_t *o = json_object();
  if (o != NULL) json_object_set_new(o, "event", json_string(name));
  return o;
}

/* A direct encoder for json_dumpb(j, .., JSON_COMPACT)'s exact output:
 * jansson's dump goes through a callback per token and snprintf per number,
 * and encoding replies and game events was ~15% of the server's loop thread
 * under load (tests/bench/loadgen). Same escaping as jansson 2.x (", \\ and
 * control characters; \\u%04X upper case), same key order (insertion), reals
 * delegated to jansson itself. Strings are valid UTF-8 already (jansson
 * checks them when they are made). */
typedef struct enc {
  char *buf;
  size_t cap, len;  /* len keeps counting past cap: the size needed */
} enc;

static void enc_put(enc *e, const char *p, size_t n) {
  if (e->len + n <= e->cap) memcpy(e->buf + e->len, p, n);
  e->len += n;
}

static void enc_ch(enc *e, char c) {
  if (e->len < e->cap) e->buf[e->len] = c;
  e->len++;
}

static void enc_str(enc *e, const char *s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  enc_ch(e, '"');
  size_t run = 0;  /* start of the pending plain run */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    enc_put(e, s + run, i - run);
    run = i + 1;
    char esc[6] = {'\\', 0, '0', '0', 0, 0};
    size_t k = 2;
    switch (c) {
      case '"': esc[1] = '"'; break;
      case '\\': esc[1] = '\\'; break;
      case '\b': esc[1] = 'b'; break;
      case '\f': esc[1] = 'f'; break;
      case '\n': esc[1] = 'n'; break;
      case '\r': esc[1] = 'r'; break;
      case '\t': esc[1] = 't'; break;
      default:
        esc[1] = 'u';
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        k = 6;
    }
    enc_put(e, esc, k);
  }
  enc_put(e, s + run, n - run);
  enc_ch(e, '"');
}

size_t proto_fmt_int(char *out, long long v) {
  char tmp[PROTO_INT_MAX];
  size_t i = sizeof tmp;
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v
                               : (unsigned long long)v;
  do {
    tmp[--i] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) tmp[--i] = '-';
  memcpy(out, tmp + i, sizeof tmp - i);
  return sizeof tmp - i;
}

static void enc_int(enc *e, json_int_t v) {
  char tmp[PROTO_INT_MAX];
  enc_put(e, tmp, proto_fmt_int(tmp, v));
}

/* 0, or -1 when jansson itself would fail (a real it cannot print). */
static int enc_value(enc *e, const json_t *j, int depth) {
  if (depth > 256) return -1;  /* our trees are shallow; guards recursion */
  switch (json_typeof(j)) {
    case JSON_OBJECT: {
      enc_ch(e, '{');
      int first = 1;
      void *it = json_object_iter((json_t *)j);
      for (; it; it = json_object_iter_next((json_t *)j, it)) {
        json_t *v = json_object_iter_value(it);
        if (!first) enc_ch(e, ',');
        first = 0;
        enc_str(e, json_object_iter_key(it), json_object_iter_key_len(it));
        enc_ch(e, ':');
        if (enc_value(e, v, depth + 1) != 0) return -1;
      }
      enc_ch(e, '}');
      return 0;
    }
    case JSON_ARRAY: {
      enc_ch(e, '[');
      size_t n = json_array_size(j);
      for (size_t i = 0; i < n; i++) {
        if (i) enc_ch(e, ',');
        if (enc_value(e, json_array_get(j, i), depth + 1) != 0) return -1;
      }
      enc_ch(e, ']');
      return 0;
    }
    case JSON_STRING:
      enc_str(e, json_string_value(j), json_string_length(j));
      return 0;
    case JSON_INTEGER:
      enc_int(e, json_integer_value(j));
      return 0;
    case JSON_TRUE:
      enc_put(e, "true", 4);
      return 0;
    case JSON_FALSE:
      enc_put(e, "false", 5);
      return 0;
    case JSON_NULL:
      enc_put(e, "null", 4);
      return 0;
    case JSON_REAL: {
      char tmp[64];
      size_t n = json_dumpb(j, tmp, sizeof tmp, JSON_ENCODE_ANY | JSON_COMPACT);
      if (n == 0 || n > sizeof tmp) return -1;
      enc_put(e, tmp, n);
      return 0;
    }
  }
  return -1;
}

long proto_encode(const json_t *j, char *buf, size_t cap) {
  /* JSON_COMPACT output; strings escape control characters, so the only
   * newline is ours. Only objects and arrays are messages. */
  if (!json_is_object(j) && !json_is_array(j)) return -1;
  enc e = {buf, cap, 0};
  if (enc_value(&e, j, 0) != 0) return -1;
  if (e.len + 1 > cap) return (long)(e.len + 1);
  buf[e.len] = '\n';
  return (long)(e.len + 1);
}
