/* record.h - game records: the text format (tags plus numbered moves, see
 * docs/record-format.md) and its JSON twin (one object per game, NDJSON for
 * many), and replay through the rules core, checking every move.
 *
 * Records are read from untrusted files and network, so every field is
 * bounded and every parse error is reported with its line. Unlike the rules
 * core proper, records allocate (the move list grows), up to RECORD_MAX_MOVES.
 */
#ifndef AGON_RECORD_H
#define AGON_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"

#define RECORD_MAX_MOVES 20000   /* far above any real game; bounds memory */
#define RECORD_MAX_TAGS 32
#define RECORD_TAG_KEY_MAX 32
#define RECORD_TAG_VALUE_MAX 256

typedef struct record_tag {
  char key[RECORD_TAG_KEY_MAX];
  char value[RECORD_TAG_VALUE_MAX];
} record_tag;

typedef struct record_move {
  char text[GAME_MOVE_TEXT_MAX];  /* canonical move text */
  char side[16];                  /* side name, "chooser", or "" if unknown */
  int64_t clock_ms;               /* mover's clock after the move, -1 none */
  int64_t at_ms;                  /* server time (Unix ms), -1 none */
} record_move;

typedef struct game_record {
  const game_vtable *vt;
  game_setup setup;
  uint64_t seed;
  int has_seed;
  char position[GAME_POSITION_MAX];  /* "" = the start position */
  record_tag tags[RECORD_MAX_TAGS];  /* every tag, in file order, incl. the
                                        ones parsed into fields above */
  size_t n_tags;
  record_move *moves;                /* owned, record_free releases */
  size_t n_moves, cap_moves;
  char result[16];                   /* side name, "draw" or "*" */
  char reason[32];                   /* outcome reason or "" */
} game_record;

/* Empty record for vt (defaults, no moves). */
void record_init(game_record *r, const game_vtable *vt);
void record_free(game_record *r);

/* Set (or replace) a tag. AGON_ETOOLARGE when full or too long. */
int record_set_tag(game_record *r, const char *key, const char *value);
/* Value of a tag or NULL (borrowed). */
const char *record_tag_value(const game_record *r, const char *key);
/* Append a move. AGON_ETOOLARGE past RECORD_MAX_MOVES. */
int record_add_move(game_record *r, const char *text, const char *side,
                    int64_t clock_ms, int64_t at_ms);

/* Build a record from a finished or running match (tags: Game, Options,
 * Seed or Position, Result, Reason; moves need the caller's history). */
int record_from_moves(game_record *r, const game_setup *setup, uint64_t seed,
                      const char *position, const char *const *moves,
                      size_t n_moves, agon_err *err);

/* Text form: returns a malloc'd NUL-terminated string (caller frees). */
char *record_to_text(const game_record *r);
/* Parse one text record from text[0..len). On success *used (if not NULL)
 * tells how many bytes it took, so several records can follow each other. */
int record_parse_text(game_record *r, const char *text, size_t len,
                      size_t *used, agon_err *err);

/* JSON form (new reference) and back. */
json_t *record_to_json(const game_record *r);
int record_from_json(game_record *r, const json_t *obj, agon_err *err);

/* Replay every move through the rules core. Checks that each move is legal,
 * played by the side the record names, and that the final state agrees with
 * Result/Reason (a rules ending must match exactly; a running game must have
 * Result "*" or an ending from outside the rules such as resignation).
 * On error err names the move's number. *m (if not NULL) gets the final
 * match; hist is its history storage. */
int record_replay(const game_record *r, game_match *m, uint64_t *hist,
                  uint32_t hist_cap, agon_err *err);

#endif
