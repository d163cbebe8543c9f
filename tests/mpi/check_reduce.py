#!/usr/bin/python3
"""tests/mpi/check_reduce.py — `gpipe reduce`, `gpipe stats` and `gpipe verify` end to end at
--np ranks, against independent references: exact sums from math.fsum / Python integers /
fractions.Fraction (so the expected result is the correctly rounded exact value, bit for bit),
numpy for extrema. Every case is run with several panel sizes (--panel-rows) and must give the
same bits each time — together with the runs at other --np this is the reproducibility check.
Inputs are written with h5py: random odd shapes, i8..u64, f16/f32/f64, big-endian, NaN/Inf,
1xN, Nx1 and empty datasets."""
import fractions
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpcommon as gc  # noqa: E402
from gpcommon import check, np, h5py  # noqa: E402

NAN_BITS = 0x7FF8000000000000
PANELS = [None, "3"]          # default panels vs many small ones (bits must match)


def dbits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def u64bits(v, kind):
    if kind == "f":
        return dbits(v)
    return v & 0xFFFFFFFFFFFFFFFF


class Ctx:
    def __init__(self, suite, np_, device="cpu"):
        self.suite, self.np, self.device = suite, np_, device
        self.run = suite.runner.run

    def gp(self, argv):
        return self.run(argv, self.np)

    def json_of(self, argv):
        r = self.gp(argv + ["--json", "-", "-q"])
        gc.expect_ok(r)
        lines = [l for l in r.out.split("\n") if l.strip()]
        check(len(lines) == 1, "expected one JSON line on stdout\n" + r.describe())
        return json.loads(lines[0]), r

    def json_many(self, path, reqs, pr, extra=()):
        """The JSON results of many (op, axis) reductions of one file in one launch: a job file
        with one [reduce] section per request (gpipe run: the same reduction code as gpipe
        reduce, one MPI launch instead of len(reqs)); pr as in case_reduce's panels."""
        d = os.path.dirname(path)
        job = ["[job]", "device = %s" % self.device]
        if pr and pr.startswith("mem="):
            job.append("mem = %s" % pr[4:])
        elif pr:
            job.append("panel_rows = %s" % pr)
        job += ["[read]", "file = %s" % os.path.basename(path)]
        for op, axis in reqs:
            job += ["[reduce]", "op = %s" % op, "axis = %s" % axis] + list(extra)
        ini = os.path.join(d, "batch.ini")
        with open(ini, "w") as f:
            f.write("\n".join(job) + "\n")
        r = self.run(["run", ini, "--json", "-", "-q"], self.np, cwd=d)
        gc.expect_ok(r, "gpipe run (%d reductions of %s, panels %s)" % (len(reqs), path, pr))
        js = [json.loads(l) for l in r.out.split("\n") if l.strip()]
        res = [j for j in js if not j.get("op", "").startswith("job")]
        check(len(res) == len(reqs), "expected %d reduce results, got %d\n%s" % (len(reqs), len(res), r.describe()))
        for (op, axis), j in zip(reqs, res):
            check(j["op"] == op and j["axis"] == axis, "job results out of order: %s %s for %s %s" %
                  (j["op"], j["axis"], op, axis))
        return res


# ---------------------------------------------------------------------------------------------
# references

def order_keys(a, op):
    """numpy keys with gpipe's argmin/argmax order: floats by the total order -inf < ... < -0 <
    +0 < ... < +inf with every NaN the winner (argmin: key 0, argmax: key 2^64-1), integers by
    value. Ties are left to numpy, whose argmin/argmax return the first occurrence."""
    if a.dtype.kind != "f":
        return a.astype(np.int64) if a.dtype.kind == "i" else a.astype(np.uint64)
    b = a.astype(np.float64).view(np.uint64)
    top = np.uint64(1 << 63)
    k = np.where(b >= top, ~b, b | top)
    return np.where(np.isnan(a), np.uint64(0 if op == "argmin" else 2**64 - 1), k).astype(np.uint64)


def ref_arg(a, op, axis):
    """Expected indices of argmin/argmax (numpy on order_keys), or ('error', None) when a target
    has no elements."""
    R, C = a.shape
    if (axis == "all" and a.size == 0) or (axis == "rows" and C == 0 < R) or (axis == "cols" and R == 0 < C):
        return "error", None   # a target without elements has no index
    k = order_keys(a, op)
    f = np.argmin if op == "argmin" else np.argmax
    if axis == "all":
        r = [int(f(k.reshape(-1)))] if a.size else []
    elif axis == "rows":
        r = [int(v) for v in f(k, axis=1)] if a.size else []
    else:
        r = [int(v) for v in f(k, axis=0)] if a.size else []
    # cross-check with plain numpy where the orders agree (no -0/+0 tie; numpy sees NaN first too)
    plain = a.astype(np.float64) if a.dtype.kind == "f" else a
    if a.size and not (a.dtype.kind == "f" and np.any(plain == 0)):
        ax = None if axis == "all" else (1 if axis == "rows" else 0)
        pn = (np.argmin if op == "argmin" else np.argmax)(plain, axis=ax)
        assert [int(v) for v in np.atleast_1d(pn)] == r, "reference disagrees with numpy"
    return "i", r


