"""Spectating with the agon client against a real agond (--port 0,
temporary database): alice and bob play with the scriptable subcommands
(the helpers of test_online.py), carol lists the live games and watches:
streaming (plain and --json, one through a relay cut mid-game: the watch is
renewed from the last seq, every move seen once, in order) and in the
full-screen view on a terminal (tmux): board, whose turn, spectator chat
with `say`, the result. Players' chat never reaches spectators.

usage: test_watch.py AGON AGOND AGON_RULES"""
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_online as T  # noqa: E402  (same argv: AGON AGOND AGON_RULES)
from client_harness import Tmux, check  # noqa: E402

TIMEOUT = T.TIMEOUT


def watcher(p, port, *a):
    return subprocess.Popen([T.AGON, "--port", str(port)] + list(a),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=p.env(), stdin=subprocess.DEVNULL)


def read_until(proc, pred):
    """Lines of proc's stdout up to and including the first matching one
    (bounded: the process ends at the latest with the game)."""
    lines = []
    while True:
        line = proc.stdout.readline()
        if not line:
            return lines
        lines.append(line.rstrip("\n"))
        if pred(line):
            return lines


PLAYED = []  # every move make_moves sent, in order


def make_moves(players, state, rng, n):
    """n random legal moves (fewer if the game ends), each by the player
    the client says is to move; unlike play_out, never resigns."""
    by_name = {p.name: p for p in players}
    done = 0
    while done < n and state.get("outcome") is None and "game_end" not in state:
        mover = by_name[state["to_move_player"]]
        mv = rng.choice(T.legal(state))
        PLAYED.append(mv)
        rc, nstate = mover.json("move", str(state["game_id"]), mv)
        if not check(rc == 0, "move by %s accepted (%r)" % (mover.name, nstate)):
            break
        state = nstate
        done += 1
    return state, done


def games_list(a, b, c, gid):
    r = c.run("games")
    rows = [l for l in r.stdout.splitlines() if l.split()[:1] == [gid]]
    check(r.returncode == 0 and r.stdout.startswith("ID") and len(rows) == 1
          and "alice vs bob" in rows[0] and "gomony" in rows[0],
          "games: the table lists the game (%r)" % r.stdout)
    r = c.run("--json", "games", "--player", "BOB")
    games = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
    check(r.returncode == 0 and any(str(g["game_id"]) == gid for g in games)
          and all(set(["game", "players", "seq", "to_move"]) <= set(g)
                  for g in games),
          "games --json --player: one JSON object per line (%r)" % r.stdout)
    r = c.run("--json", "games", "--game", "gwezboell")
    check(r.returncode == 0 and
          all(str(json.loads(l)["game_id"]) != gid
              for l in r.stdout.splitlines() if l.strip()),
          "games --game filters by game (%r)" % r.stdout)
    r = c.run("games", "--player", "nobody-here")
    check(r.returncode == 0 and r.stdout.strip() == "no live games",
          "games: an empty list says so (%r)" % r.stdout)


def streaming(a, b, c, rng):
    st = T.start(a, b, "gomony")
    gid = str(st["game_id"])
    games_list(a, b, c, gid)
    proxy = T.Proxy(T.srv.port)
    T.share_session(c, T.srv.port, proxy.port)
    plain = watcher(c, T.srv.port, "watch", gid)
    js = watcher(c, proxy.port, "--json", "watch", gid)
    try:
        head = read_until(plain, lambda l: l.startswith("game %s: " % gid))
        check(head and "to move" in head[-1] and "alice" in "\n".join(head),
              "watch: prints the screen and whose turn (%r)" % head[-1:])
        first = json.loads(js.stdout.readline() or "{}")
        check(first.get("event") == "watch" and str(first.get("game_id")) == gid
              and first.get("position") == st["position"],
              "watch --json: the snapshot first (%r)" % first)
        # Both watchers are attached now (their watch replies arrived).
        r = c.run("chat", gid, "hello", "players")
        check(r.returncode == 0 and "spectators" in r.stdout,
              "chat by a spectator goes to the spectators' room (%r %r)"
              % (r.stdout, r.stderr))
        r = a.run("chat", gid, "good luck")
        check(r.returncode == 0 and "players" in r.stdout,
              "chat by a player goes to the players' room (%r)" % r.stderr)
        rc, state = a.json("play", gid)
        state, plies1 = make_moves([a, b], state, rng, 6)
        proxy.cut()  # the --json watcher reconnects, watches since its seq
        # One more move while it is cut off (replayed from since_seq), then
        # wait for it to be back before the end: a finished game's room
        # does not wait for latecomers (watch would say not_found).
        state, plies_cut = make_moves([a, b], state, rng, 1)
        cut_seq = state["seq"]

        def replayed(line):
            try:
                e = json.loads(line)
            except ValueError:
                return False
            return e.get("event") == "move" and e.get("seq") == cut_seq
        early = read_until(js, replayed)
        check(proxy.accepted >= 2 and early and replayed(early[-1]),
              "watch --json reconnected after the cut and got the missed move")
        state, plies2 = T.play_out([a, b], state, rng, max_plies=30)
        plies2 += plies_cut
        end = state.get("game_end") or {}
        out, _ = plain.communicate(timeout=TIMEOUT)
        jout, jerr = js.communicate(timeout=TIMEOUT)
    finally:
        for p in (plain, js):
            if p.poll() is None:
                p.kill()
                p.wait()
        proxy.close()
    plies = plies1 + plies2
    lines = out.strip().splitlines()
    moves = [l for l in lines if " plays " in l]
    check(plain.returncode == 0 and lines and "game over" in lines[-1],
          "watch: ends with the result (%r)" % lines[-1:])
    if end.get("winner"):
        check(end["winner"].lower() in lines[-1].lower(),
              "watch: the result names the winner %s" % end["winner"])
    check(len(moves) >= plies - 1 and len(moves) <= plies,
          "watch: a line per move (%d lines, %d plies)" % (len(moves), plies))
    check(any("chat [spectator] carol: hello players" in l for l in lines),
          "watch: the spectators' chat is shown")
    check(not any("good luck" in l for l in lines),
          "watch: the players' chat is not sent to spectators")
    evs = [json.loads(l) for l in early + jout.strip().splitlines()]
    seqs = [e["seq"] for e in evs if e.get("event") == "move"]
    check(js.returncode == 0 and evs and evs[-1].get("event") == "game_end"
          and evs[-1].get("result") == end.get("result"),
          "watch --json: ends with game_end (%r %r)" % (evs[-1:], jerr[-300:]))
    check(seqs == list(range(seqs[0], seqs[0] + len(seqs))) if seqs else False,
          "watch --json through a cut: every move once, in order (%r)" % seqs)
    check(len(seqs) == len(moves),
          "watch --json: as many moves as the plain watcher (%d, %d)"
          % (len(seqs), len(moves)))


