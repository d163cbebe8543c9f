"""tests/mpi/gpcommon.py — shared plumbing of the MPI integration tests: argument parsing,
running gpipe under mpirun with a timeout (a timeout is a hang = failure), a PASS/FAIL case
runner that keeps going after a failure, and raw (byte-exact) HDF5 helpers on top of h5py.

Needs Debian's python3 with numpy and h5py; a missing module is a loud failure, never a skip."""
import argparse
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

try:
    import numpy as np
    import h5py
    from h5py import h5d, h5p, h5s, h5t
except ImportError as e:  # fail loudly: a skipped integration test hides everything
    sys.stderr.write("FAIL: the MPI integration tests need numpy and h5py (%s); run them with "
                     "Debian's /usr/bin/python3 (apt-get install python3-h5py)\n" % e)
    sys.exit(3)

DEFAULT_TIMEOUT = 60.0


class CaseFailure(Exception):
    """A check inside a case did not hold."""


def check(cond, msg):
    if not cond:
        raise CaseFailure(msg)


# ---------------------------------------------------------------------------------------------
# arguments and environment

def parse_args(description, default_np=1, extra=None):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--gpipe", default=os.environ.get("GP_BIN"),
                    help="path of the gpipe binary (env GP_BIN)")
    ap.add_argument("--np", type=int, default=int(os.environ.get("GP_NP", default_np)),
                    help="MPI ranks (env GP_NP)")
    ap.add_argument("--mpiexec", default=os.environ.get("GP_MPIEXEC", "mpirun"),
                    help="mpirun/mpiexec (env GP_MPIEXEC)")
    ap.add_argument("--workdir", default=os.environ.get("GP_WORKDIR"),
                    help="parent of the temporary directory (default: system temp dir)")
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("GP_TIMEOUT",
                                                                          DEFAULT_TIMEOUT)),
                    help="seconds per gpipe call; a call that takes longer is a hang (failure)")
    ap.add_argument("--only", action="append", default=[],
                    help="run only cases whose name contains this (repeatable)")
    ap.add_argument("--skip", action="append", default=[],
                    help="skip cases whose name contains this (repeatable; after --only)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every command")
    if extra:
        extra(ap)
    args = ap.parse_args()
    if not args.gpipe:
        cand = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build",
                            "gpipe")
        args.gpipe = os.path.normpath(cand)
    args.gpipe = os.path.abspath(args.gpipe)
    if not (os.path.isfile(args.gpipe) and os.access(args.gpipe, os.X_OK)):
        sys.stderr.write("FAIL: gpipe binary not found or not executable: %s\n" % args.gpipe)
        sys.exit(3)
    if args.np < 1:
        sys.stderr.write("FAIL: --np must be >= 1\n")
        sys.exit(3)
    resolved = shutil.which(args.mpiexec)
    if not resolved:
        sys.stderr.write("FAIL: mpiexec not found: %s\n" % args.mpiexec)
        sys.exit(3)
    args.mpiexec = resolved
    return args


def mpi_env():
    env = dict(os.environ)
    # On a machine whose MPI/HDF5 runtime lives in a bundle, Python runs without the bundle's
    # LD_LIBRARY_PATH (its own h5py must not see those libraries) and gpipe gets it back here.
    if env.get("GP_CHILD_LD_LIBRARY_PATH"):
        env["LD_LIBRARY_PATH"] = env["GP_CHILD_LD_LIBRARY_PATH"]
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    # When a rank exits non-zero, mpirun kills the job's other processes with SIGTERM and then,
    # this many seconds later, SIGKILL; it waits that long even when every rank has already
    # exited (~2 s per failing run at 1-2 ranks). gpipe's ranks agree on failure and pass
    # MPI_Finalize (a barrier) before any exits, so nothing of theirs is cut short.
    env.setdefault("OMPI_MCA_odls_base_sigkill_timeout", "0")
    # `make test` runs two test trees side by side on a 2-core machine: a rank waiting in a
    # collective yields the core instead of spinning on it (Open MPI does so by itself only when
    # one job alone has more ranks than cores).
    env.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")
    # One node: shared memory and self only. Open MPI's default selection tries UCX first, and
    # that probe costs each rank ~0.2 s of MPI_Init (0.28 -> 0.08 s at 4 ranks; the tests make
    # thousands of launches). Production runs keep their own selection: this is the tests' env.
    env.setdefault("OMPI_MCA_pml", "ob1")
    env.setdefault("OMPI_MCA_btl", "self,vader")
    # hwloc's PCI and I/O-device discovery (config-space reads of every PCI device, in mpirun and
    # in each rank) was ~18% of a small run's CPU time here; the tests place no rank by device.
    env.setdefault("HWLOC_COMPONENTS", "-pci,-linuxio")
    return env


