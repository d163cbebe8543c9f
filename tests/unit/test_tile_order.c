/* tests/unit/test_tile_order.c — the CUDA transpose kernels' tile walk (kernels/cuda/
 * tile_order.h; no GPU needed: the same code compiles as C) against orders enumerated by plain
 * nested loops, for every mode, panel width 1-9 and shape up to 23 x 23 tiles, plus indices past
 * 2^32. Each walk must visit every tile exactly once, in the enumerated order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "kernels/cuda/tile_order.h"

/* The order by definition: ref[2 t], ref[2 t + 1] = tile row and column of step t. */
static void enumerate(size_t ntr, size_t ntc, int mode, size_t g, size_t *ref)
{
    size_t k = 0;
    switch (mode) {
    case 0:
        for (size_t r = 0; r < ntr; r++)
            for (size_t c = 0; c < ntc; c++) { ref[k++] = r; ref[k++] = c; }
        break;
    case 1:
        for (size_t c = 0; c < ntc; c++)
            for (size_t r = 0; r < ntr; r++) { ref[k++] = r; ref[k++] = c; }
        break;
    case 2: /* panels of g tile columns, row-major inside */
        for (size_t p = 0; p < ntc; p += g)
            for (size_t r = 0; r < ntr; r++)
                for (size_t c = p; c < ntc && c < p + g; c++) { ref[k++] = r; ref[k++] = c; }
        break;
    default: /* panels of g tile rows, column-major inside */
        for (size_t p = 0; p < ntr; p += g)
            for (size_t c = 0; c < ntc; c++)
                for (size_t r = p; r < ntr && r < p + g; r++) { ref[k++] = r; ref[k++] = c; }
    }
    assert_int_equal(k, 2 * ntr * ntc);
}

static void test_small_shapes(void **state)
{
    (void)state;
    size_t *ref = malloc(2 * 23 * 23 * sizeof *ref);
    assert_non_null(ref);
    for (size_t ntr = 1; ntr <= 23; ntr++)
        for (size_t ntc = 1; ntc <= 23; ntc++)
            for (int mode = 0; mode < 4; mode++)
                for (size_t g = 1; g <= (mode < 2 ? 1 : 9); g++) {
                    enumerate(ntr, ntc, mode, g, ref);
                    const int order = mode | (int)(g << 2);
                    for (size_t t = 0; t < ntr * ntc; t++) {
                        size_t tr = (size_t)-1, tc = (size_t)-1;
                        gp_tile_at(t, ntr, ntc, mode < 2 ? mode : order, &tr, &tc);
                        if (tr != ref[2 * t] || tc != ref[2 * t + 1])
                            fail_msg("%zu x %zu tiles, mode %d, panel %zu, step %zu: (%zu, %zu), "
                                     "expected (%zu, %zu)", ntr, ntc, mode, g, t, tr, tc,
                                     ref[2 * t], ref[2 * t + 1]);
                    }
                }
    free(ref);
}

/* More than 2^32 tiles (a 1-byte matrix of ~2^46 elements would have them): first, last and a
 * step in the middle of each walk, against the definitions in closed form. */
static void test_large_indices(void **state)
{
    (void)state;
    const size_t ntr = 3, ntc = ((size_t)1 << 33) + 5, n = ntr * ntc, g = 7;
    for (int mode = 0; mode < 4; mode++) {
        const int order = mode | (mode < 2 ? 0 : (int)(g << 2));
        size_t tr, tc;
        gp_tile_at(0, ntr, ntc, order, &tr, &tc);
        assert_int_equal(tr, 0);
        assert_int_equal(tc, 0);
        gp_tile_at(n - 1, ntr, ntc, order, &tr, &tc);
        assert_int_equal(tr, ntr - 1);
        assert_int_equal(tc, ntc - 1);
    }
    /* row-major: step t is (t / ntc, t % ntc); column-major: (t % ntr, t / ntr) */
    const size_t t = ((size_t)1 << 33) + 12345;
    size_t tr, tc;
    gp_tile_at(t, ntr, ntc, 0, &tr, &tc);
    assert_int_equal(tr, t / ntc);
    assert_int_equal(tc, t % ntc);
    gp_tile_at(t, ntr, ntc, 1, &tr, &tc);
    assert_int_equal(tr, t % ntr);
    assert_int_equal(tc, t / ntr);
    /* mode 2: whole panels of g columns hold ntr * g steps each */
    const size_t p = t / (ntr * g), l = t % (ntr * g);
    gp_tile_at(t, ntr, ntc, 2 | (int)(g << 2), &tr, &tc);
    assert_int_equal(tr, l / g);
    assert_int_equal(tc, p * g + l % g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_shapes),
        cmocka_unit_test(test_large_indices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
