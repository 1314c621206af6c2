/* complete.c - see complete.h. */
#include "complete.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_util.h"

static const char *skip_blanks(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return s;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void finish(complete_list *out) {
  if (out->n > 1) qsort(out->v, out->n, sizeof *out->v, cmp_str);
  size_t w = 0;
  for (size_t i = 0; i < out->n; i++) {
    if (w > 0 && !strcmp(out->v[w - 1], out->v[i])) {
      free(out->v[i]);
      continue;
    }
    out->v[w++] = out->v[i];
  }
  out->n = w;
}

size_t complete_moves(const game_match *m, const char *prefix,
                      complete_list *out) {
  out->n = 0;
  out->v = NULL;
  prefix = skip_blanks(prefix);
  size_t plen = strlen(prefix);
  game_move *mv = cli_xmalloc(sizeof *mv * GAME_MAX_MOVES);
  size_t n = 0;
  if (game_match_legal(m, mv, GAME_MAX_MOVES, &n) != 0) n = 0;
  out->v = cli_xmalloc(sizeof *out->v * (n ? n : 1));
  for (size_t i = 0; i < n; i++) {
    char text[GAME_MOVE_TEXT_MAX];
    if (m->vt->format_move(&m->st, &mv[i], text, sizeof text) < 0) continue;
    if (strncasecmp(text, prefix, plen) != 0) continue;
    out->v[out->n++] = cli_xstrdup(text);
  }
  free(mv);
  finish(out);
  return out->n;
}

size_t complete_words(const char *const *words, const char *prefix,
                      complete_list *out) {
  size_t n = 0;
  while (words[n]) n++;
  out->n = 0;
  out->v = cli_xmalloc(sizeof *out->v * (n ? n : 1));
  prefix = skip_blanks(prefix);
  size_t plen = strlen(prefix);
  for (size_t i = 0; i < n; i++)
    if (!strncasecmp(words[i], prefix, plen))
      out->v[out->n++] = cli_xstrdup(words[i]);
  finish(out);
  return out->n;
}

void complete_free(complete_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  l->v = NULL;
  l->n = 0;
}

size_t complete_common(const complete_list *l) {
  if (l->n == 0) return 0;
  size_t len = strlen(l->v[0]);
  for (size_t i = 1; i < l->n; i++) {
    size_t k = 0;
    while (k < len && l->v[i][k] == l->v[0][k]) k++;
    len = k;
  }
  return len;
}
