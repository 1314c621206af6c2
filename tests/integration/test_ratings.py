"""Ratings: a rated game moves both players' Glicko-2 ratings exactly as the
paper's formulas say (computed here independently), in the game_end event and
in the database; casual and aborted games do not; the leaderboard's order and
paging; rating_history. No login is needed to read ratings.
Usage: test_ratings.py AGOND AGON_RULES"""
import math
import sys

from agon_harness import Server, check, err_code, finish, register, start_game

AGOND, RULES = sys.argv[1], sys.argv[2]
GAME = "gwezboell"
TAU = 0.5
SCALE = 400.0 / math.log(10.0)
DEFAULT = (1500.0, 350.0, 0.06)


def glicko2(p, opp, score):
    """Glickman, "Example of the Glicko-2 system": one player, one game.
    p/opp are (rating, rd, volatility); returns the player's new triple."""
    mu, phi, sigma = (p[0] - 1500.0) / SCALE, p[1] / SCALE, p[2]
    mu_j, phi_j = (opp[0] - 1500.0) / SCALE, opp[1] / SCALE
    g = 1.0 / math.sqrt(1.0 + 3.0 * phi_j ** 2 / math.pi ** 2)
    e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
    v = 1.0 / (g * g * e * (1.0 - e))
    delta = v * g * (score - e)
    a = math.log(sigma ** 2)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta ** 2 - phi ** 2 - v - ex) /
                (2.0 * (phi ** 2 + v + ex) ** 2) - (x - a) / TAU ** 2)

    A = a
    if delta ** 2 > phi ** 2 + v:
        B = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        B = a - k * TAU
    fa, fb = f(A), f(B)
    for _ in range(200):
        if abs(B - A) <= 1e-9:
            break
        C = A + (A - B) * fa / (fb - fa)
        fc = f(C)
        if fc * fb <= 0:
            A, fa = B, fb
        else:
            fa /= 2.0
        B, fb = C, fc
    sigma2 = math.exp(A / 2.0)
    phi_star = math.sqrt(phi ** 2 + sigma2 ** 2)
    phi2 = 1.0 / math.sqrt(1.0 / phi_star ** 2 + 1.0 / v)
    mu2 = mu + phi2 ** 2 * g * (score - e)
    return (SCALE * mu2 + 1500.0, max(SCALE * phi2, 30.0), sigma2)


def close(x, y, tol=1e-3):
    return all(abs(a - b) <= tol for a, b in zip(x, y))


def triple(d):
    return (d["rating"], d["rd"], d["volatility"])


expected = {}   # name -> (rating, rd, vol)
history = {}    # name -> [(game_id, triple)]


def rated_result(g, ev, score0, what):
    """Check a rated game_end's ratings against our own computation and
    record the new ratings."""
    names = [c.name for c in g.clients]
    before = [expected.get(n, DEFAULT) for n in names]
    after = [glicko2(before[0], before[1], score0),
             glicko2(before[1], before[0], 1.0 - score0)]
    rt = ev.get("ratings")
    check(rt is not None, what + ": game_end carries ratings")
    if rt is None:
        return
    check(all(close(triple(rt["before"][s]), before[s]) for s in (0, 1)),
          what + ": ratings.before are the stored ratings (defaults at first)")
    check(all(close(triple(rt["after"][s]), after[s]) for s in (0, 1)),
          what + ": ratings.after match the Glicko-2 formulas %r / %r" %
          ([triple(x) for x in rt["after"]], after))
    for s in (0, 1):
        expected[names[s]] = triple(rt["after"][s])
        history.setdefault(names[s], []).append((g.gid, triple(rt["after"][s])))


def end_events(g):
    e0 = g.clients[0].event("game_end")
    e1 = g.clients[1].event("game_end")
    check(e0 == e1, "both players get the same game_end")
    return e0


BOARD_SQL = ("SELECT p.name, r.rating FROM ratings r "
             "JOIN players p ON p.id = r.player_id WHERE r.game_type = ?1 "
             "AND (r.rating, r.player_id) < (?2, ?3) "
             "ORDER BY r.rating DESC, r.player_id DESC LIMIT ?4")
