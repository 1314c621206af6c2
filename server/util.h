/* util.h - allocation that dies on OOM (the one fatal case, like
 * h2o_mem_alloc) and small helpers. */
#ifndef AGON_UTIL_H
#define AGON_UTIL_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);

#endif
