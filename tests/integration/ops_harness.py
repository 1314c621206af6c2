"""Helpers for the operations tests (test_ops_*.py): agond with its PROXY
and metrics listeners, a strict Prometheus text-format parser, HTTP GET,
free ports. Standard library only; every wait is bounded."""
import math
import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agon_harness import Server, TIMEOUT  # noqa: E402

SKIP = 77  # meson: the test is skipped


class OpsServer(Server):
    """Server started with --proxy-port 0 and/or --metrics-listen
    127.0.0.1:0; reads the extra "... listening on" lines."""

    def __init__(self, agond, proxy=True, metrics=True, extra=(), **kw):
        extra = list(extra)
        if proxy:
            extra += ["--proxy-port", "0"]
        if metrics:
            extra += ["--metrics-listen", "127.0.0.1:0"]
        super().__init__(agond, extra=extra, **kw)
        self.want = int(proxy) + int(metrics)
        self.proxy_port = self.metrics_port = None

    def start(self):
        super().start()
        for _ in range(self.want):
            # Printed with the first line, in the same flush.
            line = self.proc.stdout.readline().decode().strip()
            m = re.match(r"(proxy|metrics) listening on 127\.0\.0\.1:(\d+)$", line)
            if not m:
                raise RuntimeError("unexpected agond line %r" % line)
            setattr(self, m.group(1) + "_port", int(m.group(2)))
        return self

    def get(self, path, method="GET", raw=None):
        return http_get(self.metrics_port, path, method, raw)

    def scrape(self):
        st, _, body = self.get("/metrics")
        if st != 200:
            raise AssertionError("GET /metrics: %r" % st)
        return body