class Result:
    def __init__(self, cmd, rc, out, err, elapsed, timed_out, cwd):
        self.cmd, self.rc, self.out, self.err = cmd, rc, out, err
        self.elapsed, self.timed_out, self.cwd = elapsed, timed_out, cwd

    def describe(self):
        s = "    $ %s\n" % " ".join(_q(c) for c in self.cmd)
        if self.cwd:
            s += "    (cwd %s)\n" % self.cwd
        s += "    rc=%s%s elapsed=%.1fs\n" % (self.rc, " TIMEOUT (hang)" if self.timed_out else "",
                                            self.elapsed)
        for name, text in (("stdout", self.out), ("stderr", self.err)):
            if text.strip():
                lines = text.rstrip("\n").split("\n")
                # a rank's crash report (Open MPI's handler: the signal and its stack) is shown
                # whole, so a crash seen once under load leaves its backtrace in the CI log
                if len(lines) > 40 and not (name == "stderr" and CRASH_BANNER in text):
                    lines = lines[:20] + ["... (%d lines)" % (len(lines) - 40)] + lines[-20:]
                s += "    %s:\n" % name + "".join("      | %s\n" % l for l in lines)
        if CRASH_BANNER in self.err:
            s += resolve_frames(self.err, self.cwd)
        return s


# Open MPI's SIGSEGV/SIGBUS/SIGFPE/SIGABRT handler (opal_signal) prints this, the signal, the
# failing address and one line per frame: `[host:pid] [ 3] /path/lib.so(+0x1a2b)[0x7f...]` or
# `... /path/lib.so(func+0x1a)[0x7f...]`. The first kind (an offset into the file, which is how
# gpipe's own frames come) is resolved with binutils' addr2line: the function even in an -O2
# binary without debug information, and the file and line where it has them.
CRASH_BANNER = "*** Process received signal ***"
_FRAME = re.compile(r"\[\s*(\d+)\]\s+([^\s(]+)\(\+(0x[0-9a-fA-F]+)\)")


def resolve_frames(text, cwd=None):
    addr2line = shutil.which("addr2line")
    if not addr2line:
        return "    (crash frames not resolved: addr2line not found; apt-get install binutils)\n"
    out = []
    for m in _FRAME.finditer(text):
        n, path, off = m.groups()
        path = os.path.join(cwd or os.getcwd(), path)   # an absolute path stays as it is
        try:
            r = subprocess.run([addr2line, "-f", "-C", "-e", path, off], capture_output=True,
                               text=True, timeout=20)
            where = " ".join(r.stdout.split()) or "?"
        except (OSError, subprocess.SubprocessError) as e:
            where = "? (%s)" % e
        out.append("      frame %s: %s+%s: %s\n" % (n, os.path.basename(path), off, where))
    return "    crash frames (addr2line):\n" + "".join(out) if out else ""


