/* bench/bench_exchange.c — the GPU-to-GPU exchange of one panel (issue 9) against its ceiling,
 * measured in the same run: nccl-tests' all-to-all (grouped ncclSend/ncclRecv of equal blocks on
 * device buffers, alltoall_perf's bus bandwidth) on the same communicator and bytes. Also the
 * rest of gpipe's NCCL panel step (host->device, kernel, device->host) and the MPI exchange of
 * the same panel through host memory, so the stage that limits a transpose is named.
 * One rank per GPU: mpirun -n P bench_exchange [--mib N per rank (default 1024)] [--cols C]
 * [--reps N] [--json]. Bus bandwidth counts the bytes each rank sends to other ranks. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/backend.h"
#include "kernels/cuda/cuda_kernels.h"
#include "pipeline/internal.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median over reps of the slowest rank's time. */
static double med_max(double *t, int reps, MPI_Comm comm)
{
    MPI_Allreduce(MPI_IN_PLACE, t, reps, MPI_DOUBLE, MPI_MAX, comm);
    qsort(t, (size_t)reps, sizeof *t, cmp);
    return t[reps / 2];
}

static int die(int rank, const char *what, const char *msg)
{
    if (rank == 0) fprintf(stderr, "bench_exchange: %s: %s\n", what, msg);
    MPI_Finalize();
    return 77;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    size_t mib = 1024, C = 16384;
    int reps = 20, json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc) mib = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--cols") && i + 1 < argc) C = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json")) json = 1;
    }
    if (reps < 3) reps = 3;
    char err[512] = "";
    gp_backend *be = NULL;
    if (gp_cuda_backend_create(&be, gp__local_rank(MPI_COMM_WORLD), err, sizeof err)) return die(rank, "cuda", err);
    if (!be->xchg_init) return die(rank, "nccl", "built without NCCL headers");
    unsigned char id[128] = {0};
    int rc = rank == 0 ? gp_cuda_nccl_unique_id(id, sizeof id, err, sizeof err) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc) return die(rank, "nccl", err);
    MPI_Bcast(id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    if ((rc = be->xchg_init(be, id, P, rank, err, sizeof err))) {
        fprintf(stderr, "bench_exchange: rank %d: %s\n", rank, err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* one panel of k rows x C f32 per rank, every rank the same (the band plan of one panel) */
    const size_t es = 4, k = mib * ((size_t)1 << 20) / (C * es);
    gp_error e = {0, -1, ""};
    gp_plan plan = {0};
    if (gp__plan_make(&plan, GP_STRATEGY_ALLTOALL, k * (size_t)P, C, es, P, rank, 0, k, &e))
        return die(rank, "plan", e.msg);
    const size_t bytes = k * C * es, w_me = plan.col_blocks[rank].count;
    size_t *cs = calloc((size_t)P, sizeof *cs), *cc = calloc((size_t)P, sizeof *cc), *pk = calloc((size_t)P, sizeof *pk);
    for (int r = 0; r < P; r++) {
        cs[r] = plan.col_blocks[r].start;
        cc[r] = plan.col_blocks[r].count;
        pk[r] = k;
    }
    size_t sent = 0;   /* bytes this rank sends to other ranks */
    for (int q = 0; q < P; q++)
        if (q != rank) sent += cc[q] * k * es;
    char *src = be->host_alloc(be, bytes), *recv = be->host_alloc(be, w_me * k * (size_t)P * es);
    char *hsend = be->host_alloc(be, bytes);
    void *d_a = NULL, *d_b = NULL;
    const size_t per_peer = bytes / (size_t)P;
    if (!src || !recv || !hsend || cudaMalloc(&d_a, bytes) != cudaSuccess || cudaMalloc(&d_b, bytes) != cudaSuccess)
        return die(rank, "alloc", "out of memory");
    for (size_t i = 0; i < bytes; i++) src[i] = (char)(i * 131 + (size_t)rank);
    memcpy(hsend, src, bytes);
    cudaMemset(d_a, 1, bytes);
    double *t = malloc(sizeof *t * (size_t)reps), *ph[4];
    for (int s = 0; s < 4; s++) ph[s] = malloc(sizeof *ph[s] * (size_t)reps);

    /* 1. the ceiling: nccl-tests all-to-all, same bytes per rank */
    for (int r = -2; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = gp__now();
        if ((rc = gp_cuda_nccl_alltoall(be, d_a, d_b, per_peer, err, sizeof err))) {
            fprintf(stderr, "bench_exchange: rank %d: %s\n", rank, err);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (r >= 0) t[r] = gp__now() - t0;
    }
    double t_ref = med_max(t, reps, MPI_COMM_WORLD);
    double ref_bus = (double)per_peer * (P - 1) / t_ref / 1e9;

    /* 2. gpipe's panel step: h2d, kernel, NCCL exchange, d2h into the write layout */
    gp_xchg_panel xp = {k, C, es, P, rank, cs, cc, pk, {0, 0, 0, 0}, 0};   /* recv_ld 0: dense K */
    for (int r = -2; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = gp__now();
        if ((rc = be->transpose_exchange(be, src, recv, &xp, err, sizeof err))) {
            fprintf(stderr, "bench_exchange: rank %d: %s\n", rank, err);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (r >= 0) {
            t[r] = gp__now() - t0;
            for (int s = 0; s < 4; s++) ph[s][r] = xp.seconds[s];
        }
    }
    double t_step = med_max(t, reps, MPI_COMM_WORLD), t_ph[4];
    for (int s = 0; s < 4; s++) t_ph[s] = med_max(ph[s], reps, MPI_COMM_WORLD);
    double x_bus = P > 1 ? (double)sent / t_ph[2] / 1e9 : 0;

    /* 3. the MPI exchange of the same panel through host memory */
    for (int r = -1; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = gp__now();
        if (gp__exchange_panel(MPI_COMM_WORLD, &plan, 0, hsend, recv, &e)) {
            fprintf(stderr, "bench_exchange: rank %d: %s\n", rank, e.msg);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (r >= 0) t[r] = gp__now() - t0;
    }
    double t_mpi = med_max(t, reps, MPI_COMM_WORLD);
    double mpi_bus = (double)sent / t_mpi / 1e9;

    if (rank == 0) {
        char hb[32];
        printf("bench_exchange: %d rank%s, %s, panel %zu x %zu f32 (%s) per rank, median of %d (slowest rank)\n", P,
               P > 1 ? "s" : "", be->desc, k, C, gp__human_bytes((double)bytes, hb, sizeof hb), reps);
        printf("  %-44s %9.3f ms  %8.1f GB/s bus\n", "ceiling: nccl-tests all-to-all", t_ref * 1e3, ref_bus);
        if (P == 1) printf("  (one rank: nothing leaves the GPU; bus bandwidths and ratios are 0)\n");
        printf("  %-44s %9.3f ms  %8.1f GB/s bus  ratio %.3f\n", "gpipe NCCL exchange (stage of the panel step)",
               t_ph[2] * 1e3, x_bus, ref_bus > 0 ? x_bus / ref_bus : 0);
        printf("  %-44s %9.3f ms  %8.1f GB/s bus  ratio %.3f\n", "MPI exchange through host memory", t_mpi * 1e3,
               mpi_bus, ref_bus > 0 ? mpi_bus / ref_bus : 0);
        printf("  panel step %.3f ms = h2d %.3f + kernel %.3f + exchange %.3f + d2h %.3f (%.1f GB/s of panel)\n",
               t_step * 1e3, t_ph[0] * 1e3, t_ph[1] * 1e3, t_ph[2] * 1e3, t_ph[3] * 1e3, bytes / t_step / 1e9);
        if (json)
            printf("{\"bench\":\"exchange\",\"ranks\":%d,\"panel_bytes\":%zu,\"ref_ms\":%.4f,\"ref_busbw\":%.2f,"
                   "\"nccl_ms\":%.4f,\"nccl_busbw\":%.2f,\"ratio\":%.4f,\"mpi_ms\":%.4f,\"mpi_busbw\":%.2f,"
                   "\"step_ms\":%.4f,\"h2d_ms\":%.4f,\"kernel_ms\":%.4f,\"d2h_ms\":%.4f}\n",
                   P, bytes, t_ref * 1e3, ref_bus, t_ph[2] * 1e3, x_bus, ref_bus > 0 ? x_bus / ref_bus : 0,
                   t_mpi * 1e3, mpi_bus, t_step * 1e3, t_ph[0] * 1e3, t_ph[1] * 1e3, t_ph[3] * 1e3);
    }
    cudaFree(d_a);
    cudaFree(d_b);
    be->host_free(be, src);
    be->host_free(be, recv);
    be->host_free(be, hsend);
    be->destroy(be);
    gp__plan_free(&plan);
    free(cs); free(cc); free(pk); free(t);
    for (int s = 0; s < 4; s++) free(ph[s]);
    MPI_Finalize();
    return 0;
}
