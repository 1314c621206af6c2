/* game.c - registry lookup, options, RNG, perft and the match layer. */
#include "game.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- registry ---------------------------------------------------------- */

const game_vtable *game_find(const char *name) {
  if (name == NULL) return NULL;
  for (size_t i = 0; game_registry[i] != NULL; i++)
    if (strcasecmp(game_registry[i]->name, name) == 0) return game_registry[i];
  return NULL;
}

const char *game_side_name(const game_vtable *vt, int side) {
  if (side == GAME_SIDE0 || side == GAME_SIDE1) return vt->side_names[side];
  if (side == GAME_CHOOSER) return "chooser";
  return "nobody";
}

int game_side_from_name(const game_vtable *vt, const char *name) {
  for (int s = 0; s < 2; s++)
    if (strcasecmp(vt->side_names[s], name) == 0) return s;
  return -1;
}

/* ---- options ----------------------------------------------------------- */

/* Index of value in a '|'-separated choice list, or -1. */
static int choice_index(const char *choices, const char *value) {
  size_t vlen = strlen(value);
  int idx = 0;
  for (const char *p = choices;; idx++) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == vlen && strncasecmp(p, value, len) == 0) return idx;
    if (bar == NULL) return -1;
    p = bar + 1;
  }
}

/* Copy choice number idx of choices into out. */
static void choice_text(const char *choices, int idx, char *out, size_t cap) {
  const char *p = choices;
  for (int i = 0; i < idx; i++) p = strchr(p, '|') + 1;
  const char *bar = strchr(p, '|');
  size_t len = bar ? (size_t)(bar - p) : strlen(p);
  if (len >= cap) len = cap - 1;
  memcpy(out, p, len);
  out[len] = '\0';
}

int game_option_index(const game_vtable *vt, const char *name) {
  for (size_t i = 0; i < vt->n_options; i++)
    if (strcasecmp(vt->options[i].name, name) == 0) return (int)i;
  return -1;
}

static int setup_set_index(game_setup *setup, size_t i, const char *value,
                           agon_err *err) {
  const game_option *o = &setup->vt->options[i];
  if (strlen(value) >= GAME_OPT_TEXT_MAX)
    return agon_err_set(err, AGON_EOPTION, "option %s: value too long", o->name);
  switch (o->kind) {
    case GAME_OPT_ENUM: {
      int idx = choice_index(o->choices, value);
      if (idx < 0)
        return agon_err_set(err, AGON_EOPTION, "option %s: '%s' is not one of %s",
                            o->name, value, o->choices);
      setup->ival[i] = idx;
      choice_text(o->choices, idx, setup->text[i], GAME_OPT_TEXT_MAX);
      break;
    }
    case GAME_OPT_INT: {
      char *end = NULL;
      long v = strtol(value, &end, 10);
      if (*value == '\0' || *end != '\0' || v < o->min || v > o->max)
        return agon_err_set(err, AGON_EOPTION,
                            "option %s: '%s' is not an integer in %d..%d",
                            o->name, value, o->min, o->max);
      setup->ival[i] = (int)v;
      snprintf(setup->text[i], GAME_OPT_TEXT_MAX, "%ld", v);
      break;
    }
    case GAME_OPT_TEXT:
      setup->ival[i] = 0;
      snprintf(setup->text[i], GAME_OPT_TEXT_MAX, "%s", value);
      break;
  }
  return 0;
}

void game_setup_init(game_setup *setup, const game_vtable *vt) {
  memset(setup, 0, sizeof *setup);
  setup->vt = vt;
  for (size_t i = 0; i < vt->n_options && i < GAME_MAX_OPTIONS; i++) {
    int rc = setup_set_index(setup, i, vt->options[i].def, NULL);
    (void)rc;
  }
}

int game_setup_set(game_setup *setup, const char *key, const char *value,
                   agon_err *err) {
  int i = game_option_index(setup->vt, key);
  if (i < 0)
    return agon_err_set(err, AGON_EOPTION, "%s has no option '%s'",
                        setup->vt->name, key);
  int rc = setup_set_index(setup, (size_t)i, value, err);
  if (rc == 0) setup->given[i] = 1;
  return rc;
}

int game_setup_set_kv(game_setup *setup, const char *kv, agon_err *err) {
  const char *eq = strchr(kv, '=');
  char key[64];
  if (eq == NULL || eq == kv || (size_t)(eq - kv) >= sizeof key)
    return agon_err_set(err, AGON_EOPTION, "option '%s' is not KEY=VALUE", kv);
  memcpy(key, kv, (size_t)(eq - kv));
  key[eq - kv] = '\0';
  return game_setup_set(setup, key, eq + 1, err);
}

json_t *game_setup_to_json(const game_setup *setup) {
  json_t *obj = json_object();
  for (size_t i = 0; i < setup->vt->n_options; i++) {
    const game_option *o = &setup->vt->options[i];
    json_t *v = o->kind == GAME_OPT_INT ? json_integer(setup->ival[i])
                                        : json_string(setup->text[i]);
    json_object_set_new(obj, o->name, v);
  }
  return obj;
}

