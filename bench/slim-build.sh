#!/usr/bin/env bash
# bench/slim-build.sh FULL SLIM — a copy of a build folder without objects and archives and with
# stripped executables, small enough to send to the GPU machine (ctest and the binaries only).
set -eu
full=$1 slim=$2
rm -rf "$slim"
mkdir -p "$slim"
(cd "$full" && find . -type f ! -name '*.o' ! -name '*.a' ! -name '*.d' -print0) |
  (cd "$full" && xargs -0 cp --parents -t "../$(basename "$slim")")
find "$slim" -type f -perm -u+x -exec sh -c 'file -b "$1" | grep -q ELF && strip --strip-debug "$1"' _ {} \;
du -sh "$slim"
