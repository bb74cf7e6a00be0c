#!/usr/bin/env bash
# Builds the Python package's wheel (maturin, abi3) from this checkout and
# installs it, with what its tests use, into a fresh virtual environment at
# target/py-venv. `cargo test` then runs the Python tests in it
# (tests/it/python.rs). `.ci/run` calls this; run it again after changing
# src/ or python/.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/py-venv
python3 -m venv --clear "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  maturin==1.9.0 pytest==9.2.0 vcrpy==9.4.2 pytest-recording==0.15.0 "dask[bag]==2026.8.0"
rm -rf target/wheels
(cd python && "../$venv/bin/maturin" build --release --quiet -o ../target/wheels)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps target/wheels/ctxlint-*.whl
"$venv/bin/python" -c 'import ctxlint; print("ctxlint", ctxlint.__version__, "installed in target/py-venv")'