int game_setup_from_json(game_setup *setup, const game_vtable *vt,
                         const json_t *obj, agon_err *err) {
  game_setup_init(setup, vt);
  if (obj == NULL || json_is_null(obj)) return 0;
  if (!json_is_object(obj))
    return agon_err_set(err, AGON_EOPTION, "options must be an object");
  const char *key;
  json_t *val;
  json_object_foreach((json_t *)obj, key, val) {
    char buf[GAME_OPT_TEXT_MAX];
    if (json_is_string(val)) {
      snprintf(buf, sizeof buf, "%s", json_string_value(val));
      if (strlen(json_string_value(val)) >= sizeof buf)
        return agon_err_set(err, AGON_EOPTION, "option %s: value too long", key);
    } else if (json_is_integer(val)) {
      snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(val));
    } else {
      return agon_err_set(err, AGON_EOPTION,
                          "option %s: value must be a string or integer", key);
    }
    int rc = game_setup_set(setup, key, buf, err);
    if (rc < 0) return rc;
  }
  return 0;
}

int game_setup_format(const game_setup *setup, char *buf, size_t cap) {
  size_t len = 0;
  if (cap == 0) return AGON_ENOSPACE;
  buf[0] = '\0';
  for (size_t i = 0; i < setup->vt->n_options; i++) {
    if (!setup->given[i]) continue;
    int w = snprintf(buf + len, cap - len, "%s%s=%s", len ? " " : "",
                     setup->vt->options[i].name, setup->text[i]);
    if (w < 0 || (size_t)w >= cap - len) return AGON_ENOSPACE;
    len += (size_t)w;
  }
  return (int)len;
}

json_t *game_options_json(const game_vtable *vt) {
  static const char *const kinds[] = {"enum", "int", "text"};
  json_t *arr = json_array();
  for (size_t i = 0; i < vt->n_options; i++) {
    const game_option *o = &vt->options[i];
    json_t *d = json_pack("{s:s, s:s, s:s, s:s}", "name", o->name, "kind",
                          kinds[o->kind], "default", o->def, "help",
                          o->help ? o->help : "");
    if (o->kind == GAME_OPT_ENUM) {
      json_t *ch = json_array();
      for (const char *p = o->choices; p != NULL;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        json_array_append_new(ch, json_stringn(p, len));
        p = bar ? bar + 1 : NULL;
      }
      json_object_set_new(d, "choices", ch);
    } else if (o->kind == GAME_OPT_INT) {
      json_object_set_new(d, "min", json_integer(o->min));
      json_object_set_new(d, "max", json_integer(o->max));
    }
    json_array_append_new(arr, d);
  }
  return arr;
}

/* ---- randomness -------------------------------------------------------- */

void game_rng_init(game_rng *r, uint64_t seed) { r->s = seed; }

