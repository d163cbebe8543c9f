#!/usr/bin/python3
"""tests/mpi/check_transpose.py — `gpipe transpose` and `gpipe gen` end to end at --np ranks,
against an independent reference: inputs are written with h5py (never with gpipe gen), the
output is read back with h5py using its own file type (no conversion) and must be byte-identical
to numpy.ascontiguousarray(A.T), with exactly the input's HDF5 datatype (H5Tequal: byte order,
compound members and offsets, opaque tag, enum values), shape C x R, at the expected path.
Also: gen's files have the asked shape/dtype/chunks and the same contents at 1 and 3 ranks."""
import json
import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpcommon as gc  # noqa: E402
from gpcommon import check, np, h5py, h5t  # noqa: E402


class Ctx:
    def __init__(self, suite, np_):
        self.suite, self.np = suite, np_
        self.run = suite.runner.run


# ---------------------------------------------------------------------------------------------
# data makers

SPECIAL_BITS = {
    2: [0x7C01, 0xFE3F, 0x7D55, 0x0001, 0x8000, 0x7C00, 0xFC00, 0x7BFF],
    4: [0x7F800001, 0xFFC12345, 0x7FA5A5A5, 0x00000001, 0x80000000, 0x7F800000, 0xFF7FFFFF],
    8: [0x7FF0000000000001, 0xFFF8DEAD0000BEEF, 0x7FF4A5A5A5A5A5A5, 0x0000000000000001,
        0x8000000000000000, 0x7FF0000000000000, 0xFFEFFFFFFFFFFFFF],
}


