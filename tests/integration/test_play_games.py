"""Complete games of all five rulesets between two real clients over TCP,
played to a result by the rules (random legal moves from agon-rules), and
each kind of ending: resignation, agreed draw, flag fall, abort, claim after
disconnect. Usage: test_play_games.py AGOND AGON_RULES"""
import random
import sys
import time

from agon_harness import (Server, check, err_code, finish, register, resume,
                          seed_ok, start_game)

AGOND, RULES = sys.argv[1], sys.argv[2]
GAMES = ["gambit-of-kings", "gambo-2019", "gambo-2023", "gwezboell", "gomony"]
MAX_PLIES = 1500


def play_out(g, rng):
    """Random legal moves until the rules end the game (bounded)."""
    for _ in range(MAX_PLIES):
        if g.outcome:
            return True
        legal = g.legal(RULES)
        if not legal:
            return False
        r, ev = g.play(rng.choice(legal))
        if not (r and r.get("ok")):
            print("move refused:", r)
            return False
    return bool(g.outcome)


def check_end(g, what, result, reason=None):
    e0 = g.clients[0].event("game_end")
    e1 = g.clients[1].event("game_end")
    check(e0 is not None and e0 == e1, "%s: both players get the same game_end" % what)
    if e0 is None:
        return None
    check(e0["result"] == result, "%s: result %r (got %r)" % (what, result, e0["result"]))
    if reason:
        check(e0["reason"] == reason, "%s: reason %r (got %r)" % (what, reason, e0["reason"]))
    commit = g.start["state"].get("seed_commitment")
    check(commit and seed_ok(commit, e0["seed"]),
          "%s: revealed seed matches the commitment" % what)
    return e0


