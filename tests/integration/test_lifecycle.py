"""Graceful shutdown (clients told, exit 0, consistent database), restart
on the existing database, second signal exits at once without corrupting
the database; a failed start (port taken, newer schema) exits cleanly."""
import os
import shutil
import socket
import subprocess
import signal
import sqlite3
import sys
import tempfile
import threading
import time

from agon_harness import Server, check, err_code, finish, sanitized


def integrity(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def graceful(agond, tmp):
    srv = Server(agond, tmpdir=tmp).start()
    c = srv.client()
    r = c.req("register", name="carol", password="password one")
    check(r["ok"], "register before shutdown")
    tok = r["data"]["token"]
    idle = [srv.client() for _ in range(5)]
    srv.signal(signal.SIGTERM)
    ev = c.event("shutdown")
    check(ev is not None and "re" not in ev and ev.get("reason"),
          "clients get a shutdown event")
    check(c.closed(), "server closes connections at shutdown")
    check(all(i.event("shutdown") for i in idle), "every client told")
    rc = srv.wait()
    check(rc == 0, "graceful shutdown exits 0 (got %r)" % rc)
    check(integrity(srv.db) == "ok", "database consistent after shutdown")
    log = srv.log()
    check("database closed" in log, "log: database closed")
    check("not clean" not in log, "loop closed cleanly")
    check("AddressSanitizer" not in log and "runtime error:" not in log,
          "no sanitizer report")
    return tok


def restart(agond, tmp, tok):
    srv = Server(agond, tmpdir=tmp).start()
    try:
        c = srv.client()
        r = c.req("login", name="carol", password="password one")
        check(r["ok"], "restart: account survived")
        r = c.req("resume", token=tok)
        check(err_code(r) == "already_authenticated", "restart: still logged in")
        c2 = srv.client()
        r = c2.req("resume", token=tok)
        check(r["ok"] and r["data"]["name"] == "carol",
              "restart: token from before the restart resumes")
    finally:
        srv.stop_checked("restart")


def second_signal(agond, tmp):
    srv = Server(agond, ["--shutdown-deadline-ms", "60000",
                         "--write-queue-max", "16777216",
                         "--rate", "0", "--addr-rate", "0",
                         "--login-addr-burst", "1000000"], tmpdir=tmp).start()
    # Keep the writer busy: many clients registering (each a write job).
    stop = threading.Event()
    count = [0]
    acked = []

    def worker(k):
        try:
            c = srv.client()
            i = 0
            while not stop.is_set():
                i += 1
                r = c.req("register", name="u%d_%d" % (k, i), password="password two")
                if r is None:
                    return
                if r.get("ok"):
                    count[0] += 1
                    acked.append(r["data"]["name"])
                    c.req("logout")
        except OSError:
            pass

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    # A client that never reads, with output queued for it, keeps the
    # graceful shutdown waiting (its deadline is 60 s): only the second
    # signal can end the process now.
    slow = srv.client(rcvbuf=4096)
    slow.send_raw(b'{"type":"hello"}\n' * 20000)  # more than kernel buffers hold
    time.sleep(1.0)
    srv.signal(signal.SIGINT)
    time.sleep(0.2)
    srv.signal(signal.SIGINT)
    rc = srv.wait(20)
    stop.set()
    for t in ts:
        t.join(10)
    slow.close()
    check(rc == 1, "second signal exits at once with status 1 (rc %r)" % rc)
    check("second signal" in srv.log(), "log: second signal")
    print("    %d registrations before the second signal" % count[0])
    check(integrity(srv.db) == "ok", "database consistent after the second signal")
    con = sqlite3.connect(srv.db)
    have = set(r[0] for r in con.execute("SELECT name FROM players"))
    con.close()
    lost = [n for n in acked if n not in have]
    check(not lost, "no acknowledged registration lost (%d acked, %d lost)"
          % (len(acked), len(lost)))
    srv2 = Server(agond, tmpdir=tmp).start()
    try:
        c = srv2.client()
        r = c.req("login", name="carol", password="password one")
        check(r["ok"], "restart after the second signal: data intact")
    finally:
        srv2.stop_checked("restart after the second signal")


def newer_schema(agond, tmp):
    db = os.path.join(tmp, "var", "agon.db")
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 9999")
    con.commit()
    con.close()
    srv = Server(agond, tmpdir=tmp)
    try:
        srv.start()
        started = True
    except RuntimeError:
        started = False
    rc = srv.wait(5)
    check(not started and rc not in (0, None),
          "a database from a newer version is refused (rc %r)" % rc)
    check("newer" in srv.log().lower(), "with a clear message")
    srv.kill()


def port_in_use(agond, tmp):
    """A start that fails at listen (everything else already open) exits 1
    with the reason, and frees what it opened without touching freed
    memory: the listener's close callback used to run after server_free
    had freed the struct holding it. libuv is not instrumented by ASan, so
    the memory check is valgrind's, where it is installed (scripts/deps.sh
    installs it; the ASan build cannot run under valgrind)."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = str(taken.getsockname()[1])
    db = os.path.join(tmp, "inuse", "agon.db")
    args = [os.path.abspath(agond), "--port", port, "--db", db,
            "--pwhash-fast"]
    asan = sanitized(agond)
    grind = shutil.which("valgrind") and not asan
    if grind:
        args = ["valgrind", "-q", "--error-exitcode=99",
                "--leak-check=full", "--errors-for-leak-kinds=definite"] + args
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    finally:
        taken.close()
    check(p.returncode == 1,
          "port in use: exit 1 (got %r)\n%s" % (p.returncode, p.stderr[-3000:]))
    check("address already in use" in p.stderr, "port in use: says why")
    check("AddressSanitizer" not in p.stderr and "runtime error:" not in p.stderr,
          "port in use: no sanitizer report")
    if not grind:
        print("NOTE: port in use: memory not checked by valgrind (%s)" %
              ("ASan build" if asan else "valgrind not installed"))


def main(agond):
    tmp = tempfile.mkdtemp(prefix="agond-life-")
    tok = graceful(agond, tmp)
    restart(agond, tmp, tok)
    second_signal(agond, tmp)
    newer_schema(agond, tmp)
    port_in_use(agond, tmp)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])
    finish()
