#!/usr/bin/env bash
# bench/slim-build.sh FULL SLIM — a copy of a build folder without objects and archives and with
# stripped executables, small enough to send to the GPU machine (ctest and the binaries only).
set -eu
full=$1 slim=$2
rm -rf "$slim"
mkdir -p "$slim"
slim=$(cd "$slim" && pwd)
(cd "$full" && find . -type f ! -name '*.o' ! -name '*.a' ! -name '*.d' -print0 | xargs -0 cp --parents -t "$slim")
find "$slim" -type f -perm -u+x -exec sh -c 'file -b "$1" | grep -q ELF && strip --strip-debug "$1"' _ {} \;
# libraries the GPU machine lacks (its MPI + HDF5 come from .devdeps): bench/run-gpu.sh adds lib/
mkdir -p "$slim/lib"
for l in libinih.so.1; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$slim/lib/" 2>/dev/null || true; done
du -sh "$slim"
