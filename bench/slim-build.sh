#!/usr/bin/env bash
# bench/slim-build.sh FULL SLIM — a copy of a build folder without objects and archives and with
# stripped executables, small enough to send to the GPU machine (ctest and the binaries only).
set -eu
full=$1 slim=$2
rm -rf "$slim"
mkdir -p "$slim"
slim=$(cd "$slim" && pwd)
(cd "$full" && find . -type f ! -name '*.o' ! -name '*.a' ! -name '*.d' -print0 | xargs -0 cp --parents -t "$slim")
# configure-time probes (compiler ids, the HDF5 check program) are not needed to run
rm -rf "$slim"/CMakeFiles/3.* "$slim"/CMakeFiles/hdf5 "$slim"/Testing
# ctest files name the full build's folder: point them at the slim copy
full_abs=$(cd "$full" && pwd)
find "$slim" -name CTestTestfile.cmake -exec sed -i "s#$full_abs/#$slim/#g" {} +
find "$slim" -type f -perm -u+x -exec sh -c 'file -b "$1" | grep -q ELF && strip --strip-debug "$1"' _ {} \;
# libraries the GPU machine lacks (its MPI + HDF5 come from .devdeps): bench/run-gpu.sh adds lib/
mkdir -p "$slim/lib"
for l in libinih.so.1; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$slim/lib/" 2>/dev/null || true; done
du -sh "$slim"
