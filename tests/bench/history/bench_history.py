"""History query latency: seed a database with seed_history, start agond on
it, and time each query shape end to end over TCP (request to reply, one
request at a time), printing p50/p99 per shape. Not a test: no thresholds.

  bench_history.py AGOND SEED_HISTORY [GAMES [PLAYERS [QUERIES]]]

1 000 000 games (~6 GB, minutes to seed):
  python3 tests/bench/history/bench_history.py build/server/agond \\
      build/tests/bench/history/seed_history 1000000 10000 200

Measured 2026-11-22 (2 vCPU VM, -O2, 1 000 000 games, 10 000 players,
60 M move rows, 3.6 GB; seeding 163 s), 200 queries each, p50 / p99 ms:
  last 50 of a player 0.94/3.20, player + type 6.31/17.57,
  player + opponent 1.74/11.30, player wins rated 2.77/9.75,
  player + date range 1.54/15.22, last 50 of a type 0.83/6.98,
  last 50 overall 0.54/6.66, deep page (before_id) 0.77/6.94,
  profile 1.51/11.99."""
import os
import random
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "integration"))
from agon_harness import Server  # noqa: E402

AGOND, SEED = sys.argv[1], sys.argv[2]
GAMES = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
PLAYERS = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
QUERIES = int(sys.argv[5]) if len(sys.argv) > 5 else 200
TYPES = ["gambit-of-kings", "gambo-2019", "gambo-2023", "gwezboell", "gomony"]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p / 100))]


def main():
    srv = Server(AGOND, extra=["--rate", "0", "--addr-rate", "0"]).start()  # schema
    srv.stop()
    t = time.time()
    out = subprocess.run([SEED, srv.db, str(GAMES), str(PLAYERS)], check=True,
                         capture_output=True, text=True).stdout.strip()
    print("%s in %.1f s (%.0f MB)" % (out, time.time() - t,
                                     os.path.getsize(srv.db) / 1e6))
    srv.start()
    try:
        c = srv.client()
        rng = random.Random(5)
        pl = lambda: "p%d" % rng.randrange(PLAYERS)
        shapes = {
            "last 50 of a player": lambda: dict(player=pl()),
            "player + type": lambda: dict(player=pl(), game=rng.choice(TYPES)),
            "player + opponent": lambda: dict(player=pl(), opponent=pl()),
            "player wins, rated": lambda: dict(player=pl(), result="win", rated=True),
            "player, 2026-01 range": lambda: dict(player=pl(), from_ms=1766000000000,
                                                  to_ms=1766000000000 + GAMES * 500),
            "last 50 of a type": lambda: dict(game=rng.choice(TYPES)),
            "last 50 overall": lambda: dict(),
            "deep page (before_id)": lambda: dict(before_id=rng.randrange(1, GAMES)),
        }
        for name, args in shapes.items():
            lat = []
            for _ in range(QUERIES):
                t0 = time.perf_counter()
                r = c.req("history", **args())
                lat.append((time.perf_counter() - t0) * 1000)
                assert r and r.get("ok"), r
            print("%-24s p50 %7.2f ms  p99 %7.2f ms" % (name, pct(lat, 50), pct(lat, 99)))
        lat = []
        for _ in range(QUERIES):
            t0 = time.perf_counter()
            r = c.req("profile", name=pl())
            lat.append((time.perf_counter() - t0) * 1000)
            assert r and r.get("ok"), r
        print("%-24s p50 %7.2f ms  p99 %7.2f ms" % ("profile", pct(lat, 50), pct(lat, 99)))
    finally:
        srv.stop()
        shutil.rmtree(srv.tmpdir, ignore_errors=True)


if __name__ == "__main__":
    main()
