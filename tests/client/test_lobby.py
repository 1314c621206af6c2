"""The lobby with the agon client against a real agond (--port 0, temporary
database): `players` (text, JSON lines, --prefix), the lobby screen on a
terminal (tmux, 80x24) showing a seek appear and vanish live, a filter, an
incoming challenge accepted there (`yes N`: the game starts for both, the
screen turns into the play view and comes back after quit) and one declined
(`no N`: the challenger exits 1 saying so), an invitation taken with `join
CODE`, and errors (an offline player, an unknown game, no terminal).

usage: test_lobby.py AGON AGOND AGON_RULES"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_online as T  # noqa: E402  (same argv: AGON AGOND AGON_RULES)
from client_harness import Tmux, check  # noqa: E402

TIMEOUT = T.TIMEOUT


def bg(p, *a):
    """A waiting client command (seek, challenge, invite) in the
    background; stdout and stderr piped."""
    return subprocess.Popen(p.args(*a), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=p.env(),
                            stdin=subprocess.DEVNULL)


def players_json(p, *a):
    r = p.run("--json", "players", *a)
    lines = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    return r.returncode, lines


def panel_lines(scr, title):
    """The rows of a screen panel under its header (left column: up to
    the right column, which starts at column 48 on 80 columns)."""
    rows = scr.split("\n")
    out, on = [], False
    for r in rows:
        left = r[:47]
        if left.startswith(title):
            on = True
            continue
        if on:
            if not left.strip() or left.startswith("Live games") or \
                    left.startswith("-----"):
                break
            out.append(left.strip())
    return out


def players_cmd(a, b, c):
    r = a.run("players")
    check(r.returncode == 0 and "no players online" in r.stdout,
          "players: nobody online (%r %r)" % (r.stdout, r.stderr))
    t = Tmux([T.AGON, "--port", str(T.srv.port), "lobby"],
             env={"XDG_CONFIG_HOME": b.cfg})
    inv = None
    try:
        check(t.wait_text("Players online") is not None, "bob's lobby is up")
        inv = bg(c, "invite", "gomony", "--tc", "10+5")
        first = inv.stdout.readline()
        m = re.search(r"code ([a-z2-9]{10})", first)
        check(m is not None, "invite prints a code: %r" % first)
        r = a.run("players")
        lines = r.stdout.splitlines()
        check(r.returncode == 0 and lines[0].split() == ["NAME", "ID", "GAMES"]
              and [x.split()[0] for x in lines[1:]] == ["bob", "carol"],
              "players: a table of bob and carol (%r)" % r.stdout)
        rc, js = players_json(a)
        check(rc == 0 and [x["name"] for x in js] == ["bob", "carol"] and
              all(x["games"] == 0 and x["player_id"] > 0 for x in js),
              "players --json: one line per player (%r)" % js)
        rc, js = players_json(a, "--prefix", "C")
        check(rc == 0 and [x["name"] for x in js] == ["carol"],
              "players --prefix is case-insensitive (%r)" % js)
        r = a.run("players", "--prefix", "zz")
        check(r.returncode == 0 and "no players online" in r.stdout,
              "players --prefix matching nobody")
        # the screen lists them too (refreshed every few seconds)
        scr = t.wait(lambda s: "carol" in s)
        check(scr is not None and "bob" in scr and "(you)" in scr,
              "the lobby screen lists the online players")
        # invitation taken with join: both get the game
        r = a.run("--json", "join", m.group(1) if m else "x")
        st = json.loads((r.stdout.strip().splitlines() or ["{}"])[-1])
        out, err = inv.communicate(timeout=TIMEOUT)
        st2 = json.loads((out.strip().splitlines() or ["{}"])[-1]) \
            if out.strip().startswith("{") else {}
        check(r.returncode == 0 and st.get("event") == "game_start",
              "join CODE starts the game (%r %r)" % (r.stdout, r.stderr))
        check(inv.returncode == 0 and "game %s started" % st.get("game_id")
              in out, "the inviter's wait ends with the game (%r %r %r)"
              % (out, err, st2))
        r = a.run("join", "zzzzzzzzzz")
        check(r.returncode == 1 and "no such invitation" in r.stderr,
              "join with a wrong code: not found (%r)" % r.stderr)
        check(re.search(r"\x1b\[[0-9;]*3[1-7][;m]", t.screen(escapes=True)),
              "colours without NO_COLOR")
        gid = str(st.get("game_id"))
        scr = t.wait(lambda s: "Live games (1)" in s and "carol-alice" in s)
        check(scr is not None, "the lobby lists the live game carol-alice")
        t.type("watch " + gid)
        t.keys("Enter")
        scr = t.wait(lambda s: "watching game " + gid in s)
        check(scr is not None, "watch N opens the watch view")
        t.type("quit")
        t.keys("Enter")
        check(t.wait_text("back in the lobby") is not None,
              "quitting the watch view returns to the lobby")
        r = a.run("resign", gid)
        check(r.returncode == 0, "the invited game is resigned")
    finally:
        if inv and inv.poll() is None:
            inv.kill()
            inv.wait()
        t.close()


def on_screen(a, b):
    # plain `agon` on a terminal with a saved session is the lobby
    t = Tmux([T.AGON, "--port", str(T.srv.port)],
             env={"XDG_CONFIG_HOME": b.cfg, "NO_COLOR": "1"})
    procs = []
    try:
        check(t.wait_text("Open seeks (0)") is not None,
              "plain agon opens the lobby; no seeks at first")
        check(not re.search(r"\x1b\[[0-9;]*3[1-7][;m]",
                            t.screen(escapes=True)),
              "NO_COLOR: the lobby draws no colours")
        t.resize(100, 30)
        check(t.wait(lambda s: "-" * 100 in s and "Open seeks" in s)
              is not None, "resized to 100x30: redrawn at the new width")
        t.resize(60, 20)
        check(t.wait_text("is too small") is not None,
              "60x20: the too-small notice")
        t.resize(80, 24)
        check(t.wait(lambda s: "-" * 80 in s and "-" * 81 not in s and
                     "Players online" in s) is not None, "back to 80x24")
        # a seek appears live, a filter hides it, then it vanishes
        sk = bg(a, "seek", "gwezboell", "--tc", "3+2")
        procs.append(sk)
        m = re.search(r"seek (\d+)", sk.stdout.readline())
        sid = m.group(1) if m else "?"
        scr = t.wait(lambda s: any(x.startswith(sid + " ") and "alice" in x
                                   for x in panel_lines(s, "Open seeks")))
        check(scr is not None and "Open seeks (1)" in scr,
              "alice's seek appears on bob's screen")
        t.type("filter gomony")
        t.keys("Enter")
        scr = t.wait_text("filter: gomony")
        check(scr is not None and "Open seeks (0)" in scr and
              not any("gwezboell" in x for x in panel_lines(scr, "Open seeks")),
              "filter gomony hides the gwezboell seek")
        t.type("filter all")
        t.keys("Enter")
        scr = t.wait(lambda s: "filter: all" in s and "Open seeks (1)" in s)
        check(scr is not None, "filter all shows it again")
        t.type("filter chess")
        t.keys("Enter")
        check(t.wait_text("unknown game 'chess'") is not None,
              "filter with an unknown game says so")
        sk.terminate()
        sk.wait(timeout=TIMEOUT)
        scr = t.wait(lambda s: "Open seeks (0)" in s)
        check(scr is not None and not any(
            x.startswith(sid + " ") for x in panel_lines(scr, "Open seeks")),
            "the seek vanishes when alice leaves")

        # a challenge declined with `no N`
        ch = bg(a, "challenge", "bob", "gomony")
        procs.append(ch)
        m = re.search(r"challenge (\d+): waiting", ch.stdout.readline())
        cid = m.group(1) if m else "?"
        scr = t.wait(lambda s: "Challenges (1)" in s)
        check(scr is not None and re.search(r"\b%s alice\s+gomony" % cid, scr),
              "the challenge shows on bob's screen")
        t.type("no " + cid)
        t.keys("Enter")
        out, err = ch.communicate(timeout=TIMEOUT)
        check(ch.returncode == 1 and "bob declined the challenge" in err,
              "declined: the challenger exits 1 saying so (%r)" % err)
        check(t.wait(lambda s: "Challenges (0)" in s) is not None,
              "the declined challenge leaves the screen")

        # a challenge accepted with `yes N`: the game starts for both
        ch = bg(a, "--json", "challenge", "bob", "gomony", "--tc", "5+3")
        procs.append(ch)
        first = json.loads(ch.stdout.readline() or "{}")
        cid = str(first.get("challenge_id"))
        check(first.get("ok") and first.get("to") == "bob",
              "challenge --json prints its id (%r)" % first)
        check(t.wait(lambda s: "Challenges (1)" in s) is not None,
              "the second challenge shows")
        t.type("yes " + cid)
        t.keys("Enter")
        out, err = ch.communicate(timeout=TIMEOUT)
        st = json.loads((out.strip().splitlines() or ["{}"])[-1])
        check(ch.returncode == 0 and st.get("event") == "game_start" and
              st.get("seat") == 0, "accepted: alice's game starts (%r %r)"
              % (out, err))
        scr = t.wait(lambda s: "online game" in s and "alice" in s)
        check(scr is not None and re.search(r"\b0[45]:\d\d\b", scr),
              "bob's lobby turns into the play view with 5+3 clocks")
        t.type("quit")
        t.keys("Enter")
        scr = t.wait_text("back in the lobby")
        check(scr is not None and "Live games (1)" in scr,
              "quitting the view returns to the lobby, the game listed")
        gid = str(st.get("game_id"))
        t.type("play " + gid)
        t.keys("Enter")
        scr = t.wait(lambda s: "online game" in s and "alice" in s)
        check(scr is not None, "play N rejoins the game in the play view")
        t.type("quit")
        t.keys("Enter")
        check(t.wait(lambda s: s.count("back in the lobby after game %s"
                                       % gid) == 2) is not None,
              "and back to the lobby (a second time)")
        r = a.run("resign", gid)
        check(r.returncode == 0, "alice resigns the challenge game")

        # the history browser from the lobby, on the same connection
        t.type("replay " + gid)
        t.keys("Enter")
        scr = t.wait(lambda s: re.search(r"game %s .*ply 0/" % gid, s))
        check(scr is not None, "replay N opens the browser on the game")
        t.type("q")
        scr = t.wait_text("back in the lobby after replaying game " + gid)
        check(scr is not None and "Players online" in scr,
              "q returns to the lobby")
        t.type("replay 999999")
        t.keys("Enter")
        check(t.wait(lambda s: re.search(r"replay: .*(not found|no such)", s,
                                         re.I)) is not None,
              "replay of an unknown game says so, the lobby stays")

        # a seek posted and cancelled from the screen
        t.type("seek gwezboell")
        t.keys("Enter")
        scr = t.wait(lambda s: re.search(r"seek (\d+) posted", s))
        sid = re.search(r"seek (\d+) posted", scr or "").group(1) if scr else "0"
        check(t.wait_text("Open seeks (1)") is not None, "the own seek listed")
        t.type("cancel " + sid)
        t.keys("Enter")
        check(t.wait_text("seek %s cancelled" % sid) is not None and
              t.wait_text("Open seeks (0)") is not None,
              "cancel N withdraws the seek, the list empties")
        t.type("cancel " + sid)
        t.keys("Enter")
        check(t.wait(lambda s: re.search(r"cancel: .*(not found|no such)", s,
                                         re.I)) is not None,
              "cancelling it again: not found")

        # errors from the screen
        t.type("challenge nobody gomony")
        t.keys("Enter")
        check(t.wait_text("challenge: no such player online") is not None,
              "screen: challenging an offline player says so")
        t.type("frobnicate")
        t.keys("Enter")
        check(t.wait_text("unknown command 'frobnicate'") is not None,
              "screen: an unknown command says so")
        screen_to_screen(a, t)
        t.type("quit")
        t.keys("Enter")
        check(t.exit_status() == "0", "lobby: quit, exit 0")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        t.close()


def screen_to_screen(a, tb):
    """bob (tb) challenges from his lobby screen; alice answers from hers:
    no, then yes (both screens become the play view)."""
    ta = Tmux([T.AGON, "--port", str(T.srv.port), "lobby"],
              env={"XDG_CONFIG_HOME": a.cfg})
    try:
        check(ta.wait_text("Players online") is not None, "alice's lobby")
        ids = []
        for answer in ("no", "yes"):
            tb.type("challenge alice gomony --tc 2+1")
            tb.keys("Enter")
            def new_id(s):
                got = re.findall(r"challenge (\d+) sent to alice", s)
                return got[-1] if got and got[-1] not in ids else None
            scr = tb.wait(new_id)
            cid = new_id(scr or "") or "?"
            ids.append(cid)
            check(ta.wait(lambda s: re.search(r"\b%s bob\s+gomony" % cid, s))
                  is not None, "alice's screen shows bob's challenge %s: %s\n%s"
                  % (cid, ta.screen(), tb.screen()))
            ta.type("%s %s" % (answer, cid))
            ta.keys("Enter")
        check(ids[0] != ids[1], "two challenges")
        # the decline reached bob's log before the second challenge
        scr = tb.wait(lambda s: "online game" in s and "alice" in s)
        check(scr is not None, "yes: bob's screen becomes the play view")
        scr = ta.wait(lambda s: "online game" in s and "bob" in s)
        check(scr is not None and re.search(r"\b0[12]:\d\d\b", scr),
              "yes: alice's too, with the 2+1 clocks")
        for t in (ta, tb):
            t.type("resign")
            t.keys("Enter")
            t.type("quit")
            t.keys("Enter")
        scr = tb.wait(lambda s: "back in the lobby" in s and "Players" in s)
        check(scr is not None and "alice declined your challenge %s" % ids[0]
              in scr, "bob's lobby again; its log has alice's decline")
        check(ta.wait(lambda s: "back in the lobby" in s) is not None,
              "alice's lobby again")
        ta.type("quit")
        ta.keys("Enter")
        check(ta.exit_status() == "0", "alice's lobby: quit, exit 0")
    finally:
        ta.close()


def errors(a, b):
    r = a.run("challenge", "nobody", "gomony")
    check(r.returncode == 1 and "no such player online" in r.stderr,
          "challenge an offline player: not found (%r)" % r.stderr)
    r = a.run("challenge", "bob", "chess")
    check(r.returncode == 2 and "unknown game 'chess'" in r.stderr,
          "challenge with an unknown game (%r)" % r.stderr)
    r = a.run("challenge", "bob")
    check(r.returncode == 2 and "usage" in r.stderr, "challenge: usage")
    r = a.run("invite", "gomony", "-o", "novalue")
    check(r.returncode == 2 and "KEY=VALUE" in r.stderr,
          "invite: a malformed option (%r)" % r.stderr)
    r = a.run("lobby")
    check(r.returncode == 2 and "needs a terminal" in r.stderr,
          "lobby without a terminal points to the commands (%r)" % r.stderr)


def rated_seek(a, b):
    """seek --rated posts a rated seek (the lobby shows it with a *)."""
    sk = bg(a, "seek", "gomony", "--rated")
    try:
        m = re.search(r"seek (\d+)", sk.stdout.readline())
        r = b.run("--json", "seeks")
        rc, out = r.returncode, r.stdout
        lines = [json.loads(x) for x in out.splitlines() if x.strip()]
        seeks = lines[-1].get("seeks", []) if lines else []
        mine = [x for x in seeks if m and str(x.get("seek_id")) == m.group(1)]
        check(rc == 0 and len(mine) == 1 and mine[0].get("rated") is True,
              "seek --rated: the seek is rated (%r)" % out)
    finally:
        sk.kill()
        sk.wait()


def body():
    a, b, c = T.Player("alice"), T.Player("bob"), T.Player("carol")
    for p in (a, b, c):
        r = p.run("register", p.name)
        check(r.returncode == 0, "register %s: %s" % (p.name, r.stderr))
    errors(a, b)
    players_cmd(a, b, c)
    rated_seek(a, b)
    on_screen(a, b)


T.serve(body)