def add_specials(a, rng):
    """Overwrite some elements of a float (or complex) array with NaNs carrying payloads,
    signalling NaNs, -0, infinities and denormals, bit by bit (no float arithmetic)."""
    bo = a.dtype.byteorder
    flat = a.reshape(-1)
    if flat.dtype.kind == "c":
        flat = flat.view(np.dtype("f%d" % (a.dtype.itemsize // 2)).newbyteorder(bo))
    size = flat.dtype.itemsize
    u = flat.view(np.dtype("u%d" % size).newbyteorder(bo))
    bits = SPECIAL_BITS[size]
    n = max(len(bits), u.size // 40)
    idx = rng.choice(u.size, size=min(n, u.size), replace=False)
    for k, i in enumerate(idx):
        u[i] = bits[k % len(bits)]
    return a


def rand_array(dtype, shape, rng, specials=True):
    """Random values of any numpy dtype, made from random bytes for non-numeric kinds."""
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, size=shape, dtype=dt.newbyteorder("="),
                         endpoint=True).astype(dt)
        flat = a.reshape(-1)
        if flat.size >= 2:  # make sure the extremes are there
            flat[0], flat[-1] = info.min, info.max
        return a
    if dt.kind == "c":
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
        return add_specials(a, rng) if specials else a
    if dt.kind == "f":
        a = (rng.standard_normal(shape) * 100).astype(dt)
        return add_specials(a, rng) if specials else a
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dt)
    # compounds, opaque: random bytes
    raw = rng.bytes(int(np.prod(shape)) * dt.itemsize)
    return np.frombuffer(raw, dtype=dt).reshape(shape).copy()


def write_np(path, dset, arr, mode="a", **kw):
    with h5py.File(path, mode) as f:
        ds = f.create_dataset(dset, data=arr, **kw)
        back = gc.read_raw(ds).tobytes()
    check(back == arr.tobytes(), "test setup: h5py did not store %s byte-exactly" % dset)


def write_lowlevel(path, dset, tid, shape, raw, mode="a", **kw):
    with h5py.File(path, mode) as f:
        dsid = gc.create_raw(f, dset, tid, shape, raw, **kw)
        back = gc.read_raw(dsid).tobytes()
    check(back == bytes(raw), "test setup: raw write of %s not byte-exact" % dset)


def describe_type(tid, dtype):
    cls = {h5t.INTEGER: "INTEGER", h5t.FLOAT: "FLOAT", h5t.COMPOUND: "COMPOUND",
           h5t.OPAQUE: "OPAQUE", h5t.ENUM: "ENUM", h5t.ARRAY: "ARRAY", h5t.BITFIELD: "BITFIELD",
           h5t.STRING: "STRING"}.get(tid.get_class(), str(tid.get_class()))
    s = "%s size=%d numpy=%s" % (cls, tid.get_size(), dtype.descr if dtype.names else dtype.str)
    try:
        if tid.get_class() in (h5t.INTEGER, h5t.FLOAT, h5t.BITFIELD):
            s += " order=%s" % ("BE" if tid.get_order() == h5t.ORDER_BE else "LE")
        if tid.get_class() == h5t.OPAQUE:
            s += " tag=%r" % tid.get_tag()
        if tid.get_class() == h5t.COMPOUND:
            s += " members=%s" % [(tid.get_member_name(i).decode(), tid.get_member_offset(i),
                                   tid.get_member_type(i).get_size())
                                  for i in range(tid.get_nmembers())]
    except Exception as e:  # description only
        s += " (%s)" % e
    return s


# ---------------------------------------------------------------------------------------------
# the central check

def verify(ctx, d, in_file, in_dset, argv, out_file, out_dset, cwd=None, quiet=False,
           np_=None, out_chunks=None, launch=()):
    """Run `gpipe argv`, then check out_file:out_dset is the exact transpose of in_file:in_dset."""
    with h5py.File(in_file, "r") as f:
        ds = f[in_dset]
        raw_in = gc.read_raw(ds)
        in_dtype = ds.dtype
        shape = ds.shape
    check(len(shape) == 2, "test setup: input not 2-D")
    h_in = gc.sha256(in_file)
    r = ctx.run(argv, ctx.np if np_ is None else np_, cwd=cwd or d, launch=launch)
    gc.expect_ok(r, "gpipe %s" % argv[0])
    problems = []
    if gc.sha256(in_file) != h_in:
        problems.append("the input file was modified")
    if quiet and (r.out.strip() or gc.gpipe_stderr_lines(r)):
        problems.append("--quiet run printed something")
    out_dir = os.path.dirname(os.path.abspath(out_file))
    left = gc.tmp_leftovers(out_dir) if os.path.isdir(out_dir) else []
    if left:
        problems.append("temporary files left in %s: %s" % (out_dir, left))
    if not os.path.isfile(out_file):
        problems.append("output file %s does not exist (dir has: %s)" % (
            out_file, sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else "no dir"))
        check(False, "; ".join(problems) + "\n" + r.describe())
    with h5py.File(in_file, "r") as fi, h5py.File(out_file, "r") as fo:
        in_tid = fi[in_dset].id.get_type()
        if out_dset not in fo:
            names = []
            fo.visit(names.append)
            problems.append("output has no %s (it has %s)" % (out_dset, names))
            check(False, "; ".join(problems) + "\n" + r.describe())
        o = fo[out_dset]
        if not isinstance(o, h5py.Dataset):
            check(False, "output %s is not a dataset" % out_dset)
        want_shape = (shape[1], shape[0])
        if o.shape != want_shape:
            problems.append("output shape %s, expected %s" % (o.shape, want_shape))
        if out_chunks is not None and o.chunks != tuple(out_chunks):
            problems.append("output chunks %s, expected %s" % (o.chunks, tuple(out_chunks)))
        out_tid = o.id.get_type()
        if o.dtype != in_dtype or o.dtype.str != in_dtype.str or \
                o.dtype.descr != in_dtype.descr:
            problems.append("numpy dtype %s, expected %s" % (
                o.dtype.descr if o.dtype.names else o.dtype.str,
                in_dtype.descr if in_dtype.names else in_dtype.str))
        if not (out_tid == in_tid):
            problems.append("HDF5 datatype differs (H5Tequal false):\n      output %s\n"
                            "      input  %s" % (describe_type(out_tid, o.dtype),
                                                  describe_type(in_tid, in_dtype)))
        if o.shape == want_shape and out_tid.get_size() == in_tid.get_size():
            got = gc.read_raw(o).tobytes()
            want = np.ascontiguousarray(raw_in.T).tobytes()
            if got != want:
                problems.append("data not byte-identical to numpy's transpose: %s" %
                                gc.first_difference(got, want, want_shape, in_tid.get_size()))
    check(not problems, "; ".join(problems) + "\n" + r.describe())
    return r


# ---------------------------------------------------------------------------------------------
# transpose cases

def case_np(ctx, name, dtype, shape, seed, specials=True, **create_kw):
    """Input made from a numpy array with h5py's high-level API, default options."""
    d = ctx.suite.casedir(name)
    rng = np.random.default_rng(seed)
    a = rand_array(dtype, shape, rng, specials)
    inp = os.path.join(d, "in.h5")
    write_np(inp, "/A", a, mode="w", **create_kw)
    verify(ctx, d, inp, "/A", ["transpose", "in.h5"], os.path.join(d, "in.T.h5"), "/A")


def case_low(ctx, name, tid, shape, seed, **create_kw):
    """Input of an explicit HDF5 type (tags, padding, arrays...) with random element bytes."""
    d = ctx.suite.casedir(name)
    rng = np.random.default_rng(seed)
    raw = rng.bytes(int(np.prod(shape)) * tid.get_size())
    inp = os.path.join(d, "in.h5")
    write_lowlevel(inp, "/A", tid, shape, raw, mode="w", **create_kw)
    verify(ctx, d, inp, "/A", ["transpose", "in.h5"], os.path.join(d, "in.T.h5"), "/A")


def padded_compound():
    t = h5t.create(h5t.COMPOUND, 24)
    t.insert(b"a", 0, h5t.STD_U8LE)
    t.insert(b"b", 8, h5t.IEEE_F64LE)
    t.insert(b"c", 16, h5t.array_create(h5t.STD_I16LE, (3,)))
    return t


def tagged_opaque(size, tag):
    t = h5t.create(h5t.OPAQUE, size)
    t.set_tag(tag)
    return t


COMPOUND12 = np.dtype([("a", "<i4"), ("b", "<f4"), ("c", "<u2"), ("d", "u1"), ("e", "u1")])
COMPOUND_MIXED_ORDER = np.dtype([("x", ">f8"), ("y", "<i2")])
COMPOUND_NESTED = np.dtype([("p", [("x", "<f4"), ("y", "<f4")]), ("q", "u1")])
COMPOUND_ARRAY = np.dtype([("v", "<f4", (3,)), ("k", "<u2")])
COMPOUND32 = np.dtype([("w", "<f8"), ("x", "<f8"), ("y", "<f8"), ("z", "<f8")])
ENUM8 = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 2, "BLACK": -1}, basetype="i1")


