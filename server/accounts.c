/* accounts.c - registration, login, sessions; argon2id off the loop.
 *
 * A request is one heap record (acct_req) that walks a small state machine:
 *
 *   register: check name/password -> rate limit -> read: name free? ->
 *             hash (threadpool) -> write: player + session -> callback
 *   login:    rate limits -> read: player by folded name -> verify
 *             (threadpool; a dummy hash for unknown names) -> write: session
 *             -> callback
 *   resume:   parse token -> write: check session, note address -> callback
 *   logout:   write: revoke -> callback
 *
 * Answers known at once (bad name, rate limited, ...) are queued and
 * delivered from a uv_async callback, never inside the caller's call.
 */
#include "accounts.h"

#include <assert.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits_storage.h"

/* argon2id runs at most this many at once: the machine has 2 cores, and each
 * running hash holds memlimit bytes (64 MiB interactive), so more parallel
 * hashes add memory, not throughput. Waiting requests queue here (bounded by
 * inflight_max) instead of filling the shared libuv threadpool. */
#define ACCOUNTS_HASH_PARALLEL 2

#define RL_WAYS 8 /* rate-limit table associativity */

typedef enum op_kind {
  OP_REGISTER,
  OP_LOGIN,
  OP_RESUME,
  OP_LOGOUT,
  OP_LOGOUT_TOKEN
} op_kind;

typedef struct acct_req acct_req;
struct acct_req {
  accounts *a;
  acct_req *next; /* soon list or hash queue */
  op_kind op;
  void *arg;
  accounts_cb cb;
  uv_work_t work;

  char name[ACCOUNTS_NAME_MAX + 1];   /* as given (register) / stored */
  char folded[ACCOUNTS_NAME_MAX + 1]; /* lowercase key */
  int name_ok;                        /* login: name is well-formed */
  char password[ACCOUNTS_PASSWORD_MAX + 1]; /* wiped after hashing */
  size_t password_len;
  int password_ok;
  char peer[ACCOUNTS_ADDR_MAX + 1];
  char pwhash[crypto_pwhash_STRBYTES];
  int rehash;    /* login: pwhash was remade with the current limits */
  int found;     /* login: the name exists */
  int verified;  /* login: the password matched */
  int hash_failed;
  unsigned char token[ACCOUNTS_TOKEN_BYTES];
  unsigned char token_hash[crypto_generichash_BYTES];
  int64_t now_ms;
  int64_t expires_ms;
  int64_t player_id, session_id;
  account_result res;
};

typedef struct rl_entry {
  uint64_t key;    /* keyed SipHash of the string; 0 = empty */
  uint64_t tat;    /* GCRA theoretical arrival time, loop ms */
  uint64_t touched;
} rl_entry;

typedef struct rl_table {
  rl_entry *e;
  unsigned sets; /* e has sets * RL_WAYS entries */
  uint64_t period, burst;
} rl_table;

struct accounts {
  uv_loop_t *loop;
  db *d;
  accounts_config cfg;
  uv_async_t soon_async;
  acct_req *soon_head, *soon_tail;
  acct_req *hash_head, *hash_tail;
  unsigned hashing;
  unsigned inflight;
  int closing;
  void (*closed_cb)(void *);
  void *closed_arg;
  char dummy_hash[crypto_pwhash_STRBYTES];
  unsigned char sip_key[crypto_shorthash_KEYBYTES];
  rl_table rl_addr, rl_account;
};

/* ---- name and password rules -------------------------------------------- */

static int name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-';
}

int accounts_check_name(const char *name, agon_err *err) {
  if (!name) return agon_err_set(err, AGON_EBADNAME, "name missing");
  size_t n = strnlen(name, ACCOUNTS_NAME_MAX + 1);
  if (n < ACCOUNTS_NAME_MIN || n > ACCOUNTS_NAME_MAX)
    return agon_err_set(err, AGON_EBADNAME, "name must be %d to %d characters",
                        ACCOUNTS_NAME_MIN, ACCOUNTS_NAME_MAX);
  for (size_t i = 0; i < n; i++)
    if (!name_char(name[i]))
      return agon_err_set(err, AGON_EBADNAME,
                          "name may contain only letters, digits, _ and -");
  return 0;
}

