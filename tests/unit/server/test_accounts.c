/* test_accounts.c - register / login / resume / logout on a real loop, a real
 * temporary database and argon2id at its minimum limits. */
#include <sodium.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "accounts.h"
#include "db.h"
#include "store_util.h"
#include "test.h"

static uv_loop_t loop;
static char dir[512], path[600];
static db *d;
static int in_call; /* set around API calls: callbacks must not run inside */
static int cb_inside;

typedef struct res {
  int n; /* callbacks received */
  account_result r;
} res;

static void on_result(void *arg, const account_result *r) {
  res *x = arg;
  if (in_call) cb_inside++;
  x->n++;
  x->r = *r;
}

/* Runs the loop until x got its callback (bounded). */
static void wait_res(res *x) {
  uint64_t deadline = uv_hrtime() + 20000000000ull;
  while (x->n == 0 && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
}

static accounts *new_accounts(accounts_config *cfg) {
  accounts_config c;
  if (!cfg) {
    accounts_config_init(&c);
    cfg = &c;
  }
  cfg->opslimit = crypto_pwhash_OPSLIMIT_MIN;
  cfg->memlimit = crypto_pwhash_MEMLIMIT_MIN;
  accounts *a = NULL;
  agon_err err = {0};
  int rc = accounts_new(&a, &loop, d, cfg, &err);
  CHECK_MSG(rc == 0, "accounts_new: %d %s", rc, err.msg);
  return a;
}

static int closed;
static void on_closed(void *arg) {
  (void)arg;
  closed++;
}

static void close_accounts(accounts *a) {
  closed = 0;
  accounts_close(a, on_closed, NULL);
  uint64_t deadline = uv_hrtime() + 10000000000ull;
  while (!closed && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK_INT(closed, 1);
}

/* Each helper: call, check the call itself and that no callback ran inside. */
static res do_register(accounts *a, const char *name, const char *pw,
                       const char *peer) {
  res x = {0};
  in_call = 1;
  int rc = accounts_register(a, name, pw, peer, &x, on_result);
  in_call = 0;
  CHECK_INT(rc, 0);
  CHECK_INT(x.n, 0);
  wait_res(&x);
  CHECK_INT(x.n, 1);
  return x;
}

static res do_login(accounts *a, const char *name, const char *pw,
                    const char *peer) {
  res x = {0};
  in_call = 1;
  int rc = accounts_login(a, name, pw, peer, &x, on_result);
  in_call = 0;
  CHECK_INT(rc, 0);
  wait_res(&x);
  CHECK_INT(x.n, 1);
  return x;
}

static res do_resume(accounts *a, const char *token, const char *peer) {
  res x = {0};
  in_call = 1;
  int rc = accounts_resume(a, token, peer, &x, on_result);
  in_call = 0;
  CHECK_INT(rc, 0);
  wait_res(&x);
  CHECK_INT(x.n, 1);
  return x;
}

static res do_logout(accounts *a, int64_t sid) {
  res x = {0};
  in_call = 1;
  int rc = accounts_logout(a, sid, &x, on_result);
  in_call = 0;
  CHECK_INT(rc, 0);
  wait_res(&x);
  CHECK_INT(x.n, 1);
  return x;
}

static void test_rules(void) {
  agon_err e = {0};
  CHECK_INT(accounts_check_name("abc", &e), 0);
  CHECK_INT(accounts_check_name("A_b-9", &e), 0);
  CHECK_INT(accounts_check_name("abcdefghij0123456789", &e), 0); /* 20 */
  CHECK_INT(accounts_check_name("ab", &e), AGON_EBADNAME);
  CHECK_INT(accounts_check_name("abcdefghij0123456789x", &e), AGON_EBADNAME);
  CHECK_INT(accounts_check_name("a b", &e), AGON_EBADNAME);
  CHECK_INT(accounts_check_name("caf\xc3\xa9", &e), AGON_EBADNAME);
  CHECK_INT(accounts_check_name("", &e), AGON_EBADNAME);
  CHECK_INT(accounts_check_name(NULL, &e), AGON_EBADNAME);
  CHECK_INT(accounts_check_password("bob", "correct horse", &e), 0);
  CHECK_INT(accounts_check_password("bob", "short", &e), AGON_EWEAKPASSWORD);
  CHECK_INT(accounts_check_password("Roberto1", "roberto1", &e),
            AGON_EWEAKPASSWORD);
  char longpw[200];
  memset(longpw, 'x', sizeof longpw - 1);
  longpw[sizeof longpw - 1] = '\0';
  CHECK_INT(accounts_check_password("bob", longpw, &e), AGON_EWEAKPASSWORD);
}

static int64_t scalar(const char *sql, int64_t bind) {
  sqlite3 *c;
  sqlite3_stmt *st;
  int64_t v = -1;
  if (sqlite3_open_v2(path, &c, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
    return -2;
  sqlite3_busy_timeout(c, 5000);
  if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, bind);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE) v = sqlite3_changes(c);
    sqlite3_finalize(st);
  }
  sqlite3_close(c);
  return v;
}

static void test_flow(void) {
  accounts *a = new_accounts(NULL);
  if (!a) return;
  const char *pw = "correct horse";
  int64_t t0 = db_now_ms();

  res r1 = do_register(a, "Alice", pw, "127.0.0.1");
  CHECK_INT(r1.r.status, 0);
  CHECK(r1.r.player_id > 0);
  CHECK(r1.r.session_id > 0);
  CHECK_STR(r1.r.name, "Alice");
  CHECK_INT(strlen(r1.r.token), ACCOUNTS_TOKEN_LEN);
  int64_t ttl = r1.r.expires_at_ms - t0;
  CHECK(ttl >= 30LL * 86400 * 1000 - 60000 && ttl <= 30LL * 86400 * 1000 + 60000);

  /* the token is stored only as its BLAKE2b hash */
  unsigned char raw[32], h[32];
  size_t bl = 0;
  CHECK_INT(sodium_hex2bin(raw, sizeof raw, r1.r.token, 64, NULL, &bl, NULL), 0);
  crypto_generichash(h, sizeof h, raw, sizeof raw, NULL, 0);
  {
    sqlite3 *c;
    sqlite3_stmt *st;
    sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL);
    sqlite3_prepare_v2(c, "SELECT token_hash, last_addr FROM sessions WHERE id=?1",
                       -1, &st, NULL);
    sqlite3_bind_int64(st, 1, r1.r.session_id);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK_INT(sqlite3_column_bytes(st, 0), 32);
    const void *blob = sqlite3_column_blob(st, 0);
    CHECK(blob && memcmp(blob, h, 32) == 0);
    CHECK_STR((const char *)sqlite3_column_text(st, 1), "127.0.0.1");
    sqlite3_finalize(st);
    sqlite3_prepare_v2(c, "SELECT pwhash FROM players WHERE id=?1", -1, &st,
                       NULL);
    sqlite3_bind_int64(st, 1, r1.r.player_id);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    const char *ph = (const char *)sqlite3_column_text(st, 0);
    CHECK(ph && strncmp(ph, "$argon2id$", 10) == 0);
    sqlite3_finalize(st);
    sqlite3_close(c);
  }

  /* duplicate, case-insensitively */
  res r2 = do_register(a, "aLICE", "another pw 1", "127.0.0.1");
  CHECK_INT(r2.r.status, AGON_ENAMETAKEN);
  CHECK_STR(r2.r.token, "");
  CHECK(r2.r.msg[0] != '\0');
  /* bad name, weak password: through the callback too */
  CHECK_INT(do_register(a, "no spaces", pw, "127.0.0.1").r.status,
            AGON_EBADNAME);
  CHECK_INT(do_register(a, "Bobby", "Bobby", "127.0.0.1").r.status,
            AGON_EWEAKPASSWORD);
  CHECK_INT(do_register(a, "Bobby", "short", "127.0.0.1").r.status,
            AGON_EWEAKPASSWORD);

  /* login, any case of the name; a new token each time */
  res l1 = do_login(a, "ALICE", pw, "127.0.0.2");
  CHECK_INT(l1.r.status, 0);
  CHECK_STR(l1.r.name, "Alice");
  CHECK_INT(l1.r.player_id, r1.r.player_id);
  CHECK(l1.r.session_id != r1.r.session_id);
  CHECK_INT(strlen(l1.r.token), ACCOUNTS_TOKEN_LEN);
  CHECK(strcmp(l1.r.token, r1.r.token) != 0);

  /* wrong password and unknown name: the same answer */
  res w1 = do_login(a, "alice", "wrong password", "127.0.0.1");
  res w2 = do_login(a, "nobody_here", "wrong password", "127.0.0.1");
  res w3 = do_login(a, "bad name!", "wrong password", "127.0.0.1");
  CHECK_INT(w1.r.status, AGON_EBADCREDENTIALS);
  CHECK_INT(w2.r.status, AGON_EBADCREDENTIALS);
  CHECK_INT(w3.r.status, AGON_EBADCREDENTIALS);
  CHECK_STR(w1.r.msg, w2.r.msg);
  CHECK_STR(w1.r.msg, w3.r.msg);
  CHECK_STR(w1.r.token, "");
  CHECK_INT(w1.r.player_id, 0);

  /* resume */
  res s1 = do_resume(a, r1.r.token, "10.1.1.1");
  CHECK_INT(s1.r.status, 0);
  CHECK_INT(s1.r.player_id, r1.r.player_id);
  CHECK_INT(s1.r.session_id, r1.r.session_id);
  CHECK_STR(s1.r.name, "Alice");
  CHECK_STR(s1.r.token, "");
  CHECK_INT(s1.r.expires_at_ms, r1.r.expires_at_ms);
  CHECK_INT(do_resume(a, "zz", "10.1.1.1").r.status, AGON_EBADTOKEN);
  char unknown[65];
  memset(unknown, 'a', 64);
  unknown[64] = '\0';
  CHECK_INT(do_resume(a, unknown, "10.1.1.1").r.status, AGON_EBADTOKEN);

  /* logout revokes: resume then fails; logging out twice fails */
  CHECK_INT(do_logout(a, r1.r.session_id).r.status, 0);
  CHECK_INT(do_resume(a, r1.r.token, "10.1.1.1").r.status, AGON_EBADTOKEN);
  CHECK_INT(do_logout(a, r1.r.session_id).r.status, AGON_EBADTOKEN);
  CHECK_INT(do_logout(a, 999999).r.status, AGON_EBADTOKEN);
  /* the other session is untouched */
  CHECK_INT(do_resume(a, l1.r.token, "10.1.1.1").r.status, 0);
  /* logout by token */
  res lt = {0};
  CHECK_INT(accounts_logout_token(a, l1.r.token, &lt, on_result), 0);
  wait_res(&lt);
  CHECK_INT(lt.r.status, 0);
  CHECK_INT(do_resume(a, l1.r.token, "10.1.1.1").r.status, AGON_EBADTOKEN);

  /* expiry */
  res l2 = do_login(a, "alice", pw, "127.0.0.1");
  CHECK_INT(l2.r.status, 0);
  CHECK_INT(do_resume(a, l2.r.token, NULL).r.status, 0);
  CHECK_INT(scalar("UPDATE sessions SET expires_at = 1 WHERE id = ?1",
                   l2.r.session_id), 1);
  CHECK_INT(do_resume(a, l2.r.token, NULL).r.status, AGON_EBADTOKEN);

  /* survives a restart of the whole storage layer */
  res l3 = do_login(a, "alice", pw, "127.0.0.1");
  CHECK_INT(l3.r.status, 0);
  close_accounts(a);
  db_close(d);
  store_run_drain(&loop);
  db_config cfg;
  db_config_init(&cfg);
  cfg.path = path;
  agon_err err;
  CHECK_INT(db_open(&d, &loop, &cfg, &err), 0);
  a = new_accounts(NULL);
  if (!a) return;
  CHECK_INT(do_resume(a, l3.r.token, NULL).r.status, 0);
  CHECK_INT(do_login(a, "Alice", pw, NULL).r.status, 0);
  CHECK_INT(do_register(a, "ALICE", pw, NULL).r.status, AGON_ENAMETAKEN);

  CHECK_INT(cb_inside, 0);
  close_accounts(a);
}