def transpose_cases(ctx):
    c = ctx.suite.case
    # shapes that stress the row/column split (i32, contiguous)
    for sh in [(1, 1), (1, 2), (2, 1), (2, 3), (3, 2), (1, 97), (97, 1), (4, 4), (5, 5),
               (7, 3), (3, 7), (13, 17), (101, 103), (4, 1000), (1000, 4)]:
        name = "shape_%dx%d_i32" % sh
        c(name, case_np, ctx, name, "<i4", sh, seed=sh[0] * 1000 + sh[1])
    # element types
    types = [
        ("i8", "i1", (37, 53)), ("u8", "u1", (19, 23)), ("i16", "<i2", (23, 29)),
        ("u16", "<u2", (101, 7)), ("i32", "<i4", (64, 64)), ("u32", "<u4", (9, 11)),
        ("i64", "<i8", (31, 37)), ("u64_row", "<u8", (1, 97)), ("u64", "<u8", (43, 41)),
        ("f16_col", "<f2", (97, 1)), ("f16", "<f2", (37, 41)), ("f32", "<f4", (59, 67)),
        ("f64_large", "<f8", (389, 517)), ("i8_large", "i1", (331, 797)),
        ("u16_large", "<u2", (517, 389)), ("opaque_V3_large", "V3", (300, 301)),
        ("compound12_large", COMPOUND12, (127, 257)),
        ("f64be", ">f8", (61, 43)), ("i32be", ">i4", (29, 83)), ("u16be", ">u2", (17, 5)),
        ("f32be", ">f4", (11, 13)), ("i64be", ">i8", (7, 9)), ("f16be", ">f2", (5, 3)),
        ("c64", "<c8", (47, 59)), ("c128", "<c16", (33, 17)), ("c64be", ">c8", (13, 19)),
        ("c128be", ">c16", (3, 11)),
        ("compound12", COMPOUND12, (41, 31)), ("compound_mixed_order", COMPOUND_MIXED_ORDER,
                                                (19, 7)),
        ("compound_nested", COMPOUND_NESTED, (11, 23)), ("compound_array_member",
                                                         COMPOUND_ARRAY, (17, 13)),
        ("compound32", COMPOUND32, (9, 10)),
        ("opaque_V3", "V3", (29, 31)), ("opaque_V7", "V7", (3, 40)), ("opaque_V64", "V64",
                                                                     (9, 10)),
        ("enum_i8", ENUM8, (15, 16)), ("bool", "?", (21, 22)),
    ]
    for name, dt, sh in types:
        nm = "type_" + name
        if dt is ENUM8:
            c(nm, case_enum, ctx, nm, sh)
        else:
            c(nm, case_np, ctx, nm, dt, sh, seed=zlib.crc32(name.encode()))
    c("type_opaque_V5_tagged", case_low, ctx, "type_opaque_V5_tagged",
      tagged_opaque(5, b"gpipe-test:opaque5"), (23, 19), seed=55, chunks=(5, 4))
    c("type_opaque_V3_tagged_contig", case_low, ctx, "type_opaque_V3_tagged_contig",
      tagged_opaque(3, b"three"), (7, 12), seed=56)
    c("type_compound_padded_24", case_low, ctx, "type_compound_padded_24", padded_compound(),
      (13, 11), seed=57)
    c("type_array_f32_2x2", case_low, ctx, "type_array_f32_2x2",
      h5t.array_create(h5t.IEEE_F32LE, (2, 2)), (10, 9), seed=58)
    c("type_bitfield_b16be", case_low, ctx, "type_bitfield_b16be", h5t.STD_B16BE.copy(),
      (12, 5), seed=59)
    # layouts and filters
    c("chunked_16x3", case_np, ctx, "chunked_16x3", "<u2", (101, 7), 60, chunks=(16, 3))
    c("chunked_gzip", case_np, ctx, "chunked_gzip", "<f4", (211, 157), 61, chunks=(32, 32),
      compression="gzip", compression_opts=4)
    c("chunked_shuffle_gzip_fletcher", case_np, ctx, "chunked_shuffle_gzip_fletcher", "<i4",
      (100, 77), 62, chunks=(7, 11), shuffle=True, compression="gzip", fletcher32=True)
    c("chunked_row_chunks", case_np, ctx, "chunked_row_chunks", "<f8", (50, 37), 63,
      chunks=(1, 37))
    c("chunked_col_chunks", case_np, ctx, "chunked_col_chunks", "<f8", (37, 50), 64,
      chunks=(37, 1))
    c("chunked_one_big_chunk", case_np, ctx, "chunked_one_big_chunk", ">f8", (61, 43), 65,
      chunks=(61, 43), compression="gzip")
    c("chunked_unlimited_maxshape", case_unlimited, ctx, "chunked_unlimited_maxshape")
    c("chunked_unwritten_fill", case_fill, ctx, "chunked_unwritten_fill")
    c("chunked_unwritten_fill_direct", case_fill, ctx, "chunked_unwritten_fill_direct",
      ["--strategy", "direct"])
    c("chunked_unwritten_fill_panel2", case_fill, ctx, "chunked_unwritten_fill_panel2",
      ["--panel-rows", "2"])
    c("compact_layout", case_low, ctx, "compact_layout", h5t.IEEE_F64LE.copy(), (5, 7), 66,
      compact=True)
    c("c64_chunked_gzip", case_np, ctx, "c64_chunked_gzip", "<c8", (40, 33), 67,
      chunks=(9, 9), compression="gzip")
    c("compound12_chunked", case_np, ctx, "compound12_chunked", COMPOUND12, (41, 31), 68,
      chunks=(8, 8), compression="gzip")
    # paths and options
    c("group_default_dataset", case_group, ctx, "group_default_dataset", False)
    c("group_with_d", case_group, ctx, "group_with_d", True)
    c("output_and_output_dataset", case_out_dset, ctx, "output_and_output_dataset", "/At")
    c("output_dataset_nested", case_out_dset, ctx, "output_dataset_nested", "/x/y/At")
    c("output_other_dir_long_options", case_other_dir, ctx)
    c("default_name_hdf5_ext", case_default_name, ctx, "default_name_hdf5_ext", "b.hdf5",
      "b.T.h5")
    c("default_name_dotted_stem", case_default_name, ctx, "default_name_dotted_stem",
      "c.data.h5", "c.data.T.h5")
    c("default_name_no_ext", case_default_name, ctx, "default_name_no_ext", "matrix",
      "matrix.T.h5")
    c("default_name_relative_subdir", case_relative_subdir, ctx)
    c("default_name_abs_input_other_cwd", case_abs_other_cwd, ctx)
    c("force_over_text_file", case_force_text, ctx)
    c("force_over_hdf5_file", case_force_hdf5, ctx)
    c("quiet", case_flags, ctx, "quiet", ["--quiet"], True)
    c("device_cpu", case_flags, ctx, "device_cpu", ["--device", "cpu"], False)
    c("device_auto", case_flags, ctx, "device_auto", ["--device", "auto"], False)
    c("double_transpose_is_identity", case_double, ctx)
    c("short_options_f_q", case_short_options, ctx)
    # the pipeline's other paths: strategies, panels (out of core), chunked output
    pipeline_cases(ctx)


