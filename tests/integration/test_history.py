"""Stored-game queries (docs/protocol.md "History"): `history` filters and
keyset paging (no game skipped or repeated while new games finish), and
`profile` totals. Games of all five rulesets are played over TCP with random
legal moves from agon-rules. Usage: test_history.py AGOND AGON_RULES"""
import json
import random
import subprocess
import sys

from agon_harness import (Server, check, err_code, finish, register,
                          start_game)

AGOND, RULES = sys.argv[1], sys.argv[2]
GAMES = ["gambit-of-kings", "gambo-2019", "gambo-2023", "gwezboell", "gomony"]


def short_game(srv, a, b, game, rng, ending):
    """a (seat 0) vs b: two random legal moves, then `ending`: "a_resigns",
    "b_resigns" or "draw". Returns (game_id, game_end event)."""
    g = start_game(srv, a, b, game)
    for _ in range(2):
        if g.outcome:
            break
        r, _ = g.play(rng.choice(g.legal(RULES)))
        assert r and r.get("ok"), r
    if not g.outcome:
        if ending == "draw":
            r = a.req("draw_offer", game_id=g.gid)
            assert r and r.get("ok"), r
            a.event("draw_offer"); b.event("draw_offer")
            r = b.req("draw_accept", game_id=g.gid)
        else:
            who = a if ending == "a_resigns" else b
            r = who.req("resign", game_id=g.gid)
        assert r and r.get("ok"), r
    e = a.event("game_end")
    b.event("game_end")
    return g.gid, e


def page_all(c, **flt):
    """Every game matching flt, following next_before_id (bounded)."""
    ids, before = [], None
    for _ in range(100):
        args = dict(flt)
        if before is not None:
            args["before_id"] = before
        r = c.req("history", **args)
        assert r and r.get("ok"), r
        ids += [x["game_id"] for x in r["data"]["games"]]
        before = r["data"]["next_before_id"]
        if before is None:
            return ids
    raise AssertionError("paging did not end")


