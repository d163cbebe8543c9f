/* tests/unit/test_cpu_transpose.c — gp_cpu_transpose and the CPU backend table against an
 * independent naive loop: every byte of dst checked (dst poisoned with 0xA5 first, plus a guard
 * zone after it), element sizes 1..16 and odd ones, degenerate, prime and block-boundary shapes,
 * every instruction-set path (avx512 where the CPU has it, avx2, sse2, scalar) and both store kinds (GP_CPU_ISA / GP_CPU_NT are read once per
 * process, so those variants re-run this executable with the environment set). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/backend.h"
#include "kernels/cpu/cpu.h"
#include "pipeline/status.h"

#define GUARD 64

static uint64_t rng_state;
static uint8_t rnd8(void)
{
    /* xorshift64*: seeded, independent of libc rand() */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint8_t)((rng_state * 2685821657736338717ULL) >> 56);
}

/* naive reference: dst[j][i] = src[i][j], byte by byte */
static void naive(const uint8_t *s, uint8_t *d, size_t rows, size_t cols, size_t es)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            for (size_t b = 0; b < es; b++) d[(j * rows + i) * es + b] = s[(i * cols + j) * es + b];
}

/* Runs one case; dst_off shifts dst off its 64-byte alignment (unaligned-path coverage). */
static void check_case(size_t rows, size_t cols, size_t es, size_t dst_off, uint64_t seed)
{
    size_t n = rows * cols * es;
    uint8_t *src = gp_cpu_alloc(n ? n : 1);
    uint8_t *dbuf = gp_cpu_alloc(n + dst_off + GUARD);
    uint8_t *ref = malloc(n ? n : 1);
    assert_non_null(src);
    assert_non_null(dbuf);
    assert_non_null(ref);
    uint8_t *dst = dbuf + dst_off;
    rng_state = seed * 0x9E3779B97F4A7C15ULL + rows * 131 + cols * 7 + es + 1;
    for (size_t k = 0; k < n; k++) src[k] = rnd8();
    memset(dbuf, 0xA5, n + dst_off + GUARD);
    naive(src, ref, rows, cols, es);

    gp_cpu_transpose(src, dst, rows, cols, es);

    for (size_t k = 0; k < dst_off; k++)
        if (dbuf[k] != 0xA5) fail_msg("%zux%zu es=%zu: byte before dst overwritten", rows, cols, es);
    for (size_t k = 0; k < n; k++)
        if (dst[k] != ref[k]) {
            size_t e = k / es;
            fail_msg("%zux%zu es=%zu off=%zu: dst byte %zu (dst elem row %zu col %zu) = 0x%02x, want 0x%02x",
                     rows, cols, es, dst_off, k, e / rows, e % rows, dst[k], ref[k]);
        }
    for (size_t k = 0; k < GUARD; k++)
        if (dst[n + k] != 0xA5) fail_msg("%zux%zu es=%zu: wrote past the end of dst", rows, cols, es);
    gp_cpu_free(src);
    gp_cpu_free(dbuf);
    free(ref);
}

static const size_t ESIZES[] = {1, 2, 3, 4, 8, 12, 16};
#define NES (sizeof ESIZES / sizeof ESIZES[0])