def case_enum(ctx, name, shape):
    d = ctx.suite.casedir(name)
    rng = np.random.default_rng(70)
    a = rng.choice(np.array([0, 1, 2, -1], dtype="i1"), size=shape).astype(ENUM8)
    inp = os.path.join(d, "in.h5")
    write_np(inp, "/A", a, mode="w")
    verify(ctx, d, inp, "/A", ["transpose", "in.h5"], os.path.join(d, "in.T.h5"), "/A")


def case_unlimited(ctx, name):
    d = ctx.suite.casedir(name)
    rng = np.random.default_rng(71)
    a = rand_array("<f8", (30, 21), rng)
    inp = os.path.join(d, "in.h5")
    with h5py.File(inp, "w") as f:
        ds = f.create_dataset("/A", shape=(10, 5), maxshape=(None, None), chunks=(4, 4),
                              dtype="<f8")
        ds.resize((30, 21))
        ds[...] = a
    verify(ctx, d, inp, "/A", ["transpose", "in.h5"], os.path.join(d, "in.T.h5"), "/A")


def case_fill(ctx, name, flags=()):
    """Chunked input where some chunks were never written (h5py allocates chunks on write):
    those read as the fill value. HDF5 reports the dataset as partially allocated."""
    d = ctx.suite.casedir(name)
    inp = os.path.join(d, "in.h5")
    with h5py.File(inp, "w") as f:
        ds = f.create_dataset("/A", shape=(23, 19), chunks=(4, 4), dtype="<i4", fillvalue=-7)
        ds[0:5, 0:3] = np.arange(15, dtype="<i4").reshape(5, 3)
        ds[20:23, 10:19] = 99
    verify(ctx, d, inp, "/A", ["transpose", "in.h5"] + list(flags), os.path.join(d, "in.T.h5"),
           "/A")


def _group_file(path, extra_2d):
    rng = np.random.default_rng(72)
    with h5py.File(path, "w") as f:
        f.create_dataset("/grp/sub/A", data=rand_array(">f8", (27, 14), rng),
                         chunks=(5, 5), compression="gzip")
        f.create_dataset("/v1", data=np.arange(10, dtype="<i4"))
        f.create_dataset("/grp/v3", data=np.zeros((2, 3, 4), "<f4"))
        f.create_dataset("/grp/s", data=np.int64(5))
        f.attrs["note"] = "only /grp/sub/A is 2-D" if not extra_2d else "two 2-D datasets"
        if extra_2d:
            f.create_dataset("/B", data=rand_array("<i2", (4, 6), rng))


def case_group(ctx, name, with_d):
    d = ctx.suite.casedir(name)
    inp = os.path.join(d, "g.h5")
    _group_file(inp, with_d)
    argv = ["transpose", "g.h5"] + (["-d", "/grp/sub/A"] if with_d else [])
    verify(ctx, d, inp, "/grp/sub/A", argv, os.path.join(d, "g.T.h5"), "/grp/sub/A")


