#!/usr/bin/python3
"""tests/mpi/check_errors.py — every error case of the gpipe CLI, through mpirun at --np ranks.
Each must: finish within the timeout (no hang), exit 2, print exactly one stderr line that starts
`gpipe: error:` and names the file (and dataset) and the cause, print nothing on stdout, and
leave its directory exactly as it was (no output, no temporary file, existing files intact).
At --np 1 every case runs; at more ranks a subset runs (--all runs every case)."""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))
import gpcommon as gc  # noqa: E402
from gpcommon import check  # noqa: E402
import mkfiles  # noqa: E402

# cause patterns: a message must say what went wrong, in any reasonable words
C_MISSING_FILE = r"no such file|not found|does not exist|doesn't exist|cannot open|can't open|missing"
C_NOT_HDF5 = r"hdf5|not an? |cannot open|can't open|corrupt|invalid|format|signature"
C_TRUNCATED = r"truncat|corrupt|hdf5|cannot open|can't open|invalid|eof|end of file|short"
C_NO_DSET = r"not found|no such|does not exist|doesn't exist|missing|no dataset|unknown"
C_GROUP = r"group|not a dataset|is not a dataset"
C_NOT2D = r"2-?d|two-dimensional|dimension|rank|1-?d|3-?d|scalar"
C_VLEN = r"variable|vlen|unsupported|not supported|cannot|can't"
C_STRING = r"string|unsupported|not supported|variable"
C_REF = r"reference|unsupported|not supported"
C_EXISTS = r"exist|--force"
C_DIR = (r"director|no such|not found|does not exist|doesn't exist|not a dir|cannot create|"
         r"can't create|writable|cannot write|permission")
C_SAME = r"same|is the input|input file|itself|overwrite the input|identical"
C_OPTION = (r"shape|dtype|device|option|invalid|unknown|bad|unrecognized|expected|must|"
            r"requir|missing|needs|argument|usage")
C_NO2D = r"no 2-?d|no two-dimensional|none|-d|--dataset|no dataset|not find|found no"
C_SEVERAL = r"several|multiple|more than one|ambiguous|-d|--dataset|\d+ 2-?d"


class Ctx:
    def __init__(self, suite, np):
        self.suite, self.np, self.run = suite, np, suite.runner.run


def expect_error(ctx, d, argv, names=(), any_names=(), cause=None, cwd=None, watch=None, launch=()):
    """Run gpipe argv in case dir d and check the error contract.
    names: substrings that must all appear in the message; any_names: lists of which one must
    appear; cause: regex (case-insensitive) the message must match; watch: directory whose
    contents must be unchanged (default d); launch: launcher options."""
    watch = watch or d
    before = gc.snapshot(watch)
    r = ctx.run(argv, ctx.np, cwd=cwd or d, launch=launch)
    problems = []
    if r.timed_out:
        problems.append("did not finish within %.0fs: hang" % ctx.suite.runner.timeout)
    if r.rc != 2:
        problems.append("exit code %s, expected 2" % r.rc)
    lines = gc.gpipe_stderr_lines(r)
    if len(lines) != 1:
        problems.append("stderr has %d lines (after removing mpirun's own exit banners), "
                        "expected exactly one" % len(lines))
    errl = [l for l in lines if l.startswith("gpipe: error:")]
    if not errl:
        problems.append("no stderr line starts with 'gpipe: error:'")
    msg = errl[0] if errl else ""
    if errl:
        for n in names:
            if n not in msg:
                problems.append("message does not name %r" % n)
        for alts in any_names:
            if not any(a in msg for a in alts):
                problems.append("message names none of %r" % (list(alts),))
        if cause and not re.search(cause, msg, re.I):
            problems.append("message does not state the cause (expected /%s/)" % cause)
    if r.out.strip():
        problems.append("stdout is not empty")
    problems += gc.diff_snapshots(before, gc.snapshot(watch))
    check(not problems, "; ".join(problems) + "\n" + r.describe())


