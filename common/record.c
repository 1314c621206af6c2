/* record.c - game records in text and JSON, and checked replay. */
#include "record.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Endings that come from outside the rules: the position alone cannot
 * confirm them, so replay accepts them on a game the rules call running. */
static const char *const external_reasons[] = {
    "resignation", "timeout", "agreement", "aborted", "abandoned", "claim", NULL,
};

static int is_external_reason(const char *reason) {
  for (size_t i = 0; external_reasons[i]; i++)
    if (strcmp(reason, external_reasons[i]) == 0) return 1;
  return 0;
}

void record_init(game_record *r, const game_vtable *vt) {
  memset(r, 0, sizeof *r);
  r->vt = vt;
  game_setup_init(&r->setup, vt);
  strcpy(r->result, "*");
}

void record_free(game_record *r) {
  free(r->moves);
  r->moves = NULL;
  r->n_moves = r->cap_moves = 0;
}

int record_set_tag(game_record *r, const char *key, const char *value) {
  if (strlen(key) >= RECORD_TAG_KEY_MAX || strlen(value) >= RECORD_TAG_VALUE_MAX)
    return AGON_ETOOLARGE;
  for (size_t i = 0; i < r->n_tags; i++)
    if (strcmp(r->tags[i].key, key) == 0) {
      strcpy(r->tags[i].value, value);
      return 0;
    }
  if (r->n_tags == RECORD_MAX_TAGS) return AGON_ETOOLARGE;
  strcpy(r->tags[r->n_tags].key, key);
  strcpy(r->tags[r->n_tags].value, value);
  r->n_tags++;
  return 0;
}

const char *record_tag_value(const game_record *r, const char *key) {
  for (size_t i = 0; i < r->n_tags; i++)
    if (strcmp(r->tags[i].key, key) == 0) return r->tags[i].value;
  return NULL;
}

int record_add_move(game_record *r, const char *text, const char *side,
                    int64_t clock_ms, int64_t at_ms) {
  if (r->n_moves == RECORD_MAX_MOVES) return AGON_ETOOLARGE;
  if (strlen(text) >= GAME_MOVE_TEXT_MAX || strlen(side) >= 16) return AGON_ETOOLARGE;
  if (r->n_moves == r->cap_moves) {
    size_t cap = r->cap_moves ? r->cap_moves * 2 : 64;
    record_move *mv = realloc(r->moves, cap * sizeof *mv);
    if (mv == NULL) abort(); /* out of memory is the one fatal case */
    r->moves = mv;
    r->cap_moves = cap;
  }
  record_move *m = &r->moves[r->n_moves++];
  strcpy(m->text, text);
  strcpy(m->side, side);
  m->clock_ms = clock_ms;
  m->at_ms = at_ms;
  return 0;
}

/* The tags that mirror fields are rewritten from the fields. */
static void sync_field_tags(game_record *r) {
  char buf[RECORD_TAG_VALUE_MAX];
  record_set_tag(r, "Game", r->vt->name);
  if (game_setup_format(&r->setup, buf, sizeof buf) > 0) record_set_tag(r, "Options", buf);
  if (r->position[0]) {
    record_set_tag(r, "Position", r->position);
  } else if (r->has_seed) {
    char hex[65];
    snprintf(buf, sizeof buf, "%" PRIu64, r->seed);
    record_set_tag(r, "Seed", buf);
    game_seed_commitment(r->seed, hex);
    record_set_tag(r, "SeedCommitment", hex);
  }
  record_set_tag(r, "Result", r->result);
  if (r->reason[0]) record_set_tag(r, "Reason", r->reason);
}

static int from_moves_play(game_record *r, game_match *mp, uint64_t *hist, uint32_t cap,
                           const game_setup *setup, uint64_t seed,
                           const char *const *moves, size_t n_moves, agon_err *err);