static void test_degenerate(void **state)
{
    (void)state;
    static const size_t shapes[][2] = {{1, 1}, {1, 2}, {2, 1}, {1, 1000}, {1000, 1}, {1, 4099}, {4099, 1}, {2, 2}};
    for (size_t e = 0; e < NES; e++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            check_case(shapes[k][0], shapes[k][1], ESIZES[e], 0, 1);
    /* empty matrices and esize 0 must not touch anything */
    uint8_t a = 1, b = 2;
    gp_cpu_transpose(&a, &b, 0, 5, 4);
    gp_cpu_transpose(&a, &b, 5, 0, 4);
    gp_cpu_transpose(&a, &b, 1, 1, 0);
    assert_int_equal(b, 2);
}

static void test_primes(void **state)
{
    (void)state;
    static const size_t shapes[][2] = {{257, 509}, {1021, 3}, {3, 1021}, {7, 13}, {13, 7}, {31, 67}, {127, 2}};
    for (size_t e = 0; e < NES; e++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            check_case(shapes[k][0], shapes[k][1], ESIZES[e], 0, 2);
}

/* sizes around every tile and band edge (8, 16, 32, 64, 128 and the 16-element strips) */
static void test_block_boundaries(void **state)
{
    (void)state;
    static const size_t dims[] = {15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129};
    for (size_t e = 0; e < NES; e++)
        for (size_t a = 0; a < sizeof dims / sizeof dims[0]; a++)
            for (size_t b = 0; b < sizeof dims / sizeof dims[0]; b += 2)
                check_case(dims[a], dims[(b + a) % (sizeof dims / sizeof dims[0])], ESIZES[e], 0, 3);
}

/* large enough for the banded / scratch paths and non-temporal stores (outputs >= 8 MiB) */
static void test_large(void **state)
{
    (void)state;
    check_case(1024, 2048, 4, 0, 4);   /* 8 MiB: streaming stores, power-of-two strides */
    check_case(1031, 2053, 4, 0, 5);   /* odd shape, big */
    check_case(1024, 1024, 8, 0, 6);   /* 8 MiB f64 */
    check_case(520, 1037, 16, 0, 7);
    check_case(2048, 4099, 1, 0, 8);   /* scratch-block path, partial blocks */
    check_case(1025, 2047, 2, 0, 9);
    check_case(700, 1300, 3, 0, 10);
    check_case(333, 1111, 12, 0, 11);
    check_case(3, 1 << 20, 4, 0, 12);  /* short wide panel */
    check_case(1 << 20, 3, 4, 0, 13);  /* tall narrow */
    check_case(16, 1 << 18, 8, 0, 14);
    check_case(20011, 40, 4, 0, 30);   /* narrow: blocks of > 128 rows, staged in pieces (AVX2) */
    check_case(10007, 24, 8, 0, 31);
}

/* element sizes with no specialised kernel (generic memcpy path) */
static void test_other_esizes(void **state)
{
    (void)state;
    static const size_t es[] = {5, 6, 7, 9, 10, 20, 24, 32, 40, 64, 100};
    for (size_t e = 0; e < sizeof es / sizeof es[0]; e++) {
        check_case(37, 41, es[e], 0, 15);
        check_case(65, 130, es[e], 0, 16);
    }
}

/* dst not 64-byte aligned (and 4/8 B elements not naturally aligned at all) */
static void test_unaligned_dst(void **state)
{
    (void)state;
    static const size_t offs[] = {1, 4, 8, 16, 32};
    for (size_t e = 0; e < NES; e++)
        for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
            check_case(67, 129, ESIZES[e], offs[o], 17);
            check_case(512, 600, ESIZES[e], offs[o], 18);
        }
    check_case(1024, 2048, 4, 32, 19); /* large but unaligned: no streaming stores */
}

/* Sub-matrices with row pitches (gp_cpu_transpose_pitched, the pipeline's self block): every
 * byte of dst checked, including the pitch padding between dst rows, which must stay poisoned. */
static void check_pitched(size_t rows, size_t cols, size_t es, size_t ls, size_t ld, size_t dst_off, uint64_t seed)
{
    size_t ns = rows * ls * es, nd = cols * ld * es;
    uint8_t *src = gp_cpu_alloc(ns), *dbuf = gp_cpu_alloc(nd + dst_off + GUARD);
    assert_non_null(src);
    assert_non_null(dbuf);
    uint8_t *dst = dbuf + dst_off;
    rng_state = seed * 0x9E3779B97F4A7C15ULL + rows * 131 + cols * 7 + es + ls * 3 + ld;
    for (size_t k = 0; k < ns; k++) src[k] = rnd8();
    memset(dbuf, 0xA5, nd + dst_off + GUARD);
    gp_cpu_transpose_pitched(src, ls, dst, ld, rows, cols, es);
    for (size_t k = 0; k < dst_off; k++)
        if (dbuf[k] != 0xA5) fail_msg("pitched %zux%zu es=%zu: byte before dst overwritten", rows, cols, es);
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < ld; i++)
            for (size_t b = 0; b < es; b++) {
                uint8_t got = dst[(j * ld + i) * es + b];
                uint8_t want = i < rows ? src[(i * ls + j) * es + b] : 0xA5;
                if (got != want)
                    fail_msg("pitched %zux%zu es=%zu ls=%zu ld=%zu off=%zu: dst (%zu,%zu) byte %zu = 0x%02x, want 0x%02x",
                             rows, cols, es, ls, ld, dst_off, j, i, b, got, want);
            }
    for (size_t k = 0; k < GUARD; k++)
        if (dst[nd + k] != 0xA5) fail_msg("pitched %zux%zu es=%zu: wrote past the end of dst", rows, cols, es);
    gp_cpu_free(src);
    gp_cpu_free(dbuf);
}

