"""The fleet example (examples/dask_fleet.py) on Dask with 2 worker processes gives
exactly the findings `ctxlint check` gives on the same folder."""
import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import CASES, ROOT, cli

sys.path.insert(0, os.path.join(ROOT, "examples"))


@pytest.fixture
def fleet(tmp_path):
    # 600 transcripts in nested (and hidden) folders: copies of the cases' sessions
    # (with findings) and of a clean one.
    sources = sorted(p for p in glob.glob(os.path.join(CASES, "*", "*.jsonl")) if "fence" not in p)
    assert len(sources) >= 8
    for i in range(600):
        d = tmp_path / ("team-%d" % (i % 7)) / (".sessions" if i % 5 == 0 else "sessions")
        d.mkdir(parents=True, exist_ok=True)
        shutil.copy(sources[i % len(sources)], d / f"s{i:04d}.jsonl")
    return tmp_path


def key(f):
    return (f["path"], f["line"] or 0, f["rule"], f["pointer"] or "")


def test_dask_on_two_workers_equals_the_cli(fleet):
    pytest.importorskip("dask.bag")
    import dask_fleet

    files = dask_fleet.transcripts(str(fleet))
    assert len(files) == 600
    lines, counts = dask_fleet.lint_fleet(files, workers=2, scheduler="processes", partition_files=64)
    got = sorted((json.loads(x) for x in lines), key=key)
    p = subprocess.run([*cli(), "check", str(fleet), "--output-format", "json"], capture_output=True, text=True)
    assert p.returncode == 1, p.stderr
    want = sorted(json.loads(p.stdout)["findings"], key=key)
    assert len(got) == len(want) > 300
    assert got == want
    by_rule = {}
    for f in want:
        by_rule[f["rule"]] = by_rule.get(f["rule"], 0) + 1
    assert counts == by_rule


def test_the_example_runs_as_a_script(fleet, tmp_path):
    pytest.importorskip("dask.bag")
    out = tmp_path / "findings.jsonl"
    p = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "dask_fleet.py"), str(fleet), "--workers", "2",
                        "--scheduler", "threads", "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 1, p.stderr
    summary = json.loads(p.stderr.strip().splitlines()[-1])
    assert summary["files"] == 600 and summary["findings"] == len(out.read_text().splitlines())