static void fold(char *out, const char *in) {
  size_t i = 0;
  for (; in[i] && i < ACCOUNTS_NAME_MAX; i++)
    out[i] = (in[i] >= 'A' && in[i] <= 'Z') ? (char)(in[i] - 'A' + 'a') : in[i];
  out[i] = '\0';
}

int accounts_check_password(const char *name, const char *password,
                            agon_err *err) {
  if (!password)
    return agon_err_set(err, AGON_EWEAKPASSWORD, "password missing");
  size_t n = strnlen(password, ACCOUNTS_PASSWORD_MAX + 1);
  if (n < ACCOUNTS_PASSWORD_MIN)
    return agon_err_set(err, AGON_EWEAKPASSWORD,
                        "password must be at least %d characters",
                        ACCOUNTS_PASSWORD_MIN);
  if (n > ACCOUNTS_PASSWORD_MAX)
    return agon_err_set(err, AGON_EWEAKPASSWORD,
                        "password must be at most %d bytes",
                        ACCOUNTS_PASSWORD_MAX);
  if (name) {
    char a[ACCOUNTS_PASSWORD_MAX + 1], b[ACCOUNTS_PASSWORD_MAX + 1];
    size_t i;
    for (i = 0; password[i]; i++)
      a[i] = (password[i] >= 'A' && password[i] <= 'Z')
                 ? (char)(password[i] - 'A' + 'a') : password[i];
    a[i] = '\0';
    fold(b, name);
    int same = strcmp(a, b) == 0;
    sodium_memzero(a, sizeof a);
    if (same)
      return agon_err_set(err, AGON_EWEAKPASSWORD,
                          "password must differ from the name");
  }
  return 0;
}

/* ---- rate limits (GCRA, set-associative table) -------------------------- */

static int rl_init(rl_table *t, unsigned max, unsigned burst, unsigned period) {
  t->sets = max / RL_WAYS ? max / RL_WAYS : 1;
  t->e = calloc((size_t)t->sets * RL_WAYS, sizeof *t->e);
  t->burst = burst ? burst : 1;
  t->period = period ? period : 1;
  return t->e ? 0 : -1;
}

static uint64_t rl_key(const accounts *a, const char *s) {
  unsigned char h[crypto_shorthash_BYTES];
  /* SipHash with a per-process random key: an attacker cannot aim many
   * addresses at one set to evict a victim's entry on purpose. */
  crypto_shorthash(h, (const unsigned char *)s, strlen(s), a->sip_key);
  uint64_t k;
  memcpy(&k, h, sizeof k);
  return k ? k : 1;
}

/* Finds or makes the entry of key. A full set recycles an entry that holds no
 * information (bucket full again: tat <= now) or else the least recently
 * touched one. */
static rl_entry *rl_find(rl_table *t, uint64_t key, uint64_t now) {
  rl_entry *set = t->e + (size_t)(key % t->sets) * RL_WAYS, *victim = NULL;
  for (int i = 0; i < RL_WAYS; i++)
    if (set[i].key == key) return &set[i];
  for (int i = 0; i < RL_WAYS && !victim; i++)
    if (set[i].key == 0 || set[i].tat <= now) victim = &set[i];
  if (!victim) {
    victim = &set[0];
    for (int i = 1; i < RL_WAYS; i++)
      if (set[i].touched < victim->touched) victim = &set[i];
  }
  victim->key = key;
  victim->tat = now;
  victim->touched = now;
  return victim;
}

/* 0 if one attempt is allowed now (and, when take, counts it); else the
 * milliseconds until it would be. */
static uint64_t rl_check(rl_table *t, uint64_t key, uint64_t now, int take) {
  rl_entry *e = rl_find(t, key, now);
  e->touched = now;
  uint64_t tat = e->tat > now ? e->tat : now;
  uint64_t allow = (t->burst - 1) * t->period; /* how far tat may run ahead */
  if (tat - now > allow) return tat - now - allow;
  if (take) e->tat = tat + t->period;
  return 0;
}

