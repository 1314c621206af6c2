"""Illegal, out-of-turn and stale moves; reconnection with missed events
(join since_seq), several connections of one player; restart and kill -9
recovery: acknowledged moves survive and the game continues from the same
position with its clocks. Usage: test_play_reconnect.py AGOND AGON_RULES"""
import signal
import sys

from agon_harness import (Server, check, err_code, finish, register, resume,
                          start_game)

AGOND, RULES = sys.argv[1], sys.argv[2]
DERIVED = ("to_move", "outcome", "sides")


def strip(ev):
    """A broadcast move event minus what a replayed one does not carry."""
    e = {k: v for k, v in ev.items() if k not in DERIVED}
    if e.get("event") == "move":
        e["clocks"] = {"ms": ev["clocks"]["ms"]}
    return e


def bad_requests(srv, g, third):
    s = g.seat_to_move()
    me, other = g.clients[s], g.clients[1 - s]
    legal = g.legal(RULES)
    r = other.req("move", game_id=g.gid, move=legal[0])
    check(err_code(r) == "not_your_turn", "out-of-turn move -> not_your_turn")
    r = me.req("move", game_id=g.gid, move="zz99-qq")
    check(err_code(r) in ("bad_move", "illegal_move"), "nonsense move -> bad_move (%s)" % err_code(r))
    r = me.req("move", game_id=g.gid, move="a1-a2" if "a1-a2" not in legal else "h8-h7")
    check(err_code(r) in ("illegal_move", "bad_move"), "illegal move -> illegal_move (%s)" % err_code(r))
    if err_code(r) == "illegal_move":
        check(len(r["error"]["message"]) > 0, "illegal_move carries the reason")
    r = me.req("move", game_id=g.gid, move=legal[0], seq=g.seq - 1 if g.seq else 99)
    check(err_code(r) == "stale_seq", "stale seq -> stale_seq")
    r = me.req("move", game_id=g.gid + 1000, move=legal[0])
    check(err_code(r) == "not_found", "unknown game -> not_found")
    r = third.req("move", game_id=g.gid, move=legal[0])
    check(err_code(r) == "forbidden", "a third player -> forbidden")
    r = third.req("join", game_id=g.gid)
    check(err_code(r) == "forbidden", "a third player cannot join (spectators: next version)")
    r = me.req("move", game_id=g.gid, move=legal[0], extra=1)
    check(err_code(r) == "bad_field", "unknown field -> bad_field")
    r = me.req("whoami")
    check(r and r.get("ok"), "the connection still works after the errors")
    r, ev = g.play(legal[0])
    check(r and r.get("ok"), "nothing changed: the legal move is accepted with the same seq")