def case_out_dset(ctx, name, out_dset):
    d = ctx.suite.casedir(name)
    inp = os.path.join(d, "g.h5")
    _group_file(inp, True)
    verify(ctx, d, inp, "/grp/sub/A", ["transpose", "g.h5", "-d", "/grp/sub/A", "-o", "res.h5",
                                       "--output-dataset", out_dset],
           os.path.join(d, "res.h5"), out_dset)


def case_other_dir(ctx):
    d = ctx.suite.casedir("output_other_dir_long_options")
    os.makedirs(os.path.join(d, "in"))
    os.makedirs(os.path.join(d, "results"))
    inp = os.path.join(d, "in", "m.h5")
    write_np(inp, "/M", rand_array("<u4", (45, 16), np.random.default_rng(73)), mode="w")
    r = verify(ctx, d, inp, "/M", ["transpose", "in/m.h5", "--dataset", "/M", "--output",
                                   "results/mt.h5"], os.path.join(d, "results", "mt.h5"), "/M")
    check(not os.path.exists(os.path.join(d, "in", "m.T.h5")),
          "default output also written although --output was given\n" + r.describe())


def case_default_name(ctx, name, in_name, out_name):
    d = ctx.suite.casedir(name)
    inp = os.path.join(d, in_name)
    write_np(inp, "/A", rand_array("<i2", (12, 8), np.random.default_rng(74)), mode="w")
    verify(ctx, d, inp, "/A", ["transpose", in_name], os.path.join(d, out_name), "/A")


def case_relative_subdir(ctx):
    d = ctx.suite.casedir("default_name_relative_subdir")
    os.makedirs(os.path.join(d, "sub"))
    inp = os.path.join(d, "sub", "x.h5")
    write_np(inp, "/A", rand_array("<f4", (9, 14), np.random.default_rng(75)), mode="w")
    r = verify(ctx, d, inp, "/A", ["transpose", "sub/x.h5"], os.path.join(d, "sub", "x.T.h5"),
               "/A")
    check(not os.path.exists(os.path.join(d, "x.T.h5")), "output also written in cwd\n" +
          r.describe())


def case_abs_other_cwd(ctx):
    d = ctx.suite.casedir("default_name_abs_input_other_cwd")
    os.makedirs(os.path.join(d, "data"))
    os.makedirs(os.path.join(d, "elsewhere"))
    inp = os.path.join(d, "data", "y.h5")
    write_np(inp, "/A", rand_array("<f8", (6, 11), np.random.default_rng(76)), mode="w")
    r = verify(ctx, d, inp, "/A", ["transpose", inp], os.path.join(d, "data", "y.T.h5"), "/A",
               cwd=os.path.join(d, "elsewhere"))
    check(not os.listdir(os.path.join(d, "elsewhere")), "files written into the cwd\n" +
          r.describe())


def case_force_text(ctx):
    d = ctx.suite.casedir("force_over_text_file")
    inp = os.path.join(d, "in.h5")
    write_np(inp, "/A", rand_array("<f8", (17, 6), np.random.default_rng(77)), mode="w")
    with open(os.path.join(d, "out.h5"), "w") as f:
        f.write("old junk\n")
    verify(ctx, d, inp, "/A", ["transpose", "in.h5", "-o", "out.h5", "--force"],
           os.path.join(d, "out.h5"), "/A")


def case_force_hdf5(ctx):
    d = ctx.suite.casedir("force_over_hdf5_file")
    inp = os.path.join(d, "in.h5")
    write_np(inp, "/A", rand_array(">i4", (8, 13), np.random.default_rng(78)), mode="w")
    out = os.path.join(d, "in.T.h5")
    with h5py.File(out, "w") as f:
        f["/A"] = np.zeros((2, 2))          # same path, wrong shape and type
        f["/old"] = np.arange(3)
    verify(ctx, d, inp, "/A", ["transpose", "in.h5", "--force"], out, "/A")
    with h5py.File(out, "r") as f:
        check("old" not in f, "--force kept the old file's /old dataset: the output must "
              "replace the existing file, not be merged into it")


def case_flags(ctx, name, flags, quiet):
    d = ctx.suite.casedir(name)
    inp = os.path.join(d, "in.h5")
    write_np(inp, "/A", rand_array("<f8", (25, 18), np.random.default_rng(79)), mode="w")
    verify(ctx, d, inp, "/A", ["transpose", "in.h5"] + flags, os.path.join(d, "in.T.h5"), "/A",
           quiet=quiet)


def case_double(ctx):
    d = ctx.suite.casedir("double_transpose_is_identity")
    inp = os.path.join(d, "a.h5")
    a = rand_array(COMPOUND12, (29, 37), np.random.default_rng(80))
    write_np(inp, "/A", a, mode="w")
    verify(ctx, d, inp, "/A", ["transpose", "a.h5"], os.path.join(d, "a.T.h5"), "/A")
    verify(ctx, d, os.path.join(d, "a.T.h5"), "/A", ["transpose", "a.T.h5"],
           os.path.join(d, "a.T.T.h5"), "/A")
    with h5py.File(os.path.join(d, "a.T.T.h5"), "r") as f:
        check(gc.read_raw(f["/A"]).tobytes() == a.tobytes(), "A.T.T differs from A")


