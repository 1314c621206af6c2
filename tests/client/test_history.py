"""History, export and replay with the agon client against a real agond
(--port 0, temporary database; test_online.py's helpers): alice and bob
play games to different ends with the scriptable subcommands (a rules end,
a resignation, a draw by agreement with `agon draw`, one left running),
then carol (no login) checks `agon history` (table, --json, every filter,
paging with --before and --all), `agon profile`, `agon export` (the
server's bytes, a record `agon-rules replay` accepts), `agon replay --ply N`
(the position from the rules core after N moves) and the history browser
on a terminal (tmux: n/p/arrows/Home/End/g N, export, q).

usage: test_history.py AGON AGOND AGON_RULES"""
import datetime
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_online as T  # noqa: E402  (same argv: AGON AGOND AGON_RULES)
from client_harness import Tmux, check  # noqa: E402

TIMEOUT = T.TIMEOUT


def moves_n(players, state, rng, n):
    """n random legal moves, each by the player the client says is to move."""
    by_name = {p.name: p for p in players}
    for _ in range(n):
        mover = by_name[state["to_move_player"]]
        rc, state = mover.json("move", str(state["game_id"]), rng.choice(T.legal(state)))
        if not check(rc == 0, "move accepted (%r)" % state):
            break
    return state


def lines_json(out):
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def record(gid):
    c = T.srv.client()
    try:
        r = c.req("game_record", game_id=int(gid))
        return r["data"]["game"]
    finally:
        c.close()


def server_export(gid, fmt):
    c = T.srv.client()
    try:
        r = c.req("export", game_id=int(gid), format=fmt)
        return r["data"]["record"]
    finally:
        c.close()


def show_args(rec, moves):
    """agon show for the record's game after these moves."""
    a = [T.AGON, "show", rec["game"], "--seed", rec["seed"]]
    for k, v in sorted((rec.get("options") or {}).items()):
        if v in ("", None):
            continue
        a += ["-o", "%s=%s" % (k, str(v).lower() if isinstance(v, bool) else v)]
    return a + list(moves)


def play_games(a, b, rng):
    """The games, newest last: {kind: (gid, plies)}."""
    games = {}
    # A rules end (gomony's random games end in about a hundred plies).
    st = T.start(a, b, "gomony")
    final, plies = T.play_out([a, b], st, rng)
    end = final.get("game_end") or {}
    check(end.get("result") in ("win", "draw") and end.get("reason") != "resign",
          "gomony: played to a rules end (%r)" % end)
    games["rules"] = (str(st["game_id"]), plies, end)
    # A resignation after a few moves (Gambo: the side choice included).
    st = T.start(a, b, "gambo-2023")
    st = moves_n([a, b], st, rng, 5)
    loser = a if st["to_move_player"] == a.name else b
    rc, fin = loser.json("resign", str(st["game_id"]))
    check(rc == 0 and fin.get("game_end", {}).get("reason") == "resign",
          "gambo: resigned (%r)" % fin)
    games["resign"] = (str(st["game_id"]), 5, fin.get("game_end"), loser.name)
    # A draw by agreement: `agon draw` offers, the other's `agon draw`
    # accepts.
    st = T.start(a, b, "gwezboell")
    st = moves_n([a, b], st, rng, 4)
    gid = str(st["game_id"])
    rc, off = a.json("draw", gid)
    check(rc == 0 and off.get("outcome") is None, "draw: offered (%r)" % off)
    rc, acc = b.json("draw", gid)
    end = acc.get("game_end") or {}
    check(rc == 0 and end.get("result") == "draw" and end.get("reason") == "agreement",
          "draw: the other's draw accepts it (%r)" % acc)
    games["draw"] = (gid, 4, end)
    # One left running.
    st = T.start(a, b, "gambit-of-kings")
    st = moves_n([a, b], st, rng, 2)
    games["ongoing"] = (str(st["game_id"]), 2, None)
    return games


