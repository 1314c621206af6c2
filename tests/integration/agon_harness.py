"""Helpers for agond integration tests: start a real agond on an ephemeral
loopback port with a temporary database, talk newline-delimited JSON.

Standard library only. Every wait is bounded (TIMEOUT seconds)."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

TIMEOUT = 10.0
FAILED = []


def check(cond, what):
    if cond:
        print("ok   " + what)
    else:
        print("FAIL " + what)
        FAILED.append(what)
    return cond


def finish():
    if FAILED:
        print("%d check(s) failed:" % len(FAILED))
        for f in FAILED:
            print("  " + f)
        sys.exit(1)
    print("all passed")
    sys.exit(0)


def sanitized(agond):
    """True if the binary at agond was built with AddressSanitizer."""
    with open(agond, "rb") as f:
        return b"__asan_init" in f.read()


class Server:
    """agond with --port 0 and a temporary database (kept across restart)."""

    def __init__(self, agond, extra=(), tmpdir=None, fast=True):
        self.agond = os.path.abspath(agond)
        self.own_tmp = tmpdir is None
        self.tmpdir = tmpdir or tempfile.mkdtemp(prefix="agond-test-")
        self.db = os.path.join(self.tmpdir, "var", "agon.db")
        self.extra = list(extra)
        self.fast = fast
        self.proc = None
        self.port = None
        self.stderr_path = os.path.join(self.tmpdir, "agond.log")

    def start(self):
        args = [self.agond, "--port", "0", "--db", self.db,
                "--log-level", "debug"]
        if self.fast:
            args.append("--pwhash-fast")
        args += self.extra
        self.errf = open(self.stderr_path, "ab")
        env = dict(os.environ)
        if self.sanitized():
            # ASan keeps freed memory in a quarantine (256 MiB by default),
            # which would swamp the memory checks; the leak/UB checks stay.
            env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                                   ":quarantine_size_mb=0"
                                   ":thread_local_quarantine_size_kb=0").lstrip(":")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE,
                                     stderr=self.errf, cwd=self.tmpdir,
                                     env=env)
        line = self._readline_timeout(self.proc.stdout, TIMEOUT)
        if not line.startswith(b"listening on 127.0.0.1:"):
            self.kill()
            raise RuntimeError("agond did not start: %r\n%s" %
                               (line, self.log()))
        self.port = int(line.strip().rsplit(b":", 1)[1])
        return self

    @staticmethod
    def _readline_timeout(f, timeout):
        import selectors
        sel = selectors.DefaultSelector()
        sel.register(f, selectors.EVENT_READ)
        if not sel.select(timeout):
            return b""
        return f.readline()

    def sanitized(self):
        """True if agond was built with AddressSanitizer."""
        return sanitized(self.agond)

    def log(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def rss_kib(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return -1

    def signal(self, sig):
        self.proc.send_signal(sig)

    def wait(self, timeout=TIMEOUT):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self):
        """SIGTERM and wait; returns the exit status."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        rc = self.wait()
        if rc is None:
            self.kill()
        return rc

    def stop_checked(self, what="agond"):
        """SIGTERM; check exit 0 and no sanitizer report in the log."""
        rc = self.stop()
        check(rc == 0, "%s exits 0 on SIGTERM (got %r)" % (what, rc))
        log = self.log()
        check("AddressSanitizer" not in log and "LeakSanitizer" not in log
              and "runtime error:" not in log, "%s: no sanitizer report" % what)
        return rc

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def client(self, hello=True, **kw):
        c = Client(self.port, **kw)
        if hello:
            r = c.req("hello", version=1)
            assert r.get("ok"), r
        return c

    def cleanup(self):
        self.kill()
        if self.own_tmp:
            shutil.rmtree(self.tmpdir, ignore_errors=True)


class Client:
    def __init__(self, port, rcvbuf=None, timeout=TIMEOUT):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        self.buf = b""
        self.next_id = 1
        self.events = []

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, obj):
        self.send_raw(json.dumps(obj).encode() + b"\n")

    def recv_line(self):
        """Next line as bytes, or None on EOF/reset."""
        while b"\n" not in self.buf:
            try:
                d = self.sock.recv(65536)
            except (ConnectionResetError, socket.timeout):
                return None
            if not d:
                return None
            self.buf += d
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def recv(self):
        line = self.recv_line()
        return None if line is None else json.loads(line)

    def reply(self):
        """Next reply (objects with "re"); events are kept in self.events."""
        while True:
            m = self.recv()
            if m is None or "re" in m:
                return m
            self.events.append(m)

    def event(self, name=None):
        for i, e in enumerate(self.events):
            if name is None or e.get("event") == name:
                return self.events.pop(i)
        while True:
            m = self.recv()
            if m is None:
                return None
            if "event" in m and (name is None or m["event"] == name):
                return m
            if "event" in m:
                self.events.append(m)

    def req(self, type_, **fields):
        rid = self.next_id
        self.next_id += 1
        msg = {"type": type_, "id": rid}
        msg.update(fields)
        self.send(msg)
        r = self.reply()
        if r is not None and r.get("id") != rid:
            raise AssertionError("reply id %r for request %r" % (r, rid))
        return r

    def closed(self, timeout=TIMEOUT):
        """True if the server closes the connection within timeout
        (reading and discarding what it sends)."""
        self.sock.settimeout(timeout)
        end = time.time() + timeout
        while time.time() < end:
            try:
                d = self.sock.recv(65536)
            except ConnectionResetError:
                return True
            except socket.timeout:
                return False
            if not d:
                return True
            self.buf += d
        return False

    def close(self):
        self.sock.close()