def ref_reduce(a, op, axis):
    """Returns (kind, list of expected 64-bit patterns) or ('error', None)."""
    if op in ("argmin", "argmax"):
        kind, r = ref_arg(a, op, axis)
        return kind, (None if r is None else [v & 0xFFFFFFFFFFFFFFFF for v in r])
    isf = a.dtype.kind == "f"
    x = a.astype(np.float64) if isf else a
    if axis == "all":
        groups = [x.reshape(-1)]
    elif axis == "rows":
        groups = [x[i, :] for i in range(x.shape[0])]
    else:
        groups = [x[:, j] for j in range(x.shape[1])]
    out = []
    kind = "f" if (isf or op in ("mean", "sumsq", "norm2")) else (
        "u" if (a.dtype.kind == "u" or op == "absmax") else "i")
    for g in groups:
        n = g.size
        if isf:
            vals = [float(v) for v in g]
            nan = any(math.isnan(v) for v in vals)
            if op in ("sum", "mean", "sumsq", "norm2"):
                sq = op in ("sumsq", "norm2")
                terms = [v * v for v in vals] if sq else vals
                pinf = any(t == math.inf for t in terms)
                ninf = any(t == -math.inf for t in terms)
                if nan or (pinf and ninf):
                    out.append(NAN_BITS)
                    continue
                if pinf or ninf:
                    r = math.inf if pinf else -math.inf
                else:
                    r = math.fsum(terms) if terms else 0.0
                    r = r + 0.0  # exact zero is +0
                if op == "mean":
                    r = r / n if n else math.nan
                if op == "norm2":
                    r = math.sqrt(r)
                out.append(NAN_BITS if r != r else dbits(r))
            else:
                if nan or n == 0:
                    out.append(NAN_BITS)
                    continue
                if op == "absmax":
                    r = max(abs(v) for v in vals)
                elif op == "min":
                    r = min(vals, key=lambda v: (v, math.copysign(1, v)))
                else:
                    r = max(vals, key=lambda v: (v, math.copysign(1, v)))
                out.append(dbits(r))
        else:
            vals = [int(v) for v in g]
            if op in ("sum",):
                s = sum(vals)
                lo, hi = (0, 2**64 - 1) if kind == "u" else (-2**63, 2**63 - 1)
                if not lo <= s <= hi:
                    return "error", None
                out.append(u64bits(s, kind))
            elif op == "mean":
                out.append(dbits(float(sum(vals)) / n) if n else NAN_BITS)
            elif op in ("sumsq", "norm2"):
                r = float(sum(v * v for v in vals))
                out.append(dbits(math.sqrt(r) if op == "norm2" else r))
            else:
                if n == 0:
                    return "error", None
                r = {"min": min, "max": max}[op](vals) if op != "absmax" else max(abs(v) for v in vals)
                out.append(u64bits(r, kind))
    return kind, out


def got_bits(j):
    b = j["bits"]
    return [int(h, 16) for h in (b if isinstance(b, list) else [b])]


# ---------------------------------------------------------------------------------------------
# data