int record_from_moves(game_record *r, const game_setup *setup, uint64_t seed,
                      const char *position, const char *const *moves,
                      size_t n_moves, agon_err *err) {
  record_init(r, setup->vt);
  r->setup = *setup;
  if (position && *position) {
    if (strlen(position) >= sizeof r->position)
      return agon_err_set(err, AGON_ETOOLARGE, "position too long");
    strcpy(r->position, position);
  } else {
    r->seed = seed;
    r->has_seed = 1;
  }
  /* Heap, not static: records are built on server reader threads too. */
  uint32_t cap = (uint32_t)n_moves + 1;
  uint64_t *hist = malloc(cap * sizeof *hist);
  game_match *mp = malloc(sizeof *mp);
  if (hist == NULL || mp == NULL) abort();
  int rc = from_moves_play(r, mp, hist, cap, setup, seed, moves, n_moves, err);
  free(hist);
  free(mp);
  return rc;
}

static int from_moves_play(game_record *r, game_match *mp, uint64_t *hist, uint32_t cap,
                           const game_setup *setup, uint64_t seed,
                           const char *const *moves, size_t n_moves, agon_err *err) {
  int rc = r->position[0]
               ? game_match_init_position(mp, setup, r->position, strlen(r->position),
                                          hist, cap, err)
               : game_match_init(mp, setup, seed, hist, cap, err);
  if (rc < 0) return rc;
  for (size_t i = 0; i < n_moves; i++) {
    const char *side = game_side_name(r->vt, game_match_to_move(mp));
    char sidebuf[16];
    snprintf(sidebuf, sizeof sidebuf, "%s", side);
    rc = game_match_play(mp, moves[i], strlen(moves[i]), NULL, err);
    if (rc < 0) return rc;
    if ((rc = record_add_move(r, mp->last_text, sidebuf, -1, -1)) < 0)
      return agon_err_set(err, rc, "too many moves");
  }
  game_outcome o = game_match_outcome(mp);
  if (o.result == GAME_WIN) snprintf(r->result, sizeof r->result, "%s", game_side_name(r->vt, o.winner));
  if (o.result == GAME_DRAW) strcpy(r->result, "draw");
  if (o.reason) snprintf(r->reason, sizeof r->reason, "%s", o.reason);
  sync_field_tags(r);
  return 0;
}

/* ---- text form ---------------------------------------------------------- */

typedef struct sbuf {
  char *p;
  size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL) abort();
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

char *record_to_text(const game_record *r) {
  sbuf b = {0};
  game_record tmp = *r; /* shallow: only tags are rewritten */
  sync_field_tags(&tmp);
  for (size_t i = 0; i < tmp.n_tags; i++) {
    sb_str(&b, "[");
    sb_str(&b, tmp.tags[i].key);
    sb_str(&b, " \"");
    for (const char *c = tmp.tags[i].value; *c; c++) {
      if (*c == '"' || *c == '\\') sb_add(&b, "\\", 1);
      sb_add(&b, c, 1);
    }
    sb_str(&b, "\"]\n");
  }
  sb_str(&b, "\n");
  for (size_t i = 0; i < r->n_moves; i++) {
    const record_move *m = &r->moves[i];
    char line[GAME_MOVE_TEXT_MAX + 96];
    int n = snprintf(line, sizeof line, "%zu. %s %s", i + 1, m->side[0] ? m->side : "?", m->text);
    sb_add(&b, line, (size_t)n);
    if (m->clock_ms >= 0 || m->at_ms >= 0) {
      sb_str(&b, " {");
      if (m->clock_ms >= 0) {
        n = snprintf(line, sizeof line, "clock=%" PRId64, m->clock_ms);
        sb_add(&b, line, (size_t)n);
      }
      if (m->at_ms >= 0) {
        n = snprintf(line, sizeof line, "%sat=%" PRId64, m->clock_ms >= 0 ? " " : "", m->at_ms);
        sb_add(&b, line, (size_t)n);
      }
      sb_str(&b, "}");
    }
    sb_str(&b, "\n");
  }
  if (b.p == NULL) sb_str(&b, "");
  return b.p;
}

