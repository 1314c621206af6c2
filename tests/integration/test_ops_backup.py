"""Online backup under load, then restore: every registration and every
move acknowledged before the backup was asked for is in the restored
database (acknowledged = committed), and the restored agond recovers the
game in play.

usage: test_ops_backup.py AGOND SOURCE_ROOT"""
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time

from ops_harness import OpsServer, value, parse_prometheus
from agon_harness import check, finish, register, start_game

LOOSE = ["--rate", "0", "--addr-rate", "0", "--max-conns-per-addr", "0",
         "--login-addr-burst", "100000", "--login-account-burst", "1000"]


class Writer(threading.Thread):
    """Registers w<k>_<i> one after the other on its own connection,
    recording each name once its reply (after COMMIT) arrived."""

    def __init__(self, srv, k):
        super().__init__(daemon=True)
        self.c = srv.client()
        self.k = k
        self.acked = []   # (name, monotonic time of the ack)
        self.stop = False
        self.error = None

    def run(self):
        i = 0
        try:
            while not self.stop and i < 5000:
                name = "w%d_%d" % (self.k, i)
                r = self.c.req("register", name=name, password="password %s" % name)
                if not (r and r.get("ok")):
                    self.error = r
                    return
                self.acked.append((name, time.monotonic()))
                self.c.req("logout")  # register logs in; free the connection
                i += 1
        except Exception as e:  # noqa: BLE001
            self.error = repr(e)


class Mover(threading.Thread):
    """Two players playing gomony games back to back with random legal
    moves; records (game_id, seq, move) of every acknowledged move."""

    def __init__(self, srv, rules):
        super().__init__(daemon=True)
        self.a, self.b = register(srv, "mover_a"), register(srv, "mover_b")
        self.rules = rules
        self.acked = []   # (game_id, seq, move, monotonic time of the ack)
        self.game = None
        self.stop = False
        self.error = None

    def run(self):
        rng = random.Random(11)
        try:
            while not self.stop:
                g = start_game(None, self.a, self.b, "gomony", time_control="untimed")
                self.game = g
                while not self.stop and not g.outcome:
                    legal = g.legal(self.rules)
                    if not legal:
                        break
                    r, ev = g.play(rng.choice(legal))
                    if not (r and r.get("ok")):
                        self.error = r
                        return
                    self.acked.append((g.gid, ev["seq"], ev["move"], time.monotonic()))
                if g.outcome:
                    for c in (self.a, self.b):
                        c.event("game_end")
                        c.req("leave", game_id=g.gid)
        except Exception as e:  # noqa: BLE001
            self.error = repr(e)


