#!/usr/bin/env python3
"""Regenerates the HTML report's screenshots in docs/ from two committed,
real-shaped fixtures, in headless Chromium (Debian's `chromium`, or
$CTXLINT_CHROMIUM), driven over the DevTools protocol by bench/cdp.py:

  docs/report-session.png  a pi session file (fixtures/report/mixed-session.jsonl) at
                           its first finding: the timeline with its marks, the findings,
                           and the context at that step with the offending block highlighted;
  docs/report-stream.png   recorded request bodies (fixtures/cases/litellm-36559-system-hoist)
                           at the request whose system prompt was rewritten: the cache-break
                           marks, and the side-by-side diff against the previous request.

Usage: python3 docs/screenshots.py   (after `cargo build --release`)
"""
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import cdp  # noqa: E402

BIN = os.path.join(ROOT, "target", "release", "ctxlint")


def report(inputs, out):
    r = subprocess.run([BIN, "check", *inputs, "--output-format", "html", "-o", out], cwd=ROOT)
    if r.returncode not in (0, 1):  # 1: findings, expected here
        sys.exit(f"screenshots: ctxlint check exited {r.returncode}")


def main():
    if not os.path.exists(BIN):
        sys.exit(f"screenshots: {BIN} is missing: run `cargo build --release` first")
    chrome = cdp.chromium()
    if chrome is None:
        sys.exit("screenshots: chromium is not installed (apt-get install chromium)")
    shots = [
        ("report-session.png", ["fixtures/report/mixed-session.jsonl"], "p=0&f=0", 1000),
        ("report-stream.png", sorted(glob.glob("fixtures/cases/litellm-36559-system-hoist/req*.json", root_dir=ROOT)), "p=0&f=0", 1800),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        b = cdp.Browser(chrome)
        try:
            for name, inputs, fragment, height in shots:
                html = os.path.join(tmp, name + ".html")
                report(inputs, html)
                out = os.path.join(ROOT, "docs", name)
                b.screenshot(f"file://{html}#{fragment}", out, height=height)
                print(f"wrote docs/{name}")
        finally:
            b.close()


if __name__ == "__main__":
    main()