def err_code(r):
    return r and not r.get("ok") and r.get("error", {}).get("code")


# ---- live play helpers ------------------------------------------------------

def register(srv, name, password="password-123"):
    """A connected, registered client; .name and .token set."""
    c = srv.client()
    r = c.req("register", name=name, password=password)
    assert r and r.get("ok"), r
    c.name = r["data"]["name"]
    c.token = r["data"]["token"]
    return c


def resume(srv, token):
    c = srv.client()
    r = c.req("resume", token=token)
    assert r and r.get("ok"), r
    c.name = r["data"]["name"]
    c.token = token
    return c


def seed_ok(commitment, seed):
    """Check a revealed seed against its commitment (docs/fair-deal.md)."""
    import hashlib
    return hashlib.sha256(("agon-seed:%s" % seed).encode()).hexdigest() == commitment


class Game:
    """Client-side view of one game between two clients: who sits where,
    who is to move, the moves so far (to ask agon-rules for legal moves)."""

    def __init__(self, gid, start, clients):
        self.gid = gid
        self.start = start
        self.clients = clients          # by seat
        self.game = start["game"]
        self.options = start["options"]
        self.pos0 = start["state"].get("position")
        self.sides = [p["side"] for p in start["players"]]
        self.chooser = start.get("chooser_seat")
        self.to_move = start["state"]["to_move"]
        self.seq = start["seq"]
        self.moves = []
        self.outcome = None

    def seat_to_move(self):
        if self.to_move is None:
            return None
        if self.to_move == "chooser":
            return self.chooser
        return self.sides.index(self.to_move)

    def opts_args(self):
        out = []
        for k, v in sorted(self.options.items()):
            if v == "" or v is None:
                continue
            out += ["-o", "%s=%s" % (k, v)]
        return out

    def legal(self, rules):
        import subprocess
        args = [rules, "legal", self.game] + self.opts_args()
        if self.pos0:
            args += ["--position", self.pos0]
        args += self.moves
        p = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT)
        assert p.returncode == 0, (args, p.stderr)
        return [l for l in p.stdout.split("\n") if l.strip()]

    def note_move(self, ev):
        """Apply a broadcast move event to our view."""
        self.moves.append(ev["move"])
        self.seq = ev["seq"]
        self.to_move = ev["to_move"]
        if ev.get("sides"):
            self.sides = ev["sides"]
        if ev.get("outcome"):
            self.outcome = ev["outcome"]

    def play(self, move, check_events=True):
        """The seat to move plays move; returns (reply, event). Both players'
        move events are read (the other one is checked equal)."""
        seat = self.seat_to_move()
        c = self.clients[seat]
        r = c.req("move", game_id=self.gid, move=move, seq=self.seq)
        if not r or not r.get("ok"):
            return r, None
        ev = c.event("move")
        ev2 = self.clients[1 - seat].event("move")
        if check_events:
            assert ev == ev2, (ev, ev2)
            assert ev["seq"] == r["data"]["seq"], (ev, r)
        self.note_move(ev)
        return r, ev


def start_game(srv, a, b, game, how="seek", **params):
    """a creates (seat 0), b accepts (seat 1). Returns a Game."""
    p = {"game": game}
    p.update(params)
    if how == "seek":
        r = a.req("seek_create", **p)
        assert r and r.get("ok"), r
        r2 = b.req("seek_accept", seek_id=r["data"]["seek_id"])
    elif how == "challenge":
        r = a.req("challenge", to=b.name, **p)
        assert r and r.get("ok"), r
        ev = b.event("challenge")
        assert ev and ev["challenge_id"] == r["data"]["challenge_id"], ev
        r2 = b.req("challenge_accept", challenge_id=ev["challenge_id"])
    else:
        r = a.req("invite_create", **p)
        assert r and r.get("ok"), r
        r2 = b.req("invite_join", code=r["data"]["code"])
    assert r2 and r2.get("ok"), r2
    gid = r2["data"]["game_id"]
    sa = a.event("game_start")
    sb = b.event("game_start")
    assert sa["game_id"] == gid and sb["game_id"] == gid, (sa, sb)
    return Game(gid, sa, [a, b])