static void test_pitched(void **state)
{
    (void)state;
    for (size_t e = 0; e < NES; e++) {
        size_t es = ESIZES[e];
        check_pitched(1, 1, es, 3, 2, 0, 20);
        check_pitched(1, 37, es, 40, 5, 0, 21);   /* a row vector into a strided column */
        check_pitched(37, 1, es, 9, 37, 0, 22);
        check_pitched(37, 1, es, 9, 64, 0, 22);
        check_pitched(67, 129, es, 131, 70, 0, 23);
        check_pitched(64, 128, es, 256, 192, 0, 24);
        check_pitched(257, 509, es, 600, 300, 8, 25);
    }
    /* the pipeline's shapes: k rows of a C-wide panel, columns [c0, c0 + w) into a w x K buffer
     * at column offset o, large enough for the banded paths and streaming stores */
    static const size_t es2[] = {4, 8, 16, 2};
    for (size_t e = 0; e < sizeof es2 / sizeof es2[0]; e++) {
        size_t es = es2[e];
        check_pitched(512, 2048, es, 4096, 1024, 0, 26);      /* w x K, this rank's block first */
        check_pitched(512, 2048, es, 4096, 1024, 512 * es, 27); /* second of two blocks */
        check_pitched(1000, 1500, es, 3001, 2003, 0, 28);
        check_pitched(520, 1037, es, 1037, 1040, 0, 29);
    }
}

static void test_backend_table(void **state)
{
    (void)state;
    char err[128] = "";
    gp_backend *b = NULL;
    assert_int_equal(gp_cpu_backend_create(&b, err, sizeof err), GP_OK);
    assert_non_null(b);
    assert_string_equal(b->name, "cpu");
    assert_true(strncmp(b->desc, "cpu (", 5) == 0);
    assert_non_null(b->host_alloc);
    assert_non_null(b->host_free);
    assert_non_null(b->transpose);
    assert_non_null(b->transpose_pitched);
    assert_non_null(b->destroy);

    size_t rows = 300, cols = 777, es = 8, n = rows * cols * es;
    uint8_t *s = b->host_alloc(b, n), *d = b->host_alloc(b, n);
    assert_non_null(s);
    assert_non_null(d);
    assert_int_equal((uintptr_t)s % 64, 0);
    assert_int_equal((uintptr_t)d % 64, 0);
    for (size_t k = 0; k < n; k++) s[k] = (uint8_t)(k * 37 + 11);
    memset(d, 0xA5, n);
    assert_int_equal(b->transpose(b, s, d, rows, cols, es, err, sizeof err), GP_OK);
    uint8_t *ref = malloc(n);
    assert_non_null(ref);
    naive(s, ref, rows, cols, es);
    assert_memory_equal(d, ref, n);

    /* large allocation (huge-page hint path) is aligned and usable */
    size_t big = (size_t)9 << 20;
    uint8_t *h = b->host_alloc(b, big);
    assert_non_null(h);
    assert_int_equal((uintptr_t)h % 64, 0);
    memset(h, 1, big);
    b->host_free(b, h);

    /* errors: esize 0, NULL buffers, size overflow; zero-size is a no-op */
    err[0] = 0;
    assert_int_equal(b->transpose(b, s, d, rows, cols, 0, err, sizeof err), GP_EINVAL);
    assert_true(strlen(err) > 0);
    assert_int_equal(b->transpose(b, NULL, d, rows, cols, es, err, sizeof err), GP_EINVAL);
    assert_int_equal(b->transpose(b, s, NULL, rows, cols, es, err, sizeof err), GP_EINVAL);
    assert_int_equal(b->transpose(b, s, d, SIZE_MAX / 2, 4, 1, err, sizeof err), GP_EINVAL);
    assert_int_equal(b->transpose(b, s, d, 0, cols, es, err, sizeof err), GP_OK);
    assert_int_equal(b->transpose(b, s, d, rows, 0, es, NULL, 0), GP_OK);
    assert_null(b->host_alloc(b, 0));
    /* pitched entry: a sub-block into a wider dst, pitches checked */
    memset(d, 0xA5, n);
    assert_int_equal(b->transpose_pitched(b, s + 5 * es, cols, d, rows + 3, rows, 100, es, err, sizeof err), GP_OK);
    for (size_t j = 0; j < 100; j++) assert_memory_equal(d + j * (rows + 3) * es, ref + (j + 5) * rows * es, rows * es);
    assert_int_equal(b->transpose_pitched(b, s, cols - 1, d, rows, rows, cols, es, err, sizeof err), GP_EINVAL);
    assert_int_equal(b->transpose_pitched(b, s, cols, d, rows - 1, rows, cols, es, err, sizeof err), GP_EINVAL);
    assert_int_equal(b->transpose_pitched(b, s, cols, d, rows, rows, cols, 0, err, sizeof err), GP_EINVAL);
    assert_int_equal(b->transpose_pitched(b, s, cols, d, rows, 0, cols, es, err, sizeof err), GP_OK);

    free(ref);
    b->host_free(b, s);
    b->host_free(b, d);
    b->host_free(b, NULL);
    b->destroy(b);
    assert_int_equal(gp_cpu_backend_create(NULL, err, sizeof err), GP_EINVAL);
}