def wait_log(srv, pattern, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        m = re.search(pattern, srv.log())
        if m:
            return m
        time.sleep(0.05)
    return None


def main():
    agond, root = sys.argv[1], sys.argv[2]
    restore = os.path.join(root, "deploy", "agon-restore")
    srv = OpsServer(agond, proxy=False, extra=LOOSE).start()
    try:
        run(srv, agond, restore)
    finally:
        srv.cleanup()
    finish()


def run(srv, agond, restore):
    rules = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(agond))),
                         "common", "agon-rules")
    mover = Mover(srv, rules)
    mover.start()
    writers = [Writer(srv, k) for k in range(4)]
    for w in writers:
        w.start()
    # Enough rows that the copy takes more than one step of the loop.
    end = time.time() + 20
    while ((sum(len(w.acked) for w in writers) < 300 or len(mover.acked) < 20)
           and time.time() < end):
        time.sleep(0.02)
    t_signal = time.monotonic()
    before = {n for w in writers for (n, t) in list(w.acked) if t < t_signal}
    moves_before = [(g, q, mv) for (g, q, mv, t) in list(mover.acked) if t < t_signal]
    srv.signal(signal.SIGUSR1)
    m = wait_log(srv, r"backup done: (\S+) \((\d+) pages\)")
    # Keep writing a little after the backup, then stop the writers.
    time.sleep(0.2)
    for w in writers + [mover]:
        w.stop = True
    for w in writers + [mover]:
        w.join(20)
    check(mover.error is None, "moves saw no error: %r" % (mover.error,))
    check(len(moves_before) >= 20, "%d moves acknowledged before the backup"
          % len(moves_before))
    check(all(w.error is None for w in writers),
          "writers saw no error: %r" % [w.error for w in writers])
    after = {n for w in writers for (n, t) in w.acked} - before
    check(len(before) >= 300, "%d registrations acknowledged before the backup"
          % len(before))
    check(len(after) > 0, "%d more while and after it ran" % len(after))
    check(m is not None, "agond logged 'backup done'")
    if m is None:
        print(srv.log()[-2000:])
        return
    path = m.group(1)
    if not os.path.isabs(path):
        path = os.path.join(srv.tmpdir, path)
    check(os.path.dirname(path) == os.path.join(srv.tmpdir, "var", "backups"),
          "backup in the default dir (next to the database)")
    check(not os.path.exists(path + "-wal") and not os.path.exists(path + ".tmp"),
          "one self-contained file, no temporary left")
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok",
          "backup passes integrity_check")
    check(db.execute("PRAGMA journal_mode").fetchone()[0] == "delete",
          "backup is in rollback-journal mode (standalone)")
    stored = set(db.execute("SELECT game_id, seq, move FROM moves").fetchall())
    lost = [m for m in moves_before if m not in stored]
    check(not lost, "every move acknowledged before the backup is in it "
          "(%d moves, lost %r)" % (len(moves_before), lost[:3]))
    db.close()
    fams = parse_prometheus(srv.scrape())
    check(value(fams, "agon_backups_total") == 1, "agon_backups_total 1")
    check(value(fams, "agon_backup_failures_total") == 0, "no backup failure")
    check(value(fams, "agon_backup_last_success_timestamp_seconds") > 0,
          "last success timestamp set")
    check(value(fams, "agon_backup_in_progress") == 0, "no backup running")
    for w in writers:
        w.c.close()
    mover.a.close()
    mover.b.close()
    srv.stop_checked("agond (backed up)")

    # Restore over the stopped server's database (kept aside), start a new
    # agond on it, log in as every player acknowledged before the backup.
    env = dict(os.environ, AGON_RESTORE_SKIP_SERVICE_CHECK="1")
    p = subprocess.run([restore, path, srv.db], capture_output=True, env=env,
                       timeout=60)
    check(p.returncode == 0, "agon-restore succeeds: %s" %
          (p.stdout + p.stderr).decode().strip())
    kept = [f for f in os.listdir(os.path.dirname(srv.db))
            if ".before-restore-" in f]
    check(any(not f.endswith(("-wal", "-shm")) for f in kept),
          "previous database kept aside (%r)" % kept)
    check(not os.path.exists(srv.db + "-wal"), "no stale -wal next to the restored DB")
    bad = subprocess.run([restore, os.path.join(srv.tmpdir, "missing.db"), srv.db],
                         capture_output=True, env=env, timeout=60)
    check(bad.returncode != 0, "agon-restore refuses a missing backup")

    new = OpsServer(agond, proxy=False, extra=LOOSE, tmpdir=srv.tmpdir).start()
    try:
        c = new.client()
        missing = []
        for name in sorted(before):
            r = c.req("login", name=name, password="password %s" % name)
            if not (r and r.get("ok")):
                missing.append((name, r))
            else:
                c.req("logout")
        check(not missing, "all %d acknowledged-before-backup players log in "
              "on the restored server (missing %r)" % (len(before), missing[:3]))
        c.close()
        # The game in play at backup time comes back: its player rejoins it
        # and the snapshot is at least as far as the last move acked before.
        if moves_before:
            gid = moves_before[-1][0]
            last = max(q for (g, q, mv) in moves_before if g == gid)
            p = new.client()
            r = p.req("login", name="mover_a", password="password-123")
            check(r and r.get("ok"), "mover_a logs in on the restored server")
            r = p.req("join", game_id=gid)
            check(r and r.get("ok") and r["data"].get("seq", -1) >= last,
                  "restored game %d rejoined at seq >= %d (%r)" % (gid, last,
                  r and r.get("data", r).get("seq") if r else r))
            p.close()
        rows = sqlite3.connect("file:%s?mode=ro" % path, uri=True).execute(
            "SELECT count(*) FROM players").fetchone()[0]
        check(len(before) <= rows <= len(before) + len(after),
              "backup holds %d players: between acked-before and all" % rows)
        new.stop_checked("restored agond")
    finally:
        new.kill()


if __name__ == "__main__":
    main()