def main():
    srv = Server(AGOND, extra=["--claim-grace-ms", "300", "--rate", "0",
                               "--addr-rate", "0"]).start()
    try:
        a = register(srv, "alice")
        b = register(srv, "bob")
        rng = random.Random(7)

        # ---- every ruleset, to a result by the rules ----
        for i, game in enumerate(GAMES):
            how = ["seek", "challenge", "invite"][i % 3]
            g = start_game(srv, a, b, game, how=how, time_control="60+0")
            check(g.start["state"].get("seed_commitment"),
                  "%s: seed commitment published at start" % game)
            ok = play_out(g, rng)
            check(ok, "%s: played to a result by the rules (%d plies)" % (game, len(g.moves)))
            e = check_end(g, game, g.outcome["result"] if g.outcome else "?",
                          g.outcome["reason"] if g.outcome else None)
            if e:
                check(e["seq"] == g.seq + 1, "%s: game_end follows the last move" % game)
            r = a.req("move", game_id=g.gid, move="x")
            check(err_code(r) == "game_over", "%s: move after the end -> game_over" % game)

        # ---- resignation (in the opponent's turn too) ----
        g = start_game(srv, a, b, "gomony")
        g.play(g.legal(RULES)[0])
        resigner = g.seat_to_move()  # resign while it is the other's turn? no: any time
        r = g.clients[1 - resigner].req("resign", game_id=g.gid)
        check(r and r.get("ok"), "resign accepted")
        e = check_end(g, "resign", "win", "resign")
        if e:
            check(e["winner_seat"] == resigner, "resign: the opponent wins")

        # ---- draw: offer, decline, lapse on the opponent's move, accept ----
        g = start_game(srv, a, b, "gambit-of-kings")
        s = g.seat_to_move()
        me, opp = g.clients[s], g.clients[1 - s]
        r = me.req("draw_offer", game_id=g.gid)
        check(r and r.get("ok"), "draw_offer accepted")
        ev = opp.event("draw_offer")
        check(ev and ev["seat"] == s and ev["seq"] == r["data"]["seq"],
              "opponent gets draw_offer with its seq")
        me.event("draw_offer")
        g.seq = r["data"]["seq"]
        r = me.req("draw_accept", game_id=g.gid)
        check(err_code(r) == "bad_state", "cannot accept one's own offer")
        r = opp.req("draw_decline", game_id=g.gid)
        check(r and r.get("ok"), "draw_decline accepted")
        check(me.event("draw_decline") is not None, "offerer hears the decline")
        opp.event("draw_decline")
        g.seq = r["data"]["seq"]
        # offer again, then the offerer's opponent moves: the offer lapses
        g.play(g.legal(RULES)[0])          # s moves; now opp to move
        r = me.req("draw_offer", game_id=g.gid)
        me.event("draw_offer"); opp.event("draw_offer")
        g.seq = r["data"]["seq"]
        g.play(g.legal(RULES)[0])          # opp moves: lapses
        r = opp.req("draw_accept", game_id=g.gid)
        check(err_code(r) == "bad_state", "a draw offer lapses when the opponent moves")
        r = opp.req("draw_offer", game_id=g.gid)
        me.event("draw_offer"); opp.event("draw_offer")
        r = me.req("draw_accept", game_id=g.gid)
        check(r and r.get("ok"), "draw_accept accepted")
        check_end(g, "agreed draw", "draw", "agreement")

        # ---- abort: allowed until both have moved ----
        g = start_game(srv, a, b, "gwezboell")
        g.play(g.legal(RULES)[0])
        r = g.clients[0].req("abort", game_id=g.gid)
        check(r and r.get("ok"), "abort after one move accepted")
        check_end(g, "abort", None, "aborted")
        g = start_game(srv, a, b, "gwezboell")
        g.play(g.legal(RULES)[0])
        g.play(g.legal(RULES)[0])
        r = g.clients[0].req("abort", game_id=g.gid)
        check(err_code(r) == "bad_state", "abort after both moved -> bad_state")
        g.clients[0].req("resign", game_id=g.gid)
        check_end(g, "resign after refused abort", "win", "resign")

        # ---- flag fall (0.01 minutes = 600 ms) ----
        g = start_game(srv, a, b, "gomony", time_control="0.01+0")
        s = g.seat_to_move()
        e = check_end(g, "flag fall", "win", "timeout")
        if e:
            check(e["winner_seat"] == 1 - s, "flag fall: the side to move loses")
            check(e["clocks"]["ms"][s] == 0, "flag fall: the loser's clock shows 0")

        # ---- correspondence: a fixed time per move, reset after each move ----
        g = start_game(srv, a, b, "gomony", time_control="corr:1")
        day = 24 * 3600 * 1000
        check(g.start["clocks"]["ms"] == [day, day] and g.start["time_control"] == "corr:1",
              "correspondence: one day per move on both clocks")
        s = g.seat_to_move()
        r, ev = g.play(g.legal(RULES)[0])
        check(ev and ev["clocks"]["ms"][s] == day and ev["clocks"]["running"] == 1 - s,
              "correspondence: the mover's time is reset, the opponent's runs")
        g.clients[0].req("abort", game_id=g.gid)
        g.clients[0].event("game_end"); g.clients[1].event("game_end")

        # ---- untimed: no clocks ----
        g = start_game(srv, a, b, "gomony")
        check(g.start["clocks"]["ms"] is None, "untimed: clocks.ms is null")
        g.clients[1].req("abort", game_id=g.gid)
        g.clients[0].event("game_end"); g.clients[1].event("game_end")

        # ---- Gambo chooser: creator chooses, then sides are assigned ----
        g = start_game(srv, a, b, "gambo-2023", options={"chooser": "creator"})
        check(g.chooser == 0 and g.sides == [None, None],
              "gambo: creator is the chooser, no sides yet")
        r, ev = g.play("choose north")
        check(ev and ev["sides"][0] == "north" and ev["side"] == "chooser",
              "gambo: the choice assigns north to the chooser")
        r = g.clients[0].req("resign", game_id=g.gid)
        check_end(g, "gambo resign", "win", "resign")

        g = start_game(srv, a, b, "gambo-2019", options={"chooser": "creator"})
        r = g.clients[0].req("resign", game_id=g.gid)
        e = check_end(g, "gambo resign before the choice", "win", "resign")
        check(e and e["winner_seat"] == 1 and e["winner"] is None,
              "resign before the choice: the other seat wins, no side yet")

        # ---- claim after disconnect (grace 300 ms in this server) ----
        g = start_game(srv, a, b, "gomony")
        b.close()
        ev = a.event("opponent_gone")
        check(ev and ev["game_id"] == g.gid and ev["grace_ms"] == 300,
              "opponent_gone with the grace period")
        ok = False
        for _ in range(100):
            r = a.req("claim", game_id=g.gid, result="win")
            if r and r.get("ok"):
                ok = True
                break
            check(err_code(r) == "bad_state", "claim before the grace -> bad_state")
            time.sleep(0.05)
        check(ok, "claim win after the grace period")
        e = a.event("game_end")
        check(e and e["reason"] == "abandoned" and e["winner_seat"] == 0,
              "claim: game_end abandoned, the claimer wins")
        b = resume(srv, b.token)
        r = b.req("games_mine")
        check(r["ok"] and all(x["game_id"] != g.gid for x in r["data"]["games"]),
              "the claimed game is no longer active")

        a.close(); b.close()
        srv.stop_checked()
    finally:
        srv.cleanup()
    finish()


main()
