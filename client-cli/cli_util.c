/* cli_util.c - see cli_util.h. */
#include "cli_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *cli_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fputs("agon: out of memory\n", stderr);
    abort();
  }
  return p;
}

void *cli_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fputs("agon: out of memory\n", stderr);
    abort();
  }
  return q;
}

char *cli_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = cli_xmalloc(n);
  memcpy(p, s, n);
  return p;
}

void cli_buf_init(cli_buf *b) {
  b->s = NULL;
  b->len = b->cap = 0;
}

void cli_buf_close(cli_buf *b) {
  free(b->s);
  cli_buf_init(b);
}

static void buf_reserve(cli_buf *b, size_t more) {
  if (b->len + more + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + more + 1) cap *= 2;
  b->s = cli_xrealloc(b->s, cap);
  b->cap = cap;
}

void cli_buf_add(cli_buf *b, const char *p, size_t n) {
  buf_reserve(b, n);
  memcpy(b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = '\0';
}

void cli_buf_adds(cli_buf *b, const char *s) { cli_buf_add(b, s, strlen(s)); }

void cli_buf_printf(cli_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n <= 0) return;
  buf_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

char *cli_buf_take(cli_buf *b) {
  char *s = b->s ? b->s : cli_xstrdup("");
  cli_buf_init(b);
  return s;
}

void cli_print_json(json_t *j) {
  char *s = json_dumps(j, JSON_COMPACT);
  puts(s ? s : "{}");
  free(s);
  json_decref(j);
}

int cli_fail(int json, const char *what, const agon_err *err) {
  if (json) {
    cli_print_json(json_pack("{s:b, s:s, s:{s:s, s:s}}", "ok", 0, "command",
                             what, "error", "code", agon_err_name(err->code),
                             "message", err->msg));
  } else {
    fprintf(stderr, "agon: %s: %s\n", what, err->msg);
  }
  return 1;
}

const char *cli_jstr(const json_t *o, const char *key) {
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}

long long cli_jint(const json_t *o, const char *key) {
  return (long long)json_integer_value(json_object_get(o, key));
}
