#!/usr/bin/env bash
# Runs fuzz targets one after another: ./fuzz/run.sh SECONDS TARGET...
# New corpus entries go to $FUZZ_WORK/<target> (default /tmp/ctxlint-fuzz),
# seeded from fuzz/corpus/<target>; logs to $FUZZ_WORK/<target>.log; crashes
# to fuzz/artifacts/<target>/. Stable toolchain, no sanitizer (see README.md).
set -u
cd "$(dirname "$0")"
secs=$1
shift
work=${FUZZ_WORK:-/tmp/ctxlint-fuzz}
for t in "$@"; do
  mkdir -p "$work/$t"
  echo "== $t start $(date -u +%FT%TZ)" >>"$work/$t.log"
  RUSTC_BOOTSTRAP=1 nice cargo fuzz run "$t" --sanitizer none -a "$work/$t" "corpus/$t" -- \
    -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 >>"$work/$t.log" 2>&1
  echo "== $t exit $? $(date -u +%FT%TZ)" >>"$work/$t.log"
done
