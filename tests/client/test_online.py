"""Online play with the agon client against a real agond (--port 0,
temporary database): two players (two config directories) play complete
games of all five rulesets with the scriptable subcommands (seek in the
background, accept, move, play, games-mine, seeks), legal moves picked by
agon-rules from the position the client prints; the screen and the turn
line checked; a resignation; a game that survives an agond restart in the
middle (the client reconnects and rejoins with its last seq); requests cut
off by a relay with other events in the gap (a later seq is not taken for
the request's own commit).

usage: test_online.py AGON AGOND AGON_RULES"""
import json
import os
import random
import shutil
import subprocess
import sys
import socket
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from client_harness import Tmux, check, finish  # noqa: E402
from agon_harness import Client, Server  # noqa: E402

AGON, AGOND, RULES = sys.argv[1], sys.argv[2], sys.argv[3]
GAMES = ["gambit-of-kings", "gambo-2019", "gambo-2023", "gwezboell", "gomony"]
MAX_PLIES = 600  # then resign: every game still ends with a result
PASSWORD = "correct horse battery"
TIMEOUT = 30
CFGS = []


class Player:
    def __init__(self, name):
        self.name = name
        self.cfg = tempfile.mkdtemp(prefix="agon-cfg-%s-" % name)
        CFGS.append(self.cfg)

    def env(self):
        e = dict(os.environ, XDG_CONFIG_HOME=self.cfg, AGON_PASSWORD=PASSWORD)
        return e

    def args(self, *a):
        return [AGON, "--port", str(srv.port)] + list(a)

    def run(self, *a):
        return subprocess.run(self.args(*a), capture_output=True, text=True,
                              env=self.env(), timeout=TIMEOUT,
                              stdin=subprocess.DEVNULL)

    def json(self, *a):
        r = self.run("--json", *a)
        try:
            return r.returncode, json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return r.returncode, {"stdout": r.stdout, "stderr": r.stderr}


class Proxy:
    """A TCP relay on its own port 0 in front of agond: cut() drops every
    connection (a network failure), retarget() follows a restarted agond
    to its new port while the clients keep the relay's.

    Sockets are only shut down from other threads; each is closed by the
    last thread that uses it (the accept thread for the listener, the
    second pipe of a pair for its two sockets). A descriptor closed while
    another thread is about to use it can be reused by the next accept,
    and that thread would then read another connection's bytes.

    The listener above all: close(2) on it does not wake a thread blocked
    in accept(2), which keeps the socket listening; when the kernel
    restarts that call (after the process is stopped and continued:
    SIGSTOP/SIGCONT, a cgroup freeze, a ptrace attach) it accepts on the
    same descriptor number, by then the next relay's listener (every relay
    gets the same lowest free number). The old relay's thread then takes
    one connection from the new one, relays it and counts it itself: the
    client follows the game, the new relay counts one connection too few.
    So close() shuts the listener down (which wakes the accept) and waits
    for the accept thread to have closed it."""

    def __init__(self, port):
        self.target = port
        self.lsock = socket.socket()
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(16)
        self.port = self.lsock.getsockname()[1]
        self.socks = []
        self.accepted = 0
        self.closed = False
        self.cut_on = None  # bytes: cut everything when the server sends it
        # bytes: drop the next client chunk holding it (a request lost on
        # the way: agond never sees it); dropped is set when that happened.
        self.drop_up = None
        self.dropped = threading.Event()
        self.lock = threading.Lock()
        self.t0 = time.time()
        self.events = []  # what happened, for a failed check's message
        self.acceptor = threading.Thread(target=self._accept, daemon=True)
        self.acceptor.start()

    def _event(self, what):  # with the lock held
        self.events.append("%.3f %s" % (time.time() - self.t0, what))

    def note(self, what):
        with self.lock:
            self._event(what)

    def history(self):
        with self.lock:
            return "; ".join(self.events)

    def _accept(self):
        while not self.closed:
            try:
                c, peer = self.lsock.accept()
            except OSError:
                break
            try:
                u = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError as e:
                self.note("accepted port %d, agond refused (%s)" % (peer[1], e))
                c.close()
                continue
            u.settimeout(None)  # the 5 s were for connecting: idle is fine
            with self.lock:
                if self.closed:
                    c.close()
                    u.close()
                    break
                self.socks += [c, u]
                self.accepted += 1
                self._event("relaying port %d" % peer[1])
            pair = [2]  # pipes of this pair still running
            for x, y, down in ((c, u, False), (u, c, True)):
                threading.Thread(target=self._pipe,
                                 args=(x, y, down, peer[1], pair),
                                 daemon=True).start()
        self.lsock.close()

    def _pipe(self, x, y, down, port, pair):
        why = "end of stream"
        try:
            while True:
                d = x.recv(65536)
                if not d:
                    break
                if down and self.cut_on and self.cut_on in d:
                    self.cut_on = None
                    self.cut()
                    break
                if not down and self.drop_up and self.drop_up in d:
                    self.drop_up = None
                    self.note("port %d up: dropped %r" % (port, d[:80]))
                    self.dropped.set()
                    continue
                y.sendall(d)
        except OSError as e:
            why = str(e)
        for z in (x, y):
            try:
                z.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        with self.lock:
            self._event("port %d %s: %s" % (port, "down" if down else "up", why))
            pair[0] -= 1
            if pair[0] == 0:  # under the lock: cut() may be shutting them
                self.socks = [z for z in self.socks if z is not x and z is not y]
                x.close()
                y.close()

    def cut(self):
        with self.lock:
            self._event("cut %d sockets" % len(self.socks))
            for z in self.socks:
                try:
                    z.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def retarget(self, port):
        self.target = port

    def close(self):
        with self.lock:
            self.closed = True
        try:
            self.lsock.shutdown(socket.SHUT_RDWR)  # wakes the accept
        except OSError:
            pass
        self.cut()
        # No thread of this relay may be left in accept() (see above).
        self.acceptor.join(10)
        if self.acceptor.is_alive():
            raise RuntimeError("relay: the accept thread did not end")


