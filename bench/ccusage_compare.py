#!/usr/bin/env python3
"""Compares ctxlint's cost of each Claude Code session with ccusage's.

    python3 bench/ccusage_compare.py [--bin target/release/ctxlint] [--ccusage PATH] FOLDER...

Installs ccusage (the npm package, version CCUSAGE_VERSION) into a temporary
prefix unless --ccusage names a binary, lays the `.jsonl` files under FOLDER
out as a Claude configuration folder (`projects/<folder>/<file>`, read by
ccusage through CLAUDE_CONFIG_DIR), runs `ccusage session --json --offline`
and `ctxlint check FOLDER... --output-format json`, and prints each session's
two figures. Exits 1 when a session differs by more than 2 % (the issue 36
bar), 0 otherwise. Sessions are matched by file name (ccusage names a session
by its file's stem).

Known difference: ccusage counts a call once across all files (it keys calls
by message id and request id), ctxlint counts what each file holds, so a file
that copies another's calls (Claude Code's `agent-aside_question-*` side
files) costs more in ctxlint's figure.
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

CCUSAGE_VERSION = "20.0.24"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def install(prefix):
    subprocess.run(["npm", "install", "--prefix", prefix, "--silent", f"ccusage@{CCUSAGE_VERSION}"], check=True)
    return os.path.join(prefix, "node_modules", ".bin", "ccusage")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "ctxlint"))
    ap.add_argument("--ccusage", help="a ccusage binary (default: install it from npm into a temporary prefix)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ccusage = a.ccusage or install(os.path.join(tmp, "npm"))
        home = os.path.join(tmp, "claude")
        for folder in a.folders:
            for d, _, names in os.walk(folder):
                for n in names:
                    if n.endswith(".jsonl"):
                        project = os.path.relpath(d, folder).replace(os.sep, "_")
                        os.makedirs(os.path.join(home, "projects", project), exist_ok=True)
                        shutil.copy(os.path.join(d, n), os.path.join(home, "projects", project, n))
        env = dict(os.environ, CLAUDE_CONFIG_DIR=home)
        out = subprocess.run([ccusage, "session", "--json", "--offline"], env=env, capture_output=True, text=True, check=True)
        theirs = {s["period"].removesuffix(".jsonl"): s["totalCost"] for s in json.loads(out.stdout)["session"]}
    out = subprocess.run([a.bin, "check", *a.folders, "--output-format", "json"], capture_output=True, text=True)
    ours = collections.defaultdict(float)
    for f in json.loads(out.stdout)["files"]:
        if f["format"] == "claude-code" and f["usage"] and f["usage"]["cost_usd"] is not None:
            ours[os.path.basename(f["path"]).removesuffix(".jsonl")] += f["usage"]["cost_usd"]
    bad = 0
    print(f"{'session':<48} {'ccusage':>10} {'ctxlint':>10} {'diff':>7}")
    for k in sorted(set(theirs) | set(ours)):
        t, o = theirs.get(k), ours.get(k)
        d = abs(t - o) / max(t, o) if t is not None and o is not None and max(t, o) > 0 else None
        far = d is None or d > 0.02
        bad += far
        ds = f"{d * 100:.2f}%" if d is not None else "-"
        print(f"{k[:48]:<48} {t if t is not None else '-':>10} {o if o is not None else '-':>10} {ds:>7}{'  <-' if far else ''}")
    print(f"sessions: {len(set(theirs) | set(ours))}; beyond 2 %: {bad}; totals ccusage ${sum(theirs.values()):.2f}, ctxlint ${sum(ours.values()):.2f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
