/* fuzz_proxyproto - pp_parse on arbitrary bytes. Invariants: a complete
 * header's length is within the input and bounded; parsing exactly that
 * prefix gives the same answer; an incomplete verdict asks for at least one
 * byte and never beyond the largest header; a reader feeding exactly *need
 * bytes at a time reaches the same verdict without reading past it. */
#include <stdint.h>
#include <stdlib.h>

#include "limits_ops.h"
#include "proxyproto.h"

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pp_info o;
  size_t need = 0;
  long r = pp_parse(data, size, &o, &need);
  if (r > 0) {
    REQUIRE((size_t)r <= size && (size_t)r <= PP_HDR_MAX);
    REQUIRE(o.len == (size_t)r && (o.version == 1 || o.version == 2));
    pp_info o2;
    REQUIRE(pp_parse(data, (size_t)r, &o2, NULL) == r);
  } else if (r == 0) {
    REQUIRE(need >= 1 && size + need <= PP_HDR_MAX);
  }
  /* Incremental reading. */
  size_t have = 0;
  long ri = pp_parse(data, 0, &o, &need);
  while (ri == 0 && have + need <= size) {
    have += need;
    ri = pp_parse(data, have, &o, &need);
  }
  if (ri > 0) REQUIRE(ri == r && (size_t)ri == have);
  if (ri < 0) REQUIRE(r < 0);
  if (ri == 0) REQUIRE(r <= 0);
  return 0;
}
