/* ratelimit.h - token buckets and the per-address table.
 *
 * Times are loop milliseconds (uv_now): monotonic, cached per iteration,
 * no syscall per request. */
#ifndef AGON_RATELIMIT_H
#define AGON_RATELIMIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct rl_bucket {
  double tokens;
  uint64_t last_ms;
} rl_bucket;

/* Full bucket at now. */
void rl_init(rl_bucket *b, double burst, uint64_t now);
/* Take one token (refill at rate/s up to burst first). Returns 0 when taken,
 * else the milliseconds until one is available (>= 1). rate <= 0: no limit. */
uint64_t rl_take(rl_bucket *b, double rate, double burst, uint64_t now);

/* Per-address state: a bucket shared by every connection of one IP and the
 * number of its open connections. Fixed-size table (ADDR_TABLE_SLOTS). */
typedef struct rl_addr {
  unsigned char key[16];   /* IPv4-mapped or IPv6 bytes */
  uint32_t conns;          /* open connections from this address */
  uint8_t used;
  rl_bucket bucket;
  uint64_t seen_ms;        /* last use, for eviction */
} rl_addr;

typedef struct rl_table rl_table;

rl_table *rl_table_new(void);
void rl_table_free(rl_table *t);
/* Entry for key (16 bytes), created with a full bucket if absent. NULL when
 * the probe window is full of addresses with open connections (refuse the
 * peer). The pointer stays valid while the entry has conns > 0. */
rl_addr *rl_table_get(rl_table *t, const unsigned char key[16], double burst,
                      uint64_t now);
size_t rl_table_count(const rl_table *t);

#endif
