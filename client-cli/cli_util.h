/* cli_util.h - small helpers of the client: allocation that dies only on
 * out-of-memory (the single fatal case, STYLE.md 2), and a growable string.
 */
#ifndef AGON_CLI_UTIL_H
#define AGON_CLI_UTIL_H

#include <jansson.h>
#include <stddef.h>

#include "agon_err.h"

void *cli_xmalloc(size_t n);
void *cli_xrealloc(void *p, size_t n);
char *cli_xstrdup(const char *s);

/* Growable NUL-terminated byte string. Caller-owned struct; s is owned. */
typedef struct cli_buf {
  char *s;
  size_t len, cap;
} cli_buf;

void cli_buf_init(cli_buf *b);
void cli_buf_close(cli_buf *b);
void cli_buf_add(cli_buf *b, const char *p, size_t n);
void cli_buf_adds(cli_buf *b, const char *s);
void cli_buf_printf(cli_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Take the string (caller frees); the buffer is empty again. */
char *cli_buf_take(cli_buf *b);

/* JSON output of the scriptable commands: one compact object per line on
 * stdout (steals j). */
void cli_print_json(json_t *j);
/* A failed command: `agon: WHAT: message` on stderr, or with json the line
 * {"ok":false,"command":WHAT,"error":{"code","message"}} on stdout.
 * Returns 1, the exit status. */
int cli_fail(int json, const char *what, const agon_err *err);
/* A member of a server object: "" / 0 when missing or of another type. */
const char *cli_jstr(const json_t *o, const char *key);
long long cli_jint(const json_t *o, const char *key);

#endif
