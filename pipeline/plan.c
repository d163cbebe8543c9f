/* pipeline/plan.c — who owns what. Rows of B = A^T are split over ranks in near-equal blocks
 * (like fftw_mpi_local_size_2d). Rows of A are dealt out in panels: panel s is rows
 * [s P k, (s+1) P k) and rank p reads its k rows [s P k + p k, +k) of it, so that every panel
 * lands in B as one contiguous column range. With one panel (in-memory) this is the ceil(R/P)
 * block split of FFTW. Write bands: S consecutive panels are received into one band buffer per
 * rank (w x S P k) and written together, so each rank's write has runs of S P k elements; with
 * S = all panels each rank writes its rows of B as one contiguous block. k and S fit the budget.
 * Ranks step through panels in lockstep; a rank out of rows sends empty blocks. */
#include <stdlib.h>
#include "pipeline/internal.h"

/* Panel size (one rank's read buffer): at most 256 MiB, so no HDF5/MPI-IO transfer nears 2 GiB;
 * about an eighth of the rank's rows, so reading, transposing, exchanging and writing overlap and
 * the parts that cannot (the first read, the last transpose and exchange) stay small (8 panels
 * against 4: 8% faster file -> file on the 16-core GPU host, no difference on the 2-core machine;
 * bench/NOTES.md); not below 8 MiB unless the budget says so, so each I/O call stays efficient. */
#define GP_PANEL_MAX_BYTES ((size_t)256 << 20)
#define GP_PANEL_MIN_BYTES ((size_t)8 << 20)
#define GP_PANELS_WANTED 8
/* The smallest panel (read buffer) worth shrinking to so that one band holds the whole output:
 * below it the per-panel costs (a collective read, an exchange, an agreement) start to count. */
#define GP_PANEL_MIN_SINGLE_BYTES ((size_t)4 << 20)

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

size_t gp__plan_buffer_bytes(gp_strategy st, size_t rows, size_t cols, size_t esize, int nranks, size_t k,
                             size_t band_panels, int band_bufs, size_t mid_esize)
{
    size_t P = (size_t)nranks, w = (cols + P - 1) / P;
    if (st == GP_STRATEGY_DIRECT)   /* read k x w, map k x w, transposed w x k; two of each */
        return 2 * k * w * (2 * esize + mid_esize);
    size_t band = band_panels * P * k;   /* a band buffer: w x (S P k), never wider than A has rows */
    if (band > rows) band = rows;
    return 2 * k * cols * (2 * esize + mid_esize) + (size_t)band_bufs * w * band * esize;
}

static size_t panels_of(size_t rows, size_t band_rows)
{
    return rows ? (rows + band_rows - 1) / band_rows : 0;
}

gp_status gp__plan_make(gp_plan *p, gp_strategy st, size_t rows, size_t cols, size_t esize, int nranks,
                        int rank, size_t mem, size_t panel_rows, gp_error *e)
{
    return gp__plan_make2(p, st, rows, cols, esize, nranks, rank, mem, panel_rows, 0, e);
}

