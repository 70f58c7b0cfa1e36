#!/usr/bin/env bash
# The two commands of the README:
#   ./ladder.sh run [ladder run options]   install what is missing, build, run `ladder run`
#   ./ladder.sh test                       install what is missing, build, run all tests
# Missing Debian/Ubuntu packages are installed with apt-get when we are root (or have sudo);
# otherwise they are named exactly and the script stops.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build="${LADDER_BUILD_DIR:-$here/build}"
verb="${1:-}"
[[ $# -gt 0 ]] && shift

usage() {
  echo "usage: ./ladder.sh run [ladder run options...] | ./ladder.sh test" >&2
  exit 2
}
[[ "$verb" == run || "$verb" == test ]] || usage

have_header() { # true when any standard include directory holds $1
  local dir
  local cpath="${CPATH:-}" prefixes="${CMAKE_PREFIX_PATH:-}"
  for dir in /usr/include /usr/local/include ${cpath//:/ } ${prefixes:+${prefixes//:/\/include }/include}; do
    [[ -n "$dir" && -e "$dir/$1" ]] && return 0
  done
  return 1
}

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v g++ >/dev/null || missing+=(g++)
have_header CLI/CLI.hpp || missing+=(libcli11-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_header gtest/gtest.h || missing+=(libgtest-dev)
have_header primesieve.hpp || missing+=(libprimesieve-dev) # optional: the sieve's CPU reference
if [[ "$verb" == test ]]; then
  # The report's browser test: Chromium renders the page, libpng reads its screenshots.
  have_header png.h || missing+=(libpng-dev)
  command -v chromium >/dev/null || command -v chromium-browser >/dev/null || missing+=(chromium)
fi

if ((${#missing[@]})); then
  if command -v apt-get >/dev/null && { [[ $(id -u) == 0 ]] || command -v sudo >/dev/null; }; then
    sudo_cmd=""
    [[ $(id -u) == 0 ]] || sudo_cmd=sudo
    echo "ladder.sh: installing ${missing[*]}" >&2
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
  else
    echo "ladder.sh: missing packages: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

nvcc_bin=$(command -v nvcc || true)
[[ -z "$nvcc_bin" && -x /usr/local/cuda/bin/nvcc ]] && nvcc_bin=/usr/local/cuda/bin/nvcc
if [[ -z "$nvcc_bin" ]]; then
  echo "ladder.sh: the CUDA toolkit (nvcc) was not found; install it from" >&2
  echo "  https://developer.nvidia.com/cuda-downloads (or put its bin/ on PATH)" >&2
  exit 1
fi

# CUDA_ARCHITECTURES picks the GPU target (default 90 = Hopper), e.g. CUDA_ARCHITECTURES=80.
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$nvcc_bin" ${CUDA_ARCHITECTURES:+-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCHITECTURES} >/dev/null
cmake --build "$build" -j "$(nproc)"

case "$verb" in
run) exec "$build/ladder" run "$@" ;;
test) exec ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@" ;;
esac