# ---------------------------------------------------------------------------------------------
# the cases: (name, in_subset_for_np>1, function(ctx, d))

def c_missing_file(ctx, d):
    expect_error(ctx, d, ["transpose", "nope.h5"], names=["nope.h5"], cause=C_MISSING_FILE)


def c_missing_file_abs_dir(ctx, d):
    p = os.path.join(d, "no_dir_here", "x.h5")
    expect_error(ctx, d, ["transpose", p], names=["x.h5"], cause=C_MISSING_FILE)


def c_not_hdf5(ctx, d):
    mkfiles.make_text(os.path.join(d, "text.h5"))
    expect_error(ctx, d, ["transpose", "text.h5"], names=["text.h5"], cause=C_NOT_HDF5)


def c_empty_file(ctx, d):
    mkfiles.make_empty_file(os.path.join(d, "zero.h5"))
    expect_error(ctx, d, ["transpose", "zero.h5"], names=["zero.h5"], cause=C_NOT_HDF5)


def c_input_is_directory(ctx, d):
    os.mkdir(os.path.join(d, "adir.h5"))
    expect_error(ctx, d, ["transpose", "adir.h5"], names=["adir.h5"],
                 cause=C_NOT_HDF5 + r"|director")


def c_truncated_half(ctx, d):
    mkfiles.make_truncated(os.path.join(d, "trunc.h5"), keep_fraction=0.5)
    expect_error(ctx, d, ["transpose", "trunc.h5"], names=["trunc.h5"], cause=C_TRUNCATED)


def c_truncated_tiny(ctx, d):
    mkfiles.make_truncated(os.path.join(d, "tiny.h5"), keep_bytes=100)
    expect_error(ctx, d, ["transpose", "tiny.h5"], names=["tiny.h5"], cause=C_TRUNCATED)


def c_truncated_chunked(ctx, d):
    mkfiles.make_truncated(os.path.join(d, "truncc.h5"), keep_fraction=0.7, chunks=(32, 40))
    expect_error(ctx, d, ["transpose", "truncc.h5", "-d", "/A"], names=["truncc.h5"],
                 cause=C_TRUNCATED)


def c_missing_dataset(ctx, d):
    mkfiles.make_valid(os.path.join(d, "m.h5"))
    expect_error(ctx, d, ["transpose", "m.h5", "-d", "/nope"], names=["m.h5", "/nope"],
                 cause=C_NO_DSET)


def c_missing_dataset_nested(ctx, d):
    mkfiles.make_valid(os.path.join(d, "m.h5"))
    expect_error(ctx, d, ["transpose", "m.h5", "--dataset", "/grp/none/X"],
                 names=["m.h5", "/grp/none/X"], cause=C_NO_DSET)


def c_path_is_group(ctx, d):
    mkfiles.make_shapes(os.path.join(d, "s.h5"))
    expect_error(ctx, d, ["transpose", "s.h5", "-d", "/grp"], names=["s.h5", "/grp"],
                 cause=C_GROUP)


def c_root_is_group(ctx, d):
    mkfiles.make_shapes(os.path.join(d, "s.h5"))
    expect_error(ctx, d, ["transpose", "s.h5", "-d", "/"], names=["s.h5"], cause=C_GROUP)


def c_1d(ctx, d):
    mkfiles.make_shapes(os.path.join(d, "s.h5"))
    expect_error(ctx, d, ["transpose", "s.h5", "-d", "/v1"], names=["s.h5", "/v1"],
                 cause=C_NOT2D)


def c_3d(ctx, d):
    mkfiles.make_shapes(os.path.join(d, "s.h5"))
    expect_error(ctx, d, ["transpose", "s.h5", "-d", "/v3"], names=["s.h5", "/v3"],
                 cause=C_NOT2D)


def c_scalar(ctx, d):
    mkfiles.make_shapes(os.path.join(d, "s.h5"))
    expect_error(ctx, d, ["transpose", "s.h5", "-d", "/s"], names=["s.h5", "/s"],
                 cause=C_NOT2D)