/* Apply the tags that carry fields. */
static int tags_to_fields(game_record *r, agon_err *err) {
  const char *g = record_tag_value(r, "Game");
  if (g == NULL) return agon_err_set(err, AGON_EINVAL, "record has no Game tag");
  r->vt = game_find(g);
  if (r->vt == NULL) return agon_err_set(err, AGON_EUNKNOWNGAME, "unknown game '%s'", g);
  game_setup_init(&r->setup, r->vt);
  const char *opts = record_tag_value(r, "Options");
  if (opts) {
    char buf[RECORD_TAG_VALUE_MAX];
    snprintf(buf, sizeof buf, "%s", opts);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
      int rc = game_setup_set_kv(&r->setup, tok, err);
      if (rc < 0) return rc;
    }
  }
  const char *seed = record_tag_value(r, "Seed");
  const char *pos = record_tag_value(r, "Position");
  if (pos) {
    if (strlen(pos) >= sizeof r->position)
      return agon_err_set(err, AGON_ETOOLARGE, "position too long");
    strcpy(r->position, pos);
  } else if (seed) {
    char *end = NULL;
    if (!isdigit((unsigned char)*seed))
      return agon_err_set(err, AGON_EINVAL, "Seed tag is not a number");
    r->seed = strtoull(seed, &end, 10);
    if (*end) return agon_err_set(err, AGON_EINVAL, "Seed tag is not a number");
    r->has_seed = 1;
  } else {
    r->seed = 0;
    r->has_seed = 1; /* no seed: the deterministic start of seed 0 */
  }
  const char *res = record_tag_value(r, "Result");
  snprintf(r->result, sizeof r->result, "%s", res ? res : "*");
  const char *why = record_tag_value(r, "Reason");
  snprintf(r->reason, sizeof r->reason, "%s", why ? why : "");
  return 0;
}

/* Parse "{clock=N at=N ...}" (unknown keys ignored). */
static void parse_comment(const char *s, size_t n, record_move *m) {
  char buf[128];
  if (n >= sizeof buf) n = sizeof buf - 1;
  memcpy(buf, s, n);
  buf[n] = '\0';
  char *save = NULL;
  for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
    if (strncmp(tok, "clock=", 6) == 0) m->clock_ms = strtoll(tok + 6, NULL, 10);
    if (strncmp(tok, "at=", 3) == 0) m->at_ms = strtoll(tok + 3, NULL, 10);
  }
}

int record_parse_text(game_record *r, const char *text, size_t len,
                      size_t *used, agon_err *err) {
  const game_vtable *any = game_registry[0];
  record_init(r, any);
  size_t pos = 0;
  unsigned lineno = 0;
  int in_moves = 0, seen_tag = 0;
  while (pos < len) {
    size_t start = pos;
    while (pos < len && text[pos] != '\n') pos++;
    size_t end = pos;
    if (pos < len) pos++; /* the newline */
    lineno++;
    while (end > start && (text[end - 1] == '\r' || text[end - 1] == ' ' || text[end - 1] == '\t')) end--;
    while (start < end && (text[start] == ' ' || text[start] == '\t')) start++;
    const char *l = text + start;
    size_t n = end - start;
    if (n == 0) {
      if (in_moves) break; /* blank line after the moves ends the record */
      continue;
    }
    if (l[0] == '[') {
      if (in_moves) { /* next record starts */
        pos = start;
        break;
      }
      /* [Key "value"] */
      size_t k = 1;
      char key[RECORD_TAG_KEY_MAX], val[RECORD_TAG_VALUE_MAX];
      size_t kl = 0, vl = 0;
      while (k < n && (isalnum((unsigned char)l[k]) || l[k] == '_')) {
        if (kl + 1 >= sizeof key) return agon_err_set(err, AGON_ETOOLARGE, "line %u: tag name too long", lineno);
        key[kl++] = l[k++];
      }
      key[kl] = '\0';
      while (k < n && l[k] == ' ') k++;
      if (kl == 0 || k >= n || l[k] != '"')
        return agon_err_set(err, AGON_EINVAL, "line %u: tag is not [Key \"value\"]", lineno);
      k++;
      while (k < n && l[k] != '"') {
        if (l[k] == '\\' && k + 1 < n) k++;
        if (vl + 1 >= sizeof val) return agon_err_set(err, AGON_ETOOLARGE, "line %u: tag value too long", lineno);
        val[vl++] = l[k++];
      }
      val[vl] = '\0';
      if (k + 1 >= n || l[k] != '"' || l[k + 1] != ']')
        return agon_err_set(err, AGON_EINVAL, "line %u: unterminated tag", lineno);
      if (record_set_tag(r, key, val) < 0) return agon_err_set(err, AGON_ETOOLARGE, "line %u: too many tags", lineno);
      seen_tag = 1;
      continue;
    }
    if (!seen_tag) return agon_err_set(err, AGON_EINVAL, "line %u: a record starts with tags", lineno);
    in_moves = 1;
    /* N. side move text {comment} */
    size_t k = 0;
    unsigned long num = 0;
    while (k < n && isdigit((unsigned char)l[k])) num = num * 10 + (unsigned long)(l[k++] - '0');
    if (k == 0 || k >= n || l[k] != '.' || num != r->n_moves + 1 || num > RECORD_MAX_MOVES)
      return agon_err_set(err, AGON_EINVAL, "line %u: expected move number %zu", lineno, r->n_moves + 1);
    k++;
    while (k < n && l[k] == ' ') k++;
    char side[16];
    size_t sl = 0;
    while (k < n && l[k] != ' ') {
      if (sl + 1 >= sizeof side) return agon_err_set(err, AGON_EINVAL, "line %u: bad side", lineno);
      side[sl++] = l[k++];
    }
    side[sl] = '\0';
    while (k < n && l[k] == ' ') k++;
    size_t mstart = k, mend = n;
    const char *brace = memchr(l + k, '{', n - k);
    record_move extra = {.clock_ms = -1, .at_ms = -1};
    if (brace) {
      mend = (size_t)(brace - l);
      const char *close = memchr(brace, '}', (size_t)(l + n - brace));
      if (close == NULL) return agon_err_set(err, AGON_EINVAL, "line %u: unterminated {comment}", lineno);
      parse_comment(brace + 1, (size_t)(close - brace - 1), &extra);
    }
    while (mend > mstart && l[mend - 1] == ' ') mend--;
    if (mend == mstart || mend - mstart >= GAME_MOVE_TEXT_MAX)
      return agon_err_set(err, AGON_EINVAL, "line %u: missing or overlong move", lineno);
    char mv[GAME_MOVE_TEXT_MAX];
    memcpy(mv, l + mstart, mend - mstart);
    mv[mend - mstart] = '\0';
    if (record_add_move(r, mv, side, extra.clock_ms, extra.at_ms) < 0)
      return agon_err_set(err, AGON_ETOOLARGE, "line %u: too many moves", lineno);
  }
  if (!seen_tag) return agon_err_set(err, AGON_EINVAL, "no record found");
  if (used) *used = pos;
  return tags_to_fields(r, err);
}

