/* agon_err.h - error codes shared by every layer, and the error detail type.
 *
 * Every fallible call returns 0 on success or a negative AGON_E* code, and may
 * fill an agon_err with a human message (like jansson's json_error_t). The
 * wire name of a code (its snake_case string) is stable: clients match on it.
 * One X-macro generates the enum and the names, as libuv's UV_ERRNO_MAP does.
 * Append new codes at the end of their group; never renumber or rename.
 */
#ifndef AGON_ERR_H
#define AGON_ERR_H

#include <stddef.h>

/* X(NAME, "wire_name", "default message") */
#define AGON_ERRNO_MAP(X)                                                     \
  /* generic */                                                               \
  X(EINVAL, "invalid_argument", "invalid argument")                           \
  X(ENOSPACE, "no_space", "output buffer too small")                          \
  X(EINTERNAL, "internal_error", "internal error")                            \
  /* rules core */                                                            \
  X(EUNKNOWNGAME, "unknown_game", "no such game")                             \
  X(EOPTION, "bad_option", "bad game option")                                 \
  X(EPOSITION, "bad_position", "position string not understood")              \
  X(EBADMOVE, "bad_move", "move notation not understood")                     \
  X(EILLEGAL, "illegal_move", "move is not legal in this position")           \
  X(EGAMEOVER, "game_over", "the game is over")                               \
  X(ENOTTURN, "not_your_turn", "it is not your turn")                         \
  /* protocol and server (extended by the server layer) */                    \
  X(EBADJSON, "bad_json", "line is not a JSON object")                        \
  X(ELINETOOLONG, "line_too_long", "line exceeds the maximum length")         \
  X(EUNKNOWNTYPE, "unknown_type", "unknown message type")                     \
  X(EBADFIELD, "bad_field", "missing or mistyped field")                      \
  X(EUNAUTH, "unauthenticated", "log in first")                               \
  X(ERATELIMIT, "rate_limited", "too many requests")                          \
  X(EBUSY, "busy", "server busy, try again")                                  \
  X(ESHUTDOWN, "shutting_down", "server is shutting down")                   \
  X(ETOOLARGE, "too_large", "request exceeds a limit")                        \
  X(ENOTFOUND, "not_found", "no such object")                                 \
  X(EFORBIDDEN, "forbidden", "not allowed")                                   \
  X(ESTATE, "bad_state", "not possible in the current state")                 \
  /* accounts and storage */                                                  \
  X(EBADNAME, "bad_name", "name not allowed")                                 \
  X(ENAMETAKEN, "name_taken", "name already registered")                      \
  X(EWEAKPASSWORD, "weak_password", "password not allowed")                   \
  X(EBADCREDENTIALS, "bad_credentials", "wrong name or password")             \
  X(EBADTOKEN, "bad_token", "session token unknown, expired or revoked")      \
  X(EALREADYAUTH, "already_authenticated", "already logged in")               \
  X(ESTORAGE, "storage_error", "storage failure")                            \
  /* protocol, appended by the server core */                                 \
  X(EVERSION, "unsupported_version", "protocol version not supported")       \
  X(ETIMEOUT, "timeout", "timed out")                                         \
  /* live play */                                                             \
  X(ESTALE, "stale_seq", "the game has moved on since that seq")

enum agon__err_index {
#define AGON__X(name, wire, msg) AGON__I_##name,
  AGON_ERRNO_MAP(AGON__X)
#undef AGON__X
  AGON__I_COUNT
};

enum agon_code {
  AGON_OK = 0,
#define AGON__X(name, wire, msg) AGON_##name = -(AGON__I_##name + 1),
  AGON_ERRNO_MAP(AGON__X)
#undef AGON__X
};

#define AGON_ERR_MSG_MAX 128

typedef struct agon_err {
  int code;                     /* 0 or a negative AGON_E* */
  char msg[AGON_ERR_MSG_MAX];   /* NUL-terminated, may be empty */
} agon_err;

/* Wire name of a code ("illegal_move"); "unknown_error" for anything else. */
const char *agon_err_name(int code);
/* Default human message of a code. */
const char *agon_err_default_msg(int code);
/* Code for a wire name, or 0 if none. */
int agon_err_from_name(const char *name);

/* Fill *err (if not NULL) with code and a printf-formatted message (the
 * default message when fmt is NULL). Returns code, so callers can write
 * `return agon_err_set(err, AGON_EILLEGAL, "...")`. */
int agon_err_set(agon_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Reset *err to success. */
void agon_err_clear(agon_err *err);

#endif