static void rl_reset(rl_table *t, uint64_t key, uint64_t now) {
  rl_entry *e = rl_find(t, key, now);
  e->tat = now;
}

/* ---- request records ---------------------------------------------------- */

static void maybe_finish_close(accounts *a);

static void req_fail(acct_req *r, int status, const char *msg) {
  r->res.status = status;
  snprintf(r->res.msg, sizeof r->res.msg, "%s",
           msg ? msg : agon_err_default_msg(status));
}

/* Delivers the result and frees r. Only from loop callbacks. */
static void req_finish(acct_req *r) {
  accounts *a = r->a;
  if (r->res.status == 0) r->res.msg[0] = '\0';
  a->inflight--;
  r->cb(r->arg, &r->res);
  sodium_memzero(r, sizeof *r); /* password, token */
  free(r);
  maybe_finish_close(a);
}

static void soon_cb(uv_async_t *h) {
  accounts *a = h->data;
  acct_req *r = a->soon_head;
  a->soon_head = a->soon_tail = NULL;
  while (r) {
    acct_req *next = r->next;
    req_finish(r);
    r = next;
  }
}

/* The answer is known now, but the caller is still inside its call. */
static void req_finish_soon(acct_req *r) {
  accounts *a = r->a;
  r->next = NULL;
  if (a->soon_tail) a->soon_tail->next = r;
  else a->soon_head = r;
  a->soon_tail = r;
  uv_async_send(&a->soon_async);
}

static acct_req *req_new(accounts *a, op_kind op, void *arg, accounts_cb cb,
                         const char *peer) {
  acct_req *r = calloc(1, sizeof *r);
  if (!r) {
    fprintf(stderr, "agond: fatal: out of memory\n");
    abort();
  }
  r->a = a;
  r->op = op;
  r->arg = arg;
  r->cb = cb;
  r->work.data = r;
  r->player_id = r->session_id = 0;
  snprintf(r->peer, sizeof r->peer, "%s", peer ? peer : "");
  a->inflight++;
  return r;
}

static int req_admit(accounts *a, const void *must1, accounts_cb cb) {
  if (!a || !must1 || !cb) return AGON_EINVAL;
  if (a->closing) return AGON_ESHUTDOWN;
  if (a->inflight >= a->cfg.inflight_max) return AGON_EBUSY;
  return 0;
}

/* ---- tokens -------------------------------------------------------------- */

static void token_new(accounts *a, acct_req *r) {
  randombytes_buf(r->token, sizeof r->token);
  crypto_generichash(r->token_hash, sizeof r->token_hash, r->token,
                     sizeof r->token, NULL, 0);
  sodium_bin2hex(r->res.token, sizeof r->res.token, r->token, sizeof r->token);
  r->now_ms = db_now_ms();
  r->expires_ms = r->now_ms + (int64_t)a->cfg.token_ttl_s * 1000;
}

static int token_parse(acct_req *r, const char *hex) {
  size_t len = strnlen(hex, ACCOUNTS_TOKEN_LEN + 1), bin_len = 0;
  if (len != ACCOUNTS_TOKEN_LEN ||
      sodium_hex2bin(r->token, sizeof r->token, hex, len, NULL, &bin_len,
                     NULL) != 0 ||
      bin_len != sizeof r->token)
    return -1;
  crypto_generichash(r->token_hash, sizeof r->token_hash, r->token,
                     sizeof r->token, NULL, 0);
  return 0;
}

/* ---- SQL jobs (writer / reader threads: touch only r) -------------------- */

static const char SQL_NAME_TAKEN[] =
    "SELECT 1 FROM players WHERE name_folded = ?1";
static const char SQL_PLAYER_BY_NAME[] =
    "SELECT id, name, pwhash FROM players WHERE name_folded = ?1";
static const char SQL_INSERT_PLAYER[] =
    "INSERT INTO players(name, name_folded, pwhash, created_at)"
    " VALUES (?1, ?2, ?3, ?4)";
static const char SQL_INSERT_SESSION[] =
    "INSERT INTO sessions(token_hash, player_id, created_at, expires_at,"
    " last_addr, last_seen_at) VALUES (?1, ?2, ?3, ?4, ?5, ?3)";