/* ---- JSON form ---------------------------------------------------------- */

json_t *record_to_json(const game_record *r) {
  game_record tmp = *r;
  sync_field_tags(&tmp);
  json_t *tags = json_object();
  for (size_t i = 0; i < tmp.n_tags; i++)
    json_object_set_new(tags, tmp.tags[i].key, json_string(tmp.tags[i].value));
  json_t *moves = json_array();
  for (size_t i = 0; i < r->n_moves; i++) {
    const record_move *m = &r->moves[i];
    json_t *o = json_pack("{s:I, s:s, s:s}", "ply", (json_int_t)(i + 1), "side", m->side,
                          "move", m->text);
    if (m->clock_ms >= 0) json_object_set_new(o, "clock_ms", json_integer(m->clock_ms));
    if (m->at_ms >= 0) json_object_set_new(o, "at_ms", json_integer(m->at_ms));
    json_array_append_new(moves, o);
  }
  char seed[24];
  snprintf(seed, sizeof seed, "%" PRIu64, r->seed);
  return json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:s, s:o}", "game", r->vt->name,
                   "options", game_setup_to_json(&r->setup), "seed",
                   r->has_seed && !r->position[0] ? json_string(seed) : json_null(),
                   "position", r->position[0] ? json_string(r->position) : json_null(),
                   "tags", tags, "result", r->result, "reason", r->reason, "moves", moves);
}