def _q(s):
    s = str(s)
    if s and re.fullmatch(r"[A-Za-z0-9_./=:,+@%-]+", s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"


RUNS = [0, 0.0]   # gpipe runs and their seconds, reported by Suite.finish: where a suite's time goes
_RUNS_LOCK = threading.Lock()


class Runner:
    """Runs gpipe, under mpirun -n np (np=None: directly, as a singleton)."""

    def __init__(self, args):
        self.args = args
        self.gpipe = args.gpipe
        self.mpiexec = args.mpiexec
        self.timeout = args.timeout
        self.verbose = args.verbose
        self.env = mpi_env()

    def command(self, argv, np, launch=()):
        """launch: extra launcher options (e.g. --bind-to none)."""
        argv = [str(a) for a in argv]
        if np is None:
            return [self.gpipe] + argv
        return [self.mpiexec, "--allow-run-as-root", "--oversubscribe"] + list(launch) + ["-n", str(np),
                                                                                       self.gpipe] + argv

    def run(self, argv, np, cwd=None, timeout=None, launch=()):
        r = self._run_once(argv, np, cwd, timeout, launch)
        if r.rc == 1 and not r.timed_out and launcher_race(r.err) and _repeatable(argv):
            # the launcher's race (launcher_race) hides gpipe's own exit status; a command that
            # writes nothing (or overwrites with --force) is run again, once
            sys.stdout.write("  note: Open MPI's launcher reported rank exit with PID 0 (a known race, see "
                             "launcher_race); running the command again\n")
            r = self._run_once(argv, np, cwd, timeout, launch)
        return r

    def _run_once(self, argv, np, cwd, timeout, launch=()):
        cmd = self.command(argv, np, launch)
        timeout = self.timeout if timeout is None else timeout
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                             env=self.env, start_new_session=True)
        timed_out = False
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(p)
            try:
                out, err = p.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                out, err = b"", b"(no output collected after kill)"
        r = Result(cmd, p.returncode, out.decode("utf-8", "replace"),
                   err.decode("utf-8", "replace"), time.monotonic() - t0, timed_out, cwd)
        with _RUNS_LOCK:   # every Runner of the process (check_corpus has one per thread)
            RUNS[0] += 1
            RUNS[1] += r.elapsed
        if self.verbose:
            sys.stdout.write(r.describe())
        return r


def _repeatable(argv):
    """True for gpipe commands that create no file, or that replace their output (--force)."""
    argv = [str(a) for a in argv]
    if not argv:
        return False
    if "--force" in argv or argv[0] in ("verify", "stats", "info"):
        return True
    return argv[0] == "reduce" and not any(a in ("-o", "--output") or a.startswith("--output=") for a in argv)


def _kill_group(p):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


# Open MPI's mpirun prints these banners itself whenever a rank exits with a non-zero status
# (for any program, even one that exits cleanly after MPI_Finalize). They are not gpipe's
# output and are removed before counting gpipe's stderr lines. Every other banner (MPI_ABORT,
# "exiting improperly", a signal) stays and therefore counts as extra output.
_MPIRUN_BENIGN = (
    "Primary job  terminated normally, but 1 process returned",
    "detected that one or more processes exited with non-zero status",  # mpirun or mpiexec
)


# Open MPI 4.x's launcher sometimes loses a rank's exit notification after a clean run and then
# reports "process rank N with PID 0 ... exiting improperly" and exit status 1, though every rank
# called MPI_Finalize (open-mpi/ompi#7833, #9389, #12607; seen here on a loaded 2-core CI run of
# mpi_reduce_np4, 2026-12-02, with the right results printed). A real early exit names the real
# PID. After that banner Runner.run runs a command that writes nothing (or uses --force) once
# more, and expect_ok accepts the exit status 1 of the others; their results are still checked.
def launcher_race(text):
    return bool(re.search(r"mpirun has exited due to process rank \d+ with PID 0 on", text)) and \
        "exiting improperly" in text


def strip_mpirun_banners(text):
    lines = text.split("\n")
    out, i = [], 0
    dash = re.compile(r"^-{20,}$")
    while i < len(lines):
        if dash.match(lines[i]):
            j = i + 1
            while j < len(lines) and not dash.match(lines[j]):
                j += 1
            if j < len(lines):
                block = "\n".join(lines[i + 1:j])
                if any(m in block for m in _MPIRUN_BENIGN) or launcher_race(block):
                    i = j + 1
                    continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


# PMIx's notice that one of its components does not load (the GPU machine's bundled Open MPI
# prints it per rank: "[host:pid] pmix_mca_base_component_repository_open: unable to open ...",
# then indented detail lines): the runtime's, not gpipe's.
_PMIX_NOISE = re.compile(r"^\[[^\]]*\] pmix_mca_base_component_repository_open: ")

