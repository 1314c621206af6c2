"""Scriptable use of agon without a server: rules, show (text and JSON),
and the plain-line fallback when stdin/stdout are not a terminal, playing a
complete game of each ruleset through a pipe.

usage: test_cli.py AGON AGON_RULES"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from client_harness import Rules, check, finish, outcome_text, run

AGON, RULES_PATH = sys.argv[1], sys.argv[2]
RULES = Rules(RULES_PATH)
ENV = dict(os.environ, HOME=tempfile.mkdtemp(prefix="agon-home-"))
ENV.pop("NO_COLOR", None)
GAMES = ["gambit-of-kings", "gwezboell", "gomony", "gambo-2019", "gambo-2023"]

# rules
r = run([AGON, "rules"], env=ENV)
check(r.returncode == 0 and all(g in r.stdout for g in GAMES),
      "agon rules lists the five games")
for g in GAMES:
    r = run([AGON, "rules", g], env=ENV)
    check(r.returncode == 0 and len(r.stdout.splitlines()) >= 8,
          "agon rules %s prints a summary" % g)
r = run([AGON, "rules", "chess"], env=ENV)
check(r.returncode == 2 and "unknown game" in r.stderr,
      "agon rules of an unknown game: exit 2")

# show: the JSON view is the rules core's
for g in GAMES:
    moves, _ = RULES.random_game(g, 7)
    moves = moves[:6]
    r = run([AGON, "show", g, "--seed", "7", "--json"] + moves, env=ENV)
    mine = json.loads(r.stdout) if r.returncode == 0 else None
    check(mine == RULES.view(g, 7, (), moves),
          "agon show %s --json equals agon-rules show --json" % g)
    r = run([AGON, "show", g, "--seed", "7"] + moves, env=ENV)
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and 20 <= len(lines) <= 24 and
          all(len(l) <= 80 for l in lines) and "\x1b" not in r.stdout,
          "agon show %s: at most 80x24 plain text, no escapes" % g)
r = run([AGON, "show", "gwezboell", "e3-d4"], env=ENV)
check(r.returncode == 1 and "not along a rank or a file" in r.stderr,
      "agon show with an illegal move: exit 1 and the reason")
r = run([AGON, "show", "gomony", "-o", "colour=red"], env=ENV)
check(r.returncode == 2 and "colour=red" in r.stderr,
      "agon show with a bad option: exit 2")
r = run([AGON, "local", "go"], env=ENV)
check(r.returncode == 2 and "unknown game" in r.stderr,
      "agon local of an unknown game: exit 2")
r = run([AGON, "frobnicate"], env=ENV)
check(r.returncode == 2, "unknown command: exit 2")

# plain-line fallback: a complete game per ruleset through a pipe
SEEDS = {"gambit-of-kings": 45, "gwezboell": 52, "gomony": 287,
         "gambo-2019": 274, "gambo-2023": 138}
for g in GAMES:
    seed = SEEDS[g]
    moves, outcome = RULES.random_game(g, seed)
    text = "help\nmoves\n" + "\n".join(moves) + "\nquit\n"
    r = run([AGON, "local", g, "--seed", str(seed)], env=ENV, stdin=text)
    want = "Game over: " + outcome_text(outcome)
    check(r.returncode == 0 and want in r.stdout,
          "%s through a pipe ends with '%s'" % (g, want))
    check("\x1b" not in r.stdout, "%s: no escape codes off a terminal" % g)
    check("legal move" in r.stdout and "Commands:" in r.stdout,
          "%s: help and moves print their pages" % g)
# hot-seat commands: draw offer and acceptance, resign, rematch
r = run([AGON, "local", "gambit-of-kings", "-o", "first=light"], env=ENV,
        stdin="draw\naccept\nrematch\ne2-e4\nresign\n")
check("Light offers a draw" in r.stdout and
      "Game over: Draw (agreement)" in r.stdout and
      "Rematch: a new game has started." in r.stdout and
      "Game over: Light wins (resignation)" in r.stdout,
      "draw, accept, rematch and resign in a local game")
r = run([AGON, "local", "gwezboell"], env=ENV, stdin="claim win\n")
check("claim is for online games" in r.stdout and "Game over" not in r.stdout,
      "claim in a local game is refused, the game goes on")
r = run([AGON, "local", "gwezboell"], env=ENV, stdin="e3-e4\n")
check("the way is blocked at e4" in r.stdout or "e4 is occupied" in r.stdout
      or "illegal" in r.stdout or "occupied" in r.stdout,
      "an illegal move gets the rules core's reason")
finish()
