#!/usr/bin/python3
"""tests/mpi/check_corpus.py — issue 8: the hostile-input corpus of tests/data/mkcorpus.py (truncated
files, wrong signatures, absurd and overflowing dimensions, storage past the end of the file,
unavailable filters, dangling and looping links, unsupported shapes and types, hand-corrupted
bytes of valid files) through gpipe at --np ranks.

For every file, `gpipe transpose` (and, for the files marked cheap and at --np 1 for all of them,
`reduce --op sum` and `stats`) must: exit 2 within --bound seconds, print exactly one stderr line
`gpipe: error: ...` that names the file and matches the case's cause, leave the directory exactly
as it was (no destination, no .NAME.gpipe-tmp, input untouched) and never crash (no signal, no
'Segmentation', no sanitizer report). `gpipe info` must exit 0 or 2 under the same rules (it lists
metadata; a file whose data alone is corrupt may list fine). Cases run a few at a time: a failing
mpirun spends ~2 s idle before it exits."""
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))
import gpcommon as gc  # noqa: E402
import mkcorpus  # noqa: E402

CRASH = re.compile(r"Segmentation|Sanitizer|runtime error:|core dumped|Signal:|signal \d+ \(|"
                   r"exited on signal|Aborted|MPI_ABORT", re.I)


def extra(ap):
    ap.add_argument("--bound", type=float, default=30.0,
                    help="seconds one failing run may take (default 30)")
    ap.add_argument("--jobs", type=int, default=0,
                    help="cases in flight at once (default 8 // --np, at least 4)")
    ap.add_argument("--all-commands", action="store_true",
                    help="reduce, stats and info for every file at every rank count")


def check_run(r, name, path, cause, bound, allow_ok=False, stdout_ok=False):
    """The error contract for one run; returns a list of problems."""
    problems = []
    if r.timed_out:
        problems.append("did not finish within %.0fs: hang" % r.elapsed)
    elif r.elapsed > bound:
        problems.append("took %.1fs, more than the %.0fs bound" % (r.elapsed, bound))
    if r.rc is not None and r.rc < 0:
        problems.append("killed by signal %d" % -r.rc)
    others = [l for l in gc.gpipe_stderr_lines(r) if not l.startswith("gpipe: error: ")]
    if any(CRASH.search(l) for l in others) or CRASH.search(r.out):
        problems.append("crash or sanitizer report in the output")
    ok_codes = (0, 2) if allow_ok else (2,)
    if r.rc not in ok_codes:
        problems.append("exit code %s, expected %s" % (r.rc, " or ".join(map(str, ok_codes))))
    lines = gc.gpipe_stderr_lines(r)
    if r.rc == 0:
        if lines:
            problems.append("exit 0 but stderr has %d lines" % len(lines))
    else:
        if len(lines) != 1:
            problems.append("stderr has %d lines (after removing mpirun's exit banners), expected one"
                            % len(lines))
        msg = lines[0] if lines else ""
        if not msg.startswith("gpipe: error: "):
            problems.append("the stderr line does not start with 'gpipe: error: '")
        if os.path.basename(path) not in msg:
            problems.append("the message does not name the file %s" % os.path.basename(path))
        if cause and not re.search(cause, msg, re.I):
            problems.append("the message does not state the cause (expected /%s/)" % cause)
        if r.out.strip() and not stdout_ok:
            problems.append("stdout is not empty")
    return problems


class Corpus:
    def __init__(self, suite, args):
        self.suite, self.args = suite, args
        self.local = threading.local()
        self.lock = threading.Lock()
        self.ompi_dirs = []

    def runner(self):
        """One Runner per worker thread, each with its own Open MPI session directory (two
        mpiruns sharing one race on its clean-up)."""
        r = getattr(self.local, "runner", None)
        if r is None:
            r = gc.Runner(self.args)
            d = tempfile.mkdtemp(prefix="gpc-", dir="/tmp")
            r.env["OMPI_MCA_orte_tmpdir_base"] = d
            r.timeout = self.args.bound + 30
            with self.lock:
                self.ompi_dirs.append(d)
            self.local.runner = r
        return r

    def one_case(self, name, cause, cheap):
        """All runs of one corpus file; raises CaseFailure listing every problem."""
        np_ = self.args.np
        d = self.suite.casedir(name)
        path, dset = mkcorpus.make(d, name)
        base = os.path.basename(path)
        sel = ["-d", dset] if dset else []
        runs = [("transpose", ["transpose", base] + sel + ["-o", "out.h5"], False, False)]
        if cheap or np_ == 1 or self.args.all_commands:
            runs += [("reduce", ["reduce", base] + sel + ["--op", "sum"], False, False),
                     ("stats", ["stats", base] + sel, False, False)]
        if cheap or self.args.all_commands:
            runs.append(("transpose-default-output", ["transpose", base] + sel, False, False))
        if np_ == 1 or cheap or self.args.all_commands:
            runs.append(("info", ["info", base], True, True))
        problems = []
        before = gc.snapshot(d)
        runner = self.runner()
        for what, argv, allow_ok, stdout_ok in runs:
            r = runner.run(argv, np_, cwd=d)
            p = check_run(r, name, path, None if what == "info" else cause, self.args.bound,
                          allow_ok, stdout_ok)
            p += ["%s" % m for m in gc.diff_snapshots(before, gc.snapshot(d))]
            if p:
                problems.append("%s: %s\n%s" % (what, "; ".join(p), r.describe()))
                before = gc.snapshot(d)
        gc.check(not problems, "\n".join(problems))

    def run(self):
        cases = [(n, c, ch) for n, _fn, c, ch in mkcorpus.CORPUS if self.suite.selected(n)]
        results = {}

        def work(case):
            n, c, ch = case
            t0 = time.monotonic()
            try:
                self.one_case(n, c, ch)
                return n, None, time.monotonic() - t0
            except gc.CaseFailure as e:
                return n, str(e), time.monotonic() - t0
            except Exception as e:  # a bug in the test or in mkcorpus: still a failure
                import traceback
                return n, "exception in the test: %s\n%s" % (e, traceback.format_exc()), \
                    time.monotonic() - t0

        jobs = self.args.jobs or max(4, 8 // self.args.np)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for n, err, dt in pool.map(work, cases):
                results[n] = err
                if err:
                    self.suite.failed.append(n)
                    print("FAIL %s (%.1fs)\n  %s" % (n, dt, err.replace("\n", "\n  ")), flush=True)
                else:
                    self.suite.passed.append(n)
                    print("PASS %s (%.1fs)" % (n, dt), flush=True)
        for d in self.ompi_dirs:
            shutil.rmtree(d, ignore_errors=True)


def main():
    args = gc.parse_args(__doc__, default_np=1, extra=extra)
    suite = gc.Suite("corpus-np%d" % args.np, args)
    if len(mkcorpus.CORPUS) < 25:
        print("FAIL: the corpus has only %d files" % len(mkcorpus.CORPUS))
        return 1
    Corpus(suite, args).run()
    return suite.finish()


if __name__ == "__main__":
    sys.exit(main())