def main():
    srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0"]).start()
    try:
        a = register(srv, "alice")
        b = register(srv, "bob")
        c = register(srv, "carol")

        g = start_game(srv, a, b, "gomony", time_control="10+0")
        bad_requests(srv, g, c)

        # ---- reconnect with missed events ----
        while g.seat_to_move() != 0:
            g.play(g.legal(RULES)[0])
        n = g.seq
        b.close()
        ev = a.event("opponent_gone")
        check(ev and ev["game_id"] == g.gid, "opponent_gone when bob leaves")
        mv = g.legal(RULES)[0]
        r = a.req("move", game_id=g.gid, move=mv, seq=g.seq)
        check(r and r.get("ok"), "alice moves while bob is away")
        m1 = a.event("move")
        g.note_move(m1)
        r = a.req("draw_offer", game_id=g.gid)
        d1 = a.event("draw_offer")
        g.seq = d1["seq"]
        b = resume(srv, b.token)
        g.clients[1] = b
        r = b.req("games_mine")
        mine = [x for x in r["data"]["games"] if x["game_id"] == g.gid]
        check(len(mine) == 1 and mine[0]["seq"] == g.seq and mine[0]["seat"] == 1,
              "games_mine lists the game with its seq after reconnect")
        r = b.req("join", game_id=g.gid, since_seq=n)
        check(r and r.get("ok"), "join since_seq accepted")
        evs = r["data"].get("events")
        check(evs is not None and [e["seq"] for e in evs] == [n + 1, n + 2],
              "join yields exactly the missed events")
        if evs and len(evs) == 2:
            check(evs[0] == strip(m1), "replayed move event equals the broadcast one")
            check(evs[1] == d1, "replayed draw_offer equals the broadcast one")
        snap = r["data"]["game"]
        check(snap["draw_offer"] == 0 and snap["opponent_connected"] is True,
              "snapshot: pending draw offer, opponent connected")
        check(snap["state"]["position"] is not None, "snapshot has the position")
        back = a.event("opponent_back")
        check(back and back["game_id"] == g.gid, "alice gets opponent_back")
        r = b.req("join", game_id=g.gid)
        check(r["ok"] and "events" not in r["data"], "join without since_seq: snapshot only")
        r = b.req("join", game_id=g.gid, since_seq=0)
        check(r["ok"] and [e["seq"] for e in r["data"]["events"]] == list(range(1, g.seq + 1)),
              "join since 0: every event from the database")
        r = b.req("draw_decline", game_id=g.gid)
        check(r and r.get("ok"), "bob declines after reconnecting")
        a.event("draw_decline"); b.event("draw_decline")
        g.seq = r["data"]["seq"]

        # a second connection of bob gets the events too
        b2 = resume(srv, b.token)
        r = b2.req("join", game_id=g.gid, since_seq=g.seq)
        check(r["ok"] and r["data"]["events"] == [], "second connection joins, nothing missed")
        r, ev = g.play(g.legal(RULES)[0])
        e2 = b2.event("move")
        check(e2 == ev, "both of bob's connections get the move")
        b2.close()
        r, ev = g.play(g.legal(RULES)[0])
        check(r and r.get("ok"), "play goes on after one of bob's connections closed")
        check(not any(e.get("event") == "opponent_gone" for e in a.events),
              "no opponent_gone while bob has another connection")

        # ---- graceful restart: recovery ----
        # a Gambo game past its side choice is recovered too
        gg = start_game(srv, a, b, "gambo-2023", time_control="untimed")
        for _ in range(5):
            gg.play(gg.legal(RULES)[0])
        gg_moves, gg_sides = list(gg.moves), list(gg.sides)
        acked = g.seq
        moves_before = list(g.moves)
        last_clocks = ev["clocks"]
        a.close(); b.close(); c.close()
        check(srv.stop() == 0, "agond stops with a game in progress")
        srv.start()
        a = resume(srv, a.token)
        b = resume(srv, b.token)
        g.clients = [a, b]
        r = a.req("games_mine")
        check(any(x["game_id"] == g.gid and x["seq"] == acked for x in r["data"]["games"]),
              "after restart the game is active at the same seq")
        r = a.req("join", game_id=g.gid, since_seq=0)
        evs = r["data"]["events"]
        check([e["move"] for e in evs if e["event"] == "move"] == moves_before,
              "every acknowledged move is stored, in order")
        snap = r["data"]["game"]
        rb = b.req("join", game_id=g.gid, since_seq=acked)
        run = last_clocks["running"]
        ms = snap["clocks"]["ms"]
        check(ms[1 - run] == last_clocks["ms"][1 - run],
              "the waiting seat's clock is restored exactly")
        check(last_clocks["ms"][run] - 5000 < ms[run] <= last_clocks["ms"][run],
              "the running clock resumes from its stored value (downtime not charged)")
        check(snap["opponent_connected"] is False and rb["data"]["game"]["opponent_connected"] is True,
              "after restart: alice alone at first, then bob sees her connected")
        for _ in range(3):
            r, ev = g.play(g.legal(RULES)[0])
            check(r and r.get("ok"), "the game continues after the restart")
            if g.outcome:
                break

        r = a.req("join", game_id=gg.gid, since_seq=0)
        snap = r["data"]["game"]
        check([p["side"] for p in snap["players"]] == gg_sides,
              "gambo after restart: the chosen sides are restored")
        check([e["move"] for e in r["data"]["events"]] == gg_moves,
              "gambo after restart: every move stored")
        b.req("join", game_id=gg.gid)
        gg.clients = [a, b]
        check(snap["state"]["to_move"] == gg.to_move, "gambo after restart: same side to move")
        r, ev = gg.play(gg.legal(RULES)[0])
        check(r and r.get("ok"), "gambo after restart: play continues from the same position")
        a.req("resign", game_id=gg.gid)
        a.event("game_end"); b.event("game_end")

        # ---- kill -9 right after acknowledgements ----
        for rnd in range(3):
            for _ in range(2):
                if g.outcome:
                    break
                r, ev = g.play(g.legal(RULES)[0])
            acked_moves = list(g.moves)
            srv.signal(signal.SIGKILL)
            srv.wait()
            a.close(); b.close()
            srv.start()
            a = resume(srv, a.token)
            b = resume(srv, b.token)
            g.clients = [a, b]
            r = a.req("join", game_id=g.gid, since_seq=0)
            check(r and r.get("ok"), "kill -9 round %d: the game is back" % rnd)
            if not (r and r.get("ok")):
                break
            stored = [e["move"] for e in r["data"]["events"] if e["event"] == "move"]
            check(stored == acked_moves, "kill -9 round %d: every acked move stored" % rnd)
            b.req("join", game_id=g.gid)
        if not g.outcome:
            r = a.req("resign", game_id=g.gid)
            check(r and r.get("ok"), "resign after the restarts")
            e = b.event("game_end")
            check(e and e["reason"] == "resign", "game_end after the restarts")
        a.close(); b.close()
        srv.stop_checked()
    finally:
        srv.cleanup()
    finish()


main()
