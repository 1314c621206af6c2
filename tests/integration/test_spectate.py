"""Spectating and chat: games_live, watch at the start and mid-game, resume
with since_seq after a disconnect, unwatch, spectator counts to the players,
a spectator that never reads is dropped while the game goes on, chat rooms
kept apart (players opt in to the spectators' chat), chat limits.
Usage: test_spectate.py AGOND AGON_RULES"""
import json
import sys
import time

from agon_harness import Server, check, err_code, finish, register, start_game

AGOND, RULES = sys.argv[1], sys.argv[2]


def strip_move(ev):
    """A live move event minus what a replayed one does not carry."""
    e = {k: v for k, v in ev.items() if k not in ("to_move", "outcome", "sides")}
    e["clocks"] = {"ms": ev["clocks"]["ms"]}
    return e


def moves_seen(c):
    """Move events c received so far (a ping flushes what is in flight)."""
    r = c.req("ping")
    assert r and r.get("ok"), r
    return [e for e in c.events if e.get("event") == "move"]


def delayed(srv, a, b, carol):
    for bad in ({"moves": -1}, {"moves": 1, "seconds": 1}, {"minutes": 1},
                {"seconds": 100000}, 3):
        r = a.req("seek_create", game="gomony", spectator_delay=bad)
        check(err_code(r) == "bad_field", "bad spectator_delay %r -> bad_field" % (bad,))

    # ---- by moves ----
    g = start_game(srv, a, b, "gomony", spectator_delay={"moves": 2})
    w = srv.client()
    r = w.req("watch", game_id=g.gid)
    check(r["data"]["game"]["spectator_delay"] == {"moves": 2}, "the snapshot shows the delay")
    mv = []
    for i in range(2):
        rr, ev = g.play(g.legal(RULES)[0])
        mv.append(ev)
        check(moves_seen(w) == [], "move %d not shown yet (delay 2 moves)" % (i + 1))
    rr, ev = g.play(g.legal(RULES)[0])
    mv.append(ev)
    check([e["seq"] for e in moves_seen(w)] == [mv[0]["seq"]],
          "after the 3rd move the spectator gets the 1st")
    x = [e for e in w.req("games_live")["data"]["games"] if e["game_id"] == g.gid][0]
    check(x["moves"] == 1 and x["seq"] == mv[0]["seq"], "games_live shows the delayed move count")
    late = srv.client()
    r = late.req("watch", game_id=g.gid, since_seq=0)
    check(r["data"]["seq"] == mv[0]["seq"] and r["data"]["game"]["state"]["ply"] == 1
          and [e["seq"] for e in r["data"]["events"]] == [mv[0]["seq"]],
          "watch mid-game: delayed snapshot and move list")
    r = a.req("resign", game_id=g.gid)
    check(r.get("ok"), "alice resigns")
    end = w.event("game_end")
    got = [e["seq"] for e in w.events if e.get("event") == "move"]
    check(end and got == [m["seq"] for m in mv], "moves delay: at the end the rest is released, in order")

    # ---- by seconds ----
    g = start_game(srv, a, b, "gomony", spectator_delay={"seconds": 2})
    w = srv.client()
    w.req("watch", game_id=g.gid)
    rr, ev = g.play(g.legal(RULES)[0])
    check(moves_seen(w) == [], "seconds delay: the move is not shown at once")
    r = b.req("resign", game_id=g.gid)
    check(r.get("ok"), "bob resigns")
    late = srv.client()
    r = late.req("watch", game_id=g.gid)
    snap = r["data"]["game"]
    check(snap["status"] == "active" and snap["state"]["ply"] == 0 and r["data"]["seq"] == 0,
          "snapshot after the end: still the delayed game, no end")
    check("seed" not in json.dumps(snap["state"]).replace("seed_commitment", ""),
          "no seed in the delayed snapshot")
    check(any(e["game_id"] == g.gid for e in late.req("games_live")["data"]["games"]),
          "games_live still lists it while the end is delayed")
    e1 = w.event("move")
    e2 = w.event("game_end")
    check(e1 == ev and e2 and e2["seed"], "after the delay: the move, then game_end with the seed")
    check(late.event("move") == ev and late.event("game_end")["seed"] == e2["seed"],
          "a spectator who came later gets the same")

    # ---- a chooser game: the sides stay hidden until the choice is shown ----
    g = start_game(srv, a, b, "gambo-2023", spectator_delay={"moves": 2})
    check(g.seat_to_move() is not None and g.to_move == "chooser", "gambo starts with the choice")
    g.play(g.legal(RULES)[0])
    w = srv.client()
    r = w.req("watch", game_id=g.gid)
    check(all(p["side"] is None for p in r["data"]["game"]["players"])
          and r["data"]["game"]["state"]["ply"] == 0,
          "delayed snapshot: the choice (and so the sides) not shown yet")
    x = [e for e in w.req("games_live")["data"]["games"] if e["game_id"] == g.gid][0]
    check(all(p["side"] is None for p in x["players"]), "nor in games_live")
    a.req("abort", game_id=g.gid)

    # ---- the delay survives a restart ----
    g = start_game(srv, a, b, "gomony", spectator_delay={"moves": 2})
    mv = [g.play(g.legal(RULES)[0])[1] for _ in range(3)]
    srv.stop()
    srv.start()
    w = srv.client()
    r = w.req("watch", game_id=g.gid, since_seq=0)
    check(r and r.get("ok") and r["data"]["seq"] == mv[0]["seq"]
          and r["data"]["game"]["state"]["ply"] == 1
          and [e["seq"] for e in r["data"]["events"]] == [mv[0]["seq"]],
          "after a restart the spectators' view is still 2 moves behind")


