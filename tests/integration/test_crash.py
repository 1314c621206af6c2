"""Crash test: while several games are being played, kill -9 agond, restart
it on the same database, and check that nothing acknowledged was lost.

    test_crash.py AGOND AGON_RULES [rounds=20]

One game of each ruleset runs at once, each driven by its own thread: the
side to move (asked of the rules core through agon-rules, never assumed to
alternate) sends a random legal move with the last seq it saw, waits for
the acknowledgement, and the opponent reads the move event. After a random
short time the server gets SIGKILL, usually with moves in flight. Then, per
round:

  1. with the server down, the database holds every move any client saw
     acknowledged (reply to the mover or event to the opponent), with the
     same seq and canonical text; the stored moves of each game are a legal
     sequence (agon-rules replays them); a move that was in flight at the
     kill is either absent or exactly the move sent;
  2. agond restarts on the same database; the players resume their sessions
     (tokens survive), games_mine lists exactly the games that are still
     undecided, and join with the last seq each player saw returns exactly
     the moves it missed, plus a snapshot whose board and ply are those of
     the stored moves replayed by the rules core, and whose clocks (Fischer
     games) are those stored with the last move: the waiting seat's exactly,
     the running seat's less at most the time since the restart (never the
     downtime);
  3. play continues from that position: the next moves are accepted.

Finished games are replaced by new ones between the same players. Every
wait is bounded (harness TIMEOUT); no timing assertion.
"""
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

from agon_harness import Server, check, err_code, finish, FAILED

ROW_S = "M2,E3,C1,E1,M3,C2,M1,C3,E2"
ROW_N = "C3,M1,E2,M3,C1,E1,C2,E3,M2"
# Options that make the start position independent of the secret seed, so
# the test can replay moves with agon-rules before the seed is revealed.
GAMES = [
    ("gomony", {}, "untimed"),
    ("gwezboell", {}, "10+5"),
    ("gambit-of-kings", {"first": "light"}, "untimed"),
    ("gambo-2023", {"chooser": "creator", "south": ROW_S, "north": ROW_N}, "10+5"),
    ("gambo-2019", {"chooser": "creator", "south": ROW_S, "north": ROW_N}, "untimed"),
]
PLAY_MIN_S, PLAY_MAX_S = 0.15, 0.6   # play time before each kill
EXTRA = ["--rate", "0", "--addr-rate", "0", "--login-addr-burst", "1000000",
         "--log-level", "info"]

AGON_RULES = None


class Dead(Exception):
    """The server went away (expected only after the kill)."""


def need(x, what):
    if x is None:
        raise Dead(what)
    return x


def rules(cmd, game, opts, moves, extra=()):
    args = [AGON_RULES, cmd, game]
    for k, v in sorted(opts.items()):
        args += ["-o", "%s=%s" % (k, v)]
    args += list(extra) + list(moves)
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def position(game, opts, moves):
    """(view dict, legal move list) of the position after moves."""
    rc, out, err = rules("show", game, opts, moves, ["--json"])
    if rc != 0:
        raise AssertionError("agon-rules show %s %r: %s" % (game, moves, err))
    view = json.loads(out)
    legal = []
    if view.get("outcome") is None:
        rc, out, err = rules("legal", game, opts, moves)
        if rc != 0:
            raise AssertionError("agon-rules legal: %s" % err)
        legal = [l for l in out.splitlines() if l.strip()]
    return view, legal


class Pair:
    """Two players who play one game after another."""

    def __init__(self, k, spec):
        self.k = k
        self.game, self.opts, self.tc = spec
        self.names = ["cr%da" % k, "cr%db" % k]
        self.tokens = [None, None]
        self.clients = [None, None]
        self.gid = None          # current game (None: none live)
        self.games = {}          # gid -> Game record
        self.moves_sent = 0
        self.errors = []

    def cur(self):
        return self.games.get(self.gid)


class Game:
    def __init__(self, gid, pair):
        self.gid = gid
        self.pair = pair
        self.moves = []          # [(seq, text)]: the server's moves as we know them
        self.acked = {}          # seq -> text: seen acknowledged (reply or event)
        self.seen_seq = [0, 0]   # last seq each seat was told
        self.start_seq = 0
        self.seat_of_side = {}
        self.chooser_seat = None
        self.inflight = None     # (seq expected, text) sent without a reply yet
        self.over = False

    def last_seq(self):
        return self.moves[-1][0] if self.moves else self.start_seq