uint64_t game_rng_next(game_rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint32_t game_rng_below(game_rng *r, uint32_t n) {
  /* Rejection sampling: values past the last multiple of n are redrawn so
   * every outcome is equally likely (a plain % would favour small ones). */
  uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
  uint64_t x;
  do x = game_rng_next(r);
  while (x >= limit);
  return (uint32_t)(x % n);
}

void game_seed_commitment(uint64_t seed, char out[65]) {
  char msg[48];
  unsigned char h[crypto_hash_sha256_BYTES];
  int len = snprintf(msg, sizeof msg, "agon-seed:%" PRIu64, seed);
  crypto_hash_sha256(h, (const unsigned char *)msg, (unsigned long long)len);
  sodium_bin2hex(out, 65, h, sizeof h);
}

uint64_t game_hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* ---- perft ------------------------------------------------------------- */

static uint64_t perft_rec(const game_vtable *vt, const game_state *st,
                          unsigned depth) {
  game_move moves[GAME_MAX_MOVES];
  size_t n = 0;
  if (vt->legal_moves(st, moves, GAME_MAX_MOVES, &n) < 0) return 0;
  if (depth == 1) return n;
  uint64_t total = 0;
  game_state child;
  for (size_t i = 0; i < n; i++) {
    memcpy(&child, st, vt->state_size);
    vt->apply(&child, &moves[i], NULL);
    total += perft_rec(vt, &child, depth - 1);
  }
  return total;
}

uint64_t game_perft(const game_vtable *vt, const game_state *st,
                    unsigned depth) {
  if (depth == 0) return 1;
  return perft_rec(vt, st, depth);
}

/* ---- match ------------------------------------------------------------- */

static void match_reset(game_match *m, const game_setup *setup,
                        uint64_t *hist, uint32_t hist_cap) {
  memset(m, 0, sizeof *m);
  m->vt = setup->vt;
  m->setup = *setup;
  m->hist = hist;
  m->hist_cap = hist_cap;
  m->ended = game_outcome_ongoing();
}

static void match_push_hash(game_match *m) {
  if (m->hist == NULL || m->hist_cap == 0) return;
  if (m->hist_n == m->hist_cap) {
    /* Full: keep the newer half. Repetition windows longer than that are
     * not seen; callers size hist for the windows their options allow. */
    uint32_t keep = m->hist_cap / 2;
    memmove(m->hist, m->hist + (m->hist_n - keep), keep * sizeof *m->hist);
    m->hist_n = keep;
  }
  m->hist[m->hist_n++] = m->vt->hash(&m->st);
}

int game_match_init(game_match *m, const game_setup *setup, uint64_t seed,
                    uint64_t *hist, uint32_t hist_cap, agon_err *err) {
  match_reset(m, setup, hist, hist_cap);
  m->seed = seed;
  m->seeded = 1;
  int rc = m->vt->init(&m->st, setup, seed, err);
  if (rc < 0) return rc;
  match_push_hash(m);
  return 0;
}

int game_match_init_position(game_match *m, const game_setup *setup,
                             const char *pos, size_t len, uint64_t *hist,
                             uint32_t hist_cap, agon_err *err) {
  match_reset(m, setup, hist, hist_cap);
  int rc = m->vt->from_position(&m->st, setup, pos, len, err);
  if (rc < 0) return rc;
  match_push_hash(m);
  return 0;
}

game_outcome game_match_outcome(const game_match *m) {
  if (m->ended.result != GAME_ONGOING) return m->ended;
  return m->vt->outcome(&m->st);
}

int game_match_to_move(const game_match *m) {
  if (game_match_outcome(m).result != GAME_ONGOING) return GAME_NOBODY;
  return m->vt->to_move(&m->st);
}

int game_match_legal(const game_match *m, game_move *out, size_t cap,
                     size_t *n) {
  *n = 0;
  if (game_match_outcome(m).result != GAME_ONGOING) return 0;
  return m->vt->legal_moves(&m->st, out, cap, n);
}

void game_match_end(game_match *m, game_outcome o) { m->ended = o; }

/* After a move: count earlier occurrences of the new position inside the
 * game's repetition window and end the game when the limit is reached. */
static void match_check_repetition(game_match *m) {
  unsigned window = 0;
  unsigned limit = m->vt->repetition ? m->vt->repetition(&m->st, &window) : 0;
  if (limit == 0 || m->hist_n == 0) return;
  uint64_t h = m->hist[m->hist_n - 1];
  unsigned seen = 1;
  uint32_t lo = window >= m->hist_n - 1 ? 0 : m->hist_n - 1 - window;
  for (uint32_t i = lo; i + 1 < m->hist_n; i++)
    if (m->hist[i] == h) seen++;
  if (seen >= limit)
    m->ended = m->vt->repetition_outcome ? m->vt->repetition_outcome(&m->st)
                                         : game_outcome_draw("repetition");
}

int game_match_apply(game_match *m, const game_move *mv, agon_err *err) {
  if (game_match_outcome(m).result != GAME_ONGOING)
    return agon_err_set(err, AGON_EGAMEOVER, NULL);
  char text[GAME_MOVE_TEXT_MAX];
  int len = m->vt->format_move(&m->st, mv, text, sizeof text);
  int rc = m->vt->apply(&m->st, mv, err);
  if (rc < 0) return rc;
  m->ply++;
  m->last = *mv;
  if (len >= 0)
    memcpy(m->last_text, text, (size_t)len + 1);
  else
    m->last_text[0] = '\0';
  match_push_hash(m);
  match_check_repetition(m);
  return 0;
}

int game_match_play(game_match *m, const char *text, size_t len,
                    game_move *out, agon_err *err) {
  if (game_match_outcome(m).result != GAME_ONGOING)
    return agon_err_set(err, AGON_EGAMEOVER, NULL);
  game_move mv;
  int rc = m->vt->parse_move(&m->st, text, len, &mv, err);
  if (rc < 0) return rc;
  rc = game_match_apply(m, &mv, err);
  if (rc == 0 && out) *out = mv;
  return rc;
}

json_t *game_outcome_json(const game_vtable *vt, game_outcome o) {
  if (o.result == GAME_ONGOING) return json_null();
  return json_pack("{s:s, s:o, s:s}", "result",
                   o.result == GAME_WIN ? "win" : "draw", "winner",
                   o.result == GAME_WIN ? json_string(game_side_name(vt, o.winner))
                                        : json_null(),
                   "reason", o.reason ? o.reason : "");
}

json_t *game_match_view(const game_match *m, int viewer) {
  json_t *v = m->vt->to_json(&m->st, viewer);
  if (v == NULL) v = json_object();
  game_outcome o = game_match_outcome(m);
  json_object_set_new(v, "game", json_string(m->vt->name));
  json_object_set_new(v, "ply", json_integer(m->ply));
  json_object_set_new(v, "last_move",
                      m->ply ? json_string(m->last_text) : json_null());
  json_object_set_new(v, "outcome", game_outcome_json(m->vt, o));
  if (o.result != GAME_ONGOING)
    json_object_set_new(v, "to_move", json_null());
  if (m->seeded) {
    char hex[65];
    game_seed_commitment(m->seed, hex);
    json_object_set_new(v, "seed_commitment", json_string(hex));
    if (o.result != GAME_ONGOING) {
      char s[24];
      snprintf(s, sizeof s, "%" PRIu64, m->seed);
      json_object_set_new(v, "seed", json_string(s));
    }
  }
  return v;
}
