#!/usr/bin/python3
"""tests/mpi/check_cli.py — gpipe's command-line surface: --help and --version (exit 0, usage on
stdout), every subcommand's --help naming all its options, and `gpipe info` listing a known
file's datasets (one line each, with shape, type, layout, chunks, filters)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpcommon as gc  # noqa: E402
from gpcommon import check, np, h5py  # noqa: E402


class Ctx:
    def __init__(self, suite, np_):
        self.suite, self.np, self.run = suite, np_, suite.runner.run


def ok_stdout(ctx, argv, np_=None, cwd=None):
    r = ctx.run(argv, np_, cwd=cwd or ctx.suite.tmp)
    gc.expect_ok(r, "gpipe " + " ".join(argv))
    check(r.out.strip(), "nothing on stdout\n" + r.describe())
    lines = gc.gpipe_stderr_lines(r)
    check(not lines, "unexpected stderr output\n" + r.describe())
    return r


def c_help(ctx):
    for np_ in (None, 1):
        r = ok_stdout(ctx, ["--help"], np_)
        low = r.out.lower()
        check("usage" in low, "--help has no usage line\n" + r.describe())
        for cmd in ("transpose", "gen", "info"):
            check(cmd in r.out, "--help does not mention %s\n%s" % (cmd, r.describe()))


def c_help_short(ctx):
    r = ok_stdout(ctx, ["-h"])
    check("usage" in r.out.lower(), "-h has no usage line\n" + r.describe())


def c_version(ctx):
    for np_ in (None, 1):
        r = ok_stdout(ctx, ["--version"], np_)
        check(re.search(r"gpipe\D*\d+\.\d+", r.out), "--version does not print 'gpipe X.Y'\n" +
              r.describe())
        check(len(r.out.strip().split("\n")) == 1, "--version prints more than one line\n" +
              r.describe())


def c_version_once_multi_rank(ctx):
    n = max(ctx.np, 2)
    r = ok_stdout(ctx, ["--version"], n)
    check(len(r.out.strip().split("\n")) == 1, "--version at %d ranks printed %d lines "
          "(rank 0 only expected)\n%s" % (n, len(r.out.strip().split("\n")), r.describe()))


TRANSPOSE_OPTS = ["-d", "--dataset", "-o", "--output", "--output-dataset", "--force",
                  "--device", "auto", "cpu", "cuda", "--quiet", "--help"]
GEN_OPTS = ["--shape", "--dtype", "--chunk", "--seed", "--dataset", "--force", "i8", "i16",
            "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "c64", "c128", "be",
            "le", "/data"]


def c_sub_help(ctx, cmd, opts):
    r = ok_stdout(ctx, [cmd, "--help"])
    check("usage" in r.out.lower(), "no usage line\n" + r.describe())
    missing = [o for o in opts if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), r.out)]
    check(not missing, "`gpipe %s --help` does not mention %s\n%s" % (cmd, missing,
                                                                      r.describe()))


def c_info_help(ctx):
    r = ok_stdout(ctx, ["info", "--help"])
    check("usage" in r.out.lower() and "FILE" in r.out.upper(), "no usage line\n" +
          r.describe())


def make_info_file(path):
    rng = np.random.default_rng(1)
    with h5py.File(path, "w") as f:
        f.create_dataset("/A", data=rng.standard_normal((3, 5)))                       # f64 contig
        f.create_dataset("/grp/B", data=rng.integers(0, 9, (7, 2)).astype(">i4"),
                         chunks=(4, 2), compression="gzip")
        f.create_dataset("/v", data=np.arange(10, dtype="u1"))
        f.create_dataset("/grp/sub/C", data=np.zeros((6, 4), np.complex64), chunks=(3, 2))


INFO_EXPECT = {
    # path: (shape regexes, type regex, layout regex, extra regexes)
    "/A": (r"3\s*[x×,]\s*5", r"f64|float64|double|F64LE", r"contig", []),
    "/grp/B": (r"7\s*[x×,]\s*2", r"i32\s*be|i32be|int32.*(be|big)|>i4|I32BE",
               r"chunk", [r"4\s*[x×,]\s*2", r"gzip|deflate"]),
    "/v": (r"\b10\b", r"u8|uint8|U8LE|\bu1\b", r"contig", []),
    "/grp/sub/C": (r"6\s*[x×,]\s*4", r"c64|complex|compound\W*r\W*f32[^,]*,\W*i\W*f32",
                   r"chunk", [r"3\s*[x×,]\s*2"]),
}


def c_info(ctx, np_):
    d = ctx.suite.casedir("info_np%s" % np_)
    make_info_file(os.path.join(d, "known.h5"))
    h = gc.sha256(os.path.join(d, "known.h5"))
    r = ok_stdout(ctx, ["info", "known.h5"], np_, cwd=d)
    lines = [l for l in r.out.split("\n") if l.strip()]
    problems = []
    for path, (shape, typ, layout, extra) in INFO_EXPECT.items():
        mine = [l for l in lines if re.search(r"(^|\s)%s(\s|$|:|,)" % re.escape(path), l)]
        if len(mine) != 1:
            problems.append("%s appears on %d lines, expected 1" % (path, len(mine)))
            continue
        l = mine[0]
        for what, rx in [("shape", shape), ("type", typ), ("layout", layout)] + \
                [("chunks/filters", x) for x in extra]:
            if not re.search(rx, l, re.I):
                problems.append("%s: line lacks %s /%s/: %r" % (path, what, rx, l))
    if len(lines) > len(INFO_EXPECT) + 1:
        problems.append("%d stdout lines for %d datasets (one line per dataset, at most one "
                        "header)" % (len(lines), len(INFO_EXPECT)))
    if gc.sha256(os.path.join(d, "known.h5")) != h:
        problems.append("info modified the file")
    if os.listdir(d) != ["known.h5"]:
        problems.append("info left files: %s" % os.listdir(d))
    check(not problems, "; ".join(problems) + "\n" + r.describe())


def c_no_args(ctx):
    r = ctx.run([], None, cwd=ctx.suite.tmp)
    check(not r.timed_out and r.rc == 2, "gpipe without arguments: exit %s, expected 2\n%s" %
          (r.rc, r.describe()))
    check(r.err.strip(), "gpipe without arguments says nothing on stderr\n" + r.describe())


def main():
    args = gc.parse_args(__doc__)
    suite = gc.Suite("cli-np%d" % args.np, args)
    ctx = Ctx(suite, args.np)
    c = suite.case
    c("help", c_help, ctx)
    c("help_short", c_help_short, ctx)
    c("version", c_version, ctx)
    c("version_once_multi_rank", c_version_once_multi_rank, ctx)
    c("transpose_help_options", c_sub_help, ctx, "transpose", TRANSPOSE_OPTS)
    c("gen_help_options", c_sub_help, ctx, "gen", GEN_OPTS)
    c("info_help", c_info_help, ctx)
    c("info_singleton", c_info, ctx, None)
    c("info_np%d" % args.np, c_info, ctx, args.np)
    c("no_arguments_exit_2", c_no_args, ctx)
    return suite.finish()


if __name__ == "__main__":
    sys.exit(main())
