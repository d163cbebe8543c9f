#!/usr/bin/python3
"""tests/mpi/check_huge.py — issue 8, extreme shapes: a 1 x N and an N x 1 u8 matrix with
N = 2^31 + 11 (odd, more than 2^31 elements and bytes in one row, one column and in total).

  1. `gpipe gen` writes A = 1 x N u8 (--np ranks);
  2. A is checked against an independent reference: element i is the low byte of XXH64(i, seed)
     (the hash is re-implemented here in numpy), in windows at the start, across 2^31 (2^31 - W
     to N, i.e. every position near 2^31 and the end) and in the middle;
  3. `gpipe transpose --strategy direct` at 3 ranks: A -> T = N x 1 (each rank's slab of the one
     row is ~716 M elements, offsets beyond 2^31 in the file);
  4. `gpipe transpose` (all-to-all) at 2 ranks with an odd --panel-rows: T -> B = 1 x N, the
     panels are not aligned with 2^31 (one of them straddles it) and the last is short;
  5. T and B are compared with A in 64 MiB pieces with h5py (never all in memory), B is also
     compared with the reference windows, and position by position around 2^31.
The files (~6 GiB) live under --workdir and are removed at the end, also when a check failed."""
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpcommon import Suite, check, expect_ok, h5py, np, parse_args, tmp_leftovers

N = (1 << 31) + 11
SEED = 20261201
PIECE = 64 << 20      # elements compared at a time (64 MiB of u8)
WINDOW = 1 << 22      # reference windows: 4 Mi elements each

P1, P2, P3, P4, P5 = (np.uint64(0x9E3779B185EBCA87), np.uint64(0xC2B2AE3D27D4EB4F),
                      np.uint64(0x165667B19E3779F9), np.uint64(0x85EBCA77C2B2AE63),
                      np.uint64(0x27D4EB2F165667C5))


