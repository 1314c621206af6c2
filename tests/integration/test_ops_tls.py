"""TLS through a real HAProxy (deploy/haproxy.cfg) in front of agond's
PROXY listener, on loopback with a self-signed certificate:
 - a TLS client (Python ssl: verifies the chain and the host name, with a
   private CA file) says hello, registers, logs in, and agond reports the
   client's real address (the client binds 127.0.0.2; HAProxy reaches agond
   from 127.0.0.1);
 - a client that does not trust the certificate, or expects another host
   name, refuses the connection;
 - the PROXY listener trusts only a header, the plain one never does.
 - the agon client with --tls --ca CERT (and --source 127.0.0.2) registers,
   plays a short game through HAProxy with another agon client, and agond
   sees its real address; agon --tls without --ca (system CAs only)
   refuses the self-signed certificate with a clear error and exit 1.

usage: test_ops_tls.py AGOND SOURCE_ROOT [AGON]"""
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

from ops_harness import OpsServer, free_port, value, parse_prometheus, SKIP
from agon_harness import check, finish, err_code, TIMEOUT

REAL_ADDR = "127.0.0.2"  # the "remote player": any 127/8 address is local


def need(tool, package):
    path = shutil.which(tool)
    if path is None:
        print("SKIP: %s not found (Debian package: %s)" % (tool, package))
        sys.exit(SKIP)
    return path


class TLSClient:
    def __init__(self, port, ctx, hostname="localhost", source=REAL_ADDR):
        raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        raw.settimeout(TIMEOUT)
        raw.bind((source, 0))
        self.local_port = raw.getsockname()[1]
        raw.connect(("127.0.0.1", port))
        try:
            self.sock = ctx.wrap_socket(raw, server_hostname=hostname)
        except Exception:
            raw.close()
            raise
        self.buf = b""
        self.next_id = 1

    def req(self, type_, **fields):
        rid = self.next_id
        self.next_id += 1
        msg = {"type": type_, "id": rid}
        msg.update(fields)
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            while b"\n" not in self.buf:
                d = self.sock.recv(65536)
                if not d:
                    return None
                self.buf += d
            line, self.buf = self.buf.split(b"\n", 1)
            m = json.loads(line)
            if "re" in m:
                return m

    def close(self):
        self.sock.close()


def make_cert(d, openssl):
    key, cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
    p = subprocess.run([openssl, "req", "-x509", "-newkey", "ec",
                        "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-days", "2", "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                        "-keyout", key, "-out", cert],
                       capture_output=True, timeout=60)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.decode())
    pem = os.path.join(d, "agon.pem")
    with open(pem, "w") as f:
        f.write(open(cert).read() + open(key).read())
    os.chmod(pem, 0o600)
    return cert, pem


def haproxy_config(root, d, pem, front, srv):
    """deploy/haproxy.cfg with the test's addresses: loopback frontend on a
    free port, the test's certificate, agond's ephemeral ports; logging to
    stderr instead of /dev/log, a smaller maxconn. Everything else as
    shipped."""
    with open(os.path.join(root, "deploy", "haproxy.cfg")) as f:
        text = f.read()
    subs = [("    log /dev/log local0\n", "    log stderr format raw local0\n"),
            # 20000 connections need ~40000 descriptors: more than a test
            # machine may allow.
            ("    maxconn 20000\n", "    maxconn 1000\n"),
            ("bind :7443 ssl crt /etc/haproxy/certs/agon.pem",
             "bind 127.0.0.1:%d ssl crt %s" % (front, pem)),
            ("server agond 127.0.0.1:7879 ", "server agond 127.0.0.1:%d " % srv.proxy_port),
            (" check port 9464 ", " check port %d " % srv.metrics_port)]
    for old, new in subs:
        check(old in text, "deploy/haproxy.cfg has %r" % old.strip())
        text = text.replace(old, new)
    path = os.path.join(d, "haproxy.cfg")
    with open(path, "w") as f:
        f.write(text)
    return path


def main():
    agond, root = sys.argv[1], sys.argv[2]
    haproxy = need("haproxy", "haproxy")
    openssl = need("openssl", "openssl")
    d = tempfile.mkdtemp(prefix="agon-tls-")
    srv = OpsServer(agond, extra=["--login-addr-burst", "1000"]).start()
    hp = None
    try:
        cert, pem = make_cert(d, openssl)
        front = free_port()
        cfg = haproxy_config(root, d, pem, front, srv)
        p = subprocess.run([haproxy, "-c", "-f", cfg], capture_output=True, timeout=60)
        check(p.returncode == 0, "haproxy -c accepts the config: %s" %
              (p.stdout + p.stderr).decode().strip()[-400:])
        hplog = open(os.path.join(d, "haproxy.log"), "wb")
        hp = subprocess.Popen([haproxy, "-db", "-f", cfg], stdout=hplog,
                              stderr=subprocess.STDOUT)
        run(srv, front, cert, d)
    finally:
        if hp is not None:
            hp.terminate()
            try:
                hp.wait(10)
            except subprocess.TimeoutExpired:
                hp.kill()
                hp.wait()
        if FAILED_LOG():
            print("---- haproxy log\n" + open(os.path.join(d, "haproxy.log"),
                                            errors="replace").read()[-3000:])
            print("---- agond log\n" + srv.log()[-3000:])
        srv.cleanup()
        shutil.rmtree(d, ignore_errors=True)
    finish()