/* THPeligible of the mapping that holds p (/proc/self/smaps), -1 when the kernel does not say. */
static int thp_eligible(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0, r = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            if (in) break;
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        } else if (in && sscanf(line, "THPeligible: %d", &r) == 1) {
            break;
        }
    }
    fclose(f);
    return r;
}

/* host_alloc_uses: huge pages only for buffers filled >= 8 times (kernels/cpu/backend.c);
 * aligned, usable memory either way. The policy itself is checked where the kernel's THP mode
 * is `madvise` (then only an MADV_HUGEPAGE region is eligible) and GP_CPU_THP is not set. */
static void test_host_alloc_uses(void **state)
{
    (void)state;
    gp_backend *b = NULL;
    char err[256];
    assert_int_equal(gp_cpu_backend_create(&b, err, sizeof err), 0);
    assert_non_null(b->host_alloc_uses);
    const size_t big = (size_t)8 << 20;
    unsigned char *once = b->host_alloc_uses(b, big, 1), *many = b->host_alloc_uses(b, big, 100);
    unsigned char *small = b->host_alloc_uses(b, 1000, 100);
    assert_non_null(once);
    assert_non_null(many);
    assert_non_null(small);
    assert_int_equal((uintptr_t)once % ((size_t)2 << 20), 0);
    assert_int_equal((uintptr_t)many % ((size_t)2 << 20), 0);
    assert_int_equal((uintptr_t)small % 64, 0);
    for (size_t i = 0; i < big; i += 4096) { once[i] = (unsigned char)i; many[i] = (unsigned char)(i >> 12); }
    memset(small, 0x5A, 1000);
    for (size_t i = 0; i < big; i += 4096) {
        assert_int_equal(once[i], (unsigned char)i);
        assert_int_equal(many[i], (unsigned char)(i >> 12));
    }
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char mode[128] = "";
    if (f) { if (!fgets(mode, sizeof mode, f)) mode[0] = 0; fclose(f); }
    int e_once = thp_eligible(once), e_many = thp_eligible(many);
    if (strstr(mode, "[madvise]") && !getenv("GP_CPU_THP") && e_once >= 0 && e_many >= 0) {
        assert_int_equal(e_once, 0);   /* filled once: plain pages */
        assert_int_equal(e_many, 1);   /* filled 100 times: MADV_HUGEPAGE */
    } else {
        printf("# THP mode '%.40s', eligible %d / %d: policy not checkable here\n", mode, e_once, e_many);
    }
    b->host_free(b, once);
    b->host_free(b, many);
    b->host_free(b, small);
    b->destroy(b);
}

