/* game.h - the rules-core interface: one hook table per game, a registry,
 * option parsing, a deterministic RNG, and a match layer that adds history
 * (repetition) on top of a game's pure position logic.
 *
 * Design (see STYLE.md section 1):
 *  - A game_state is a fixed-size blob with no pointers: copying is memcpy of
 *    vt->state_size bytes. Rules code never allocates while generating or
 *    applying moves.
 *  - A game_move is a small value; unused bytes are zero, so two moves are
 *    equal iff memcmp says so (game_move_eq).
 *  - Turns need not alternate: always ask to_move. Before play, Gambo's side
 *    choice is made by GAME_CHOOSER, a pseudo-side the server maps to the
 *    choosing player.
 *  - Determinism: state = f(game, options, seed, moves). Randomness only comes
 *    from the seed through game_rng.
 *  - Repetition needs history, which a position does not hold (like FEN): the
 *    game reports a position hash and how many plies back a repetition is
 *    possible; game_match keeps the hashes and adjudicates.
 */
#ifndef AGON_GAME_H
#define AGON_GAME_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "agon_err.h"

/* Limits. Each value is a hard bound the games are written against. */
#define GAME_STATE_MAX 768     /* bytes of the largest game's state */
#define GAME_MAX_MOVES 1024    /* > any position's legal move count (Gwezboell
                                  attackers reach ~300, Gomony jump trees less) */
#define GAME_MOVE_OPS 14       /* operands per move: Gomony's longest jump path
                                  is 13 squares (12 enemy markers, one each) */
#define GAME_MAX_OPTIONS 16    /* options per game */
#define GAME_OPT_TEXT_MAX 64   /* longest option value, NUL included */
#define GAME_MOVE_TEXT_MAX 96  /* longest canonical or described move text */
#define GAME_POSITION_MAX 512  /* longest position string, NUL included */
#define GAME_TEXT_MAX 4096     /* longest board diagram, NUL included */

/* Sides. Games name them in vt->side_names. */
enum {
  GAME_NOBODY = -1, /* to_move when the game is over */
  GAME_SIDE0 = 0,   /* the side listed first in side_names */
  GAME_SIDE1 = 1,
  GAME_CHOOSER = 2  /* Gambo: the player who picks a side, before play */
};

/* Viewer for to_json: a side, or GAME_VIEW_ALL for spectators. */
#define GAME_VIEW_ALL (-1)

typedef struct game_move {
  uint8_t kind;               /* game-defined action kind (0 = none) */
  uint8_t n;                  /* operands used */
  uint8_t op[GAME_MOVE_OPS];  /* squares, columns, path; rest zero */
} game_move;

typedef struct game_state {
  union {
    unsigned char bytes[GAME_STATE_MAX];
    uint64_t align_;
  } u;
} game_state;

typedef enum game_result {
  GAME_ONGOING = 0,
  GAME_WIN = 1,   /* winner is a side */
  GAME_DRAW = 2
} game_result;

typedef struct game_outcome {
  game_result result;
  int winner;           /* side when result == GAME_WIN, else GAME_NOBODY */
  const char *reason;   /* static snake_case reason, NULL while ongoing:
                           "castle_captured", "king_escaped", "no_moves", ... */
} game_outcome;

typedef enum game_opt_kind {
  GAME_OPT_ENUM = 0,  /* one of choices ("random|light|dark") */
  GAME_OPT_INT = 1,   /* integer in [min, max] */
  GAME_OPT_TEXT = 2   /* free text validated by the game's init */
} game_opt_kind;

typedef struct game_option {
  const char *name;
  game_opt_kind kind;
  const char *choices;  /* ENUM only: '|'-separated */
  const char *def;      /* default value as text; "" = unset (TEXT) */
  int min, max;         /* INT only, inclusive */
  const char *help;     /* one line for `agon-rules games` and hello */
} game_option;

struct game_vtable;

/* Parsed options of one game. Indexes follow vt->options. */
typedef struct game_setup {
  const struct game_vtable *vt;
  int ival[GAME_MAX_OPTIONS];                     /* ENUM index, INT value */
  char text[GAME_MAX_OPTIONS][GAME_OPT_TEXT_MAX]; /* every value as text */
  unsigned char given[GAME_MAX_OPTIONS];          /* set explicitly */
} game_setup;