def http_get(port, path, method="GET", raw=None, timeout=TIMEOUT):
    """(status, headers dict, body str); status None if no answer."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(raw if raw is not None else
                  ("%s %s HTTP/1.1\r\nHost: localhost\r\n\r\n" % (method, path)).encode())
        data = b""
        end = time.time() + timeout
        while time.time() < end:
            try:
                d = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not d:
                break
            data += d
    finally:
        s.close()
    if not data:
        return None, {}, ""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for h in lines[1:]:
        k, _, v = h.partition(":")
        headers[k.strip().lower()] = v.strip()
    if "content-length" in headers and method != "HEAD":
        assert int(headers["content-length"]) == len(body), "content-length"
    return status, headers, body.decode()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


# ---- strict Prometheus text format (0.0.4) parser ------------------------

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")


class PromError(Exception):
    pass


def _value(s, where):
    if s in ("+Inf", "Inf"):
        return math.inf
    if s == "-Inf":
        return -math.inf
    if s == "NaN":
        return math.nan
    if not re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", s):
        raise PromError("%s: bad value %r" % (where, s))
    return float(s)


def _labels(s, where):
    """Parses 'a="x",b="y"' (no braces) -> tuple of pairs."""
    out, i = [], 0
    while i < len(s):
        m = re.match(LABEL, s[i:])
        if not m:
            raise PromError("%s: bad label name at %r" % (where, s[i:]))
        name = m.group(0)
        i += len(name)
        if s[i:i + 2] != '="':
            raise PromError("%s: expected =\" after %s" % (where, name))
        i += 2
        val = ""
        while True:
            if i >= len(s):
                raise PromError("%s: unterminated label value" % where)
            c = s[i]
            if c == "\\":
                nxt = s[i + 1:i + 2]
                if nxt not in ("\\", '"', "n"):
                    raise PromError("%s: bad escape \\%s" % (where, nxt))
                val += {"n": "\n"}.get(nxt, nxt)
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == "\n":
                raise PromError("%s: newline in label value" % where)
            else:
                val += c
                i += 1
        if name in dict(out):
            raise PromError("%s: duplicate label %s" % (where, name))
        out.append((name, val))
        if i < len(s):
            if s[i] != ",":
                raise PromError("%s: expected , at %r" % (where, s[i:]))
            i += 1
            if i == len(s):
                break  # a trailing comma is allowed
    return tuple(out)


def parse_prometheus(text):
    """Returns {family: {"type", "help", "samples": {(name, labels): value}}}.
    Raises PromError on anything the format does not allow: unknown
    TYPE, TYPE after samples, duplicate HELP/TYPE/series, families
    interleaved, sample names not belonging to their family, bad names,
    label syntax or values, histogram buckets not cumulative or +Inf
    bucket != _count, missing final newline."""
    if not text.endswith("\n"):
        raise PromError("no final newline")
    fams = {}
    current = None
    done = set()

    def family_of(sample):
        for suffix in ("_bucket", "_sum", "_count", ""):
            if suffix and not sample.endswith(suffix):
                continue
            base = sample[:len(sample) - len(suffix)] if suffix else sample
            f = fams.get(base)
            if f is None:
                continue
            t = f["type"]
            if suffix == "" or (t == "histogram") or \
               (t == "summary" and suffix in ("_sum", "_count")):
                return base
        return None

    for n, line in enumerate(text.split("\n")[:-1], 1):
        where = "line %d" % n
        if line == "":
            continue
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not re.fullmatch(NAME, name):
                    raise PromError("%s: bad metric name %r" % (where, name))
                if name in done:
                    raise PromError("%s: family %s appears twice" % (where, name))
                f = fams.setdefault(name, {"type": None, "help": None,
                                           "samples": {}})
                if current != name:
                    if current is not None:
                        done.add(current)
                    current = name
                if parts[1] == "HELP":
                    if f["help"] is not None:
                        raise PromError("%s: second HELP for %s" % (where, name))
                    f["help"] = parts[3] if len(parts) > 3 else ""
                else:
                    if f["type"] is not None:
                        raise PromError("%s: second TYPE for %s" % (where, name))
                    if f["samples"]:
                        raise PromError("%s: TYPE after samples of %s" % (where, name))
                    t = parts[3] if len(parts) > 3 else ""
                    if t not in TYPES:
                        raise PromError("%s: unknown type %r" % (where, t))
                    f["type"] = t
            continue
        m = re.fullmatch(r"(%s)(\{(.*)\})? (\S+)( -?\d+)?" % NAME, line)
        if not m:
            raise PromError("%s: not a sample: %r" % (where, line))
        sname, labels = m.group(1), _labels(m.group(3) or "", where)
        fam = family_of(sname)
        if fam is None:
            raise PromError("%s: sample %s without a TYPE" % (where, sname))
        if fam != current:
            raise PromError("%s: sample %s outside its family block" % (where, sname))
        key = (sname, labels)
        f = fams[fam]
        if key in f["samples"]:
            raise PromError("%s: duplicate series %r" % (where, key))
        f["samples"][key] = _value(m.group(4), where)
    for name, f in fams.items():
        if f["type"] is None:
            raise PromError("family %s has no TYPE" % name)
        if f["type"] == "counter":
            for (s, _), v in f["samples"].items():
                if v < 0:
                    raise PromError("counter %s negative" % s)
        if f["type"] == "histogram":
            _check_histogram(name, f)
    return fams


def _check_histogram(name, f):
    groups = {}
    for (s, labels), v in f["samples"].items():
        rest = tuple(kv for kv in labels if kv[0] != "le")
        g = groups.setdefault(rest, {"buckets": [], "sum": None, "count": None})
        if s == name + "_bucket":
            le = dict(labels).get("le")
            if le is None:
                raise PromError("%s bucket without le" % name)
            g["buckets"].append((_value(le, name), v))
        elif s == name + "_sum":
            g["sum"] = v
        elif s == name + "_count":
            g["count"] = v
        else:
            raise PromError("%s: stray sample %s" % (name, s))
    for g in groups.values():
        b = sorted(g["buckets"])
        if not b or b[-1][0] != math.inf:
            raise PromError("%s: no +Inf bucket" % name)
        if any(b[i][1] > b[i + 1][1] for i in range(len(b) - 1)):
            raise PromError("%s: buckets not cumulative" % name)
        if g["count"] is None or g["sum"] is None or g["count"] != b[-1][1]:
            raise PromError("%s: _count/_sum missing or != +Inf bucket" % name)


def value(fams, name, **labels):
    """One sample's value (family found from the sample name)."""
    key = (name, tuple(sorted(labels.items())))
    for f in fams.values():
        for (s, ls), v in f["samples"].items():
            if (s, tuple(sorted(ls))) == key:
                return v
    raise KeyError("%s%r not in the page" % (name, labels))
