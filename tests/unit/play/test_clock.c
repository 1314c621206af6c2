/* test_clock.c - clock arithmetic: Fischer increments, flag fall, the
 * correspondence reset, untimed, and time-control parsing. */
#include "../../../server/clock.h"
#include "test.h"

int main(void) {
  clock_tc tc;
  agon_err err;
  char buf[32];
  CHECK_INT(clock_tc_parse(&tc, "5+3", &err), 0);
  CHECK_INT(tc.kind, CLOCK_FISCHER);
  CHECK_INT(tc.base_ms, 300000);
  CHECK_INT(tc.inc_ms, 3000);
  clock_tc_format(&tc, buf, sizeof buf);
  CHECK_STR(buf, "5+3");
  CHECK_INT(clock_tc_parse(&tc, "0.5+0", &err), 0);
  CHECK_INT(tc.base_ms, 30000);
  clock_tc_format(&tc, buf, sizeof buf);
  CHECK_STR(buf, "0.5+0");
  CHECK_INT(clock_tc_parse(&tc, "corr:3", &err), 0);
  CHECK_INT(tc.kind, CLOCK_CORRESPONDENCE);
  clock_tc_format(&tc, buf, sizeof buf);
  CHECK_STR(buf, "corr:3");
  CHECK_INT(clock_tc_parse(&tc, "untimed", &err), 0);
  CHECK_INT(tc.kind, CLOCK_UNTIMED);
  const char *bad[] = {"", "5", "5+", "+3", "-1+0", "0+0", "5+-1", "5+3x", "corr:0", "corr:31",
                       "corr:", "100000+0", "5+4000"};
  for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK_MSG(clock_tc_parse(&tc, bad[i], &err) == AGON_EINVAL, "accepted '%s'", bad[i]);

  /* Fischer 1+2: seat 0 thinks 10 s, seat 1 thinks 70 s (flag). */
  game_clock c;
  clock_tc_parse(&tc, "1+2", &err);
  clock_init(&c, &tc);
  clock_start(&c, 0, 1000);
  CHECK_INT(clock_remaining(&c, 0, 6000), 55000);
  CHECK_INT(clock_flag_in(&c, 6000), 55000);
  CHECK_INT(clock_switch(&c, 1, 11000), 50000);
  CHECK_INT(clock_remaining(&c, 0, 11000), 52000); /* + increment */
  CHECK_INT(clock_remaining(&c, 1, 11000), 60000);
  CHECK_INT(clock_flag_in(&c, 71000), 0);
  CHECK(clock_switch(&c, 0, 81000) <= 0);          /* too late: flag fell */
  CHECK_INT(clock_remaining(&c, 1, 81000), -10000); /* no increment after a fall */
  clock_stop(&c, 90000);
  CHECK_INT(clock_remaining(&c, 0, 99999), 52000 - 9000);
  CHECK_INT(clock_flag_in(&c, 99999), -1);

  /* The same seat twice in a row (Gambo): charged and incremented each time. */
  clock_init(&c, &tc);
  clock_start(&c, 0, 0);
  CHECK_INT(clock_switch(&c, 0, 5000), 55000);
  CHECK_INT(clock_switch(&c, 1, 8000), 54000);
  CHECK_INT(clock_remaining(&c, 0, 8000), 56000);

  /* Correspondence: the time resets to the full allowance after a move. */
  clock_tc_parse(&tc, "corr:1", &err);
  clock_init(&c, &tc);
  clock_start(&c, 1, 0);
  CHECK_INT(clock_switch(&c, 0, 3600000), 86400000 - 3600000);
  CHECK_INT(clock_remaining(&c, 1, 3600000), 86400000);

  /* Untimed: never falls, no timer. */
  clock_tc_parse(&tc, "untimed", &err);
  clock_init(&c, &tc);
  clock_start(&c, 0, 0);
  CHECK_INT(clock_flag_in(&c, 1000000000), -1);
  CHECK(clock_switch(&c, 1, 1000000000) > 0);
  return test_summary();
}