def check_history(c, games):
    finished = [games[k][0] for k in ("rules", "resign", "draw")]
    r = c.run("history")
    out = r.stdout.splitlines()
    rows = {l.split()[0]: l for l in out[1:] if l.strip()}
    check(r.returncode == 0 and out[0].split() ==
          ["ID", "DATE", "GAME", "PLAYERS", "RESULT", "REASON", "MOVES", "RATED"],
          "history: the table header (%r)" % out[:1])
    check(sorted(rows) == sorted(finished) and list(rows) == sorted(rows, key=int, reverse=True),
          "history: the finished games, newest first (%r)" % list(rows))
    gid, plies, end = games["rules"]
    check(gid in rows and rows[gid].split()[-2:] == [str(plies), "no"]
          and end["reason"] in rows[gid] and "alice vs bob" in rows[gid],
          "history: moves, rated, reason, players of the gomony game (%r)" % rows.get(gid))
    gid, _, _, loser = games["resign"]
    winner = "bob" if loser == "alice" else "alice"
    check(gid in rows and "%s won" % winner in rows[gid] and "resign" in rows[gid]
          and re.search(r" 5 no$", rows[gid]),
          "history: the resignation row (%r)" % rows.get(gid))
    gid = games["draw"][0]
    check(gid in rows and " draw " in rows[gid] and "agreement" in rows[gid],
          "history: the draw row (%r)" % rows.get(gid))
    check(re.match(r"\d+ +\d{4}-\d\d-\d\d \d\d:\d\d ", rows[gid]) is not None,
          "history: the date column (%r)" % rows[gid])

    r = c.run("--json", "history")
    js = lines_json(r.stdout)
    check(r.returncode == 0 and [str(g["game_id"]) for g in js] == list(rows)
          and all(g["status"] == "finished" and "players" in g for g in js),
          "history --json: one server game object per line (%r)" % r.stdout[:200])
    by_id = {str(g["game_id"]): g for g in js}
    check(by_id[games["rules"][0]]["moves"] == games["rules"][1],
          "history --json: moves counts the plies (%r)" % by_id[games["rules"][0]])

    def ids(*args):
        r = c.run("--json", "history", *args)
        if not check(r.returncode == 0, "history %s: exit 0 (%r)" % (" ".join(args), r.stderr)):
            return None
        return sorted(str(g["game_id"]) for g in lines_json(r.stdout))

    # Expected sets from the games themselves.
    outcome = {}
    for k in ("rules", "resign", "draw"):
        g = by_id[games[k][0]]
        if g["result"] == "draw":
            outcome[games[k][0]] = "draw"
        else:
            w = [p["name"] for p in g["players"] if p["side"] == g["winner_side"]][0]
            outcome[games[k][0]] = "win" if w == "alice" else "loss"
    for res in ("win", "loss", "draw"):
        want = sorted(g for g, o in outcome.items() if o == res)
        check(ids("--player", "alice", "--result", res) == want,
              "history --result %s (alice): %r" % (res, want))
    r = c.run("history", "--player", "ALICE")
    hdr = r.stdout.splitlines()[0].split()
    check(r.returncode == 0 and hdr[-1] == "OUTCOME" and all(
        l.split()[-1] == outcome[l.split()[0]] for l in r.stdout.splitlines()[1:]),
        "history --player: the outcome column (%r)" % r.stdout)
    r = c.run("--json", "history", "--player", "alice")
    check(all(g["outcome"] == outcome[str(g["game_id"])] for g in lines_json(r.stdout)),
          "history --json --player: outcome per game")
    check(ids("--player", "alice", "--opponent", "bob") == sorted(finished),
          "history --opponent bob")
    check(ids("--game", "gwezboell") == [games["draw"][0]], "history --game")
    for side in (0, 1):
        want = sorted(g for g in finished if by_id[g]["result"] == "win"
                      and by_id[g]["winner_side"] == side)
        check(ids("--winner-side", str(side)) == want, "history --winner-side %d: %r" % (side, want))
    check(ids("--rated", "no") == sorted(finished), "history --rated no")
    check(ids("--rated", "yes") == [], "history --rated yes: none")
    check(ids("--status", "ongoing") == [games["ongoing"][0]], "history --status ongoing")
    check(ids("--status", "all") == sorted(finished + [games["ongoing"][0]]),
          "history --status all")
    today = datetime.datetime.now(datetime.timezone.utc).date()
    yesterday = today - datetime.timedelta(days=1)
    check(ids("--from", today.isoformat(), "--to", today.isoformat()) == sorted(finished),
          "history --from/--to today (a --to day is included)")
    check(ids("--to", yesterday.isoformat()) == [], "history --to yesterday: none")
    created = by_id[games["draw"][0]]["created_at"]
    check(ids("--from", str(created)) ==
          sorted(g for g in finished if by_id[g]["created_at"] >= created),
          "history --from unix ms")
    r = c.run("history", "--player", "nobody-here")
    check(r.returncode == 1 and "no such" in r.stderr, "history: unknown player, exit 1 (%r)" % r.stderr)
    for bad in (["--result", "won"], ["--from", "2026-02-31"], ["--rated", "maybe"],
                ["--status", "old"], ["--limit", "0"], ["--winner-side", "2"],
                ["--before", "x"], ["--bogus"]):
        r = c.run("history", *bad)
        check(r.returncode == 2 and r.stderr.startswith("agon:"),
              "history %s: a usage error, exit 2 (%r)" % (" ".join(bad), r.stderr))

    # Paging: a page of one, the hint names the next; following it (and
    # --all) gives every game once, in order.
    r = c.run("history", "--limit", "1")
    out = r.stdout.splitlines()
    m = re.match(r"more: agon --port \d+ history --limit 1 --before (\d+)$", out[-1])
    check(r.returncode == 0 and len(out) == 3 and m,
          "history --limit 1: one row and the more: hint (%r)" % out)
    seen = [out[1].split()[0]]
    for _ in range(10):
        if not m:
            break
        r = c.run("history", "--limit", "1", "--before", m.group(1))
        out = r.stdout.splitlines()
        seen.append(out[1].split()[0])
        m = re.match(r"more: .* --before (\d+)$", out[-1])
    check(seen == list(rows), "history --before: paging visits each game once (%r)" % seen)
    r = c.run("history", "--limit", "1", "--all")
    got = [l.split()[0] for l in r.stdout.splitlines()[1:]]
    check(r.returncode == 0 and got == list(rows) and "more:" not in r.stdout,
          "history --all: every page, no hint (%r)" % r.stdout)
    r = c.run("--json", "history", "--limit", "2")
    check(len(lines_json(r.stdout)) == 2 and "more:" in r.stderr,
          "history --json: objects on stdout, the hint on stderr")
    return outcome


