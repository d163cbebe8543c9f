/* pipeline/plan.c — who owns what. Rows of B = A^T are split over ranks in near-equal blocks
 * (like fftw_mpi_local_size_2d). Rows of A are dealt out in bands: band s is rows
 * [s P k, (s+1) P k) and rank p reads its k rows [s P k + p k, +k) of it, so that every band
 * lands in B as one contiguous column range (one hyperslab per rank, long runs in the file).
 * With one band (in-memory) this is the ceil(R/P) block split of FFTW. k fits the budget.
 * Ranks step through bands (panels) in lockstep; a rank out of rows sends empty blocks. */
#include <stdlib.h>
#include "pipeline/internal.h"

/* Panel size (one rank's read buffer): at most 256 MiB, so no HDF5/MPI-IO transfer nears 2 GiB;
 * about a quarter of the rank's rows, so reading, transposing, exchanging and writing overlap;
 * not below 8 MiB unless the budget says so, so each I/O call stays efficient. */
#define GP_PANEL_MAX_BYTES ((size_t)256 << 20)
#define GP_PANEL_MIN_BYTES ((size_t)8 << 20)
#define GP_PANELS_WANTED 4

gp_range gp__split(size_t n, int parts, int idx)
{
    size_t base = n / (size_t)parts, extra = n % (size_t)parts, i = (size_t)idx;
    gp_range r;
    r.count = base + (i < extra ? 1 : 0);
    r.start = i * base + (i < extra ? i : extra);
    return r;
}

size_t gp__plan_bytes(gp_strategy st, size_t cols, size_t esize, int nranks, size_t k)
{
    size_t w = (cols + (size_t)nranks - 1) / (size_t)nranks;
    if (st == GP_STRATEGY_DIRECT)   /* read k x w, transposed w x k; two of each */
        return 4 * esize * k * w;
    /* read buffer k x C, transposed/send buffer C x k, receive buffer w x (P k), w <= ceil(C/P);
     * two of each */
    return 2 * esize * k * (2 * cols + w * (size_t)nranks);
}

gp_status gp__plan_make(gp_plan *p, gp_strategy st, size_t rows, size_t cols, size_t esize, int nranks,
                        int rank, size_t mem, size_t panel_rows, gp_error *e)
{
    p->strategy = st;
    p->first_row = 0;
    p->rows = rows; p->cols = cols; p->esize = esize; p->nranks = nranks; p->rank = rank;
    p->col_blocks = calloc((size_t)nranks, sizeof *p->col_blocks);
    if (!p->col_blocks) return gp__fail(e, GP_ENOMEM, "out of memory (plan)");
    for (int r = 0; r < nranks; r++) p->col_blocks[r] = gp__split(cols, nranks, r);
    /* alltoall: panels cut each rank's row block (the first block is the largest);
     * direct: panels cut A's rows, each rank reading its column slab of them */
    size_t maxrows = st == GP_STRATEGY_DIRECT ? rows : (rows + (size_t)nranks - 1) / (size_t)nranks;
    size_t rowbytes = esize * (st == GP_STRATEGY_DIRECT ? (cols + (size_t)nranks - 1) / (size_t)nranks : cols);
    size_t one = gp__plan_bytes(st, cols, esize, nranks, 1);
    size_t k;
    if (panel_rows) {
        k = panel_rows;
        if (mem && gp__plan_bytes(st, cols, esize, nranks, k) > mem) {
            char a[32], b[32];
            return gp__fail(e, GP_ENOMEM, "--panel-rows %zu needs %s per rank, more than --mem %s",
                            k, gp__human_bytes((double)gp__plan_bytes(st, cols, esize, nranks, k), a, 32),
                            gp__human_bytes((double)mem, b, 32));
        }
    } else {
        size_t row = rowbytes ? rowbytes : 1;
        size_t kmax = GP_PANEL_MAX_BYTES / row, kmin = GP_PANEL_MIN_BYTES / row;
        k = (maxrows + GP_PANELS_WANTED - 1) / GP_PANELS_WANTED;
        if (k < kmin) k = kmin;
        if (k > kmax) k = kmax;
        if (k == 0) k = 1;
        if (mem) {
            if (one > mem) {
                char a[32], b[32];
                return gp__fail(e, GP_ENOMEM,
                                "--mem %s is too small: one row of %zu columns needs at least %s per rank",
                                gp__human_bytes((double)mem, b, 32), cols, gp__human_bytes((double)one, a, 32));
            }
            if (k > mem / one) k = mem / one;
        }
    }
    if (k > maxrows) k = maxrows;
    if (k == 0) k = 1;
    p->panel_rows = k;
    size_t band = st == GP_STRATEGY_DIRECT ? k : k * (size_t)nranks;
    p->npanels = rows ? (rows + band - 1) / band : 0;
    return GP_OK;
}

void gp__plan_free(gp_plan *p)
{
    free(p->col_blocks);
    p->col_blocks = NULL;
}

static size_t band_rows(const gp_plan *p)
{
    return p->strategy == GP_STRATEGY_DIRECT ? p->panel_rows : p->panel_rows * (size_t)p->nranks;
}

void gp__plan_skip_rows(gp_plan *p, size_t first_row)
{
    p->first_row = first_row < p->rows ? first_row : p->rows;
    size_t left = p->rows - p->first_row, band = band_rows(p);
    p->npanels = left ? (left + band - 1) / band : 0;
}

size_t gp__plan_rows_done(const gp_plan *p, size_t s)
{
    size_t end = p->first_row + (s + 1) * band_rows(p);
    return end < p->rows ? end : p->rows;
}

void gp__plan_read_block(const gp_plan *p, int r, size_t s, gp_range *rows, gp_range *cols)
{
    if (p->strategy == GP_STRATEGY_DIRECT) {
        size_t off = p->first_row + s * p->panel_rows;
        rows->start = off < p->rows ? off : p->rows;
        rows->count = off < p->rows ? (p->rows - off < p->panel_rows ? p->rows - off : p->panel_rows) : 0;
        *cols = p->col_blocks[r];
    } else {
        *rows = gp__plan_panel(p, r, s);
        cols->start = 0;
        cols->count = p->cols;
    }
}

int gp__plan_write_strips(const gp_plan *p, size_t s, size_t *col0, size_t *ncols)
{
    if (p->strategy == GP_STRATEGY_DIRECT) {
        gp_range rows, cols;
        gp__plan_read_block(p, p->rank, s, &rows, &cols);
        col0[0] = rows.start;
        ncols[0] = rows.count;
        return 1;
    }
    int n = 0;   /* bands are contiguous: adjacent strips merge into one hyperslab */
    for (int r = 0; r < p->nranks; r++) {
        gp_range pr = gp__plan_panel(p, r, s);
        if (!pr.count) continue;
        if (n && col0[n - 1] + ncols[n - 1] == pr.start) {
            ncols[n - 1] += pr.count;
        } else {
            col0[n] = pr.start;
            ncols[n++] = pr.count;
        }
    }
    return n;
}

gp_range gp__plan_panel(const gp_plan *p, int r, size_t s)
{
    size_t k = p->panel_rows, start = p->first_row + (s * (size_t)p->nranks + (size_t)r) * k;
    gp_range out = {start < p->rows ? start : p->rows, 0};
    if (start < p->rows) out.count = p->rows - start < k ? p->rows - start : k;
    return out;
}