static void test_rate_limits(void) {
  accounts_config cfg;
  accounts_config_init(&cfg);
  cfg.rl_account_burst = 3;
  cfg.rl_account_period_ms = 3600 * 1000;
  cfg.rl_addr_burst = 8;
  cfg.rl_addr_period_ms = 3600 * 1000;
  accounts *a = new_accounts(&cfg);
  if (!a) return;
  const char *pw = "correct horse";
  CHECK_INT(do_register(a, "Carol", pw, "10.0.0.1").r.status, 0);

  /* per account: 3 failures from different addresses, then limited, even
   * with the right password */
  CHECK_INT(do_login(a, "carol", "nope nope", "10.0.0.2").r.status,
            AGON_EBADCREDENTIALS);
  CHECK_INT(do_login(a, "carol", "nope nope", "10.0.0.3").r.status,
            AGON_EBADCREDENTIALS);
  CHECK_INT(do_login(a, "carol", "nope nope", "10.0.0.4").r.status,
            AGON_EBADCREDENTIALS);
  res x = do_login(a, "CAROL", pw, "10.0.0.5");
  CHECK_INT(x.r.status, AGON_ERATELIMIT);
  CHECK(x.r.retry_after_ms > 0);
  CHECK(strstr(x.r.msg, "retry") != NULL);
  /* other accounts are not affected */
  CHECK_INT(do_register(a, "Dave1", pw, "10.0.0.6").r.status, 0);
  CHECK_INT(do_login(a, "dave1", pw, "10.0.0.6").r.status, 0);

  /* per address: 8 attempts (any outcome), then limited, whatever the name */
  int limited = 0, i;
  for (i = 0; i < 12 && !limited; i++) {
    char name[16];
    snprintf(name, sizeof name, "ghost%d", i);
    res y = do_login(a, name, "whatever1", "192.0.2.7");
    if (y.r.status == AGON_ERATELIMIT) limited = 1;
    else CHECK_INT(y.r.status, AGON_EBADCREDENTIALS);
  }
  CHECK(limited);
  CHECK_INT(i, 9);
  CHECK_INT(do_register(a, "Erin1", pw, "192.0.2.7").r.status, AGON_ERATELIMIT);
  CHECK_INT(do_login(a, "dave1", pw, "192.0.2.8").r.status, 0);

  /* resume: only failures count against the address */
  res ok = do_login(a, "dave1", pw, "198.51.100.1");
  CHECK_INT(ok.r.status, 0);
  for (i = 0; i < 20; i++)
    CHECK_INT(do_resume(a, ok.r.token, "198.51.100.9").r.status, 0);
  for (i = 0; i < 8; i++)
    CHECK_INT(do_resume(a, "bad", "198.51.100.9").r.status, AGON_EBADTOKEN);
  CHECK_INT(do_resume(a, ok.r.token, "198.51.100.9").r.status, AGON_ERATELIMIT);
  close_accounts(a);
}

