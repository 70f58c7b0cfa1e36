#!/usr/bin/env bash
# The GPU proof, from a clean checkout:
#   scripts/gpu-check.sh OUTDIR [ladder run options...]
# configures and builds in a fresh directory (ptxas resource report kept), runs every test (the
# host suite through CTest, then the GPU suite), runs the GPU suite again under compute-sanitizer
# (memcheck, racecheck, synccheck) at small sizes, runs `ladder run` with JSON/Markdown/CSV,
# `ladder list --resources`, the outside benchmark (bench/outside, built against the installed
# package), and dumps the SASS of the library's transpose, reduce and scan kernels; everything
# lands in OUTDIR (8 files: run.log, build.log, tests.log, sanitizer.log, results.json,
# results.md, resources.txt, sass.txt; CSV and resource JSON go to OUTDIR/extra/ when
# LADDER_CHECK_EXTRA=1). Exits non-zero if any step failed, after running the rest.
# LADDER_CHECK_STEPS picks steps (default "tests sanitizer run"; "sanitizer" means memcheck,
# racecheck and synccheck, which can also be named one by one): split a long check over two calls
# of a time-limited machine, e.g. "tests memcheck synccheck" then "racecheck run", with
# LADDER_CHECK_BUILD=/tmp/some-dir so that the second call reuses the first one's build.
set -uo pipefail

out="${1:?usage: scripts/gpu-check.sh OUTDIR [ladder run options...]}"
shift
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
build="${LADDER_CHECK_BUILD:-$(mktemp -d /tmp/ladder-gpu-check.XXXXXX)/build}"
status=0
steps="${LADDER_CHECK_STEPS:-tests sanitizer run}"
has_step() { [[ " $steps " == *" $1 "* ]]; }
extra=/tmp/ladder-check-extra
[[ "${LADDER_CHECK_EXTRA:-0}" == 1 ]] && extra="$out/extra"
mkdir -p "$extra"
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

if has_step tests; then
  step "host tests (ctest -L host)"
  ctest --test-dir "$build" -L host --output-on-failure -j 4 >"$out/tests.log" 2>&1 || fail "host tests"
  tail -4 "$out/tests.log" | tee -a "$out/run.log"
  step "GPU tests (ladder_gpu_tests, the suite CTest runs as gpu_tests)"
  "$build/tests/ladder_gpu_tests" --gtest_brief=1 >>"$out/tests.log" 2>&1 || fail "gpu tests"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|tests? ran|^\[ occupancy \]" "$out/tests.log" | tail -8 |
    tee -a "$out/run.log"
fi

# A tool runs the suite one test suite (gtest prefix) at a time, each under its own time limit
# (LADDER_CHECK_SUITE_TIMEOUT, default 240 s; a whole-suite run LADDER_CHECK_TOOL_TIMEOUT, 500 s): racecheck instruments every shared-memory access and
# is slow on the tiled kernels, and a suite that runs out of time must not cost the others their
# verdict. The log names every suite with its verdict.
suites=$("$build/tests/ladder_gpu_tests" --gtest_list_tests 2>/dev/null |
         awk '/^[A-Za-z0-9_\/]+\.$/{sub(/\.$/, ""); print}' | sort -u)
for tool in memcheck racecheck synccheck; do
  has_step sanitizer || has_step "$tool" || continue
  step "compute-sanitizer --tool $tool (small sizes, one test suite at a time)"
  echo "--- $tool" >>"$out/sanitizer.log"
  clean=0 dirty=0 slow=0
  # Tools named in LADDER_CHECK_SPLIT_TOOLS (default racecheck) run suite by suite; the others run
  # the whole suite in one process (cheaper: one sanitizer start).
  tool_suites=$suites
  [[ " ${LADDER_CHECK_SPLIT_TOOLS:-racecheck} " == *" $tool "* ]] || tool_suites=ALL
  for suite in $tool_suites; do
    limit=${LADDER_CHECK_SUITE_TIMEOUT:-240}
    filter="$suite.*"
    [[ "$suite" == ALL ]] && { limit=${LADDER_CHECK_TOOL_TIMEOUT:-500}; filter="*"; }
    timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 99 \
      "$build/tests/ladder_gpu_tests" --small --gtest_brief=1 --gtest_filter="$filter" \
      >/tmp/ladder-sanitizer-suite.log 2>&1
    rc=$?
    verdict=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" /tmp/ladder-sanitizer-suite.log | tail -1)
    case $rc in
      0) clean=$((clean + 1)) ;;
      124|137) slow=$((slow + 1)); verdict="ran past $limit s: no verdict" ;;
      *) dirty=$((dirty + 1)); cat /tmp/ladder-sanitizer-suite.log >>"$out/sanitizer.log" ;;
    esac
    echo "$tool $suite: rc $rc ${verdict:-}" >>"$out/sanitizer.log"
  done
  echo "$tool: $clean suites clean, $dirty with errors or failures, $slow without a verdict (time limit)" |
    tee -a "$out/run.log"
  ((dirty + slow == 0)) || fail "compute-sanitizer $tool"
done

