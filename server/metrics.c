/* metrics.c - registry storage and Prometheus text rendering. */
#include "metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits_ops.h"
#include "util.h"

/* Move acknowledgement latency: from the move line read to its reply
 * written after COMMIT. Group commit with synchronous=FULL costs one fsync
 * (0.1-10 ms on SSDs, tens of ms on disks), so buckets span 0.5 ms to 2.5 s. */
#define MOVE_ACK_BUCKETS                                                      \
  {500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,       \
   1000000, 2500000}

metrics_registry metrics_g = {
    .move_ack = {"agon_move_ack_seconds",
                 "Time from a move's arrival to its acknowledgement (stored).",
                 12, MOVE_ACK_BUCKETS, {0}, 0, 0},
};

void metrics_observe(metrics_histogram *h, uint64_t us) {
  unsigned i = 0;
  while (i < h->nbuckets && us > h->bound_us[i]) i++;
  h->count[i]++;
  h->sum_us += us;
  h->n++;
}

void metrics_reset(void) {
  memset(metrics_g.counters, 0, sizeof metrics_g.counters);
  memset(metrics_g.gauges, 0, sizeof metrics_g.gauges);
  memset(metrics_g.errors, 0, sizeof metrics_g.errors);
  memset(metrics_g.ratelimit, 0, sizeof metrics_g.ratelimit);
  memset(metrics_g.move_ack.count, 0, sizeof metrics_g.move_ack.count);
  metrics_g.move_ack.sum_us = metrics_g.move_ack.n = 0;
}

/* ---- text --------------------------------------------------------------- */

void metrics_text_init(metrics_text *t) {
  t->cap = 4096;
  t->p = xmalloc(t->cap);
  t->p[0] = '\0';
  t->len = 0;
  t->overflow = 0;
}

void metrics_text_free(metrics_text *t) {
  free(t->p);
  t->p = NULL;
  t->len = t->cap = 0;
}

void metrics_text_printf(metrics_text *t, const char *fmt, ...) {
  if (t->overflow) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      t->overflow = 1;
      return;
    }
    if ((size_t)n < t->cap - t->len) {
      t->len += (size_t)n;
      return;
    }
    size_t want = t->len + (size_t)n + 1;
    if (want > HTTP_BODY_MAX) {
      t->p[t->len] = '\0';
      t->overflow = 1;
      return;
    }
    size_t cap = t->cap * 2;
    while (cap < want) cap *= 2;
    char *np = xmalloc(cap);
    memcpy(np, t->p, t->len + 1);
    free(t->p);
    t->p = np;
    t->cap = cap;
  }
}

void metrics_text_family(metrics_text *t, const char *name, const char *type,
                         const char *help) {
  /* Help texts are our own literals: no backslash or newline to escape. */
  metrics_text_printf(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void metrics_text_gauge(metrics_text *t, const char *name, const char *help,
                        double v) {
  metrics_text_family(t, name, "gauge", help);
  metrics_text_printf(t, "%s %.17g\n", name, v);
}

void metrics_text_counter(metrics_text *t, const char *name, const char *help,
                          double v) {
  metrics_text_family(t, name, "counter", help);
  metrics_text_printf(t, "%s %.17g\n", name, v);
}

static void render_histogram(metrics_text *t, const metrics_histogram *h) {
  metrics_text_family(t, h->name, "histogram", h->help);
  uint64_t cum = 0;
  for (unsigned i = 0; i < h->nbuckets; i++) {
    cum += h->count[i];
    metrics_text_printf(t, "%s_bucket{le=\"%g\"} %llu\n", h->name,
                        (double)h->bound_us[i] / 1e6, (unsigned long long)cum);
  }
  cum += h->count[h->nbuckets];
  metrics_text_printf(t, "%s_bucket{le=\"+Inf\"} %llu\n", h->name,
                      (unsigned long long)cum);
  metrics_text_printf(t, "%s_sum %.6f\n%s_count %llu\n", h->name,
                      (double)h->sum_us / 1e6, h->name,
                      (unsigned long long)h->n);
}

void metrics_render(metrics_text *t) {
#define C(id, name, help) \
  metrics_text_counter(t, name, help, (double)metrics_g.counters[METRICS_##id]);
  METRICS_COUNTERS(C)
#undef C
#define G(id, name, help) \
  metrics_text_gauge(t, name, help, (double)metrics_g.gauges[METRICS_##id]);
  METRICS_GAUGES(G)
#undef G
  metrics_text_family(t, "agon_errors_total", "counter",
                      "Error replies sent to clients, by error code.");
  /* Every code, zeros included: a series that appears late breaks rate(). */
  for (int i = 0; i < AGON__I_COUNT; i++)
    metrics_text_printf(t, "agon_errors_total{code=\"%s\"} %llu\n",
                        agon_err_name(-(i + 1)),
                        (unsigned long long)metrics_g.errors[i]);
  metrics_text_family(t, "agon_rate_limit_hits_total", "counter",
                      "Requests or connections refused by a rate or connection "
                      "limit, by scope.");
  static const char *const scopes[] = {
#define S(id, label) label,
      METRICS_RL_SCOPES(S)
#undef S
  };
  for (int i = 0; i < METRICS_NRL; i++)
    metrics_text_printf(t, "agon_rate_limit_hits_total{scope=\"%s\"} %llu\n",
                        scopes[i], (unsigned long long)metrics_g.ratelimit[i]);
  render_histogram(t, &metrics_g.move_ack);
}
