#!/usr/bin/env bash
# The GPU proof, from a clean checkout, in one call:
#   scripts/gpu-check.sh OUTDIR [ladder run options...]
# configures and builds in a fresh directory (ptxas resource report kept), runs every test
# (GPU ones included), runs the GPU tests once more under compute-sanitizer (memcheck, racecheck,
# synccheck) at small sizes, runs `ladder run` with JSON/Markdown/CSV, `ladder list --resources`
# (resources.txt/.json: the occupancy model beside the CUDA occupancy API), dumps the SASS of the
# library's transpose kernels, and writes everything to OUTDIR. Exits non-zero if any step failed,
# after running the rest.
set -uo pipefail

out="${1:?usage: scripts/gpu-check.sh OUTDIR [ladder run options...]}"
shift
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=$(mktemp -d /tmp/ladder-gpu-check.XXXXXX)/build
status=0
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$out/run.log"; }
fail() { echo "!! FAILED: $*" | tee -a "$out/run.log"; status=1; }

step "machine"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2; cmake --version | head -1; } >>"$out/run.log" 2>&1

step "configure + build (clean, -Xptxas -v)"
if ! { cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLADDER_PTXAS_VERBOSE=ON \
         ${CUDA_ARCHITECTURES:+-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCHITECTURES} &&
       cmake --build "$build" -j "$(nproc)"; } >"$out/build.log" 2>&1; then
  fail "build (see build.log)"
  tail -40 "$out/build.log"
  exit 1
fi

step "all tests (ctest)"
ctest --test-dir "$build" --output-on-failure -j 4 >"$out/ctest.log" 2>&1 || fail "ctest"
tail -15 "$out/ctest.log" | tee -a "$out/run.log"
# The GPU suite's own summary (one CTest entry holds many GoogleTest cases).
"$build/tests/ladder_gpu_tests" --gtest_brief=1 >>"$out/ctest.log" 2>&1 || fail "gpu tests (direct)"
grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|tests? ran" "$out/ctest.log" | tail -5 | tee -a "$out/run.log"

step "compute-sanitizer (small sizes)"
for tool in memcheck racecheck synccheck; do
  echo "--- $tool" >>"$out/sanitizer.log"
  if ! compute-sanitizer --tool "$tool" --error-exitcode 99 \
      "$build/tests/ladder_gpu_tests" --small --gtest_brief=1 >>"$out/sanitizer.log" 2>&1; then
    fail "compute-sanitizer $tool"
  fi
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/sanitizer.log" | tail -3 | tee -a "$out/run.log"
done

step "ladder run $*"
"$build/ladder" run --json "$out/results.json" --markdown "$out/results.md" --csv "$out/results.csv" "$@" \
  >"$out/tables.txt" 2>>"$out/run.log" || fail "ladder run (exit $?)"
cat "$out/tables.txt"

step "ladder list --resources (occupancy model beside the CUDA occupancy API)"
"$build/ladder" list --resources --json "$out/resources.json" >"$out/resources.txt" 2>>"$out/run.log" ||
  fail "ladder list --resources (exit $?)"
grep -E "^Agreement|DISAGREE|^  error" "$out/resources.txt" | tee -a "$out/run.log"
grep -h "^\[ occupancy \]" "$out/ctest.log" | tee -a "$out/run.log"

step "SASS of the library kernels"
cuobjdump --dump-sass "$build/libladder.a" 2>/dev/null |
  awk '/Function : .*tiled_transpose_kernel/{keep=1} /Function : /{if(!/tiled_transpose_kernel/)keep=0} keep' \
  | head -4000 >"$out/sass.txt" || true
grep -cE "LDG.E.128|STG.E.128" "$out/sass.txt" | sed 's/^/16-byte global accesses in SASS: /' | tee -a "$out/run.log"

step "done (status $status)"
exit $status
