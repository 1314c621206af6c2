"""One player on several connections (the server's player -> connections
index): a new game is attached to every device of both players, challenge
events reach every device of the target, a seek survives while one of its
creator's devices stays and goes when the last one leaves, and a logged-out
device is no longer reached. Usage: test_play_devices.py AGOND RULES"""
import sys

from agon_harness import Server, check, finish, register, resume, start_game

AGOND, RULES = sys.argv[1], sys.argv[2]


def event_for(client, name, key, val):
    """Next `name` event whose `key` (dotted for nested) is val; earlier
    ones (of the other games/seeks) are skipped."""
    while True:
        ev = client.event(name)
        if ev is None:
            return None
        v = ev
        for k in key.split("."):
            v = v.get(k) if isinstance(v, dict) else None
        if v == val:
            return ev


def main():
    srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0"]).start()
    try:
        a = register(srv, "dev_alice")
        a2 = resume(srv, a.token)
        b = register(srv, "dev_bob")
        b2 = resume(srv, b.token)
        w = register(srv, "dev_watch")
        r = w.req("lobby_subscribe", on=True)
        check(r and r["ok"], "watcher subscribed")

        # game start: every device of both players gets game_start
        g = start_game(srv, a, b, "gwezboell")
        ev = a2.event("game_start")
        check(ev and ev["game_id"] == g.gid, "second device of the creator gets game_start")
        ev = b2.event("game_start")
        check(ev and ev["game_id"] == g.gid, "second device of the acceptor gets game_start")

        # challenge: both of bob's devices are told
        r = a.req("challenge", to="dev_bob", game="gomony")
        check(r and r["ok"], "challenge created")
        cid = r["data"]["challenge_id"] if r and r["ok"] else None
        for dev, what in ((b, "first"), (b2, "second")):
            ev = dev.event("challenge")
            check(ev and ev["challenge_id"] == cid, "challenge reaches bob's %s device" % what)
        r = a.req("challenge_cancel", challenge_id=cid)
        check(r and r["ok"], "challenge cancelled")

        # a seek stays while one of its creator's devices is connected
        r = a.req("seek_create", game="gomony")
        check(r and r["ok"], "seek created")
        sid = r["data"]["seek_id"]
        ev = event_for(w, "seek_added", "seek.seek_id", sid)
        check(ev is not None, "watcher sees the seek")
        a.close()
        r = w.req("seeks", game="gomony")
        check(r and r["ok"] and [s["seek_id"] for s in r["data"]["seeks"]] == [sid],
              "seek kept while another device of its creator is connected")
        a2.close()
        ev = event_for(w, "seek_removed", "seek_id", sid)
        check(ev and ev["reason"] == "gone",
              "seek removed when the creator's last device leaves")

        # a logged-out device is out of the index: only b gets the new game
        r = b2.req("logout")
        check(r and r["ok"], "second device of bob logged out")
        c = register(srv, "dev_carol")
        g3 = start_game(srv, c, b, "gwezboell")
        # Anything sent to b2 for that game went out before this reply.
        r = b2.req("ping")
        check(r and r["ok"], "logged-out device still works")
        check(not any(e.get("event") == "game_start" and e.get("game_id") == g3.gid
                      for e in b2.events),
              "logged-out device gets no game_start")
    finally:
        srv.stop()
    finish()


if __name__ == "__main__":
    main()
