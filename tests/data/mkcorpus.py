#!/usr/bin/python3
"""tests/data/mkcorpus.py — a corpus of malformed and unsupported HDF5 inputs (issue 8): truncated
files, broken signatures, absurd or overflowing dimensions with no data behind them, storage past
the end of the file, unavailable filters, dangling and looping links, unsupported shapes and types,
and hand-corrupted bytes of valid files (chosen deterministically: a signature, a version, an
address, a size field, a byte under a checksum). Made with h5py/numpy plus raw byte edits located
from h5py's own addresses or unique byte patterns, never from gpipe.

Every entry of CORPUS is a file gpipe must refuse: exit 2, one `gpipe: error:` line naming the
file, no output. tests/mpi/check_corpus.py runs them; run this directly to look at the files:

    /usr/bin/python3 tests/data/mkcorpus.py DIR      # writes DIR/<name>.h5 (+ helpers), lists them
"""
import os
import struct
import sys

try:
    import numpy as np
    import h5py
    from h5py import h5d, h5p, h5s, h5t
except ImportError as e:
    sys.stderr.write("FAIL: mkcorpus.py needs numpy and h5py (%s); use /usr/bin/python3\n" % e)
    sys.exit(3)

# cause patterns (case-insensitive regular expressions) the one-line message must match
NOT_HDF5 = r"not an hdf5|signature|cannot open as hdf5"
TRUNC = r"truncat|end of the file|past the end|eof|eoa|cannot open as hdf5|corrupt"
CORRUPT = r"corrupt|cannot open|cannot list|truncat|checksum|signature|version|invalid|read|" \
          r"eof|eoa|address|unable|bad|fail"
ABSURD = r"never written|no data|overflow|too large|absurd|exceed"
FILTER = r"filter|compress"
LINK = r"dangling|link|cannot be opened|does not exist|no dataset"
SHAPE = r"2-d|dimension|scalar"
TYPE = r"not supported|unsupported"


# ---- helpers ------------------------------------------------------------------------------------
def _data(shape, dtype="<f8", seed=7):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a.astype(dtype)