def FAILED_LOG():
    from agon_harness import FAILED
    return bool(FAILED)


def trusted_ctx(cert):
    ctx = ssl.create_default_context(cafile=cert)  # verifies chain + host name
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    return ctx


def run(srv, front, cert, d):
    ctx = trusted_ctx(cert)
    # HAProxy needs a moment to listen and to see agond healthy.
    c, last = None, None
    end = time.time() + 15
    while time.time() < end:
        try:
            c = TLSClient(front, ctx)
            r = c.req("hello", version=1)
            if r and r.get("ok"):
                break
            c.close()
            c = None
        except OSError as e:
            last = e
            c = None
        time.sleep(0.1)
    check(c is not None, "hello through HAProxy over TLS (%r)" % (last,))
    if c is None:
        return
    check(c.sock.version() in ("TLSv1.2", "TLSv1.3"), "TLS version %s" % c.sock.version())
    r = c.req("register", name="tls_alice", password="correct horse tls")
    check(r and r.get("ok"), "register over TLS")
    r = c.req("whoami")
    check(r and r.get("ok") and r["data"].get("peer") == REAL_ADDR,
          "agond sees the client's real address %s (whoami: %r)" % (REAL_ADDR, r))
    r = c.req("logout")
    r = c.req("login", name="tls_alice", password="correct horse tls")
    check(r and r.get("ok"), "login over TLS")
    c.close()
    log = srv.log()
    check(re.search(r"accepted from %s:%d\b" % (re.escape(REAL_ADDR), c.local_port), log),
          "agond's log names the client's address and port %s:%d" % (REAL_ADDR, c.local_port))

    # Refusals: untrusted certificate (system CAs only), wrong host name.
    try:
        TLSClient(front, ssl.create_default_context())
        check(False, "a client without the private CA refuses the certificate")
    except ssl.SSLCertVerificationError as e:
        check(True, "a client without the private CA refuses the certificate (%s)"
              % e.verify_message)
    try:
        TLSClient(front, trusted_ctx(cert), hostname="agon.example.org")
        check(False, "a client expecting another host name refuses")
    except ssl.SSLCertVerificationError as e:
        check("mismatch" in str(e) or "match" in str(e),
              "a client expecting another host name refuses (%s)" % e.verify_message)
    # Plain text to the TLS port gets no game reply.
    s = socket.create_connection(("127.0.0.1", front), timeout=TIMEOUT)
    s.sendall(b'{"type":"hello","id":1,"version":1}\n')
    try:
        data = s.recv(4096)
    except (ConnectionResetError, socket.timeout):
        data = b""
    check(b'"re":"hello"' not in data, "plain text on the TLS port is not served")
    s.close()

    # The PROXY listener without a header: closed, nothing served.
    s = socket.create_connection(("127.0.0.1", srv.proxy_port), timeout=TIMEOUT)
    s.sendall(b'{"type":"hello","id":1,"version":1}\n')
    try:
        data = s.recv(4096)
    except (ConnectionResetError, socket.timeout):
        data = b""
    check(data == b"", "PROXY listener closes a connection without a header")
    s.close()
    # The plain listener never trusts a header (no address spoofing).
    p = srv.client(hello=False)
    p.send_raw(b"PROXY TCP4 198.51.100.1 127.0.0.1 1234 7878\r\n")
    r = p.reply()
    check(err_code(r) == "bad_json", "plain listener answers a PROXY line as bad JSON")
    r = p.req("hello", version=1)
    r = p.req("register", name="plain_bob", password="correct horse p")
    r = p.req("whoami")
    check(r and r["data"].get("peer") == "127.0.0.1",
          "plain listener keeps the socket's address (%r)" % r)
    p.close()

    # HAProxy's health checks reach /healthz (requests beyond our own
    # scrapes); the PROXY counters moved.
    end = time.time() + 10
    fams, own = None, 0
    while time.time() < end:
        fams = parse_prometheus(srv.scrape())
        own += 1
        if value(fams, "agon_http_requests_total") > own:
            break
        time.sleep(0.2)
    check(value(fams, "agon_http_requests_total") > own,
          "HAProxy health checks hit /healthz")
    check(value(fams, "agon_proxy_connections_total") == 1,
          "one PROXY connection (failed handshakes never reach agond): %r"
          % value(fams, "agon_proxy_connections_total"))
    check(value(fams, "agon_proxy_header_errors_total") == 1,
          "the header-less connection counted as a PROXY error")
    if len(sys.argv) > 3:
        agon_client(sys.argv[3], srv, front, cert, d)
    srv.stop_checked()