typedef struct game_vtable {
  const char *name;           /* registry key: "gambit-of-kings" */
  const char *title;          /* "Gambit of Kings" */
  unsigned version;           /* bumped when behaviour changes; stored */
  const char *side_names[2];  /* lower-case: "light", "dark" */
  size_t state_size;          /* bytes of game_state used; <= GAME_STATE_MAX */
  const game_option *options;
  size_t n_options;

  /* Start position from options and seed. */
  int (*init)(game_state *st, const game_setup *setup, uint64_t seed,
              agon_err *err);
  /* Position from its text form (docs/positions.md); options still apply. */
  int (*from_position)(game_state *st, const game_setup *setup,
                       const char *pos, size_t len, agon_err *err);
  /* Text form of the position into buf (NUL-terminated). Returns its length
   * or AGON_ENOSPACE. from_position(to_position(s)) == s. */
  int (*to_position)(const game_state *st, char *buf, size_t cap);

  /* GAME_SIDE0/1, GAME_CHOOSER, or GAME_NOBODY once the rules end the game. */
  int (*to_move)(const game_state *st);
  /* Every legal move into out[0..*n). 0, or AGON_ENOSPACE if cap is too
   * small. No moves once the game is over. Order is unspecified. */
  int (*legal_moves)(const game_state *st, game_move *out, size_t cap,
                     size_t *n);
  /* Lenient parse of one move (case, blanks, optional suffixes). Returns 0
   * with a legal move, AGON_EBADMOVE (not notation), AGON_EILLEGAL (notation
   * but not legal here; err says why) or AGON_EGAMEOVER. */
  int (*parse_move)(const game_state *st, const char *text, size_t len,
                    game_move *out, agon_err *err);
  /* Canonical text of a legal move of st (before applying it), with the
   * spec's output-only suffixes. Returns length or AGON_ENOSPACE.
   * parse_move(format_move(m)) == m. */
  int (*format_move)(const game_state *st, const game_move *mv, char *buf,
                     size_t cap);
  /* Optional (NULL: format_move): a human echo with the move's effect,
   * e.g. Gambo's "duel e e (M3 x C1): North +3". */
  int (*describe_move)(const game_state *st, const game_move *mv, char *buf,
                       size_t cap);
  /* Play a legal move (from legal_moves or parse_move on this very state;
   * anything else is a caller bug). Never allocates. */
  int (*apply)(game_state *st, const game_move *mv, agon_err *err);

  game_outcome (*outcome)(const game_state *st);
  /* Invariants of a reachable state; 0 or AGON_EINTERNAL with a reason. */
  int (*check)(const game_state *st, agon_err *err);
  /* Client view (new reference): at least "board", "to_move" (side name,
   * "chooser" or null) and game-specific counters. viewer may hide things. */
  json_t *(*to_json)(const game_state *st, int viewer);
  /* Board diagram for people (agon-rules show). Returns length. */
  int (*to_text)(const game_state *st, char *buf, size_t cap);

  /* Repetition support. hash: identity of everything that decides future
   * play. repetition: the limit from options (0 = off) and, in *window, how
   * many earlier plies could hold the same position (plies since the last
   * irreversible move). repetition_outcome: result when the limit is hit
   * (NULL: a draw with reason "repetition"). */
  uint64_t (*hash)(const game_state *st);
  unsigned (*repetition)(const game_state *st, unsigned *window);
  game_outcome (*repetition_outcome)(const game_state *st);
} game_vtable;

/* ---- registry ---------------------------------------------------------- */

/* NULL-terminated, in display order. */
extern const game_vtable *const game_registry[];
/* Game by name (case-insensitive), or NULL. */
const game_vtable *game_find(const char *name);

/* ---- options ----------------------------------------------------------- */

/* Defaults for every option of vt. */
void game_setup_init(game_setup *setup, const game_vtable *vt);
/* Set one option. AGON_EOPTION on an unknown key or bad value. */
int game_setup_set(game_setup *setup, const char *key, const char *value,
                   agon_err *err);
/* Set from "key=value". */
int game_setup_set_kv(game_setup *setup, const char *kv, agon_err *err);
/* Index of an option by name, or -1. */
int game_option_index(const game_vtable *vt, const char *name);
/* {"key": value, ...} of every option (ENUM/TEXT strings, INT numbers).
 * New reference. */
json_t *game_setup_to_json(const game_setup *setup);
/* Options from such an object; unknown keys are errors. */
int game_setup_from_json(game_setup *setup, const game_vtable *vt,
                         const json_t *obj, agon_err *err);
/* Space-separated "key=value" of the options given explicitly (for records).
 * Returns length or AGON_ENOSPACE. */
int game_setup_format(const game_setup *setup, char *buf, size_t cap);
/* Description of the game's options (new reference), for hello and
 * `agon-rules games`: [{"name","kind","choices","default","help"}...] */
json_t *game_options_json(const game_vtable *vt);

/* ---- deterministic randomness ------------------------------------------ */

