"""Abuse: a flood gets rate_limited with retry_after_ms, then is cut off;
a client that never reads is disconnected while server memory stays
bounded; the per-address connection limit."""
import socket
import sys
import time

from agon_harness import Server, check, err_code, finish


def flood(agond):
    srv = Server(agond, ["--rate", "20", "--burst", "30", "--strikes", "40",
                         "--ping-interval-ms", "0"]).start()
    try:
        # A short burst over the limit: typed errors, then it recovers.
        c = srv.client()  # hello took one token
        c.send_raw(b"".join(b'{"type":"ping","id":%d}\n' % i for i in range(40)))
        replies = [c.reply() for _ in range(40)]
        ok = [r for r in replies if r and r["ok"]]
        limited = [r for r in replies if err_code(r) == "rate_limited"]
        check(len(ok) >= 29 and len(limited) >= 5,
              "burst: %d ok then %d rate_limited" % (len(ok), len(limited)))
        check(all(isinstance(r["error"].get("retry_after_ms"), int) and
                  r["error"]["retry_after_ms"] > 0 for r in limited),
              "rate_limited carries retry_after_ms")
        check(all(r["re"] == "ping" and "id" in r for r in limited),
              "rate_limited echoes re and id")
        wait = max(r["error"]["retry_after_ms"] for r in limited)
        time.sleep(wait / 1000.0 + 0.05)
        r = c.req("ping")
        check(r is not None and r["ok"], "after retry_after_ms the connection works")
        c.close()

        # Sustained flood: cut off after the strikes run out.
        f = srv.client()
        f.sock.settimeout(5)
        try:
            f.send_raw(b'{"type":"ping"}\n' * 500)
        except OSError:
            pass
        n_limited, ev = 0, None
        while True:
            m = f.recv()
            if m is None:
                break
            if err_code(m) == "rate_limited":
                n_limited += 1
            if m.get("event") == "disconnect":
                ev = m
        check(n_limited > 0, "flood: rate_limited replies before the cut")
        check(ev is not None and ev["reason"] == "rate_limited",
              "flood: disconnect event reason rate_limited")
        check(f.closed(2), "flood: connection closed")
        # The server is fine for others.
        c2 = srv.client()
        check(c2.req("ping")["ok"], "server serves others after a flood")
    finally:
        srv.stop_checked()
        srv.cleanup()


def never_reads(agond):
    # Rate limits off so only output backpressure can stop the client.
    srv = Server(agond, ["--rate", "0", "--addr-rate", "0",
                         "--stall-timeout-ms", "1000", "--ping-interval-ms", "0",
                         "--write-queue-high", "65536", "--write-queue-low", "16384",
                         "--write-queue-max", "1048576"]).start()
    try:
        base = srv.rss_kib()
        clients = []
        for _ in range(8):
            c = srv.client(rcvbuf=4096)
            c.sock.settimeout(0.5)
            clients.append(c)
        line = b'{"type":"ping","id":"' + b"z" * 60 + b'"}\n'
        chunk = line * 200
        peak = base
        cut = [False] * len(clients)
        blocked = [False] * len(clients)
        end = time.time() + 25
        while time.time() < end and not all(cut):
            for i, c in enumerate(clients):
                if cut[i]:
                    continue
                try:
                    c.sock.send(chunk)
                except socket.timeout:
                    blocked[i] = True   # the server stopped reading us
                except OSError:
                    cut[i] = True       # reset: the server cut us off
            peak = max(peak, srv.rss_kib())
        check(any(blocked), "server stopped reading the non-readers (backpressure)")
        check(all(cut), "every client that never reads was disconnected")
        grow = peak - base
        print("    server VmRSS base %d KiB, peak %d KiB (+%d KiB for %d clients)"
              % (base, peak, grow, len(clients)))
        # 8 x (1 MiB hard cap + 18 KiB read buffer) bounds our part; ASan's
        # redzones and allocator caches roughly triple it.
        bound = 8 * 1100 + 8192
        if srv.sanitized():
            bound *= 3
        check(grow < bound, "server memory stayed bounded (< %d KiB)" % bound)
        c = srv.client()
        check(c.req("ping")["ok"], "server still serves others")
        check("output stalled" in srv.log(), "log says why it cut them")
    finally:
        srv.stop_checked()
        srv.cleanup()


def hard_cap(agond):
    # Replies already owed for buffered requests can overshoot the high mark;
    # the hard cap (write-queue-max) cuts the peer off at once.
    srv = Server(agond, ["--rate", "0", "--addr-rate", "0",
                         "--stall-timeout-ms", "60000", "--ping-interval-ms", "0",
                         "--write-queue-high", "65536", "--write-queue-low", "16384",
                         "--write-queue-max", "131072"]).start()
    try:
        c = srv.client(rcvbuf=4096)
        c.sock.settimeout(0.5)
        hellos = b'{"type":"hello"}\n' * 900   # ~15 KiB in, ~2.5 MiB owed
        cut = False
        end = time.time() + 20
        while time.time() < end and not cut:
            try:
                c.sock.send(hellos)
            except socket.timeout:
                time.sleep(0.05)
            except OSError:
                cut = True
            if "output queue over limit" in srv.log():
                cut = True
        check(cut and "output queue over limit" in srv.log(),
              "output over the hard cap -> disconnected")
        check(srv.client().req("ping")["ok"], "server still serves others")
    finally:
        srv.stop_checked()
        srv.cleanup()


def per_address(agond):
    srv = Server(agond, ["--max-conns-per-addr", "3"]).start()
    try:
        cs = [srv.client() for _ in range(3)]
        x = srv.client(hello=False)
        ev = x.event("disconnect")
        check(ev is not None and ev["reason"] == "too_many_connections",
              "4th connection from one address refused with an event")
        check(x.closed(), "refused connection closed")
        cs[0].close()
        time.sleep(0.2)
        y = srv.client()
        check(y.req("ping")["ok"], "a slot frees when a connection closes")
    finally:
        srv.stop_checked()
        srv.cleanup()


def reconnect_flood(agond):
    srv = Server(agond, ["--addr-rate", "1", "--addr-burst", "4"]).start()
    try:
        a = srv.client()          # connect + hello: 2 tokens
        b = srv.client()          # 2 more: the bucket is empty
        x = srv.client(hello=False)
        ev = x.event("disconnect")
        check(ev is not None and ev["reason"] == "rate_limited" and
              ev.get("retry_after_ms", 0) > 0,
              "reconnect flood: disconnect rate_limited with retry_after_ms")
        check(x.closed(), "reconnect flood: closed")
        time.sleep(ev["retry_after_ms"] / 1000.0 + 0.05)
        r = a.req("ping")
        check(r is not None and r["ok"], "after the wait the address is served")
        b.close()
    finally:
        srv.stop_checked()
        srv.cleanup()


if __name__ == "__main__":
    flood(sys.argv[1])
    never_reads(sys.argv[1])
    hard_cap(sys.argv[1])
    per_address(sys.argv[1])
    reconnect_flood(sys.argv[1])
    finish()