static const char SQL_SESSION_BY_TOKEN[] =
    "SELECT s.id, s.player_id, s.expires_at, s.revoked_at, p.name"
    " FROM sessions s JOIN players p ON p.id = s.player_id"
    " WHERE s.token_hash = ?1";
static const char SQL_TOUCH_SESSION[] =
    "UPDATE sessions SET last_addr = ?2, last_seen_at = ?3 WHERE id = ?1";
static const char SQL_REVOKE_ID[] =
    "UPDATE sessions SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL";
static const char SQL_REVOKE_TOKEN[] =
    "UPDATE sessions SET revoked_at = ?2"
    " WHERE token_hash = ?1 AND revoked_at IS NULL";

static int job_name_taken(sqlite3 *c, void *ctx) {
  acct_req *r = ctx;
  sqlite3_stmt *st = db_stmt(c, SQL_NAME_TAKEN);
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_text(st, 1, r->folded, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) return AGON_ENAMETAKEN;
  return rc == SQLITE_DONE ? 0 : AGON_ESTORAGE;
}

static int job_lookup(sqlite3 *c, void *ctx) {
  acct_req *r = ctx;
  sqlite3_stmt *st = db_stmt(c, SQL_PLAYER_BY_NAME);
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_text(st, 1, r->folded, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_DONE) return 0; /* not found: r->found stays 0 */
  if (rc != SQLITE_ROW) return AGON_ESTORAGE;
  const char *name = (const char *)sqlite3_column_text(st, 1);
  const char *hash = (const char *)sqlite3_column_text(st, 2);
  if (!name || !hash) return AGON_ESTORAGE;
  r->player_id = sqlite3_column_int64(st, 0);
  snprintf(r->name, sizeof r->name, "%s", name);
  snprintf(r->pwhash, sizeof r->pwhash, "%s", hash);
  r->found = 1;
  return 0;
}

static int insert_session(sqlite3 *c, acct_req *r) {
  sqlite3_stmt *st = db_stmt(c, SQL_INSERT_SESSION);
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_blob(st, 1, r->token_hash, sizeof r->token_hash, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, r->player_id);
  sqlite3_bind_int64(st, 3, r->now_ms);
  sqlite3_bind_int64(st, 4, r->expires_ms);
  sqlite3_bind_text(st, 5, r->peer, -1, SQLITE_STATIC);
  if (sqlite3_step(st) != SQLITE_DONE) return AGON_ESTORAGE;
  r->session_id = sqlite3_last_insert_rowid(c);
  return 0;
}

static int job_register(sqlite3 *c, void *ctx) {
  acct_req *r = ctx;
  sqlite3_stmt *st = db_stmt(c, SQL_INSERT_PLAYER);
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_text(st, 1, r->name, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, r->folded, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, r->pwhash, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 4, r->now_ms);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_CONSTRAINT_UNIQUE) return AGON_ENAMETAKEN; /* lost a race */
  if (rc != SQLITE_DONE) return AGON_ESTORAGE;
  r->player_id = sqlite3_last_insert_rowid(c);
  return insert_session(c, r);
}

static const char SQL_SET_PWHASH[] = "UPDATE players SET pwhash = ?2 WHERE id = ?1";

static int job_new_session(sqlite3 *c, void *ctx) {
  acct_req *r = ctx;
  if (r->rehash) {
    sqlite3_stmt *st = db_stmt(c, SQL_SET_PWHASH);
    if (!st) return AGON_ESTORAGE;
    sqlite3_bind_int64(st, 1, r->player_id);
    sqlite3_bind_text(st, 2, r->pwhash, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) return AGON_ESTORAGE;
  }
  return insert_session(c, r);
}