def agon_client(agon, srv, front, cert, d):
    """The terminal client over TLS through HAProxy."""
    def env(name):
        cfg = os.path.join(d, "cfg-" + name)
        os.makedirs(cfg, exist_ok=True)
        return dict(os.environ, XDG_CONFIG_HOME=cfg,
                    AGON_PASSWORD="correct horse tls")

    def args(*a, ca=True):
        base = [agon, "--tls", "--host", "localhost", "--port", str(front),
                "--source", REAL_ADDR]
        if ca:
            base += ["--ca", cert]
        return base + list(a)

    def run(name, *a, ca=True):
        return subprocess.run(args(*a, ca=ca), capture_output=True, text=True,
                              env=env(name), timeout=60,
                              stdin=subprocess.DEVNULL)

    def state(r):
        try:
            return json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return {"stdout": r.stdout, "stderr": r.stderr}

    before = set(re.findall(r"accepted from %s:\d+" % re.escape(REAL_ADDR),
                            srv.log()))
    r = run("carol", "register", "tls_carol")
    check(r.returncode == 0 and "tls_carol" in r.stdout,
          "agon --tls --ca registers through HAProxy: %r %r" % (r.stdout, r.stderr))
    r = run("dave", "register", "tls_dave")
    check(r.returncode == 0, "a second agon client registers over TLS: %r" % r.stderr)
    after = set(re.findall(r"accepted from %s:\d+" % re.escape(REAL_ADDR),
                           srv.log()))
    check(len(after - before) >= 2,
          "agond saw the agon client's real address %s (%d new connections)"
          % (REAL_ADDR, len(after - before)))

    # A short game: carol seeks (waits in the background), dave accepts,
    # four moves from the client's own legal list, then a resignation.
    seek = subprocess.Popen(args("--json", "seek", "gomony", "--tc", "5+3"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env("carol"),
                            stdin=subprocess.DEVNULL)
    first = json.loads(seek.stdout.readline() or "{}")
    check(first.get("seek_id"), "seek over TLS: %r" % first)
    if not first.get("seek_id"):
        seek.kill()
        seek.wait()
        return
    r = run("dave", "--json", "accept", str(first["seek_id"]))
    st = state(r)
    seek.communicate(timeout=60)
    check(r.returncode == 0 and st.get("event") == "game_start",
          "accept over TLS starts the game: %r" % st)
    gid = str(st.get("game_id"))
    who = {"tls_carol": "carol", "tls_dave": "dave"}
    for i in range(4):
        if not st.get("legal"):
            break
        r = run(who[st["to_move_player"]], "--json", "move", gid, st["legal"][0])
        nst = state(r)
        check(r.returncode == 0 and nst.get("seq") == st["seq"] + 1,
              "move %d over TLS: %r" % (i + 1, nst.get("last_move")))
        st = nst
    r = run("carol", "resign", gid)
    check(r.returncode == 0 and "game over" in r.stdout and "resign" in r.stdout,
          "resign over TLS ends the game: %r" % r.stdout.strip().splitlines()[-1:])

    # Without the private CA the system store does not trust the
    # self-signed certificate: refused before anything is sent.
    r = run("carol", "ping", ca=False)
    check(r.returncode == 1 and "not trusted" in r.stderr,
          "agon --tls without --ca refuses the certificate: %r" % r.stderr.strip())
    # The certificate names 127.0.0.1 too: a numeric --host verifies.
    r = subprocess.run([agon, "--tls", "--ca", cert, "--host", "127.0.0.1",
                        "--port", str(front), "ping"], capture_output=True,
                       text=True, env=env("carol"), timeout=60)
    check(r.returncode == 0, "the certificate's IP address verifies: %r" % r.stderr)
    # A trusted certificate for another name (a TLS listener of this test
    # on 127.0.0.1 with a self-signed certificate for agon.example.org
    # only): the host name check refuses it.
    okey, ocert = os.path.join(d, "other.key"), os.path.join(d, "other.pem")
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec",
                        "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-days", "2", "-subj", "/CN=agon.example.org",
                        "-addext", "subjectAltName=DNS:agon.example.org",
                        "-keyout", okey, "-out", ocert],
                       capture_output=True, timeout=60)
    check(p.returncode == 0, "a second certificate: %r" % p.stderr[-200:])
    sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    sctx.load_cert_chain(ocert, okey)
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(4)
    ls.settimeout(TIMEOUT)

    def serve():
        try:
            c, _ = ls.accept()
            try:
                sctx.wrap_socket(c, server_side=True).close()
            except (ssl.SSLError, OSError):
                c.close()
        except OSError:
            pass
    import threading
    th = threading.Thread(target=serve, daemon=True)
    th.start()
    r = subprocess.run([agon, "--tls", "--ca", ocert, "--host", "127.0.0.1",
                        "--port", str(ls.getsockname()[1]), "ping"],
                       capture_output=True, text=True, env=env("carol"),
                       timeout=60)
    th.join(TIMEOUT)
    ls.close()
    check(r.returncode == 1 and "not trusted" in r.stderr and "mismatch" in r.stderr,
          "agon --tls refuses a certificate for another host name: %r" % r.stderr.strip())


if __name__ == "__main__":
    main()
