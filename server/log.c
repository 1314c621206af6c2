#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Written once at start-up before threads exist; read everywhere. */
static int log_level = LOG_INFO;
static const char *const level_names[] = {"ERROR", "WARN", "INFO", "DEBUG"};

void log_set_level(int level) { log_level = level; }
int log_get_level(void) { return log_level; }

int log_level_from_name(const char *name) {
  for (int i = 0; i <= LOG_DEBUG; i++)
    if (strcasecmp(name, level_names[i]) == 0) return i;
  if (strcasecmp(name, "warning") == 0) return LOG_WARN;
  return -1;
}

void log_msg(int level, const char *fmt, ...) {
  if (level > log_level) return;
  if (level < 0) level = 0;
  if (level > LOG_DEBUG) level = LOG_DEBUG;
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  char line[1024];
  int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s ",
                   tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                   tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
                   level_names[level]);
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && (size_t)n < sizeof line)
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  /* One line per event: a message never spans lines. */
  for (char *p = line; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  fprintf(stderr, "%s\n", line);
}
