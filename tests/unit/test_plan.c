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

/* Write bands: the memory count never above the budget, bands of whole panels covering A's rows
 * in order (also after a resume's skip), one band buffer only when one band holds every panel,
 * the same plan on every rank, --panel-rows kept. */
static void check_bands(size_t rows, size_t cols, size_t es, int P, size_t mem, size_t k, size_t mid)
{
    size_t k0 = 0, S0 = 0;
    int nb0 = 0;
    for (int me = 0; me < P; me++) {
        gp_plan p;
        gp_error e = {0};
        assert_int_equal(gp__plan_make2(&p, GP_STRATEGY_ALLTOALL, rows, cols, es, P, me, mem, k, mid, &e), 0);
        assert_true(p.band_panels >= 1);
        assert_true(p.band_bufs == 1 || p.band_bufs == 2);
        assert_int_equal(p.mem_bytes, gp__plan_buffer_bytes(GP_STRATEGY_ALLTOALL, rows, cols, es, P, p.panel_rows,
                                                            p.band_panels, p.band_bufs, mid));
        if (mem) {
            assert_true(p.mem_bytes <= mem);
            assert_true(gp__plan_bytes(GP_STRATEGY_ALLTOALL, cols, es, P, p.panel_rows) <= mem);
        } else {
            assert_true(p.band_panels >= p.npanels);   /* no budget: one band */
        }
        if (k) assert_int_equal(p.panel_rows, k < (rows + P - 1) / P ? k : ((rows + P - 1) / P ? (rows + P - 1) / P : 1));
        if (p.band_bufs == 1) assert_true(p.band_panels >= p.npanels);
        if (me == 0) { k0 = p.panel_rows; S0 = p.band_panels; nb0 = p.band_bufs; }
        assert_int_equal(p.panel_rows, k0);
        assert_int_equal(p.band_panels, S0);
        assert_int_equal(p.band_bufs, nb0);
        size_t firsts[3] = {0, rows / 3, rows ? rows - 1 : 0};
        for (int f = 0; f < 3; f++) {
            gp__plan_skip_rows(&p, firsts[f]);
            size_t next = p.first_row;
            for (size_t s = 0; s < p.npanels; s++) {
                gp_range b = gp__plan_band(&p, s);
                size_t last = gp__plan_band_last(&p, s);
                assert_true(last >= s && last < p.npanels && last - s < p.band_panels);
                assert_true(b.count >= 1 && b.count <= gp__plan_band_capacity(&p));
                assert_int_equal(b.start + b.count, gp__plan_rows_done(&p, last));
                if (s == 0 || gp__plan_band_last(&p, s - 1) != last) {   /* a new band starts here */
                    assert_int_equal(b.start, next);
                    assert_true(s % p.band_panels == 0);
                    next = b.start + b.count;
                }
                for (int r = 0; r < P; r++) {   /* every rank's rows of panel s inside its band */
                    gp_range pr = gp__plan_panel(&p, r, s);
                    if (pr.count) assert_true(pr.start >= b.start && pr.start + pr.count <= b.start + b.count);
                }
            }
            assert_int_equal(next, rows);
        }
        gp__plan_free(&p);
    }
}

static void test_bands(void **state)
{
    (void)state;
    size_t shapes[][2] = {{1000, 777}, {1, 999}, {999, 1}, {13, 17}, {1009, 331}, {3, 5}, {8192, 8192}, {4097, 33}};
    int ps[] = {1, 2, 3, 4, 7, 8};
    size_t mems[] = {0, 1 << 16, 1 << 20, 600 << 10, (size_t)3 << 20, (size_t)32 << 20, (size_t)1 << 30};
    size_t ks[] = {0, 1, 7, 1000};
    for (size_t a = 0; a < sizeof shapes / sizeof *shapes; a++)
        for (size_t b = 0; b < sizeof ps / sizeof *ps; b++)
            for (size_t c = 0; c < sizeof mems / sizeof *mems; c++)
                for (size_t d = 0; d < sizeof ks / sizeof *ks; d++)
                    for (size_t mid = 0; mid <= 8; mid += 8) {
                        size_t R = shapes[a][0], C = shapes[a][1], es = 4, mem = mems[c], k = ks[d];
                        int P = ps[b];
                        gp_plan p;
                        gp_error e = {0};
                        /* only the budgets the planner accepts (others are the error tests) */
                        int rc = gp__plan_make2(&p, GP_STRATEGY_ALLTOALL, R, C, es, P, 0, mem, k, mid, &e);
                        gp__plan_free(&p);
                        if (rc) {
                            assert_int_equal(rc, GP_ENOMEM);
                            continue;
                        }
                        check_bands(R, C, es, P, mem, k, mid);
                    }
}