def lagging():
    """A spectator that stops reading is skipped (no queueing), and once it
    has drained gets one game_snapshot instead of the events it missed."""
    srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0",
                               "--write-queue-high", "4096",
                               "--write-queue-low", "1024",
                               "--write-queue-max", "67108864"]).start()
    try:
        a = register(srv, "lag_a")
        b = register(srv, "lag_b")
        g = start_game(srv, a, b, "gomony")
        slow = srv.client(rcvbuf=2048)
        r = slow.req("watch", game_id=g.gid)
        check(r.get("ok"), "slow spectator watches")
        # Fill its output queue with snapshots it asked for, without reading:
        # more than the kernel can buffer (twice the largest TCP send
        # buffer), so the rest waits in agond's queue, above the mark.
        size = len(json.dumps(r)) + 1
        try:
            wmem = int(open("/proc/sys/net/ipv4/tcp_wmem").read().split()[2])
        except (OSError, ValueError, IndexError):
            wmem = 4 << 20
        n = min(40000, 2 * wmem // size + 500)
        slow.send_raw(b'{"type":"watch","game_id":%d}\n' % g.gid * n)
        rr, mv1 = g.play(g.legal(RULES)[0])
        check(rr and rr.get("ok"), "the game goes on while the spectator does not read")
        got = 0
        while got < n:
            m = slow.recv()
            if m is None:
                break
            if "re" in m:
                got += 1
            else:
                slow.events.append(m)
        check(got == n, "the spectator reads its %d replies" % n)
        skipped = [e for e in slow.events if e.get("event") == "move"]
        check(skipped == [], "the move sent while it lagged was skipped, not queued")
        ev = slow.event("game_snapshot")
        check(ev and ev["seq"] == mv1["seq"] and ev["game"]["state"]["ply"] == 1,
              "once drained (no new event needed): one game_snapshot at the current seq")
        check(not [e for e in slow.events if e.get("event") == "move"],
              "and the skipped move was never sent")
        rr, mv2 = g.play(g.legal(RULES)[0])
        check(slow.event("move") == mv2, "then the events again")
        srv.stop_checked()
    finally:
        srv.cleanup()


def main():
    srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0",
                               "--stall-timeout-ms", "1500"]).start()
    try:
        a = register(srv, "alice")
        b = register(srv, "bob")
        carol = register(srv, "carol")
        anon = srv.client()          # no account: may list and watch

        r = anon.req("games_live")
        check(r and r.get("ok") and r["data"]["games"] == [], "games_live works without login, empty")

        g = start_game(srv, a, b, "gomony", time_control="10+0")
        g2 = start_game(srv, carol, register(srv, "dave"), "gwezboell")

        # ---- games_live filters ----
        r = anon.req("games_live")
        ids = sorted(x["game_id"] for x in r["data"]["games"])
        check(ids == sorted([g.gid, g2.gid]), "both live games listed")
        r = anon.req("games_live", game="gomony")
        check([x["game_id"] for x in r["data"]["games"]] == [g.gid], "filter by game")
        r = anon.req("games_live", player="DAVE")
        check([x["game_id"] for x in r["data"]["games"]] == [g2.gid], "filter by player (any case)")
        x = anon.req("games_live", game="gomony")["data"]["games"][0]
        check(x["moves"] == 0 and x["spectators"] == 0 and len(x["players"]) == 2
              and len(x["clocks"]["ms"]) == 2 and x["time_control"] == "10+0",
              "entry: players, moves, clocks, spectators (%r)" % x)
        r = anon.req("games_live", bogus=1)
        check(err_code(r) == "bad_field", "games_live: unknown field -> bad_field")

        # ---- watch at the start (anonymous) ----
        r = anon.req("watch", game_id=g.gid)
        check(r and r.get("ok") and r["data"]["seq"] == 0 and "events" not in r["data"],
              "watch at the start: snapshot, no events")
        snap = r["data"]["game"]
        check(snap["status"] == "active" and snap["state"]["ply"] == 0 and snap["spectators"] == 1,
              "the snapshot is the game (status, ply, spectator count)")
        ev = a.event("spectators")
        check(ev and ev["game_id"] == g.gid and ev["count"] == 1, "players get the spectator count")
        ev = b.event("spectators")
        check(ev and ev["count"] == 1, "both players get it")
        r = anon.req("watch", game_id=g.gid + 1000)
        check(err_code(r) == "not_found", "watch of an unknown game -> not_found")

        # ---- moves reach the spectator ----
        live = []
        for _ in range(4):
            rr, mv = g.play(g.legal(RULES)[0])
            check(rr and rr.get("ok"), "move accepted")
            sev = anon.event("move")
            check(sev == mv, "spectator gets the same move event as the players")
            live.append(sev)

        # ---- a spectator joining mid-game ----
        late = srv.client()
        r = late.req("watch", game_id=g.gid)
        check(r["data"]["seq"] == g.seq and r["data"]["game"]["state"]["ply"] == 4,
              "mid-game watch: snapshot at the current seq")

        late.events.clear()
        # ---- resume after a disconnect ----
        seen = live[1]["seq"]
        anon.close()
        rr, mv = g.play(g.legal(RULES)[0])
        live.append(mv)
        check(late.event("move") == mv, "the mid-game spectator gets the next move")
        anon = srv.client()
        r = anon.req("watch", game_id=g.gid, since_seq=seen)
        evs = r["data"].get("events")
        check(evs is not None and [e["seq"] for e in evs] == [e["seq"] for e in live[2:]],
              "resume: exactly the missed events")
        check(all(e == strip_move(l) for e, l in zip(evs, live[2:])), "replayed events match the broadcasts")
        rr, mv = g.play(g.legal(RULES)[0])
        check(anon.event("move") == mv and late.event("move") == mv, "then live events follow")
        r = anon.req("watch", game_id=g.gid, since_seq=g.seq)
        check(r["data"].get("events") == [], "watch when up to date: empty events")

        # ---- unwatch ----
        r = late.req("unwatch", game_id=g.gid)
        check(r and r.get("ok"), "unwatch")
        r = late.req("unwatch", game_id=g.gid)
        check(err_code(r) == "not_found", "unwatch twice -> not_found")
        late.req("ping")
        late.events.clear()
        rr, mv = g.play(g.legal(RULES)[0])
        anon.event("move")
        r = late.req("ping")
        check(r and r.get("ok") and not any(e.get("event") == "move" for e in late.events),
              "no events after unwatch")

        # ---- chat ----
        sp = register(srv, "erin")        # a logged-in spectator
        r = sp.req("watch", game_id=g.gid)
        check(r.get("ok"), "erin watches")
        r = anon.req("chat", game_id=g.gid, room="spectators", text="hi")
        check(err_code(r) == "unauthenticated", "chat needs a login")
        r = sp.req("chat", game_id=g.gid, room="players", text="psst")
        check(err_code(r) == "forbidden", "a spectator cannot write in the players' room")
        r = a.req("chat", game_id=g.gid, room="spectators", text="hello crowd")
        check(err_code(r) == "forbidden", "a player cannot write in the spectators' room")
        r = a.req("chat", game_id=g.gid, room="players", text="good luck")
        check(r.get("ok") and r["data"]["chat_id"] > 0, "player chat stored")
        ev = b.event("chat")
        check(ev and ev["room"] == "players" and ev["from"] == "alice" and ev["text"] == "good luck",
              "the opponent gets the players' chat")
        a.event("chat")
        r = sp.req("chat", game_id=g.gid, room="spectators", text="nice move")
        check(r.get("ok"), "spectator chat stored")
        ev = anon.event("chat")
        check(ev and ev["room"] == "spectators" and ev["text"] == "nice move", "spectators get it")
        sp.event("chat")
        r = a.req("ping")
        r2 = sp.req("ping")
        check(not any(e.get("event") == "chat" and e["room"] == "spectators" for e in a.events + b.events),
              "players do not see the spectators' chat by default")
        check(not any(e.get("event") == "chat" and e["room"] == "players" for e in sp.events + anon.events),
              "spectators do not see the players' chat")
        r = a.req("chat_subscribe", game_id=g.gid, on=True)
        check(r.get("ok"), "alice opts in to the spectators' chat")
        sp.req("chat", game_id=g.gid, room="spectators", text="go alice")
        ev = a.event("chat")
        check(ev and ev["text"] == "go alice", "after opting in, alice sees it")
        b.req("ping")
        check(not any(e.get("event") == "chat" and e["room"] == "spectators" for e in b.events),
              "bob (not opted in) still does not")
        r = sp.req("chat", game_id=g.gid, room="spectators", text="x" * 501)
        check(err_code(r) == "bad_field", "over-long chat -> bad_field")
        r = sp.req("chat", game_id=g.gid, room="spectators", text="a\nb")
        check(err_code(r) == "bad_field", "control characters -> bad_field")
        r = sp.req("chat", game_id=g.gid, room="lobby", text="a")
        check(err_code(r) == "bad_field", "unknown room -> bad_field")
        codes = [err_code(sp.req("chat", game_id=g.gid, room="spectators", text="spam %d" % i))
                 for i in range(8)]
        check("rate_limited" in codes, "chat is rate-limited (%s)" % codes)
        check(sp.req("whoami").get("ok"), "the connection still works")

        # ---- a spectator that never reads ----
        slow = srv.client(rcvbuf=2048)
        r = slow.req("watch", game_id=g.gid)
        check(r.get("ok"), "slow spectator watches")
        # It asks for snapshots and never reads the answers: its output
        # queue fills, events to it are skipped, the stall timeout drops it.
        line = b'{"type":"watch","game_id":%d}\n' % g.gid
        try:
            for _ in range(400):
                slow.send_raw(line * 10)
        except OSError:
            pass
        for _ in range(6):
            rr, mv = g.play(g.legal(RULES)[0])
            check(rr and rr.get("ok"), "the game goes on while a spectator lags")
            check(anon.event("move") == mv, "the other spectators keep getting events")
        # Poll (bounded) without reading the slow socket: the server drops
        # it after --stall-timeout-ms without progress.
        n = None
        for _ in range(100):
            n = anon.req("games_live", game="gomony")["data"]["games"][0]["spectators"]
            if n == 2:
                break
            time.sleep(0.1)
        check(n == 2, "the spectator that never reads is dropped (count %s)" % n)
        check(slow.closed(), "its connection is closed")
        rr, mv = g.play(g.legal(RULES)[0])
        check(rr and rr.get("ok") and anon.event("move") == mv, "and the game still goes on")

        # ---- the end reaches spectators ----
        r = b.req("resign", game_id=g.gid)
        check(r.get("ok"), "bob resigns")
        ev = anon.event("game_end")
        check(ev and ev["reason"] == "resign" and ev["seed"], "spectators get game_end with the seed")
        r = anon.req("games_live", game="gomony")
        check(r["data"]["games"] == [], "a finished game leaves games_live")
        delayed(srv, a, b, carol)
        srv.stop_checked()
    finally:
        srv.cleanup()
    lagging()
    finish()


main()
