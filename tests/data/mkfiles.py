#!/usr/bin/python3
"""tests/data/mkfiles.py — generators of hostile and odd input files for the gpipe tests
(truncated copies, text with an .h5 name, 1-D/3-D/scalar datasets, unsupported types...).
Made with h5py, independently of gpipe. Used by tests/mpi/check_errors.py; run directly as
`/usr/bin/python3 tests/data/mkfiles.py DIR` to write every file into DIR for manual poking."""
import os
import sys

try:
    import numpy as np
    import h5py
except ImportError as e:
    sys.stderr.write("FAIL: mkfiles.py needs numpy and h5py (%s); use /usr/bin/python3\n" % e)
    sys.exit(3)


def rng(seed=1234):
    return np.random.default_rng(seed)


def make_valid(path, shape=(200, 160), dtype="<f8", dataset="/A", chunks=None):
    """A plain valid file with one 2-D dataset; returns the array written."""
    a = rng(7).standard_normal(shape).astype(dtype)
    with h5py.File(path, "w") as f:
        f.create_dataset(dataset, data=a, chunks=chunks)
    return a


def make_text(path):
    with open(path, "w") as f:
        f.write("this is not an HDF5 file, only text with an .h5 name\n" * 20)


def make_empty_file(path):
    open(path, "wb").close()


def make_truncated(path, keep_fraction=None, keep_bytes=None, chunks=None):
    """A valid file cut short: keep a fraction of its bytes or a fixed number of bytes."""
    tmp = path + ".full"
    make_valid(tmp, shape=(256, 200), chunks=chunks)
    with open(tmp, "rb") as f:
        data = f.read()
    os.unlink(tmp)
    n = keep_bytes if keep_bytes is not None else int(len(data) * keep_fraction)
    with open(path, "wb") as f:
        f.write(data[:n])


def make_shapes(path, with_2d=True):
    """/v1 1-D, /v3 3-D, /s scalar, /grp group (holding a 1-D /grp/inner), optionally /ok 2-D."""
    r = rng(3)
    with h5py.File(path, "w") as f:
        f.create_dataset("/v1", data=r.integers(0, 100, 17).astype("<i4"))
        f.create_dataset("/v3", data=r.standard_normal((3, 4, 5)))
        f.create_dataset("/s", data=np.float64(3.5))
        f.create_dataset("/grp/inner", data=np.arange(5, dtype="<i2"))
        f.attrs["note"] = "no 2-D dataset here" if not with_2d else "one 2-D dataset: /ok"
        if with_2d:
            f.create_dataset("/ok", data=r.standard_normal((6, 4)))


def make_unsupported(path):
    """2-D datasets of types gpipe must refuse, plus a fine /ok:
    /vs vlen str, /vb vlen bytes, /vi vlen int sequence, /ref object refs, /rref region refs,
    /fs fixed-length string (strings are refused by the contract)."""
    with h5py.File(path, "w") as f:
        ok = f.create_dataset("/ok", data=np.arange(12, dtype="<f8").reshape(3, 4))
        vs = f.create_dataset("/vs", (3, 4), dtype=h5py.string_dtype("utf-8"))
        vs[...] = np.array([["a%d%d" % (i, j) for j in range(4)] for i in range(3)],
                           dtype=object)
        vb = f.create_dataset("/vb", (2, 3), dtype=h5py.string_dtype("ascii"))
        vb[...] = np.array([[b"x", b"yy", b"zzz"]] * 2, dtype=object)
        vi = f.create_dataset("/vi", (2, 3), dtype=h5py.vlen_dtype(np.dtype("<i4")))
        for i in range(2):
            for j in range(3):
                vi[i, j] = np.arange(i + j + 1, dtype="<i4")
        ref = f.create_dataset("/ref", (2, 2), dtype=h5py.ref_dtype)
        for i in range(2):
            for j in range(2):
                ref[i, j] = ok.ref
        rref = f.create_dataset("/rref", (2, 2), dtype=h5py.regionref_dtype)
        for i in range(2):
            for j in range(2):
                rref[i, j] = ok.regionref[0:1, 0:2]
        f.create_dataset("/fs", data=np.array([[b"abc", b"de"], [b"f", b"ghij"]], dtype="S4"))


def make_several_2d(path):
    r = rng(5)
    with h5py.File(path, "w") as f:
        f.create_dataset("/A", data=r.standard_normal((5, 7)))
        f.create_dataset("/grp/B", data=r.integers(0, 9, (3, 2)).astype("<i4"))
        f.create_dataset("/v1", data=np.arange(4.0))


def make_no_datasets(path):
    with h5py.File(path, "w") as f:
        f.create_group("/empty_group")
        f.attrs["x"] = 1


def make_corrupt_chunk(path, which="last", fletcher32=False):
    """A chunked gzip dataset /A (60x40 f64, chunks of 10 rows) whose first or last chunk has
    its compressed bytes overwritten: HDF5 opens the file fine, only the read of that chunk
    fails, so with several ranks only the rank owning those rows sees the error."""
    a = rng(11).standard_normal((60, 40))
    with h5py.File(path, "w") as f:
        f.create_dataset("/A", data=a, chunks=(10, 40), compression="gzip",
                         fletcher32=fletcher32)
    with h5py.File(path, "r") as f:
        dsid = f["/A"].id
        info = dsid.get_chunk_info(0 if which == "first" else dsid.get_num_chunks() - 1)
    with open(path, "r+b") as f:
        f.seek(info.byte_offset + 2)
        f.write(bytes(range(7, 7 + min(64, info.size - 4))))


def make_all(d):
    os.makedirs(d, exist_ok=True)
    make_valid(os.path.join(d, "valid.h5"))
    make_text(os.path.join(d, "text.h5"))
    make_empty_file(os.path.join(d, "empty.h5"))
    make_truncated(os.path.join(d, "trunc_half.h5"), keep_fraction=0.5)
    make_truncated(os.path.join(d, "trunc_tiny.h5"), keep_bytes=100)
    make_truncated(os.path.join(d, "trunc_chunked.h5"), keep_fraction=0.7, chunks=(32, 40))
    make_shapes(os.path.join(d, "shapes.h5"))
    make_shapes(os.path.join(d, "no2d.h5"), with_2d=False)
    make_unsupported(os.path.join(d, "unsupported.h5"))
    make_several_2d(os.path.join(d, "several.h5"))
    make_no_datasets(os.path.join(d, "nodata.h5"))
    make_corrupt_chunk(os.path.join(d, "corrupt_last.h5"))
    make_corrupt_chunk(os.path.join(d, "corrupt_first_fletcher.h5"), "first", True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: mkfiles.py DIR\n")
        sys.exit(2)
    make_all(sys.argv[1])
    print("wrote test files into %s" % sys.argv[1])
