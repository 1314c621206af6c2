/* spectate.c - spectator lists and chat rows: see spectate.h. */
#include "spectate.h"

#include <string.h>

#include "agon_err.h"
#include "db.h"
#include "limits.h"
#include "metrics.h"
#include "server_int.h"
#include "util.h"

spec_att *spec_find(conn *c, const struct room *r) {
  for (spec_att *a = c->specs; a; a = a->cnext)
    if (a->r == r) return a;
  return NULL;
}

int spec_add(spec_list *l, struct room *r, conn *c, spec_att **out) {
  spec_att *a = spec_find(c, r);
  if (a == NULL) {
    if (l->n >= SPEC_MAX_PER_ROOM || c->nspecs >= CONN_MAX_WATCH)
      return AGON_ETOOLARGE;
    a = xcalloc(1, sizeof *a);
    a->r = r;
    a->c = c;
    a->rnext = l->head;
    if (l->head) l->head->rprev = a;
    l->head = a;
    l->n++;
    a->cnext = c->specs;
    c->specs = a;
    c->nspecs++;
    metrics_spectators_add(1);
  }
  if (out) *out = a;
  return 0;
}

void spec_remove(spec_list *l, spec_att *a) {
  if (a->rprev) a->rprev->rnext = a->rnext;
  else l->head = a->rnext;
  if (a->rnext) a->rnext->rprev = a->rprev;
  l->n--;
  spec_att **pp = &a->c->specs;
  while (*pp && *pp != a) pp = &(*pp)->cnext;
  if (*pp) *pp = a->cnext;
  a->c->nspecs--;
  if (a->lagging) a->c->nlagging--;
  metrics_spectators_add(-1);
  free(a);
}

void spec_broadcast(spec_list *l, wbuf *b, spec_snapshot_fn snap) {
  wbuf *sb = NULL;  /* the snapshot, built on the first resync only */
  spec_att *next;
  for (spec_att *a = l->head; a; a = next) {
    /* conn_send may close a->c (hard cap), which removes a (only a): keep
     * the successor first. */
    next = a->rnext;
    conn *c = a->c;
    if (c->closing || c->ending) continue;
    const struct server *s = c->srv;
    if (a->lagging) {
      if (c->wq_bytes > s->cfg.wq_low) continue;  /* still draining */
      if (sb == NULL && snap) sb = snap(a->r);
      if (sb == NULL) continue;
      a->lagging = 0;
      c->nlagging--;
      conn_send(c, sb);
      continue;
    }
    if (c->wq_bytes > s->cfg.wq_high) {
      /* Not reading: skip it forward rather than queue (memory) or wait
       * (the game). */
      a->lagging = 1;
      c->nlagging++;
      continue;
    }
    conn_send(c, b);
  }
  wbuf_unref(sb);
}

void spec_resync(spec_att *a, spec_snapshot_fn snap) {
  if (!a->lagging) return;
  wbuf *b = snap(a->r);
  if (b == NULL) return;
  a->lagging = 0;
  a->c->nlagging--;
  conn_send(a->c, b);
  wbuf_unref(b);
}

int spec_count_due(spec_list *l, uint64_t now_ms) {
  if (l->n == l->count_sent) return 0;
  if (l->count_sent_ms && now_ms < l->count_sent_ms + SPEC_COUNT_MIN_MS) return 0;
  l->count_sent = l->n;
  l->count_sent_ms = now_ms ? now_ms : 1;
  return 1;
}

int spec_chat_text_ok(const char *text) {
  size_t n = strlen(text);
  if (n == 0 || n > CHAT_MAX_TEXT) return AGON_EBADFIELD;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f) return AGON_EBADFIELD;
  return 0;
}