def check_profile(c, outcome):
    r = c.run("--json", "profile", "Alice")
    p = lines_json(r.stdout)[-1] if r.stdout.strip() else {}
    vals = list(outcome.values())
    check(r.returncode == 0 and p.get("name") == "alice" and p.get("played") == 3
          and p.get("wins") == vals.count("win") and p.get("losses") == vals.count("loss")
          and p.get("draws") == vals.count("draw") and p.get("ongoing") == 1,
          "profile --json: the counts (%r)" % p)
    r = c.run("profile", "alice")
    check(r.returncode == 0 and r.stdout.startswith(
        "alice: 3 played, %d won, %d lost, %d drawn, 1 ongoing" %
        (vals.count("win"), vals.count("loss"), vals.count("draw")))
        and "gomony" in r.stdout,
        "profile: text (%r)" % r.stdout)
    r = c.run("profile", "nobody-here")
    check(r.returncode == 1 and "agon: profile:" in r.stderr, "profile: unknown player (%r)" % r.stderr)
    r = c.run("leaderboard", "gomony")
    check(r.returncode == 0 and "no rated players" in r.stdout, "leaderboard: casual games rate nobody (%r)" % r.stdout)
    r = c.run("--json", "leaderboard")
    boards = lines_json(r.stdout)
    check(r.returncode == 0 and len(boards) == 5 and all(b["players"] == [] for b in boards),
          "leaderboard --json: one board per game (%r)" % r.stdout[:200])


