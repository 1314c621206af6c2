#!/usr/bin/env python3
"""agon-rules command-line contract: output shapes, exit codes, determinism.

usage: test_cli.py PATH/TO/agon-rules
"""
import json
import subprocess
import sys

TOOL = sys.argv[1]
GAMES = ["gwezboell", "gomony", "gambit-of-kings", "gambo-2019", "gambo-2023"]
passed = failed = 0


def run(*args):
    p = subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, file=sys.stderr)


rc, out, _ = run("games")
check(rc == 0, "games exits 0")
for g in GAMES:
    check(any(line.startswith(g + " ") for line in out.splitlines()), f"games lists {g}")

rc, _, err = run("legal", "chess")
check(rc == 2 and "unknown game" in err, "unknown game -> exit 2 with a message")
rc, _, err = run("nonsense")
check(rc == 2, "unknown command -> exit 2")
rc, _, _ = run()
check(rc == 2, "no arguments -> exit 2")

for g in GAMES:
    rc, _, err = run("legal", g, "-o", "no_such_option=1")
    check(rc == 2 and "no_such_option" in err, f"{g}: unknown option -> exit 2")
    rc, _, err = run("legal", g, "--position", "this is not a position")
    check(rc == 2 and "bad_position" in err, f"{g}: bad position -> exit 2 ({err.strip()})")
    rc, _, err = run("legal", g, "zz-top")
    check(rc == 2 and "move 1" in err, f"{g}: unparsable move names its index ({err.strip()})")

    # From the start (seed 0): legal moves, sorted bytewise, unique.
    rc, out, err = run("legal", g)
    moves = out.splitlines()
    check(rc == 0 and moves, f"{g}: legal lists moves ({err.strip()})")
    check(moves == sorted(moves, key=lambda s: s.encode()), f"{g}: legal is sorted")
    check(len(set(moves)) == len(moves), f"{g}: legal has no duplicates")
    if not moves:
        continue
    # An illegal move after a legal one names index 2.
    rc, _, err = run("legal", g, moves[0], moves[0] + " zz")
    check(rc == 2 and "move 2" in err, f"{g}: second bad move names index 2 ({err.strip()})")

    # perft: plain count equals --divide total and the legal count at depth 1.
    rc, out, _ = run("perft", g, "1")
    check(rc == 0 and out.strip() == str(len(moves)), f"{g}: perft 1 = number of legal moves")
    rc, out, _ = run("perft", g, "2")
    plain = out.strip()
    rc2, out2, _ = run("perft", g, "2", "--divide")
    lines = out2.splitlines()
    check(rc == 0 and rc2 == 0 and lines[-1] == f"total: {plain}", f"{g}: divide total matches")
    parts = [l.rsplit(": ", 1) for l in lines[:-1]]
    check([p[0] for p in parts] == moves, f"{g}: divide lists the legal moves in order")
    check(sum(int(p[1]) for p in parts) == int(plain), f"{g}: divide counts add up")

    # show: text and JSON agree; the position string restores the same state.
    rc, out, _ = run("show", g, moves[0])
    pos = [l for l in out.splitlines() if l.startswith("position: ")]
    check(rc == 0 and len(pos) == 1 and "to move: " in out, f"{g}: show prints position and side")
    if pos:
        p = pos[0][len("position: "):]
        rc, after_moves, _ = run("legal", g, moves[0])
        rc2, from_pos, _ = run("legal", g, "--position", p)
        check(rc == 0 and rc2 == 0 and after_moves == from_pos,
              f"{g}: legal from the printed position equals legal after the move")
    rc, out, _ = run("show", g, "--json")
    try:
        view = json.loads(out)
        check(view.get("game") == g and "to_move" in view and "board" in view,
              f"{g}: show --json has game, to_move, board")
    except ValueError:
        check(False, f"{g}: show --json prints JSON")

    # random: reproducible, each line a legal move, ends with an outcome line.
    rc, a, _ = run("random", g, "--seed", "5")
    rc2, b, _ = run("random", g, "--seed", "5")
    check(rc == 0 and a == b, f"{g}: random is reproducible")
    last = a.splitlines()[-1] if a else ""
    check(last.startswith("outcome: ") and "unfinished" not in last, f"{g}: random ends ({last})")
    played = a.splitlines()[:-1]
    if played:
        rc, _, err = run("show", g, "--seed", "5", *played)
        check(rc == 0, f"{g}: random's moves replay through show ({err.strip()})")
        rc, out, _ = run("legal", g, "--seed", "5", *played)
        check(rc == 0 and out == "", f"{g}: nothing is legal once the game is over")
    rc, _, err = run("random", g)
    check(rc == 2, f"{g}: random without --seed -> exit 2")

    # record -> replay round trip, text and NDJSON; a tampered record fails.
    if played:
        rc, rec, err = run("record", g, "--seed", "5", *played)
        check(rc == 0 and rec.startswith(f'[Game "{g}"]'), f"{g}: record prints a text record ({err.strip()})")
        p = subprocess.run([TOOL, "replay"], input=rec + "\n" + rec, capture_output=True, text=True)
        check(p.returncode == 0 and p.stdout.count(" ok ") == 2, f"{g}: replay accepts two text records ({p.stderr.strip()})")
        rc, js, _ = run("record", g, "--seed", "5", *played, "--json")
        p = subprocess.run([TOOL, "replay", "-"], input=js + js, capture_output=True, text=True)
        check(p.returncode == 0 and p.stdout.count(" ok ") == 2, f"{g}: replay accepts NDJSON ({p.stderr.strip()})")
        lines = rec.splitlines()
        idx = next(i for i, l in enumerate(lines) if l.startswith("1. "))
        lines[idx] = "1. " + lines[idx].split(" ", 2)[1] + " zz-top"
        p = subprocess.run([TOOL, "replay"], input="\n".join(lines) + "\n", capture_output=True, text=True)
        check(p.returncode == 2 and "move 1" in p.stderr, f"{g}: replay refuses a bad move, naming it")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