def share_session(p, from_port, to_port):
    """Sessions are saved per host:port: make p's usable on another port."""
    path = os.path.join(p.cfg, "agon", "sessions.json")
    with open(path) as f:
        data = json.load(f)
    data["127.0.0.1:%d" % to_port] = data["127.0.0.1:%d" % from_port]
    with open(path, "w") as f:
        json.dump(data, f)


def start(a, b, game, tc="60+0", extra=()):
    """a seeks (in the background, it waits for the opponent), b accepts."""
    p = subprocess.Popen(a.args("--json", "seek", game, "--tc", tc, *extra),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=a.env(), stdin=subprocess.DEVNULL)
    first = json.loads(p.stdout.readline())
    check(first.get("ok") and first.get("seek_id"),
          "%s: seek prints its id: %r" % (game, first))
    rc, lst = b.json("seeks", game)
    check(rc == 0 and any(s["seek_id"] == first["seek_id"] for s in lst["seeks"]),
          "%s: seeks lists it" % game)
    rc, acc = b.json("accept", str(first["seek_id"]))
    out, err = p.communicate(timeout=TIMEOUT)
    st = json.loads(out.strip().splitlines()[-1])
    check(rc == 0 and acc.get("event") == "game_start" and p.returncode == 0
          and st.get("event") == "game_start" and st["game_id"] == acc["game_id"],
          "%s: accept starts the game for both (%r / %r)" % (game, acc, st))
    return acc


def legal(state):
    args = [RULES, "legal", state["game"]]
    for k, v in sorted((state.get("options") or {}).items()):
        if v in ("", None):
            continue
        args += ["-o", "%s=%s" % (k, str(v).lower() if isinstance(v, bool) else v)]
    args += ["--position", state["position"]]
    r = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, (args, r.stderr)
    return [l for l in r.stdout.split("\n") if l.strip()]


def play_out(players, state, rng, max_plies=MAX_PLIES):
    """Random legal moves, each by the player the client says is to move,
    until the game ends. Returns (final state, plies)."""
    by_name = {p.name: p for p in players}
    gid = str(state["game_id"])
    plies = 0
    while state.get("outcome") is None and "game_end" not in state:
        if plies >= max_plies:
            mover = by_name[state["to_move_player"]]
            rc, state = mover.json("resign", gid)
            break
        mover = by_name[state["to_move_player"]]
        mv = rng.choice(legal(state))
        rc, nstate = mover.json("move", gid, mv)
        # +1, or +2 when the move ended the game (game_end has its seq).
        if rc != 0 or nstate.get("seq") not in (state["seq"] + 1, state["seq"] + 2):
            check(False, "move %s by %s accepted: %r" % (mv, mover.name, nstate))
            return nstate, plies
        state = nstate
        plies += 1
    return state, plies


