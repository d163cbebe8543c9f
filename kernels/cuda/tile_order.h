/* kernels/cuda/tile_order.h — the order in which the CUDA transpose kernels walk their tiles
 * (kernels/cuda/transpose.cu), written so that nvcc and the C unit test (tests/unit/
 * test_tile_order.c, which needs no GPU) compile the same code. */
#ifndef GP_TILE_ORDER_H
#define GP_TILE_ORDER_H
#include <stddef.h>

#ifdef __CUDACC__
#define GP_TILE_FN static __host__ __device__ __forceinline__
#else
#define GP_TILE_FN static inline
#endif

/* Tile (*tr, *tc) of a one-dimensional tile index t, 0 <= t < ntr * ntc (the kernel argument
 * `order`, from tile_order() in transpose.cu): bits 0-1 the mode, 0 row-major (neighbouring
 * blocks read neighbouring src tiles), 1 column-major (neighbouring blocks write neighbouring
 * dst tiles), 2 row-major inside panels of g tile columns, 3 column-major inside panels of g
 * tile rows; bits 2.. g (>= 1 for modes 2 and 3). The grouped orders give the resident blocks
 * runs of about g tiles along *both* the src rows they read and the dst rows they write,
 * instead of one tile's width on one side. */
GP_TILE_FN void gp_tile_at(size_t t, size_t ntr, size_t ntc, int order, size_t *tr, size_t *tc)
{
    /* (a, b): the slow and the fast index of the walk; column-major orders walk down tile
     * columns (a = tc, b = tr), row-major ones along tile rows (a = tr, b = tc) */
    const int mode = order & 3, cm = mode & 1;
    size_t a, b;
    if (mode < 2) {
        const size_t n = cm ? ntr : ntc;
        a = t / n;
        b = t - a * n;
    } else { /* panels of g tiles across (b), walked along (a) */
        const size_t g = (size_t)(order >> 2), na = cm ? ntc : ntr, nb = cm ? ntr : ntc;
        const size_t pw = g * na, p = t / pw, l = t - p * pw;
        const size_t gw = nb - p * g < g ? nb - p * g : g;
        a = l / gw;
        b = p * g + (l - a * gw);
    }
    if (cm) { *tc = a; *tr = b; } else { *tr = a; *tc = b; }
}

#endif
