/* gambo_common.c - see gambo_common.h. */
#include "gambo_common.h"

#include <string.h>

#include "../game.h"

static const char *const gambo_names[10] = {"--", "E1", "E2", "E3", "C1",
                                            "C2", "C3", "M1", "M2", "M3"};

int gambo_parse_row(const char *name, const char *text, uint8_t row[9],
                    agon_err *err) {
  size_t len = strlen(text), i = 0;
  int n = 0;
  unsigned seen = 0;
  while (i < len) {
    char ch = text[i];
    if (ch == ',' || ch == ' ' || ch == '\t') {
      i++;
      continue;
    }
    int code = gambo_piece_from(text + i, len - i);
    if (!code)
      return agon_err_set(err, AGON_EOPTION,
                          "option %s: '%s' is not a list of nine pieces E1..M3", name,
                          text);
    if (n == GAMBO_NPIECES)
      return agon_err_set(err, AGON_EOPTION, "option %s: more than nine pieces", name);
    if (seen & (1u << code))
      return agon_err_set(err, AGON_EOPTION, "option %s: %s appears twice", name,
                          gambo_names[code]);
    seen |= 1u << code;
    row[n++] = (uint8_t)code;
    i += 2;
  }
  if (n != GAMBO_NPIECES)
    return agon_err_set(err, AGON_EOPTION,
                        "option %s: needs nine pieces (E1..E3, C1..C3, M1..M3), got %d",
                        name, n);
  return 0;
}

void gambo_deal(uint64_t seed, uint8_t rows[2][9]) {
  game_rng r;
  game_rng_init(&r, seed);
  for (int s = 0; s < 2; s++) {
    for (int i = 0; i < GAMBO_NPIECES; i++) rows[s][i] = (uint8_t)(i + 1);
    for (int i = GAMBO_NPIECES - 1; i >= 1; i--) {
      uint32_t j = game_rng_below(&r, (uint32_t)i + 1);
      uint8_t t = rows[s][i];
      rows[s][i] = rows[s][j];
      rows[s][j] = t;
    }
  }
}