/* Threaded calls (gp_cpu_set_threads): calls of >= 4 MiB are cut into parts along the longer
 * side, parts of >= 64 elements, one per thread; parts start on multiples of 64. Shapes that cut
 * by rows and by columns, into parts that do not divide evenly, more threads than 64-element
 * parts, a generic element size, and pitched sub-matrices as the pipeline passes them. */
static void test_threads(void **state)
{
    (void)state;
    static const int nts[] = {2, 3, 5};
    const int prev = gp_cpu_threads();   /* GP_CPU_THREADS in a child run */
    for (size_t t = 0; t < sizeof nts / sizeof nts[0]; t++) {
        gp_cpu_set_threads(nts[t]);
        assert_int_equal(gp_cpu_threads(), nts[t]);
        check_case(1031, 2053, 4, 0, 40);    /* by columns (wider than tall), 8.5 MB */
        check_case(2053, 1031, 4, 0, 41);    /* by rows */
        check_case(4099, 263, 8, 0, 42);
        check_case(263, 4099, 8, 8, 43);     /* dst not on a line */
        check_case(3, 1 << 20, 4, 0, 44);    /* short wide: parts of columns */
        check_case(1 << 20, 3, 4, 0, 45);
        check_case(2048, 4099, 1, 0, 46);
        check_case(1025, 2047, 2, 0, 47);
        check_case(200, 190, 128, 0, 48);    /* 200 rows: 3 parts of >= 64 rows, whatever nt */
        check_case(520, 1037, 16, 0, 49);
        check_pitched(1000, 1500, 4, 3001, 2003, 0, 50);
        check_pitched(1000, 1500, 8, 3001, 2003, 64, 51);
        check_pitched(2048, 512, 4, 1024, 4096, 0, 52);
    }
    gp_cpu_set_threads(1);
    assert_int_equal(gp_cpu_threads(), 1);
    gp_cpu_set_threads(0);   /* clamped */
    assert_int_equal(gp_cpu_threads(), 1);
    gp_cpu_set_threads(1000);
    assert_int_equal(gp_cpu_threads(), GP_CPU_MAX_THREADS);
    gp_cpu_set_threads(prev);
    assert_true(gp_cpu_threads_auto() >= 1);
}

/* The other instruction-set paths and store kinds: run this same executable again with
 * GP_CPU_ISA / GP_CPU_NT set (they are read once per process). */
static char *g_self;
static void test_other_paths(void **state)
{
    (void)state;
    if (getenv("GP_CPU_TEST_CHILD")) skip();
    static const char *envs[] = {"GP_CPU_ISA=scalar", "GP_CPU_ISA=sse2", "GP_CPU_ISA=avx2", "GP_CPU_NT=0", "GP_CPU_NT=1",
                                 "GP_CPU_ISA=avx2 GP_CPU_NT=1", "GP_CPU_ISA=avx2 GP_CPU_LAYOUT=band GP_CPU_NT=1",
                                 "GP_CPU_ISA=avx2 GP_CPU_THREADS=2"};
    for (size_t k = 0; k < sizeof envs / sizeof envs[0]; k++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "GP_CPU_TEST_CHILD=1 %s '%s' >/dev/null 2>&1", envs[k], g_self);
        int rc = system(cmd);
        if (rc != 0) fail_msg("re-run with %s failed (status %d): run it by hand to see which case", envs[k], rc);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    g_self = argv[0];
    printf("# transpose ISA: %s%s\n", gp_cpu_isa_name(), getenv("GP_CPU_TEST_CHILD") ? " (child)" : "");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_degenerate),    cmocka_unit_test(test_primes),
        cmocka_unit_test(test_block_boundaries), cmocka_unit_test(test_large),
        cmocka_unit_test(test_other_esizes),  cmocka_unit_test(test_unaligned_dst),
        cmocka_unit_test(test_pitched),       cmocka_unit_test(test_threads),
        cmocka_unit_test(test_backend_table), cmocka_unit_test(test_host_alloc_uses),
        cmocka_unit_test(test_other_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