static void pwhash_of(const char *name, char *out, size_t cap) {
  sqlite3 *c;
  sqlite3_stmt *st;
  out[0] = '\0';
  sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL);
  if (sqlite3_prepare_v2(c, "SELECT pwhash FROM players WHERE name = ?1", -1,
                         &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
      snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(c);
}

/* Raising the limits rehashes a password at its next successful login. */
static void test_rehash(void) {
  accounts *a = new_accounts(NULL);
  if (!a) return;
  CHECK_INT(do_register(a, "Grace", "password one", NULL).r.status, 0);
  close_accounts(a);
  char before[256], after[256], again[256];
  pwhash_of("Grace", before, sizeof before);

  accounts_config cfg;
  accounts_config_init(&cfg);
  accounts *b = NULL;
  agon_err err;
  cfg.opslimit = crypto_pwhash_OPSLIMIT_MIN + 1;
  cfg.memlimit = crypto_pwhash_MEMLIMIT_MIN;
  CHECK_INT(accounts_new(&b, &loop, d, &cfg, &err), 0);
  if (!b) return;
  CHECK_INT(do_login(b, "grace", "wrong password", NULL).r.status,
            AGON_EBADCREDENTIALS);
  pwhash_of("Grace", after, sizeof after);
  CHECK_STR(after, before); /* not on a failed login */
  CHECK_INT(do_login(b, "grace", "password one", NULL).r.status, 0);
  pwhash_of("Grace", after, sizeof after);
  CHECK(strcmp(after, before) != 0);
  CHECK_INT(crypto_pwhash_str_needs_rehash(after, cfg.opslimit, cfg.memlimit), 0);
  CHECK_INT(do_login(b, "grace", "password one", NULL).r.status, 0);
  pwhash_of("Grace", again, sizeof again);
  CHECK_STR(again, after); /* up to date: left alone */
  close_accounts(b);
}

static void test_busy_and_close(void) {
  accounts_config cfg;
  accounts_config_init(&cfg);
  cfg.inflight_max = 2;
  accounts *a = new_accounts(&cfg);
  if (!a) return;
  res x[3] = {{0}};
  CHECK_INT(accounts_login(a, "someone", "password1", NULL, &x[0], on_result), 0);
  CHECK_INT(accounts_register(a, "Frank", "password1", NULL, &x[1], on_result), 0);
  CHECK_INT(accounts_login(a, "someone", "password1", NULL, &x[2], on_result),
            AGON_EBUSY);
  CHECK_INT(accounts_login(a, NULL, "password1", NULL, &x[2], on_result),
            AGON_EINVAL);
  /* close with two requests in flight: both still get their callback, then
   * closed_cb; new requests are refused meanwhile */
  closed = 0;
  accounts_close(a, on_closed, NULL);
  CHECK_INT(accounts_login(a, "someone", "password1", NULL, &x[2], on_result),
            AGON_ESHUTDOWN);
  uint64_t deadline = uv_hrtime() + 10000000000ull;
  while (!closed && uv_hrtime() < deadline) uv_run(&loop, UV_RUN_ONCE);
  CHECK_INT(closed, 1);
  CHECK_INT(x[0].n, 1);
  CHECK_INT(x[1].n, 1);
  CHECK_INT(x[2].n, 0);
  CHECK_INT(x[0].r.status, AGON_EBADCREDENTIALS);
  CHECK_INT(x[1].r.status, 0);
}

int main(void) {
  CHECK_INT(uv_loop_init(&loop), 0);
  if (store_tmpdir(dir, sizeof dir)) return 1;
  snprintf(path, sizeof path, "%s/acc.db", dir);
  db_config cfg;
  db_config_init(&cfg);
  cfg.path = path;
  agon_err err = {0};
  if (db_open(&d, &loop, &cfg, &err) != 0) {
    fprintf(stderr, "db_open: %s\n", err.msg);
    return 1;
  }
  test_rules();
  test_flow();
  test_rate_limits();
  test_rehash();
  test_busy_and_close();
  db_close(d);
  store_run_drain(&loop);
  CHECK_INT(uv_loop_close(&loop), 0);
  store_rmdir(dir);
  return test_summary();
}