/* splitmix64: the same stream on every platform for a given seed. */
typedef struct game_rng {
  uint64_t s;
} game_rng;

void game_rng_init(game_rng *r, uint64_t seed);
uint64_t game_rng_next(game_rng *r);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint32_t game_rng_below(game_rng *r, uint32_t n);

/* SHA-256 commitment to a seed, as 64 lowercase hex digits + NUL: the hash
 * of the ASCII string "agon-seed:" followed by the seed in decimal. Clients
 * verify a revealed seed by hashing the same string. */
void game_seed_commitment(uint64_t seed, char out[65]);

/* ---- helpers for game modules ------------------------------------------ */

static inline int game_move_eq(const game_move *a, const game_move *b) {
  const unsigned char *x = (const unsigned char *)a;
  const unsigned char *y = (const unsigned char *)b;
  for (size_t i = 0; i < sizeof *a; i++)
    if (x[i] != y[i]) return 0;
  return 1;
}

static inline game_outcome game_outcome_ongoing(void) {
  game_outcome o = {GAME_ONGOING, GAME_NOBODY, NULL};
  return o;
}
static inline game_outcome game_outcome_win(int side, const char *reason) {
  game_outcome o = {GAME_WIN, side, reason};
  return o;
}
static inline game_outcome game_outcome_draw(const char *reason) {
  game_outcome o = {GAME_DRAW, GAME_NOBODY, reason};
  return o;
}

/* 64-bit mixing for position hashes (FNV-1a over bytes). */
uint64_t game_hash_bytes(uint64_t h, const void *p, size_t n);
#define GAME_HASH_INIT 0xcbf29ce484222325ULL

/* Name of a side for JSON/text: side_names[side], "chooser" or "nobody". */
const char *game_side_name(const game_vtable *vt, int side);
/* Side index from a name (case-insensitive), or -1. */
int game_side_from_name(const game_vtable *vt, const char *name);

/* Leaf count at depth from st (0 -> 1), bulk-counting the last ply; ignores
 * repetition (as perft does everywhere). */
uint64_t game_perft(const game_vtable *vt, const game_state *st,
                    unsigned depth);

/* ---- match: a game with its history ------------------------------------ */

/* A game in play: the position, the options and seed it came from, the
 * position hashes since the game began (for repetition), and an ending
 * imposed from outside the position (repetition, or game_match_end for
 * resignations, flags, agreements). Caller-owned; hist storage is borrowed
 * and must outlive the match. When hist fills up, its older half is dropped:
 * size it above the longest repetition window you care about. */
typedef struct game_match {
  const game_vtable *vt;
  game_setup setup;
  uint64_t seed;
  int seeded;                /* the start came from the seed (not a position) */
  game_state st;
  uint32_t ply;              /* moves applied through this match */
  uint64_t *hist;
  uint32_t hist_n, hist_cap;
  game_outcome ended;        /* non-ongoing: overrides the position */
  game_move last;
  char last_text[GAME_MOVE_TEXT_MAX];  /* canonical text of the last move */
} game_match;

int game_match_init(game_match *m, const game_setup *setup, uint64_t seed,
                    uint64_t *hist, uint32_t hist_cap, agon_err *err);
int game_match_init_position(game_match *m, const game_setup *setup,
                             const char *pos, size_t len, uint64_t *hist,
                             uint32_t hist_cap, agon_err *err);
/* Parse, check and play a move given as text. On success *out (if not NULL)
 * gets the move and m->last_text its canonical form. AGON_EGAMEOVER once
 * over (including repetition or game_match_end). */
int game_match_play(game_match *m, const char *text, size_t len,
                    game_move *out, agon_err *err);
/* Play a move known legal (e.g. from game_match_legal). */
int game_match_apply(game_match *m, const game_move *mv, agon_err *err);
game_outcome game_match_outcome(const game_match *m);
int game_match_to_move(const game_match *m);
/* Legal moves, none when over. */
int game_match_legal(const game_match *m, game_move *out, size_t cap,
                     size_t *n);
/* End the game from outside the rules (resign, time, agreement). */
void game_match_end(game_match *m, game_outcome o);
/* Client view: the game's to_json plus "game", "ply", "last_move",
 * "outcome" ({"result","winner","reason"} or null) and, for seeded games,
 * "seed_commitment" always and "seed" (a string) once the game is over.
 * New reference. */
json_t *game_match_view(const game_match *m, int viewer);
/* {"result":"win"|"draw","winner":side name|null,"reason":...} or null.
 * New reference. */
json_t *game_outcome_json(const game_vtable *vt, game_outcome o);

#endif
