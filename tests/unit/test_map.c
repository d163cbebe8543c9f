/* tests/unit/test_map.c — the CPU map chain (kernels/cpu/map.c): casts (round to nearest even,
 * range errors), affine with scalars and per-column vectors at a column offset, byte-swapped
 * inputs, and fused == unfused bit for bit on random chains. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "pipeline/gpipe.h"
#include "pipeline/map.h"

static gp_mapchain chain1(gp_rtype in, int kind, gp_rtype to)
{
    gp_mapchain m;
    memset(&m, 0, sizeof m);
    m.in = in;
    m.nops = 1;
    m.ops[0].kind = kind;
    m.ops[0].to = to;
    m.ops[0].a = 1;
    return m;
}

static void test_cast_f64_f32_rne(void **state)
{
    (void)state;
    /* 1 + 2^-24 is halfway between 1 and 1 + 2^-23: ties to even -> 1; 1 + 3*2^-24 -> 1 + 2^-22 */
    double in[4] = {1.0 + ldexp(1, -24), 1.0 + 3 * ldexp(1, -24), 1e39, -1e39};
    float out[4];
    gp_mapchain m = chain1(GP_RT_F64, GP_MAPOP_CAST, GP_RT_F32);
    char err[256];
    assert_int_equal(gp_cpu_map(&m, in, out, 1, 4, 0, err, sizeof err), 0);
    assert_true(out[0] == 1.0f);
    assert_true(out[1] == (float)(1.0 + ldexp(1, -22)));
    assert_true(isinf(out[2]) && out[2] > 0);
    assert_true(isinf(out[3]) && out[3] < 0);
}

static void test_cast_to_int(void **state)
{
    (void)state;
    double in[6] = {2.5, 3.5, -2.5, -0.5, 127.4, -128.0};
    int8_t out[6];
    gp_mapchain m = chain1(GP_RT_F64, GP_MAPOP_CAST, GP_RT_I8);
    char err[256] = "";
    assert_int_equal(gp_cpu_map(&m, in, out, 2, 3, 0, err, sizeof err), 0);
    int8_t want[6] = {2, 4, -2, 0, 127, -128};
    assert_memory_equal(out, want, sizeof want);

    double bad[3] = {1, 127.5, 3};   /* rounds to 128: out of range */
    assert_int_equal(gp_cpu_map(&m, bad, out, 1, 3, 10, err, sizeof err), GP_EINVAL);
    assert_non_null(strstr(err, "out of range"));
    assert_non_null(strstr(err, "column 11"));
    double nanv[1] = {NAN};
    assert_int_equal(gp_cpu_map(&m, nanv, out, 1, 1, 0, err, sizeof err), GP_EINVAL);
    assert_non_null(strstr(err, "not a number"));

    gp_mapchain u = chain1(GP_RT_F32, GP_MAPOP_CAST, GP_RT_U8);
    float neg[1] = {-0.6f};
    uint8_t uo[1];
    assert_int_equal(gp_cpu_map(&u, neg, uo, 1, 1, 0, err, sizeof err), GP_EINVAL);
    float small[1] = {-0.4f};   /* rounds to -0 = 0: in range */
    assert_int_equal(gp_cpu_map(&u, small, uo, 1, 1, 0, err, sizeof err), 0);
    assert_int_equal(uo[0], 0);
}

static void test_affine_vectors_col0(void **state)
{
    (void)state;
    /* A has 5 columns; the panel holds columns 2..4 */
    double av[5] = {1, 2, 3, 4, 5}, bv[5] = {10, 20, 30, 40, 50};
    double in[6] = {1, 1, 1, 2, 2, 2}, out[6];
    gp_mapchain m = chain1(GP_RT_F64, GP_MAPOP_AFFINE, GP_RT_F64);
    m.cols = 5;
    m.ops[0].av = av;
    m.ops[0].bv = bv;
    char err[256];
    assert_int_equal(gp_cpu_map(&m, in, out, 2, 3, 2, err, sizeof err), 0);
    double want[6] = {33, 44, 55, 36, 48, 60};
    assert_memory_equal(out, want, sizeof want);
    /* scalar a, vector b; integer input gives f64 */
    int16_t iin[3] = {-3, 0, 7};
    double o2[3];
    gp_mapchain s = chain1(GP_RT_I16, GP_MAPOP_AFFINE, gp_map_affine_type(GP_RT_I16));
    s.cols = 5;
    s.ops[0].a = 0.5;
    s.ops[0].bv = bv;
    assert_int_equal(gp_mapchain_out(&s), GP_RT_F64);
    assert_int_equal(gp_cpu_map(&s, iin, o2, 1, 3, 0, err, sizeof err), 0);
    assert_true(o2[0] == 8.5 && o2[1] == 20 && o2[2] == 33.5);
}

static void test_affine_no_fma(void **state)
{
    (void)state;
    /* x*a + b with x*a rounded first: pick values where an FMA would differ */
    double x = 1.0 + ldexp(1, -30), a = 1.0 - ldexp(1, -30), b = -1.0;
    volatile double p = x * a;
    double want = p + b;
    double got;
    gp_mapchain m = chain1(GP_RT_F64, GP_MAPOP_AFFINE, GP_RT_F64);
    m.ops[0].a = a;
    m.ops[0].b = b;
    char err[64];
    assert_int_equal(gp_cpu_map(&m, &x, &got, 1, 1, 0, err, sizeof err), 0);
    assert_memory_equal(&got, &want, sizeof got);
    assert_true(got != fma(x, a, b));
}