def _valid(path, shape=(64, 48), dtype="<f8", libver=None, **kw):
    """A valid file with one 2-D dataset /A; returns (object header address, data offset)."""
    with h5py.File(path, "w", libver=libver) as f:
        d = f.create_dataset("/A", data=_data(shape, dtype), **kw)
        addr = h5py.h5o.get_info(d.id).addr
        off = d.id.get_offset()
    return addr, off


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _patch(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def _cut(path, n):
    with open(path, "r+b") as f:
        f.truncate(n)


def _find(path, pattern, start=0, unique=True):
    """Offset of pattern in the file (from start); it must occur exactly once if unique."""
    b = _read(path)
    i = b.find(pattern, start)
    if i < 0:
        raise RuntimeError("%s: pattern %r not found" % (path, pattern))
    if unique and b.find(pattern, i + 1) >= 0:
        raise RuntimeError("%s: pattern %r is not unique" % (path, pattern))
    return i


def _patch_all(path, old, new):
    """Replace every occurrence of old (at least one) by new, of the same length."""
    b = _read(path)
    if old not in b:
        raise RuntimeError("%s: pattern %r not found" % (path, old))
    with open(path, "wb") as f:
        f.write(b.replace(old, new))


def _chunk_btree(path):
    """Offset of the (only) v1 B-tree node of raw-data chunks: signature TREE, node type 1."""
    b = _read(path)
    i = b.find(b"TREE")
    while i >= 0 and b[i + 4] != 1:
        i = b.find(b"TREE", i + 1)
    if i < 0:
        raise RuntimeError("%s: no chunk B-tree" % path)
    return i


def _unwritten(path, shape, tid, chunks=None, dset="/A"):
    """A dataset of the given shape that was created but never written (no storage at all)."""
    with h5py.File(path, "w") as f:
        dcpl = h5p.create(h5p.DATASET_CREATE)
        if chunks:
            dcpl.set_chunk(tuple(chunks))
        space = h5s.create_simple(tuple(shape))
        h5d.create(f.id, dset.lstrip("/").encode(), tid, space, dcpl=dcpl)


# ---- the makers: each writes `path` and returns the -d argument (None: let gpipe find it) ------
def m_empty(p):
    open(p, "wb").close()


def m_text(p):
    with open(p, "w") as f:
        f.write("# this is a CSV export, not HDF5\n" + "1,2,3\n" * 200)


def m_bad_signature(p):
    _valid(p)
    _patch(p, 1, b"HDX")             # \x89HDF\r\n\x1a\n -> \x89HDX...


def m_hdf4_magic(p):
    with open(p, "wb") as f:         # an HDF4 file's magic number, then junk
        f.write(b"\x0e\x03\x13\x01" + bytes(range(256)) * 8)


def m_trunc_superblock(p):
    _valid(p)
    _cut(p, 40)


def m_trunc_root_group(p):
    _valid(p)
    _cut(p, 150)                      # superblock v0 is 96 bytes; the root group follows


def m_trunc_object_header(p):
    addr, _ = _valid(p)
    _cut(p, addr + 24)


def m_trunc_mid_data(p):
    _, off = _valid(p, shape=(256, 200))
    _cut(p, off + 256 * 200 * 8 // 2)


def m_trunc_mid_chunks(p):
    _valid(p, shape=(256, 200), chunks=(32, 40), compression="gzip")
    _cut(p, int(os.path.getsize(p) * 0.7))


def m_trunc_latest(p):
    _, off = _valid(p, shape=(256, 200), libver="latest")
    _cut(p, off + 1000)


def m_trunc_eof_patched(p):
    """Cut in the middle of the data and make the superblock's end-of-file address agree, so
    HDF5's truncation check on open passes: the data now ends past the end of the file."""
    _, off = _valid(p, shape=(256, 200))
    n = off + 256 * 200 * 8 // 2
    _cut(p, n)
    _patch(p, 40, struct.pack("<Q", n))      # superblock v0: end-of-file address at byte 40


def _contig_layout(p, off):
    """Offset of the contiguous layout message body (version 3, class 1, address, size)."""
    return _find(p, struct.pack("<BBQ", 3, 1, off))


def m_data_address_past_eof(p):
    _, off = _valid(p)
    _patch(p, _contig_layout(p, off) + 2, struct.pack("<Q", 1 << 40))


def m_data_address_wraps(p):
    _, off = _valid(p)
    _patch(p, _contig_layout(p, off) + 2, struct.pack("<Q", 0xFFFFFFFFFFFFF000))


def m_data_size_mismatch(p):
    _, off = _valid(p)
    _patch(p, _contig_layout(p, off) + 10, struct.pack("<Q", 1 << 50))


def m_dims_patched_contig(p):
    """Written 64x48 contiguous data, dataspace patched to 2^32 x 48: the shape no longer matches
    the stored bytes."""
    _valid(p)
    _patch_all(p, struct.pack("<QQ", 64, 48), struct.pack("<QQ", 1 << 32, 48))  # dims, max dims


def m_absurd_contig_unwritten(p):
    """2^24 x 2^24 f64 (2 PiB) contiguous in a file of a few KiB: nothing behind it."""
    _unwritten(p, (1 << 24, 1 << 24), h5t.IEEE_F64LE)


def m_absurd_chunked_unwritten(p):
    """2^31 x 2^31 u8 (4 EiB) chunked, no chunk written."""
    _unwritten(p, (1 << 31, 1 << 31), h5t.STD_U8LE, chunks=(1024, 1024))


def m_absurd_element(p):
    """A 4x4 dataset of 2^18 x 2^18 f64 arrays: 512 GiB per element, 8 TiB in all, unwritten."""
    _unwritten(p, (4, 4), h5t.array_create(h5t.IEEE_F64LE, (1 << 18, 1 << 18)))


def m_dims_overflow(p):
    """2^40 x 2^40 f64: the size in bytes does not fit in 64 bits (the dataspace patched after
    creating a small unwritten chunked dataset with unique dimensions)."""
    _unwritten(p, (3001, 2003), h5t.IEEE_F64LE, chunks=(100, 100))
    _patch_all(p, struct.pack("<QQ", 3001, 2003), struct.pack("<QQ", 1 << 40, 1 << 40))


def m_filter_unregistered(p):
    """gzip-compressed chunks whose pipeline message names filter 32123 (registered nowhere)."""
    _valid(p, chunks=(16, 16), compression="gzip")
    i = _find(p, b"deflate\0")
    # pipeline message v1 entry: id(2) name_len(2) flags(2) ncd(2) name(8-padded) cd...
    _patch(p, i - 8, struct.pack("<H", 32123))


def m_filter_lzf(p):
    with h5py.File(p, "w") as f:      # h5py's own LZF: not in a plain HDF5 library
        f.create_dataset("/A", data=_data((50, 40)), chunks=(10, 10), compression="lzf")


def m_dangling_soft(p):
    with h5py.File(p, "w") as f:
        f.create_dataset("/other", data=np.arange(5.0))
        f["/A"] = h5py.SoftLink("/nowhere/A")
    return "/A"


def m_soft_loop(p):
    with h5py.File(p, "w") as f:
        f["/A"] = h5py.SoftLink("/B")
        f["/B"] = h5py.SoftLink("/A")
    return "/A"


def m_external_missing(p):
    with h5py.File(p, "w") as f:
        f["/A"] = h5py.ExternalLink("missing-file-%d.h5" % os.getpid(), "/A")
    return "/A"


def m_external_self_loop(p):
    with h5py.File(p, "w") as f:
        f["/A"] = h5py.ExternalLink(os.path.basename(p), "/A")
    return "/A"


def m_one_d(p):
    with h5py.File(p, "w") as f:
        f.create_dataset("/v", data=np.arange(100.0))
    return "/v"


def m_three_d(p):
    with h5py.File(p, "w") as f:
        f.create_dataset("/c", data=_data((4, 5, 6)))
    return "/c"


def m_scalar(p):
    with h5py.File(p, "w") as f:
        f.create_dataset("/s", data=np.float64(2.5))
    return "/s"


def m_no_2d(p):
    with h5py.File(p, "w") as f:
        f.create_dataset("/v", data=np.arange(10))
        f.create_dataset("/c", data=_data((2, 3, 4)))
        f.create_group("/g").create_dataset("w", data=np.arange(3.0))


def m_group_path(p):
    with h5py.File(p, "w") as f:
        f.create_group("/grp").create_dataset("inner", data=_data((3, 4)))
    return "/grp"


def m_vlen_string(p):
    with h5py.File(p, "w") as f:
        d = f.create_dataset("/A", (3, 4), dtype=h5py.string_dtype("utf-8"))
        d[...] = np.array([["s%d%d" % (i, j) for j in range(4)] for i in range(3)], dtype=object)


def m_references(p):
    with h5py.File(p, "w") as f:
        t = f.create_dataset("/target", data=np.arange(4.0))
        r = f.create_dataset("/A", (2, 2), dtype=h5py.ref_dtype)
        for i in range(2):
            for j in range(2):
                r[i, j] = t.ref
    return "/A"


def m_compound_vlen(p):
    dt = np.dtype([("x", "<f8"), ("name", h5py.string_dtype("utf-8"))])
    with h5py.File(p, "w") as f:
        d = f.create_dataset("/A", (3, 2), dtype=dt)
        d[0, 0] = (1.5, "one")


def m_external_storage_missing(p):
    """Contiguous raw data kept in an external file (H5Pset_external) that no longer exists."""
    raw = os.path.abspath(p) + ".raw"   # absolute: HDF5 resolves relative names from the cwd
    with h5py.File(p, "w") as f:
        f.create_dataset("/A", data=_data((20, 30)), external=[(raw, 0, 20 * 30 * 8)])
    os.unlink(raw)


def m_virtual_dataset(p):
    """A virtual dataset (VDS) mapping two source files, one of them missing."""
    src = os.path.abspath(p) + ".src.h5"
    with h5py.File(src, "w") as f:
        f.create_dataset("/x", data=_data((10, 30)))
    lay = h5py.VirtualLayout(shape=(20, 30), dtype="<f8")
    lay[:10] = h5py.VirtualSource(src, "/x", shape=(10, 30))
    lay[10:] = h5py.VirtualSource(src + ".missing", "/x", shape=(10, 30))
    with h5py.File(p, "w") as f:
        f.create_virtual_dataset("/A", lay, fillvalue=-1.0)
    return "/A"


def m_flip_ohdr_version(p):
    addr, _ = _valid(p)
    _patch(p, addr, b"\x07")                  # object header version 1 -> 7


def m_flip_btree_signature(p):
    _valid(p, shape=(64, 48), chunks=(16, 16))
    _patch(p, _chunk_btree(p), b"TRFE")


def m_flip_btree_child(p):
    """The chunk B-tree's first child (a chunk address) pointed past the end of the file."""
    _valid(p, shape=(64, 48), chunks=(16, 16))
    i = _chunk_btree(p)
    # node: sig(4) type(1) level(1) entries(2) left(8) right(8); key0: size(4) mask(4) offs(3*8)
    _patch(p, i + 24 + 32, struct.pack("<Q", 1 << 40))


def m_flip_chunk_address_many(p):
    """4096 chunks (too many for gpipe to look each up before reading): one leaf entry of the
    chunk B-tree points past the end of the file; only the read itself can notice."""
    _valid(p, shape=(256, 256), chunks=(4, 4))
    b = _read(p)
    i = b.find(b"TREE")
    while i >= 0 and not (b[i + 4] == 1 and b[i + 5] == 0):   # a leaf node of the chunk index
        i = b.find(b"TREE", i + 1)
    if i < 0:
        raise RuntimeError("%s: no chunk B-tree leaf" % p)
    _patch(p, i + 24 + 32, struct.pack("<Q", 1 << 40))


def m_flip_btree_level(p):
    """A leaf of the chunk B-tree claims to be level 3: its children (chunks) read as nodes."""
    _valid(p, shape=(64, 48), chunks=(16, 16))
    _patch(p, _chunk_btree(p) + 5, b"\x03")


def m_flip_btree_self_loop(p):
    """The chunk B-tree claims level 1 and its first child is the node itself: a cycle."""
    _valid(p, shape=(64, 48), chunks=(16, 16))
    i = _chunk_btree(p)
    _patch(p, i + 5, b"\x01")
    _patch(p, i + 24 + 32, struct.pack("<Q", i))


def m_flip_btree_entries(p):
    """The chunk B-tree node claims 60000 entries (far more than the node holds)."""
    _valid(p, shape=(64, 48), chunks=(16, 16))
    _patch(p, _chunk_btree(p) + 6, struct.pack("<H", 60000))


def m_flip_chunk_size(p):
    """A compressed chunk's stored size (in its B-tree key) set to 7 bytes: inflate fails."""
    _valid(p, shape=(64, 48), chunks=(16, 16), compression="gzip")
    _patch(p, _chunk_btree(p) + 24, struct.pack("<I", 7))


def m_flip_chunk_fletcher32(p):
    with h5py.File(p, "w") as f:
        d = f.create_dataset("/A", data=_data((64, 48)), chunks=(16, 16), fletcher32=True)
        info = d.id.get_chunk_info(d.id.get_num_chunks() - 1)
    _patch(p, info.byte_offset + 100, b"\xde\xad\xbe\xef")


def m_flip_local_heap(p):
    """The root group's local heap signature (HEAP -> HEAQ): the group's names are unreadable."""
    _valid(p)
    _patch(p, _find(p, b"HEAP"), b"HEAQ")


def m_flip_symbol_node(p):
    _valid(p)
    _patch(p, _find(p, b"SNOD"), b"SNOE")


def m_latest_flip_ohdr(p):
    """libver latest: a byte inside the dataset's object header (v2, checksummed) flipped."""
    addr, _ = _valid(p, libver="latest")
    b = _read(p)
    if b[addr:addr + 4] != b"OHDR":
        raise RuntimeError("expected OHDR at %d" % addr)
    _patch(p, addr + 20, bytes([b[addr + 20] ^ 0x5A]))


def m_latest_flip_chunk_index(p):
    """libver latest, fixed-size chunked dataset: its fixed-array index block (FADB) corrupted."""
    _valid(p, shape=(64, 48), chunks=(16, 16), libver="latest")
    i = _find(p, b"FADB")
    b = _read(p)
    _patch(p, i + 16, bytes([b[i + 16] ^ 0xFF]))


def m_latest_flip_superblock(p):
    _valid(p, libver="latest")
    b = _read(p)
    _patch(p, 30, bytes([b[30] ^ 0x01]))     # superblock v3: inside the end-of-file address


# (name, maker, cause regex, cheap: also run reduce/stats/info at every rank count)
CORPUS = [
    ("empty", m_empty, NOT_HDF5, True),
    ("text", m_text, NOT_HDF5, False),
    ("bad_signature", m_bad_signature, NOT_HDF5, False),
    ("hdf4_magic", m_hdf4_magic, NOT_HDF5, False),
    ("trunc_superblock", m_trunc_superblock, TRUNC + "|" + NOT_HDF5, True),
    ("trunc_root_group", m_trunc_root_group, TRUNC, False),
    ("trunc_object_header", m_trunc_object_header, TRUNC, False),
    ("trunc_mid_data", m_trunc_mid_data, TRUNC, True),
    ("trunc_mid_chunks", m_trunc_mid_chunks, TRUNC, False),
    ("trunc_latest", m_trunc_latest, TRUNC, False),
    ("trunc_eof_patched", m_trunc_eof_patched, TRUNC + "|" + CORRUPT, True),
    ("data_address_past_eof", m_data_address_past_eof, CORRUPT, True),
    ("data_address_wraps", m_data_address_wraps, CORRUPT, False),
    ("data_size_mismatch", m_data_size_mismatch, CORRUPT, False),
    ("dims_patched_contig", m_dims_patched_contig, CORRUPT, True),
    ("absurd_contig_unwritten", m_absurd_contig_unwritten, ABSURD, True),
    ("absurd_chunked_unwritten", m_absurd_chunked_unwritten, ABSURD, True),
    ("absurd_element", m_absurd_element, ABSURD, False),
    ("dims_overflow", m_dims_overflow, ABSURD + "|" + CORRUPT, True),
    ("filter_unregistered", m_filter_unregistered, FILTER, True),
    ("filter_lzf", m_filter_lzf, FILTER, False),
    ("dangling_soft_link", m_dangling_soft, LINK, False),
    ("soft_link_loop", m_soft_loop, LINK, False),
    ("external_link_missing", m_external_missing, LINK, True),
    ("external_link_self_loop", m_external_self_loop, LINK, False),
    ("one_d", m_one_d, SHAPE, False),
    ("three_d", m_three_d, SHAPE, False),
    ("scalar", m_scalar, SHAPE, False),
    ("no_2d_dataset", m_no_2d, r"no 2-d", False),
    ("group_path", m_group_path, r"group|not a dataset", False),
    ("vlen_string", m_vlen_string, TYPE, False),
    ("references", m_references, TYPE, False),
    ("compound_vlen", m_compound_vlen, TYPE, False),
    ("external_storage_missing", m_external_storage_missing, r"external|" + CORRUPT, True),
    ("virtual_dataset", m_virtual_dataset, r"virtual", False),
    ("flip_ohdr_version", m_flip_ohdr_version, CORRUPT, True),
    ("flip_btree_signature", m_flip_btree_signature, CORRUPT, True),
    ("flip_btree_child", m_flip_btree_child, CORRUPT, True),
    ("flip_chunk_address_many", m_flip_chunk_address_many, CORRUPT + "|past the end", True),
    ("flip_btree_level", m_flip_btree_level, CORRUPT, False),
    ("flip_btree_self_loop", m_flip_btree_self_loop, CORRUPT, True),
    ("flip_btree_entries", m_flip_btree_entries, CORRUPT, False),
    ("flip_chunk_size", m_flip_chunk_size, CORRUPT, True),
    ("flip_chunk_fletcher32", m_flip_chunk_fletcher32, CORRUPT, False),
    ("flip_local_heap", m_flip_local_heap, CORRUPT, False),
    ("flip_symbol_node", m_flip_symbol_node, CORRUPT, False),
    ("latest_flip_ohdr", m_latest_flip_ohdr, CORRUPT, True),
    ("latest_flip_chunk_index", m_latest_flip_chunk_index, CORRUPT, False),
    ("latest_flip_superblock", m_latest_flip_superblock, CORRUPT, False),
]


def make(directory, name):
    """Write corpus entry `name` into directory; returns (path, dataset or None)."""
    for n, fn, _cause, _cheap in CORPUS:
        if n == name:
            p = os.path.join(directory, n + ".h5")
            dset = fn(p)
            return p, dset
    raise KeyError(name)


def make_all(directory):
    os.makedirs(directory, exist_ok=True)
    return {n: make(directory, n) for n, _fn, _c, _ch in CORPUS}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: mkcorpus.py DIR\n")
        sys.exit(2)
    made = make_all(sys.argv[1])
    for n, (p, d) in made.items():
        print("%-28s %s%s" % (n, p, "  -d %s" % d if d else ""))
    print("%d files in %s" % (len(made), sys.argv[1]))
