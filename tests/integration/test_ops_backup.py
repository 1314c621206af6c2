"""Online backup under load, then restore: every registration acknowledged
before the backup was asked for is in the restored database (moves will be
checked the same way once live play lands: acknowledged = committed).

usage: test_ops_backup.py AGOND SOURCE_ROOT"""
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time

from ops_harness import OpsServer, value, parse_prometheus
from agon_harness import check, finish

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
    writers = [Writer(srv, k) for k in range(4)]
    for w in writers:
        w.start()
    # Enough rows that the copy takes more than one step of the loop.
    end = time.time() + 20
    while sum(len(w.acked) for w in writers) < 300 and time.time() < end:
        time.sleep(0.02)
    t_signal = time.monotonic()
    before = {n for w in writers for (n, t) in list(w.acked) if t < t_signal}
    srv.signal(signal.SIGUSR1)
    m = wait_log(srv, r"backup done: (\S+) \((\d+) pages\)")
    # Keep writing a little after the backup, then stop the writers.
    time.sleep(0.2)
    for w in writers:
        w.stop = True
    for w in writers:
        w.join(10)
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
    db.close()
    fams = parse_prometheus(srv.scrape())
    check(value(fams, "agon_backups_total") == 1, "agon_backups_total 1")
    check(value(fams, "agon_backup_failures_total") == 0, "no backup failure")
    check(value(fams, "agon_backup_last_success_timestamp_seconds") > 0,
          "last success timestamp set")
    check(value(fams, "agon_backup_in_progress") == 0, "no backup running")
    for w in writers:
        w.c.close()
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
        rows = sqlite3.connect("file:%s?mode=ro" % path, uri=True).execute(
            "SELECT count(*) FROM players").fetchone()[0]
        check(len(before) <= rows <= len(before) + len(after),
              "backup holds %d players: between acked-before and all" % rows)
        new.stop_checked("restored agond")
    finally:
        new.kill()


if __name__ == "__main__":
    main()
