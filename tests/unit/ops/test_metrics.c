/* test_metrics - the registry: hooks move the right series, histograms are
 * cumulative with +Inf, every sample follows its HELP/TYPE lines. (The
 * integration test parses the whole page strictly.) */
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "test.h"

static int has_line(const char *text, const char *line) {
  size_t n = strlen(line);
  for (const char *p = text; (p = strstr(p, line)) != NULL; p += n)
    if ((p == text || p[-1] == '\n') && p[n] == '\n') return 1;
  return 0;
}

int main(void) {
  metrics_reset();
  metrics_game_started();
  metrics_game_started();
  metrics_game_finished();
  metrics_spectators_add(3);
  metrics_spectators_add(-1);
  metrics_move_acked(2);         /* 2 ms */
  metrics_move_acked_us(400);    /* first bucket */
  metrics_move_acked_us(9000000);/* +Inf only */
  metrics_error(AGON_EILLEGAL);
  metrics_error(AGON_EILLEGAL);
  metrics_error(0);              /* ignored */
  metrics_error(-100000);        /* ignored */
  metrics_ratelimit(METRICS_RL_REQUEST);
  metrics_inc(METRICS_CONNS_ACCEPTED);

  metrics_text t;
  metrics_text_init(&t);
  metrics_render(&t);
  CHECK(!t.overflow);
  CHECK(has_line(t.p, "agon_live_games 1"));
  CHECK(has_line(t.p, "agon_games_started_total 2"));
  CHECK(has_line(t.p, "agon_spectators 2"));
  CHECK(has_line(t.p, "agon_moves_total 3"));
  CHECK(has_line(t.p, "agon_connections_accepted_total 1"));
  CHECK(has_line(t.p, "agon_errors_total{code=\"illegal_move\"} 2"));
  CHECK(has_line(t.p, "agon_errors_total{code=\"bad_json\"} 0"));
  CHECK(has_line(t.p, "agon_rate_limit_hits_total{scope=\"request\"} 1"));
  CHECK(has_line(t.p, "agon_rate_limit_hits_total{scope=\"connect\"} 0"));
  CHECK(has_line(t.p, "# TYPE agon_move_ack_seconds histogram"));
  CHECK(has_line(t.p, "agon_move_ack_seconds_bucket{le=\"0.0005\"} 1"));
  CHECK(has_line(t.p, "agon_move_ack_seconds_bucket{le=\"0.0025\"} 2"));
  CHECK(has_line(t.p, "agon_move_ack_seconds_bucket{le=\"2.5\"} 2"));
  CHECK(has_line(t.p, "agon_move_ack_seconds_bucket{le=\"+Inf\"} 3"));
  CHECK(has_line(t.p, "agon_move_ack_seconds_count 3"));
  CHECK(has_line(t.p, "agon_move_ack_seconds_sum 9.002400"));

  /* Every sample line's family was announced just before (HELP, TYPE). */
  char *copy = strdup(t.p);
  char family[128] = "";
  int samples = 0, orphans = 0;
  for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
    if (strncmp(line, "# TYPE ", 7) == 0) {
      sscanf(line + 7, "%127s", family);
      continue;
    }
    if (line[0] == '#') continue;
    samples++;
    if (strncmp(line, family, strlen(family)) != 0) orphans++;
  }
  free(copy);
  CHECK(samples > 40);
  CHECK_INT(orphans, 0);

  /* The cap: output past HTTP_BODY_MAX is refused, not truncated quietly. */
  for (int i = 0; i < 100000 && !t.overflow; i++)
    metrics_text_printf(&t, "padding_line_%d 0\n", i);
  CHECK(t.overflow);
  metrics_text_free(&t);
  return test_summary();
}
