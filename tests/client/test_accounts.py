"""agon against a real agond (--port 0, temporary database): ping, register,
token saved with private permissions, automatic resume, login, logout, a
revoked token forgotten, errors in text and JSON.

usage: test_accounts.py AGON AGOND"""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from client_harness import check, finish, run
from agon_harness import Server

AGON, AGOND = sys.argv[1], sys.argv[2]
CFG = tempfile.mkdtemp(prefix="agon-cfg-")
PASSWORD = "correct horse battery"


def agon(*args, password=None, stdin=None, new_session=False):
    env = dict(os.environ, XDG_CONFIG_HOME=CFG)
    env.pop("AGON_PASSWORD", None)
    if password is not None:
        env["AGON_PASSWORD"] = password
    return subprocess.run([AGON, "--port", str(srv.port)] + list(args),
                          input=stdin, capture_output=True, text=True,
                          env=env, timeout=30, start_new_session=new_session)


srv = Server(AGOND).start()
first_srv = srv
restarted = []
try:
    sessions = os.path.join(CFG, "agon", "sessions.json")
    key = "127.0.0.1:%d" % srv.port

    r = agon("ping")
    check(r.returncode == 0 and re.match(r"pong from 127\.0\.0\.1:\d+ in "
                                         r"[0-9.]+ ms", r.stdout),
          "ping prints the round trip: %r" % r.stdout)
    r = agon("--json", "ping")
    j = json.loads(r.stdout)
    check(j["ok"] and j["rtt_ms"] >= 0 and j["port"] == srv.port,
          "ping --json: one JSON line")

    r = agon("whoami")
    check(r.returncode == 1 and "not logged in" in r.stderr,
          "whoami before any login: exit 1, not logged in")

    r = agon("register", "alice", password=PASSWORD, new_session=True)
    check(r.returncode == 0 and "logged in as alice" in r.stdout,
          "register with AGON_PASSWORD: %r %r" % (r.stdout, r.stderr))
    check(os.path.exists(sessions), "the session file exists")
    mode = stat.S_IMODE(os.stat(sessions).st_mode)
    dmode = stat.S_IMODE(os.stat(os.path.dirname(sessions)).st_mode)
    check(mode == 0o600, "session file mode 0600 (got %o)" % mode)
    check(dmode == 0o700, "config dir mode 0700 (got %o)" % dmode)
    saved = json.load(open(sessions))
    tok1 = saved.get(key, {}).get("token", "")
    check(re.fullmatch(r"[0-9a-f]{64}", tok1) is not None and
          saved[key]["name"] == "alice", "token saved under host:port")

    r = agon("whoami")
    check(r.returncode == 0 and r.stdout.startswith("alice (player "),
          "whoami resumes the saved session: %r" % r.stdout)
    r = agon("--json", "whoami")
    j = json.loads(r.stdout)
    check(j["ok"] and j["name"] == "alice" and j["player_id"] >= 1,
          "whoami --json")

    r = agon("--json", "register", "ALICE", password=PASSWORD)
    j = json.loads(r.stdout)
    check(r.returncode == 1 and j["error"]["code"] == "name_taken",
          "register a taken name: name_taken in JSON, exit 1")
    r = agon("--json", "register", "bob", password="short")
    j = json.loads(r.stdout)
    check(r.returncode == 1 and j["error"]["code"] == "weak_password",
          "register with a short password: weak_password")
    r = agon("login", "alice", password="wrong password!")
    check(r.returncode == 1 and "wrong name or password" in r.stderr,
          "login with a wrong password: exit 1 and the server's message")
    check(json.load(open(sessions))[key]["token"] == tok1,
          "a failed login keeps the saved session")

    r = agon("login", "alice", "--password-stdin", stdin=PASSWORD + "\n")
    check(r.returncode == 0 and "logged in as alice" in r.stdout,
          "login --password-stdin")
    tok2 = json.load(open(sessions))[key]["token"]
    check(tok2 != tok1 and re.fullmatch(r"[0-9a-f]{64}", tok2) is not None,
          "login saves a new token")

    # Reconnection: agond restarts (same database, same port) in the middle
    # of `agon ping --count 4`; the client reconnects, resumes the saved
    # session by itself and finishes the count.
    env = dict(os.environ, XDG_CONFIG_HOME=CFG)
    p = subprocess.Popen([AGON, "--port", str(srv.port), "ping", "--count",
                          "4", "--interval", "400"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    first = p.stdout.readline()
    check(first.startswith("pong from"), "ping --count: first round trip")
    old = srv
    srv.stop()
    srv = Server(AGOND, extra=["--port", str(old.port)],
                 tmpdir=old.tmpdir).start()
    restarted.append(srv)
    check(srv.port == old.port, "agond restarted on the same port")
    try:
        out, err = p.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    check(p.returncode == 0 and "reconnected to 127.0.0.1:%d, resumed as "
          "alice" % srv.port in out and out.count("pong from") == 3 and
          "connection lost" in err,
          "ping reconnects after a server restart and resumes the session: "
          "%r %r" % (out, err))
    r = agon("whoami")
    check(r.returncode == 0 and r.stdout.startswith("alice"),
          "the saved session survives the server restart")

    r = agon("login", "alice", new_session=True,
             stdin="")  # no terminal, no AGON_PASSWORD
    check(r.returncode == 2 and "AGON_PASSWORD" in r.stderr,
          "no terminal and no password source: exit 2 with advice")

    # logout revokes the session; a copy of the revoked token is forgotten
    backup = open(sessions).read()
    r = agon("logout")
    check(r.returncode == 0 and "logged out alice" in r.stdout, "logout")
    check(key not in json.load(open(sessions)), "logout forgets the token")
    r = agon("logout")
    check(r.returncode == 1 and "not logged in" in r.stderr,
          "logout again: not logged in")
    open(sessions, "w").write(backup)
    r = agon("whoami")
    check(r.returncode == 1 and "expired" in r.stderr,
          "a revoked token: told to log in again")
    check(key not in json.load(open(sessions)),
          "the revoked token is removed from the file")

    # connection refused
    env = dict(os.environ, XDG_CONFIG_HOME=CFG)
    r = subprocess.run([AGON, "--port", "1", "--json", "ping"],
                       capture_output=True, text=True, env=env, timeout=30)
    j = json.loads(r.stdout)
    check(r.returncode == 1 and not j["ok"] and "cannot connect" in
          j["error"]["message"], "no server: exit 1 with a JSON error")
    srv.stop_checked()
finally:
    for x in restarted:
        x.cleanup()
    first_srv.cleanup()  # owns the temporary directory
    shutil.rmtree(CFG, ignore_errors=True)
finish()
