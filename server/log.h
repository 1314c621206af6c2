/* log.h - one line per event on stderr, with a UTC timestamp and a level:
 *   2026-11-22T02:50:00.123Z INFO conn 12: accepted from 127.0.0.1:5555
 * Thread-safe (one fprintf per line; stdio locks the stream). stdout is kept
 * for the single "listening on ..." line tests parse. */
#ifndef AGON_LOG_H
#define AGON_LOG_H

enum log_level { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Messages above this level are dropped. Default LOG_INFO. */
void log_set_level(int level);
int log_get_level(void);
/* "error", "warn", "info", "debug" -> level; -1 if unknown. */
int log_level_from_name(const char *name);

void log_msg(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) \
  do { if (log_get_level() >= LOG_INFO) log_msg(LOG_INFO, __VA_ARGS__); } while (0)
#define log_debug(...) \
  do { if (log_get_level() >= LOG_DEBUG) log_msg(LOG_DEBUG, __VA_ARGS__); } while (0)

#endif
