/* tests/unit/test_job.c — the job-file parser (pipeline/job.c): a full valid job, defaults,
 * long lines (inline vectors past libinih's default 200 bytes), output templates, and malformed
 * job files — every kind must give "NAME:LINE: message" with the right line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "pipeline/job.h"

static int parse(const char *text, gp_job *j, char *err, size_t n)
{
    return gp_job_parse_buffer("dir/t.ini", text, strlen(text), j, err, n);
}

static void test_valid(void **state)
{
    (void)state;
    const char *t =
        "; a comment\n"
        "# another\n"
        "[job]\n"
        "name = nightly-1\n"
        "device = cpu\n"
        "mem = 64M\n"
        "continue_on_error = yes\n"
        "fuse = no\n"
        "\n"
        "[read]\n"
        "file = data/*.h5   ; inline comment\n"
        "file = /abs/x.h5\n"
        "dataset = /grp/*\n"
        "[stats]\n"
        "[standardize]\n"
        "[cast]\n"
        "to = f32\n"
        "[scale]\n"
        "by = 2.5\n"
        "[affine]\n"
        "a = [1, 2, 3]\n"
        "b = coef.h5:/offsets\n"
        "[transpose]\n"
        "strategy = direct\n"
        "[write]\n"
        "file = out/{stem}.{dsname}.T.h5\n"
        "dataset = /T{dataset}\n"
        "chunk = 16x32\n"
        "[reduce]\n"
        "op = mean\n"
        "axis = cols\n"
        "result_type = input\n";
    gp_job j;
    char err[1024] = "";
    int rc = parse(t, &j, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    assert_string_equal(j.name, "nightly-1");
    assert_string_equal(j.device, "cpu");
    assert_int_equal(j.mem, 64 << 20);
    assert_int_equal(j.continue_on_error, 1);
    assert_int_equal(j.fuse, 0);
    assert_int_equal(j.nfiles, 2);
    assert_string_equal(j.files[0], "dir/data/*.h5");
    assert_string_equal(j.files[1], "/abs/x.h5");
    assert_int_equal(j.file_lines[0], 11);
    assert_int_equal(j.ndatasets, 1);
    assert_int_equal(j.nstages, 9);
    assert_int_equal(j.stages[0].kind, GP_JS_READ);
    assert_int_equal(j.stages[1].kind, GP_JS_STATS);
    assert_int_equal(j.stages[2].kind, GP_JS_STANDARDIZE);
    assert_int_equal(j.stages[2].line, 15);
    assert_int_equal(j.stages[3].to, GP_RT_F32);
    assert_int_equal(j.stages[4].a.kind, GP_COEF_SCALAR);
    assert_true(j.stages[4].a.scalar == 2.5);
    assert_int_equal(j.stages[5].a.kind, GP_COEF_INLINE);
    assert_int_equal(j.stages[5].a.n, 3);
    assert_int_equal(j.stages[5].b.kind, GP_COEF_DATASET);
    assert_string_equal(j.stages[5].b.file, "dir/coef.h5");
    assert_string_equal(j.stages[5].b.dataset, "/offsets");
    assert_int_equal(j.strategy, GP_STRATEGY_DIRECT);
    assert_int_equal(j.chunk_r, 16);
    assert_int_equal(j.chunk_c, 32);
    assert_int_equal(j.stages[8].op, GP_OP_MEAN);
    assert_int_equal(j.stages[8].axis, GP_AXIS_COLS);
    assert_int_equal(j.stages[8].result_input, 1);
    assert_int_equal(j.stages[7].result_input, 0);
    char plan[512];
    gp_job_plan_string(&j, plan, sizeof plan);
    assert_string_equal(plan, "read > stats > standardize > cast > scale > affine > transpose > write > reduce");
    j.fuse = 1;
    gp_job_plan_string(&j, plan, sizeof plan);
    assert_string_equal(plan, "read > stats > [standardize+cast+scale+affine]+transpose > write > reduce");
    gp_job_free(&j);
}

static void test_defaults_and_long_line(void **state)
{
    (void)state;
    size_t n = 5000;
    char *t = malloc(n * 8 + 200);
    int o = sprintf(t, "[read]\nfile = a.h5\n[affine]\na = [");
    for (size_t i = 0; i < n; i++) o += sprintf(t + o, "%s%zu.5", i ? ", " : "", i);
    o += sprintf(t + o, "]\n[write]\nfile = {stem}.out.h5\n");
    gp_job j;
    char err[512] = "";
    int rc = gp_job_parse_buffer("t.ini", t, (size_t)o, &j, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    assert_string_equal(j.name, "t");
    assert_string_equal(j.device, "auto");
    assert_int_equal(j.fuse, 1);
    assert_int_equal(j.stages[1].a.n, n);
    assert_true(j.stages[1].a.vec[4999] == 4999.5);
    assert_string_equal(j.files[0], "a.h5");   /* job in the current directory */
    gp_job_free(&j);
    free(t);
}

