"""Lobby: seeks (list, subscription events, cancel, vanish when the creator
leaves, own seek), challenges (accept, decline, cancel, offline target),
invitations (code, wrong code), per-player limits, side preference, and a
rematch with seats and sides swapped. Usage: test_play_lobby.py AGOND RULES"""
import sys

from agon_harness import (Server, check, err_code, finish, register, resume,
                          start_game)

AGOND, RULES = sys.argv[1], sys.argv[2]


def main():
    srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0"]).start()
    try:
        a = register(srv, "alice")
        b = register(srv, "bob")
        w = register(srv, "watcher")
        anon = srv.client()
        r = anon.req("seek_create", game="gomony")
        check(err_code(r) == "unauthenticated", "seek_create needs a login")

        r = w.req("lobby_subscribe", on=True)
        check(r["ok"] and r["data"]["seeks"] == [], "subscribe: empty lobby")

        # bad parameters
        r = a.req("seek_create", game="chess")
        check(err_code(r) == "unknown_game", "unknown game -> unknown_game")
        r = a.req("seek_create", game="gomony", options={"nope": 1})
        check(err_code(r) == "bad_option", "unknown option -> bad_option")
        r = a.req("seek_create", game="gomony", time_control="fast")
        check(err_code(r) == "bad_field", "bad time control -> bad_field")
        r = a.req("seek_create", game="gomony", side="purple")
        check(err_code(r) == "bad_field", "bad side -> bad_field")

        # seeks: create, list, events, cancel
        r = a.req("seek_create", game="gwezboell", time_control="5+3", side="attackers")
        check(r["ok"], "seek_create")
        sid = r["data"]["seek_id"]
        ev = w.event("seek_added")
        check(ev and ev["seek"]["seek_id"] == sid and ev["seek"]["by"] == "alice"
              and ev["seek"]["time_control"] == "5+3" and ev["seek"]["side"] == "attackers",
              "subscriber gets seek_added")
        r = b.req("seeks", game="gwezboell")
        check(r["ok"] and [s["seek_id"] for s in r["data"]["seeks"]] == [sid], "seeks lists it")
        r = b.req("seeks", game="gomony")
        check(r["ok"] and r["data"]["seeks"] == [], "seeks filters by game")
        r = a.req("seek_accept", seek_id=sid)
        check(err_code(r) == "forbidden", "own seek -> forbidden")
        r = b.req("seek_cancel", seek_id=sid)
        check(err_code(r) == "forbidden", "someone else's seek cannot be cancelled")
        r = a.req("seek_cancel", seek_id=sid)
        check(r["ok"], "seek_cancel")
        ev = w.event("seek_removed")
        check(ev and ev["seek_id"] == sid and ev["reason"] == "cancelled", "seek_removed cancelled")
        r = b.req("seek_accept", seek_id=sid)
        check(err_code(r) == "not_found", "cancelled seek -> not_found")

        # side preference honoured; accepted seek removed
        g = start_game(srv, a, b, "gwezboell", side="attackers")
        check(g.sides == ["attackers", "defenders"], "creator gets the side it asked for")
        ev = w.event("seek_removed")
        check(ev and ev["reason"] == "accepted", "seek_removed accepted")
        a.req("resign", game_id=g.gid)
        a.event("game_end"); b.event("game_end")

        # rematch: seats and sides swapped
        r = b.req("rematch_accept", game_id=g.gid)
        check(err_code(r) == "bad_state", "rematch_accept without an offer -> bad_state")
        r = a.req("rematch_offer", game_id=g.gid)
        check(r["ok"], "rematch_offer")
        check(b.event("rematch_offer") is not None, "opponent gets rematch_offer")
        a.event("rematch_offer")
        r = b.req("rematch_accept", game_id=g.gid)
        check(r["ok"] and r["data"]["game_id"] != g.gid, "rematch_accept starts a new game")
        s1 = a.event("game_start"); s2 = b.event("game_start")
        check(s1 and s1["rematch_of"] == g.gid and s1 == s2 or
              (s1 and s2 and s1["game_id"] == s2["game_id"]), "both get game_start of the rematch")
        if s1:
            names = [p["name"] for p in s1["players"]]
            sides = {p["name"]: p["side"] for p in s1["players"]}
            check(names == ["bob", "alice"], "rematch: seats swapped")
            check(sides == {"alice": "defenders", "bob": "attackers"}, "rematch: sides swapped")
            b.req("abort", game_id=s1["game_id"])
            a.event("game_end"); b.event("game_end")

        # seeks vanish when the creator's last connection leaves
        a2 = resume(srv, a.token)
        r = a2.req("seek_create", game="gomony")
        sid = r["data"]["seek_id"]
        w.event("seek_added")
        a2.close()
        r = b.req("seeks")
        # alice still has another connection: the seek stays
        check(any(s["seek_id"] == sid for s in r["data"]["seeks"]),
              "seek stays while the creator has another connection")
        a.close()
        ev = w.event("seek_removed")
        check(ev and ev["seek_id"] == sid and ev["reason"] == "gone",
              "seek vanishes when its creator's last connection leaves")
        a = resume(srv, a.token)

        # limits
        ids = []
        for i in range(9):
            r = a.req("seek_create", game="gomony")
            if r["ok"]:
                ids.append(r["data"]["seek_id"])
        check(len(ids) == 8 and err_code(r) == "too_large", "at most 8 open seeks")
        for sid in ids:
            a.req("seek_cancel", seek_id=sid)
        w.req("lobby_subscribe", on=False)

        # challenges
        r = a.req("challenge", to="nobody", game="gomony")
        check(err_code(r) == "not_found", "challenge to an offline player -> not_found")
        r = a.req("challenge", to="ALICE", game="gomony")
        check(err_code(r) == "forbidden", "challenging oneself -> forbidden")
        r = a.req("challenge", to="bob", game="gomony")
        cid = r["data"]["challenge_id"]
        ev = b.event("challenge")
        check(ev and ev["challenge_id"] == cid and ev["from"] == "alice", "bob gets the challenge")
        r = w.req("challenge_accept", challenge_id=cid)
        check(err_code(r) == "forbidden", "only the target may accept")
        r = b.req("challenge_decline", challenge_id=cid)
        check(r["ok"], "challenge_decline")
        ev = a.event("challenge_removed")
        check(ev and ev["reason"] == "declined", "challenger hears the decline")
        b.event("challenge_removed")
        r = a.req("challenge", to="bob", game="gomony")
        cid = r["data"]["challenge_id"]
        b.event("challenge")
        r = a.req("challenge_cancel", challenge_id=cid)
        check(r["ok"], "challenge_cancel")
        ev = b.event("challenge_removed")
        check(ev and ev["reason"] == "cancelled", "target hears the cancel")
        a.event("challenge_removed")
        r = b.req("challenge_accept", challenge_id=cid)
        check(err_code(r) == "not_found", "cancelled challenge -> not_found")
        g = start_game(srv, a, b, "gambit-of-kings", how="challenge", side="dark")
        check(g.sides[0] == "dark", "challenge: creator's side")
        a.req("abort", game_id=g.gid)
        a.event("game_end"); b.event("game_end")

        # invitations
        r = a.req("invite_create", game="gomony")
        check(r["ok"] and len(r["data"]["code"]) == 10, "invite_create gives a code")
        code = r["data"]["code"]
        r = b.req("invite_join", code="wrongcode1")
        check(err_code(r) == "not_found", "wrong code -> not_found")
        r = b.req("invite_join", code=code)
        check(r["ok"], "invite_join with the code starts the game")
        s1 = a.event("game_start")
        check(s1 and s1["game_id"] == r["data"]["game_id"], "creator gets game_start")
        b.event("game_start")
        r = b.req("invite_join", code=code)
        check(err_code(r) == "not_found", "an invitation is used once")

        a.close(); b.close(); w.close(); anon.close()
        srv.stop_checked()
    finally:
        srv.cleanup()
    finish()


main()
