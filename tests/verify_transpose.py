#!/usr/bin/python3
"""tests/verify_transpose.py — independent check (h5py + numpy) that B is the transpose of A:
same HDF5 datatype, shape C x R, identical bytes. Exit 0 equal, 1 different, 2 error."""
import sys

import h5py
import numpy as np


def only_2d(f):
    found = []
    f.visititems(lambda n, o: found.append(n) if isinstance(o, h5py.Dataset) and o.ndim == 2 else None)
    if len(found) != 1:
        sys.exit(f"verify: {f.filename}: expected one 2-D dataset, found {found}")
    return found[0]


def main():
    if len(sys.argv) not in (3, 5):
        print("usage: verify_transpose.py A.h5 B.h5 [A_DSET B_DSET]", file=sys.stderr)
        return 2
    with h5py.File(sys.argv[1], "r") as fa, h5py.File(sys.argv[2], "r") as fb:
        da = fa[sys.argv[3] if len(sys.argv) == 5 else only_2d(fa)]
        db = fb[sys.argv[4] if len(sys.argv) == 5 else only_2d(fb)]
        if da.id.get_type() != db.id.get_type():
            print(f"verify: datatypes differ: {da.dtype} vs {db.dtype}")
            return 1
        if db.shape != da.shape[::-1]:
            print(f"verify: shape {db.shape} is not the transpose of {da.shape}")
            return 1
        a, b = da[...], db[...]
        want = np.ascontiguousarray(a.T).tobytes()
        if want != b.tobytes():
            diff = np.nonzero(np.frombuffer(want, np.uint8) != np.frombuffer(b.tobytes(), np.uint8))[0]
            print(f"verify: {len(diff)} bytes differ, first at byte {diff[0]}")
            return 1
    print(f"verify: {sys.argv[2]} is the exact transpose of {sys.argv[1]} ({a.shape}, {a.dtype})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