/* The choices themselves: a budget holding the whole output gives one band (the floor's
 * contiguous write); a tighter one two band buffers of S > 1 panels; the tightest S = 1. */
static void test_band_choice(void **state)
{
    (void)state;
    gp_plan p;
    gp_error e = {0};
    /* 8192 x 8192 f32 at 2 ranks, 2 GiB per rank: an eighth of a rank's 4096 rows per panel
     * (GP_PANELS_WANTED; 16 MiB, above the 8 MiB floor), one band, one buffer */
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 8192, 8192, 4, 2, 0, (size_t)2 << 30, 0, &e), 0);
    assert_int_equal(p.panel_rows, 512);
    assert_int_equal(p.npanels, 8);
    assert_true(p.band_panels >= 8);
    assert_int_equal(p.band_bufs, 1);
    assert_int_equal(gp__plan_band(&p, 3).start, 0);
    assert_int_equal(gp__plan_band(&p, 3).count, 8192);
    gp__plan_free(&p);
    /* 160 MiB: the output share (128 MiB) fits beside smaller panels: one band of more panels */
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 8192, 8192, 4, 2, 0, (size_t)160 << 20, 0, &e), 0);
    assert_true(p.panel_rows < 512 && p.panel_rows >= 128);
    assert_true(p.band_panels >= p.npanels);
    assert_int_equal(p.band_bufs, 1);
    assert_true(p.mem_bytes <= (size_t)160 << 20);
    gp__plan_free(&p);
    /* 8192 x 16384 f32 at 2 ranks, 32 MiB (8x the ranks' combined budget): two band buffers
     * of more than one panel, runs longer than with S = 1 */
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 8192, 16384, 4, 2, 0, (size_t)32 << 20, 0, &e), 0);
    size_t kcap = ((size_t)32 << 20) / gp__plan_bytes(GP_STRATEGY_ALLTOALL, 16384, 4, 2, 1);
    assert_int_equal(p.band_bufs, 2);
    assert_true(p.band_panels >= 2);
    assert_true(p.band_panels * p.panel_rows > kcap);
    assert_true(p.mem_bytes <= (size_t)32 << 20);
    gp__plan_free(&p);
    /* a budget of one row: S = 1 (the plan without bands); of three: bands of 2 panels of 2
     * rows (runs of 12 elements) rather than panels of 3 rows (runs of 9) */
    size_t one = gp__plan_bytes(GP_STRATEGY_ALLTOALL, 331, 8, 3, 1);
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 1009, 331, 8, 3, 0, one, 0, &e), 0);
    assert_int_equal(p.band_panels, 1);
    assert_int_equal(p.panel_rows, 1);
    assert_true(p.mem_bytes <= one);
    gp__plan_free(&p);
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 1009, 331, 8, 3, 0, 3 * one, 0, &e), 0);
    assert_int_equal(p.band_panels, 2);
    assert_int_equal(p.panel_rows, 2);
    assert_int_equal(p.band_bufs, 2);
    assert_true(p.mem_bytes <= 3 * one);
    gp__plan_free(&p);
    /* more ranks than rows: ranks without rows still in every band; one band */
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 3, 5, 4, 8, 7, 1 << 20, 0, &e), 0);
    assert_int_equal(p.npanels, 1);
    assert_int_equal(p.band_bufs, 1);
    assert_int_equal(gp__plan_band(&p, 0).count, 3);
    assert_int_equal(gp__plan_panel(&p, 7, 0).count, 0);
    gp__plan_free(&p);
    /* --panel-rows keeps its meaning; the direct strategy has no bands */
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 1201, 157, 8, 3, 0, 0, 7, &e), 0);
    assert_int_equal(p.panel_rows, 7);
    assert_int_equal(p.npanels, (1201 + 20) / 21);
    gp__plan_free(&p);
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_DIRECT, 1201, 157, 8, 3, 0, 1 << 20, 0, &e), 0);
    assert_int_equal(p.band_panels, 1);
    assert_int_equal(gp__plan_band(&p, 1).start, p.panel_rows);
    assert_int_equal(gp__plan_band(&p, 1).count, 1201 - p.panel_rows < p.panel_rows ? 1201 - p.panel_rows : p.panel_rows);
    assert_true(p.mem_bytes <= 1 << 20);
    gp__plan_free(&p);
    /* --panel-rows beyond the budget is refused, as before */
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 1201, 157, 8, 3, 0, 1 << 16, 1000, &e), GP_ENOMEM);
    assert_non_null(strstr(e.msg, "--panel-rows"));
    gp__plan_free(&p);
}