static int job_resume(sqlite3 *c, void *ctx) {
  acct_req *r = ctx;
  sqlite3_stmt *st = db_stmt(c, SQL_SESSION_BY_TOKEN);
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_blob(st, 1, r->token_hash, sizeof r->token_hash, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_DONE) return AGON_EBADTOKEN;
  if (rc != SQLITE_ROW) return AGON_ESTORAGE;
  r->session_id = sqlite3_column_int64(st, 0);
  r->player_id = sqlite3_column_int64(st, 1);
  r->expires_ms = sqlite3_column_int64(st, 2);
  int revoked = sqlite3_column_type(st, 3) != SQLITE_NULL;
  const char *name = (const char *)sqlite3_column_text(st, 4);
  snprintf(r->name, sizeof r->name, "%s", name ? name : "");
  if (revoked || r->expires_ms <= r->now_ms) return AGON_EBADTOKEN;
  st = db_stmt(c, SQL_TOUCH_SESSION);
  if (!st) return AGON_ESTORAGE;
  sqlite3_bind_int64(st, 1, r->session_id);
  sqlite3_bind_text(st, 2, r->peer, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, r->now_ms);
  return sqlite3_step(st) == SQLITE_DONE ? 0 : AGON_ESTORAGE;
}

static int job_revoke(sqlite3 *c, void *ctx) {
  acct_req *r = ctx;
  sqlite3_stmt *st;
  if (r->op == OP_LOGOUT) {
    st = db_stmt(c, SQL_REVOKE_ID);
    if (!st) return AGON_ESTORAGE;
    sqlite3_bind_int64(st, 1, r->session_id);
  } else {
    st = db_stmt(c, SQL_REVOKE_TOKEN);
    if (!st) return AGON_ESTORAGE;
    sqlite3_bind_blob(st, 1, r->token_hash, sizeof r->token_hash,
                      SQLITE_STATIC);
  }
  sqlite3_bind_int64(st, 2, r->now_ms);
  if (sqlite3_step(st) != SQLITE_DONE) return AGON_ESTORAGE;
  return sqlite3_changes(c) == 1 ? 0 : AGON_EBADTOKEN;
}

/* ---- hashing (threadpool) ------------------------------------------------ */

static void hash_work(uv_work_t *w) {
  acct_req *r = w->data;
  accounts *a = r->a; /* reads only immutable config and dummy_hash */
  if (r->op == OP_REGISTER) {
    if (crypto_pwhash_str(r->pwhash, r->password, r->password_len,
                          a->cfg.opslimit, a->cfg.memlimit) != 0)
      r->hash_failed = 1; /* out of memory */
  } else {
    /* Same work whether or not the name exists: verify against the dummy
     * hash (made with the same limits) when it does not. */
    const char *h = r->found ? r->pwhash : a->dummy_hash;
    int ok = crypto_pwhash_str_verify(h, r->password, r->password_len) == 0;
    r->verified = ok && r->found && r->name_ok && r->password_ok;
    /* Limits raised since this hash was made (or a different algorithm):
     * remake it now that we hold the password; stored with the session. */
    if (r->verified && crypto_pwhash_str_needs_rehash(r->pwhash,
                                                      a->cfg.opslimit,
                                                      a->cfg.memlimit) != 0 &&
        crypto_pwhash_str(r->pwhash, r->password, r->password_len,
                          a->cfg.opslimit, a->cfg.memlimit) == 0)
      r->rehash = 1;
  }
  sodium_memzero(r->password, sizeof r->password);
}

static void hash_start_next(accounts *a);
static void after_hash(uv_work_t *w, int status);

static void hash_enqueue(acct_req *r) {
  accounts *a = r->a;
  r->next = NULL;
  if (a->hash_tail) a->hash_tail->next = r;
  else a->hash_head = r;
  a->hash_tail = r;
  hash_start_next(a);
}

static void hash_start_next(accounts *a) {
  while (a->hashing < ACCOUNTS_HASH_PARALLEL && a->hash_head) {
    acct_req *r = a->hash_head;
    a->hash_head = r->next;
    if (!a->hash_head) a->hash_tail = NULL;
    r->next = NULL;
    if (uv_queue_work(a->loop, &r->work, hash_work, after_hash) != 0) {
      req_fail(r, AGON_EINTERNAL, "cannot queue password hashing");
      req_finish_soon(r); /* may be inside accounts_login's call */
      continue;
    }
    a->hashing++;
  }
}

/* ---- state machine (loop thread) ----------------------------------------- */