def make(dtype, shape, rng, specials=False, narrow=False):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if dt.itemsize == 8:   # keep most sums in range; extremes added explicitly
            a = rng.integers(info.min // 4096, info.max // 4096, size=shape, dtype=dt.newbyteorder("="))
        else:
            a = rng.integers(info.min, info.max, size=shape, dtype=dt.newbyteorder("="), endpoint=True)
        return a.astype(dt)
    a = rng.standard_normal(shape)
    if not narrow:   # wide exponent range: sums need exactness; narrow: the fast runs of f32 sums
        a *= np.exp2(rng.integers(-30, 30, size=shape))
    a = a.astype(dt)
    if specials and a.size >= 4:
        flat = a.reshape(-1)
        idx = rng.choice(flat.size, size=min(flat.size, 3), replace=False)
        flat[idx[0]] = np.inf
        if len(idx) > 1:
            flat[idx[1]] = -0.0
        if len(idx) > 2:
            flat[idx[2]] = np.finfo(dt).tiny / 4  # subnormal
    return a


def write(path, arr, dset="/data"):
    with h5py.File(path, "w") as f:
        f.create_dataset(dset, data=arr)


# ---------------------------------------------------------------------------------------------
# cases

OPS = ["sum", "mean", "min", "max", "absmax", "sumsq", "norm2", "argmin", "argmax"]


def case_reduce(c, dtype, shape, seed, specials=False, ops=OPS, axes=("all", "rows", "cols"), panels=PANELS,
                narrow=False):
    """Every op x axis at every panel setting: through `gpipe reduce` itself for one op per axis
    (which op rotates with the seed, so the cases between them cover every op) and for every
    request that must fail, and through one job file per panel setting for all (the same
    reduction code in one launch: a launch costs ~1 s on a loaded 2-core CI machine)."""
    d = c.suite.casedir("reduce_%s_%dx%d_%d" % (dtype, shape[0], shape[1], seed))
    rng = np.random.default_rng(seed)
    a = make(dtype, shape, rng, specials, narrow)
    path = os.path.join(d, "in.h5")
    write(path, a)
    want, ok = {}, []
    for op in ops:
        for axis in axes:
            kind, want[op, axis] = ref_reduce(a, op, axis)
            if kind == "error":
                r = c.gp(["reduce", path, "--op", op, "--axis", axis, "--device", c.device, "-q"])
                check(r.rc == 2, "%s %s: expected an error (exit 2)\n%s" % (op, axis, r.describe()))
                check(len(gc.gpipe_stderr_lines(r)) == 1, "one error line expected\n" + r.describe())
            else:
                ok.append((op, axis))

    def compare(op, axis, pr, j, how):
        got, exp = got_bits(j), want[op, axis]
        if got != exp:
            bad = [i for i in range(min(len(got), len(exp))) if got[i] != exp[i]]
            i = bad[0] if bad else 0
            raise gc.CaseFailure("%s %s %s panel-rows=%s (%s): %d of %d values differ; first at %d: got %016x "
                                 "expected %016x (len %d vs %d)" % (dtype, op, axis, pr, how, len(bad), len(exp), i,
                                                                    got[i] if got else 0, exp[i] if exp else 0,
                                                                    len(got), len(exp)))

    for ai, axis in enumerate(axes):
        mine = [op for op in ops if (op, axis) in ok]
        if not mine:
            continue
        op = mine[(seed + 3 * ai) % len(mine)]
        pr = panels[ai % len(panels)]   # the CLI's --panel-rows / --mem too, not only the job keys
        argv = ["reduce", path, "--op", op, "--axis", axis, "--device", c.device]
        if pr and pr.startswith("mem="):
            argv += ["--mem", pr[4:]]
        elif pr:
            argv += ["--panel-rows", pr]
        j, r = c.json_of(argv)
        compare(op, axis, pr, j, "gpipe reduce")
    for pr in panels:
        for (op, axis), j in zip(ok, c.json_many(path, ok, pr) if ok else []):
            compare(op, axis, pr, j, "job file")


ARG_OPS = ["argmin", "argmax"]


def arg_inputs(rng):
    """Arrays that stress argmin/argmax: ties everywhere, NaN, +-0, +-inf, integer extremes."""
    out = []
    a = rng.integers(-2, 3, size=(37, 23)).astype("<f8")          # few distinct values: ties
    a[rng.random(a.shape) < 0.1] = -0.0
    a[3, :] = np.nan                                              # a row of NaN
    a[5, 7] = a[20, 7] = np.nan                                   # first NaN of column 7 is row 5
    a[11, 4] = np.inf
    a[30, 2] = -np.inf
    out.append(("f64_ties_nan", a, [None, "1", "3"]))
    b = rng.standard_normal((29, 41)).astype("<f4")
    b.reshape(-1)[rng.choice(b.size, 5, replace=False)] = np.max(b)   # repeated maximum
    b.reshape(-1)[rng.choice(b.size, 5, replace=False)] = np.min(b)   # repeated minimum
    b[7, 9] = np.nan
    b[2, :] = 0.0                                                 # +0 ... and one -0 in it
    b[2, 17] = -0.0
    out.append(("f32_normal", b, [None, "2"]))
    out.append(("i8_ties", rng.integers(-128, 128, size=(19, 7)).astype("<i1") // 64, [None, "1"]))
    u = rng.integers(0, 2**64 - 1, size=(5, 6), dtype=np.uint64, endpoint=True)
    u[1, 2] = u[3, 4] = 2**64 - 1
    u[0, 5] = u[4, 1] = 0
    out.append(("u64_extremes", u.astype(">u8"), [None]))
    i = rng.integers(-2**63, 2**63 - 1, size=(9, 5), dtype=np.int64)
    i[2, 3] = i[6, 0] = -2**63
    i[8, 4] = i[1, 1] = 2**63 - 1
    out.append(("i64_extremes", i.astype("<i8"), [None, "2"]))
    out.append(("f32_1xN", rng.standard_normal((1, 301)).astype("<f4").round(1), [None]))
    out.append(("f64_Nx1", rng.integers(0, 5, size=(301, 1)).astype("<f8"), [None, "7"]))
    out.append(("f64_2x7", rng.integers(0, 3, size=(2, 7)).astype("<f8"), [None, "1"]))   # ranks > rows
    return out


def case_arg(c):
    """argmin/argmax on every axis, against numpy on total-order keys (order_keys); the same
    index at every panel size and rank count. gpipe reduce for one request per input, a job
    file per input and panel size for all of them (as case_reduce)."""
    d = c.suite.casedir("arg")
    rng = np.random.default_rng(21)
    reqs = [(op, axis) for op in ARG_OPS for axis in ("all", "rows", "cols")]
    for k, (name, a, panels) in enumerate(arg_inputs(rng)):
        path = os.path.join(d, name + ".h5")
        write(path, a)
        want = {(op, axis): ref_arg(a, op, axis)[1] for op, axis in reqs}

        def compare(op, axis, pr, j, how):
            check(j["result_dtype"] == "i64", "%s: result dtype %s" % (name, j["result_dtype"]))
            got, exp = (j["values"] if axis != "all" else [j["value"]]), want[op, axis]
            if got != exp:
                bad = [i for i in range(min(len(got), len(exp))) if got[i] != exp[i]]
                raise gc.CaseFailure("%s %s %s panel-rows=%s (%s): got %s expected %s (first difference at %s)" %
                                     (name, op, axis, pr, how, got[:8], exp[:8], bad[:1]))
            if axis == "all":
                R, C = a.shape
                check(j["row"] == exp[0] // C and j["col"] == exp[0] % C, "%s: row/col of the flat index" % name)

        op, axis = reqs[k % len(reqs)]
        j, r = c.json_of(["reduce", path, "--op", op, "--axis", axis, "--device", c.device])
        compare(op, axis, None, j, "gpipe reduce")
        for pr in panels:
            for (op, axis), j in zip(reqs, c.json_many(path, reqs, pr)):
                compare(op, axis, pr, j, "job file")
    # the value at argmax has the bits of max (the same order), NaN included
    a = arg_inputs(np.random.default_rng(21))[0][1]
    path = os.path.join(d, "f64_ties_nan.h5")
    for op, ext in (("argmin", "min"), ("argmax", "max")):
        for axis in ("rows", "cols"):
            ji, _ = c.json_of(["reduce", path, "--op", op, "--axis", axis, "--device", c.device])
            jv, _ = c.json_of(["reduce", path, "--op", ext, "--axis", axis, "--device", c.device])
            vals = [a[t, i] if axis == "rows" else a[i, t] for t, i in enumerate(ji["values"])]
            check([dbits(float(v)) if v == v else NAN_BITS for v in vals] == got_bits(jv),
                  "%s %s: the element at the index is not the %s" % (op, axis, ext))
    # human output of --axis all, HDF5 output, empty inputs
    r = c.gp(["reduce", path, "--op", "argmax", "-q"])
    gc.expect_ok(r)
    want = ref_arg(a, "argmax", "all")[1][0]
    check(r.out.strip() == "%d (row %d, col %d)" % (want, want // 23, want % 23), "stdout: %r" % r.out)
    out = os.path.join(d, "idx.h5")
    r = c.gp(["reduce", path, "--op", "argmin", "--axis", "cols", "-o", out, "-f", "-q"])
    gc.expect_ok(r)
    with h5py.File(out, "r") as f:
        ds = f["/cols"]
        check(ds.dtype == np.int64 and list(ds[...]) == ref_arg(a, "argmin", "cols")[1], "HDF5 output of argmin")
    e = os.path.join(d, "empty.h5")
    with h5py.File(e, "w") as f:
        f.create_dataset("data", shape=(0, 5), dtype="<f4")
    r = c.gp(["reduce", e, "--op", "argmax", "--axis", "cols", "-q"])
    check(r.rc == 2 and "argmax of column 0 is undefined (no elements)" in r.err, "empty column\n" + r.describe())
    j, _ = c.json_of(["reduce", e, "--op", "argmin", "--axis", "rows"])
    check(j["values"] == [], "no rows, no indices")


def case_hdf5_output(c):
    d = c.suite.casedir("output")
    rng = np.random.default_rng(5)
    a = make("f4", (23, 17), rng)
    path = os.path.join(d, "in.h5")
    write(path, a, "/grp/m")
    out = os.path.join(d, "sums.h5")
    r = c.gp(["reduce", path, "--op", "sum", "--axis", "cols", "-o", out, "--output-dataset", "/colsum", "-q"])
    gc.expect_ok(r)
    with h5py.File(out, "r") as f:
        ds = f["/colsum"]
        check(ds.shape == (17,) and ds.dtype == np.float64, "shape/dtype %s %s" % (ds.shape, ds.dtype))
        got = [dbits(float(v)) for v in ds[...]]
    check(got == ref_reduce(a, "sum", "cols")[1], "column sums in the HDF5 output differ")
    r = c.gp(["reduce", path, "--op", "sum", "--axis", "cols", "-o", out, "-q"])
    check(r.rc == 2 and "exists" in r.err, "existing output without --force must fail\n" + r.describe())
    check(not gc.tmp_leftovers(d), "temporary file left behind")
    b = make("i2", (9, 31), rng)
    write(path, b, "/grp/m")
    r = c.gp(["reduce", path, "--op", "max", "--axis", "rows", "-o", out, "-f", "-q"])
    gc.expect_ok(r)
    with h5py.File(out, "r") as f:
        ds = f["/rows"]
        check(ds.dtype == np.int64 and list(ds[...]) == [int(v) for v in b.max(axis=1)], "row max of i16 differ")


def case_stdout(c):
    d = c.suite.casedir("stdout")
    a = np.arange(12, dtype="<i4").reshape(3, 4)
    path = os.path.join(d, "in.h5")
    write(path, a)
    r = c.gp(["reduce", path, "--op", "sum", "-q"])
    gc.expect_ok(r)
    check(r.out.strip() == "66", "stdout: %r" % r.out)
    r = c.gp(["reduce", path, "--op", "sum", "--axis", "rows", "-q"])
    gc.expect_ok(r)
    check(r.out.split("\n")[:3] == ["0 6", "1 22", "2 38"], "stdout rows: %r" % r.out)


def case_int_overflow(c):
    d = c.suite.casedir("overflow")
    a = np.full((5, 3), np.iinfo(np.int64).max, dtype="<i8")
    path = os.path.join(d, "in.h5")
    write(path, a)
    r = c.gp(["reduce", path, "--op", "sum", "--axis", "cols", "-q"])
    check(r.rc == 2 and "overflows int64" in r.err and "column 0" in r.err, "overflow error expected\n" + r.describe())
    j, _ = c.json_of(["reduce", path, "--op", "mean"])
    check(int(j["bits"], 16) == dbits(float(15 * (2**63 - 1)) / 15), "exact mean of int64 extremes")


def f32bits(b64):
    """The bits of the f32 nearest to the f64 with bits b64 (NaN: the quiet NaN 0x7fc00000)."""
    d = np.frombuffer(struct.pack("<Q", b64), dtype="<f8")[0]
    return int(np.array([d], dtype="<f8").astype("<f4").view("<u4")[0])


def case_result_type(c):
    """--result-type input (CLI and the job key result_type): f32 data give the f64 result
    rounded to the nearest f32 (bits against the exact references), integer data their own
    type, a result that does not fit is one clear error with no output file left behind, and
    what has no result of the input type (mean of integers, f16 data) is refused."""
    d = c.suite.casedir("result_type")
    rng = np.random.default_rng(21)
    path = os.path.join(d, "in.h5")
    a = make("<f4", (23, 19), rng, True)
    write(path, a)
    fops = ["sum", "mean", "sumsq", "norm2", "min", "max", "absmax"]
    reqs = [(op, axis) for op in fops for axis in ("all", "rows", "cols")]
    for (op, axis), j in zip(reqs, c.json_many(path, reqs, "5", ["result_type = input"])):
        exp = [f32bits(b) for b in ref_reduce(a, op, axis)[1]]
        check(j["result_dtype"] == "f32", "%s %s: result_dtype %s" % (op, axis, j["result_dtype"]))
        check(got_bits(j) == exp, "%s %s as f32: got %s expected %s" % (op, axis, j["bits"], ["%08x" % v for v in exp]))
    out = os.path.join(d, "sums.h5")
    r = c.gp(["reduce", path, "--op", "sum", "--axis", "rows", "--result-type", "input", "-o", out,
              "--device", c.device, "-q"])
    gc.expect_ok(r)
    with h5py.File(out, "r") as f:
        ds = f["/rows"]
        check(ds.dtype == np.float32 and ds.shape == (23,), "f32 output: %s %s" % (ds.dtype, ds.shape))
        got = [int(v) for v in ds[...].view("<u4")]
    check(got == [f32bits(b) for b in ref_reduce(a, "sum", "rows")[1]], "f32 row sums in the HDF5 output differ")
    # integers: i16 sums that fit, u8 column sums that do not, absmax of -128 in i8
    b = rng.integers(-50, 51, size=(11, 7)).astype("<i2")   # squares of a row or column fit i16
    write(path, b)
    reqs = [(op, axis) for op in ("sum", "sumsq", "min", "max", "absmax", "argmax") for axis in ("all", "rows", "cols")]
    ok = [(op, axis) for op, axis in reqs if (op, axis) != ("sumsq", "all")]   # that one is over 2^15
    for (op, axis), j in zip(ok, c.json_many(path, ok, None, ["result_type = input"])):
        kind, exp = ref_reduce(b, op, axis)
        if op == "sumsq":   # the exact integer (the wide result is its f64)
            g = [b[i, :] for i in range(b.shape[0])] if axis == "rows" else [b[:, k] for k in range(b.shape[1])]
            exp = [sum(int(v) * int(v) for v in x) for x in g]
            check(all(v < 2**15 for v in exp), "test data: a sumsq over i16")
        want_type = "i64" if op.startswith("arg") else "i16"
        check(j["result_dtype"] == want_type, "%s %s: result_dtype %s" % (op, axis, j["result_dtype"]))
        mask = 0xFFFFFFFFFFFFFFFF if op.startswith("arg") else 0xFFFF
        check(got_bits(j) == [int(v) & mask for v in exp], "%s %s as i16: got %s" % (op, axis, j["bits"]))
    check(sum(int(v) * int(v) for v in b.reshape(-1)) >= 2**15, "test data: sumsq of all within i16")
    os.remove(out)
    r = c.gp(["reduce", path, "--op", "sumsq", "--result-type", "input", "-o", out, "--device", c.device, "-q"])
    check(r.rc == 2 and "overflows i16" in r.err and "all elements" in r.err, "sumsq over i16 must fail\n" + r.describe())
    check(len(gc.gpipe_stderr_lines(r)) == 1, "one error line expected\n" + r.describe())
    check(not os.path.exists(out) and not gc.tmp_leftovers(d), "a failed reduce left its output behind")
    u = rng.integers(0, 256, size=(9, 5)).astype("<u1")
    write(path, u)
    r = c.gp(["reduce", path, "--op", "sum", "--axis", "cols", "--result-type", "input", "-o", out,
              "--device", c.device, "-q"])
    check(r.rc == 2 and "overflows u8" in r.err and "column" in r.err, "u8 column sums must fail\n" + r.describe())
    check(not os.path.exists(out) and not gc.tmp_leftovers(d), "a failed reduce left its output behind")
    j, _ = c.json_of(["reduce", path, "--op", "max", "--axis", "cols", "--result-type", "input", "--device", c.device])
    check(j["result_dtype"] == "u8" and [v for v in j["values"]] == [int(v) for v in u.max(axis=0)], "u8 max")
    write(path, np.array([[5, -128], [3, 7]], dtype="<i1"))
    r = c.gp(["reduce", path, "--op", "absmax", "--result-type", "input", "--device", c.device, "-q"])
    check(r.rc == 2 and "overflows i8" in r.err, "absmax of -128 as i8 must fail\n" + r.describe())
    for data, op, what in ((np.ones((3, 3), dtype="<i4"), "mean", "not an integer"),
                           (np.ones((3, 3), dtype="<f2"), "sum", "f32 or f64 results only")):
        write(path, data)
        r = c.gp(["reduce", path, "--op", op, "--result-type", "input", "--device", c.device, "-q"])
        check(r.rc == 2 and what in r.err and len(gc.gpipe_stderr_lines(r)) == 1, "%s: refused\n%s" % (what, r.describe()))
    r = c.gp(["reduce", path, "--op", "sum", "--result-type", "narrow", "-q"])
    check(r.rc == 2 and "expected wide or input" in r.err, "bad --result-type\n" + r.describe())


def case_nan_rules(c):
    d = c.suite.casedir("nan")
    a = np.array([[1.0, np.inf, 2.0], [3.0, -np.inf, 4.0], [np.nan, 5.0, -0.0]], dtype="<f8")
    path = os.path.join(d, "in.h5")
    write(path, a)
    reqs = [(op, axis) for op in OPS for axis in ("all", "rows", "cols")]
    j, _ = c.json_of(["reduce", path, "--op", "sum", "--axis", "cols"])
    check(got_bits(j) == ref_reduce(a, "sum", "cols")[1], "sum cols NaN/Inf rule (gpipe reduce)")
    for (op, axis), j in zip(reqs, c.json_many(path, reqs, None)):
        check(got_bits(j) == ref_reduce(a, op, axis)[1], "%s %s NaN/Inf rule" % (op, axis))


def case_empty(c):
    d = c.suite.casedir("empty")
    path = os.path.join(d, "in.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("data", shape=(0, 5), dtype="<f8")
    j, _ = c.json_of(["reduce", path, "--op", "sum"])
    check(int(j["bits"], 16) == 0, "empty sum is +0")
    j, _ = c.json_of(["reduce", path, "--op", "max", "--axis", "cols"])
    check(got_bits(j) == [NAN_BITS] * 5, "max of empty columns is NaN")
    j, _ = c.json_of(["reduce", path, "--op", "sum", "--axis", "rows"])
    check(got_bits(j) == [], "no rows")


def stats_ref(a):
    x = a.reshape(-1)
    isf = a.dtype.kind == "f"
    vals = [float(v) for v in x] if isf else [int(v) for v in x]
    fin = [v for v in vals if not isf or math.isfinite(v)]
    n = len(fin)
    S = sum(fractions.Fraction(v) for v in fin)
    Q = sum(fractions.Fraction(v) ** 2 for v in fin)
    mean = float(S) / n
    var = float(n * Q - S * S) / n / n
    return {"count": len(vals), "nan": sum(1 for v in vals if isf and math.isnan(v)),
            "posinf": sum(1 for v in vals if isf and v == math.inf),
            "neginf": sum(1 for v in vals if isf and v == -math.inf),
            "mean_bits": "%016x" % dbits(mean), "std_bits": "%016x" % dbits(math.sqrt(var))}


def case_stats(c, dtype, shape, seed):
    d = c.suite.casedir("stats_%s" % dtype)
    rng = np.random.default_rng(seed)
    a = make(dtype, shape, rng, specials=True)
    if a.dtype.kind == "f":
        a.reshape(-1)[1] = np.nan
        a.reshape(-1)[2] = -np.inf
        a.reshape(-1)[3] = a.reshape(-1)[4] + 1e6  # large mean, small spread nearby
    path = os.path.join(d, "in.h5")
    write(path, a)
    want = stats_ref(a)
    seen = None
    for pr in PANELS:
        argv = ["stats", path, "--device", c.device] + (["--panel-rows", pr] if pr else [])
        j, _ = c.json_of(argv)
        check(j["backend"].startswith(c.device), "stats ran on %s, asked for %s" % (j["backend"], c.device))
        for k, v in want.items():
            check(j[k] == v, "stats %s %s: got %s expected %s (panel-rows %s)" % (dtype, k, j[k], v, pr))
        key = (j["checksum"], j["min_str"], j["max_str"])
        if seen:
            check(key == seen, "checksum/min/max changed with --panel-rows")
        seen = key
    fin = a[np.isfinite(a)] if a.dtype.kind == "f" else a
    check(float(j["min_str"]) == float(np.min(a[~np.isnan(a)] if a.dtype.kind == "f" else a)), "stats min")
    check(float(j["max_str"]) == float(np.max(a[~np.isnan(a)] if a.dtype.kind == "f" else a)), "stats max")
    del fin
    # the checksum does not depend on byte order
    be = os.path.join(d, "be.h5")
    write(be, a.astype(a.dtype.newbyteorder(">")))
    j2, _ = c.json_of(["stats", be, "--device", c.device])
    check(j2["checksum"] == seen[0], "big-endian copy has another checksum")


def case_verify(c, dtype, shape, seed):
    d = c.suite.casedir("verify_%s_%dx%d" % (dtype, shape[0], shape[1]))
    rng = np.random.default_rng(seed)
    a = make(dtype, shape, rng)
    pa, pb, pt = (os.path.join(d, n) for n in ("a.h5", "b.h5", "t.h5"))
    write(pa, a)
    write(pb, a.astype(a.dtype.newbyteorder(">")))   # same values, other byte order
    write(pt, np.ascontiguousarray(a.T))
    for pr in PANELS:
        extra = ["--panel-rows", pr] if pr else []
        r = c.gp(["verify", "--device", c.device, pa, pb] + extra)
        check(r.rc == 0 and "equal" in r.out, "verify of a copy\n" + r.describe())
        r = c.gp(["verify", "--device", c.device, pa, pt, "--transposed"] + extra)
        check(r.rc == 0, "verify --transposed of the transpose\n" + r.describe())
    R, C = shape
    spots = {(0, 0), (R - 1, C - 1), (R // 2, C // 3), (int(rng.integers(R)), int(rng.integers(C)))}
    for (i, j) in sorted(spots):
        b = a.copy()
        flat = b.view(np.uint8).reshape(R, C, -1)
        flat[i, j, int(rng.integers(b.itemsize))] ^= 1 << int(rng.integers(8))
        write(pb, b)
        write(pt, np.ascontiguousarray(b.T))
        r = c.gp(["verify", "--device", c.device, pa, pb, "--panel-rows", "2"])
        check(r.rc == 1 and ("[%d, %d]" % (i, j)) in r.out, "flip at (%d,%d) not located\n%s" % (i, j, r.describe()))
        r = c.gp(["verify", "--device", c.device, pa, pt, "--transposed"])
        check(r.rc == 1 and ("A[%d, %d]" % (i, j)) in r.out and ("B[%d, %d]" % (j, i)) in r.out,
              "transposed flip at (%d,%d) not located\n%s" % (i, j, r.describe()))
    if R != C:
        r = c.gp(["verify", "--device", c.device, pa, pa, "--transposed"])
        check(r.rc == 1 and "shapes differ" in r.out, "shape mismatch\n" + r.describe())
    r = c.gp(["verify", "--device", c.device, pa, os.path.join(d, "missing.h5")])
    check(r.rc == 2 and len(gc.gpipe_stderr_lines(r)) == 1, "missing file: exit 2, one line\n" + r.describe())


def case_mpiio(c):
    """Whole-row reads take MPI-IO's individual path and column slabs its two-phase collective
    path (io/h5.c); GPIPE_MPIIO forces either. Every mode must give the same, exact results, also
    with more ranks than rows (ranks reading nothing still enter each collective read), for
    contiguous, chunked (chunks across the ranks' and panels' edges), compressed and compact inputs."""
    d = c.suite.casedir("mpiio")
    rng = np.random.default_rng(23)
    for shape, layout in (((97, 13), "contiguous"), ((2, 5), "contiguous"), ((97, 1), "contiguous"),
                          ((97, 13), "chunked"), ((2, 5), "chunked"), ((61, 9), "gzip"), ((23, 7), "compact")):
        a = rng.standard_normal(shape)
        path = os.path.join(d, "in_%dx%d_%s.h5" % (shape + (layout,)))
        if layout == "contiguous":
            write(path, a)
        elif layout == "compact":   # the data in the object header
            with h5py.File(path, "w") as f:
                dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
                dcpl.set_layout(h5py.h5d.COMPACT)
                sp = h5py.h5s.create_simple(shape)
                h5py.h5d.create(f.id, b"data", h5py.h5t.IEEE_F64LE, sp, dcpl=dcpl).write(
                    h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(a))
        else:
            with h5py.File(path, "w") as f:
                f.create_dataset("data", data=a, chunks=(min(7, shape[0]), min(4, shape[1])),
                                 compression="gzip" if layout == "gzip" else None)
        want = stats_ref(a)
        for mode in ("collective", "individual", "auto"):
            env = ("-x", "GPIPE_MPIIO=%s" % mode)
            r = c.suite.runner.run(["stats", path, "--device", c.device, "--panel-rows", "5", "--json", "-", "-q"],
                                   c.np, launch=env)
            gc.expect_ok(r)
            j = json.loads(r.out.strip().split("\n")[-1])
            for k, v in want.items():
                check(j[k] == v, "stats %s with GPIPE_MPIIO=%s: %s %s, expected %s" % (shape, mode, k, j[k], v))
            for strategy in ("alltoall", "direct"):
                out = os.path.join(d, "t_%dx%d_%s_%s_%s.h5" % (shape + (layout, mode, strategy)))
                r = c.suite.runner.run(["transpose", path, "-o", out, "--strategy", strategy, "--panel-rows", "3",
                                        "--device", "cpu", "-q"], c.np, launch=env)
                gc.expect_ok(r)
                with h5py.File(out, "r") as f:
                    t = f["/data"][...]
                check(t.shape == a.T.shape and np.array_equal(t, a.T),
                      "transpose %s --strategy %s with GPIPE_MPIIO=%s differs from numpy" % (shape, strategy, mode))


def case_mixed_modes(c):
    """pipeline/rstream.c runs a rank's panels serially (read, then reduce) or overlapped (read
    the next while reducing this one); the two order their collective calls differently, so every
    rank must run the same mode: a rank asked to run serially beside overlapped ones (an MPMD
    launch, --np >= 2) runs overlapped with them — mixed, they deadlocked. Each mode alone and the
    mixed launch give the exact sum, with the same panels (sized for two buffers either way)."""
    d = c.suite.casedir("mixed_modes")
    a = np.random.default_rng(29).standard_normal((3001, 37))
    path = os.path.join(d, "in.h5")
    write(path, a)
    kind, want = ref_reduce(a, "sum", "all")
    argv = ["reduce", path, "--op", "sum", "--axis", "all", "--mem", "128K", "--device", "cpu", "--json", "-", "-q"]
    rows = {}
    for mode in ("serial", "overlap"):
        r = c.suite.runner.run(argv, c.np, launch=("-x", "GPIPE_RSTREAM=%s" % mode))
        gc.expect_ok(r)
        j = json.loads(r.out.strip().split("\n")[-1])
        check(got_bits(j) == want, "GPIPE_RSTREAM=%s: sum bits %s, expected %s" % (mode, got_bits(j), want))
        check(j["panels"] > 3, "--mem 128K: expected several panels, got %s" % j["panels"])
        rows[mode] = j["panel_rows"]
    check(rows["serial"] == rows["overlap"], "panels of %d rows serial, %d overlapped" % (rows["serial"], rows["overlap"]))
    if c.np >= 2:
        runner = c.suite.runner
        mpmd = ("-x", "GPIPE_RSTREAM=serial", "-n", "1", runner.gpipe) + tuple(argv) + (":", "-x", "GPIPE_RSTREAM=overlap")
        r = runner.run(argv, c.np - 1, launch=mpmd, timeout=60)
        gc.expect_ok(r, "one serial rank beside %d overlapped" % (c.np - 1))
        j = json.loads(r.out.strip().split("\n")[-1])
        check(got_bits(j) == want, "mixed modes: sum bits %s, expected %s" % (got_bits(j), want))


def case_uneven_panels(c):
    """Every rank must stream the same panel rows, but what fits a rank's --mem depends on its own
    row count (a result slot per row) and device: --np >= 2 ranks over P x 4000 + 1 rows of one
    f64 column, --mem such that rank 0 (4001 rows) fits 100 rows a panel and the others 101
    (pipeline/reduce.c: 16 B of key + 8 B per row fixed, 16 B per panel row). Before the ranks
    agreed on the smallest (gp__rpanel_agree), rank 0 streamed 41 panels, the others 40: a hang."""
    if c.np < 2:
        return
    d = c.suite.casedir("uneven_panels")
    a = np.random.default_rng(31).standard_normal((c.np * 4000 + 1, 1))
    path = os.path.join(d, "in.h5")
    write(path, a)
    for op in ("max", "sum"):
        kind, want = ref_reduce(a, op, "all")
        r = c.suite.runner.run(["reduce", path, "--op", op, "--axis", "all", "--mem", "33632", "--device", c.device,
                                "--json", "-", "-q"], c.np, timeout=60)
        gc.expect_ok(r, "reduce --op %s over unequal rows per rank" % op)
        j = json.loads(r.out.strip().split("\n")[-1])
        check(got_bits(j) == want, "%s: bits %s, expected %s" % (op, got_bits(j), want))
        if op == "max":   # the case still splits the ranks (else re-derive --mem from reduce.c's sizing)
            check(j["panel_rows"] == 100, "max: panels of %s rows, expected rank 0's 100 (the others fit 101)"
                  % j["panel_rows"])


def case_errors(c):
    d = c.suite.casedir("errors")
    path = os.path.join(d, "in.h5")
    write(path, np.zeros((3, 3), dtype="<c8"))
    for argv, what in ((["reduce", path, "--op", "sum"], "complex input"),
                       (["reduce", path, "--op", "median"], "unknown op"),
                       (["reduce", path], "missing --op"),
                       (["reduce", path, "--op", "sum", "--axis", "diag"], "bad axis"),
                       (["stats", os.path.join(d, "nope.h5")], "missing file")):
        r = c.gp(argv + ["-q"])
        check(r.rc == 2, "%s: exit 2 expected\n%s" % (what, r.describe()))
        check(len(gc.gpipe_stderr_lines(r)) == 1, "%s: one error line\n%s" % (what, r.describe()))


def main():
    args = gc.parse_args(__doc__.split("\n")[0], extra=lambda ap: ap.add_argument(
        "--device", default="cpu", help="backend of the reduce cases: cpu or cuda (the references are exact, "
        "so passing with cuda proves CPU == GPU bit for bit)"))
    suite = gc.Suite("reduce-np%d-%s" % (args.np, args.device), args)
    c = Ctx(suite, args.np, args.device)
    S = suite.case
    S("reduce_f64", case_reduce, c, "<f8", (37, 23), 1, True, OPS, ("all", "rows", "cols"),
      [None, "1", "3", "mem=16K"])
    S("reduce_f32", case_reduce, c, "<f4", (29, 41), 2, True)
    S("reduce_f32_narrow", case_reduce, c, "<f4", (23, 1031), 18, True, ["sum", "mean"], ("all", "rows", "cols"),
      [None, "2"], True)
    S("reduce_f64be", case_reduce, c, ">f8", (17, 9), 3)
    S("reduce_f16", case_reduce, c, "<f2", (11, 13), 4, False, ["sum", "max", "sumsq"])
    S("reduce_i8", case_reduce, c, "<i1", (19, 7), 5)
    S("reduce_i32", case_reduce, c, ">i4", (13, 21), 6, False, ["sum", "mean", "min", "absmax", "sumsq"])
    S("reduce_i64", case_reduce, c, "<i8", (9, 5), 7)
    S("reduce_u16", case_reduce, c, "<u2", (7, 33), 8, False, ["sum", "max", "norm2"])
    S("reduce_u64", case_reduce, c, "<u8", (5, 6), 9, False, ["sum", "min", "absmax", "sumsq"])
    S("reduce_1xN", case_reduce, c, "<f8", (1, 301), 10, False, ["sum", "min", "norm2"])
    S("reduce_Nx1", case_reduce, c, "<f4", (301, 1), 11, False, ["sum", "max", "mean"])
    S("reduce_nan_inf", case_nan_rules, c)
    S("reduce_arg", case_arg, c)
    S("reduce_empty", case_empty, c)
    S("reduce_int_overflow", case_int_overflow, c)
    S("reduce_hdf5_output", case_hdf5_output, c)
    S("reduce_stdout", case_stdout, c)
    S("reduce_result_type", case_result_type, c)
    S("stats_f64", case_stats, c, "<f8", (31, 17), 12)
    S("stats_f32", case_stats, c, "<f4", (13, 29), 13)
    S("stats_i16", case_stats, c, "<i2", (11, 7), 14)
    S("verify_f64", case_verify, c, "<f8", (23, 17), 15)
    S("verify_u8", case_verify, c, "<u1", (5, 40), 16)
    S("verify_1xN", case_verify, c, "<f4", (1, 50), 17)
    S("mpiio_modes", case_mpiio, c)
    S("mixed_modes", case_mixed_modes, c)
    S("uneven_panels", case_uneven_panels, c)
    S("errors", case_errors, c)
    sys.exit(suite.finish())


if __name__ == "__main__":
    main()
