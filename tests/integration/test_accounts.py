"""register / login / logout / token resume, wrong password, duplicate
name, name and password rules, login rate limit."""
import sys
import time

from agon_harness import Server, check, err_code, finish


def main(agond):
    srv = Server(agond, ["--login-account-burst", "3",
                         "--login-account-period-ms", "60000"]).start()
    try:
        c = srv.client()
        r = c.req("register", name="Alice_1", password="correct horse")
        check(r["ok"] is True, "register ok")
        d = r["data"]
        check(d["name"] == "Alice_1" and d["player_id"] > 0, "register gives id and name")
        tok = d.get("token", "")
        check(isinstance(tok, str) and len(tok) >= 32, "register gives a session token")
        check(isinstance(d.get("expires_at_ms"), int), "token has an expiry")
        r = c.req("whoami")
        check(r["ok"] and r["data"]["name"] == "Alice_1", "whoami after register")
        r = c.req("login", name="Alice_1", password="correct horse")
        check(err_code(r) == "already_authenticated", "login while logged in refused")
        r = c.req("logout")
        check(r["ok"], "logout ok")
        r = c.req("whoami")
        check(err_code(r) == "unauthenticated", "whoami after logout")
        r = c.req("resume", token=tok)
        check(err_code(r) == "bad_token", "resume with the logged-out token -> bad_token")
        c.req("ping")

        r = c.req("register", name="alice_1", password="another pass")
        check(err_code(r) == "name_taken", "duplicate name (other case) -> name_taken")
        r = c.req("register", name="a", password="another pass")
        check(err_code(r) == "bad_name", "short name -> bad_name")
        r = c.req("register", name="bad name!", password="another pass")
        check(err_code(r) == "bad_name", "bad characters -> bad_name")
        r = c.req("register", name="bob", password="x")
        check(err_code(r) == "weak_password", "short password -> weak_password")
        check(c.req("ping")["ok"], "connection fine after account errors")

        r = c.req("login", name="ALICE_1", password="correct horse")
        check(r["ok"] and r["data"]["name"] == "Alice_1",
              "login case-insensitive, canonical name returned")
        tok2 = r["data"]["token"]
        check(tok2 != tok, "login gives a new token")
        c.close()

        # resume on another connection
        c2 = srv.client()
        r = c2.req("resume", token=tok2)
        check(r["ok"] and r["data"]["name"] == "Alice_1", "resume with a token")
        check("token" not in r["data"] or not r["data"]["token"],
              "resume does not hand out a token")
        r = c2.req("whoami")
        check(r["ok"] and r["data"]["name"] == "Alice_1", "whoami after resume")
        r = c2.req("resume", token=tok2)
        check(err_code(r) == "already_authenticated", "resume twice refused")
        c2.close()

        c3 = srv.client()
        r = c3.req("resume", token="00" * 32)
        check(err_code(r) == "bad_token", "unknown token -> bad_token")
        r = c3.req("resume", token="not hex at all")
        check(err_code(r) == "bad_token", "garbage token -> bad_token")
        r = c3.req("login", name="Alice_1", password="wrong password")
        check(err_code(r) == "bad_credentials", "wrong password -> bad_credentials")
        r = c3.req("login", name="nobody_here", password="whatever1")
        check(err_code(r) == "bad_credentials", "unknown name -> bad_credentials")
        check(c3.req("ping")["ok"], "connection fine after failed logins")

        # per-account login limit: burst 3 failures, then rate_limited
        codes = []
        for _ in range(5):
            codes.append(err_code(c3.req("login", name="Alice_1",
                                         password="wrong password")))
        lim = [x for x in codes if x == "rate_limited"]
        check(len(lim) >= 1, "repeated failed logins -> rate_limited (%s)" % codes)
        c3.send({"type": "login", "id": 99, "name": "Alice_1",
                 "password": "wrong password"})
        r = c3.reply()
        check(err_code(r) == "rate_limited" and
              r["error"].get("retry_after_ms", 0) > 0,
              "login rate_limited carries retry_after_ms")
        check(c3.req("ping")["ok"], "connection fine after login rate limit")
        # Connections that leave while their accounts request is in flight:
        # the callback must not touch freed memory (ASan run), the server
        # goes on.
        for i in range(5):
            q = srv.client()
            q.send({"type": "register", "id": 1, "name": "gone_%d" % i,
                    "password": "password three"})
            q.send({"type": "login", "id": 2, "name": "Alice_1",
                    "password": "correct horse"})
            q.close()
        c4 = srv.client()
        check(c4.req("ping")["ok"], "server fine after peers left mid-request")
        # and at shutdown with requests in flight
        q = srv.client()
        q.send({"type": "login", "id": 1, "name": "Alice_1",
                "password": "correct horse"})
    finally:
        srv.stop_checked()
        srv.cleanup()


if __name__ == "__main__":
    main(sys.argv[1])
    finish()