int record_from_json(game_record *r, const json_t *obj, agon_err *err) {
  record_init(r, game_registry[0]);
  const char *game = NULL;
  json_t *tags = NULL, *moves = NULL;
  json_error_t jerr;
  if (json_unpack_ex((json_t *)obj, &jerr, 0, "{s:s, s?o, s:o}", "game", &game, "tags", &tags,
                     "moves", &moves) < 0)
    return agon_err_set(err, AGON_EBADFIELD, "record: %s", jerr.text);
  if (!json_is_array(moves)) return agon_err_set(err, AGON_EBADFIELD, "record: moves must be an array");
  if (tags && !json_is_object(tags)) return agon_err_set(err, AGON_EBADFIELD, "record: tags must be an object");
  const char *key;
  json_t *val;
  if (tags) json_object_foreach(tags, key, val) {
      if (!json_is_string(val) || record_set_tag(r, key, json_string_value(val)) < 0)
        return agon_err_set(err, AGON_EBADFIELD, "record: bad tag %s", key);
    }
  record_set_tag(r, "Game", game);
  /* Fields win over tags when both are present. */
  json_t *v;
  if ((v = json_object_get(obj, "seed")) && json_is_string(v)) record_set_tag(r, "Seed", json_string_value(v));
  if ((v = json_object_get(obj, "position")) && json_is_string(v))
    record_set_tag(r, "Position", json_string_value(v));
  if ((v = json_object_get(obj, "result")) && json_is_string(v)) record_set_tag(r, "Result", json_string_value(v));
  if ((v = json_object_get(obj, "reason")) && json_is_string(v) && *json_string_value(v))
    record_set_tag(r, "Reason", json_string_value(v));
  int rc = tags_to_fields(r, err);
  if (rc < 0) return rc;
  if ((v = json_object_get(obj, "options")) && json_is_object(v)) {
    rc = game_setup_from_json(&r->setup, r->vt, v, err);
    if (rc < 0) return rc;
  }
  size_t i;
  json_array_foreach(moves, i, val) {
    const char *text = NULL, *side = "";
    json_int_t clock = -1, at = -1;
    if (json_unpack_ex(val, &jerr, 0, "{s:s, s?s, s?I, s?I}", "move", &text, "side", &side,
                       "clock_ms", &clock, "at_ms", &at) < 0)
      return agon_err_set(err, AGON_EBADFIELD, "record: move %zu: %s", i + 1, jerr.text);
    if (record_add_move(r, text, side, clock, at) < 0)
      return agon_err_set(err, AGON_ETOOLARGE, "record: move %zu too long or too many moves", i + 1);
  }
  return 0;
}

/* ---- replay ------------------------------------------------------------- */

int record_replay(const game_record *r, game_match *m, uint64_t *hist,
                  uint32_t hist_cap, agon_err *err) {
  int rc = r->position[0]
               ? game_match_init_position(m, &r->setup, r->position, strlen(r->position), hist,
                                          hist_cap, err)
               : game_match_init(m, &r->setup, r->seed, hist, hist_cap, err);
  if (rc < 0) return rc;
  for (size_t i = 0; i < r->n_moves; i++) {
    const record_move *mv = &r->moves[i];
    const char *mover = game_side_name(r->vt, game_match_to_move(m));
    if (mv->side[0] && strcmp(mv->side, "?") != 0 && strcasecmp(mv->side, mover) != 0)
      return agon_err_set(err, AGON_ENOTTURN, "move %zu '%s': record says %s moves, the rules say %s",
                          i + 1, mv->text, mv->side, mover);
    agon_err e2;
    agon_err_clear(&e2);
    rc = game_match_play(m, mv->text, strlen(mv->text), NULL, &e2);
    if (rc < 0)
      return agon_err_set(err, rc, "move %zu '%s': %s: %s", i + 1, mv->text, agon_err_name(rc), e2.msg);
  }
  game_outcome o = game_match_outcome(m);
  if (o.result == GAME_ONGOING) {
    if (strcmp(r->result, "*") != 0 && !is_external_reason(r->reason))
      return agon_err_set(err, AGON_EINVAL,
                          "record says %s (%s) but after %zu moves the game is still running",
                          r->result, r->reason[0] ? r->reason : "no reason", r->n_moves);
    return 0;
  }
  const char *want = o.result == GAME_DRAW ? "draw" : game_side_name(r->vt, o.winner);
  if (strcasecmp(r->result, want) != 0)
    return agon_err_set(err, AGON_EINVAL, "record says %s but the rules say %s (%s)", r->result, want,
                        o.reason);
  if (r->reason[0] && strcmp(r->reason, o.reason) != 0)
    return agon_err_set(err, AGON_EINVAL, "record gives reason %s but the rules say %s", r->reason,
                        o.reason);
  return 0;
}
