#!/usr/bin/env bash
# One call on the offline GPU builder: install the carried docs toolchain, run the GPU tests, build the site cold
# twice (the repeatability gate: every claim's verdict must be the same in both builds), rebuild unchanged, run a
# downloaded gallery script and the CLI, and leave everything worth reading in $OUT.
# Usage there:  bash scripts/gpu_build.sh   (needs .whl/ carried, $OUT set by the device tool)
# GPU_TESTS=tests/test_gpu.py narrows the GPU test selection; SKIP_GPU_TESTS=1 and SKIP_COMPARE=1 skip steps;
# COLD_BUILDS=1 builds cold once (no verdict comparison), COLD_BUILDS=0 builds nothing (a GPU-tests-only call).
# Each cold build's results stay in $OUT/results-<n>; $OUT/verdicts.txt is scripts/compare_verdicts.py's report
# on the first two (figures and intervals per claim).
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
since() { python3 -c "import time; print(round(time.time() - $1, 1))"; }
log() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }
python3 -m pip install -q --no-index --find-links .whl sphinx==9.0.4 'docutils<0.23' myst-nb==1.4.0 \
  sphinx-gallery==0.22.1 furo==2025.12.19 nox sphinx-copybutton sphinx-intl matplotlib-fontja 2>&1 | grep -v "^WARNING: Location" | tail -3
python3 -m pip install -q --no-build-isolation --no-deps -e . 2>&1 | tail -3
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee -a "$OUT/summary.txt"

if [ "${SKIP_GPU_TESTS:-0}" != 1 ]; then
  log "gpu tests"
  t0=$(date +%s.%N)
  python3 -m pytest -m gpu -q -s -p no:cacheprovider ${GPU_TESTS:-tests} 2>&1 | tail -40 > "$OUT/gpu-tests.log"
  log "gpu tests took $(since $t0) s: $(tail -1 "$OUT/gpu-tests.log")"
fi

for n in $(seq 1 "${COLD_BUILDS:-2}"); do
  rm -rf _build docs/auto_examples
  log "cold docs build $n"
  t0=$(date +%s.%N)
  python3 -m nox --no-venv -s docs > "$OUT/docs-cold-$n.log" 2>&1; rc=$?
  log "cold build $n rc=$rc took $(since $t0) s"
  rm -rf "$OUT/results-$n"; mkdir -p "$OUT/results-$n"
  cp _build/results/*.json _build/results/*.trace.json.gz "$OUT/results-$n/" 2>/dev/null
done
if [ "${COLD_BUILDS:-2}" -ge 2 ]; then
  python3 scripts/compare_verdicts.py "$OUT/results-1" "$OUT/results-2" > "$OUT/verdicts.txt" 2>&1; rc=$?
  log "verdicts of the two cold builds: rc=$rc ($(tail -1 "$OUT/verdicts.txt"))"
fi
if [ "${COLD_BUILDS:-2}" -lt 1 ]; then cat "$OUT/summary.txt"; exit 0; fi
t0=$(date +%s.%N)
python3 -m nox --no-venv -s docs > "$OUT/docs-warm.log" 2>&1; rc=$?
log "no-change rebuild rc=$rc took $(since $t0) s"
log "site size: $(du -sh _build/html | cut -f1) ($(du -sb _build/html | cut -f1) bytes)"
tar czf "$OUT/site.tar.gz" -C _build html
tar czf "$OUT/results.tar.gz" -C _build results

log "downloaded gallery script, plain python"
script=$(ls _build/html/en/_downloads/*/01-naive.py | head -1)
(cd /tmp && python3 "$OLDPWD/$script") > "$OUT/standalone.log" 2>&1; log "standalone rc=$? ($script)"
if [ "${SKIP_COMPARE:-0}" != 1 ]; then
  log "attnprof compare"
  attnprof compare --shape 8,16,1024,64 --dtype bf16 > "$OUT/compare.txt" 2>&1; log "compare rc=$?"
  cat "$OUT/compare.txt"
fi
[ -f "$OUT/verdicts.txt" ] && cat "$OUT/verdicts.txt"
cat "$OUT/summary.txt"
