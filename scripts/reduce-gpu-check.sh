#!/usr/bin/env bash
# The reduction study's GPU proof in one call (what one `run` on the lent GPU executes):
#   scripts/reduce-gpu-check.sh OUTDIR
# builds the CLI and the GPU tests, runs the *Reduce* GPU tests, the reduce benchmark (JSON +
# Markdown + text), compute-sanitizer memcheck / racecheck / synccheck on the *Reduce* tests at
# --small sizes, dumps the SASS of the single-pass kernels, plots the sweep, and prints a summary
# last. At most 8 files land in OUTDIR. Exits non-zero if a step failed, after running the rest.
set -uo pipefail
out="${1:?usage: scripts/reduce-gpu-check.sh OUTDIR}"
mkdir -p "$out"
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-/tmp/ladder-reduce-build}
status=0
log="$out/tests.log"
fail() { echo "!! FAILED: $*" | tee -a "$log"; status=1; }

prefix=()
[ -d "$src/.carry/usr" ] && prefix=(-DCMAKE_PREFIX_PATH="$src/.carry/usr")
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv; nvcc --version | tail -1; } >"$log" 2>&1
echo "== build $(date -u +%T)" | tee -a "$log"
if ! { cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLADDER_PTXAS_VERBOSE=ON "${prefix[@]}" &&
       cmake --build "$build" -j "$(nproc)" --target ladder_exe ladder_gpu_tests; } >"$out/build.log" 2>&1; then
  tail -30 "$out/build.log"; echo "build failed"; exit 1
fi

echo "== gpu tests $(date -u +%T)" | tee -a "$log"
"$build/tests/ladder_gpu_tests" --gtest_filter='*Reduce*' >>"$log" 2>&1 || fail "gpu tests"
grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|tests? ran|Failure" "$log" | tail -12

echo "== ladder run reduce $(date -u +%T)" | tee -a "$log"
"$build/ladder" run reduce --json "$out/reduce.json" --markdown "$out/reduce.md" >"$out/tables.txt" 2>>"$log" || fail "ladder run reduce"

echo "== compute-sanitizer $(date -u +%T)" | tee -a "$log"
for tool in memcheck racecheck synccheck; do
  echo "--- $tool" >>"$out/sanitizer.log"
  timeout 100 compute-sanitizer --tool "$tool" --error-exitcode 99 "$build/tests/ladder_gpu_tests" --small \
    --gtest_filter='*Reduce*' --gtest_brief=1 >>"$out/sanitizer.log" 2>&1 || fail "compute-sanitizer $tool (exit $?)"
  echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests? ran|PASSED|FAILED' "$out/sanitizer.log" | tail -3 | tr '\n' ' ')" | tee -a "$log"
done

echo "== sass $(date -u +%T)" | tee -a "$log"
for obj in "$build/CMakeFiles/ladder.dir/src/reduce/api.cu.o" "$build/CMakeFiles/ladder_lab.dir/src/reduce/variants.cu.o"; do
  cuobjdump --dump-sass "$obj" 2>/dev/null | awk '/Function : /{f=$3} {print f "\t" $0}' |
    grep -E "tiled_reduce_kernelIfNS0_3SumIfEE" >>"$out/sass.txt"
done
awk -F'\t' '{n[$1]++} /LDG/{l[$1]++} /LDG.E.128/{w[$1]++} END{for (f in n) printf "%s  instr=%d LDG=%d LDG.128=%d\n", f, n[f], l[f], w[f]}' "$out/sass.txt" | tee -a "$log"

python3 "$src/scripts/plot_sweep.py" "$out/reduce.json" "$out/sweep.png" >>"$log" 2>&1 || fail "plot"

echo "== summary $(date -u +%T)"
python3 - "$out/reduce.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print("device:", doc["device"]["name"], "| measured copy peak %.0f GB/s" % doc["measured_peak_gbs"])
for t in doc["tables"]:
    if "sweep" in t["title"]:
        continue
    print("--", t["title"], "|", " / ".join(t["groups"]))
    ref = [r for r in t["rows"] if r["reference"]]
    for r in t["rows"]:
        cells = []
        for g in r["timings"]:
            if g["median_ms"] is None:
                cells.append("-")
            else:
                vs = g["vs_reference"][0] if g["vs_reference"] else None
                cells.append("%.4f ms %.0f GB/s%s" % (g["median_ms"], g["bandwidth_gbs"], " x%.3f" % vs if vs else ""))
        print("  %-24s %-6s %s" % (r["name"][:24], r["check"], " | ".join(cells)))
last = [t for t in doc["tables"] if "sweep" in t["title"]]
if last:
    for f in last[-1]["footnotes"]:
        print(" ", f)
PY
echo "== done status=$status $(date -u +%T)"
exit $status
