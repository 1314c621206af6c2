/* clock.c - see clock.h. */
#include "clock.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int clock_tc_parse(clock_tc *tc, const char *text, agon_err *err) {
  memset(tc, 0, sizeof *tc);
  if (strcmp(text, "untimed") == 0 || strcmp(text, "-") == 0) return 0;
  if (strncmp(text, "corr:", 5) == 0) {
    char *end = NULL;
    long days = strtol(text + 5, &end, 10);
    if (end == text + 5 || *end || days < 1 || days > CLOCK_MAX_CORR_DAYS)
      return agon_err_set(err, AGON_EINVAL, "correspondence time must be corr:1..corr:%d (days per move)",
                          CLOCK_MAX_CORR_DAYS);
    tc->kind = CLOCK_CORRESPONDENCE;
    tc->base_ms = days * 24LL * 3600 * 1000;
    return 0;
  }
  char *end = NULL;
  double minutes = strtod(text, &end);
  if (end == text || *end != '+')
    return agon_err_set(err, AGON_EINVAL, "time control '%s' is not untimed, MIN+SEC or corr:DAYS", text);
  const char *inc_s = end + 1;
  long inc = strtol(inc_s, &end, 10);
  if (end == inc_s || *end) return agon_err_set(err, AGON_EINVAL, "increment must be whole seconds");
  int64_t base = (int64_t)(minutes * 60000.0 + 0.5);
  if (!(minutes > 0) || base > CLOCK_MAX_BASE_MS || inc < 0 || inc * 1000LL > CLOCK_MAX_INC_MS)
    return agon_err_set(err, AGON_EINVAL, "time control out of range (base up to 24 h, increment up to 1 h)");
  tc->kind = CLOCK_FISCHER;
  tc->base_ms = base;
  tc->inc_ms = inc * 1000LL;
  return 0;
}

void clock_tc_format(const clock_tc *tc, char *buf, unsigned long cap) {
  switch (tc->kind) {
    case CLOCK_UNTIMED:
      snprintf(buf, cap, "untimed");
      break;
    case CLOCK_CORRESPONDENCE:
      snprintf(buf, cap, "corr:%" PRId64, (int64_t)(tc->base_ms / (24LL * 3600 * 1000)));
      break;
    case CLOCK_FISCHER:
      if (tc->base_ms % 60000 == 0)
        snprintf(buf, cap, "%" PRId64 "+%" PRId64, (int64_t)(tc->base_ms / 60000), (int64_t)(tc->inc_ms / 1000));
      else
        snprintf(buf, cap, "%g+%" PRId64, (double)tc->base_ms / 60000.0, (int64_t)(tc->inc_ms / 1000));
      break;
  }
}

void clock_init(game_clock *c, const clock_tc *tc) {
  memset(c, 0, sizeof *c);
  c->tc = *tc;
  c->remaining[0] = c->remaining[1] = tc->kind == CLOCK_UNTIMED ? 0 : tc->base_ms;
  c->running = -1;
}

void clock_start(game_clock *c, int seat, int64_t now) {
  c->running = seat;
  c->since = now;
}

static void charge(game_clock *c, int64_t now) {
  if (c->running < 0) return;
  if (c->tc.kind != CLOCK_UNTIMED) c->remaining[c->running] -= now - c->since;
  c->since = now;
}

int64_t clock_switch(game_clock *c, int next, int64_t now) {
  int mover = c->running;
  charge(c, now);
  int64_t left = mover >= 0 ? c->remaining[mover] : 0;
  if (mover >= 0 && left > 0) {
    if (c->tc.kind == CLOCK_FISCHER) c->remaining[mover] += c->tc.inc_ms;
    if (c->tc.kind == CLOCK_CORRESPONDENCE) c->remaining[mover] = c->tc.base_ms;
  }
  c->running = next;
  c->since = now;
  if (c->tc.kind == CLOCK_UNTIMED) return 1; /* never falls */
  return left;
}

void clock_stop(game_clock *c, int64_t now) {
  charge(c, now);
  c->running = -1;
}

int64_t clock_remaining(const game_clock *c, int seat, int64_t now) {
  int64_t r = c->remaining[seat];
  if (c->tc.kind != CLOCK_UNTIMED && c->running == seat) r -= now - c->since;
  return r;
}

int64_t clock_flag_in(const game_clock *c, int64_t now) {
  if (c->running < 0 || c->tc.kind == CLOCK_UNTIMED) return -1;
  int64_t r = clock_remaining(c, c->running, now);
  return r < 0 ? 0 : r;
}