def _unsupported(dset, cause):
    def f(ctx, d):
        mkfiles.make_unsupported(os.path.join(d, "u.h5"))
        expect_error(ctx, d, ["transpose", "u.h5", "-d", dset], names=["u.h5", dset],
                     cause=cause)
    return f


def c_no_2d(ctx, d):
    mkfiles.make_shapes(os.path.join(d, "no2d.h5"), with_2d=False)
    expect_error(ctx, d, ["transpose", "no2d.h5"], names=["no2d.h5"], cause=C_NO2D)


def c_no_datasets(ctx, d):
    mkfiles.make_no_datasets(os.path.join(d, "nodata.h5"))
    expect_error(ctx, d, ["transpose", "nodata.h5"], names=["nodata.h5"], cause=C_NO2D)


def c_several_2d(ctx, d):
    mkfiles.make_several_2d(os.path.join(d, "sev.h5"))
    expect_error(ctx, d, ["transpose", "sev.h5"], names=["sev.h5"], cause=C_SEVERAL)


def c_output_exists(ctx, d):
    mkfiles.make_valid(os.path.join(d, "in.h5"), shape=(30, 20))
    mkfiles.make_valid(os.path.join(d, "out.h5"), shape=(4, 4), dataset="/keepme")
    expect_error(ctx, d, ["transpose", "in.h5", "-o", "out.h5"], names=["out.h5"],
                 cause=C_EXISTS)


def c_output_exists_default_name(ctx, d):
    mkfiles.make_valid(os.path.join(d, "in.h5"), shape=(30, 20))
    with open(os.path.join(d, "in.T.h5"), "w") as f:
        f.write("precious user data, not HDF5\n")
    expect_error(ctx, d, ["transpose", "in.h5"], names=["in.T.h5"], cause=C_EXISTS)


def c_output_dir_missing(ctx, d):
    mkfiles.make_valid(os.path.join(d, "in.h5"), shape=(30, 20))
    out = os.path.join(d, "no", "such", "dir", "out.h5")
    expect_error(ctx, d, ["transpose", "in.h5", "-o", out],
                 any_names=[["out.h5", os.path.join(d, "no")]], cause=C_DIR)
    check(not os.path.exists(os.path.join(d, "no")), "gpipe created the missing directory")


def c_output_under_regular_file(ctx, d):
    mkfiles.make_valid(os.path.join(d, "in.h5"), shape=(30, 20))
    with open(os.path.join(d, "plain.txt"), "w") as f:
        f.write("a regular file\n")
    expect_error(ctx, d, ["transpose", "in.h5", "-o", "plain.txt/out.h5"],
                 any_names=[["out.h5", "plain.txt"]], cause=C_DIR)


def c_output_is_input(ctx, d):
    mkfiles.make_valid(os.path.join(d, "x.h5"), shape=(30, 20))
    expect_error(ctx, d, ["transpose", "x.h5", "-o", "x.h5"], names=["x.h5"], cause=C_SAME)


def c_output_is_input_force(ctx, d):
    mkfiles.make_valid(os.path.join(d, "x.h5"), shape=(30, 20))
    expect_error(ctx, d, ["transpose", "x.h5", "-o", "x.h5", "--force"], names=["x.h5"],
                 cause=C_SAME)


def c_output_is_input_dotslash(ctx, d):
    mkfiles.make_valid(os.path.join(d, "x.h5"), shape=(30, 20))
    expect_error(ctx, d, ["transpose", "x.h5", "-o", "./x.h5", "--force"], names=["x.h5"],
                 cause=C_SAME)


def c_output_is_input_abs_vs_rel(ctx, d):
    mkfiles.make_valid(os.path.join(d, "x.h5"), shape=(30, 20))
    os.mkdir(os.path.join(d, "sub"))
    expect_error(ctx, d, ["transpose", os.path.join(d, "x.h5"), "-o", "sub/../x.h5",
                          "--force", "--output-dataset", "/other"], names=["x.h5"],
                 cause=C_SAME)


