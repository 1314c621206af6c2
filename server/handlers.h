/* handlers.h - request dispatch: a static table {name, handler, flags}
 * (Redis's command table) and the handlers of the server core. */
#ifndef AGON_HANDLERS_H
#define AGON_HANDLERS_H

#include <stddef.h>

#include "conn.h"

/* Decode one line from c and run its handler (or reply the error). */
void handlers_line(conn *c, const char *line, size_t len);

/* Encoded "data" of the hello reply (new, malloc'ed, *len set): protocol
 * version, limits and the games with their options. Built once at start. */
char *handlers_hello_data(const struct server *s, size_t *len);

#endif