# libevent's warning from Open MPI's launcher when it tears down the stdio forwarding of ranks
# that exited with a non-zero status ("[warn] Epoll MOD(1) on fd 24 failed. Old events were 6;
# ... Bad file descriptor"): the event library not shutting down cleanly (open-mpi/ompi#2004,
# #5520, wontfix). Seen once in CI (stop 23, mpi_corpus_np4, no_2d_dataset, two such lines after
# gpipe's one error line). Only this exact shape is dropped; any other "[warn]" still counts.
_LIBEVENT_NOISE = re.compile(r"^\[warn\] Epoll (ADD|MOD|DEL)\(\d+\) on fd \d+ failed\. .*: "
                             r"(Bad file descriptor|Operation not permitted)$")


def gpipe_stderr_lines(r):
    out, noise = [], False
    for l in strip_mpirun_banners(r.err).split("\n"):
        if _PMIX_NOISE.match(l):
            noise = True
            continue
        if _LIBEVENT_NOISE.match(l):
            continue
        if noise and l.startswith((" ", "\t")):
            continue
        noise = False
        if l.strip():
            out.append(l)
    return out


def expect_ok(r, what="gpipe"):
    check(not r.timed_out, "%s did not finish within %.0fs (hang)\n%s" % (what, r.elapsed,
                                                                         r.describe()))
    if r.rc == 1 and launcher_race(r.err) and not r.timed_out:
        sys.stdout.write("  note: %s: Open MPI's launcher reported rank exit with PID 0 (a known race, "
                         "see launcher_race); exit status 1 accepted, the results are checked\n" % what)
        return
    check(r.rc == 0, "%s exited with %s, expected 0\n%s" % (what, r.rc, r.describe()))


# ---------------------------------------------------------------------------------------------
# files

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def snapshot(root):
    """{relative path: sha256 or 'dir' or 'link->target'} of everything under root."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            p = os.path.join(dirpath, d)
            snap[os.path.relpath(p, root)] = "link->" + os.readlink(p) if os.path.islink(p) \
                else "dir"
        for fn in filenames:
            p = os.path.join(dirpath, fn)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                snap[rel] = "link->" + os.readlink(p)
            else:
                snap[rel] = sha256(p)
    return snap


def diff_snapshots(before, after):
    msgs = []
    for k in sorted(set(before) | set(after)):
        if k not in before:
            msgs.append("new file left behind: %s" % k)
        elif k not in after:
            msgs.append("file removed: %s" % k)
        elif before[k] != after[k]:
            msgs.append("file modified: %s" % k)
    return msgs


def tmp_leftovers(directory):
    return [n for n in os.listdir(directory) if ".gpipe-tmp" in n]


# ---------------------------------------------------------------------------------------------
# raw HDF5 helpers (element bytes moved without any conversion)

def void_dtype(size):
    return np.dtype((np.void, size))


def read_raw(dset):
    """The dataset's elements as raw bytes, read with its own file type as memory type."""
    dsid = dset.id if isinstance(dset, h5py.Dataset) else dset
    tid = dsid.get_type()
    shape = dsid.shape
    buf = np.empty(shape, dtype=void_dtype(tid.get_size()))
    if buf.size:
        dsid.read(h5s.ALL, h5s.ALL, buf, mtype=tid)
    return buf


def create_raw(f, path, tid, shape, raw, chunks=None, gzip=None, shuffle=False,
               fletcher32=False, maxshape=None, compact=False, write=True):
    """Create dataset `path` of HDF5 type `tid` and write `raw` (bytes or array of elements)
    unconverted. Intermediate groups are created."""
    parent, name = path.rsplit("/", 1)
    grp = f.require_group(parent) if parent not in ("", "/") else f
    space = h5s.create_simple(tuple(shape), tuple(maxshape) if maxshape else None)
    dcpl = h5p.create(h5p.DATASET_CREATE)
    if compact:
        dcpl.set_layout(h5d.COMPACT)
    if chunks:
        dcpl.set_chunk(tuple(chunks))
        if shuffle:
            dcpl.set_shuffle()
        if gzip is not None:
            dcpl.set_deflate(gzip)
        if fletcher32:
            dcpl.set_fletcher32()
    dsid = h5d.create(grp.id, name.encode(), tid, space, dcpl=dcpl)
    if write:
        arr = np.frombuffer(bytes(raw), dtype=void_dtype(tid.get_size())).reshape(shape).copy()
        if arr.size:
            dsid.write(h5s.ALL, h5s.ALL, arr, mtype=tid)
    return dsid