gp_status gp__plan_make2(gp_plan *p, gp_strategy st, size_t rows, size_t cols, size_t esize, int nranks,
                         int rank, size_t mem, size_t panel_rows, size_t mid_esize, gp_error *e)
{
    p->strategy = st;
    p->first_row = 0;
    p->rows = rows; p->cols = cols; p->esize = esize; p->nranks = nranks; p->rank = rank;
    p->band_panels = 1;
    p->band_bufs = 2;
    p->col_blocks = calloc((size_t)nranks, sizeof *p->col_blocks);
    if (!p->col_blocks) return gp__fail(e, GP_ENOMEM, "out of memory (plan)");
    for (int r = 0; r < nranks; r++) p->col_blocks[r] = gp__split(cols, nranks, r);
    /* alltoall: panels cut each rank's row block (the first block is the largest);
     * direct: panels cut A's rows, each rank reading its column slab of them */
    int direct = st == GP_STRATEGY_DIRECT;
    size_t P = (size_t)nranks, w = (cols + P - 1) / P;
    size_t maxrows = direct ? rows : (rows + P - 1) / P;
    size_t rowbytes = esize * (direct ? w : cols);
    /* bytes per panel row of the plan with bands of one panel (S = 1, two buffers of each kind),
     * the smallest there is: a budget below one row of it is refused */
#define BYTES(k_, s_, nb_) gp__plan_buffer_bytes(st, rows, cols, esize, nranks, (k_), (s_), (nb_), mid_esize)
    size_t one = gp__plan_bytes(st, cols, esize, nranks, 1) + 2 * mid_esize * (direct ? w : cols);
    size_t k;
    if (panel_rows) {
        k = panel_rows;
        if (mem && k * one > mem) {
            char a[32], b[32];
            return gp__fail(e, GP_ENOMEM, "--panel-rows %zu needs %s per rank, more than --mem %s",
                            k, gp__human_bytes((double)(k * one), a, 32),
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
        }
    }
    if (k > maxrows) k = maxrows;
    if (k == 0) k = 1;
    /* kcap: the largest k whose S = 1 plan fits (today's plan; every plan below stays within it) */
    size_t kcap = mem ? mem / one : k;
    if (kcap == 0) kcap = 1;
    if (!direct && rows && w) {
        /* Write bands. 1: one band of every panel, one buffer (the whole of this rank's rows of
         * B, written as one contiguous block at the end): with k as chosen, else with panels
         * shrunk to what the budget leaves beside the band buffer (not below a few MiB).
         * 2: two band buffers (band b is written while band b+1 is received), the panels taking
         * at most half the budget and the bands the rest, when that gives longer runs than
         * S = 1; 3: S = 1 (the panels take the whole budget). */
        size_t kk = k < kcap ? k : kcap, S = 0;
        int nb = 2;
        if (!mem || BYTES(kk, panels_of(rows, P * kk), 1) <= mem) {
            S = panels_of(rows, P * kk);
            nb = 1;
        } else if (!panel_rows && w * rows * esize < mem) {
            size_t per = BYTES(1, 1, 0);   /* the panel buffers of one row */
            size_t ks = (mem - w * rows * esize) / per, kfloor = GP_PANEL_MIN_SINGLE_BYTES / rowbytes;
            if (kfloor == 0) kfloor = 1;
            if (kfloor > kk) kfloor = kk;
            if (ks > kk) ks = kk;
            if (ks >= kfloor && BYTES(ks, panels_of(rows, P * ks), 1) <= mem) {
                kk = ks;
                S = panels_of(rows, P * kk);
                nb = 1;
            }
        }
        if (!S) {
            size_t kd = panel_rows ? k : mem / (2 * BYTES(1, 1, 0));
            if (kd > kk) kd = kk;
            if (kd == 0) kd = 1;
            size_t panels = BYTES(kd, 1, 0), bandrow = 2 * w * P * kd * esize;
            size_t Sd = panels < mem ? (mem - panels) / bandrow : 0;
            if (Sd > panels_of(rows, P * kd)) Sd = panels_of(rows, P * kd);
            if (Sd >= 1 && (panel_rows || Sd * kd > kk)) {
                kk = kd;
                S = Sd;
                if (S >= panels_of(rows, P * kk) && BYTES(kk, S, 1) <= mem) nb = 1;
            } else {
                S = 1;   /* kk fits S = 1 (kk <= kcap) */
            }
        }
        k = kk;
        p->band_panels = S;
        p->band_bufs = nb;
        if (S >= panels_of(rows, P * k)) p->band_bufs = 1;   /* one band: nothing to overlap */
    } else if (!panel_rows && k > kcap) {
        k = kcap;
    }
#undef BYTES
    p->panel_rows = k;
    size_t band = direct ? k : k * P;
    p->npanels = panels_of(rows, band);
    p->mem_bytes = gp__plan_buffer_bytes(st, rows, cols, esize, nranks, k, p->band_panels, p->band_bufs, mid_esize);
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

size_t gp__plan_band_capacity(const gp_plan *p)
{
    if (p->strategy == GP_STRATEGY_DIRECT) return p->panel_rows;
    size_t band = p->band_panels * (size_t)p->nranks * p->panel_rows;
    return band < p->rows ? band : p->rows;
}

void gp__plan_out_chunk(const gp_plan *p, size_t *chunk_rows, size_t *chunk_cols)
{
    *chunk_rows = *chunk_cols = 0;
    const size_t band = gp__plan_band_capacity(p), w = p->nranks ? p->col_blocks[0].count : 0;
    if (band >= p->rows || !band || !w) return;   /* one band: each rank's output is one run */
    /* columns: one rank's panels of a band (S k; direct: the panel). 512 MiB f32 at 2 ranks in 32
     * bands of S = 2 panels of k = 64: write stage 0.25-0.39 s at S k, 0.45-0.55 at k, 0.54-0.77 at
     * the whole band S P k, 0.87-1.08 contiguous (bench/NOTES.md) */
    size_t c = p->strategy == GP_STRATEGY_DIRECT ? p->panel_rows : p->band_panels * p->panel_rows, r = w;
    if (c > band) c = band;
    while (r > 1 && (double)r * (double)c * (double)p->esize >= 4294967295.0) r = (r + 1) / 2;
    if ((double)r * (double)c * (double)p->esize >= 4294967295.0) return;   /* HDF5's limit */
    *chunk_rows = r;
    *chunk_cols = c;
}

size_t gp__plan_band_last(const gp_plan *p, size_t s)
{
    size_t S = p->band_panels ? p->band_panels : 1, last = (s / S) * S + S - 1;
    return last < p->npanels ? last : (p->npanels ? p->npanels - 1 : 0);
}

gp_range gp__plan_band(const gp_plan *p, size_t s)
{
    size_t S = p->band_panels ? p->band_panels : 1, first = (s / S) * S;
    gp_range rows, cols;
    gp__plan_read_block(p, 0, first, &rows, &cols);   /* rank 0's rows start every panel */
    gp_range out = {rows.start, 0};
    size_t end = gp__plan_rows_done(p, gp__plan_band_last(p, s));
    if (end > out.start) out.count = end - out.start;
    return out;
}
