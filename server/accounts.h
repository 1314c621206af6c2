/* accounts.h - players, passwords and sessions, on the loop thread.
 *
 * Every request is asynchronous: argon2id (crypto_pwhash_str) runs on the
 * libuv threadpool (uv_queue_work), SQL goes through db_read/db_write.
 *
 * Callback contract: a call that returns 0 gets exactly one callback, on the
 * loop thread, never from inside the call itself (so the caller may touch its
 * state after the call returns). Answers meant for the client - including
 * bad_name, weak_password, name_taken, bad_credentials, bad_token,
 * rate_limited, storage_error - come through the callback's res->status. A
 * call that returns an error (AGON_EINVAL for NULL arguments, AGON_EBUSY when
 * too many requests are in flight, AGON_ESHUTDOWN after accounts_close) never
 * fires its callback.
 *
 * Login: an unknown name and a wrong password take the same path (a dummy
 * hash is verified for unknown names) and give the same bad_credentials.
 */
#ifndef AGON_ACCOUNTS_H
#define AGON_ACCOUNTS_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "agon_err.h"
#include "db.h"

#define ACCOUNTS_NAME_MIN 3
#define ACCOUNTS_NAME_MAX 20     /* [A-Za-z0-9_-]{3,20} */
#define ACCOUNTS_PASSWORD_MIN 8  /* bytes */
#define ACCOUNTS_PASSWORD_MAX 128
#define ACCOUNTS_TOKEN_BYTES 32  /* random bytes in a session token */
#define ACCOUNTS_TOKEN_LEN 64    /* its lowercase hex form, NUL excluded */
#define ACCOUNTS_ADDR_MAX 64     /* longest peer address kept (NUL excluded) */

typedef struct accounts accounts;

typedef struct accounts_config {
  unsigned long long opslimit; /* argon2id; 0 = crypto_pwhash_OPSLIMIT_INTERACTIVE */
  size_t memlimit;             /* bytes; 0 = crypto_pwhash_MEMLIMIT_INTERACTIVE
                                  (tests: crypto_pwhash_OPSLIMIT_MIN/MEMLIMIT_MIN) */
  unsigned token_ttl_s;        /* session lifetime; 0 = 30 days */
  unsigned inflight_max;       /* requests in flight; 0 = default (EBUSY above) */
  /* Login/register rate limits: token buckets (burst, then one per period). */
  unsigned rl_addr_burst;      /* attempts per address; 0 = default */
  unsigned rl_addr_period_ms;  /* refill period per address; 0 = default */
  unsigned rl_account_burst;   /* failed logins per account; 0 = default */
  unsigned rl_account_period_ms;
  unsigned rl_table_max;       /* entries per table (LRU evicted); 0 = default */
} accounts_config;

typedef struct account_result {
  int status;                 /* 0 or a negative AGON_E* */
  char msg[AGON_ERR_MSG_MAX]; /* human message when status != 0 */
  unsigned retry_after_ms;    /* with AGON_ERATELIMIT */
  int64_t player_id;          /* when status == 0 */
  int64_t session_id;         /* when status == 0 (for accounts_logout) */
  char name[ACCOUNTS_NAME_MAX + 1]; /* canonical spelling, as registered */
  char token[ACCOUNTS_TOKEN_LEN + 1]; /* plaintext token: set only by register
                                         and login (shown once, never stored);
                                         empty for resume and logout */
  int64_t expires_at_ms;      /* session expiry, unix ms */
} account_result;

/* res is borrowed: valid only during the call. */
typedef void (*accounts_cb)(void *arg, const account_result *res);

/* Fills the defaults (all zeros = each default). */
void accounts_config_init(accounts_config *cfg);

/* Creates the service on loop, using d (borrowed: must outlive the service,
 * i.e. db_close only after accounts_close's closed_cb). Computes the dummy
 * hash used for unknown names (one argon2id hash: blocks briefly, start-up
 * only). */
int accounts_new(accounts **out, uv_loop_t *loop, db *d,
                 const accounts_config *cfg, agon_err *err);

/* Stops accepting requests (they return AGON_ESHUTDOWN); requests in flight
 * still get their callback. When the last one has, the service frees itself
 * and calls closed_cb(arg) (may be NULL) on the loop thread; after that,
 * db_close is safe. The loop must run for this to happen. */
void accounts_close(accounts *a, void (*closed_cb)(void *arg), void *arg);

/* Strings are borrowed (copied before returning). peer is the client's
 * address without port ("127.0.0.1", "::1"), used for rate limiting and stored
 * with the session; may be NULL or "" (then one shared bucket). */

/* New player + session. res: player_id, session_id, name, token, expiry. */
int accounts_register(accounts *a, const char *name, const char *password,
                      const char *peer, void *arg, accounts_cb cb);

/* Name (case-insensitive) + password -> new session. Same res as register. */
int accounts_login(accounts *a, const char *name, const char *password,
                   const char *peer, void *arg, accounts_cb cb);

/* Session token (hex, from register/login) -> player_id, session_id, name,
 * expiry (token left empty). bad_token when unknown, expired or revoked. */
int accounts_resume(accounts *a, const char *token, const char *peer,
                    void *arg, accounts_cb cb);

/* Revokes a session (from res->session_id). status 0, or bad_token when it
 * was already revoked or does not exist. */
int accounts_logout(accounts *a, int64_t session_id, void *arg,
                    accounts_cb cb);

/* Revokes the session of a plaintext token (a client may log out a token it
 * no longer uses). Same statuses as accounts_logout. */
int accounts_logout_token(accounts *a, const char *token, void *arg,
                          accounts_cb cb);

/* Name rules, exposed for the protocol layer and tests: 0 if valid, else
 * AGON_EBADNAME with a message in *err. */
int accounts_check_name(const char *name, agon_err *err);

/* 0 if acceptable, else AGON_EWEAKPASSWORD with a message in *err. */
int accounts_check_password(const char *name, const char *password,
                            agon_err *err);

#endif
