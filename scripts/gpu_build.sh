#!/usr/bin/env bash
# The offline GPU builder's calls (one device call each, at most 10 minutes):
#   STAGE=all     (default) the whole GPU check in one call, at most ~540 s: install the carried docs toolchain, build
#                 the site cold (its stacks sampled), run the GPU test selection against that build's compile caches
#                 (GPU_TESTS_BUDGET s), rebuild with nothing changed (0 pages must be read), and, when the time left
#                 allows it (ALL_BUDGET), a second cold build and the comparison of the two builds' verdicts. Brings
#                 back three files: $OUT/summary.txt, $OUT/site.tar.gz (the first build's HTML) and $OUT/check.tar.gz
#                 (results, build-time tables, logs, sampled stacks, verdicts; EXTRA_CMD's files if any).
#   STAGE=builds  build the site cold twice (the repeatability gate: every claim's verdict must be the same in both
#                 builds), rebuild unchanged, run a downloaded gallery script in Japanese;
#   STAGE=tests   the GPU test selection (pages, workloads, context parallelism) and the CLI;
#   STAGE=bundles (issue 23) build cold without bundles, pack this build's results into $OUT/h200.tar.gz (no traces)
#                 and $OUT/h200-traces.tar.gz, rebuild with docs/bundles (the recorded 2xH200 run) and compare the
#                 two sites less what they show of other machines ($OUT/compare-bundles.txt must say 0 differences).
# Usage there:  STAGE=all bash scripts/gpu_build.sh   (needs .whl/ carried, $OUT set by the device tool)
# COLD_BUILDS=1 builds cold once (no verdict comparison); SKIP_EXTRAS=1 stops after the verdicts; GPU_TESTS narrows
# the GPU test selection; EXTRA_CMD runs one more command at the end of STAGE=all (its files go under $OUT/extra).
# The first build's site and results are packed as soon as it ends, so a call cut short still brings them back. Each
# build's en/ja number comparison and its table of where the time went go into the summary.
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"
STAGE=${STAGE:-all}
STARTED=$(date +%s.%N)
since() { python3 -c "import time; print(round(time.time() - $1, 1))"; }
log() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }
# After a docs build: its en/ja number comparison and its table of where the time went (attnprof.site.builder), kept
# in the summary and as $OUT/build-times-<name>.json.
build_report() {
  log "$1: $(grep -h "^numbers of " "$2" | tail -1)"
  if [ -f _build/build-times.txt ]; then
    cat _build/build-times.txt >> "$OUT/summary.txt"; cp _build/build-times.json "$OUT/build-times-$1.json"
  fi
}
log "stage $STAGE on $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
t_install=$(date +%s.%N)
python3 -m pip install -q --no-index --find-links .whl sphinx==9.0.4 'docutils<0.23' myst-nb==1.4.0 \
  sphinx-gallery==0.22.1 furo==2025.12.19 nox sphinx-copybutton sphinx-intl matplotlib-fontja 'setuptools>=70.1' \
  hypothesis orjson 2>&1 | grep -v "^WARNING: Location" | tail -3
python3 -m pip install -q --no-build-isolation --no-deps -e . 2>&1 | tail -3
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$OUT/summary.txt"
log "install took $(since $t_install) s"
GPU_TEST_FILES="tests/test_gpu.py tests/test_gpu_workloads.py tests/test_parallel_gpu.py tests/test_eligibility_gpu.py \
  tests/test_sweep_gpu.py tests/test_trainscale_gpu.py"

