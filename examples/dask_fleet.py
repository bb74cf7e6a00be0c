#!/usr/bin/env python3
"""Lint a fleet of transcripts with Dask: the path for users who outgrow one machine.

    python examples/dask_fleet.py FOLDER [--workers 2] [--scheduler processes|threads|ADDRESS]
                                         [--out findings.jsonl] [--partition-files 256]

Every transcript file under FOLDER (``.jsonl``, ``.jsonl.gz``/``.zst``…, walked as
``ctxlint check`` walks a folder) is one input; the files are split into partitions of
``--partition-files``, and each partition is checked by one call to the Python API,
``ctxlint.check(paths)``, on a Dask worker. The findings come back as JSON lines (one
finding per line, the fields of ``--output-format json``) and as counts per rule. The same
code runs on a real cluster: pass the scheduler's address (``tcp://host:8786``; needs
``dask.distributed``), or build the bag from object-store paths your workers can read.

One file is one input here: request bodies that form a stream across files (a folder of
``req1.json``, ``req2.json``…) must go to one ``ctxlint.check`` call together — partition
by folder for those.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Dict, Iterable, List, Tuple

import ctxlint

SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst", ".jsonl.bz2", ".jsonl.xz")


def transcripts(folder: str) -> List[str]:
    """Every transcript file under `folder`, sorted (hidden folders included, as ctxlint walks)."""
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in (".git", ".hg", ".svn")]
        out.extend(os.path.join(root, f) for f in files if f.endswith(SUFFIXES))
    return sorted(out)


def lint_partition(paths: Iterable[str]) -> List[dict]:
    """Checks one partition of files with one API call; returns its findings as dicts.
    A file that cannot be read becomes a finding-shaped error record, never a lost partition."""
    paths = list(paths)
    if not paths:
        return []
    try:
        report = ctxlint.check(paths)
    except ctxlint.CtxlintError as e:
        report = getattr(e, "report", None)
        if report is None:
            return [{"rule": None, "path": p, "error": str(e)} for p in paths]
        return [f.to_dict() for f in report.findings] + [{"rule": None, "path": f.path, "error": f.error} for f in report.failed]
    return [f.to_dict() for f in report.findings]


def lint_partition_lines(paths: Iterable[str]) -> List[Tuple[List[str], Dict[str, int]]]:
    """One partition's findings as JSON lines and its counts per rule, as one item:
    the partition's whole result leaves the worker once (Dask's process and
    distributed schedulers move every task's result, so one task per partition
    beats a chain of maps over findings)."""
    lines, counts = [], {}
    for f in lint_partition(paths):
        lines.append(json.dumps(f, ensure_ascii=False))
        rule = f.get("rule")
        if rule:
            counts[rule] = counts.get(rule, 0) + 1
    return [(lines, counts)]


def lint_fleet(files: List[str], *, workers: int = 2, scheduler: str = "processes",
               partition_files: int = 256, pool=None) -> Tuple[List[str], Dict[str, int]]:
    """Findings as JSON lines (in file order) and counts per rule, computed on Dask.
    `scheduler`: "processes", "threads", "sync", or a ``dask.distributed`` address;
    `pool`: an executor of already started workers to reuse (processes or threads)."""
    import dask
    import dask.bag as db

    nparts = max(1, min(len(files), (len(files) + partition_files - 1) // partition_files, 10_000))
    nparts = max(nparts, min(workers, len(files)))
    parts = db.from_sequence(files, npartitions=nparts).map_partitions(lint_partition_lines)
    if scheduler in ("processes", "threads", "sync", "synchronous"):
        extra = {"pool": pool} if pool is not None else {"num_workers": workers}
        (got,) = dask.compute(parts, scheduler=scheduler, **extra)
    else:
        from dask.distributed import Client

        with Client(scheduler) as client:
            got = client.compute(parts, sync=True)
    lines: List[str] = []
    counts: Dict[str, int] = {}
    for part_lines, part_counts in got:
        lines.extend(part_lines)
        for rule, n in part_counts.items():
            counts[rule] = counts.get(rule, 0) + n
    return lines, counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scheduler", default="processes", help="processes, threads, or a dask.distributed address")
    ap.add_argument("--partition-files", type=int, default=256)
    ap.add_argument("--out", default="-", help="findings as JSON lines (default: standard output)")
    a = ap.parse_args(argv)
    files = transcripts(a.folder)
    lines, counts = lint_fleet(files, workers=a.workers, scheduler=a.scheduler, partition_files=a.partition_files)
    out = sys.stdout if a.out == "-" else open(a.out, "w")
    for line in lines:
        out.write(line + "\n")
    if out is not sys.stdout:
        out.close()
    print(json.dumps({"files": len(files), "findings": len(lines), "by_rule": dict(sorted(counts.items()))}), file=sys.stderr)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
