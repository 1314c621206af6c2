"""agon local in a real terminal (tmux, 80x24): a complete game of each of
the five rulesets, typed move by move, asserting on the rendered screen:
board contents against the rules core's own view (agon-rules show --json),
whose turn it is after every move, the result, Tab completion offering
exactly the legal moves (against agon-rules legal), resizing, NO_COLOR.

The games are agon-rules' seeded random games (short ones), so every move
and the final result come from the rules core, not from the client.

usage: test_pty.py AGON AGON_RULES"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from client_harness import (Rules, Tmux, cell_piece, check, expected_square,
                            finish, gambo_expected, gambo_rows, outcome_text)

AGON, RULES = sys.argv[1], Rules(sys.argv[2])
HOME = tempfile.mkdtemp(prefix="agon-home-")
ENV = {"NO_COLOR": "1", "HOME": HOME, "TERM": "xterm-256color"}

# (game, seed, options): seeds whose random game is short
GAMES = [
    ("gambit-of-kings", 45, ()),
    ("gwezboell", 52, ()),
    ("gomony", 287, ()),
    ("gambo-2019", 274, ()),
    ("gambo-2023", 138, ()),
]
SQUARE = {"gambit-of-kings": (10, 10), "gwezboell": (9, 9), "gomony": (8, 8)}


def title_ply(screen):
    m = re.search(r"ply (\d+)", screen.splitlines()[0] if screen else "")
    return int(m.group(1)) if m else -1


def check_board(game, screen, view, label):
    if game in SQUARE:
        files, ranks = SQUARE[game]
        got = {k: cell_piece(v) for k, v in
               __import__("client_harness").square_board(screen).items()}
        exp = expected_square(game, view, files, ranks)
        bad = [k for k in exp if got.get(k) != exp[k]]
        return check(not bad, "%s %s: board matches the rules core%s" %
                     (game, label, "" if not bad else " (differs at %s: %r vs %r)"
                      % (bad[0], got.get(bad[0]), exp[bad[0]])))
    got, exp = gambo_rows(screen), gambo_expected(view)
    return check(got == exp, "%s %s: rows and line match the rules core%s" %
                 (game, label, "" if got == exp else " %r != %r" % (got, exp)))


def check_completion(t, game, seed, opts, played, move):
    """Type a prefix of move, press Tab, compare with agon-rules legal."""
    legal = RULES.legal(game, seed, opts, played)
    k = 1
    while k < len(move) and len([m for m in legal if m.startswith(move[:k])]) > 6:
        k += 1
    prefix = move[:k]
    want = sorted(m for m in legal if m.lower().startswith(prefix.lower()))
    t.keys("C-u")
    t.type(prefix)
    t.keys("Tab")
    if len(want) == 1:
        s = t.wait(lambda s: s.rstrip().splitlines()[-1].endswith("> " + want[0]))
        ok = check(s is not None, "%s: Tab on '%s' completes to '%s'" %
                   (game, prefix, want[0]))
    else:
        pat = "%d: " % len(want)
        s = t.wait(lambda s: any(l.startswith(pat) for l in s.splitlines()))
        got = []
        if s:
            lines = s.splitlines()
            i = [j for j, l in enumerate(lines) if l.startswith(pat)][0]
            text = (lines[i][len(pat):] + "  " + lines[i + 1]).split("  ")
            got = sorted(x.strip() for x in text if x.strip())
        ok = check(got == want, "%s: Tab on '%s' offers exactly %s (got %s)" %
                   (game, prefix, want, got))
    t.keys("C-u")
    return ok


def play_game(game, seed, opts):
    moves, outcome = RULES.random_game(game, seed, opts)
    argv = [AGON, "local", game, "--seed", str(seed)]
    for o in opts:
        argv += ["-o", o]
    t = Tmux(argv, ENV)
    try:
        s = t.wait_text("ply 0")
        check(s is not None, "%s: the play view starts" % game)
        if s is None:
            return
        check_board(game, s, RULES.view(game, seed, opts, []), "start")
        for i, mv in enumerate(moves):
            if i % 5 == 0:
                check_completion(t, game, seed, opts, moves[:i], mv)
            t.type(mv)
            t.keys("Enter")
            s = t.wait(lambda s: title_ply(s) == i + 1)
            if not check(s is not None, "%s: move %d %s accepted" %
                         (game, i + 1, mv)):
                print(t.screen())
                return
            view = RULES.view(game, seed, opts, moves[:i + 1])
            tm = view.get("to_move")
            last = s.rstrip().splitlines()[-1]
            if tm:
                if not check(last.startswith(tm + ">") and
                             ("%s to move" % tm.capitalize()) in s,
                             "%s ply %d: %s to move" % (game, i + 1, tm)):
                    print(s)
            if i % 4 == 3:
                check_board(game, s, view, "ply %d" % (i + 1))
        want = "Game over: " + outcome_text(outcome)
        check(want in s, "%s: screen shows '%s'" % (game, want))
        check_board(game, s, RULES.view(game, seed, opts, moves), "final")
        t.type("quit")
        t.keys("Enter")
        check(t.wait(lambda s: t.dead()) is not None, "%s: quit ends agon" %
              game)
        check(t.exit_status() == "0", "%s: agon exits 0 (got %r)" %
              (game, t.exit_status()))
    finally:
        t.close()


def test_terminal():
    """Resize, too small, NO_COLOR vs colour, help page."""
    t = Tmux([AGON, "local", "gwezboell"], ENV)
    try:
        check(t.wait_text("Defenders to move") is not None, "tty: starts")
        t.resize(60, 20)
        check(t.wait_text("is too small") is not None,
              "tty: 60x20 shows the too-small notice")
        t.resize(100, 30)
        s = t.wait(lambda s: "Defenders to move" in s and
                   len(s.splitlines()[0].rstrip()) > 80)
        check(s is not None, "tty: resized to 100x30 redraws the board")
        t.resize(80, 24)
        check(t.wait(lambda s: "ply 0" in s and len(s.splitlines()[0].rstrip()) == 79)
              is not None, "tty: back to 80x24")
        esc = t.screen(escapes=True)
        check(not re.search(r"\x1b\[[0-9;]*3[1-7][;m]", esc),
              "tty: NO_COLOR draws no colours")
        t.type("help")
        t.keys("Enter")
        check(t.wait_text("Press any key") is not None and
              "resign" in t.screen(), "tty: help page")
        t.keys("x")
        t.type("rules")
        t.keys("Enter")
        check(t.wait_text("throne") is not None, "tty: rules page")
        t.keys("x")
        t.type("e3-z9")
        t.keys("Enter")
        check(t.wait_text("not a move or command") is not None,
              "tty: bad input is explained")
        t.keys("C-c")
        check(t.wait(lambda s: t.dead()) is not None, "tty: Ctrl-C quits")
        st = t.exit_status()
        check(st == "0", "tty: exit status 0 (got %r)" % st)
    finally:
        t.close()
    env = dict(ENV)
    del env["NO_COLOR"]
    t = Tmux([AGON, "local", "gwezboell"], env)
    try:
        t.wait_text("ply 0")
        esc = t.screen(escapes=True)
        check(re.search(r"\x1b\[[0-9;]*3[1-7]m", esc) is not None,
              "tty: colours without NO_COLOR")
    finally:
        t.close()



def test_clock():
    """agon local --clock: the clocks count down, the mover gets the
    increment, and a flag ends the game."""
    t = Tmux([AGON, "local", "gwezboell", "--clock", "0.05+1"], ENV)
    try:
        s = t.wait_text("00:03")
        check(s is not None, "clock: both sides start at 00:03")
        t.type("e3-c3")
        t.keys("Enter")
        s = t.wait(lambda s: title_ply(s) == 1)
        check(s is not None and re.search(r"Defenders\s+00:0[34]", s),
              "clock: the mover got the increment")
        s = t.wait_text("00:01", timeout=5)
        check(s is not None, "clock: the attackers' clock counts down")
        s = t.wait_text("Game over: Defenders win (time)", timeout=6)
        check(s is not None, "clock: the attackers lose on time")
        t.type("quit")
        t.keys("Enter")
        check(t.exit_status() == "0", "clock: quit after the flag")
    finally:
        t.close()


test_terminal()
test_clock()
for g, seed, opts in GAMES:
    play_game(g, seed, opts)
finish()
