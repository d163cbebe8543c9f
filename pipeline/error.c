/* pipeline/error.c — local error recording and collective agreement on failure
 * (FFTW's any_true idea): no rank enters a collective while another has already failed. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <hdf5.h>
#include "pipeline/internal.h"

gp_status gp__fail(gp_error *e, gp_status code, const char *fmt, ...)
{
    if (e->code != 0) return e->code;   /* keep the first cause */
    e->code = code ? code : GP_EINTERNAL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    for (char *c = e->msg; *c; c++)
        if (*c == '\n') *c = ' ';
    return e->code;
}

void gp__prefix(gp_error *e, const char *fmt, ...)
{
    if (!e->code) return;
    char pre[sizeof e->msg], old[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof old);
    snprintf(e->msg, sizeof e->msg, "%s%s", pre, old);
}

gp_status gp__agree(MPI_Comm comm, gp_error *e)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = e->code ? rank : INT_MAX, first = INT_MAX, nfail = 0, f = e->code != 0;
    gp__watchdog_waiting(1);   /* blocked here = waiting for another rank, not stuck */
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    gp__watchdog_waiting(0);
    if (first == INT_MAX) return GP_OK;
    MPI_Allreduce(&f, &nfail, 1, MPI_INT, MPI_SUM, comm);
    int code = e->code;
    MPI_Bcast(&code, 1, MPI_INT, first, comm);
    char msg[sizeof e->msg];
    if (rank == first) memcpy(msg, e->msg, sizeof msg);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, comm);
    e->code = code;
    e->rank = first;
    if (first != 0 && nfail < size)
        snprintf(e->msg, sizeof e->msg, "rank %d: %.1000s", first, msg);
    else
        memcpy(e->msg, msg, sizeof msg);
    return code;
}

void gp__begin(MPI_Comm comm, gp_error *e, int *rank, int *nranks)
{
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, nranks);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);   /* MPI errors become gp_status */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);              /* HDF5's stack dumps off: one line */
    memset(e, 0, sizeof *e);
    e->rank = -1;
}
