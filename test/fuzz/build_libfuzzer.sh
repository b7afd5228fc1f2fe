#!/usr/bin/env bash
# Builds the fuzz targets as libFuzzer binaries with ASan and UBSan, from the pure C++ sources
# they need (core/ and report/: no CUDA), with clang -- outside CMake, so the CUDA build keeps its
# compiler.   test/fuzz/build_libfuzzer.sh CMAKE_BUILD_DIR OUT_DIR
# Then:  OUT_DIR/recording_fuzz -max_total_time=1200 -rss_limit_mb=2048 CORPUS test/fixtures
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:?usage: build_libfuzzer.sh CMAKE_BUILD_DIR OUT_DIR}" && pwd)"
out="${2:?usage: build_libfuzzer.sh CMAKE_BUILD_DIR OUT_DIR}"
mkdir -p "$out"
cxx="${CXX_FUZZ:-clang++}"
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$root/libroofline" -I"$root/include" -I"$build/include" -DSPDLOG_FMT_EXTERNAL)
sources=()
for f in "$root"/libroofline/core/*.cpp "$root"/libroofline/report/*.cpp; do
  case "$f" in */options.cpp) continue ;; esac
  sources+=("$f")
done
sources+=("$build/libroofline/generated/bundled_ceilings_data.cpp") # configured by CMake
objdir="$out/obj"
mkdir -p "$objdir"
objs=()
for f in "${sources[@]}"; do
  o="$objdir/$(basename "$f" .cpp).o"
  "$cxx" "${flags[@]/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,}" -c "$f" -o "$o" &
  objs+=("$o")
  while (($(jobs -r | wc -l) >= $(nproc))); do wait -n; done
done
wait
for t in recording ceilings; do
  "$cxx" "${flags[@]}" "$root/test/fuzz/${t}_fuzz.cpp" "${objs[@]}" -o "$out/${t}_fuzz" \
    -lspdlog -lfmt -lzstd
done
echo "built $out/recording_fuzz $out/ceilings_fuzz"