static void test_swapped_input(void **state)
{
    (void)state;
    /* big-endian f64 and i32 */
    double v[3] = {1.5, -2.25, 1e300};
    unsigned char be[24];
    for (int i = 0; i < 3; i++) {
        uint64_t u;
        memcpy(&u, &v[i], 8);
        u = __builtin_bswap64(u);
        memcpy(be + 8 * i, &u, 8);
    }
    double out[3];
    gp_mapchain m;
    memset(&m, 0, sizeof m);
    m.in = GP_RT_F64;
    m.in_swap = 1;   /* no op: a byte-order conversion */
    char err[64];
    assert_int_equal(gp_cpu_map(&m, be, out, 1, 3, 0, err, sizeof err), 0);
    assert_memory_equal(out, v, sizeof v);
    int32_t iv[2] = {-7, 123456};
    uint32_t ibe[2] = {__builtin_bswap32((uint32_t)iv[0]), __builtin_bswap32((uint32_t)iv[1])};
    gp_mapchain c = chain1(GP_RT_I32, GP_MAPOP_CAST, GP_RT_F32);
    c.in_swap = 1;
    float fo[2];
    assert_int_equal(gp_cpu_map(&c, ibe, fo, 1, 2, 0, err, sizeof err), 0);
    assert_true(fo[0] == -7.0f && fo[1] == 123456.0f);
}

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * ldexp(1, -53) * 2 - 1;
}

static void test_fused_equals_unfused(void **state)
{
    (void)state;
    enum { R = 37, C = 1029 };   /* C > one block of the kernel */
    double *in = malloc(R * C * sizeof *in), *av = malloc(C * 8), *bv = malloc(C * 8), *av2 = malloc(C * 8);
    void *o1 = malloc(R * C * 8), *o2 = malloc(R * C * 8);
    for (size_t i = 0; i < (size_t)R * C; i++) in[i] = urand() * 1000;
    for (int c = 0; c < C; c++) { av[c] = urand() * 3; bv[c] = urand(); av2[c] = urand() + 2; }
    static const gp_rtype casts[] = {GP_RT_F32, GP_RT_F64, GP_RT_I32, GP_RT_F32};
    for (int variant = 0; variant < 4; variant++) {
        gp_mapctx f, u;
        memset(&f, 0, sizeof f);
        gp_mapchain *m = &f.chain;
        m->in = GP_RT_F64;
        m->cols = C;
        gp_mapop *op = m->ops;
        op[0] = (gp_mapop){GP_MAPOP_AFFINE, GP_RT_F64, 1, 0, av, bv};
        op[1] = (gp_mapop){GP_MAPOP_CAST, casts[variant], 1, 0, NULL, NULL};
        op[2] = (gp_mapop){GP_MAPOP_AFFINE, gp_map_affine_type(casts[variant]), 0.1, 3, av2, NULL};
        op[3] = (gp_mapop){GP_MAPOP_AFFINE, gp_map_affine_type(casts[variant]), 1.0 / 3, 0, NULL, bv};
        m->nops = variant == 3 ? 2 : 4;   /* variant 3 ends in f32 */
        u = f;
        u.unfused = 1;
        gp_map mf, mu;
        gp_map_bind(&f, &mf);
        gp_map_bind(&u, &mu);
        assert_true(mf.out_type == mu.out_type);
        char e1[256] = "", e2[256] = "";
        /* the panel holds columns 5..C-1 */
        size_t pc = C - 5;
        double *pin = malloc(R * pc * 8);
        for (int r = 0; r < R; r++) memcpy(pin + r * pc, in + r * C + 5, pc * 8);
        int r1 = mf.apply(mf.ctx, pin, o1, R, pc, 5, e1, sizeof e1);
        int r2 = mu.apply(mu.ctx, pin, o2, R, pc, 5, e2, sizeof e2);
        assert_int_equal(r1, 0);
        assert_int_equal(r2, 0);
        size_t es = gp_rtype_size(gp_mapchain_out(m));
        assert_memory_equal(o1, o2, R * pc * es);
        free(pin);
    }
    free(in); free(av); free(bv); free(av2); free(o1); free(o2);
}

static void test_types(void **state)
{
    (void)state;
    gp_rtype t;
    assert_int_equal(gp_map_parse_type("f32", &t), 0);
    assert_int_equal(t, GP_RT_F32);
    assert_int_equal(gp_map_parse_type("uint16", &t), 0);
    assert_int_equal(t, GP_RT_U16);
    assert_int_equal(gp_map_parse_type("f16", &t), -1);
    assert_int_equal(gp_map_parse_type("", &t), -1);
    gp_mapchain m;
    memset(&m, 0, sizeof m);
    m.cols = 10;
    double v[10] = {0};
    m.nops = 2;
    m.ops[0] = (gp_mapop){GP_MAPOP_AFFINE, GP_RT_F64, 1, 0, v, v};
    m.ops[1] = (gp_mapop){GP_MAPOP_AFFINE, GP_RT_F64, 1, 0, NULL, v};
    assert_int_equal(gp_mapchain_table_bytes(&m), 3 * 10 * 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cast_f64_f32_rne), cmocka_unit_test(test_cast_to_int),
        cmocka_unit_test(test_affine_vectors_col0), cmocka_unit_test(test_affine_no_fma),
        cmocka_unit_test(test_swapped_input), cmocka_unit_test(test_fused_equals_unfused),
        cmocka_unit_test(test_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