def check_export(c, games):
    gid, plies, end = games["rules"]
    r = subprocess.run(c.args("export", gid), capture_output=True, env=c.env(),
                       timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    srv = server_export(gid, "text")
    check(r.returncode == 0 and r.stdout == srv.encode(),
          "export: stdout is the server's record, byte for byte")
    text = r.stdout.decode()
    tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', text, re.M))
    mv = re.findall(r"^(\d+)\. ", text, re.M)
    check(tags.get("Game") == "gomony" and tags.get("Reason") == end["reason"]
          and "alice" in tags.values() and [int(x) for x in mv] == list(range(1, plies + 1)),
          "export: tags and %d numbered moves (%r)" % (plies, tags))
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "g.txt")
        r = c.run("export", gid, "-o", f)
        check(r.returncode == 0 and open(f).read() == srv, "export -o FILE writes the same")
        rr = subprocess.run([T.RULES, "replay", f], capture_output=True, text=True, timeout=TIMEOUT)
        check(rr.returncode == 0 and "ok" in rr.stdout, "export: agon-rules replay accepts it (%r)" % rr.stdout)
    gid2 = games["resign"][0]
    r = c.run("export", gid2, "--format", "json")
    j = json.loads(r.stdout)
    check(r.returncode == 0 and r.stdout.endswith("}\n") and r.stdout.count("\n") == 1
          and j == server_export(gid2, "json") and len(j["moves"]) == 5
          and j["reason"] == "resignation",
          "export --format json: the server's record object on one line")
    r = c.run("export", games["ongoing"][0])
    check(r.returncode == 1 and r.stdout == "" and "export" in r.stderr,
          "export of a running game: refused, exit 1 (%r)" % r.stderr)
    r = c.run("export", "999999")
    check(r.returncode == 1, "export: no such game, exit 1 (%r)" % r.stderr)
    r = c.run("export", gid, "--format", "pgn")
    check(r.returncode == 2, "export --format pgn: usage error")


