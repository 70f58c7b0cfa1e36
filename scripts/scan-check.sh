#!/usr/bin/env bash
# The scan study's GPU proof in one call (what scripts/gpu-check.sh does for everything, cut to
# the scan study so it fits a short lease):
#   scripts/scan-check.sh OUTDIR [ladder run options...]
# builds ladder and the GPU tests, runs the scan/compaction GPU tests, runs `ladder run scan`
# (JSON, Markdown, text) and the plot, then the GPU tests at small sizes under compute-sanitizer
# memcheck and racecheck, and prints a summary last. Exits non-zero if any step failed.
set -uo pipefail

out="${1:?usage: scripts/scan-check.sh OUTDIR [ladder run options...]}"
shift
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
build=${SCAN_BUILD_DIR:-/tmp/ladder-scan-build}
status=0
log="$out/run.log"
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$log"; }
fail() { echo "!! FAILED: $*" | tee -a "$log"; status=1; }
filter='*Scan*:*Compact*'

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee -a "$log"

step "configure + build"
prefix=()
[ -d "$src/.carry/usr" ] && prefix=(-DCMAKE_PREFIX_PATH="$src/.carry/usr")
if ! { cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLADDER_PTXAS_VERBOSE=ON "${prefix[@]}" &&
       cmake --build "$build" -j "$(nproc)" --target ladder_exe ladder_gpu_tests; } >"$out/build.log" 2>&1; then
  fail "build"
  grep -E "error|Error" -A3 "$out/build.log" | head -40
  exit 1
fi

step "GPU tests ($filter)"
"$build/tests/ladder_gpu_tests" --gtest_filter="$filter" --gtest_brief=1 >"$out/tests.log" 2>&1 || fail "gpu tests"
grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|Failure|tests? ran" "$out/tests.log" | head -20 | tee -a "$log"

step "ladder run scan $*"
"$build/ladder" run scan --json "$out/scan.json" --markdown "$out/scan.md" "$@" >"$out/scan.txt" 2>>"$log" ||
  fail "ladder run (exit $?)"
python3 "$src/scripts/plot_scan.py" "$out/scan.json" --png "$out/scan_sweep.png" \
  >/dev/null 2>>"$log" || fail "plot"

step "compute-sanitizer (small sizes)"
: >"$out/sanitizer.log"
for tool in memcheck racecheck; do
  echo "--- $tool" >>"$out/sanitizer.log"
  if ! timeout "${SANITIZER_TIMEOUT:-100}" compute-sanitizer --tool "$tool" --error-exitcode 99 \
      "$build/tests/ladder_gpu_tests" --small --gtest_filter="$filter" --gtest_brief=1 >>"$out/sanitizer.log" 2>&1; then
    fail "compute-sanitizer $tool (exit $?)"
  fi
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) \]" "$out/sanitizer.log" | tail -3 | tee -a "$log"
done

step "SASS of the library's scan kernels (16-byte accesses, no local memory)"
cuobjdump --dump-sass "$build/libladder.a" 2>/dev/null |
  awk '/Function : .*reduce_ahead_scan_kernelIiNS0_10AheadShapeILi512ELi8ELi3ELi2ELb0ELi1EEELb0E/{k=1;next} /Function : /{k=0} k' >/tmp/scan_sass.txt
echo "int32 exclusive library kernel (reduce-ahead): $(grep -c 'UBLKCP' /tmp/scan_sass.txt) bulk copies, $(grep -c 'STG.E.128' /tmp/scan_sass.txt) STG.E.128, $(grep -cE 'LDL|STL' /tmp/scan_sass.txt) local accesses" | tee -a "$log"

step "summary"
python3 - "$out/scan.json" <<'EOF' | tee -a "$log"
import json, re, sys
doc = json.load(open(sys.argv[1]))
print("device:", doc["device"]["name"], " measured peak %.0f GB/s" % doc["measured_peak_gbs"])
wrong = [(t["title"], r["name"]) for t in doc["tables"] for r in t["rows"] if r["check"] == "WRONG"]
print("WRONG rows:", wrong or "none")
for t in doc["tables"]:
    m = re.search(r"n = (\d+)", t["title"])
    n = int(m.group(1))
    if n < 1 << 16 and "int32" in t["title"] and "compaction" not in t["title"]:
        continue
    rows = {r["name"]: r["timings"][0] for r in t["rows"] if r["timings"]}
    def gbs(name):
        v = rows.get(name, {}).get("bandwidth_gbs")
        return v
    best = max(((v.get("bandwidth_gbs") or 0, k) for k, v in rows.items() if k.startswith(("lookback", "ladder"))), default=(0, "-"))
    ref = "cub::DeviceSelect::If" if "compaction" in t["title"] else "cub::DeviceScan::ExclusiveSum"
    c = gbs(ref) or 0
    print("%-44s best %-22s %7.0f GB/s  cub %7.0f  x%.2f  memcpy %s" % (t["title"][:44], best[1], best[0], c,
          best[0] / c if c else 0, "%.0f" % gbs("cudaMemcpy") if gbs("cudaMemcpy") else "-"))
EOF
step "done (status $status)"
exit $status