def main():
    srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0"]).start()
    try:
        a = register(srv, "alice")
        b = register(srv, "bob")
        c = register(srv, "carol")
        rng = random.Random(11)
        endings = ["a_resigns", "b_resigns", "draw"]
        played = []  # (gid, game, ending, players)
        for i, game in enumerate(GAMES):
            e = endings[i % 3]
            gid, ev = short_game(srv, a, b, game, rng, e)
            played.append((gid, game, e, ("alice", "bob")))
        gid, ev = short_game(srv, c, a, "gomony", rng, "a_resigns")
        played.append((gid, "gomony", "c_resigns", ("carol", "alice")))

        anon = srv.client()  # no login needed
        r = anon.req("history", player="alice")
        check(r and r.get("ok"), "history without login")
        got = r["data"]["games"]
        ids = [x["game_id"] for x in got]
        check(ids == sorted([p[0] for p in played], reverse=True),
              "alice's games, newest first (%r)" % ids)
        check(r["data"]["next_before_id"] is None, "one page: no cursor")
        first = got[-1]
        check(first["game"] == GAMES[0] and first["status"] == "finished"
              and first["reason"] == "resign" and first["outcome"] == "loss",
              "first game: alice resigned (%r)" % first)
        check([p["name"] for p in first["players"]] == ["alice", "bob"],
              "players by seat")

        # ---- filters ----
        def hist_ids(**flt):
            r = anon.req("history", **flt)
            assert r and r.get("ok"), (flt, r)
            return [x["game_id"] for x in r["data"]["games"]]
        want = lambda pred: sorted([p[0] for p in played if pred(p)], reverse=True)
        check(hist_ids(player="alice", opponent="carol") == want(lambda p: "carol" in p[3]),
              "opponent filter")
        check(hist_ids(player="ALICE", game="gomony") == want(lambda p: p[1] == "gomony"),
              "game filter, name case-insensitive")
        check(hist_ids(player="alice", result="draw") == want(lambda p: p[2] == "draw"),
              "result draw")
        check(hist_ids(player="alice", result="win") ==
              want(lambda p: p[2] in ("b_resigns", "c_resigns")), "result win")
        check(hist_ids(player="alice", result="loss") ==
              want(lambda p: p[2] == "a_resigns"), "result loss")
        check(hist_ids(player="bob", rated=True) == [], "rated filter: none rated")
        check(len(hist_ids(player="bob", rated=False)) == 5, "casual filter")
        check(hist_ids(player="carol", status="ongoing") == [], "no ongoing game")
        check(hist_ids(player="alice", from_ms=2**50) == [], "date range")
        check(len(hist_ids()) == len(played), "no player: every finished game")
        check(hist_ids(game="gwezboell") == want(lambda p: p[1] == "gwezboell"),
              "type without player")
        r = anon.req("history", player="nobody")
        check(err_code(r) == "not_found", "unknown player -> not_found")
        r = anon.req("history", result="win")
        check(err_code(r) == "bad_field", "win/loss needs a player")
        r = anon.req("history", limit=1000)
        check(err_code(r) == "bad_field", "limit above the maximum refused")

        # ongoing
        g = start_game(srv, b, c, "gomony")
        check(hist_ids(player="carol", status="ongoing") == [g.gid], "ongoing game listed")
        check(g.gid in hist_ids(player="bob", status="all"), "status all")
        r = b.req("abort", game_id=g.gid)
        check(r and r.get("ok"), "abort")
        b.event("game_end"); c.event("game_end")

        # ---- paging while new games finish ----
        before = set(hist_ids(player="alice"))
        r = anon.req("history", player="alice", limit=2)
        seen = [x["game_id"] for x in r["data"]["games"]]
        cur = r["data"]["next_before_id"]
        check(cur == seen[-1], "cursor is the last id of the page")
        new = []
        for i in range(40):
            if cur is None:
                break
            gid, _ = short_game(srv, a, b, GAMES[i % 5], rng, "draw")
            new.append(gid)
            r = anon.req("history", player="alice", limit=2, before_id=cur)
            check(r and r.get("ok"), "page")
            seen += [x["game_id"] for x in r["data"]["games"]]
            cur = r["data"]["next_before_id"]
        check(len(seen) == len(set(seen)), "no game repeated (%r)" % seen)
        check(set(seen) == before, "no game skipped, none of the new ones (%r)" % seen)
        check(seen == sorted(seen, reverse=True), "pages strictly newest first")
        check(new and max(new) > max(before), "new games got larger ids")
        allp = page_all(anon, player="alice", limit=3)
        check(set(allp) == before | set(new) and len(allp) == len(set(allp)),
              "full paging after the fact")

        # ---- game_record and export -> agon-rules replay ----
        for gid, game, ending, names in played:
            r = anon.req("game_record", game_id=gid)
            check(r and r.get("ok"), "game_record %d" % gid)
            d = r["data"]["game"]
            check(d["game"] == game and d["status"] == "finished"
                  and [p["name"] for p in d["players"]] == list(names)
                  and d["seed"] is not None and len(d["moves"]) >= 1
                  and all(m["clocks_ms"] is None for m in d["moves"]),
                  "%s: record has players, seed, moves (%r)" % (game, d))
            row = [x for x in anon.req("history", player="alice")["data"]["games"]
                   if x["game_id"] == gid]
            check(len(row) == 1 and row[0]["moves"] == len(d["moves"]),
                  "%s: the history row counts the record's moves (%r)" % (game, row))
            for fmt in ("text", "json"):
                r = anon.req("export", game_id=gid, format=fmt)
                check(r and r.get("ok"), "%s: export %s" % (game, fmt))
                rec = r["data"]["record"]
                data = rec if fmt == "text" else json.dumps(rec) + "\n"
                p = subprocess.run([RULES, "replay", "-"], input=data,
                                   capture_output=True, text=True, timeout=60)
                check(p.returncode == 0, "%s: %s export replays (%s%s)\n%s"
                      % (game, fmt, p.stdout, p.stderr, data))
            if ending == "draw":
                check('[Result "draw"]' in anon.req("export", game_id=gid)["data"]["record"],
                      "%s: drawn record says draw" % game)
        g = start_game(srv, b, c, "gwezboell", time_control="60+1")
        r, _ = g.play(rng.choice(g.legal(RULES)))
        r = anon.req("game_record", game_id=g.gid)
        check(r and r.get("ok") and r["data"]["game"]["seed"] is None
              and r["data"]["game"]["status"] == "active"
              and r["data"]["game"]["moves"][0]["clocks_ms"] is not None,
              "running game: no seed, clocks stored (%r)" % r)
        r = anon.req("export", game_id=g.gid)
        check(err_code(r) == "bad_state", "no export of a running game")
        r = b.req("abort", game_id=g.gid)
        b.event("game_end"); c.event("game_end")
        r = anon.req("game_record", game_id=10**9)
        check(err_code(r) == "not_found", "game_record of no game")
        r = anon.req("export", game_id=played[0][0], format="pgn")
        check(err_code(r) == "bad_field", "unknown export format")

        # ---- profile ----
        r = anon.req("profile", name="alice")
        check(r and r.get("ok"), "profile")
        d = r["data"]
        n = len(played) + len(new)
        draws = sum(1 for p in played if p[2] == "draw") + len(new)
        check(d["name"] == "alice" and d["played"] == n, "profile played (%r)" % d)
        wins = sum(1 for p in played if p[2] in ("b_resigns", "c_resigns"))
        losses = sum(1 for p in played if p[2] == "a_resigns")
        check(d["draws"] == draws and d["wins"] == wins and d["losses"] == losses,
              "profile wins/losses/draws (%r)" % d)
        check(sum(v["played"] for v in d["by_game"].values()) == n, "by_game sums")
        check(d["by_game"]["gomony"]["wins"] ==
              sum(1 for p in played if p[1] == "gomony" and p[2] != "a_resigns"),
              "per type wins")
        r = anon.req("profile", name="zed")
        check(err_code(r) == "not_found", "profile of unknown player")
        srv.stop_checked()
    finally:
        srv.cleanup()
    finish()


if __name__ == "__main__":
    main()