static void register_written(void *ctx, int status) {
  acct_req *r = ctx;
  if (status == 0) {
    r->res.player_id = r->player_id;
    r->res.session_id = r->session_id;
    r->res.expires_at_ms = r->expires_ms;
    snprintf(r->res.name, sizeof r->res.name, "%s", r->name);
  } else {
    r->res.token[0] = '\0';
    req_fail(r, status, NULL);
  }
  req_finish(r);
}

static void login_written(void *ctx, int status) {
  register_written(ctx, status); /* same result shape */
}

static void submit_write(acct_req *r, db_job_fn fn, db_done_cb cb) {
  int rc = db_write(r->a->d, fn, r, cb);
  if (rc != 0) {
    r->res.token[0] = '\0';
    req_fail(r, rc, NULL);
    req_finish(r); /* from a loop callback: not inside the user's call */
  }
}

static void after_hash(uv_work_t *w, int status) {
  acct_req *r = w->data;
  accounts *a = r->a;
  a->hashing--;
  hash_start_next(a);
  if (status != 0 || r->hash_failed) {
    req_fail(r, AGON_EINTERNAL, "password hashing failed");
    req_finish(r);
    return;
  }
  if (r->op == OP_LOGIN && !r->verified) {
    uint64_t now = uv_now(a->loop);
    if (r->name_ok) rl_check(&a->rl_account, rl_key(a, r->folded), now, 1);
    req_fail(r, AGON_EBADCREDENTIALS, NULL);
    req_finish(r);
    return;
  }
  if (r->op == OP_LOGIN)
    rl_reset(&a->rl_account, rl_key(a, r->folded), uv_now(a->loop));
  token_new(a, r);
  submit_write(r, r->op == OP_REGISTER ? job_register : job_new_session,
               r->op == OP_REGISTER ? register_written : login_written);
}

static void name_checked(void *ctx, int status) {
  acct_req *r = ctx;
  if (status != 0) {
    req_fail(r, status, status == AGON_ENAMETAKEN
                            ? "that name is already registered" : NULL);
    req_finish(r);
    return;
  }
  hash_enqueue(r);
}

static void looked_up(void *ctx, int status) {
  acct_req *r = ctx;
  if (status != 0) {
    req_fail(r, status, NULL);
    req_finish(r);
    return;
  }
  hash_enqueue(r);
}

static void resumed(void *ctx, int status) {
  acct_req *r = ctx;
  accounts *a = r->a;
  if (status == 0) {
    r->res.player_id = r->player_id;
    r->res.session_id = r->session_id;
    r->res.expires_at_ms = r->expires_ms;
    snprintf(r->res.name, sizeof r->res.name, "%s", r->name);
  } else {
    if (status == AGON_EBADTOKEN)
      rl_check(&a->rl_addr, rl_key(a, r->peer), uv_now(a->loop), 1);
    req_fail(r, status, NULL);
  }
  req_finish(r);
}

static void revoked(void *ctx, int status) {
  acct_req *r = ctx;
  if (status != 0) req_fail(r, status, NULL);
  req_finish(r);
}

/* rate_limited answer with its retry-after. */
static void fail_limited(acct_req *r, uint64_t wait_ms) {
  char msg[96];
  snprintf(msg, sizeof msg, "too many attempts, retry in %llu s",
           (unsigned long long)((wait_ms + 999) / 1000));
  req_fail(r, AGON_ERATELIMIT, msg);
  r->res.retry_after_ms = wait_ms > 0xffffffffu ? 0xffffffffu
                                                : (unsigned)wait_ms;
  req_finish_soon(r);
}

/* ---- public API ----------------------------------------------------------- */

void accounts_config_init(accounts_config *cfg) { memset(cfg, 0, sizeof *cfg); }

