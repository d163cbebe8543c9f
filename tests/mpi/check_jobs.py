#!/usr/bin/python3
"""tests/mpi/check_jobs.py — `gpipe run` job files (issue 6) end to end at --np ranks:
the example jobs of jobs/ on generated data, every stage against numpy references (standardize
against exact mean/std from fractions, so bit for bit), fused == unfused bit for bit, many
datasets per launch with --continue-on-error / stop at the first failure (finished outputs kept,
no temporary files left), --json status lines, --check touching nothing, and malformed job files
giving one `gpipe: error: FILE:LINE: ...` line and exit 2."""
import fractions
import json
import math
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpcommon as gc  # noqa: E402
from gpcommon import check, np, h5py  # noqa: E402


def extra(ap):
    ap.add_argument("--jobs-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "..", "..", "jobs"))


# ---------------------------------------------------------------------------------------------
# references

def exact_moments(col):
    """mean and population std as gpipe computes them: exact sums, rounded once."""
    xs = [float(v) for v in col if math.isfinite(v)]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    if any(math.isinf(v * v) for v in xs):   # a square beyond f64: std is +Inf
        return float(sum(fractions.Fraction(v) for v in xs) / n), math.inf
    s = sum(fractions.Fraction(v) for v in xs)
    q = sum(fractions.Fraction(v) ** 2 for v in xs)
    mean = float(s) / n
    d = float(n * q - s * s)
    return mean, math.sqrt(max(d, 0.0) / n / n)


def standardize(x):
    """x (f64 or f32 values) -> the affine gpipe applies: x*a + b with a = 1/std, b = -mean*a."""
    x64 = x.astype(np.float64)
    out = np.empty_like(x64)
    for c in range(x.shape[1]):
        mean, sd = exact_moments(x64[:, c])
        if math.isnan(sd):   # no finite value: the column becomes gpipe's canonical NaN
            out[:, c] = np.nan
            continue
        a = 1.0 if sd == 0 else 1.0 / sd
        b = -mean * a
        out[:, c] = x64[:, c] * a + b
    return out


def affine_type(dt):
    return np.float32 if dt == np.float32 else np.float64


def read(path, dset):
    with h5py.File(path, "r") as f:
        return f[dset][...], f[dset].dtype


def same_bits(got, want, what):
    check(got.shape == want.shape, "%s: shape %s, want %s" % (what, got.shape, want.shape))
    check(got.dtype == want.dtype, "%s: dtype %s, want %s" % (what, got.dtype, want.dtype))
    g = np.ascontiguousarray(got).view(np.uint8)
    w = np.ascontiguousarray(want).view(np.uint8)
    if not np.array_equal(g, w):
        es = got.dtype.itemsize   # elements whose bytes differ (NaN != NaN would flag every NaN)
        diff = (g.reshape(-1, es) != w.reshape(-1, es)).any(axis=1).reshape(got.shape)
        bad = np.argwhere(diff)
        i = tuple(bad[0]) if len(bad) else None
        raise gc.CaseFailure("%s: values differ (%d elements), first at %s: got %r want %r" % (
            what, len(bad), i, got[i] if i else None, want[i] if i else None))


def gen(path, shape, dtype, seed, dset="/data", scale=10.0, offset=3.0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * scale + offset
    x = x.astype(dtype)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with h5py.File(path, "a") as f:
        if dset in f:
            del f[dset]
        f.create_dataset(dset, data=x)
    return x


class Ctx:
    def __init__(self, suite, args):
        self.suite, self.np, self.args = suite, args.np, args
        self.jobs = os.path.abspath(args.jobs_dir)

    def run(self, argv, timeout=None):
        return self.suite.runner.run(["run"] + argv, self.np, timeout=timeout)

    def job(self, d, name, text):
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(text)
        return p


def json_lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


# ---------------------------------------------------------------------------------------------
# the example jobs

def case_example_standardize_transpose(c):
    d = c.suite.casedir("ex_std_T")
    shutil.copy(os.path.join(c.jobs, "standardize-transpose.ini"), d)
    xs = {"day1": gen(os.path.join(d, "data/day1.h5"), (61, 24), np.float64, 1),
          "day2": gen(os.path.join(d, "data/day2.h5"), (40, 24), ">f8", 2),
          "day3": gen(os.path.join(d, "data/day3.h5"), (33, 24), np.float32, 3)}
    os.makedirs(os.path.join(d, "out"))
    rep = os.path.join(d, "r.jsonl")
    r = c.run([os.path.join(d, "standardize-transpose.ini"), "--json", rep, "--device", "cpu"])
    gc.expect_ok(r)
    for stem, x in xs.items():
        got, _ = read(os.path.join(d, "out/%s.std.T.h5" % stem), "/data")
        want = standardize(x).astype(np.float32).T
        same_bits(got, want, stem)
    lines = json_lines(rep)
    entries = [l for l in lines if l.get("op") == "job-entry"]
    check([e["status"] for e in entries] == ["ok"] * 3, "statuses: %s" % entries)
    stats = [l for l in lines if l.get("op") == "stats"]
    check(len(stats) == 6, "expected 6 stats lines (input and output of 3 entries), got %d" % len(stats))
    check(abs(stats[1]["mean"]) < 1e-6 and abs(stats[1]["std"] - 1) < 1e-5,
          "standardized output's stats: mean %r std %r" % (stats[1]["mean"], stats[1]["std"]))
    check(lines[-1]["op"] == "job" and lines[-1]["ok"] == 3, "summary: %s" % lines[-1])
    check(not gc.tmp_leftovers(os.path.join(d, "out")), "temporary files left")


def case_example_scale_cast(c):
    d = c.suite.casedir("ex_scale_cast")
    shutil.copy(os.path.join(c.jobs, "scale-cast.ini"), d)
    x1 = gen(os.path.join(d, "data/a.h5"), (50, 24), np.float64, 4)
    x2 = gen(os.path.join(d, "data/b.h5"), (29, 24), np.int32, 5, scale=1000)
    rng = np.random.default_rng(6)
    gain, off = rng.uniform(0.5, 2, 24), rng.standard_normal(24)
    os.makedirs(os.path.join(d, "coef"))
    with h5py.File(os.path.join(d, "coef/columns.h5"), "w") as f:
        f["gain"] = gain
        f["offset"] = off
    os.makedirs(os.path.join(d, "out"))
    rep = os.path.join(d, "r.jsonl")
    r = c.run([os.path.join(d, "scale-cast.ini"), "--json", rep])
    gc.expect_ok(r)
    for stem, x in (("a", x1), ("b", x2)):
        got, _ = read(os.path.join(d, "out/%s.cal.h5" % stem), "/calibrated")
        want = ((x.astype(np.float64) * gain + off) * 0.5 + 0.0).astype(np.float32)
        same_bits(got, want, stem)
        with h5py.File(os.path.join(d, "out/%s.cal.h5" % stem), "r") as f:
            check(f["/calibrated"].chunks == (64 if x.shape[0] >= 64 else x.shape[0], 24),
                  "chunks %s" % (f["/calibrated"].chunks,))
    red = [l for l in json_lines(rep) if l.get("op") == "mean" and l.get("axis") == "cols"]
    check(len(red) == 2, "expected 2 reduce (mean, cols) lines, got %d" % len(red))


def case_example_column_stats(c):
    d = c.suite.casedir("ex_colstats")
    shutil.copy(os.path.join(c.jobs, "column-stats.ini"), d)
    xs = {}
    for i, name in enumerate(["/sensors/t", "/sensors/p", "/other/x"]):
        xs[name] = gen(os.path.join(d, "data/s.h5"), (20 + i, 5), np.float64, 10 + i, dset=name)
    gen(os.path.join(d, "data/s.h5"), (7,), np.float64, 20, dset="/sensors/onedim")
    rep = os.path.join(d, "r.jsonl")
    before = gc.snapshot(d)
    r = c.run([os.path.join(d, "column-stats.ini"), "--json", rep])
    gc.expect_ok(r)
    lines = json_lines(rep)
    entries = [l for l in lines if l.get("op") == "job-entry"]
    check([e["dataset"] for e in entries] == ["/sensors/p", "/sensors/t"], "entries: %s" % entries)
    stats = [l for l in lines if l.get("op") == "stats"]
    check([s["count"] for s in stats] == [21 * 5, 20 * 5], "stats counts: %s" % stats)
    after = gc.snapshot(d)
    after.pop("r.jsonl", None)
    check(not gc.diff_snapshots(before, after), "a read-only job changed files: %s" % gc.diff_snapshots(before, after))


# ---------------------------------------------------------------------------------------------
# stages against numpy, fused vs unfused

CHAIN = """[job]
fuse = %(fuse)s
%(k)s
[read]
file = in.h5
[cast]
to = %(cast)s
[affine]
a = %(a)s
b = -1.25
[standardize]
[scale]
by = 3
%(transpose)s
[write]
file = out-%(tag)s.h5
dataset = /r
"""


def case_fused_unfused(c):
    d = c.suite.casedir("fused")
    x = gen(os.path.join(d, "in.h5"), (57, 13), np.float64, 30, scale=100)
    avec = "[" + ", ".join("%r" % (0.5 + i / 7) for i in range(13)) + "]"
    for transpose in ("", "[transpose]"):
        for cast in ("f32", "i16"):
            outs = []
            for fuse, k in (("yes", "0"), ("no", "0"), ("yes", "4")):
                tag = "%s-%s-%s-%s" % (cast, "T" if transpose else "W", fuse, k)
                kk = "" if k == "0" else "panel_rows = " + k + "\nthreads = 3"
                p = c.job(d, "j-%s.ini" % tag, CHAIN % dict(fuse=fuse, k=kk, cast=cast, a=avec,
                                                         transpose=transpose, tag=tag))
                gc.expect_ok(c.run([p, "-q"]))
                got, _ = read(os.path.join(d, "out-%s.h5" % tag), "/r")
                outs.append((tag, got))
            # numpy: cast (rint for integers), affine, standardize (exact), scale
            if cast == "i16":
                y = np.rint(x).astype(np.int16)
            else:
                y = x.astype(np.float32)
            a = np.array([0.5 + i / 7 for i in range(13)])
            t = affine_type(y.dtype)
            y = (y.astype(np.float64) * a + -1.25).astype(t)
            y = standardize(y).astype(t)
            y = (y.astype(np.float64) * 3 + 0.0).astype(t)
            if transpose:
                y = y.T
            for tag, got in outs:
                same_bits(got, np.ascontiguousarray(y), tag)


def case_stage_types(c):
    """big-endian and integer inputs, cast rounding, scalar-only and vector-only affine."""
    d = c.suite.casedir("types")
    xi = gen(os.path.join(d, "i.h5"), (31, 6), ">i4", 40, scale=1e4)
    p = c.job(d, "j.ini", "[read]\nfile = i.h5\n[affine]\nb = [1, 2, 3, 4, 5, 6.5]\n[cast]\nto = f32\n"
                          "[transpose]\n[write]\nfile = {stem}.out.h5\n")
    gc.expect_ok(c.run([p, "-q"]))
    got, _ = read(os.path.join(d, "i.out.h5"), "/data")
    want = (xi.astype(np.float64) * 1.0 + np.array([1, 2, 3, 4, 5, 6.5])).astype(np.float32).T
    same_bits(got, np.ascontiguousarray(want), "i4be affine b + cast f32, transposed")
    # cast f64 -> u8 rounds half to even; a value out of range fails the entry, leaves no output
    with h5py.File(os.path.join(d, "h.h5"), "w") as f:
        f["data"] = np.array([[0.5, 1.5, 2.5], [254.5, 3.49, 255.4]])
        f["bad"] = np.array([[0.5, 1.5, 2.5], [255.5, 3.49, 7.0]])
    p = c.job(d, "k.ini", "[read]\nfile = h.h5\ndataset = /data\ndataset = /bad\n[cast]\nto = u8\n[write]\n"
                          "file = {stem}.{dsname}.u8.h5\n")
    r = c.run([p, "-q", "--continue-on-error"])
    check(r.rc == 2, "expected exit 2 for the out-of-range entry\n" + r.describe())
    got, _ = read(os.path.join(d, "h.data.u8.h5"), "/data")
    same_bits(got, np.array([[0, 2, 2], [254, 3, 255]], dtype=np.uint8), "cast u8 rounding")
    check(not os.path.exists(os.path.join(d, "h.bad.u8.h5")), "failed entry left an output")
    check(not gc.tmp_leftovers(d), "temporary files left: %s" % gc.tmp_leftovers(d))
    errs = [l for l in gc.gpipe_stderr_lines(r) if l.startswith("gpipe: error:")]
    check(len(errs) == 1 and "out of range" in errs[0] and "1 of 2 entries failed" in errs[0],
          "error line: %s" % errs)


def case_standardize_types(c):
    """standardize's column moments (the column-sum kernels on each panel) for every kind of
    column: integers (i16, u8, i64 beyond 2^32 with squares beyond 2^64); f32 with NaN, +-Inf, a
    constant column, a column without a finite value (NaN out) and a square beyond f32; f64 (the
    squares' rounding errors summed beside them) near 1e150, near 1e-139 and with a square beyond
    f64 (std +Inf), also big-endian. Each against exact fractions, bit for bit, at the run's rank
    count and in 2-row panels (so ranks and panels both split the columns' sums)."""
    d = c.suite.casedir("standardize_types")
    rng = np.random.default_rng(77)
    R = 29
    xs = {
        "i16": rng.integers(-32768, 32768, (R, 7)).astype(np.int16),
        "u8": rng.integers(0, 256, (R, 5)).astype(np.uint8),
        "i64": rng.integers(-(1 << 40), 1 << 40, (R, 3)).astype(np.int64),
    }
    f = (rng.standard_normal((R, 6)) * 1e3 + 5).astype(np.float32)
    f[3, 0], f[11, 0], f[20, 1], f[0, 2] = np.nan, np.inf, -np.inf, np.nan
    f[:, 3] = 2.5            # std 0: a = 1
    f[:, 4] = np.nan         # no finite value: mean and std NaN
    f[5, 5] = 3e38           # a square beyond f32, exact in f64
    xs["f32"] = f
    g = rng.standard_normal((R, 5)) * 1e150
    g[7, 1] = np.inf
    g[9, 2] = 3e200          # its square overflows f64: std +Inf, a = 0
    g[:, 3] = rng.standard_normal(R) * 1e-140 + 1e-139   # squares far below 1, their errors still normal
    xs["f64"] = g
    xs["f64be"] = g.astype(">f8")   # byte-swapped on read: the moments go through the (empty) map
    for name, x in xs.items():
        with h5py.File(os.path.join(d, name + ".h5"), "w") as h:
            h["data"] = x
        for k in ("0", "2"):
            kk = "" if k == "0" else "[job]\npanel_rows = %s\n" % k
            p = c.job(d, "j-%s-%s.ini" % (name, k), kk + "[read]\nfile = %s.h5\n[standardize]\n[write]\n"
                      "file = {stem}.%s.out.h5\n" % (name, k))
            gc.expect_ok(c.run([p, "-q", "-f"]))
            got, _ = read(os.path.join(d, "%s.%s.out.h5" % (name, k)), "/data")
            with np.errstate(invalid="ignore"):
                want = standardize(x).astype(affine_type(x.dtype))
            same_bits(got, want, "%s, panel_rows %s: standardize" % (name, k))


def case_streamed_faults(c):
    """The streamed passes without a transpose (column moments of standardize, map + write, a
    plain copy) over many panels, serial (one buffer) and overlapped (two, a worker thread):
    results against numpy; an injected fault at read, kernel or write on the last rank, and a
    cast that goes out of range in a late panel, each give exit 2, one error line naming the
    input, no output and no temporary file, without a hang."""
    d = c.suite.casedir("streamed_faults")
    x = gen(os.path.join(d, "a.h5"), (97, 13), "<f8", 12)
    p = c.job(d, "j.ini", "[job]\npanel_rows = 3\n[read]\nfile = a.h5\n[standardize]\n[scale]\nby = 2\n"
                          "[cast]\nto = f32\n[write]\nfile = {stem}.out.h5\n")
    cp = c.job(d, "c.ini", "[job]\npanel_rows = 4\n[read]\nfile = a.h5\n[write]\nfile = {stem}.copy.h5\n")
    out, copy = os.path.join(d, "a.out.h5"), os.path.join(d, "a.copy.h5")
    want = (standardize(x) * 2.0).astype(np.float32)
    y = np.full((97, 5), 7.0)
    y[90, 3] = 300.0   # out of u8's range in a late panel of the last rank
    with h5py.File(os.path.join(d, "b.h5"), "w") as f:
        f["data"] = y
    q = c.job(d, "k.ini", "[job]\npanel_rows = 2\n[read]\nfile = b.h5\n[cast]\nto = u8\n[write]\n"
                          "file = {stem}.u8.h5\n")
    base_env = dict(c.suite.runner.env)

    def run(job, mode, fault=None):
        env = dict(base_env, GPIPE_RSTREAM=mode)
        if fault:
            env["GPIPE_FAULT"] = fault
        c.suite.runner.env = env
        try:
            return c.run([job, "-q", "-f"], timeout=120)
        finally:
            c.suite.runner.env = base_env

    def failed(r, what, words):
        check(not r.timed_out, "%s: hung\n%s" % (what, r.describe()))
        check(r.rc == 2, "%s: exit %s, expected 2\n%s" % (what, r.rc, r.describe()))
        errs = [l for l in gc.gpipe_stderr_lines(r) if l.startswith("gpipe: error:")]
        check(len(errs) == 1 and all(w in errs[0] for w in words), "%s: error lines %s" % (what, errs))
        check(not gc.tmp_leftovers(d), "%s: temporary files left: %s" % (what, gc.tmp_leftovers(d)))

    for mode in ("serial", "overlap"):
        gc.expect_ok(run(p, mode))
        got, _ = read(out, "/data")
        same_bits(got, want, "%s: standardize, scale 2, cast f32 in 3-row panels" % mode)
        gc.expect_ok(run(cp, mode))
        got, _ = read(copy, "/data")
        same_bits(got, x, "%s: a copy in 4-row panels" % mode)
        os.remove(out)
        for stage in ("read", "kernel", "write"):
            for panel in (0, 4):
                spec = "%s:%d:%d" % (stage, panel, c.np - 1)
                failed(run(p, mode, spec), "%s %s" % (mode, spec), ["injected fault"])
                check(not os.path.exists(out), "%s %s: a failed entry left its output" % (mode, spec))
        failed(run(q, mode), "%s: out-of-range cast" % mode, ["out of range", "b.h5", "300"])
        check(not os.path.exists(os.path.join(d, "b.u8.h5")), "%s: out-of-range cast left its output" % mode)


# ---------------------------------------------------------------------------------------------
# many datasets, failures

def case_continue_and_stop(c):
    d = c.suite.casedir("many")
    for i in (1, 3):
        gen(os.path.join(d, "in/f%d.h5" % i), (20 + i, 4), np.float64, 50 + i)
    with open(os.path.join(d, "in/f2.h5"), "wb") as f:
        f.write(b"this is not an HDF5 file" * 10)
    os.makedirs(os.path.join(d, "out"))
    p = c.job(d, "j.ini", "[read]\nfile = in/*.h5\n[scale]\nby = 2\n[transpose]\n[write]\nfile = out/{stem}.T.h5\n")
    rep = os.path.join(d, "stop.jsonl")
    r = c.run([p, "--json", rep])
    check(r.rc == 2, "expected exit 2\n" + r.describe())
    st = [l["status"] for l in json_lines(rep) if l.get("op") == "job-entry"]
    check(st == ["ok", "failed", "skipped"], "statuses without --continue-on-error: %s" % st)
    check(os.path.exists(os.path.join(d, "out/f1.T.h5")), "the finished entry's output was lost")
    check(not os.path.exists(os.path.join(d, "out/f3.T.h5")), "a skipped entry wrote an output")
    errs = [l for l in gc.gpipe_stderr_lines(r) if l.startswith("gpipe: error:")]
    check(len(errs) == 1 and "f2.h5" in errs[0], "one error line naming f2.h5: %s" % errs)
    status = [l for l in gc.gpipe_stderr_lines(r) if "[2/3] FAILED" in l]
    check(len(status) == 1, "status line of the failed entry\n" + r.describe())
    rep2 = os.path.join(d, "cont.jsonl")
    r = c.run([p, "--json", rep2, "--continue-on-error", "--force"])
    check(r.rc == 2, "expected exit 2\n" + r.describe())
    st = [l["status"] for l in json_lines(rep2) if l.get("op") == "job-entry"]
    check(st == ["ok", "failed", "ok"], "statuses with --continue-on-error: %s" % st)
    for i in (1, 3):
        got, _ = read(os.path.join(d, "out/f%d.T.h5" % i), "/data")
        x, _ = read(os.path.join(d, "in/f%d.h5" % i), "/data")
        same_bits(got, np.ascontiguousarray((x * 2 + 0.0).T), "f%d" % i)
    check(not gc.tmp_leftovers(os.path.join(d, "out")), "temporary files left")
    # an existing output without --force fails that entry only
    r = c.run([p, "-q", "--continue-on-error"])
    check(r.rc == 2 and "exists" in r.err, "existing outputs must fail without --force\n" + r.describe())


def case_check_touches_nothing(c):
    d = c.suite.casedir("check")
    gen(os.path.join(d, "a.h5"), (10, 3), np.float64, 60)
    gen(os.path.join(d, "b.h5"), (10, 3), np.float64, 61)
    p = c.job(d, "j.ini", "[read]\nfile = *.h5\n[standardize]\n[cast]\nto = f32\n[transpose]\n[write]\n"
                          "file = {stem}.T.h5\n[stats]\n")
    before = gc.snapshot(d)
    r = c.run(["--check", p])
    gc.expect_ok(r)
    check("[standardize+cast]+transpose" in r.out and "a.h5:(the only 2-D dataset) -> " in r.out,
          "plan output\n" + r.describe())
    check(not gc.diff_snapshots(before, gc.snapshot(d)), "--check changed files")


BAD = [
    ("[read]\nfile = a.h5\n[cats]\n", 3, "unknown section [cats]"),
    ("[read]\nfile = a.h5\ncolour = red\n", 3, "unknown key 'colour'"),
    ("[read]\nfile = a.h5\n[cast]\nto = f8\n[write]\nfile = o.h5\n", 4, "to 'f8'"),
    ("[read]\nfile = a.h5\n[transpose]\n[write]\nfile = {sterm}.h5\n", 5, "unknown placeholder"),
    ("[read]\nfile = nothing-*.h5\n", 2, "matches no file"),
    ("[read]\nfile = a.h5\nfile = b.h5\n[write]\nfile = same.h5\n", 4, "would both write"),
    ("[read]\nfile = a.h5\nnonsense\n", 3, "syntax error"),
]


def case_bad_job_files(c):
    d = c.suite.casedir("bad")
    gen(os.path.join(d, "a.h5"), (4, 3), np.float64, 70)
    gen(os.path.join(d, "b.h5"), (4, 3), np.float64, 71)
    for i, (text, line, frag) in enumerate(BAD):
        p = c.job(d, "bad%d.ini" % i, text)
        for extra_args in ([], ["--check"]) if i < 2 else ([],):
            r = c.run(extra_args + [p])
            lines = gc.gpipe_stderr_lines(r)
            want = "gpipe: error: %s:%d: " % (p, line)
            check(r.rc == 2 and len(lines) == 1 and lines[0].startswith(want) and frag in lines[0],
                  "case %d: want rc 2 and one line '%s...%s'\n%s" % (i, want, frag, r.describe()))
    r = c.run([os.path.join(d, "missing.ini")])
    check(r.rc == 2 and "cannot open the job file" in r.err, r.describe())
    r = c.run(["--frob", os.path.join(d, "bad0.ini")])
    check(r.rc == 2 and "unknown option" in r.err, r.describe())


def main():
    args = gc.parse_args("gpipe run (job files) end to end", extra=extra)
    suite = gc.Suite("jobs-np%d" % args.np, args)
    c = Ctx(suite, args)
    suite.case("example_standardize_transpose", case_example_standardize_transpose, c)
    suite.case("standardize_types", case_standardize_types, c)
    suite.case("example_scale_cast", case_example_scale_cast, c)
    suite.case("example_column_stats", case_example_column_stats, c)
    suite.case("fused_vs_unfused_vs_numpy", case_fused_unfused, c)
    suite.case("stage_types_and_cast_errors", case_stage_types, c)
    suite.case("streamed_faults", case_streamed_faults, c)
    suite.case("continue_on_error_and_stop", case_continue_and_stop, c)
    suite.case("check_touches_nothing", case_check_touches_nothing, c)
    suite.case("bad_job_files", case_bad_job_files, c)
    return suite.finish()


if __name__ == "__main__":
    sys.exit(main())
