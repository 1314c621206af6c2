"""A failed database write: the mover gets storage_error, the game is
reloaded from the database (which holds exactly the acknowledged moves),
players get game_reload and continue from the acknowledged position. The
failure is injected with an SQLite trigger added from outside (no test hook
in agond). Usage: test_play_storage.py AGOND AGON_RULES"""
import sqlite3
import sys

from agon_harness import (Server, check, err_code, finish, register,
                          start_game)

AGOND, RULES = sys.argv[1], sys.argv[2]


def main():
    srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0"]).start()
    try:
        a = register(srv, "alice")
        b = register(srv, "bob")
        g = start_game(srv, a, b, "gomony", time_control="10+0")
        for _ in range(3):
            g.play(g.legal(RULES)[0])
        fail_seq = g.seq + 1
        db = sqlite3.connect(srv.db, timeout=10)
        db.execute("CREATE TRIGGER inject_fail BEFORE INSERT ON moves "
                   "WHEN NEW.game_id = %d AND NEW.seq = %d "
                   "BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
                   % (g.gid, fail_seq))
        db.commit()
        seat = g.seat_to_move()
        mv = g.legal(RULES)[0]
        c = g.clients[seat]
        # pipelined: the draw offer is queued behind the failing move and
        # must fail too (no gap in the stored seqs)
        c.send({"type": "move", "id": 1001, "game_id": g.gid, "move": mv, "seq": g.seq})
        c.send({"type": "draw_offer", "id": 1002, "game_id": g.gid})
        r = c.reply()
        r2 = c.reply()
        check(r and r["id"] == 1001 and err_code(r) == "storage_error",
              "failed write -> storage_error (%r)" % (r,))
        # Either the offer was queued behind the failing move (then it fails
        # too: no gap in the stored seqs), or it arrived after the reload
        # (slow builds) and applies to the reloaded game at the failed seq.
        late = bool(r2 and r2.get("ok"))
        check(r2 and r2["id"] == 1002 and
              (err_code(r2) == "storage_error" or r2["data"]["seq"] == fail_seq),
              "the write behind it fails too, or applies after the reload (%r)" % (r2,))
        for c in g.clients:
            ev = c.event("game_reload")
            check(ev and ev["game_id"] == g.gid, "game_reload sent to %s" % c.name)
        check(not any(e.get("event") == "move" for c in g.clients for e in c.events),
              "the failed move was never broadcast")
        if late:
            for cl in g.clients:
                cl.event("draw_offer")
            g.seq = fail_seq
        r = a.req("join", game_id=g.gid, since_seq=0)
        check(r and r.get("ok"), "join after the reload")
        if r and r.get("ok"):
            check(r["data"]["seq"] == g.seq, "the reloaded game is at the acknowledged seq")
            check([e["move"] for e in r["data"]["events"] if e["event"] == "move"] == g.moves
                  and len(r["data"]["events"]) == g.seq,
                  "the database holds exactly the acknowledged events")
            check(r["data"]["game"]["state"]["to_move"] == g.to_move,
                  "the same side is to move")
        db.execute("DROP TRIGGER inject_fail")  # (it never fires again: seq moved on or not)
        db.commit()
        db.close()
        r, ev = g.play(mv)
        check(r and r.get("ok") and ev["seq"] == g.seq,
              "the same move is accepted once storage works, with the same seq")
        r, ev = g.play(g.legal(RULES)[0])
        check(r and r.get("ok"), "play continues")
        a.req("resign", game_id=g.gid)
        check(b.event("game_end") is not None, "game ends normally")
        a.close(); b.close()
        srv.stop_checked()
    finally:
        srv.cleanup()
    finish()


main()