def _rotl(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def xxh64_u64(idx, seed):
    """XXH64 of each 8-byte little-endian uint64 of idx (numpy, wrapping arithmetic): what
    pipeline/gen.c hashes for element idx. Checked against the scalar definition below."""
    with np.errstate(over="ignore"):
        v = idx.astype(np.uint64)
        h = np.full(v.shape, (seed + 0x27D4EB2F165667C5 + 8) & ((1 << 64) - 1), np.uint64)
        h ^= _rotl(v * P2, 31) * P1
        h = _rotl(h, 27) * P1 + P4
        h ^= h >> np.uint64(33)
        h *= P2
        h ^= h >> np.uint64(29)
        h *= P3
        h ^= h >> np.uint64(32)
    return h


def xxh64_scalar(v, seed):
    """The XXH64 specification for one 8-byte input, in Python integers."""
    m = (1 << 64) - 1
    rotl = lambda x, r: ((x << r) | (x >> (64 - r))) & m
    p1, p2, p3, p4, p5 = (int(p) for p in (P1, P2, P3, P4, P5))
    h = (seed + p5 + 8) & m
    h ^= rotl(v * p2 & m, 31) * p1 & m
    h = (rotl(h, 27) * p1 + p4) & m
    h ^= h >> 33
    h = h * p2 & m
    h ^= h >> 29
    h = h * p3 & m
    h ^= h >> 32
    return h


def reference(a, b):
    """Elements [a, b) of A (u8: the low byte of the hash)."""
    return (xxh64_u64(np.arange(a, b, dtype=np.uint64), SEED) & np.uint64(0xFF)).astype(np.uint8)


def row_piece(d, a, b):
    return d[0, a:b] if d.shape[0] == 1 else d[a:b, 0]


def main():
    args = parse_args("more than 2^31 elements in one row / column", default_np=3)
    s = Suite("huge", args)
    run = s.runner.run
    d = s.tmp
    src, tr, back = (os.path.join(d, n) for n in ("a_1xN.h5", "t_Nx1.h5", "b_1xN.h5"))
    timeout = max(args.timeout, 900.0)
    t_start = time.monotonic()

    need = 3 * N + (1 << 30)
    free = shutil.disk_usage(d).free
    if free < need:
        print("FAIL: %s has %.1f GiB free, the test needs %.1f GiB" % (d, free / 2**30, need / 2**30))
        shutil.rmtree(d, ignore_errors=True)
        return 1

    def ref_selfcheck():
        idx = np.array([0, 1, 2, 255, (1 << 31) - 1, 1 << 31, N - 1, (1 << 64) - 1], np.uint64)
        got = xxh64_u64(idx, SEED)
        for i, g in zip(idx.tolist(), got.tolist()):
            check(g == xxh64_scalar(i, SEED), "numpy XXH64(%d) = %x, scalar %x" % (i, g, xxh64_scalar(i, SEED)))
        # known answers of libxxhash's XXH64 on 8-byte inputs (the bytes 00..07, seed 0; 2^31, SEED)
        for v, seed, h in ((0, 0, 0x34c96acdcadb1bbb), (0x0706050403020100, 0, 0x884a173614b81b8d),
                           (1 << 31, SEED, 0x620dd0fcdec1dd71)):
            check(xxh64_scalar(v, seed) == h, "XXH64(%x, %d) = %x, expected %x" % (v, seed, xxh64_scalar(v, seed), h))

    def windows():
        mid = (N // 3) | 1
        return [(0, WINDOW), (mid, mid + WINDOW), ((1 << 31) - WINDOW, N)]

    def check_reference(path, what):
        with h5py.File(path, "r") as f:
            dset = f["/data"]
            for a, b in windows():
                got, want = row_piece(dset, a, b), reference(a, b)
                if not np.array_equal(got, want):
                    i = a + int(np.nonzero(got != want)[0][0])
                    check(False, "%s: element %d is %d, reference %d" % (what, i, got[i - a], want[i - a]))
            # position by position across 2^31 (what an int count/offset overflow would break)
            a = (1 << 31) - 5
            got = row_piece(dset, a, N)
            want = [xxh64_scalar(i, SEED) & 0xFF for i in range(a, N)]
            check(got.tolist() == want, "%s: elements %d..%d are %s, reference %s" % (
                what, a, N - 1, got.tolist(), want))
            # not a constant or short-period fill
            check(len(np.unique(got)) > 8, "%s: near 2^31 only %s" % (what, np.unique(got)))

    def check_shape(path, shape):
        with h5py.File(path, "r") as f:
            dset = f["/data"]
            check(dset.shape == shape, "%s: shape %s, expected %s" % (path, dset.shape, shape))
            check(dset.dtype == np.uint8, "%s: dtype %s, expected u8" % (path, dset.dtype))

    def compare(path, what):
        """path's elements in order (1 x N or N x 1) equal A's, in PIECE-element pieces."""
        with h5py.File(src, "r") as fa, h5py.File(path, "r") as fo:
            da, do = fa["/data"], fo["/data"]
            for a in range(0, N, PIECE):
                b = min(N, a + PIECE)
                x, y = row_piece(da, a, b), row_piece(do, a, b)
                if not np.array_equal(x, y):
                    bad = np.nonzero(x != y)[0]
                    check(False, "%s: %d of elements %d..%d differ from A, first at %d: %d, A has %d" % (
                        what, len(bad), a, b - 1, a + int(bad[0]), y[bad[0]], x[bad[0]]))

    def timed(label, fn, *a):
        t0 = time.monotonic()
        fn(*a)
        print("   %s: %.1f s" % (label, time.monotonic() - t0), flush=True)

    def gen():
        ref_selfcheck()
        timed("gen 1x%d u8, %d ranks" % (N, args.np), lambda: expect_ok(run(
            ["gen", src, "--shape", "1x%d" % N, "--dtype", "u8", "--seed", SEED, "-q"], args.np,
            timeout=timeout)))
        check_shape(src, (1, N))
        timed("A vs reference", check_reference, src, "A")

    def to_column():
        timed("transpose 1xN -> Nx1, direct, 3 ranks", lambda: expect_ok(run(
            ["transpose", src, "-o", tr, "--strategy", "direct", "-q"], 3, timeout=timeout)))
        check_shape(tr, (N, 1))
        check(not tmp_leftovers(d), "temporary files left: %s" % tmp_leftovers(d))
        timed("T vs A", compare, tr, "T = A^T")

    def to_row():
        # 2 ranks x 100000007 rows per panel: bands of 200000014 rows, the 11th straddles 2^31
        timed("transpose Nx1 -> 1xN, alltoall, 2 ranks", lambda: expect_ok(run(
            ["transpose", tr, "-o", back, "--panel-rows", "100000007", "-q"], 2, timeout=timeout)))
        check_shape(back, (1, N))
        check(not tmp_leftovers(d), "temporary files left: %s" % tmp_leftovers(d))
        timed("B vs A", compare, back, "B = T^T")
        timed("B vs reference", check_reference, back, "B")
        os.unlink(back)

    s.case("gen 1x(2^31+11) u8 equals the reference", gen)
    if not s.failed:
        s.case("transpose 1x(2^31+11) -> (2^31+11)x1 (direct, 3 ranks)", to_column)
    if not s.failed:
        s.case("transpose (2^31+11)x1 -> 1x(2^31+11) (alltoall, 2 ranks, odd panels)", to_row)
    print("   total %.1f s" % (time.monotonic() - t_start), flush=True)
    rc = s.finish()
    if not args.keep:   # ~6 GiB: never left behind, not even after a failure
        shutil.rmtree(d, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