if has_step run; then
  step "ladder run $*"
  # LADDER_CHECK_RUN_TIMEOUT (seconds) turns a hang into a failure on a time-limited machine.
  # Every study by name, those `ladder run` leaves out by default (not yet proven on a GPU) too.
  # LADDER_CHECK_STUDIES names a subset (a long run split over calls of a time-limited machine).
  studies=${LADDER_CHECK_STUDIES:-$("$build/ladder" list | awk '/^[a-z0-9]+: /{sub(":", "", $1); print $1}' | tr '\n' ' ')}
  timeout "${LADDER_CHECK_RUN_TIMEOUT:-0}" "$build/ladder" run $studies --json "$out/results.json" \
    --markdown "$out/results.md" --csv "$extra/results.csv" --report "$extra/report.html" "$@" \
    2>"$extra/progress.log" | tee -a "$out/run.log" || fail "ladder run"
  step "outside program: each library call beside its vendor, built against the installed package"
  prefix="$(dirname "$build")/prefix"
  if cmake --install "$build" --prefix "$prefix" >>"$out/build.log" 2>&1 &&
     cmake -S "$src/bench/outside" -B "$(dirname "$build")/outside" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
       ${CUDA_ARCHITECTURES:+-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCHITECTURES} >>"$out/build.log" 2>&1 &&
     cmake --build "$(dirname "$build")/outside" >>"$out/build.log" 2>&1; then
    "$(dirname "$build")/outside/outside_benchmark" 2>&1 | tee -a "$out/run.log" || fail "outside benchmark"
  else
    fail "building the outside benchmark against the installed package (see build.log)"
  fi
  step "ladder info (the peaks that bound the studies)"
  "$build/ladder" info 2>&1 | tee -a "$out/run.log" || fail "ladder info"
  step "ladder list --resources (occupancy model beside the CUDA occupancy API)"
  "$build/ladder" list --resources --json "$extra/resources.json" >"$out/resources.txt" \
    2>>"$out/run.log" || fail "ladder list --resources (exit $?)"
  grep -E "^Agreement|agree on|DISAGREE|^  error" "$out/resources.txt" | tee -a "$out/run.log"
  step "SASS of the library kernels"
  # ladder::gemm's huge tile for A and B untransposed with 16-byte loads: computed as its
  # transpose (launch_huge_swapped_untransposed) on HugeAsync3SerpentineFragments8 (256 x 128,
  # cp.async in 3 stages, edge masks, fragments read after row 8, serpentine rows). The mangled
  # name's policy, then the layout flags <A k-contiguous 0, B k-contiguous 1, 16-byte loads 1,
  # C transposed 1>; a policy that gains a parameter changes it (check with cuobjdump).
  library_gemm='gemm_kernel.*PolicyILi256ELi128ELi8ELi4ELi2ELi16ELi8ELi3ELb1ELi1ELb0ELb1ELb0ELi8ELb1ELb0EEELb0ELb1ELb1ELb1E'
  cuobjdump --dump-sass "$build/libladder.a" 2>/dev/null |
    awk -v gemm="$library_gemm" '/Function : /{keep = /transpose_kernel|reduce_ahead_scan_kernel|tiled_reduce_kernelIiNS0_3SumIiEE/ || $0 ~ gemm} keep' |
    head -60000 >"$out/sass.txt" || true
  awk '/Function : /{keep = /reduce_ahead_scan_kernel/} keep' "$out/sass.txt" >/tmp/ladder-ra-sass.txt
  echo "reduce-ahead scan kernels: $(grep -c UBLKCP /tmp/ladder-ra-sass.txt) bulk copies (UBLKCP)," \
    "$(grep -cE 'STG.E(.EF)?.128' /tmp/ladder-ra-sass.txt) 16-byte stores, $(grep -cE 'LDL|STL' /tmp/ladder-ra-sass.txt)" \
    "local-memory accesses" | tee -a "$out/run.log"
  # The library gemm kernel (untransposed, 16-byte loads, the huge tile): its mix.
  awk -v gemm="$library_gemm" '/Function : /{k = $0 ~ gemm; next} k' "$out/sass.txt" >/tmp/ladder-gemm-sass.txt
  echo "gemm kernel (256x128 huge tile, NN): $(grep -c FFMA /tmp/ladder-gemm-sass.txt) FFMA, $(grep -c 'LDS.128' /tmp/ladder-gemm-sass.txt)" \
    "LDS.128, $(grep -c 'LDS' /tmp/ladder-gemm-sass.txt) LDS in all, $(grep -cE 'LDL|STL' /tmp/ladder-gemm-sass.txt) local-memory accesses," \
    "$(grep -cE '^ +/\*[0-9a-f]{4}\*/' /tmp/ladder-gemm-sass.txt) instructions in all" | tee -a "$out/run.log"
  grep -cE "LDG.E.128|STG.E.128|LDG.E.EF.128|STG.E.EF.128" "$out/sass.txt" |
    sed 's/^/16-byte global accesses in the transpose SASS: /' | tee -a "$out/run.log"
fi

step "done (status $status)"
exit $status