int spec_chat_job(sqlite3 *sq, void *ctx) {
  spec_chat_row *w = ctx;
  sqlite3_stmt *st = db_stmt(sq,
      "INSERT INTO chat(game_id, room, player_id, text, at_ms) "
      "VALUES (?1, ?2, ?3, ?4, ?5)");
  if (st == NULL) return AGON_ESTORAGE;
  sqlite3_bind_int64(st, 1, w->game_id);
  sqlite3_bind_text(st, 2, w->room, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, w->player_id);
  sqlite3_bind_text(st, 4, w->text, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 5, w->at_ms);
  if (sqlite3_step(st) != SQLITE_DONE) return AGON_ESTORAGE;
  w->chat_id = sqlite3_last_insert_rowid(sq);
  return 0;
}

/* ---- spectator delay ------------------------------------------------------ */

static void delay_timer_cb(uv_timer_t *t) { spec_delay_pump(t->data); }

static void delay_closed_cb(uv_handle_t *h) { free(h->data); }

spec_delay *spec_delay_new(uv_loop_t *loop, struct room *r, uint32_t plies,
                           uint64_t ms, spec_release_fn release) {
  spec_delay *d = xcalloc(1, sizeof *d);
  d->r = r;
  d->plies = plies;
  d->ms = ms;
  d->release = release;
  uv_timer_init(loop, &d->timer);
  d->timer.data = d;
  return d;
}

void spec_delay_free(spec_delay *d) {
  if (d == NULL) return;
  while (d->n) {
    wbuf_unref(d->q[d->head].b);
    d->head = (d->head + 1) % SPEC_DELAY_QUEUE_MAX;
    d->n--;
  }
  uv_timer_stop(&d->timer);
  uv_close((uv_handle_t *)&d->timer, delay_closed_cb);
}

static int delay_due(const spec_delay *d, const spec_delay_ev *e, uint64_t now) {
  if (d->plies && !d->ended && e->ply + d->plies > d->cur_ply) return 0;
  if (d->ms && now < e->due_ms) return 0;
  return 1;
}

static void delay_pop(spec_delay *d) {
  spec_delay_ev *e = &d->q[d->head];
  d->head = (d->head + 1) % SPEC_DELAY_QUEUE_MAX;
  d->n--;
  d->vis_seq = e->seq;
  d->release(d->r, e);  /* may broadcast: e stays valid (slot not reused) */
  wbuf_unref(e->b);
  e->b = NULL;
}

void spec_delay_pump(spec_delay *d) {
  uint64_t now = uv_now(d->timer.loop);
  while (d->n && delay_due(d, &d->q[d->head], now)) delay_pop(d);
  uv_timer_stop(&d->timer);
  if (d->n && d->ms) {
    const spec_delay_ev *e = &d->q[d->head];
    if (!d->plies || d->ended || e->ply + d->plies <= d->cur_ply)
      uv_timer_start(&d->timer, delay_timer_cb, e->due_ms > now ? e->due_ms - now : 0, 0);
  }
}

void spec_delay_push(spec_delay *d, wbuf *b, uint32_t seq, uint32_t ply,
                     int is_move, int is_end, const char *move, int timed,
                     const int64_t clock_ms[2], uint64_t due_ms) {
  if (d->n == SPEC_DELAY_QUEUE_MAX) delay_pop(d);  /* bounded: release early */
  spec_delay_ev *e = &d->q[(d->head + d->n) % SPEC_DELAY_QUEUE_MAX];
  memset(e, 0, sizeof *e);
  e->b = wbuf_ref(b);
  e->seq = seq;
  e->ply = ply;
  e->due_ms = due_ms;
  e->is_move = (uint8_t)is_move;
  e->is_end = (uint8_t)is_end;
  e->timed = (uint8_t)timed;
  if (clock_ms) memcpy(e->clock_ms, clock_ms, sizeof e->clock_ms);
  if (move) snprintf(e->move, sizeof e->move, "%s", move);
  d->n++;
  if (is_move && ply > d->cur_ply) d->cur_ply = ply;
  if (is_end) d->ended = 1;
  spec_delay_pump(d);
}