if [ "$STAGE" = all ]; then
  mkdir -p "$OUT/check"
  cold_build() {  # $1: name; the build's log, results and time table go into $OUT/check/$1
    rm -rf _build docs/auto_examples
    mkdir -p "$OUT/check/$1"
    local t0; t0=$(date +%s.%N)
    ATTNPROF_SAMPLE_STACKS=${2:-} timeout "${BUILD_TIMEOUT:-300}" python3 -m nox --no-venv -s docs \
      > "$OUT/check/$1/docs.log" 2>&1; local rc=$?
    log "$1: rc=$rc took $(since $t0) s; $(grep -c WARNING "$OUT/check/$1/docs.log") warnings"
    log "$1: $(grep -h "^numbers of " "$OUT/check/$1/docs.log" | tail -1); $(grep -h "^library output on pages" "$OUT/check/$1/docs.log" | tail -1)"
    if [ -f _build/build-times.txt ]; then cat _build/build-times.txt >> "$OUT/summary.txt"; cp _build/build-times.* "$OUT/check/$1/"; fi
    rm -rf "/tmp/results-$1"; mkdir -p "/tmp/results-$1"; cp _build/results/*.json "/tmp/results-$1/" 2>/dev/null
    cp -r _build/results "$OUT/check/$1/results" 2>/dev/null
    [ -n "${2:-}" ] && cp "$2" "$OUT/check/$1/" 2>/dev/null
    return $rc
  }
  pack() { tar czf "$OUT/check.tar.gz" -C "$OUT" check; }
  cold_build cold-1 /tmp/stacks-cold-1.txt.gz
  tar czf "$OUT/site.tar.gz" -C _build html && log "site: $(du -sh _build/html | cut -f1), packed $(du -h "$OUT/site.tar.gz" | cut -f1)"
  pack
  log "gpu tests (budget ${GPU_TESTS_BUDGET:-150} s)"
  t0=$(date +%s.%N)
  TORCHINDUCTOR_CACHE_DIR=$PWD/_build/compile-cache timeout "${GPU_TESTS_BUDGET:-150}" python3 -m pytest -m gpu -q -ra \
    -p no:cacheprovider --durations=15 ${GPU_TESTS:-$GPU_TEST_FILES} > "$OUT/check/gpu-tests.log" 2>&1; rc=$?
  log "gpu tests rc=$rc took $(since $t0) s: $(grep -E "passed|failed|error" "$OUT/check/gpu-tests.log" | tail -1)"
  pack
  t0=$(date +%s.%N)
  python3 -m nox --no-venv -s docs > "$OUT/check/docs-warm.log" 2>&1; rc=$?
  log "no-change rebuild rc=$rc took $(since $t0) s; $(grep -h "^pages read" _build/build-times.txt)"
  cat _build/build-times.txt >> "$OUT/summary.txt"; cp _build/build-times.json "$OUT/check/build-times-warm.json"
  pack
  elapsed=$(since $STARTED)
  if python3 -c "import sys; sys.exit(0 if $elapsed + ${COLD_ESTIMATE:-150} < ${ALL_BUDGET:-540} else 1)"; then
    cold_build cold-2
    python3 scripts/compare_verdicts.py /tmp/results-cold-1 /tmp/results-cold-2 > "$OUT/check/verdicts.txt" 2>&1; rc=$?
    log "verdicts of the two cold builds: rc=$rc ($(tail -1 "$OUT/check/verdicts.txt"))"
  else
    log "no second cold build: $elapsed s spent, ${ALL_BUDGET:-540} s budget"
  fi
  if [ -n "${EXTRA_CMD:-}" ]; then
    mkdir -p "$OUT/check/extra"; t0=$(date +%s.%N)
    (export OUT="$OUT/check/extra"; bash -c "$EXTRA_CMD") > "$OUT/check/extra.log" 2>&1
    log "extra rc=$? took $(since $t0) s"
  fi
  log "STAGE=all took $(since $STARTED) s"
  cp "$OUT/summary.txt" "$OUT/check/"; pack; rm -rf "$OUT/check"
  tail -30 "$OUT/summary.txt"
  exit 0
fi

if [ "$STAGE" = tests ]; then
  log "gpu tests"
  t0=$(date +%s.%N)
  python3 -m pytest -m gpu -q -s -p no:cacheprovider ${GPU_TESTS:-$GPU_TEST_FILES} > "$OUT/gpu-tests.log" 2>&1
  log "gpu tests took $(since $t0) s: $(tail -1 "$OUT/gpu-tests.log")"
  log "attnprof compare (README's shape)"
  attnprof compare --shape 8,16,1024,64 --dtype bf16 > "$OUT/compare.txt" 2>&1; log "compare rc=$?"
  attnprof compare --workload decode --device cuda > "$OUT/compare-decode.txt" 2>&1; log "compare decode rc=$?"
  tail -60 "$OUT/gpu-tests.log"
  cat "$OUT/compare.txt" "$OUT/summary.txt"
  exit 0
fi

if [ "$STAGE" = bundles ]; then
  # BUILD_TIMEOUT / REBUILD_TIMEOUT (s, 0 = none) stop a build in time for what was measured to be packed
  mkdir -p /tmp/no-bundles && rm -rf _build docs/auto_examples
  t0=$(date +%s.%N)
  ATTNPROF_BUNDLES_DIR=/tmp/no-bundles timeout "${BUILD_TIMEOUT:-0}" python3 -m nox --no-venv -s docs \
    > "$OUT/logs/docs-no-bundles.log" 2>&1
  log "cold build without bundles rc=$? took $(since $t0) s; $(grep -c WARNING "$OUT/logs/docs-no-bundles.log") warnings"
  build_report cold "$OUT/logs/docs-no-bundles.log"
  tar czf "$OUT/results.tar.gz" -C _build results
  rm -rf /tmp/site-without && cp -r _build/html /tmp/site-without
  python3 -m attnprof bundle create --from _build/results --out "$OUT/h200.tar.gz" --no-traces 2>&1 | tee -a "$OUT/summary.txt"
  python3 -m attnprof bundle show "$OUT/h200.tar.gz" >> "$OUT/summary.txt" 2>&1
  t0=$(date +%s.%N)
  timeout "${REBUILD_TIMEOUT:-0}" python3 -m nox --no-venv -s docs > "$OUT/logs/docs-with-bundles.log" 2>&1
  log "rebuild with docs/bundles rc=$? took $(since $t0) s; $(grep -c 'bundle left out' "$OUT/logs/docs-with-bundles.log") left out"
  build_report with-bundles "$OUT/logs/docs-with-bundles.log"
  python3 scripts/compare_sites.py /tmp/site-without _build/html --skip cross-gpu.html --skip parallel.html \
    --drop-class attnprof-elsewhere > "$OUT/compare-bundles.txt" 2>&1
  log "own pages with and without bundles: rc=$? ($(tail -1 "$OUT/compare-bundles.txt"))"
  tar czf "$OUT/site-with-bundles.tar.gz" -C _build html
  tar czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
  cat "$OUT/summary.txt"
  exit 0
fi

for n in $(seq 1 "${COLD_BUILDS:-2}"); do
  rm -rf _build docs/auto_examples
  log "cold docs build $n"
  t0=$(date +%s.%N)
  python3 -m nox --no-venv -s docs > "$OUT/logs/docs-cold-$n.log" 2>&1; rc=$?
  log "cold build $n rc=$rc took $(since $t0) s; $(grep -c WARNING "$OUT/logs/docs-cold-$n.log") warnings"
  build_report "cold-$n" "$OUT/logs/docs-cold-$n.log"
  rm -rf "/tmp/results-$n"; mkdir -p "/tmp/results-$n"
  cp _build/results/*.json "/tmp/results-$n/" 2>/dev/null
  if [ "$n" = 1 ]; then
    tar czf "$OUT/site.tar.gz" -C _build html
    tar czf "$OUT/results.tar.gz" -C _build results
    log "site size: $(du -sh _build/html | cut -f1); packed"
  fi
done
if [ "${COLD_BUILDS:-2}" -ge 2 ]; then
  python3 scripts/compare_verdicts.py /tmp/results-1 /tmp/results-2 > "$OUT/verdicts.txt" 2>&1; rc=$?
  log "verdicts of the two cold builds: rc=$rc ($(tail -1 "$OUT/verdicts.txt"))"
fi
if [ "${SKIP_EXTRAS:-0}" = 1 ]; then cat "$OUT/verdicts.txt" "$OUT/summary.txt"; exit 0; fi
t0=$(date +%s.%N)
python3 -m nox --no-venv -s docs > "$OUT/logs/docs-warm.log" 2>&1; rc=$?
log "no-change rebuild rc=$rc took $(since $t0) s"
build_report warm "$OUT/logs/docs-warm.log"

log "downloaded Japanese gallery script, plain python"
script=$(ls _build/html/ja/_downloads/*/02-naive-inplace.py | head -1)
(cd /tmp && ATTNPROF_LANGUAGE=ja ATTNPROF_RESULTS_DIR=/tmp/standalone python3 "$OLDPWD/$script") > "$OUT/logs/standalone-ja.log" 2>&1
log "standalone rc=$? ($script)"
log "context parallelism on one GPU only"
(cd /tmp && CUDA_VISIBLE_DEVICES=0 ATTNPROF_RESULTS_DIR=/tmp/one-gpu MPLBACKEND=agg \
  python3 "$OLDPWD/examples/14-context-parallel.py") > "$OUT/logs/one-gpu-14.log" 2>&1
log "one-GPU run rc=$?"
cp /tmp/one-gpu/parallel__*.json "$OUT/logs/" 2>/dev/null
[ -f "$OUT/verdicts.txt" ] && cat "$OUT/verdicts.txt"
head -40 "$OUT/logs/standalone-ja.log"
tar czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
cat "$OUT/summary.txt"