def main():
    a, b = Player("alice"), Player("bob")
    rng = random.Random(11)
    for p in (a, b):
        r = p.run("register", p.name)
        check(r.returncode == 0, "register %s: %s" % (p.name, r.stderr))

    for game in GAMES:
        st = start(a, b, game)
        gid = str(st["game_id"])
        rc, mine = a.json("games-mine")
        check(rc == 0 and any(str(g["game_id"]) == gid for g in mine["games"]),
              "%s: games-mine lists the game" % game)
        # The plain screen: board, names and whose turn.
        r = a.run("play", gid)
        # Names by side once sides are known; a Gambo chooser game names
        # the opponent in the message until the choice.
        check(r.returncode == 0 and "bob" in r.stdout
              and "to move" in r.stdout.splitlines()[-1],
              "%s: play GAME-ID prints the screen and the turn (%r)" % (game, r.stderr))
        # bob follows the game in the background: the broadcast move events
        # applied by his client's rules core, one turn line per change.
        fol = subprocess.Popen(b.args("play", gid, "--follow"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=b.env(), stdin=subprocess.DEVNULL)
        rc, state = a.json("play", gid)
        final, plies = play_out([a, b], state, rng)
        end = final.get("game_end") or {}
        check(end.get("result") in ("win", "draw"),
              "%s: played to a result (%d plies, %r)" % (game, plies, end))
        out, err = fol.communicate(timeout=TIMEOUT)
        lines = out.strip().splitlines()
        turns = [l for l in lines if l.startswith("game %s: " % gid)]
        check(fol.returncode == 0 and turns and "game over" in turns[-1],
              "%s: the follower ends with the result: %r" % (game, turns[-1:]))
        check(len(turns) >= plies,
              "%s: the follower saw every move (%d lines, %d plies)" % (game, len(turns), plies))
        if end.get("result") == "win":
            check(end["winner"] and end["winner"].lower() in turns[-1].lower(),
                  "%s: the result names the winner %s" % (game, end["winner"]))
        rc, mv = a.json("move", gid, "x")
        # game_over while the finished room lives, not_found once gone.
        check(rc == 1 and mv.get("error", {}).get("code") in ("game_over", "not_found"),
              "%s: a move after the end is refused, exit 1 (%r)" % (game, mv))

    # Resignation by the player not to move, with the text output.
    st = start(a, b, "gomony")
    gid = str(st["game_id"])
    waiting = b if st["to_move_player"] == a.name else a
    r = waiting.run("resign", gid)
    check(r.returncode == 0 and "game over" in r.stdout and "resign" in r.stdout,
          "resign: text output shows the result: %r" % r.stdout[-200:])

    # A wrong move: refused with the rules core's reason, exit 1, the game
    # unchanged.
    st = start(a, b, "gwezboell")
    gid = str(st["game_id"])
    mover = a if st["to_move_player"] == a.name else b
    other = b if mover is a else a
    r = other.run("move", gid, legal(st)[0])
    check(r.returncode == 1 and "not your turn" in r.stderr.lower().replace("_", " "),
          "out of turn: refused (%r)" % r.stderr)

    seek_reconnects(a, b)
    move_reply_lost(a, b, rng)
    cut_with_an_event_in_the_gap(a, b)
    interactive(a, b, rng)
    seek_on_terminal(a, b, rng)

    # Restart agond in the middle of a game: the moves continue from the
    # stored state, the client reconnects and rejoins.
    rc, state = mover.json("move", gid, rng.choice(legal(st)))
    check(rc == 0 and state["seq"] == st["seq"] + 1, "a move before the restart")
    global srv
    srv.stop()
    srv.start()
    # The port changed (--port 0): the saved session is per host:port, so
    # carry the tokens over.
    for p in (a, b):
        fix_session(p, srv.port)
    rc, state2 = other.json("play", gid)
    check(rc == 0 and state2["seq"] == state["seq"] and
          state2["position"] == state["position"],
          "after the restart the game resumes at the same seq and position")
    final, plies = play_out([a, b], state2, rng, max_plies=10)
    check(final.get("game_end") is not None, "the resumed game ends (%d plies)" % plies)


def interactive(a, b, rng):
    """alice plays in the full-screen view on a terminal (tmux), through a
    relay that loses the connection and then reaches a restarted agond;
    bob plays with the subcommands. The view shows bob's moves as the
    server broadcasts them, before and after each reconnection."""
    global srv
    st = start(a, b, "gwezboell")
    gid = str(st["game_id"])
    proxy = Proxy(srv.port)
    share_session(a, srv.port, proxy.port)
    t = Tmux([AGON, "--port", str(proxy.port), "play", gid],
             env={"XDG_CONFIG_HOME": a.cfg})
    try:
        scr = t.wait(lambda s: "online game" in s and "bob" in s)
        check(scr is not None, "play GAME-ID on a terminal shows the game")

        def bob_state():
            return b.json("play", gid)[1]

        def step(what):
            """The player to move makes one move; alice's screen must show
            it (her own typed one too, confirmed by the server)."""
            state = bob_state()
            mv = rng.choice(state["legal"])
            if state["to_move_player"] == "alice":
                t.type(mv)
                t.keys("Enter")
            else:
                rc, _ = b.json("move", gid, mv)
            ok = t.wait(lambda s: "ply %d" % (state["seq"] + 1) in s and mv in s,
                        timeout=40)
            check(ok is not None, "%s: alice's screen shows %s at ply %d"
                  % (what, mv, state["seq"] + 1))
            if ok is None:
                print(t.screen())

        step("move")
        step("move")
        proxy.cut()
        step("after a cut connection")
        step("after a cut connection")
        # The screen can show the moves an instant before the relay thread
        # has counted the new connection: wait (bounded) for the count.
        end = time.time() + 20
        while proxy.accepted < 2 and time.time() < end:
            time.sleep(0.05)
        check(proxy.accepted == 2, "alice's client reconnected after the cut "
              "(%d connections: %s)" % (proxy.accepted, proxy.history()))
        scr = t.screen()
        srv.stop()
        srv.start()
        proxy.retarget(srv.port)
        for p in (a, b):
            fix_session(p, srv.port)
        share_session(a, srv.port, proxy.port)
        step("after an agond restart")
        step("after an agond restart")
        check(proxy.accepted == 3, "and again after the restart (%d: %s)"
              % (proxy.accepted, proxy.history()))
        t.type("resign")
        t.keys("Enter")
        scr = t.wait(lambda s: "Game over" in s, timeout=20)
        check(scr is not None and "resign" in scr,
              "resign in the view: the result is shown")
        t.type("quit")
        t.keys("Enter")
        check(t.exit_status() == "0", "quit leaves the view, exit 0")
    finally:
        t.close()
        proxy.close()


def seek_on_terminal(a, b, rng):
    """agon seek on a terminal waits, then opens the play view with the
    server's clocks when the opponent accepts; a draw offered in the view
    and accepted there too is not possible alone, so the game ends by
    resignation from the view."""
    import re
    t = Tmux([AGON, "--port", str(srv.port), "seek", "gomony", "--tc", "5+3"],
             env={"XDG_CONFIG_HOME": a.cfg})
    try:
        scr = t.wait_text("waiting for an opponent")
        m = re.search(r"seek (\d+): waiting", scr or "")
        check(m is not None, "seek on a terminal waits for an opponent")
        if not m:
            return
        rc, st = b.json("accept", m.group(1))
        check(rc == 0, "bob accepts the terminal's seek")
        scr = t.wait(lambda s: "online game" in s and "bob" in s)
        check(scr is not None, "the seek turns into the play view")
        check(scr is not None and re.search(r"\b0[45]:\d\d\b", scr),
              "the view shows the server's 5+3 clocks")
        gid = str(st["game_id"])
        for i in range(2):
            state = b.json("play", gid)[1]
            mv = rng.choice(state["legal"])
            if state["to_move_player"] == "alice":
                t.type(mv)
                t.keys("Enter")
            else:
                b.json("move", gid, mv)
            ok = t.wait(lambda s: "ply %d" % (state["seq"] + 1) in s)
            check(ok is not None, "seek view: ply %d shown" % (state["seq"] + 1))
        t.type("draw")
        t.keys("Enter")
        check(t.wait_text("Draw offered") is not None, "draw offered from the view")
        rc, _ = b.json("resign", gid)
        scr = t.wait(lambda s: "Game over" in s)
        check(scr is not None and "resign" in scr,
              "the opponent's resignation reaches the view")
        t.type("quit")
        t.keys("Enter")
        check(t.exit_status() == "0", "seek view: quit, exit 0")
    finally:
        t.close()


def seek_reconnects(a, b):
    """A seek lives as long as its connection: agon seek reconnects after a
    cut and posts it again; the opponent accepts the new one."""
    proxy = Proxy(srv.port)
    share_session(a, srv.port, proxy.port)
    p = subprocess.Popen([AGON, "--port", str(proxy.port), "--json", "seek",
                          "gwezboell"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=a.env(),
                         stdin=subprocess.DEVNULL)
    try:
        first = json.loads(p.stdout.readline() or "{}")
        proxy.cut()
        second = json.loads(p.stdout.readline() or "{}")
        check(first.get("seek_id") and second.get("seek_id") and
              second["seek_id"] != first["seek_id"],
              "seek: posted again after the connection was cut (%r, %r)"
              % (first, second))
        rc, lst = b.json("seeks", "gwezboell")
        ids = [x["seek_id"] for x in lst.get("seeks", [])]
        check(second.get("seek_id") in ids and first.get("seek_id") not in ids,
              "seeks: the old seek is gone, the new one open (%r)" % ids)
        rc, acc = b.json("accept", str(second.get("seek_id")))
        out, err = p.communicate(timeout=TIMEOUT)
        st = json.loads(out.strip().splitlines()[-1])
        check(p.returncode == 0 and st.get("event") == "game_start" and
              st.get("game_id") == acc.get("game_id"),
              "seek: the reposted seek starts the game (%r)" % st)
        b.json("resign", str(acc.get("game_id")))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        proxy.close()


def move_reply_lost(a, b, rng):
    """The connection drops after the move was sent, before its reply came
    back: agon move reconnects, rejoins, sees the move committed (seq moved
    on) and does not send it twice."""
    st = start(a, b, "gomony")
    gid = str(st["game_id"])
    mover = a if st["to_move_player"] == "alice" else b
    proxy = Proxy(srv.port)
    share_session(mover, srv.port, proxy.port)
    try:
        proxy.cut_on = b'"re":"move"'
        mv = st["legal"][0]
        r = subprocess.run([AGON, "--port", str(proxy.port), "--json", "move",
                            gid, mv], capture_output=True, text=True,
                           env=mover.env(), timeout=TIMEOUT,
                           stdin=subprocess.DEVNULL)
        try:
            after = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            after = {"stdout": r.stdout, "stderr": r.stderr}
        check(proxy.cut_on is None and proxy.accepted == 2,
              "the reply to the move was cut off; the client reconnected "
              "(%d connections)" % proxy.accepted)
        check(r.returncode == 0 and after.get("seq") == st["seq"] + 1 and
              after.get("last_move") == mv,
              "move: committed once, reported after the rejoin (%r)"
              % {k: after.get(k) for k in ("seq", "last_move", "stderr")})
        rc, other = b.json("play", gid)
        check(other.get("seq") == st["seq"] + 1,
              "the server has exactly one move (seq %r)" % other.get("seq"))
        b.json("resign", gid)
    finally:
        proxy.close()


def last_json(r):
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"stdout": r.stdout, "stderr": r.stderr}


def attach(p, gid):
    """A bare protocol connection of p joined to game gid, left open: it
    keeps the game's room alive after the end (a finished room is freed
    once no connection is attached), as the opponent's open view would."""
    c = Client(srv.port)
    ok = all((c.req(t, **f) or {}).get("ok") for t, f in (
        ("hello", {"version": 1, "client": "test"}),
        ("login", {"name": p.name, "password": PASSWORD}),
        ("join", {"game_id": int(gid)})))
    check(ok, "%s attached to game %s" % (p.name, gid))
    return c


def cut_with_an_event_in_the_gap(a, b):
    """A request in flight when the connection drops while another event
    takes the next seq: the client must not take the later seq for its own
    commit, nor send again what was committed. Three games through a relay
    (the mover's client only):
    - the relay drops the move request (agond never sees it) and cuts the
      connection when the opponent's draw offer comes down: after the
      rejoin the move is sent again and made once;
    - a draw offer and a resignation whose replies are cut off: reported
      done once, not sent again into bad_state / game_over;
    - a dropped move with the opponent's resignation in the gap: game_over,
      exit 1, not success."""
    proxy = Proxy(srv.port)
    for p in (a, b):
        share_session(p, srv.port, proxy.port)

    def new_game():
        st = start(a, b, "gomony")
        mover = a if st["to_move_player"] == "alice" else b
        return st, str(st["game_id"]), mover, (b if mover is a else a)

    def via_relay(p, *args):
        return subprocess.Popen([AGON, "--port", str(proxy.port), "--json"] +
                                list(args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env=p.env(), stdin=subprocess.DEVNULL)

    def finished(p):
        out, err = p.communicate(timeout=TIMEOUT)
        return out, last_json(subprocess.CompletedProcess(p.args, p.returncode,
                                                          out, err))

    def lose_move(p, gid, mv):
        """p's move, its request dropped by the relay."""
        proxy.dropped.clear()
        proxy.drop_up = b'"type":"move"'
        run = via_relay(p, "move", gid, mv)
        held = proxy.dropped.wait(TIMEOUT)
        check(held, "the relay dropped the move request%s"
              % ("" if held else " (%s)" % proxy.history()))
        return run

    try:
        # 1. The opponent's draw offer in the gap.
        st, gid, mover, other = new_game()
        seq, mv, n = st["seq"], st["legal"][0], proxy.accepted
        run = lose_move(mover, gid, mv)
        # Set only now: the join reply before the move names draw_offer too.
        proxy.cut_on = b'"draw_offer"'
        rc, _ = other.json("draw", gid)
        check(rc == 0, "the opponent offers a draw while the move is lost")
        _, after = finished(run)
        rc, srv_st = other.json("play", gid)
        check(run.returncode == 0 and after.get("seq") == seq + 2 and
              after.get("last_move") == mv,
              "move: not taken as committed for the draw offer's seq; sent "
              "again after the rejoin (%r)" % {k: after.get(k) for k in (
                  "seq", "last_move", "error", "stderr")})
        check(srv_st.get("seq") == seq + 2 and
              srv_st.get("position") == after.get("position") and
              proxy.accepted == n + 2,
              "the server has the move once, after the offer (seq %r; "
              "%d connections: %s)" % (srv_st.get("seq"), proxy.accepted - n,
                                       proxy.history()))
        other.json("resign", gid)

        # 2. A draw offer and a resignation, their replies cut off. The
        # opponent's connection stays attached (else the finished room is
        # freed and the rejoin finds no live game).
        st, gid, mover, other = new_game()
        seq = st["seq"]
        proxy.cut_on = b'"re":"draw_offer"'
        _, after = finished(via_relay(mover, "draw", gid))
        rc, srv_st = other.json("play", gid)
        check(proxy.cut_on is None and after.get("seq") == seq + 1 and
              "error" not in after,
              "draw offer: reply cut off, reported done once (%r)" % after)
        check(srv_st.get("seq") == seq + 1,
              "the server has one draw offer (seq %r)" % srv_st.get("seq"))
        att = attach(other, gid)
        proxy.cut_on = b'"re":"resign"'
        out, after = finished(via_relay(mover, "resign", gid))
        end = after.get("game_end") or {}
        names = [x["name"] for x in after.get("players", [])]
        check(proxy.cut_on is None and end.get("reason") == "resign" and
              end.get("seq") == seq + 2 and
              end.get("winner_seat") in (0, 1) and
              names[end["winner_seat"]] == other.name and
              len(out.strip().splitlines()) == 1,
              "resign: reply cut off, reported done once (%r)" % after)
        att.close()

        # 3. The opponent's resignation in the gap: the move was not made.
        st, gid, mover, other = new_game()
        att = attach(mover, gid)
        run = lose_move(mover, gid, st["legal"][0])
        proxy.cut_on = b'"game_end"'
        rc, _ = other.json("resign", gid)
        check(rc == 0, "the opponent resigns while the move is lost")
        _, after = finished(run)
        check(run.returncode == 1 and
              (after.get("error") or {}).get("code") == "game_over",
              "move: the opponent's resignation in the gap is not a "
              "committed move: game_over, exit 1 (%r)" % after)
        att.close()
    finally:
        proxy.close()


def fix_session(p, port):
    """After a restart (--port 0 gives a new port) keep the saved token."""
    path = os.path.join(p.cfg, "agon", "sessions.json")
    with open(path) as f:
        data = json.load(f)
    first = list(data.values())[0]
    data["127.0.0.1:%d" % port] = first
    with open(path, "w") as f:
        json.dump(data, f)


def serve(body):
    """Run body() against a fresh agond (the module's srv), then clean up.
    test_watch.py imports this module and runs its own body."""
    global srv
    srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0",
                              "--login-addr-burst", "100000"]).start()
    try:
        body()
    finally:
        for d in CFGS:
            shutil.rmtree(d, ignore_errors=True)
        if srv.proc and srv.proc.poll() is None:
            srv.stop()
        srv.cleanup()
    finish()


srv = None
if __name__ == "__main__":
    serve(main)