/* The output's default chunks: contiguous for one band, else the widest rank's rows of B x one
 * rank's panels of a band (direct: the panel), under HDF5's 4 GiB per chunk. */
static void test_out_chunk(void **state)
{
    (void)state;
    gp_plan p;
    gp_error e = {0};
    size_t cr = 7, cc = 7;
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 8192, 8192, 4, 2, 0, (size_t)2 << 30, 0, &e), 0);
    gp__plan_out_chunk(&p, &cr, &cc);
    assert_int_equal(cr, 0);
    assert_int_equal(cc, 0);
    gp__plan_free(&p);
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, 8192, 16384, 4, 2, 0, (size_t)32 << 20, 0, &e), 0);
    gp__plan_out_chunk(&p, &cr, &cc);
    assert_true(gp__plan_band_capacity(&p) < 8192);
    assert_int_equal(cr, 8192);                          /* B rows of a rank: 16384 / 2 */
    assert_int_equal(cc, p.band_panels * p.panel_rows);
    gp__plan_free(&p);
    /* 1009 x 331 at 3 ranks: the widest block (111 rows of B) */
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_DIRECT, 1009, 331, 8, 3, 0, (size_t)64 << 10, 0, &e), 0);
    gp__plan_out_chunk(&p, &cr, &cc);
    assert_int_equal(cr, p.col_blocks[0].count);
    assert_int_equal(cr, 111);
    assert_int_equal(cc, p.panel_rows);
    gp__plan_free(&p);
    /* a chunk of 2^20 rows x S k columns of 16 B would pass 4 GiB: fewer rows */
    assert_int_equal(gp__plan_make(&p, GP_STRATEGY_ALLTOALL, (size_t)1 << 20, (size_t)1 << 21, 16, 2, 0, (size_t)64 << 30, 0,
                                   &e), 0);
    gp__plan_out_chunk(&p, &cr, &cc);
    assert_true(gp__plan_band_capacity(&p) < ((size_t)1 << 20));   /* bands, so chunks */
    assert_int_equal(cc, p.band_panels * p.panel_rows);
    assert_true(cr >= 1 && cr < p.col_blocks[0].count);            /* capped */
    assert_true((double)cr * (double)cc * 16.0 < 4294967295.0);
    assert_true((double)(2 * cr) * (double)cc * 16.0 >= 4294967295.0);   /* by as little as halving allows */
    gp__plan_free(&p);
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

/* the throughput in gpipe's summary lines: GB/s down to 1 GB/s, then MB/s, then kB/s (a slow
 * run printed "0.00 GB/s") */
static void test_human_rate(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(gp__human_rate(2.5e9, b, sizeof b), "2.50 GB/s");
    assert_string_equal(gp__human_rate(1e9, b, sizeof b), "1.00 GB/s");
    assert_string_equal(gp__human_rate(9.9e8, b, sizeof b), "990.0 MB/s");
    assert_string_equal(gp__human_rate(2.9e6, b, sizeof b), "2.9 MB/s");
    assert_string_equal(gp__human_rate(512, b, sizeof b), "0.5 kB/s");
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split), cmocka_unit_test(test_plan),
        cmocka_unit_test(test_budget_too_small), cmocka_unit_test(test_parse),
        cmocka_unit_test(test_bands), cmocka_unit_test(test_band_choice), cmocka_unit_test(test_out_chunk),
        cmocka_unit_test(test_human_rate),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