def start_game(pair):
    """seat 0 creates a seek, seat 1 accepts; both get game_start."""
    c0, c1 = pair.clients
    side = "random"
    if not pair.game.startswith("gambo"):
        side = SIDES[pair.game][0]
    r = need(c0.req("seek_create", game=pair.game, options=pair.opts,
                    time_control=pair.tc, side=side, rated=False), "seek_create")
    if not r.get("ok"):
        raise AssertionError("seek_create: %r" % r)
    r = need(c1.req("seek_accept", seek_id=r["data"]["seek_id"]), "seek_accept")
    if not r.get("ok"):
        raise AssertionError("seek_accept: %r" % r)
    gid = r["data"]["game_id"]
    g = Game(gid, pair)
    for seat, c in enumerate(pair.clients):
        ev = need(c.event("game_start"), "game_start")
        if ev.get("game_id") != gid:
            raise AssertionError("game_start for seat %d: %r" % (seat, ev))
        g.start_seq = ev.get("seq", 0)
        g.seen_seq[seat] = g.start_seq
        for p in ev["players"]:
            if p.get("side"):
                g.seat_of_side[p["side"]] = p["seat"]
        g.chooser_seat = ev.get("chooser_seat")
    pair.games[gid] = g
    pair.gid = gid
    return g


def seat_to_move(g, view):
    tm = view.get("to_move")
    if tm == "chooser":
        return g.chooser_seat
    return g.seat_of_side.get(tm)


def note_choice(g, seat, text):
    """After 'choose <side>': the chooser plays that side."""
    if text.startswith("choose "):
        side = text.split()[1]
        sides = SIDES[g.pair.game]
        other = sides[1] if side == sides[0] else sides[0]
        g.seat_of_side[side] = seat
        g.seat_of_side[other] = 1 - seat


def play(pair, stop, dying):
    """Thread: play the pair's games until stop is set or the server dies."""
    try:
        while not stop.is_set():
            g = pair.cur()
            if g is None or g.over:
                g = start_game(pair)
            view, legal = position(pair.game, pair.opts, [m for _, m in g.moves])
            if view.get("outcome") is not None:
                g.over = True
                continue
            seat = seat_to_move(g, view)
            if seat is None:
                raise AssertionError("game %d: no seat for to_move %r" %
                                     (g.gid, view.get("to_move")))
            mover, other = pair.clients[seat], pair.clients[1 - seat]
            text = random.choice(legal)
            g.inflight = (g.last_seq() + 1, text)
            pair.moves_sent += 1
            r = need(mover.req("move", game_id=g.gid, move=text,
                               seq=g.last_seq()), "move reply")
            if not r.get("ok"):
                raise AssertionError("game %d (%s): move %r refused: %r" %
                                     (g.gid, pair.game, text, r))
            d = r["data"]
            g.inflight = None
            g.acked[d["seq"]] = d["move"]
            g.moves.append((d["seq"], d["move"]))
            g.seen_seq[seat] = d["seq"]
            note_choice(g, seat, d["move"])
            # the opponent is told too (after the same commit)
            ev = need(other.event("move"), "move event")
            if ev.get("seq") != d["seq"] or ev.get("move") != d["move"]:
                raise AssertionError("opponent's event %r for ack %r" % (ev, d))
            g.seen_seq[1 - seat] = ev["seq"]
            need(mover.event("move"), "own move event")
            if ev.get("outcome") is not None:
                g.over = True
                for c in pair.clients:
                    need(c.event("game_end"), "game_end")
    except (OSError, ValueError, Dead) as e:
        if not dying.is_set():
            pair.errors.append("game thread %d: %r" % (pair.k, e))
    except AssertionError as e:
        pair.errors.append(str(e))


def stored_moves(db, gid):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return [(s, m) for s, m in con.execute(
            "SELECT seq, move FROM moves WHERE game_id=? ORDER BY seq", (gid,))]
    finally:
        con.close()


