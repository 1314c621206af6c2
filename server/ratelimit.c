#include "ratelimit.h"

#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "util.h"

void rl_init(rl_bucket *b, double burst, uint64_t now) {
  b->tokens = burst;
  b->last_ms = now;
}

uint64_t rl_take(rl_bucket *b, double rate, double burst, uint64_t now) {
  if (rate <= 0) return 0;
  if (now > b->last_ms) {
    b->tokens += (double)(now - b->last_ms) * rate / 1000.0;
    if (b->tokens > burst) b->tokens = burst;
    b->last_ms = now;
  }
  if (b->tokens >= 1.0) {
    b->tokens -= 1.0;
    return 0;
  }
  double wait = (1.0 - b->tokens) * 1000.0 / rate;
  uint64_t ms = (uint64_t)wait + 1;
  return ms;
}

struct rl_table {
  size_t count;
  rl_addr slot[ADDR_TABLE_SLOTS];
};

rl_table *rl_table_new(void) { return xcalloc(1, sizeof(rl_table)); }
void rl_table_free(rl_table *t) { free(t); }
size_t rl_table_count(const rl_table *t) { return t->count; }

static uint32_t hash16(const unsigned char *k) {
  uint32_t h = 2166136261u;  /* FNV-1a */
  for (int i = 0; i < 16; i++) h = (h ^ k[i]) * 16777619u;
  return h;
}

rl_addr *rl_table_get(rl_table *t, const unsigned char key[16], double burst,
                      uint64_t now) {
  size_t base = hash16(key) % ADDR_TABLE_SLOTS;
  rl_addr *free_slot = NULL, *victim = NULL;
  for (size_t i = 0; i < ADDR_TABLE_PROBE; i++) {
    rl_addr *e = &t->slot[(base + i) % ADDR_TABLE_SLOTS];
    if (!e->used) {
      if (free_slot == NULL) free_slot = e;
      continue;
    }
    if (memcmp(e->key, key, 16) == 0) {
      e->seen_ms = now;
      return e;
    }
    if (e->conns == 0 && (victim == NULL || e->seen_ms < victim->seen_ms))
      victim = e;
  }
  /* Not found. No deletion marks are needed: entries are never removed
   * outright, only replaced in place, so a probe never stops early. */
  rl_addr *e = free_slot ? free_slot : victim;
  if (e == NULL) return NULL;
  if (!e->used) t->count++;
  memset(e, 0, sizeof *e);
  memcpy(e->key, key, 16);
  e->used = 1;
  e->seen_ms = now;
  rl_init(&e->bucket, burst, now);
  return e;
}