def case_short_options(ctx):
    d = ctx.suite.casedir("short_options_f_q")
    inp = os.path.join(d, "in.h5")
    write_np(inp, "/A", rand_array("<f4", (14, 9), np.random.default_rng(81)), mode="w")
    with open(os.path.join(d, "o.h5"), "w") as f:
        f.write("old\n")
    verify(ctx, d, inp, "/A", ["transpose", "in.h5", "-o", "o.h5", "-f", "-q"],
           os.path.join(d, "o.h5"), "/A", quiet=True)


def case_opts(ctx, name, maker, shape, flags, out_chunks=None, seed=90):
    """Input from maker (numpy dtype, or an h5t TypeID for raw bytes), then transpose with
    extra flags."""
    d = ctx.suite.casedir(name)
    rng = np.random.default_rng(seed)
    inp = os.path.join(d, "in.h5")
    if isinstance(maker, h5t.TypeID):
        write_lowlevel(inp, "/A", maker, shape, rng.bytes(int(np.prod(shape)) *
                                                        maker.get_size()), mode="w")
    else:
        write_np(inp, "/A", rand_array(maker, shape, rng), mode="w")
    verify(ctx, d, inp, "/A", ["transpose", "in.h5", "--quiet"] + flags,
           os.path.join(d, "in.T.h5"), "/A", out_chunks=out_chunks)


