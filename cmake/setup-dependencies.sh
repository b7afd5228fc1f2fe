#!/usr/bin/env bash
# Installs what libroofline needs to build and test, when it is missing and apt-get can install it.
# Safe to run again: does nothing when everything is there. The CUDA toolkit (13, with CUPTI) is
# not a Debian package here and must already be installed (e.g. /usr/local/cuda).
set -euo pipefail

# Debian package -> a file or command that shows it is present (however it was installed).
declare -A probes=(
  [cmake]="cmd:cmake" [ninja-build]="cmd:ninja" [g++]="cmd:g++"
  [libspdlog-dev]="inc:spdlog/spdlog.h" [nlohmann-json3-dev]="inc:nlohmann/json.hpp"
  [libcli11-dev]="inc:CLI/CLI.hpp" [libzstd-dev]="inc:zstd.h" [libgtest-dev]="inc:gtest/gtest.h"
  [libeigen3-dev]="inc:eigen3/Eigen/Dense"
)
present() {
  case "$1" in
    cmd:*) command -v "${1#cmd:}" >/dev/null 2>&1 ;;
    inc:*) for dir in /usr/include /usr/local/include; do [ -e "$dir/${1#inc:}" ] && return 0; done
           return 1 ;;
  esac
}
missing=()
for p in "${!probes[@]}"; do
  present "${probes[$p]}" || missing+=("$p")
done
if ((${#missing[@]})); then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}"
    if ! { timeout 600 apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/dev/null; then
      echo "setup: warning: could not install ${missing[*]}; CMake will say what is still missing" >&2
    fi
  else
    echo "setup: warning: missing ${missing[*]} (run as root with apt-get, or install them yourself)" >&2
  fi
fi

if ! command -v nvcc >/dev/null 2>&1; then
  for dir in /usr/local/cuda/bin /usr/local/cuda-13.0/bin; do
    if [ -x "$dir/nvcc" ]; then export PATH="$dir:$PATH"; break; fi
  done
fi
if ! command -v nvcc >/dev/null 2>&1; then
  echo "setup: error: nvcc not found. libroofline needs the CUDA toolkit (13.x, with CUPTI):" \
       "install it and put its bin/ on PATH." >&2
  exit 1
fi