HIST_SQL = ("SELECT rating FROM rating_history WHERE player_id = ?1 "
            "AND game_type = ?2 ORDER BY id DESC LIMIT ?3")


def check_plans(db):
    """The queries of server/gamestore.c (same shape) use their indexes and
    sort nothing: read on the stopped server's database."""
    import sqlite3
    con = sqlite3.connect(db)
    try:
        plan = lambda sql, args: " | ".join(
            row[-1] for row in con.execute("EXPLAIN QUERY PLAN " + sql, args))
        p = plan(BOARD_SQL, (GAME, 1500.0, 3, 20))
        check("COVERING INDEX ratings_board" in p and "TEMP B-TREE" not in p,
              "leaderboard: index range, no sort (%s)" % p)
        p = plan(HIST_SQL, (1, GAME, 200))
        check("rating_history_player" in p and "TEMP B-TREE" not in p,
              "rating_history: index, no sort (%s)" % p)
    finally:
        con.close()


def main():
    srv = Server(AGOND).start()
    try:
        alice, bob, carol, dave = (register(srv, n) for n in
                                   ("alice", "bob", "carol", "dave"))
        anon = srv.client()

        r = anon.req("leaderboard", game=GAME)
        check(r["ok"] and r["data"]["players"] == [] and r["data"]["next"] is None,
              "empty leaderboard, no login needed")

        # 1. Rated, bob resigns: alice (seat 0) wins.
        g = start_game(srv, alice, bob, GAME, rated=True)
        r = bob.req("resign", game_id=g.gid)
        check(r and r["ok"], "rated game 1: resign")
        rated_result(g, end_events(g), 1.0, "alice beats bob")
        check(expected["alice"][0] > 1500 > expected["bob"][0],
              "winner up, loser down")

        # Rejoin replays the stored game_end with the same ratings.
        r = alice.req("join", game_id=g.gid, since_seq=0)
        evs = [e for e in (r["data"].get("events") or [])
               if e.get("event") == "game_end"] if r and r["ok"] else []
        check(len(evs) == 1 and evs[0].get("ratings", {}).get("after") and
              close(triple(evs[0]["ratings"]["after"][0]), expected["alice"]),
              "a join replays game_end with the stored ratings")

        # 2. Casual: no ratings.
        g = start_game(srv, alice, carol, GAME, rated=False)
        carol.req("resign", game_id=g.gid)
        ev = end_events(g)
        check("ratings" not in ev, "casual game: no ratings in game_end")

        # 3. Rated but aborted: no ratings.
        g = start_game(srv, carol, alice, GAME, rated=True)
        r = carol.req("abort", game_id=g.gid)
        check(r and r["ok"], "rated game aborted")
        ev = end_events(g)
        check("ratings" not in ev, "aborted game: no ratings in game_end")

        r = anon.req("leaderboard", game=GAME)
        names = [p["name"] for p in r["data"]["players"]]
        check(sorted(names) == ["alice", "bob"],
              "only the rated result's players are rated: %r" % names)

        # 4. Rated draw by agreement between two new players (1500 each).
        g = start_game(srv, carol, dave, GAME, rated=True)
        r = carol.req("draw_offer", game_id=g.gid)
        check(r and r["ok"], "draw offered")
        dave.event("draw_offer")
        carol.event("draw_offer")
        r = dave.req("draw_accept", game_id=g.gid)
        check(r and r["ok"], "draw accepted")
        rated_result(g, end_events(g), 0.5, "carol draws dave")
        check(expected["carol"] == expected["dave"] and
              expected["carol"][0] == 1500.0,
              "an even draw keeps 1500 for both")

        # 5. Rated rematch-like game: bob (seat 0) beats alice, from the
        # stored ratings (not the defaults).
        g = start_game(srv, bob, alice, GAME, rated=True)
        check([p.get("rating") for p in g.start["players"]] ==
              [expected["bob"][0], expected["alice"][0]],
              "game_start shows the players' current ratings")
        r = anon.req("games_live", game=GAME)
        live = [x for x in r["data"]["games"] if x["game_id"] == g.gid] \
            if r and r["ok"] else []
        check(len(live) == 1 and [p.get("rating") for p in live[0]["players"]]
              == [expected["bob"][0], expected["alice"][0]],
              "games_live shows them too")
        alice.req("resign", game_id=g.gid)
        rated_result(g, end_events(g), 1.0, "bob beats alice")

        # Leaderboard: rating desc, ties by later registration first.
        order = ["alice", "bob", "carol", "dave"]
        want = sorted(expected.items(),
                      key=lambda kv: (-kv[1][0], -order.index(kv[0])))
        r = anon.req("leaderboard", game=GAME, limit=100)
        board = r["data"]["players"]
        check([p["name"] for p in board] == [n for n, _ in want],
              "leaderboard by rating: %r" % [p["name"] for p in board])
        check(all(close(triple(p), expected[p["name"]]) for p in board),
              "leaderboard values are the stored ratings")
        games = {p["name"]: p["games"] for p in board}
        check(games == {"alice": 2, "bob": 2, "carol": 1, "dave": 1},
              "games counted per player: %r" % games)
        check(r["data"]["next"] is None, "a short page has no next cursor")

        # Paging by 1 (carol and dave tie at 1500: the cursor's id splits
        # them) gives the same order without repeats.
        paged, cursor = [], {}
        for _ in range(10):
            r = anon.req("leaderboard", game=GAME, limit=1, **cursor)
            check(r and r["ok"], "leaderboard page")
            paged += [p["name"] for p in r["data"]["players"]]
            if not r["data"]["players"]:
                break
            cursor = r["data"]["next"] or {}
            if not cursor:
                break
        check(paged == [p["name"] for p in board],
              "paging by one gives the same order: %r" % paged)
        r = anon.req("leaderboard", game=GAME,
                     before_rating=expected["carol"][0])
        below = [p["name"] for p in r["data"]["players"]]
        check(below == [n for n, t in want if t[0] < expected["carol"][0]],
              "before_rating alone: strictly lower ratings: %r" % below)

        # Other games have their own (empty) boards.
        r = anon.req("leaderboard", game="gomony")
        check(r["ok"] and r["data"]["players"] == [], "per game type")
        check(err_code(anon.req("leaderboard", game="nope")) == "unknown_game",
              "leaderboard: unknown game")
        check(err_code(anon.req("leaderboard", game=GAME, limit=0)) == "bad_field",
              "leaderboard: bad limit")

        # Rating history, oldest first, one row per rated game.
        for name in ("alice", "bob", "carol", "dave"):
            r = anon.req("rating_history", name=name.upper(), game=GAME)
            h = r["data"]["history"] if r and r["ok"] else []
            want_h = history[name]
            check(r and r["ok"] and r["data"]["name"] == name and
                  [x["game_id"] for x in h] == [gid for gid, _ in want_h] and
                  all(close(triple(x), t) for x, (_, t) in zip(h, want_h)),
                  "rating_history of %s: %d rows" % (name, len(h)))
        r = anon.req("rating_history", name="alice", game="gomony")
        check(r["ok"] and r["data"]["history"] == [], "history per game type")
        check(err_code(anon.req("rating_history", name="nobody", game=GAME))
              == "not_found", "rating_history: unknown player")

        # Ratings survive a restart (they are in the database), and a
        # recovered game shows its players' ratings again.
        g = start_game(srv, carol, alice, GAME, rated=True)
        srv.stop()
        check_plans(srv.db)
        srv.start()
        anon = srv.client()
        r = anon.req("games_live", game=GAME)
        live = [x for x in r["data"]["games"] if x["game_id"] == g.gid] \
            if r and r["ok"] else []
        check(len(live) == 1 and [p.get("rating") for p in live[0]["players"]]
              == [expected["carol"][0], expected["alice"][0]],
              "a recovered game shows the ratings")
        r = anon.req("leaderboard", game=GAME, limit=100)
        check(r["ok"] and [triple(p) for p in r["data"]["players"]] ==
              [triple(p) for p in board], "leaderboard after a restart")
    finally:
        srv.stop_checked()
        srv.cleanup()
    finish()


main()