def check_replay(c, games):
    for kind in ("rules", "resign", "draw"):
        gid, plies = games[kind][0], games[kind][1]
        rec = record(gid)
        texts = [m["move"] for m in rec["moves"]]
        for n in sorted(set([0, 1, plies // 2, plies - 1, plies])):
            r = c.run("--json", "replay", gid, "--ply", str(n))
            st = lines_json(r.stdout)[-1] if r.stdout.strip() else {}
            ref = subprocess.run(show_args(rec, texts[:n]) + ["--json"], capture_output=True,
                                 text=True, timeout=TIMEOUT)
            want = json.loads(ref.stdout)
            check(r.returncode == 0 and st.get("ply") == n and st.get("plies") == plies
                  and st.get("position") == want["position"],
                  "replay %s --ply %d --json: the rules core's position" % (kind, n))
            if n and rec["moves"][n - 1]["clocks_ms"]:
                check(sorted(st.get("clocks_ms") or []) == sorted(rec["moves"][n - 1]["clocks_ms"]),
                      "replay %s --ply %d: the stored clocks" % (kind, n))
        # The plain screen: the title, the board as agon show draws it.
        n = plies // 2
        r = c.run("replay", gid, "--ply", str(n))
        lines = r.stdout.splitlines()
        ref = subprocess.run(show_args(rec, texts[:n]), capture_output=True, text=True,
                             timeout=TIMEOUT).stdout.splitlines()
        check(r.returncode == 0 and len(lines) >= 20
              and "game %s \u00b7 ply %d/%d" % (gid, n, plies) in lines[0]
              and lines[-1].startswith("game %s: ply %d/%d: " % (gid, n, plies)),
              "replay %s --ply %d: screen and result line (%r)" % (kind, n, lines[:1] + lines[-1:]))
        bw = board_width(ref)
        check([l[:bw] for l in lines[1:12]] == [l[:bw] for l in ref[1:12]],
              "replay %s --ply %d: the board agon show draws" % (kind, n))
        r = c.run("replay", gid)
        end = games[kind][2]
        check(r.returncode == 0 and "ply %d/%d: Game over" % (plies, plies) in r.stdout.splitlines()[-1]
              and (end is None or end["reason"].replace("_", " ") in r.stdout.splitlines()[-1]),
              "replay %s: at the end by default, with the result (%r)" % (kind, r.stdout.splitlines()[-1:]))
    gid, plies = games["rules"][0], games["rules"][1]
    r = c.run("replay", gid, "--ply", str(plies + 1))
    check(r.returncode == 2 and "plies" in r.stderr, "replay --ply past the end: usage error")
    r = c.run("replay", games["ongoing"][0])
    check(r.returncode == 1 and "not over" in r.stderr, "replay of a running game: refused (%r)" % r.stderr)
    r = c.run("replay", "abc")
    check(r.returncode == 2, "replay abc: usage error")
    r = c.run("history", "--help")
    check(r.returncode == 0 and r.stdout.startswith("usage: agon") and "replay GAME-ID" in r.stdout,
          "history --help: the usage on stdout, exit 0")


def board_width(lines):
    """Columns of the board: up to the side panel's first player marker
    column in the first rows (where agon show and replay agree)."""
    w = 80
    for l in lines[1:3]:
        m = re.search(r"   +[ \u25b6] \S", l)
        if m:
            w = min(w, m.start())
    return w


def title(s):
    return s.splitlines()[0] if s else ""


def interactive(c, games):
    gid, plies = games["rules"][0], games["rules"][1]
    t = Tmux([T.AGON, "--port", str(T.srv.port), "replay", gid], env={
        "XDG_CONFIG_HOME": c.cfg, "NO_COLOR": "1"})
    try:
        def at(n):
            return t.wait(lambda s: ("ply %d/%d" % (n, plies)) in title(s))
        # the title and the key line are drawn in one frame, but tmux may
        # be captured mid-write: wait for both
        s0 = t.wait(lambda s: ("ply 0/%d" % plies) in title(s) and
                    "n/Right/Space next" in s)
        check(bool(s0) and "n/Right/Space next" in s0, "tty: opens at ply 0 with the keys (%r)" % title(s0))
        t.keys("n")
        s1 = at(1)
        check(bool(s1) and s1 != s0, "tty: n steps forward, the board changes")
        t.keys("Right")
        check(bool(at(2)), "tty: Right steps forward")
        t.keys("Space")
        check(bool(at(3)), "tty: Space steps forward")
        t.keys("p")
        check(bool(at(2)), "tty: p steps back")
        t.keys("Left")
        s1b = at(1)
        check(bool(s1b) and s1b.splitlines()[1:12] == s1.splitlines()[1:12],
              "tty: Left back to ply 1, the same board")
        t.keys("End")
        se = at(plies)
        check(bool(se) and "Game over" in se, "tty: End goes to the end, the result shown")
        t.keys("Home")
        check(bool(at(0)), "tty: Home back to the start")
        t.keys("$")
        check(bool(at(plies)), "tty: $ to the end")
        t.keys("0")
        check(bool(at(0)), "tty: 0 to the start")
        t.type("g 7")
        t.keys("Enter")
        s7 = at(7)
        ref = c.run("replay", gid, "--ply", "7").stdout.splitlines()
        check(bool(s7) and s7.splitlines()[:22] == ref[:22],
              "tty: g 7 shows what replay --ply 7 prints (%r)" % title(s7))
        m7 = record(gid)["moves"][6]["move"]
        row7 = [l for l in s7.splitlines() if re.search(r" 7 \S+ %s$" % re.escape(m7), l)]
        check(len(row7) == 1, "tty: the move list shows move 7, %s (%s)" % (m7, s7))
        # The current move highlighted (bold), the moves after it dimmed.
        esc = t.screen(escapes=True).splitlines()
        r7 = [l for l in esc if re.search(r" 7 .*%s" % re.escape(m7), l)]
        r8 = [l for l in esc if re.search(r"\b8 [WB] ", l)]
        check(r7 and "\x1b[1m" in r7[0] and r8 and "\x1b[2m" in r8[0],
              "tty: move 7 is highlighted, 8 dimmed (%r / %r)" % (r7, r8))
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "r.txt")
            t.type("export " + f)
            t.keys("Enter")
            s = t.wait(lambda s: "Exported to" in s)
            check(bool(s) and os.path.exists(f) and open(f).read() == server_export(gid, "text"),
                  "tty: export FILE writes the record")
        t.type("g 999")
        t.keys("Enter")
        s = t.wait(lambda s: "a ply from 0 to" in s)
        check(bool(s) and "ply 7/%d" % plies in title(s), "tty: g past the end is refused, nothing moves")
        t.keys("q")
        check(t.exit_status() == "0", "tty: q quits, exit 0")
    finally:
        t.close()


def rated(c, games):
    """A rated game (the client cannot seek one yet: raw protocol), alice
    resigns: the leaderboard table and --rated yes show it."""
    ca, cb = T.srv.client(), T.srv.client()
    try:
        for cl, n in ((ca, "alice"), (cb, "bob")):
            check(cl.req("login", name=n, password=T.PASSWORD).get("ok"), "raw login %s" % n)
        sk = ca.req("seek_create", game="gomony", time_control="untimed", side="random", rated=True)
        acc = cb.req("seek_accept", seek_id=sk["data"]["seek_id"])
        gid = acc["data"]["game_id"]
        r = ca.req("resign", game_id=gid)
        check(r.get("ok"), "rated game: alice resigns (%r)" % r)
    finally:
        ca.close()
        cb.close()
    srv = T.srv.client()
    try:
        board = srv.req("leaderboard", game="gomony")["data"]["players"]
    finally:
        srv.close()
    r = c.run("leaderboard", "gomony")
    rows = [l.split() for l in r.stdout.splitlines()[2:]]
    check(r.returncode == 0 and len(board) == 2 and
          rows == [[str(i + 1), p["name"], "%.1f" % p["rating"], "%.1f" % p["rd"], str(p["games"])]
                   for i, p in enumerate(board)] and rows[0][1] == "bob",
          "leaderboard GAME: the server's board, bob first (%r)" % r.stdout)
    r = c.run("--json", "history", "--rated", "yes")
    check([g["game_id"] for g in lines_json(r.stdout)] == [gid],
          "history --rated yes: the rated game (%r)" % r.stdout)
    r = c.run("history", "--rated", "yes")
    check(r.stdout.splitlines()[1].split()[-1] == "yes", "history: RATED yes (%r)" % r.stdout)


def keepalive(c, games):
    """The browser answers the server's pings while it waits for keys: with
    a 200 ms ping and a 300 ms pong deadline, an export after two idle
    seconds still goes through the same connection."""
    T.srv.stop()
    T.srv.extra += ["--ping-interval-ms", "200", "--ping-timeout-ms", "300"]
    T.srv.start()
    gid = games["draw"][0]
    t = Tmux([T.AGON, "--port", str(T.srv.port), "replay", gid], env={
        "XDG_CONFIG_HOME": c.cfg})
    try:
        check(bool(t.wait(lambda s: "ply 0/4" in title(s))), "keepalive: the browser is open")
        time.sleep(2)
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "k.txt")
            t.type("export " + f)
            t.keys("Enter")
            s = t.wait(lambda s: "Exported to" in s or "export:" in s)
            check(bool(s) and "Exported to" in s and os.path.exists(f),
                  "keepalive: export after 2 s idle works (%r)" % (s or "").splitlines()[-4:])
        t.keys("q")
        check(t.exit_status() == "0", "keepalive: q quits, exit 0")
    finally:
        t.close()


def body():
    a, b, c = T.Player("alice"), T.Player("bob"), T.Player("carol")
    for p in (a, b):
        r = p.run("register", p.name)
        check(r.returncode == 0, "register %s: %s" % (p.name, r.stderr))
    rng = random.Random(23)
    games = play_games(a, b, rng)
    outcome = check_history(c, games)
    check_profile(c, outcome)
    check_export(c, games)
    check_replay(c, games)
    interactive(c, games)
    rated(c, games)
    keepalive(c, games)


if __name__ == "__main__":
    T.serve(body)
