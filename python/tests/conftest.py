"""Shared paths for the Python package's tests (run by `cargo test` through
tests/it/python.rs, in the virtual environment `.ci/run` builds)."""
import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = os.path.join(ROOT, "fixtures", "cases")
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
CORPUS = os.path.join(SHARED, "corpus")
CI = os.environ.get("CI", "") not in ("", "0", "false")

pytest_plugins = ["pytester"]


def cli():
    """The ctxlint binary to compare with: $CTXLINT_BIN (cargo's build), else the package's command."""
    b = os.environ.get("CTXLINT_BIN")
    if b:
        return [b]
    exe = shutil.which("ctxlint", path=os.path.dirname(sys.executable))
    return [exe] if exe else [sys.executable, "-m", "ctxlint"]


def need_corpus():
    if not os.path.isdir(CORPUS):
        if CI:
            pytest.fail(f"{CORPUS} is missing (it is present in CI)")
        pytest.skip(f"SKIPPED: {CORPUS} is missing")
