#!/bin/sh
# tests/mpi/sanitizer_reports.sh DIR — the sanitized tree's last test (ctest fixture cleanup of
# gp_san): ASan/LSan/UBSan write a file DIR/{asan,ubsan}.PID for every report of any process of
# any test (ASAN_OPTIONS/UBSAN_OPTIONS log_path, tests/CMakeLists.txt). No file: pass. Else print
# them and fail, also when the test whose gpipe produced one passed (an expected failure, a
# killed rank) — `sanitizer_reports_clear` empties DIR before the first test.
dir=$1
[ -d "$dir" ] || { echo "sanitizer_reports: $dir missing (sanitizer_reports_clear did not run)"; exit 1; }
n=$(ls "$dir" | wc -l)
if [ "$n" -eq 0 ]; then
  echo "sanitizer_reports: no ASan/LSan/UBSan report"
  exit 0
fi
echo "sanitizer_reports: $n report file(s) in $dir:"
for f in "$dir"/*; do
  echo "=== $f"
  head -c 20000 "$f"
done
exit 1
