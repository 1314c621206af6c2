"""End to end: two real `agon` clients in pseudo-terminals (tmux, 80x24)
play a complete game of each of the five rulesets against a real agond
(127.0.0.1, --port 0, temporary database) while a third `agon` watches.

For each ruleset alice runs `agon seek GAME` in pane A, bob `agon accept
ID` in pane B (both turn into the play view), carol `agon watch ID` in
pane C. Every move is TYPED into the pane of the player to move. After
every move all three screens are checked: the ply in the title, whose turn
(the status line's "X to move [again]" / the chooser line, the player's
name marked with the turn arrow), and the board against `agon-rules show
--json` of the same position (client_harness helpers); at the end, the
result line on all three screens.

Moves: the rules core picks them (`agon-rules perft 2 --divide`): a move
after which the opponent has no reply ends the game and is always taken;
otherwise captures are preferred, Gwezboell's King runs, and half the
quiet moves are the ones leaving the fewest replies. Every game thus
reaches a rules result in a few dozen plies (endings: castle captured,
king escaped, buried, last piece captured, score - printed per game);
MAX_PLIES bounds a game anyway (it would then fail).

Bob's pane reaches agond through a TCP relay that is cut in the middle of
one game: his client reconnects and rejoins, alice sees him gone and back,
and the game goes on. Finally the disconnection claim: bob's pane is
killed mid-game, alice's status line counts down the grace period (agond
--claim-grace-ms, short for the test), an early `claim win` is refused
with the time left, then `claim win` ends the game as abandoned on alice's
and carol's screens, and bob rejoining sees the result too.

usage: test_e2e.py AGON AGOND AGON_RULES   (exits 77 without tmux)"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from client_harness import (Tmux, cell_piece, check, expected_square,  # noqa: E402
                            finish, gambo_expected, gambo_rows, outcome_text,
                            square_board)
from agon_harness import Server  # noqa: E402
import test_online as ON  # noqa: E402  (Player, Proxy, share_session)

AGON, AGOND, RULES = sys.argv[1], sys.argv[2], sys.argv[3]
GAMBO_DEALS = 4  # games played at most until a side moves again (main)
GAMES = ["gambit-of-kings", "gwezboell", "gomony", "gambo-2019", "gambo-2023"]
SQUARE = {"gambit-of-kings": (10, 10), "gwezboell": (9, 9), "gomony": (8, 8)}
MAX_PLIES = 300     # far above what the move picker needs (< 120 seen)
WAIT = 15           # seconds for any one screen to show a change
GRACE_MS = 6000     # agond --claim-grace-ms: room for a slow box
CUT_GAME, CUT_PLY = "gomony", 5   # where bob's connection is cut
ARROW = "\u25b6"


def rules(*args):
    r = subprocess.run([RULES] + list(args), capture_output=True, text=True,
                       timeout=ON.TIMEOUT)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def rules_show(game, pos, move=None):
    a = ["show", game, "--json", "--position", pos]
    return json.loads(rules(*(a + ([move] if move else []))))


def replies(game, pos):
    """[(move, number of replies)] at pos: 0 replies = the move ends the
    game."""
    out = []
    for line in rules("perft", game, "2", "--divide", "--position",
                      pos).splitlines():
        if ":" in line and not line.startswith("total"):
            m, n = line.rsplit(":", 1)
            out.append((m, int(n)))
    return out


def pick(game, view, rng):
    d = replies(game, view["position"])
    ending = [m for m, n in d if n == 0]
    if ending:
        return rng.choice(ending)
    moves = [m for m, _ in d]
    if game == "gwezboell" and view["to_move"] == "defenders":
        king = [m for m in moves if m.startswith(view["king"] + "-")]
        if king and rng.random() < 0.7:
            return rng.choice(king)
    caps = [m for m in moves if "x" in m]
    if caps and rng.random() < 0.9:
        return rng.choice(caps)
    if rng.random() < 0.5:
        return min(d, key=lambda x: x[1])[0]
    return rng.choice(moves)


def title_ply(screen):
    m = re.search(r"ply (\d+)", screen.splitlines()[0] if screen else "")
    return int(m.group(1)) if m else -1


def board_diff(game, screen, view):
    """None when the screen's board is the rules core's, else a note."""
    if game in SQUARE:
        files, ranks = SQUARE[game]
        got = {k: cell_piece(v) for k, v in square_board(screen).items()}
        exp = expected_square(game, view, files, ranks)
        bad = [k for k in exp if got.get(k) != exp[k]]
        return None if not bad else "at %s: %r, want %r" % (
            bad[0], got.get(bad[0]), exp[bad[0]])
    got, exp = gambo_rows(screen), gambo_expected(view)
    return None if got == exp else "%r != %r" % (got, exp)


def side_title(side):
    return side[0].upper() + side[1:]


def turn_ok(screen, view, mover_name, again):
    """The status line names the side to move (again for a repeat move),
    the mover's name carries the turn arrow; the chooser line before a
    Gambo choice."""
    tm = view["to_move"]
    if tm == "chooser":
        return "Chooser: pick a side" in screen
    want = "%s to move%s" % (side_title(tm), " again" if again else "")
    if want not in screen or (not again and want + " again" in screen):
        return False
    return any(ARROW in l and mover_name in l for l in screen.splitlines())


def result_text(outcome):
    if outcome["result"] == "draw":
        return "Game over: " + outcome_text("outcome: draw (%s)" %
                                            outcome["reason"])
    return "Game over: " + outcome_text("outcome: %s wins (%s)" % (
        outcome["winner"], outcome["reason"]))


class Table:
    """One game on three terminals: alice seeks, bob accepts (through the
    relay), carol watches."""

    def __init__(self, game, alice, bob, carol, proxy):
        self.game = game
        self.panes = {}
        env = {"NO_COLOR": "1", "TERM": "xterm-256color"}
        self.a = Tmux([AGON, "--port", str(ON.srv.port), "seek", game],
                      dict(env, XDG_CONFIG_HOME=alice.cfg))
        self.panes["alice"] = self.a
        s = self.a.wait(lambda s: re.search(r"seek (\d+): waiting", s))
        m = re.search(r"seek (\d+): waiting", s or "")
        if not check(m is not None, "%s: alice's seek waits in pane A" % game):
            raise RuntimeError(self.a.screen())
        self.b = Tmux([AGON, "--port", str(proxy.port), "accept", m.group(1)],
                      dict(env, XDG_CONFIG_HOME=bob.cfg))
        self.panes["bob"] = self.b
        self.gid = None
        for t, who in ((self.a, "bob"), (self.b, "alice")):
            s = t.wait(lambda s: re.search(r"Game (\d+) against " + who, s),
                       timeout=WAIT)
            m = re.search(r"Game (\d+) against " + who, s or "")
            if not check(m is not None, "%s: the play view opens against %s"
                         % (game, who)):
                raise RuntimeError(t.screen())
            self.gid = m.group(1)
        self.c = Tmux([AGON, "--port", str(ON.srv.port), "watch", self.gid],
                      dict(env, XDG_CONFIG_HOME=carol.cfg))
        self.panes["carol"] = self.c
        s = self.c.wait_text("watching game %s" % self.gid, timeout=WAIT)
        check(s is not None, "%s: carol watches in pane C" % game)

    def close(self):
        for t in self.panes.values():
            t.close()

    def wait_all(self, pred, what, names=None):
        """Every pane (or those named) satisfies pred(screen); bounded."""
        ok = True
        for name in names or list(self.panes):
            t = self.panes[name]
            s = t.wait(pred, timeout=WAIT)
            if not check(s is not None, "%s: %s on %s's screen" %
                         (self.game, what, name)):
                print(t.screen())
                ok = False
        return ok


def state_of(player, gid):
    rc, st = player.json("play", gid)
    assert rc == 0, st
    return st


def play_game(game, alice, bob, carol, proxy, rng):
    tab = Table(game, alice, bob, carol, proxy)
    try:
        st = state_of(alice, tab.gid)
        view = rules_show(game, st["position"])
        names = {}  # side -> player name, once the sides are known

        def learn_sides(st):
            for p in st["players"]:
                if p.get("side"):
                    names[p["side"]] = p["name"]

        learn_sides(st)
        chooser = st["to_move_player"] if view["to_move"] == "chooser" else None
        ok = tab.wait_all(lambda s: title_ply(s) == 0 and
                          board_diff(game, s, view) is None,
                          "the start position is the rules core's")
        # agon-rules counts plies from the --position it is given: count
        # the game's plies here.
        plies, endings, agains = 0, None, 0
        cut_done = False
        while ok and view["outcome"] is None and plies < MAX_PLIES:
            if game == CUT_GAME and plies == CUT_PLY and not cut_done:
                cut_done = True
                reconnect_mid_game(tab, proxy)
            tm = view["to_move"]
            mover = chooser if tm == "chooser" else names[tm]
            mv = pick(game, view, rng)
            tab.panes[mover].type(mv)
            tab.panes[mover].keys("Enter")
            nview = rules_show(game, view["position"], mv)
            plies += 1
            if tm == "chooser":
                learn_sides(state_of(alice, tab.gid))
            # the side that just moved moves again (Gambo)
            again = nview["to_move"] == tm != "chooser"
            agains += again
            # the mover of the next ply (names known after the choice)
            nm = names.get(nview["to_move"]) if nview["outcome"] is None else None

            def pred(s, nview=nview, nm=nm, again=again, ply=plies):
                if title_ply(s) != ply or board_diff(game, s, nview):
                    return False
                if nview["outcome"] is not None:
                    return result_text(nview["outcome"]) in s
                return turn_ok(s, nview, nm, again)
            ok = tab.wait_all(pred, "ply %d %s: board, turn%s" %
                              (plies, mv, " again" if again else ""))
            if not ok:
                for name, t in tab.panes.items():
                    print("%s: board %s; want the turn of %s (%s)" % (
                        name, board_diff(game, t.screen(), nview) or "ok",
                        nview["to_move"], nm))
            view = nview
        endings = view["outcome"]
        check(endings is not None and endings["result"] in ("win", "draw"),
              "%s: played to a rules result in %d plies: %r" %
              (game, plies, endings))
        if endings:
            want = result_text(endings)
            tab.wait_all(lambda s: want in s, "the result '%s'" % want)
            print("ENDING %s: %s after %d plies" % (game, want, plies))
        for name, t in tab.panes.items():
            t.type("quit")
            t.keys("Enter")
            check(t.exit_status() == "0", "%s: quit leaves %s's agon, exit 0"
                  % (game, name))
        if game == CUT_GAME:
            check(cut_done, "%s: the cut happened mid-game" % game)
    finally:
        tab.close()
    return agains


def reconnect_mid_game(tab, proxy):
    """Cut bob's connection (the relay drops it): his interactive client
    reconnects and rejoins by itself; alice sees him leave and come back."""
    before = proxy.accepted
    proxy.cut()
    s = tab.b.wait_text("Reconnected; game resumed", timeout=WAIT)
    check(s is not None, "%s: bob's view reconnects after the cut" % tab.game)
    end = time.time() + WAIT
    while proxy.accepted <= before and time.time() < end:
        time.sleep(0.05)
    check(proxy.accepted == before + 1, "%s: through a new connection (%d)"
          % (tab.game, proxy.accepted))
    s = tab.a.wait(lambda s: "Your opponent is back." in s and
                   "disconnected" not in s, timeout=WAIT)
    check(s is not None, "%s: alice sees bob back, no countdown left"
          % tab.game)


def claim_after_disconnect(alice, bob, carol, proxy, rng):
    """bob's client dies mid-game; alice's status line counts down; claim."""
    game = "gwezboell"
    tab = Table(game, alice, bob, carol, proxy)
    try:
        st = state_of(alice, tab.gid)
        names = {p["side"]: p["name"] for p in st["players"]}
        alice_side = [s for s, n in names.items() if n == "alice"][0]
        view = rules_show(game, st["position"])
        for ply in (1, 2):
            mover = names[view["to_move"]]
            mv = pick(game, view, rng)
            tab.panes[mover].type(mv)
            tab.panes[mover].keys("Enter")
            view = rules_show(game, view["position"], mv)
            tab.wait_all(lambda s, p=ply: title_ply(s) == p,
                         "claim game: ply %d" % ply)
        tab.b.close()
        del tab.panes["bob"]
        pat = re.compile(r"bob disconnected \u2014 you may claim in (\d+) s")
        s = tab.a.wait(lambda s: pat.search(s), timeout=WAIT)
        m = pat.search(s or "")
        check(m is not None and 1 <= int(m.group(1)) <= GRACE_MS // 1000,
              "claim: alice's status counts down the grace (%r)" %
              (m.group(0) if m else tab.a.screen()))
        tab.a.type("claim")
        tab.a.keys("Enter")
        s = tab.a.wait_text("claim: claim win or claim draw", timeout=WAIT)
        check(s is not None, "claim: without win/draw it says how")
        tab.a.type("claim win")
        tab.a.keys("Enter")
        s = tab.a.wait_text("claim: the grace period ends in", timeout=WAIT)
        check(s is not None, "claim: too early, refused with the time left")
        s = tab.a.wait(lambda s: m and pat.search(s) and
                       int(pat.search(s).group(1)) < int(m.group(1)),
                       timeout=GRACE_MS / 1000 + 5)
        check(s is not None, "claim: the countdown goes down")
        s = tab.a.wait_text("bob disconnected \u2014 you may claim now",
                            timeout=GRACE_MS / 1000 + 5)
        check(s is not None, "claim: then the claim is open")
        tab.a.type("claim win")
        tab.a.keys("Enter")
        want = "Game over: %s (abandoned)" % (
            side_title(alice_side) +
            (" win" if alice_side.endswith("s") else " wins"))
        tab.wait_all(lambda s: want in s and "disconnected" not in s,
                     "claim: the result '%s'" % want)
        # bob comes back: his client shows the result as well.
        t = Tmux([AGON, "--port", str(ON.srv.port), "play", tab.gid],
                 {"NO_COLOR": "1", "XDG_CONFIG_HOME": bob.cfg})
        tab.panes["bob"] = t
        check(t.wait_text(want, timeout=WAIT) is not None,
              "claim: bob rejoining sees '%s'" % want)
        for name, t in tab.panes.items():
            t.type("quit")
            t.keys("Enter")
            check(t.exit_status() == "0", "claim: %s quits, exit 0" % name)
    finally:
        tab.close()


def main():
    alice, bob, carol = ON.Player("alice"), ON.Player("bob"), ON.Player("carol")
    for p in (alice, bob, carol):
        r = p.run("register", p.name)
        check(r.returncode == 0, "register %s: %s" % (p.name, r.stderr))
    proxy = ON.Proxy(ON.srv.port)
    ON.share_session(bob, ON.srv.port, proxy.port)
    rng = random.Random(int(os.environ.get("AGON_E2E_SEED", "7")))
    t0 = time.time()
    try:
        for game in GAMES:
            # Gambo: the secret deal (the server's random seed) decides
            # whether a side ever moves twice in a row; a deal where it
            # never does shows nothing of "to move again", so another game
            # is played (each one's turns are checked all the same).
            for attempt in range(GAMBO_DEALS if game.startswith("gambo") else 1):
                agains = play_game(game, alice, bob, carol, proxy, rng)
                if not game.startswith("gambo") or agains > 0:
                    break
                print("NOTE %s: no side moved twice in a row in deal %d"
                      % (game, attempt + 1))
            if game.startswith("gambo"):
                check(agains > 0, "%s: a side moved several times in a row "
                      "(%d times in the last of %d deals), shown as 'to move "
                      "again'" % (game, agains, attempt + 1))
        claim_after_disconnect(alice, bob, carol, proxy, rng)
    finally:
        proxy.close()
    print("e2e: %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    if not shutil.which("tmux"):
        print("SKIP: no tmux")
        sys.exit(77)
    ON.srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0",
                                  "--login-addr-burst", "100000",
                                  "--claim-grace-ms", str(GRACE_MS)]).start()
    try:
        main()
    finally:
        for d in ON.CFGS:
            shutil.rmtree(d, ignore_errors=True)
        if ON.srv.proc and ON.srv.proc.poll() is None:
            ON.srv.stop()
        ON.srv.cleanup()
    finish()
