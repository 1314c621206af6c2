"""The `players` list of the lobby: who is logged in now, each once however
many connections, sorted by name (case-insensitively), a prefix filter, a
limit with more:true, the live games per player, no login needed, logout
and disconnect leave it, bad fields rejected. Usage: test_players.py AGOND"""
import sys

from agon_harness import (Server, check, err_code, finish, register, resume,
                          start_game)

AGOND = sys.argv[1]


def names(r):
    return [p["name"] for p in r["data"]["players"]]


def main():
    srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0"]).start()
    try:
        anon = srv.client()
        r = anon.req("players")
        check(r["ok"] and r["data"] == {"players": [], "more": False},
              "no one logged in: empty list, more false")

        bob = register(srv, "bob")
        alice = register(srv, "Alice")
        carol = register(srv, "carol")
        bob2 = resume(srv, bob.token)  # a second connection of bob
        r = anon.req("players")
        check(r["ok"] and names(r) == ["Alice", "bob", "carol"],
              "sorted by name case-insensitively, bob once: %s" % r)
        ids = {p["name"]: p["player_id"] for p in r["data"]["players"]}
        check(all(isinstance(v, int) and v > 0 for v in ids.values())
              and len(set(ids.values())) == 3, "distinct player ids")
        check(all(p["games"] == 0 for p in r["data"]["players"]),
              "no games yet")

        r = anon.req("players", prefix="B")
        check(r["ok"] and names(r) == ["bob"], "prefix is case-insensitive")
        r = anon.req("players", prefix="zz")
        check(r["ok"] and names(r) == [] and r["data"]["more"] is False,
              "prefix matching nobody")
        r = anon.req("players", limit=2)
        check(r["ok"] and names(r) == ["Alice", "bob"] and r["data"]["more"],
              "limit cuts the list, more:true")
        r = anon.req("players", limit=3)
        check(r["ok"] and len(names(r)) == 3 and not r["data"]["more"],
              "limit equal to the count: more false")

        g = start_game(srv, alice, carol, "gomony")
        r = anon.req("players")
        games = {p["name"]: p["games"] for p in r["data"]["players"]}
        check(games == {"Alice": 1, "bob": 0, "carol": 1},
              "live games counted per player: %s" % games)
        alice.req("resign", game_id=g.gid)
        alice.event("game_end")
        carol.event("game_end")
        r = anon.req("players")
        games = {p["name"]: p["games"] for p in r["data"]["players"]}
        check(games["Alice"] == 0 and games["carol"] == 0,
              "a finished game no longer counts: %s" % games)

        # bad input, then the connection still works
        for bad, what in (({"limit": 0}, "limit 0"),
                          ({"limit": 201}, "limit over the max"),
                          ({"limit": "x"}, "limit not a number"),
                          ({"prefix": 3}, "prefix not a string"),
                          ({"nope": 1}, "unknown field")):
            r = anon.req("players", **bad)
            check(err_code(r) == "bad_field", "%s -> bad_field" % what)
        r = anon.req("players", prefix="a")
        check(r["ok"] and names(r) == ["Alice"], "still works after errors")

        # leaving: bob stays while one connection is open
        bob.close()
        for _ in range(50):
            r = anon.req("players")
            if names(r) == ["Alice", "bob", "carol"]:
                break
        check(names(r) == ["Alice", "bob", "carol"],
              "bob listed while his second connection is open")
        bob2.close()
        r2 = carol.req("logout")
        check(r2["ok"], "carol logs out")
        for _ in range(50):
            r = anon.req("players")
            if names(r) == ["Alice"]:
                break
        check(names(r) == ["Alice"], "gone after disconnect and logout: %s"
              % names(r))

        alice.close(); anon.close()
        srv.stop_checked()
    finally:
        srv.cleanup()
    finish()


main()
