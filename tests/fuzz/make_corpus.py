#!/usr/bin/env python3
"""Regenerates the seed corpus of the game fuzz targets from agon-rules.

usage: make_corpus.py PATH/TO/agon-rules [GAME...]

move inputs: byte 0 = seed, byte 1 = random plies (0 here), then a move
text: the legal moves of the start position and mangled variants of them.
position inputs: position strings printed by `show` along random games,
plus truncated and mangled variants. Existing files are kept (crashers and
hand-made inputs live beside the generated ones).
"""
import hashlib
import os
import subprocess
import sys

TOOL = sys.argv[1]
GAMES = sys.argv[2:] or ["gwezboell", "gomony", "gambit-of-kings", "gambo-2019", "gambo-2023"]
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def run(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, check=False).stdout


def save(d, data):
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


for g in GAMES:
    mdir = os.path.join(HERE, g.replace("-", "_") + "-move")
    pdir = os.path.join(HERE, g.replace("-", "_") + "-position")
    for seed in (0, 1, 2):
        for mv in run("legal", g, "--seed", str(seed)).splitlines()[:12]:
            for v in (mv, mv.upper(), "  " + mv + "  ", mv + "x", mv[:-1], mv.replace("-", "")):
                save(mdir, bytes([seed, 0]) + v.encode())
    for seed in range(4):
        moves = run("random", g, "--seed", str(seed), "--max-plies", "400").splitlines()[:-1]
        for i in range(0, len(moves), max(1, len(moves) // 6)):
            out = run("show", g, "--seed", str(seed), *moves[:i])
            for line in out.splitlines():
                if line.startswith("position: "):
                    p = line[len("position: "):]
                    save(pdir, p.encode())
                    save(pdir, p[: len(p) // 2].encode())
                    save(pdir, p.replace("/", "//", 1).encode())
    print(g, len(os.listdir(mdir)), "move inputs,", len(os.listdir(pdir)), "position inputs")