def first_difference(got, want, shape, esize):
    """Human-readable note on where two raw byte strings differ."""
    if len(got) != len(want):
        return "size %d bytes, expected %d" % (len(got), len(want))
    g = np.frombuffer(got, np.uint8).reshape(-1, esize)
    w = np.frombuffer(want, np.uint8).reshape(-1, esize)
    bad = np.nonzero((g != w).any(axis=1))[0]
    if not len(bad):
        return "identical"
    i = int(bad[0])
    r, c = divmod(i, shape[1])
    offs = sorted(set(np.nonzero((g != w).any(axis=0))[0].tolist()))
    return ("%d of %d elements differ; first at output [%d,%d]: got %s expected %s; "
            "differing byte offsets within elements: %s" %
            (len(bad), g.shape[0], r, c, bytes(g[i]).hex(), bytes(w[i]).hex(), offs))


# ---------------------------------------------------------------------------------------------
# the case runner

class Suite:
    def __init__(self, title, args):
        self.title = title
        self.args = args
        self.passed, self.failed = [], []
        self.t0 = time.monotonic()
        base = args.workdir
        if base:
            os.makedirs(base, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="gpipe-%s-" % title, dir=base)
        self.runner = Runner(args)
        # Open MPI keeps its session directory in /tmp/ompi.<host>.<uid>, shared by every
        # mpirun of the user; one mpirun cleaning it up while another starts makes the latter
        # fail in orte_init ("mkdir ... File exists"). A private, short (unix socket paths)
        # session root per suite keeps concurrent suites and users' own runs apart.
        self.ompi_tmp = None
        if "OMPI_MCA_orte_tmpdir_base" not in os.environ:
            self.ompi_tmp = tempfile.mkdtemp(prefix="gpo-", dir="/tmp")
            self.runner.env["OMPI_MCA_orte_tmpdir_base"] = self.ompi_tmp
        print("== %s: gpipe=%s np=%s mpiexec=%s tmp=%s" % (title, args.gpipe, args.np,
                                                           args.mpiexec, self.tmp), flush=True)

    def selected(self, name):
        return ((not self.args.only or any(s in name for s in self.args.only))
                and not any(s in name for s in getattr(self.args, "skip", [])))

    def casedir(self, name):
        d = os.path.join(self.tmp, re.sub(r"[^A-Za-z0-9_.-]", "_", name))
        os.makedirs(d, exist_ok=True)
        return d

    def case(self, name, fn, *a, **kw):
        if not self.selected(name):
            return
        t0 = time.monotonic()
        try:
            fn(*a, **kw)
        except CaseFailure as e:
            self.failed.append(name)
            print("FAIL %s (%.1fs)\n  %s" % (name, time.monotonic() - t0,
                                             str(e).replace("\n", "\n  ")), flush=True)
        except Exception:
            self.failed.append(name)
            print("FAIL %s (exception in the test)\n  %s" % (
                name, traceback.format_exc().replace("\n", "\n  ")), flush=True)
        else:
            self.passed.append(name)
            print("PASS %s (%.1fs)" % (name, time.monotonic() - t0), flush=True)

    def finish(self):
        if self.ompi_tmp:
            shutil.rmtree(self.ompi_tmp, ignore_errors=True)
        n = len(self.passed) + len(self.failed)
        print("== %s: %d gpipe runs took %.1f s (summed, runs in parallel threads overlap) of the suite's %.1f s" % (
            self.title, RUNS[0], RUNS[1], time.monotonic() - self.t0), flush=True)
        if self.failed:
            print("== %s: %d of %d cases FAILED: %s\n== files kept in %s" % (
                self.title, len(self.failed), n, " ".join(self.failed), self.tmp), flush=True)
            return 1
        print("== %s: all %d cases passed" % (self.title, n), flush=True)
        if n == 0:
            print("== no case selected: that is a failure", flush=True)
            return 1
        if not self.args.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return 0