int accounts_register(accounts *a, const char *name, const char *password,
                      const char *peer, void *arg, accounts_cb cb) {
  int rc = req_admit(a, name, cb);
  if (rc) return rc;
  if (!password) return AGON_EINVAL;
  acct_req *r = req_new(a, OP_REGISTER, arg, cb, peer);
  agon_err err = {0};
  if (accounts_check_name(name, &err) ||
      accounts_check_password(name, password, &err)) {
    req_fail(r, err.code, err.msg);
    req_finish_soon(r);
    return 0;
  }
  snprintf(r->name, sizeof r->name, "%s", name);
  fold(r->folded, name);
  r->password_len = strlen(password);
  memcpy(r->password, password, r->password_len + 1);
  uint64_t wait = rl_check(&a->rl_addr, rl_key(a, r->peer), uv_now(a->loop), 1);
  if (wait) {
    fail_limited(r, wait);
    return 0;
  }
  /* Ask the database first: a taken name costs one indexed read instead of a
   * 64 MiB hash. The INSERT's UNIQUE index still settles races. */
  rc = db_read(a->d, job_name_taken, r, name_checked);
  if (rc) {
    req_fail(r, rc, NULL);
    req_finish_soon(r);
  }
  return 0;
}

int accounts_login(accounts *a, const char *name, const char *password,
                   const char *peer, void *arg, accounts_cb cb) {
  int rc = req_admit(a, name, cb);
  if (rc) return rc;
  if (!password) return AGON_EINVAL;
  acct_req *r = req_new(a, OP_LOGIN, arg, cb, peer);
  uint64_t now = uv_now(a->loop);
  r->name_ok = accounts_check_name(name, NULL) == 0;
  if (r->name_ok) fold(r->folded, name);
  size_t plen = strnlen(password, ACCOUNTS_PASSWORD_MAX + 1);
  r->password_ok = plen <= ACCOUNTS_PASSWORD_MAX;
  r->password_len = r->password_ok ? plen : 0;
  memcpy(r->password, password, r->password_len);
  r->password[r->password_len] = '\0';

  uint64_t wait = rl_check(&a->rl_addr, rl_key(a, r->peer), now, 1);
  if (!wait && r->name_ok)
    wait = rl_check(&a->rl_account, rl_key(a, r->folded), now, 0);
  if (wait) {
    fail_limited(r, wait);
    return 0;
  }
  if (!r->name_ok) {
    /* No such player can exist; still pay the same hash. */
    hash_enqueue(r);
    return 0;
  }
  rc = db_read(a->d, job_lookup, r, looked_up);
  if (rc) {
    req_fail(r, rc, NULL);
    req_finish_soon(r);
  }
  return 0;
}

int accounts_resume(accounts *a, const char *token, const char *peer,
                    void *arg, accounts_cb cb) {
  int rc = req_admit(a, token, cb);
  if (rc) return rc;
  acct_req *r = req_new(a, OP_RESUME, arg, cb, peer);
  /* Only failed resumes count against the address: after a server restart
   * every client behind one NAT address reconnects at once. */
  uint64_t wait = rl_check(&a->rl_addr, rl_key(a, r->peer), uv_now(a->loop), 0);
  if (wait) {
    fail_limited(r, wait);
    return 0;
  }
  if (token_parse(r, token) != 0) {
    rl_check(&a->rl_addr, rl_key(a, r->peer), uv_now(a->loop), 1);
    req_fail(r, AGON_EBADTOKEN, "malformed session token");
    req_finish_soon(r);
    return 0;
  }
  r->now_ms = db_now_ms();
  rc = db_write(a->d, job_resume, r, resumed);
  if (rc) {
    req_fail(r, rc, NULL);
    req_finish_soon(r);
  }
  return 0;
}

static int logout_common(accounts *a, acct_req *r) {
  r->now_ms = db_now_ms();
  int rc = db_write(a->d, job_revoke, r, revoked);
  if (rc) {
    req_fail(r, rc, NULL);
    req_finish_soon(r);
  }
  return 0;
}

int accounts_logout(accounts *a, int64_t session_id, void *arg,
                    accounts_cb cb) {
  int rc = req_admit(a, a, cb);
  if (rc) return rc;
  acct_req *r = req_new(a, OP_LOGOUT, arg, cb, NULL);
  r->session_id = session_id;
  return logout_common(a, r);
}

int accounts_logout_token(accounts *a, const char *token, void *arg,
                          accounts_cb cb) {
  int rc = req_admit(a, token, cb);
  if (rc) return rc;
  acct_req *r = req_new(a, OP_LOGOUT_TOKEN, arg, cb, NULL);
  if (token_parse(r, token) != 0) {
    req_fail(r, AGON_EBADTOKEN, "malformed session token");
    req_finish_soon(r);
    return 0;
  }
  return logout_common(a, r);
}

