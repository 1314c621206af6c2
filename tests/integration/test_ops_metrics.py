"""Metrics and health endpoint: the page parses strictly as Prometheus
text format (and with promtool when installed), counters move with
activity, /healthz turns 503 while draining on SIGTERM.

usage: test_ops_metrics.py AGOND"""
import shutil
import signal
import subprocess
import sys
import time

from ops_harness import OpsServer, parse_prometheus, value, http_get, PromError
from agon_harness import check, finish, err_code, register, start_game


def page(srv):
    text = srv.scrape()
    try:
        return text, parse_prometheus(text)
    except PromError as e:
        check(False, "metrics page parses strictly: %s" % e)
        raise


def promtool(text, what):
    tool = shutil.which("promtool")
    if tool is None:
        print("note: promtool not installed (Debian: prometheus); "
              "strict parser only")
        return
    p = subprocess.run([tool, "check", "metrics"], input=text.encode(),
                       capture_output=True, timeout=30)
    check(p.returncode == 0, "promtool check metrics accepts the page (%s): %s"
          % (what, (p.stdout + p.stderr).decode().strip()))


def main():
    agond = sys.argv[1]
    srv = OpsServer(agond, extra=["--rate", "5", "--burst", "5",
                                  "--strikes", "0"]).start()
    try:
        run(srv)
    finally:
        srv.cleanup()
    drain(agond)
    finish()


def run(srv):
    # --- the endpoint itself
    st, hdr, body = srv.get("/healthz")
    check(st == 200 and body == "ok\n", "GET /healthz: 200 ok (%r %r)" % (st, body))
    st, hdr, body = srv.get("/metrics")
    check(st == 200 and hdr.get("content-type", "").startswith(
        "text/plain; version=0.0.4"), "GET /metrics: 200, text format 0.0.4")
    st, hdr, body = srv.get("/metrics", method="HEAD")
    check(st == 200 and body == "", "HEAD /metrics: headers only")
    check(srv.get("/nope")[0] == 404, "unknown path: 404")
    check(srv.get("/metrics", method="POST")[0] == 405, "POST: 405")
    check(http_get(srv.metrics_port, None, raw=b"garbage\r\n\r\n")[0] == 400,
          "malformed request line: 400")
    check(http_get(srv.metrics_port, None,
                   raw=b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 5000)[0] == 431,
          "oversized request: 431")

    text0, m0 = page(srv)
    check(True, "first page parses strictly (%d families)" % len(m0))
    promtool(text0, "idle")
    for fam, typ in [("agon_connections", "gauge"),
                     ("agon_players_authenticated", "gauge"),
                     ("agon_live_games", "gauge"),
                     ("agon_spectators", "gauge"),
                     ("agon_moves_total", "counter"),
                     ("agon_move_ack_seconds", "histogram"),
                     ("agon_storage_queue_depth", "gauge"),
                     ("agon_storage_commit_duration_seconds", "summary"),
                     ("agon_errors_total", "counter"),
                     ("agon_rate_limit_hits_total", "counter"),
                     ("agon_connections_accepted_total", "counter"),
                     ("agon_backup_last_success_timestamp_seconds", "gauge")]:
        check(fam in m0 and m0[fam]["type"] == typ and m0[fam]["help"],
              "family %s is a %s with help" % (fam, typ))

    # --- activity: 3 connections, 2 registered players, a bad line, a flood
    clients = [srv.client() for _ in range(3)]
    for i, c in enumerate(clients[:2]):
        r = c.req("register", name="metric_%d" % i, password="correct horse %d" % i)
        check(r and r.get("ok"), "register metric_%d" % i)
    clients[2].send_raw(b"this is not json\n")
    r = clients[2].reply()
    check(err_code(r) == "bad_json", "bad line gets bad_json")
    flood = srv.client()
    limited = 0
    for _ in range(20):
        flood.send({"type": "ping", "id": 1})
    for _ in range(20):
        r = flood.reply()
        if err_code(r) == "rate_limited":
            limited += 1
    check(limited > 0, "flood is rate limited (%d)" % limited)

    text1, m1 = page(srv)
    promtool(text1, "busy")

    def delta(name, **labels):
        return value(m1, name, **labels) - value(m0, name, **labels)

    check(value(m1, "agon_connections") == 4, "agon_connections == 4 (%r)" %
          value(m1, "agon_connections"))
    check(value(m1, "agon_players_authenticated") == 2,
          "agon_players_authenticated == 2")
    check(delta("agon_connections_accepted_total") == 4,
          "connections accepted moved by 4")
    check(delta("agon_errors_total", code="bad_json") == 1,
          "errors{code=bad_json} moved by 1")
    check(delta("agon_errors_total", code="rate_limited") == limited,
          "errors{code=rate_limited} moved by %d" % limited)
    check(delta("agon_rate_limit_hits_total", scope="request") == limited,
          "rate_limit_hits{scope=request} moved by %d" % limited)
    check(delta("agon_storage_commits_total") >= 1, "storage commits moved")
    check(delta("agon_storage_write_jobs_total") >= 2, "storage write jobs moved")
    check(value(m1, "agon_storage_commit_duration_seconds_count") ==
          value(m1, "agon_storage_commits_total"),
          "commit duration count == commits")
    check(delta("agon_http_requests_total") >= 1, "http requests counted")
    # Live-play series exist (0 until rooms call the hooks in metrics.h).
    check(value(m1, "agon_move_ack_seconds_count") == value(m1, "agon_moves_total"),
          "move ack histogram count == moves")

    # --- a game: live games and moves move while it is played
    pa, pb = register(srv, "metric_a"), register(srv, "metric_b")
    g = start_game(srv, pa, pb, "gomony", time_control="untimed")
    for mv in ("c3-d4", "h6-g5"):
        r, _ = g.play(mv)
        check(r and r.get("ok"), "metrics game: %s acknowledged" % mv)
    text2, m2 = page(srv)
    promtool(text2, "during a game")

    def delta2(name, **labels):
        return value(m2, name, **labels) - value(m1, name, **labels)

    check(value(m2, "agon_live_games") == 1, "agon_live_games == 1 during the game")
    check(delta2("agon_games_started_total") == 1, "games started moved by 1")
    check(delta2("agon_moves_total") == 2, "agon_moves_total moved by 2")
    check(delta2("agon_move_ack_seconds_count") == 2, "ack latency histogram counted 2 moves")
    r = pa.req("resign", game_id=g.gid)
    check(r and r.get("ok"), "metrics game: resign")
    _, m3 = page(srv)
    check(value(m3, "agon_live_games") == 0, "agon_live_games back to 0 after the game")

    for c in clients + [flood, pa, pb]:
        c.close()
    srv.stop_checked()