def c_output_is_input_symlink(ctx, d):
    mkfiles.make_valid(os.path.join(d, "x.h5"), shape=(30, 20))
    os.symlink("x.h5", os.path.join(d, "link.h5"))
    expect_error(ctx, d, ["transpose", "x.h5", "-o", "link.h5", "--force"],
                 any_names=[["x.h5", "link.h5"]], cause=C_SAME)


def c_input_symlink_output_real(ctx, d):
    mkfiles.make_valid(os.path.join(d, "x.h5"), shape=(30, 20))
    os.symlink("x.h5", os.path.join(d, "link.h5"))
    expect_error(ctx, d, ["transpose", "link.h5", "-o", "x.h5", "--force"],
                 any_names=[["x.h5", "link.h5"]], cause=C_SAME)


def _bad_option(argv, token, make_input=True):
    """token: a string the message must contain, or a list of alternatives."""
    def f(ctx, d):
        if make_input:
            mkfiles.make_valid(os.path.join(d, "in.h5"), shape=(30, 20))
        alts = [token] if isinstance(token, str) else list(token)
        expect_error(ctx, d, argv, any_names=[alts], cause=C_OPTION)
    return f


def c_nccl_on_cpu(ctx, d):
    mkfiles.make_valid(os.path.join(d, "in.h5"), shape=(30, 20))
    expect_error(ctx, d, ["transpose", "in.h5", "--device", "cpu", "--exchange", "nccl"],
                 names=["--exchange nccl"], cause=r"CUDA backend")


def c_threads_env(ctx, d):
    mkfiles.make_valid(os.path.join(d, "in.h5"), shape=(30, 20))
    expect_error(ctx, d, ["transpose", "in.h5", "--device", "cpu"], names=["GPIPE_THREADS=zz"],
                 cause=r"expected a number of threads", launch=["-x", "GPIPE_THREADS=zz"])


def c_gen_exists(ctx, d):
    mkfiles.make_valid(os.path.join(d, "g.h5"), shape=(3, 3))
    expect_error(ctx, d, ["gen", "g.h5", "--shape", "10x10", "--dtype", "f64"], names=["g.h5"],
                 cause=C_EXISTS)


def c_gen_dir_missing(ctx, d):
    expect_error(ctx, d, ["gen", "nodir/g.h5", "--shape", "10x10", "--dtype", "f64"],
                 any_names=[["g.h5", "nodir"]], cause=C_DIR)


def c_info_missing(ctx, d):
    expect_error(ctx, d, ["info", "ghost.h5"], names=["ghost.h5"], cause=C_MISSING_FILE)


def c_info_not_hdf5(ctx, d):
    mkfiles.make_text(os.path.join(d, "text.h5"))
    expect_error(ctx, d, ["info", "text.h5"], names=["text.h5"], cause=C_NOT_HDF5)


def c_device_cuda_without_gpu(ctx, d):
    mkfiles.make_valid(os.path.join(d, "in.h5"), shape=(30, 20))
    expect_error(ctx, d, ["transpose", "in.h5", "--device", "cuda"],
                 cause=r"cuda|gpu|device")


def _corrupt(which, fletcher32, flags=()):
    def f(ctx, d):
        mkfiles.make_corrupt_chunk(os.path.join(d, "bad.h5"), which, fletcher32)
        expect_error(ctx, d, ["transpose", "bad.h5"] + list(flags), names=["bad.h5", "/A"],
                     cause=r"read|corrupt|filter|checksum|inflate|decompress|hdf5|fail")
    return f