int accounts_new(accounts **out, uv_loop_t *loop, db *d,
                 const accounts_config *cfg, agon_err *err) {
  if (!out || !loop || !d)
    return agon_err_set(err, AGON_EINVAL, "accounts_new: bad arguments");
  *out = NULL;
  if (sodium_init() < 0)
    return agon_err_set(err, AGON_EINTERNAL, "libsodium failed to initialise");
  accounts *a = calloc(1, sizeof *a);
  if (!a) return agon_err_set(err, AGON_EINTERNAL, "out of memory");
  a->loop = loop;
  a->d = d;
  if (cfg) a->cfg = *cfg;
  accounts_config *c = &a->cfg;
  if (!c->opslimit) c->opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
  if (!c->memlimit) c->memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
  if (!c->token_ttl_s) c->token_ttl_s = ACCOUNTS_TOKEN_TTL_S_DEFAULT;
  if (!c->inflight_max) c->inflight_max = ACCOUNTS_INFLIGHT_MAX_DEFAULT;
  if (!c->rl_addr_burst) c->rl_addr_burst = ACCOUNTS_RL_ADDR_BURST_DEFAULT;
  if (!c->rl_addr_period_ms)
    c->rl_addr_period_ms = ACCOUNTS_RL_ADDR_PERIOD_MS_DEFAULT;
  if (!c->rl_account_burst)
    c->rl_account_burst = ACCOUNTS_RL_ACCOUNT_BURST_DEFAULT;
  if (!c->rl_account_period_ms)
    c->rl_account_period_ms = ACCOUNTS_RL_ACCOUNT_PERIOD_MS_DEFAULT;
  if (!c->rl_table_max) c->rl_table_max = ACCOUNTS_RL_TABLE_MAX_DEFAULT;
  if (c->opslimit < crypto_pwhash_OPSLIMIT_MIN ||
      c->memlimit < crypto_pwhash_MEMLIMIT_MIN) {
    free(a);
    return agon_err_set(err, AGON_EINVAL, "argon2id limits below the minimum");
  }
  crypto_shorthash_keygen(a->sip_key);
  /* The dummy hash for unknown names: a random password with the configured
   * limits, so verifying against it costs what a real verify costs. */
  unsigned char pw[16];
  randombytes_buf(pw, sizeof pw);
  int hrc = crypto_pwhash_str(a->dummy_hash, (const char *)pw, sizeof pw,
                              c->opslimit, c->memlimit);
  sodium_memzero(pw, sizeof pw);
  if (hrc != 0 ||
      rl_init(&a->rl_addr, c->rl_table_max, c->rl_addr_burst,
              c->rl_addr_period_ms) ||
      rl_init(&a->rl_account, c->rl_table_max, c->rl_account_burst,
              c->rl_account_period_ms) ||
      uv_async_init(loop, &a->soon_async, soon_cb) != 0) {
    free(a->rl_addr.e);
    free(a->rl_account.e);
    free(a);
    return agon_err_set(err, AGON_EINTERNAL,
                        "cannot set up accounts (out of memory?)");
  }
  a->soon_async.data = a;
  *out = a;
  return 0;
}

static void soon_closed(uv_handle_t *h) {
  accounts *a = h->data;
  void (*cb)(void *) = a->closed_cb;
  void *arg = a->closed_arg;
  free(a->rl_addr.e);
  free(a->rl_account.e);
  sodium_memzero(a, sizeof *a);
  free(a);
  if (cb) cb(arg);
}

static void maybe_finish_close(accounts *a) {
  if (!a->closing || a->inflight != 0 || a->closing == 2) return;
  a->closing = 2; /* handle close started */
  uv_close((uv_handle_t *)&a->soon_async, soon_closed);
}

void accounts_close(accounts *a, void (*closed_cb)(void *arg), void *arg) {
  if (!a || a->closing) return;
  a->closing = 1;
  a->closed_cb = closed_cb;
  a->closed_arg = arg;
  maybe_finish_close(a);
}
