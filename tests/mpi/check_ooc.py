#!/usr/bin/python3
"""tests/mpi/check_ooc.py — out-of-core transpose (issue 4): tiny --mem budgets and forced
--panel-rows make dozens of panels; both strategies; uneven shapes, several element sizes.
Each output must be byte-identical to numpy's transpose of the input (independent reference)
and to gpipe's own single-panel in-memory run. Also: a budget below one row is a clear error."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpcommon import (Suite, check, create_raw, expect_ok, first_difference, gpipe_stderr_lines,
                      h5py, h5t, np, parse_args, read_raw, tmp_leftovers)

RNG = np.random.default_rng(20261130)


def make_input(path, shape, dtype, chunks=None):
    a = RNG.integers(0, 256, size=shape + (np.dtype(dtype).itemsize,), dtype=np.uint8)
    a = a.view(dtype).reshape(shape)
    with h5py.File(path, "w") as f:
        f.create_dataset("/m", data=a, chunks=chunks)
    return a


def expect_transpose(path_in, path_out):
    with h5py.File(path_in, "r") as fi, h5py.File(path_out, "r") as fo:
        di, do = fi["/m"], fo["/m"]
        check(di.id.get_type() == do.id.get_type(), "datatype changed: %s -> %s" % (di.dtype, do.dtype))
        check(do.shape == di.shape[::-1], "shape %s, expected %s" % (do.shape, di.shape[::-1]))
        a, b = read_raw(di), read_raw(do)
        want = np.ascontiguousarray(a.T).tobytes()
        check(b.tobytes() == want, first_difference(b.tobytes(), want, do.shape, a.dtype.itemsize))


def main():
    args = parse_args("out-of-core transpose", default_np=2)
    s = Suite("ooc-np%d" % args.np, args)
    run = s.runner.run

    shapes = [(257, 509), (1, 3001), (3001, 1), (131, 7), (2, 3)]
    dtypes = ["<i1", "<u2", ">f4", "<f8", "<c16"]

    def case(shape, dt, strategy, opts, chunks=None):
        d = s.casedir("%dx%d-%s-%s-%s" % (shape + (dt, strategy, "_".join(opts))))
        src, out, ref = os.path.join(d, "in.h5"), os.path.join(d, "out.h5"), os.path.join(d, "ref.h5")
        make_input(src, shape, dt, chunks)
        expect_ok(run(["transpose", src, "-o", out, "-q", "--strategy", strategy] + opts, args.np))
        expect_transpose(src, out)
        # the same as one in-memory panel on one rank
        expect_ok(run(["transpose", src, "-o", ref, "-q"], 1))
        with h5py.File(out, "r") as fo, h5py.File(ref, "r") as fr:
            check(read_raw(fo["/m"]).tobytes() == read_raw(fr["/m"]).tobytes(), "differs from the 1-rank run")
        check(not tmp_leftovers(d), "temporary files left: %s" % tmp_leftovers(d))

    for i, shape in enumerate(shapes):
        for j, dt in enumerate(dtypes):
            if (i + j) % 2:   # a diagonal of the shape x type grid keeps the run short
                continue
            for strategy in ("alltoall", "direct"):
                s.case("mem256K %s %s %s" % (shape, dt, strategy), case, shape, dt, strategy, ["--mem", "256K"])
                s.case("panel3 %s %s %s" % (shape, dt, strategy), case, shape, dt, strategy, ["--panel-rows", "3"])
    s.case("chunked-in chunked-out direct", case, (301, 203), "<f4", "direct",
           ["--mem", "64K", "--chunk", "17x29"], chunks=(16, 16))
    s.case("chunked-in chunked-out alltoall", case, (301, 203), "<i8", "alltoall",
           ["--mem", "64K", "--chunk", "64x64"], chunks=(50, 7))

    def too_small():
        d = s.casedir("too-small")
        src, out = os.path.join(d, "in.h5"), os.path.join(d, "out.h5")
        make_input(src, (10, 100000), "<f8")
        r = run(["transpose", src, "-o", out, "--mem", "100K"], args.np)
        check(r.rc == 2, "exit %s, expected 2\n%s" % (r.rc, r.describe()))
        lines = gpipe_stderr_lines(r)
        check(len(lines) == 1 and "--mem" in lines[0] and "one row" in lines[0] and "needs at least" in lines[0],
              "expected one line naming the minimum, got %s" % lines)
        check(not os.path.exists(out) and not tmp_leftovers(d), "output or temporary file left behind")
    s.case("budget below one row", too_small)

    def json_stages():
        d = s.casedir("json")
        src, out, js = os.path.join(d, "in.h5"), os.path.join(d, "out.h5"), os.path.join(d, "run.jsonl")
        make_input(src, (400, 300), "<f4")
        expect_ok(run(["transpose", src, "-o", out, "-q", "--mem", "64K", "--json", js], args.np))
        import json
        rec = [json.loads(l) for l in open(js)]
        check(len(rec) == 1, "expected one JSON line, got %d" % len(rec))
        r = rec[0]
        check(r["panels"] > 10, "expected many panels under --mem 64K, got %s" % r["panels"])
        for k in ("read", "kernel", "exchange", "write", "wait"):
            check(k in r["stage_seconds_max"], "stage %s missing from %s" % (k, r))
        check(r["shape"] == [400, 300] and r["ranks"] == args.np, "bad record %s" % r)
    s.case("json stage breakdown", json_stages)

    def default_chunks(strategy, mem, shape, bands):
        """Without --chunk the output is contiguous when one band holds every row of A, else chunked
        as the widest rank's rows of B x one rank's panels of a band (the plan's, from --json)."""
        d = s.casedir("chunks-%s-%s-%dx%d" % ((strategy, mem) + shape))
        src, out, js = os.path.join(d, "in.h5"), os.path.join(d, "out.h5"), os.path.join(d, "run.jsonl")
        make_input(src, shape, "<f8")
        expect_ok(run(["transpose", src, "-o", out, "-q", "--strategy", strategy, "--mem", mem, "--json", js], args.np))
        expect_transpose(src, out)
        import json
        r = [json.loads(l) for l in open(js)][0]
        R, C = shape
        band = r["panel_rows"] if strategy == "direct" else min(r["band_panels"] * args.np * r["panel_rows"], R)
        cols = r["panel_rows"] if strategy == "direct" else min(r["band_panels"] * r["panel_rows"], band)
        check((band < R) == bands, "expected %s, the plan has band %d of %d rows (%s)"
              % ("several bands" if bands else "one band", band, R, r))
        want = None if band >= R else (min(-(-C // args.np), C), cols)
        with h5py.File(out, "r") as fo:
            check(fo["/m"].chunks == want, "output chunks %s, expected %s (plan %s)" % (fo["/m"].chunks, want, r))
    for strategy in ("alltoall", "direct"):
        s.case("default chunks, bands %s" % strategy, default_chunks, strategy, "64K", (401, 299), True)
    s.case("default layout, one band", default_chunks, "alltoall", "1G", (401, 299), False)
    sys.exit(s.finish())


if __name__ == "__main__":
    main()