/* [transpose] strategy: auto by default, each name as given; the names round-trip */
static void test_strategy(void **state)
{
    (void)state;
    const char *names[] = {"auto", "alltoall", "direct"};
    const gp_strategy want[] = {GP_STRATEGY_AUTO, GP_STRATEGY_ALLTOALL, GP_STRATEGY_DIRECT};
    for (int i = -1; i < 3; i++) {
        char t[200], err[512] = "";
        int o = snprintf(t, sizeof t, "[read]\nfile = a.h5\n[transpose]\n%s%s\n[write]\nfile = o.h5\n",
                         i < 0 ? "" : "strategy = ", i < 0 ? "" : names[i]);
        gp_job j;
        int rc = gp_job_parse_buffer("t.ini", t, (size_t)o, &j, err, sizeof err);
        if (rc) fprintf(stderr, "%s\n", err);
        assert_int_equal(rc, 0);
        assert_int_equal(j.strategy, i < 0 ? GP_STRATEGY_AUTO : want[i]);
        assert_string_equal(gp_strategy_name(j.strategy), i < 0 ? "auto" : names[i]);
        gp_job_free(&j);
    }
    gp_strategy st = GP_STRATEGY_DIRECT;
    assert_int_equal(gp_parse_strategy("Direct", &st), GP_EINVAL);
    assert_int_equal(gp_parse_strategy("", &st), GP_EINVAL);
    assert_int_equal(gp_parse_strategy(NULL, &st), GP_EINVAL);
    assert_int_equal(st, GP_STRATEGY_DIRECT);   /* untouched on error */
}

static void test_templates(void **state)
{
    (void)state;
    char out[256], why[256];
    assert_int_equal(gp_job_template_expand("out/{stem}.{dsname}.{dsbase}.{index}.{job}.h5", "/x/y/run1.h5",
                                            "/grp/sub/A", "nightly", 3, out, sizeof out), 0);
    assert_string_equal(out, "out/run1.grp_sub_A.A.3.nightly.h5");
    assert_int_equal(gp_job_template_expand("{dir}/{name}{{x}}{dataset}", "/x/y/run1.h5", "", "j", 1, out, sizeof out), 0);
    assert_string_equal(out, "/x/y/run1.h5{x}/data");
    assert_int_equal(gp_job_template_check("{stem}.h5", why, sizeof why), 0);
    assert_int_equal(gp_job_template_check("{stme}.h5", why, sizeof why), -1);
    assert_non_null(strstr(why, "unknown placeholder {stme}"));
    assert_int_equal(gp_job_template_check("{stem.h5", why, sizeof why), -1);
    assert_int_equal(gp_job_template_check("stem}.h5", why, sizeof why), -1);
    char tiny[8];
    assert_int_equal(gp_job_template_expand("{stem}", "/x/longname.h5", "", "j", 1, tiny, sizeof tiny), -1);
}

