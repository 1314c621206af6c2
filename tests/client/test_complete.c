/* test_complete.c - Tab completion offers exactly the legal moves that
 * start with what was typed, for every game, along random games.
 *
 * The expected set is built here from legal_moves + format_move with a
 * plain case-insensitive prefix test; the candidates must equal it as sets
 * (no extra, none missing, no duplicates) and each must parse back to a
 * legal move of the position.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "complete.h"
#include "game.h"
#include "test.h"

static game_move moves[GAME_MAX_MOVES];
static char texts[GAME_MAX_MOVES][GAME_MOVE_TEXT_MAX];

static int cmp(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

/* Compare the candidates for prefix with the brute-force expectation. */
static void check_prefix(const game_match *m, size_t n, const char *prefix) {
  complete_list l;
  complete_moves(m, prefix, &l);
  while (*prefix == ' ') prefix++;  /* leading blanks do not count */
  size_t want = 0;
  for (size_t i = 0; i < n; i++)
    if (!strncasecmp(texts[i], prefix, strlen(prefix))) want++;
  CHECK_MSG(l.n == want, "%s ply %u prefix '%s': %zu candidates, want %zu",
            m->vt->name, (unsigned)m->ply, prefix, l.n, want);
  for (size_t i = 0; i < l.n; i++) {
    CHECK_MSG(!strncasecmp(l.v[i], prefix, strlen(prefix)),
              "candidate '%s' does not start with '%s'", l.v[i], prefix);
    /* in the legal list (texts is sorted) */
    CHECK_MSG(bsearch(l.v[i], texts, n, sizeof texts[0], cmp) != NULL,
              "candidate '%s' is not a legal move", l.v[i]);
    if (i > 0) CHECK_MSG(strcmp(l.v[i - 1], l.v[i]) < 0, "not sorted/unique");
    game_move mv;
    CHECK_MSG(m->vt->parse_move(&m->st, l.v[i], strlen(l.v[i]), &mv, NULL) ==
                  0, "candidate '%s' does not parse", l.v[i]);
  }
  complete_free(&l);
}

static void check_position(const game_match *m) {
  size_t n = 0;
  CHECK(game_match_legal(m, moves, GAME_MAX_MOVES, &n) == 0);
  for (size_t i = 0; i < n; i++)
    m->vt->format_move(&m->st, &moves[i], texts[i], sizeof texts[i]);
  qsort(texts, n, sizeof texts[0], cmp);
  check_prefix(m, n, "");
  check_prefix(m, n, "zz");
  check_prefix(m, n, "  ");
  /* Every prefix of every legal move, and its upper-case form. */
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(texts[i]);
    for (size_t k = 1; k <= len; k++) {
      char pre[GAME_MOVE_TEXT_MAX];
      memcpy(pre, texts[i], k);
      pre[k] = 0;
      if (i > 0 && !strncmp(texts[i - 1], pre, k)) continue;  /* seen */
      check_prefix(m, n, pre);
      for (char *c = pre; *c; c++) *c = (char)toupper((unsigned char)*c);
      check_prefix(m, n, pre);
    }
  }
  /* Leading blanks are ignored. */
  if (n > 0) {
    char pre[GAME_MOVE_TEXT_MAX + 2];
    snprintf(pre, sizeof pre, " %.2s", texts[0]);
    complete_list a, b;
    complete_moves(m, pre, &a);
    complete_moves(m, pre + 1, &b);
    CHECK_INT(a.n, b.n);
    complete_free(&a);
    complete_free(&b);
  }
}

int main(void) {
  static uint64_t hist[4096];
  for (size_t g = 0; game_registry[g]; g++) {
    const game_vtable *vt = game_registry[g];
    for (uint64_t seed = 1; seed <= 6; seed++) {
      game_setup setup;
      game_setup_init(&setup, vt);
      game_match m;
      agon_err err;
      CHECK(game_match_init(&m, &setup, seed, hist, 4096, &err) == 0);
      game_rng rng;
      game_rng_init(&rng, seed * 7919);
      for (int ply = 0; ply < 80; ply++) {
        check_position(&m);
        size_t n = 0;
        game_match_legal(&m, moves, GAME_MAX_MOVES, &n);
        if (n == 0) break;
        CHECK(game_match_apply(&m, &moves[game_rng_below(&rng, (uint32_t)n)],
                               &err) == 0);
      }
      /* Over: nothing to complete. */
      if (game_match_outcome(&m).result != GAME_ONGOING) {
        complete_list l;
        CHECK_INT(complete_moves(&m, "", &l), 0);
        complete_free(&l);
      }
    }
  }
  /* Command words. */
  const char *const words[] = {"draw", "decline", "help", NULL};
  complete_list l;
  CHECK_INT(complete_words(words, "d", &l), 2);
  CHECK_INT(complete_common(&l), 1);
  complete_free(&l);
  CHECK_INT(complete_words(words, "HE", &l), 1);
  CHECK_STR(l.v[0], "help");
  complete_free(&l);
  return test_summary();
}