def on_terminal(a, b, c, rng):
    st = T.start(a, b, "gwezboell")
    gid = str(st["game_id"])
    t = Tmux([T.AGON, "--port", str(T.srv.port), "watch", gid],
             env={"XDG_CONFIG_HOME": c.cfg})
    try:
        scr = t.wait(lambda s: "watching game " + gid in s and "alice" in s
                     and "bob" in s)
        check(scr is not None and "1 spectator" in scr,
              "watch on a terminal: the view with both names and the count")
        rc, state = a.json("play", gid)
        mover = state["to_move_player"]
        state, plies = make_moves([a, b], state, rng, 2)
        # The view follows: the local copy has applied both moves when its
        # position text matches (the move list shows the last move).
        rc, now = a.json("play", gid)
        check(now["seq"] == state["seq"], "two moves played")
        # The view follows the broadcast moves: ply count, last move in the
        # move list, and the player to move now named on the prompt line.
        last2 = PLAYED[-2:]
        scr = t.wait(lambda s: "ply %d" % now["seq"] in s and
                     all(m in s for m in last2))
        check(scr is not None, "watch: the view shows both moves (%r)"
              % (scr or t.screen())[-600:])
        t.type("a1-a2")
        t.keys("Enter")
        scr = t.wait_text("You are watching")
        check(scr is not None, "watch: a move typed is refused locally")
        t.type("say hi all")
        t.keys("Enter")
        scr = t.wait_text("carol: hi all")
        check(scr is not None, "watch: say TEXT chats, shown in the view")
        r = c.run("chat", gid, "second", "line")
        scr = t.wait_text("carol: second line")
        check(scr is not None and "carol: hi all" in scr,
              "watch: the chat panel keeps the last two lines (%r)"
              % (scr or t.screen())[-400:])
        rc, fin = b.json("resign", gid)
        scr = t.wait_text("Game over")
        check(scr is not None and ("bob" in scr or "alice" in scr),
              "watch: the view shows the result (%r)" % (scr or t.screen()))
        t.type("quit")
        t.keys("Enter")
        check(t.exit_status() == "0", "watch: quit leaves, exit 0")
        # With the scrollback: leaving the full-screen view may scroll it.
        scr = t.tmux("capture-pane", "-p", "-t", "t", "-S", "-200")
        check("game over" in scr and "resign" in scr,
              "watch: the last line has the result (%r)" % scr[-300:])
        del mover
    finally:
        t.close()
    # A finished game whose room still lives: its final screen, then exit.
    r = c.run("watch", gid)
    last = (r.stdout.strip().splitlines() or [""])[-1]
    check((r.returncode == 0 and "game over" in last) or
          (r.returncode == 1 and "no such live game" in r.stderr),
          "watch after the end: the result, or not found (%r %r)"
          % (last, r.stderr))


def body():
    a, b, c = T.Player("alice"), T.Player("bob"), T.Player("carol")
    for p in (a, b, c):
        r = p.run("register", p.name)
        check(r.returncode == 0, "register %s: %s" % (p.name, r.stderr))
    rng = random.Random(5)
    streaming(a, b, c, rng)
    on_terminal(a, b, c, rng)


T.serve(body)