def stored_clocks(db, gid):
    """Clocks per seat stored with the game's last move, or None."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        row = con.execute("SELECT clock0_ms, clock1_ms FROM moves WHERE game_id=?"
                          " ORDER BY seq DESC LIMIT 1", (gid,)).fetchone()
        return list(row) if row and row[0] is not None else None
    finally:
        con.close()


def base_ms(tc):
    """Initial time per seat of a "B+I" time control (minutes)."""
    return int(float(tc.split("+")[0]) * 60000)


def game_status(db, gid):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        row = con.execute("SELECT status FROM games WHERE id=?", (gid,)).fetchone()
        return row[0] if row else None
    finally:
        con.close()


def verify_down(db, pairs, rnd, stats):
    """Server is dead: every acknowledged move is stored."""
    ok = True
    for p in pairs:
        for gid, g in p.games.items():
            stored = stored_moves(db, gid)
            st = dict(stored)
            lost = [(s, m) for s, m in sorted(g.acked.items()) if st.get(s) != m]
            if lost:
                ok = check(False, "round %d: game %d (%s): acknowledged moves "
                           "missing or changed in the database: %r" %
                           (rnd, gid, p.game, lost[:5])) and ok
            known = [m for _, m in g.moves]
            if [m for _, m in stored[:len(known)]] != known:
                ok = check(False, "round %d: game %d: stored moves do not "
                           "extend the acknowledged ones" % (rnd, gid)) and ok
            if g.inflight is not None:
                stats["inflight"] += 1
                seq, text = g.inflight
                if seq in st:
                    stats["inflight_stored"] += 1
                    if st[seq] != text:
                        ok = check(False, "round %d: game %d: in-flight move "
                                   "stored as %r, sent %r" %
                                   (rnd, gid, st[seq], text)) and ok
                g.inflight = None
            if len(stored) > len(g.moves):
                stats["unacked_stored"] += len(stored) - len(g.moves)
            seqs = [s for s, _ in stored]
            if seqs != sorted(set(seqs)):
                ok = check(False, "game %d: duplicate or unordered seqs" % gid) and ok
            # the stored game replays through the rules core
            rc, _, err = rules("legal", p.game, p.opts, [m for _, m in stored])
            if rc != 0:
                ok = check(False, "round %d: game %d: stored moves do not "
                           "replay: %s" % (rnd, gid, err.strip())) and ok
            g.stored = stored
            if p.tc != "untimed":
                g.stored_clocks = (stored_clocks(db, gid) or
                                   [base_ms(p.tc), base_ms(p.tc)])
    return ok


def resume_round(srv, pairs, rnd, t_restart):
    """Server restarted: resume, games_mine, join with the last seq seen.
    t_restart: monotonic time just before agond was started again."""
    ok = True
    for p in pairs:
        for seat in range(2):
            c = srv.client()
            r = c.req("resume", token=p.tokens[seat])
            if not (r and r.get("ok")):
                return check(False, "round %d: resume %s: %r" % (rnd, p.names[seat], r))
            p.clients[seat] = c
        g = p.cur()
        if g is None:
            continue
        stored = g.stored
        view, _ = position(p.game, p.opts, [m for _, m in stored])
        live = view.get("outcome") is None
        for seat in range(2):
            c = p.clients[seat]
            r = c.req("games_mine")
            ids = [x["game_id"] for x in r["data"]["games"]] if r and r.get("ok") else None
            ok = check(ids is not None and (g.gid in ids) == live,
                       "round %d: games_mine of %s %s game %d (live per replay: %s)" %
                       (rnd, p.names[seat], "lists" if live else "omits", g.gid,
                        live)) and ok
            if not live:
                continue
            since = g.seen_seq[seat]
            r = c.req("join", game_id=g.gid, since_seq=since)
            if not (r and r.get("ok")):
                ok = check(False, "round %d: join %d: %r" % (rnd, g.gid, r)) and ok
                continue
            d = r["data"]
            missed = [(s, m) for s, m in stored if s > since]
            got = [(e["seq"], e["move"]) for e in d.get("events", [])
                   if e.get("event") == "move"]
            ok = check(got == missed,
                       "round %d: join %d since %d returns the missed moves "
                       "(%d)" % (rnd, g.gid, since, len(missed))) and ok
            snap = d.get("game", {}).get("state", {})
            ok = check(snap.get("ply") == view.get("ply") and
                       snap.get("board") == view.get("board"),
                       "round %d: game %d resumes at the stored position "
                       "(ply %s)" % (rnd, g.gid, view.get("ply"))) and ok
            if p.tc != "untimed":
                # Time is not charged while the server is down: the waiting
                # seat has exactly its stored time, the running one at most
                # what ran since this restart (the kill, the checks above
                # and the restart took longer than that).
                elapsed = (time.monotonic() - t_restart) * 1000 + 2
                clk = d.get("game", {}).get("clocks", {})
                ms, run = clk.get("ms"), clk.get("running")
                want = g.stored_clocks
                good = (isinstance(ms, list) and len(ms) == 2 and
                        all(ms[s] == want[s] for s in (0, 1) if s != run) and
                        (run is None or want[run] - elapsed <= ms[run] <= want[run]))
                ok = check(good, "round %d: game %d clocks resume from the stored "
                           "%r (got %r, running %r, %.0f ms since the restart)" %
                           (rnd, g.gid, want, ms, run, elapsed)) and ok
        if live:
            g.moves = list(stored)
            g.acked.update(dict(stored))
            # rebuild the chooser mapping from the stored moves
            for seq, m in stored:
                if m.startswith("choose "):
                    note_choice(g, g.chooser_seat, m)
            g.seen_seq = [g.last_seq(), g.last_seq()]
        else:
            g.over = True
    return ok


SIDES = {}


def main():
    global AGON_RULES
    agond = sys.argv[1]
    AGON_RULES = os.path.abspath(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    random.seed(int(os.environ.get("CRASH_SEED", "0")) or None)
    tmp = tempfile.mkdtemp(prefix="agond-crash-")
    srv = Server(agond, EXTRA, tmpdir=tmp)
    pairs = [Pair(k, spec) for k, spec in enumerate(GAMES)]
    stats = {"inflight": 0, "inflight_stored": 0, "unacked_stored": 0,
             "acked": 0, "games": 0}
    try:
        srv.start()
        c = srv.client()
        hello = c.req("hello", version=1)
        for gdesc in hello["data"]["games"]:
            SIDES[gdesc["name"]] = gdesc["sides"]
        c.close()
        for p in pairs:
            for seat in range(2):
                cl = srv.client()
                r = cl.req("register", name=p.names[seat], password="crash test pw")
                if not check(r and r.get("ok"), "register %s" % p.names[seat]):
                    return
                p.tokens[seat] = r["data"]["token"]
                p.clients[seat] = cl
        for rnd in range(1, rounds + 1):
            stop, dying = threading.Event(), threading.Event()
            threads = [threading.Thread(target=play, args=(p, stop, dying),
                                        daemon=True) for p in pairs]
            for t in threads:
                t.start()
            time.sleep(random.uniform(PLAY_MIN_S, PLAY_MAX_S))
            dying.set()
            srv.kill()  # SIGKILL while moves are in flight: no drain, no commit
            stop.set()
            for t in threads:
                t.join(30)
            errs = [e for p in pairs for e in p.errors]
            for p in pairs:
                p.errors = []
            if not check(not errs and all(not t.is_alive() for t in threads),
                         "round %d: play without errors %s" % (rnd, errs[:3])):
                break
            for p in pairs:
                for cl in p.clients:
                    cl.close()
            if not check(verify_down(srv.db, pairs, rnd, stats),
                         "round %d: every acknowledged move is stored" % rnd):
                break
            t_restart = time.monotonic()
            srv.start()
            if not check(resume_round(srv, pairs, rnd, t_restart),
                         "round %d: restart resumes every game where it stood" % rnd):
                break
        # the games go on after the last restart
        stop, dying = threading.Event(), threading.Event()
        threads = [threading.Thread(target=play, args=(p, stop, dying),
                                    daemon=True) for p in pairs]
        for t in threads:
            t.start()
        time.sleep(0.3)
        stop.set()
        for t in threads:
            t.join(30)
        errs = [e for p in pairs for e in p.errors]
        check(not errs, "after the last restart the games continue %s" % errs[:3])
        for p in pairs:
            stats["games"] += len(p.games)
            stats["acked"] += sum(len(g.acked) for g in p.games.values())
        print("crash test: %d rounds, %d games, %d moves acknowledged, "
              "%d kills with a move in flight (%d of those moves were stored "
              "before the kill), %d unacknowledged moves found stored" %
              (rounds, stats["games"], stats["acked"], stats["inflight"],
               stats["inflight_stored"], stats["unacked_stored"]))
        srv.stop_checked("agond after the crash rounds")
    finally:
        srv.kill()
        if FAILED:
            print("agond log tail:\n" + srv.log()[-3000:])
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    finish()