def case_threads_auto(ctx):
    """The CPU backend's threads per rank, as the JSON summary names them: --threads N as given,
    and by default the rank's CPUs shared with the node's ranks whose CPUs overlap them: launched
    with --bind-to none, every rank's mask is this process's, so N CPUs give N // ranks."""
    d = ctx.suite.casedir("threads_auto")
    inp = os.path.join(d, "in.h5")
    write_np(inp, "/A", rand_array("<f4", (1031, 2053), np.random.default_rng(95)), mode="w")
    ncpu = len(os.sched_getaffinity(0))
    for flags, want in (([], max(1, ncpu // ctx.np)), (["--threads", "3"], 3)):
        js = os.path.join(d, "run%d.jsonl" % want)
        verify(ctx, d, inp, "/A", ["transpose", "in.h5", "--device", "cpu", "--force", "-q", "--json", js] + flags,
               os.path.join(d, "in.T.h5"), "/A", launch=["--bind-to", "none"])
        with open(js) as f:
            backend = json.loads(f.readline())["backend"]
        ok = ("%d threads)" % want in backend) if want > 1 else backend.endswith(")") and "threads" not in backend
        check(ok, "%s: backend %r, expected %d thread(s) (%d CPUs, %d ranks)" % (flags, backend, want, ncpu, ctx.np))


def case_strategy_auto(ctx):
    """--strategy auto (the default), as the JSON summary names it: on one node with 1 or 2 ranks
    direct when every rank's column slab has rows of >= 8 KiB, else alltoall; alltoall for
    compressed chunks (direct would decode a chunk once per rank whose slab crosses it); one rank:
    direct. An explicit strategy as given."""
    d = ctx.suite.casedir("strategy_auto")
    rng = np.random.default_rng(96)
    one = ctx.np == 1
    wide, narrow, gz = (os.path.join(d, n) for n in ("wide.h5", "narrow.h5", "gz.h5"))
    write_np(wide, "/A", rand_array("<f8", (7, 4099), rng), mode="w")      # slab rows >= 8192 B at 1-4 ranks
    write_np(narrow, "/A", rand_array("<f8", (257, 131), rng), mode="w")   # at 2 ranks 520 B
    write_np(gz, "/A", rand_array("<i4", (37, 4099), rng), mode="w", chunks=(16, 64), compression="gzip")
    wide_auto = "direct" if ctx.np < 3 else "alltoall"
    for inp, flags, want in ((wide, [], wide_auto), (narrow, [], "direct" if one else "alltoall"),
                             (gz, [], "direct" if one else "alltoall"),
                             (wide, ["--strategy", "alltoall"], "alltoall"), (narrow, ["--strategy", "direct"], "direct"),
                             (gz, ["--strategy", "direct"], "direct"), (wide, ["--strategy", "auto"], wide_auto)):
        js = os.path.join(d, "run.jsonl")
        if os.path.exists(js):
            os.unlink(js)
        base = os.path.basename(inp)
        verify(ctx, d, inp, "/A", ["transpose", base, "--force", "-q", "--json", js] + flags,
               os.path.join(d, base.replace(".h5", ".T.h5")), "/A")
        with open(js) as f:
            got = json.loads(f.readline())["strategy"]
        check(got == want, "%s %s: strategy %r, expected %r (%d ranks)" % (base, flags, got, want, ctx.np))


def pipeline_cases(ctx):
    c = ctx.suite.case
    inputs = [("i32_2x3", "<i4", (2, 3)), ("i32_101x103", "<i4", (101, 103)),
              ("f32_1x97", "<f4", (1, 97)), ("f64be_97x1", ">f8", (97, 1)),
              ("compound12_41x31", COMPOUND12, (41, 31)),
              ("opaque5_23x19", tagged_opaque(5, b"gpipe-test:opaque5"), (23, 19)),
              ("c128_33x17", "<c16", (33, 17)), ("u8_200x131", "u1", (200, 131))]
    # these inputs are narrow: the default (auto) is direct at 1 rank and alltoall at more (slab
    # rows < 8 KiB), so each strategy is also named
    variants = [("alltoall", ["--strategy", "alltoall"], None),
                ("direct", ["--strategy", "direct"], None),
                ("alltoall_panel1", ["--strategy", "alltoall", "--panel-rows", "1"], None),
                ("panel3", ["--panel-rows", "3"], None),
                ("direct_panel2", ["--strategy", "direct", "--panel-rows", "2"], None),
                ("alltoall_mem64K", ["--strategy", "alltoall", "--mem", "64K"], None)]
    for iname, maker, shape in inputs:
        for vname, flags, _ in variants:
            nm = "opt_%s_%s" % (vname, iname)
            c(nm, case_opts, ctx, nm, maker, shape, flags)
    c("threads_auto", case_threads_auto, ctx)
    c("strategy_auto", case_strategy_auto, ctx)
    # threaded CPU transposes (calls of >= 4 MiB are cut into parts, one per thread)
    for nm, maker, shape, flags in [("opt_threads3_f64_2053x1031", "<f8", (2053, 1031), ["--threads", "3"]),
                                    ("opt_threads2_u8_1999x4099", "u1", (1999, 4099), ["--threads", "2"]),
                                    ("opt_threads5_c128_523x1021", "<c16", (523, 1021),
                                     ["--threads", "5", "--device", "cpu"])]:
        c(nm, case_opts, ctx, nm, maker, shape, flags)
    for iname, maker, shape, chunk in [("f64_389x517", "<f8", (389, 517), (16, 16)),
                                       ("i16_37x5", "<i2", (37, 5), (5, 37)),
                                       ("compound12_41x31", COMPOUND12, (41, 31), (7, 3))]:
        for vname, flags in [("alltoall", ["--strategy", "alltoall"]), ("direct", ["--strategy", "direct"]),
                             ("panel2", ["--panel-rows", "2"])]:
            nm = "opt_out_chunk_%s_%s" % (vname, iname)
            c(nm, case_opts, ctx, nm, maker, shape,
              flags + ["--chunk", "%dx%d" % chunk], out_chunks=chunk)


# ---------------------------------------------------------------------------------------------
# gen cases

GEN_DTYPES = {"i8": "i1", "i16": "i2", "i32": "i4", "i64": "i8", "u8": "u1", "u16": "u2",
              "u32": "u4", "u64": "u8", "f16": "f2", "f32": "f4", "f64": "f8", "c64": "c8",
              "c128": "c16"}


def gen_expected_dtype(name):
    order = "<"
    base = name
    if name.endswith("be") or name.endswith("le"):
        order = ">" if name.endswith("be") else "<"
        base = name[:-2]
    return np.dtype(order + GEN_DTYPES[base]), order


def gen_file(ctx, d, fname, argv, np_):
    path = os.path.join(d, fname)
    r = ctx.run(["gen", fname] + argv, np_, cwd=d)
    gc.expect_ok(r, "gpipe gen")
    check(os.path.isfile(path), "gen did not create %s\n%s" % (fname, r.describe()))
    left = gc.tmp_leftovers(d)
    check(not left, "temporary files left: %s\n%s" % (left, r.describe()))
    return path, r


def case_gen_dtype(ctx, name, dt):
    d = ctx.suite.casedir(name)
    shape = (23, 17)
    path, r = gen_file(ctx, d, "g.h5", ["--shape", "%dx%d" % shape, "--dtype", dt, "--seed",
                                        "5"], ctx.np)
    want, order = gen_expected_dtype(dt)
    with h5py.File(path, "r") as f:
        check("data" in f, "no /data in gen output (default dataset)\n" + r.describe())
        ds = f["/data"]
        check(ds.shape == shape, "shape %s, expected %s" % (ds.shape, shape))
        check(ds.dtype == want and ds.dtype.str == want.str,
              "dtype %s, expected %s" % (ds.dtype.str, want.str))
        tid = ds.id.get_type()
        if want.kind == "c":
            check(tid.get_class() == h5t.COMPOUND and tid.get_nmembers() == 2 and
                  tid.get_member_name(0) == b"r" and tid.get_member_name(1) == b"i",
                  "complex is not h5py's compound {r,i}: %s" % describe_type(tid, ds.dtype))
            tid = tid.get_member_type(0)
        if tid.get_size() > 1:
            want_order = h5t.ORDER_BE if order == ">" else h5t.ORDER_LE
            check(tid.get_order() == want_order, "HDF5 byte order %s, expected %s" % (
                "BE" if tid.get_order() == h5t.ORDER_BE else "LE", order))
        raw = gc.read_raw(ds)
        check(len(np.unique(raw.reshape(-1))) > 1, "generated data is constant")
        if want.kind in "fc":  # `gpipe gen --help`: "Floats are uniform in [-1, 1)"
            v = ds[...]
            parts = [v.real, v.imag] if want.kind == "c" else [v]
            for p in parts:
                p = p.astype(np.float64)
                check(np.isfinite(p).all(), "generated floats include NaN/inf")
                check(p.min() >= -1.0 and p.max() < 1.0, "generated floats outside [-1, 1): "
                      "min %r max %r" % (p.min(), p.max()))


def case_gen_chunks(ctx):
    d = ctx.suite.casedir("gen_chunks_and_dataset")
    path, r = gen_file(ctx, d, "g.h5", ["--shape", "37x29", "--dtype", "f32", "--chunk", "8x5",
                                        "--seed", "3", "--dataset", "/grp/m"], ctx.np)
    with h5py.File(path, "r") as f:
        check("/grp/m" in f, "no /grp/m in gen output\n" + r.describe())
        ds = f["/grp/m"]
        check(ds.shape == (37, 29), "shape %s" % (ds.shape,))
        check(ds.chunks == (8, 5), "chunks %s, expected (8, 5)" % (ds.chunks,))
        check(ds.dtype == np.dtype("<f4"), "dtype %s" % ds.dtype)


def case_gen_shapes(ctx, name, shape, dt):
    d = ctx.suite.casedir(name)
    path, r = gen_file(ctx, d, "g.h5", ["--shape", "%dx%d" % shape, "--dtype", dt], ctx.np)
    with h5py.File(path, "r") as f:
        check(f["/data"].shape == shape, "shape %s, expected %s" % (f["/data"].shape, shape))


def gen_raw(ctx, d, fname, argv, np_):
    path, r = gen_file(ctx, d, fname, argv, np_)
    with h5py.File(path, "r") as f:
        ds = f["/data"]
        return gc.read_raw(ds).tobytes(), ds.chunks, r


def case_gen_determinism(ctx, name, dt, shape, chunk):
    d = ctx.suite.casedir(name)
    base = ["--shape", "%dx%d" % shape, "--dtype", dt] + (["--chunk", chunk] if chunk else [])
    nps = sorted({1, 3, ctx.np})
    got = {}
    for n in nps:
        got[n] = gen_raw(ctx, d, "s11_np%d.h5" % n, base + ["--seed", "11"], n)
    ref = got[1][0]
    for n in nps[1:]:
        check(got[n][0] == ref, "gen --seed 11 at %d ranks differs from 1 rank (%s)" % (
            n, gc.first_difference(got[n][0], ref, shape, np.dtype(gen_expected_dtype(dt)[0])
                                   .itemsize)))
    other = gen_raw(ctx, d, "s12.h5", base + ["--seed", "12"], ctx.np)[0]
    check(other != ref, "gen --seed 12 gives the same data as --seed 11")
    again = gen_raw(ctx, d, "s11_again.h5", base + ["--seed", "11"], ctx.np)[0]
    check(again == ref, "gen --seed 11 is not reproducible at %d ranks" % ctx.np)


def case_gen_roundtrip(ctx, name, dt, shape, chunk):
    d = ctx.suite.casedir(name)
    path, _ = gen_file(ctx, d, "m.h5", ["--shape", "%dx%d" % shape, "--dtype", dt, "--chunk",
                                        chunk, "--seed", "9"], ctx.np)
    verify(ctx, d, path, "/data", ["transpose", "m.h5"], os.path.join(d, "m.T.h5"), "/data")


def case_gen_force(ctx):
    d = ctx.suite.casedir("gen_force")
    with open(os.path.join(d, "g.h5"), "w") as f:
        f.write("old\n")
    path, r = gen_file(ctx, d, "g.h5", ["--shape", "6x4", "--dtype", "i16", "--force"], ctx.np)
    with h5py.File(path, "r") as f:
        check(f["/data"].shape == (6, 4), "gen --force did not write the new dataset")


def gen_cases(ctx):
    c = ctx.suite.case
    names = list(GEN_DTYPES) + ["f64be", "f64le", "i32be", "u16be", "i64le", "f32be", "f16be",
                                "c64be", "c128be", "u8be"]
    for dt in names:
        c("gen_dtype_" + dt, case_gen_dtype, ctx, "gen_dtype_" + dt, dt)
    c("gen_chunks_and_dataset", case_gen_chunks, ctx)
    for sh in [(1, 1), (1, 50), (50, 1), (2, 3)]:
        nm = "gen_shape_%dx%d" % sh
        c(nm, case_gen_shapes, ctx, nm, sh, "f64")
    c("gen_determinism_f64_chunked", case_gen_determinism, ctx, "gen_determinism_f64_chunked",
      "f64", (101, 37), "16x16")
    c("gen_determinism_i16be", case_gen_determinism, ctx, "gen_determinism_i16be", "i16be",
      (57, 13), None)
    c("gen_determinism_c64", case_gen_determinism, ctx, "gen_determinism_c64", "c64",
      (5, 40), "2x7")
    c("gen_then_transpose_c128", case_gen_roundtrip, ctx, "gen_then_transpose_c128", "c128",
      (31, 29), "8x8")
    c("gen_then_transpose_u8", case_gen_roundtrip, ctx, "gen_then_transpose_u8", "u8",
      (200, 131), "64x32")
    c("gen_force", case_gen_force, ctx)


def main():
    args = gc.parse_args(__doc__, extra=lambda ap: ap.add_argument(
        "--skip-gen", action="store_true", help="only the transpose cases"))
    suite = gc.Suite("transpose-np%d" % args.np, args)
    ctx = Ctx(suite, args.np)
    transpose_cases(ctx)
    if not args.skip_gen:
        gen_cases(ctx)
    return suite.finish()


if __name__ == "__main__":
    sys.exit(main())
