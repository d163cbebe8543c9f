/* pipeline/exchange.c — the all-to-all of one panel over MPI: non-blocking point-to-point with
 * derived datatypes, so blocks land straight in the write layout (no unpack pass) and no count
 * is ever an int past 2^31 (sizes are built from 1 GiB pieces). */
#include <stdlib.h>
#include "pipeline/internal.h"

#define GIB ((size_t)1 << 30)

/* A datatype covering `n` contiguous bytes, for any n. */
static int bytes_type(size_t n, MPI_Datatype *t)
{
    if (n <= (size_t)INT32_MAX) return MPI_Type_contiguous((int)n, MPI_BYTE, t);
    MPI_Datatype gib, big;
    size_t ng = n / GIB, rest = n % GIB;
    int rc = MPI_Type_contiguous((int)GIB, MPI_BYTE, &gib);
    if (rc) return rc;
    rc = MPI_Type_contiguous((int)ng, gib, &big);
    MPI_Type_free(&gib);
    if (rc || rest == 0) { *t = big; return rc; }
    int lens[2] = {1, (int)rest};
    MPI_Aint disp[2] = {0, (MPI_Aint)(ng * GIB)};
    MPI_Datatype types[2] = {big, MPI_BYTE};
    rc = MPI_Type_create_struct(2, lens, disp, types, t);
    MPI_Type_free(&big);
    return rc;
}

/* `count` blocks of `block` bytes, `stride` bytes apart, for any count. */
static int strided_type(size_t count, size_t block, size_t stride, MPI_Datatype *t)
{
    MPI_Datatype b;
    int rc = bytes_type(block, &b);
    if (rc) return rc;
    if (count <= (size_t)INT32_MAX) {
        rc = MPI_Type_create_hvector((int)count, 1, (MPI_Aint)stride, b, t);
    } else {
        size_t inner = GIB, n_outer = count / inner, rest = count % inner;
        MPI_Datatype in, outer, tail;
        rc = MPI_Type_create_hvector((int)inner, 1, (MPI_Aint)stride, b, &in);
        if (!rc) rc = MPI_Type_create_hvector((int)n_outer, 1, (MPI_Aint)(inner * stride), in, &outer);
        if (!rc) rc = MPI_Type_create_hvector((int)(rest ? rest : 1), 1, (MPI_Aint)stride, b, &tail);
        if (!rc) {
            int lens[2] = {1, rest ? 1 : 0};
            MPI_Aint disp[2] = {0, (MPI_Aint)(n_outer * inner * stride)};
            MPI_Datatype types[2] = {outer, tail};
            rc = MPI_Type_create_struct(2, lens, disp, types, t);
            MPI_Type_free(&outer);
            MPI_Type_free(&tail);
        }
        MPI_Type_free(&in);
    }
    MPI_Type_free(&b);
    return rc;
}

static gp_status mpi_fail(int rc, size_t s, gp_error *e)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return gp__fail(e, GP_EMPI, "exchange of panel %zu failed: %s", s, msg);
}

static gp_status post(MPI_Comm comm, const gp_plan *p, size_t s, const void *send, void *recv, size_t ld,
                      gp_exchange *x, int self, gp_error *e)
{
    int P = p->nranks, me = p->rank, rc = MPI_SUCCESS;
    size_t es = p->esize, k_me = gp__plan_panel(p, me, s).count, w_me = p->col_blocks[me].count;
    size_t K = 0;
    for (int r = 0; r < P; r++) K += gp__plan_panel(p, r, s).count;
    if (!ld) ld = K;

    x->panel = s;
    x->n = x->ntypes = 0;
    x->req = malloc(sizeof *x->req * 2 * (size_t)P);
    x->types = malloc(sizeof *x->types * 2 * (size_t)P);
    if (!x->req || !x->types) {
        free(x->req); free(x->types);
        x->req = NULL; x->types = NULL;
        return gp__fail(e, GP_ENOMEM, "out of memory (exchange)");
    }
    size_t col_off = 0;  /* column of rank r's block in recv */
    for (int r = 0; r < P && rc == MPI_SUCCESS; r++) {
        size_t k_r = gp__plan_panel(p, r, s).count;
        if (k_r && w_me && (self || r != me)) {
            rc = strided_type(w_me, k_r * es, ld * es, &x->types[x->ntypes]);
            if (!rc) rc = MPI_Type_commit(&x->types[x->ntypes]);
            if (!rc) rc = MPI_Irecv((char *)recv + col_off * es, 1, x->types[x->ntypes++], r, 0, comm, &x->req[x->n++]);
        }
        col_off += k_r;
    }
    for (int i = 1; i <= P && rc == MPI_SUCCESS; i++) {
        int q = (me + i) % P;   /* staggered order spreads the load over receivers */
        size_t w_q = p->col_blocks[q].count;
        if (!w_q || !k_me || (!self && q == me)) continue;
        rc = bytes_type(w_q * k_me * es, &x->types[x->ntypes]);
        if (!rc) rc = MPI_Type_commit(&x->types[x->ntypes]);
        if (!rc) rc = MPI_Isend((const char *)send + p->col_blocks[q].start * k_me * es, 1,
                                x->types[x->ntypes++], q, 0, comm, &x->req[x->n++]);
    }
    return rc == MPI_SUCCESS ? GP_OK : mpi_fail(rc, s, e);
}

gp_status gp__exchange_post(MPI_Comm comm, const gp_plan *p, size_t s, const void *send, void *recv,
                            size_t ld, gp_exchange *x, gp_error *e)
{
    return post(comm, p, s, send, recv, ld, x, 1, e);
}

gp_status gp__exchange_post_others(MPI_Comm comm, const gp_plan *p, size_t s, const void *send, void *recv,
                                   size_t ld, gp_exchange *x, gp_error *e)
{
    return post(comm, p, s, send, recv, ld, x, 0, e);
}

gp_status gp__exchange_wait(gp_exchange *x, gp_error *e)
{
    if (!x->req) return GP_OK;
    int rc = MPI_Waitall(x->n, x->req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < x->ntypes; i++) MPI_Type_free(&x->types[i]);
    free(x->req);
    free(x->types);
    x->req = NULL;
    x->types = NULL;
    x->n = x->ntypes = 0;
    return rc == MPI_SUCCESS ? GP_OK : mpi_fail(rc, x->panel, e);
}

gp_status gp__exchange_panel(MPI_Comm comm, const gp_plan *p, size_t s, const void *send,
                             void *recv, gp_error *e)
{
    gp_exchange x = {0};
    gp_status st = gp__exchange_post(comm, p, s, send, recv, 0, &x, e);
    gp_status st2 = gp__exchange_wait(&x, e);
    return st ? st : st2;
}
