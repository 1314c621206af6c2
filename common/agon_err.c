#include "agon_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const err_names[] = {
#define AGON__X(name, wire, msg) wire,
    AGON_ERRNO_MAP(AGON__X)
#undef AGON__X
};

static const char *const err_msgs[] = {
#define AGON__X(name, wire, msg) msg,
    AGON_ERRNO_MAP(AGON__X)
#undef AGON__X
};

static int err_index(int code) {
  if (code >= 0 || -code > AGON__I_COUNT) return -1;
  return -code - 1;
}

const char *agon_err_name(int code) {
  int i = err_index(code);
  return i < 0 ? "unknown_error" : err_names[i];
}

const char *agon_err_default_msg(int code) {
  int i = err_index(code);
  return i < 0 ? "unknown error" : err_msgs[i];
}

int agon_err_from_name(const char *name) {
  for (int i = 0; i < AGON__I_COUNT; i++)
    if (strcmp(err_names[i], name) == 0) return -(i + 1);
  return 0;
}

int agon_err_set(agon_err *err, int code, const char *fmt, ...) {
  if (err == NULL) return code;
  err->code = code;
  if (fmt == NULL) {
    snprintf(err->msg, sizeof err->msg, "%s", agon_err_default_msg(code));
  } else {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return code;
}

void agon_err_clear(agon_err *err) {
  if (err == NULL) return;
  err->code = 0;
  err->msg[0] = '\0';
}
