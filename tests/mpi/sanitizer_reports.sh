#!/bin/sh
# tests/mpi/sanitizer_reports.sh DIR — the sanitized tree's last test (ctest fixture cleanup of
# gp_san): ASan/LSan/UBSan write a file DIR/{asan,ubsan}.PID for every report of any process of
# any test (ASAN_OPTIONS/UBSAN_OPTIONS log_path, tests/CMakeLists.txt). No file: pass. Else print
# them and fail, also when the test whose gpipe produced one passed (an expected failure, a
# killed rank) — `sanitizer_reports_clear` empties DIR before the first test.
dir=$1
[ -d "$dir" ] || { echo "sanitizer_reports: $dir missing (sanitizer_reports_clear did not run)"; exit 1; }
# LeakSanitizer's exit-time tracer crashing ("LeakSanitizer has encountered a fatal error", no
# ERROR/SUMMARY line) is the tool failing, not a finding: such files are listed and set aside
# (the run that wrote one exited 86 and was failed or re-run by tests/mpi/gpcommon.py)
for f in "$dir"/*; do
  [ -f "$f" ] || continue
  if grep -q "LeakSanitizer has encountered a fatal error" "$f" && ! grep -q -e "ERROR:" -e "SUMMARY:" "$f"; then
    echo "sanitizer_reports: $f: LeakSanitizer's tracer crashed (no finding), set aside"
    mkdir -p "$dir.tool-crashes" && mv "$f" "$dir.tool-crashes/"
  fi
done
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
