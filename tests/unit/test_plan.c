/* tests/unit/test_plan.c — the row/column split and the panel plan, against brute force:
 * every row owned exactly once, blocks near-equal, panels cover each block in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "pipeline/internal.h"

static void check_split(size_t n, int parts)
{
    size_t next = 0, lo = (size_t)-1, hi = 0;
    for (int i = 0; i < parts; i++) {
        gp_range r = gp__split(n, parts, i);
        assert_int_equal(r.start, next);       /* contiguous, in rank order */
        next += r.count;
        if (r.count < lo) lo = r.count;
        if (r.count > hi) hi = r.count;
        if (i > 0) assert_true(gp__split(n, parts, i - 1).count >= r.count); /* first is largest */
    }
    assert_int_equal(next, n);                 /* every item exactly once */
    assert_true(hi - lo <= 1);                 /* near-equal */
}

static void test_split(void **state)
{
    (void)state;
    size_t ns[] = {0, 1, 2, 3, 5, 7, 97, 1000, 1021, 65537};
    int ps[] = {1, 2, 3, 4, 5, 8, 13, 64, 1000};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (size_t j = 0; j < sizeof ps / sizeof *ps; j++) check_split(ns[i], ps[j]);
    /* more parts than items: the surplus parts are empty but well placed */
    gp_range r = gp__split(3, 8, 7);
    assert_int_equal(r.count, 0);
    assert_int_equal(r.start, 3);
}

static void check_plan(size_t rows, size_t cols, size_t es, int P, size_t mem, size_t k)
{
    for (int me = 0; me < P; me++) {
        gp_plan p;
        gp_error e = {0};
        assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, rows, cols, es, P, me, mem, k, &e), 0);
        if (mem) assert_true(gp__plan_bytes(GP_STRATEGY_ALLTOALL, cols, es, P, p.panel_rows) <= mem);
        if (k) assert_true(p.panel_rows <= k);
        /* every row of A read exactly once, bands in order, each band one contiguous range */
        unsigned char *seen = calloc(rows + 1, 1);
        size_t next = 0;
        for (size_t s = 0; s < p.npanels; s++) {
            for (int r = 0; r < P; r++) {
                gp_range pr = gp__plan_panel(&p, r, s);
                assert_true(pr.count <= p.panel_rows);
                if (!pr.count) continue;
                assert_int_equal(pr.start, next);
                next += pr.count;
                for (size_t i = pr.start; i < pr.start + pr.count; i++) {
                    assert_int_equal(seen[i], 0);
                    seen[i] = 1;
                }
            }
        }
        assert_int_equal(next, rows);
        for (int r = 0; r < P; r++) assert_int_equal(gp__plan_panel(&p, r, p.npanels).count, 0);
        /* one band: the ceil(R/P) blocks of fftw_mpi_local_size_2d */
        if (p.npanels == 1) assert_int_equal(p.panel_rows, (rows + (size_t)P - 1) / (size_t)P);
        free(seen);
        gp__plan_free(&p);
    }
}

static void test_plan(void **state)
{
    (void)state;
    check_plan(1000, 777, 8, 4, 0, 0);
    check_plan(1, 999, 4, 3, 0, 0);       /* 1 x N, more ranks than rows */
    check_plan(999, 1, 4, 3, 0, 0);       /* N x 1, more ranks than columns */
    check_plan(13, 17, 3, 5, 0, 4);       /* forced panel rows */
    check_plan(1009, 331, 8, 3, 1 << 16, 0); /* budget forces many panels */
    check_plan(0, 5, 4, 2, 0, 0);
}

static void test_budget_too_small(void **state)
{
    (void)state;
    gp_plan p;
    gp_error e = {0};
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 100, 1000, 8, 2, 0, 1000, 0, &e), GP_ENOMEM);
    assert_non_null(strstr(e.msg, "one row"));
    gp__plan_free(&p);
}

static void test_parse(void **state)
{
    (void)state;
    size_t v, r, c;
    assert_int_equal(gp_parse_size("512M", &v), 0);
    assert_int_equal(v, (size_t)512 << 20);
    assert_int_equal(gp_parse_size("2G", &v), 0);
    assert_int_equal(v, (size_t)2 << 30);
    assert_int_equal(gp_parse_size("1.5K", &v), 0);
    assert_int_equal(v, 1536);
    assert_int_equal(gp_parse_size("12", &v), 0);
    assert_int_equal(v, 12);
    assert_int_equal(gp_parse_size("4GiB", &v), 0);
    assert_int_equal(v, (size_t)4 << 30);
    assert_int_not_equal(gp_parse_size("q7", &v), 0);
    assert_int_not_equal(gp_parse_size("-1G", &v), 0);
    assert_int_not_equal(gp_parse_size("5X", &v), 0);
    assert_int_equal(gp_parse_shape("1000x777", &r, &c), 0);
    assert_int_equal(r, 1000);
    assert_int_equal(c, 777);
    assert_int_not_equal(gp_parse_shape("0x5", &r, &c), 0);
    assert_int_not_equal(gp_parse_shape("3", &r, &c), 0);
    assert_int_not_equal(gp_parse_shape("3x", &r, &c), 0);
    assert_int_not_equal(gp_parse_shape("3x4x5", &r, &c), 0);
    assert_int_not_equal(gp_parse_shape("-3x4", &r, &c), 0);
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split), cmocka_unit_test(test_plan),
        cmocka_unit_test(test_budget_too_small), cmocka_unit_test(test_parse),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
