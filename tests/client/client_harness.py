"""Helpers for the client tests: run agon/agon-rules, drive agon in a real
terminal (tmux with a private socket, 80x24) and read the screen back.

Standard library only, plus the tmux binary. Every wait is bounded."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT = 10.0
FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)
    return cond


def finish():
    if FAILED:
        print("%d check(s) failed:" % len(FAILED))
        for f in FAILED:
            print("  " + f)
        sys.exit(1)
    print("all passed")
    sys.exit(0)


def run(args, env=None, stdin=None, timeout=TIMEOUT):
    return subprocess.run(args, input=stdin, capture_output=True, text=True,
                          env=env, timeout=timeout)


class Rules:
    """The rules core's own command line: the independent reference."""

    def __init__(self, path):
        self.path = path

    def _base(self, game, seed, opts):
        a = [self.path]
        return a

    def random_game(self, game, seed, opts=()):
        a = [self.path, "random", game, "--seed", str(seed)]
        for o in opts:
            a += ["-o", o]
        out = run(a).stdout.strip().splitlines()
        return out[:-1], out[-1]  # moves, "outcome: ..."

    def legal(self, game, seed, opts, moves):
        a = [self.path, "legal", game, "--seed", str(seed)]
        for o in opts:
            a += ["-o", o]
        return run(a + list(moves)).stdout.split("\n")[:-1]

    def view(self, game, seed, opts, moves):
        a = [self.path, "show", game, "--seed", str(seed), "--json"]
        for o in opts:
            a += ["-o", o]
        return json.loads(run(a + list(moves)).stdout)


class Tmux:
    """One program in a detached tmux session of a given size."""

    def __init__(self, argv, env=None, width=80, height=24):
        if not shutil.which("tmux"):
            print("SKIP: no tmux")
            sys.exit(77)
        self.dir = tempfile.mkdtemp(prefix="agon-pty-")
        self.sock = os.path.join(self.dir, "tmux.sock")
        e = dict(os.environ)
        e.update(env or {})
        self.env = e
        cmd = " ".join("'" + a.replace("'", "'\\''") + "'" for a in argv)
        envs = " ".join("%s='%s'" % (k, v) for k, v in (env or {}).items())
        self.tmux("new-session", "-d", "-x", str(width), "-y", str(height),
                  "-s", "t", "env %s %s; echo agon-exit=$?" % (envs, cmd))
        self.tmux("set-option", "-t", "t", "remain-on-exit", "on")

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.sock, "-f", "/dev/null"] +
                              list(args), capture_output=True, text=True,
                              timeout=TIMEOUT, env=self.env).stdout

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def type(self, text):
        self.tmux("send-keys", "-t", "t", "-l", text)

    def screen(self, escapes=False):
        a = ["capture-pane", "-p", "-t", "t"]
        if escapes:
            a.append("-e")
        return self.tmux(*a)

    def dead(self):
        return self._ended(self.screen())

    def exit_status(self):
        """The program's exit status (the shell prints it after it ends:
        tmux's own #{pane_dead_status} is not always filled in)."""
        import re
        s = self.wait(self._ended)
        m = re.search(r"agon-exit=(\d+)|Pane is dead \(status (\d+)", s or "")
        return (m.group(1) or m.group(2)) if m else ""

    @staticmethod
    def _ended(s):
        return "agon-exit=" in s or "Pane is dead (status" in s

    def wait(self, pred, timeout=TIMEOUT):
        end = time.time() + timeout
        s = self.screen()
        while time.time() < end:
            if pred(s):
                return s
            time.sleep(0.02)
            s = self.screen()
        return None

    def wait_text(self, text, timeout=TIMEOUT):
        return self.wait(lambda s: text in s, timeout)

    def resize(self, w, h):
        self.tmux("resize-window", "-t", "t", "-x", str(w), "-y", str(h))

    def close(self):
        self.tmux("kill-server")
        shutil.rmtree(self.dir, ignore_errors=True)


# ---- reading boards off the screen ---------------------------------------

def square_board(screen):
    """{(file, rank): cell text stripped} from a square-board screen."""
    import re
    cells = {}
    for line in screen.splitlines():
        m = re.match(r"^\s*(\d+) \u2502(.*)\u2502(\d+)", line)
        if not m or m.group(1) != m.group(3):
            continue
        rank = int(m.group(1)) - 1
        body = m.group(2)
        for f in range(len(body) // 3):
            cells[(f, rank)] = body[3 * f:3 * f + 3]
    return cells


def cell_piece(c):
    """Piece letter(s) of a square cell, '' when empty."""
    c = c.strip().strip("[]")
    if c in ("", "\u00b7", "#", "+"):
        return ""
    return c.lstrip("+")


def expected_square(game, view, files, ranks):
    """Expected piece text per square from the rules core's JSON view."""
    exp = {}
    b = view["board"]
    for r in range(ranks):
        for f in range(files):
            if game == "gomony":
                col = b.get("%s%d" % ("abcdefgh"[f], r + 1))
                exp[(f, r)] = "" if not col else (
                    col[0] + (str(len(col)) if len(col) > 1 else ""))
            else:
                ch = b[ranks - 1 - r][f]
                exp[(f, r)] = "" if ch in ".+#" else ch
    return exp


def gambo_rows(screen):
    """(north cells, line cells, south cells) read off a Gambo screen."""
    rows = {}
    for line in screen.splitlines():
        for key in ("North", "South", "Line"):
            i = line.find(key + " ")
            if 0 <= i <= 4 and key not in rows:
                rows[key] = line
    out = {}
    for key, off in (("South", 0), ("North", 1)):
        line = rows.get(key, "")
        out[key] = [line[9 + (2 * i + off) * 3: 11 + (2 * i + off) * 3]
                    for i in range(9)]
    line = rows.get("Line", "")
    out["Line"] = [line[9 + k * 3: 11 + k * 3] for k in range(18)]
    return out


def gambo_expected(view):
    out = {}
    for side, key in (("south", "South"), ("north", "North")):
        cells = []
        for c in view["board"][side]:
            st, p = c.get("state"), c.get("piece")
            if st == "empty" or not p:
                cells.append("--")
            elif st in ("line", "on_line"):
                cells.append("..")
            elif st == "withdrawn":
                cells.append(p[0].lower() + p[1])
            else:
                cells.append(p)
        out[key] = cells
    out["Line"] = [e["piece"] if e else "%02d" % (k + 1)
                   for k, e in enumerate(view["board"]["line"])]
    return out


def outcome_text(outcome_line):
    """'outcome: north wins (score)' -> 'North wins (score)' as on screen."""
    body = outcome_line.split(":", 1)[1].strip()
    if body.startswith("draw"):
        reason = body[body.index("(") + 1:body.rindex(")")]
        return "Draw (%s)" % reason.replace("_", " ")
    side, rest = body.split(" ", 1)
    reason = rest[rest.index("(") + 1:rest.rindex(")")].replace("_", " ")
    verb = "win" if side.endswith("s") else "wins"
    return "%s %s (%s)" % (side.capitalize(), verb, reason)