def drain(agond):
    """SIGTERM while logins (argon2id at its real cost, on the thread pool)
    are in flight: agond tells clients, /healthz says 503 until everything
    is closed, then agond exits 0."""
    srv = OpsServer(agond, fast=False).start()
    try:
        c = srv.client()
        r = c.req("register", name="drainer", password="correct horse d")
        check(r and r.get("ok"), "register (real argon2id cost)")
        _, m = page(srv)
        check(value(m, "agon_draining") == 0, "not draining before SIGTERM")
        logins = []
        for i in range(8):
            lc = srv.client()
            lc.send({"type": "login", "id": 99, "name": "drainer",
                     "password": "correct horse d"})
            logins.append(lc)
        time.sleep(0.05)
        srv.signal(signal.SIGTERM)
        ev = c.event("shutdown")
        check(ev is not None and ev.get("reason") == "SIGTERM",
              "client told the server is restarting: %r" % ev)
        seen = []
        end = time.time() + 10
        while time.time() < end:
            try:
                st, _, body = srv.get("/healthz")
            except OSError:
                break  # listener closed: the drain is over
            seen.append((st, body))
            if st == 503:
                break
        check(("503", "draining\n") in [(str(a), b) for a, b in seen],
              "/healthz answers 503 draining during the drain (%r)" % seen[-3:])
        for x in logins + [c]:
            x.close()
        rc = srv.wait()
        check(rc == 0, "agond exits 0 after draining (%r)" % rc)
        log = srv.log()
        check("AddressSanitizer" not in log and "runtime error:" not in log,
              "no sanitizer report")
    finally:
        srv.cleanup()

if __name__ == "__main__":
    main()
