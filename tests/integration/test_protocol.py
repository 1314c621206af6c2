"""hello, ping/pong, every class of bad input (each followed by a request
that succeeds on the same connection), oversized lines, timeouts."""
import json
import sys

from agon_harness import Server, check, err_code, finish


def still_works(c, what):
    r = c.req("ping")
    check(r is not None and r.get("ok") is True,
          "connection still works after " + what)


def main(agond):
    srv = Server(agond, ["--max-line", "1024"]).start()
    try:
        c = srv.client(hello=False)
        # request before hello
        r = c.req("whoami")
        check(err_code(r) == "bad_state", "request before hello -> bad_state")
        r = c.req("hello", version=99)
        check(err_code(r) == "unsupported_version",
              "hello with another version -> unsupported_version")
        r = c.req("hello", version=1, client="test")
        check(r["ok"] is True and r["re"] == "hello", "hello ok")
        d = r["data"]
        check(d["protocol"] == 1, "hello states protocol 1")
        check(d["limits"]["max_line"] == 1024, "hello states max_line")
        check("per_second" in d["limits"]["rate"], "hello states rate limits")
        check(len(d["games"]) >= 1 and all(
            "name" in g and "options" in g and len(g["sides"]) == 2
            for g in d["games"]), "hello lists games with options")

        r = c.req("ping")
        check(r["ok"] and "rtt_ms" in r["data"], "ping answered with rtt_ms")
        c.send({"type": "ping", "id": "str-id"})
        r = c.reply()
        check(r["id"] == "str-id", "string id echoed")

        # -- every class of bad input, then a request that succeeds --
        c.send_raw(b"this is not json\n")
        r = c.reply()
        check(err_code(r) == "bad_json" and r["re"] is None and "id" not in r,
              "malformed JSON -> bad_json, re null, no id")
        still_works(c, "malformed JSON")

        c.send_raw(b'{"type":"ping","id":1\n')
        check(err_code(c.reply()) == "bad_json", "truncated JSON -> bad_json")
        still_works(c, "truncated JSON")

        for raw, what in [(b'[1,2,3]', "array"), (b'42', "number"),
                          (b'"ping"', "string")]:
            c.send_raw(raw + b"\n")
            check(err_code(c.reply()) == "bad_json", "JSON %s -> bad_json" % what)
        still_works(c, "non-object JSON")

        c.send_raw(b'{"type":"ping","type":"hello","id":5}\n')
        check(err_code(c.reply()) == "bad_json", "duplicate keys -> bad_json")
        still_works(c, "duplicate keys")

        c.send_raw(b'{"type":"ping","id":"\xff\xfe"}\n')
        check(err_code(c.reply()) == "bad_json", "invalid UTF-8 -> bad_json")
        still_works(c, "invalid UTF-8")

        c.send_raw(b'{"type":"ping","id":1}   {"x":1}\n')
        check(err_code(c.reply()) == "bad_json", "trailing garbage -> bad_json")

        c.send({"id": 9})
        r = c.reply()
        check(err_code(r) == "bad_field" and r.get("id") == 9,
              "missing type -> bad_field with id echoed")
        c.send({"type": 12, "id": 10})
        check(err_code(c.reply()) == "bad_field", "mistyped type -> bad_field")
        c.send({"type": "ping", "id": [1]})
        check(err_code(c.reply()) == "bad_field", "mistyped id -> bad_field")
        c.send({"type": "ping", "id": "x" * 65})
        check(err_code(c.reply()) == "bad_field", "overlong id -> bad_field")
        still_works(c, "bad type/id")

        r = c.req("no_such_thing")
        check(err_code(r) == "unknown_type" and r["re"] == "no_such_thing",
              "unknown type -> unknown_type")
        still_works(c, "unknown type")

        r = c.req("login", name="alice")
        check(err_code(r) == "bad_field", "missing field -> bad_field")
        r = c.req("login", name="alice", password=123)
        check(err_code(r) == "bad_field", "mistyped field -> bad_field")
        r = c.req("ping", extra=1)
        check(err_code(r) == "bad_field", "unknown field -> bad_field")
        r = c.req("pong", nonce="x")
        check(err_code(r) == "bad_field", "mistyped nonce -> bad_field")
        still_works(c, "missing/mistyped fields")

        r = c.req("whoami")
        check(err_code(r) == "unauthenticated", "whoami unauthenticated")
        r = c.req("logout")
        check(err_code(r) == "unauthenticated", "logout unauthenticated")
        still_works(c, "unauthenticated action")

        # blank lines are ignored
        c.send_raw(b"\n\r\n")
        still_works(c, "blank lines")

        # -- oversized line: error, skipped to its newline, then fine --
        big = b'{"type":"ping","pad":"' + b"a" * 5000 + b'"}\n'
        c.send_raw(big)
        r = c.reply()
        check(err_code(r) == "line_too_long" and r["re"] is None,
              "oversized line -> line_too_long")
        still_works(c, "oversized line")
        # the over-long line split across many writes, and a line right
        # after it in the same write
        c.send_raw(b'{"type":"ping","pad":"' + b"b" * 1500)
        c.send_raw(b"c" * 3000)
        c.send_raw(b'"}\n{"type":"ping","id":77}\n')
        r = c.reply()
        check(err_code(r) == "line_too_long", "split oversized line -> line_too_long")
        r = c.reply()
        check(r.get("id") == 77 and r["ok"], "line after the oversized one served")
        # exactly at the limit is fine
        pad = 1024 - len(b'{"type":"ping","id":78,"x":""}')
        c.send_raw(b'{"type":"ping","id":78,"x":"' + b"y" * pad + b'"}\n')
        r = c.reply()
        check(err_code(r) == "bad_field" and r["id"] == 78,
              "a line of exactly max_line bytes is parsed")
        # pipelined requests in one write, answered in order
        c.send_raw(b"".join(b'{"type":"ping","id":%d}\n' % i
                            for i in range(100, 110)))
        ids = [c.reply()["id"] for _ in range(10)]
        check(ids == list(range(100, 110)), "pipelined replies in order")
        c.close()
    finally:
        srv.stop_checked()
        srv.cleanup()

    # -- keepalive and timeouts --
    srv = Server(agond, ["--ping-interval-ms", "200", "--ping-timeout-ms", "3000",
                         "--hello-timeout-ms", "500", "--idle-timeout-ms", "5000"]).start()
    try:
        c = srv.client()
        ev = c.event("ping")
        check(ev is not None and "nonce" in ev and "re" not in ev,
              "server ping event with nonce, no re")
        r = c.req("pong", nonce=ev["nonce"])
        check(r["ok"] and isinstance(r["data"]["rtt_ms"], int),
              "pong answered with the measured rtt_ms")
        r = c.req("ping")
        check(isinstance(r["data"]["rtt_ms"], int), "ping reports the last rtt")
        r = c.req("pong", nonce=123456)
        check(err_code(r) == "bad_state", "pong with a wrong nonce -> bad_state")
        still_works(c, "wrong nonce")

        h = srv.client(hello=False)
        ev = h.event("disconnect")
        check(ev is not None and ev["reason"] == "hello_timeout",
              "no hello -> disconnect event hello_timeout")
        check(h.closed(), "no hello -> closed")
    finally:
        srv.stop_checked()
        srv.cleanup()

    srv = Server(agond, ["--idle-timeout-ms", "300", "--ping-interval-ms", "0"]).start()
    try:
        c = srv.client()
        ev = c.event("disconnect")
        check(ev is not None and ev["reason"] == "idle_timeout",
              "idle unauthenticated -> disconnect idle_timeout")
        check(c.closed(), "idle -> closed")
    finally:
        srv.stop_checked()
        srv.cleanup()


def config_file(agond):
    import os
    import tempfile
    tmp = tempfile.mkdtemp(prefix="agond-conf-")
    conf = os.path.join(tmp, "agond.conf")
    with open(conf, "w") as f:
        f.write("# test config\nmax-line = 2048\nrate 7\nport = 1\n")
    # the flag (--port 0 from the harness) overrides the file's port
    srv = Server(agond, ["--config", conf], tmpdir=tmp).start()
    try:
        d = srv.client(hello=False).req("hello")["data"]
        check(d["limits"]["max_line"] == 2048 and
              d["limits"]["rate"]["per_second"] == 7,
              "config file settings applied, flags override it")
    finally:
        srv.stop_checked("config file")
        srv.cleanup()
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])
    config_file(sys.argv[1])
    finish()