def c_output_is_directory(ctx, d):
    mkfiles.make_valid(os.path.join(d, "in.h5"), shape=(30, 20))
    os.mkdir(os.path.join(d, "outdir.h5"))
    with open(os.path.join(d, "outdir.h5", "keep.txt"), "w") as f:
        f.write("keep\n")
    expect_error(ctx, d, ["transpose", "in.h5", "-o", "outdir.h5", "--force"],
                 names=["outdir.h5"], cause=C_DIR + r"|exist|is a dir")


def c_output_dataset_root(ctx, d):
    mkfiles.make_valid(os.path.join(d, "in.h5"), shape=(30, 20))
    expect_error(ctx, d, ["transpose", "in.h5", "-o", "o.h5", "--output-dataset", "/"],
                 any_names=[["--output-dataset", "o.h5", "'/'", " / "]],
                 cause=r"dataset|group|invalid|root|path")


def have_gpu():
    return os.path.exists("/dev/nvidia0") or os.path.exists("/dev/nvidiactl")


CASES = [
    # name, run at np>1 (subset), function
    ("missing_file", True, c_missing_file),
    ("missing_file_in_missing_dir", False, c_missing_file_abs_dir),
    ("not_hdf5_text", True, c_not_hdf5),
    ("not_hdf5_empty_file", False, c_empty_file),
    ("input_is_directory", False, c_input_is_directory),
    ("truncated_half", True, c_truncated_half),
    ("truncated_100_bytes", False, c_truncated_tiny),
    ("truncated_chunked", True, c_truncated_chunked),
    ("missing_dataset", True, c_missing_dataset),
    ("missing_dataset_nested", False, c_missing_dataset_nested),
    ("path_is_group", True, c_path_is_group),
    ("path_is_root_group", False, c_root_is_group),
    ("dataset_1d", True, c_1d),
    ("dataset_3d", True, c_3d),
    ("dataset_scalar", True, c_scalar),
    ("type_vlen_string", True, _unsupported("/vs", C_VLEN + "|string")),
    ("type_vlen_ascii_string", False, _unsupported("/vb", C_VLEN + "|string")),
    ("type_vlen_int_sequence", True, _unsupported("/vi", C_VLEN)),
    ("type_object_reference", True, _unsupported("/ref", C_REF)),
    ("type_region_reference", False, _unsupported("/rref", C_REF)),
    ("type_fixed_string", False, _unsupported("/fs", C_STRING)),
    ("no_2d_dataset", True, c_no_2d),
    ("no_dataset_at_all", False, c_no_datasets),
    ("several_2d_datasets", True, c_several_2d),
    ("output_exists", True, c_output_exists),
    ("output_exists_default_name", False, c_output_exists_default_name),
    ("output_dir_missing", True, c_output_dir_missing),
    ("output_under_regular_file", False, c_output_under_regular_file),
    ("output_is_input", True, c_output_is_input),
    ("output_is_input_force", False, c_output_is_input_force),
    ("output_is_input_dotslash", True, c_output_is_input_dotslash),
    ("output_is_input_dotdot_abs", False, c_output_is_input_abs_vs_rel),
    ("output_is_input_symlink", True, c_output_is_input_symlink),
    ("input_symlink_output_target", False, c_input_symlink_output_real),
    ("corrupt_last_chunk", True, _corrupt("last", False)),
    ("corrupt_first_chunk_fletcher32", True, _corrupt("first", True)),
    ("corrupt_last_chunk_direct", True, _corrupt("last", False, ["--strategy", "direct"])),
    ("corrupt_first_chunk_panels", True, _corrupt("first", False, ["--panel-rows", "3"])),
    ("output_is_directory_force", True, c_output_is_directory),
    ("output_dataset_root", False, c_output_dataset_root),
    ("gen_shape_0x5", True, _bad_option(["gen", "g.h5", "--shape", "0x5", "--dtype", "f64"],
                                        "0x5", False)),
    ("gen_shape_5x0", False, _bad_option(["gen", "g.h5", "--shape", "5x0", "--dtype", "f64"],
                                         "5x0", False)),
    ("gen_shape_3", True, _bad_option(["gen", "g.h5", "--shape", "3", "--dtype", "f64"],
                                      "3", False)),
    ("gen_shape_negative", False, _bad_option(["gen", "g.h5", "--shape", "-4x5", "--dtype",
                                               "f64"], ["-4x5", "--shape"], False)),
    ("gen_shape_junk", False, _bad_option(["gen", "g.h5", "--shape", "4xfoo", "--dtype",
                                           "f64"], "4xfoo", False)),
    ("gen_shape_3d", False, _bad_option(["gen", "g.h5", "--shape", "2x3x4", "--dtype",
                                         "f64"], "2x3x4", False)),
    ("gen_dtype_q7", True, _bad_option(["gen", "g.h5", "--shape", "4x5", "--dtype", "q7"],
                                       "q7", False)),
    ("gen_dtype_f64xe", False, _bad_option(["gen", "g.h5", "--shape", "4x5", "--dtype",
                                            "f64xe"], "f64xe", False)),
    ("gen_chunk_0x2", False, _bad_option(["gen", "g.h5", "--shape", "4x5", "--dtype", "f64",
                                          "--chunk", "0x2"], "0x2", False)),
    ("gen_seed_junk", False, _bad_option(["gen", "g.h5", "--shape", "4x5", "--dtype", "f64",
                                          "--seed", "abc"], "abc", False)),
    ("gen_unknown_option", False, _bad_option(["gen", "g.h5", "--shape", "4x5", "--dtype",
                                               "f64", "--bogus"], "--bogus", False)),
    ("gen_missing_shape", False, _bad_option(["gen", "g.h5", "--dtype", "f64"], "shape",
                                             False)),
    ("transpose_device_gpu2", True, _bad_option(["transpose", "in.h5", "--device", "gpu2"],
                                                "gpu2")),
    ("transpose_exchange_foo", False, _bad_option(["transpose", "in.h5", "--exchange", "foo"], "foo")),
    ("transpose_gpu_mem_0", False, _bad_option(["transpose", "in.h5", "--gpu-mem", "0"], "--gpu-mem")),
    ("transpose_threads_0", False, _bad_option(["transpose", "in.h5", "--threads", "0"], "--threads 0")),
    ("transpose_threads_junk", False, _bad_option(["transpose", "in.h5", "--threads", "2x"], "--threads 2x")),
    ("transpose_threads_env", False, c_threads_env),
    ("transpose_nccl_on_cpu", True, c_nccl_on_cpu),
    ("transpose_unknown_option", True, _bad_option(["transpose", "in.h5", "--bogus"],
                                                   "--bogus")),
    ("transpose_missing_value", False, _bad_option(["transpose", "in.h5", "-o"],
                                                 ["-o", "--output", "'o'", "output"])),
    ("transpose_no_input", False, _bad_option(["transpose"],
                                           ["input", "IN", "transpose"], False)),
    ("unknown_subcommand", False, _bad_option(["frobnicate", "x.h5"], "frobnicate", False)),
    ("gen_output_exists", True, c_gen_exists),
    ("gen_output_dir_missing", False, c_gen_dir_missing),
    ("info_missing_file", False, c_info_missing),
    ("info_not_hdf5", False, c_info_not_hdf5),
]


def main():
    args = gc.parse_args(__doc__, extra=lambda ap: ap.add_argument(
        "--all", action="store_true", help="at --np > 1, run every case, not only the subset"))
    suite = gc.Suite("errors-np%d" % args.np, args)
    ctx = Ctx(suite, args.np)
    cases = list(CASES)
    if not have_gpu():
        cases.append(("device_cuda_without_gpu", True, c_device_cuda_without_gpu))
    for name, subset, fn in cases:
        if args.np > 1 and not (subset or args.all):
            continue
        suite.case(name, lambda fn=fn, name=name: fn(ctx, suite.casedir(name)))
    return suite.finish()


if __name__ == "__main__":
    sys.exit(main())