/* Malformed job files: the message must start with "dir/t.ini:LINE: " and contain `frag`. */
static const struct bad {
    const char *text;
    int line;
    const char *frag;
} bads[] = {
    {"[read]\nfile = a.h5\n[frobnicate]\n", 3, "unknown section [frobnicate]"},
    {"[read]\nfile = a.h5\nsize = 3\n", 3, "unknown key 'size' in [read]"},
    {"file = a.h5\n[read]\n", 1, "outside a section"},
    {"[read]\nfile = a.h5\n[cast]\nto = f128\n[write]\nfile = o.h5\n", 4, "to 'f128'"},
    {"[read]\nfile = a.h5\n[cast]\n[write]\nfile = o.h5\n", 3, "[cast] needs 'to'"},
    {"[read]\nfile = a.h5\n[scale]\nby = 2x\n[write]\nfile = o.h5\n", 4, "is not a finite number"},
    {"[read]\nfile = a.h5\n[affine]\na = [1, two, 3]\n[write]\nfile = o.h5\n", 4, "'two' is not a finite number"},
    {"[read]\nfile = a.h5\n[affine]\na = [1, 2\n[write]\nfile = o.h5\n", 4, "without a closing ']'"},
    {"[read]\nfile = a.h5\n[affine]\n[write]\nfile = o.h5\n", 3, "[affine] needs 'a', 'b' or both"},
    {"[read]\nfile = a.h5\n[transpose]\n", 3, "must be followed by [write]"},
    {"[read]\nfile = a.h5\n[transpose]\n[write]\nfile = o/{stme}.h5\n", 5, "unknown placeholder {stme}"},
    {"[read]\nfile = a.h5\n[cast]\nto = f32\n", 3, "without [write]"},
    {"[read]\nfile = a.h5\n[write]\nfile = o.h5\n[cast]\nto = f32\n", 5, "[cast] after [write]"},
    {"[read]\nfile = a.h5\n[scale]\nby = 2\n[stats]\n[write]\nfile = o.h5\n", 5, "needs a [write] before it"},
    {"[job]\nname = x\n[job]\n[read]\nfile = a.h5\n", 3, "a second [job]"},
    {"[job]\nname = x y\n[read]\nfile = a.h5\n", 2, "name 'x y'"},
    {"[job]\nmem = lots\n[read]\nfile = a.h5\n", 2, "mem 'lots'"},
    {"[job]\nfuse = maybe\n[read]\nfile = a.h5\n", 2, "fuse 'maybe'"},
    {"[job]\nthreads = 0\n[read]\nfile = a.h5\n", 2, "threads '0'"},
    {"[job]\nthreads = 65\n[read]\nfile = a.h5\n", 2, "threads '65'"},
    {"[job]\ndevice = tpu\n[read]\nfile = a.h5\n", 2, "device 'tpu'"},
    {"[read]\nfile = a.h5\n[reduce]\nop = median\n", 4, "op 'median'"},
    {"[read]\nfile = a.h5\n[reduce]\nop = sum\naxis = diagonal\n", 5, "axis 'diagonal'"},
    {"[read]\nfile = a.h5\n[reduce]\nop = sum\nresult_type = narrow\n", 5, "result_type 'narrow': expected wide or input"},
    {"[read]\nfile = a.h5\n[reduce]\n", 3, "[reduce] needs 'op'"},
    {"[read]\nfile = a.h5\n[stats]\nfull = yes\n", 4, "unknown key 'full' in [stats]"},
    {"[read]\nfile = a.h5\ndataset = data\n", 3, "an absolute path"},
    {"[cast]\nto = f32\n[read]\nfile = a.h5\n", 1, "before [read]"},
    {"[read]\nfile = a.h5\n[read]\nfile = b.h5\n", 3, "[read] must be the first stage"},
    {"[read]\ndataset = /x\n", 1, "names no file"},
    {"[job]\nname = x\n", 1, "no [read] section"},
    {"[read]\nfile = a.h5\n[write]\nfile = o.h5\nfile = p.h5\n", 5, "duplicate key 'file'"},
    {"[read]\nfile = a.h5\n[write]\nchunk = 3\nfile = o.h5\n", 4, "chunk '3'"},
    {"[read]\nfile = a.h5\n[write]\nfile = o.h5\n[write]\nfile = p.h5\n", 5, "a second [write]"},
    {"[read]\nfile = a.h5\n[transpose]\n[write]\nfile = o.h5\n[transpose]\n", 6, "a second [transpose]"},
    {"[read]\nfile = a.h5\nthis line has no equals sign\n", 3, "syntax error"},
    {"[read]\nfile = a.h5\n[write\n", 3, "syntax error"},
    {"[read]\nfile = a.h5\n[transpose]\nstrategy = sideways\n[write]\nfile = o.h5\n", 4, "strategy 'sideways'"},
    {"[read]\nfile = a.h5\n[scale]\nby = nan\n[write]\nfile = o.h5\n", 4, "not a finite number"},
    {"[read]\nfile = a.h5\n[scale]\nby = coef.h5:\n[write]\nfile = o.h5\n", 4, "FILE:/DATASET"},
    {"[read]\nfile = a.h5\n[standardize]\nddof = 1\n[write]\nfile = o.h5\n", 4, "takes no keys"},
};

static void test_bad(void **state)
{
    (void)state;
    assert_true(sizeof bads / sizeof bads[0] >= 15);
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        gp_job j;
        char err[1024] = "", want[64];
        int rc = parse(bads[i].text, &j, err, sizeof err);
        snprintf(want, sizeof want, "dir/t.ini:%d: ", bads[i].line);
        if (rc == 0 || strncmp(err, want, strlen(want)) || !strstr(err, bads[i].frag)) {
            fprintf(stderr, "case %zu: rc %d, got '%s', want '%s...%s'\n", i, rc, err, want, bads[i].frag);
            fail();
        }
    }
}

static void test_nul_and_missing_file(void **state)
{
    (void)state;
    gp_job j;
    char err[512];
    const char t[] = "[read]\nfile = a\0b.h5\n";
    assert_int_equal(gp_job_parse_buffer("t.ini", t, sizeof t - 1, &j, err, sizeof err), GP_EINVAL);
    assert_non_null(strstr(err, "t.ini:2: NUL byte"));
    assert_int_equal(gp_job_parse("/nonexistent/job.ini", &j, err, sizeof err), GP_EIO);
    assert_non_null(strstr(err, "/nonexistent/job.ini: cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid), cmocka_unit_test(test_defaults_and_long_line),
        cmocka_unit_test(test_templates), cmocka_unit_test(test_bad), cmocka_unit_test(test_strategy),
        cmocka_unit_test(test_nul_and_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
