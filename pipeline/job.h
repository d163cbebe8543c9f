/* pipeline/job.h — job files (issue 6): `gpipe run job.ini` runs a chain of stages over many
 * datasets in one MPI launch. The format is INI, parsed by libinih (docs/jobs.md and
 * jobs/README.md are the reference); job.c parses, validates and expands the inputs into
 * entries, job_run.c runs them. */
#ifndef GP_JOB_H
#define GP_JOB_H
#include <limits.h>
#include <stddef.h>
#include <mpi.h>
#include "pipeline/gpipe.h"
#include "pipeline/map.h"
#include "pipeline/reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GP_JS_READ, GP_JS_CAST, GP_JS_SCALE, GP_JS_AFFINE, GP_JS_STANDARDIZE, GP_JS_TRANSPOSE,
    GP_JS_REDUCE, GP_JS_STATS, GP_JS_WRITE, GP_JS_N
} gp_jstage_kind;
const char *gp_jstage_name(gp_jstage_kind k);
/* cast, scale, affine, standardize */
static inline int gp_jstage_is_map(gp_jstage_kind k) { return k >= GP_JS_CAST && k <= GP_JS_STANDARDIZE; }

/* A coefficient: absent, a scalar, an inline vector, or a 1-D dataset of an HDF5 file. */
typedef enum { GP_COEF_NONE, GP_COEF_SCALAR, GP_COEF_INLINE, GP_COEF_DATASET } gp_coef_kind;
typedef struct gp_coef {
    gp_coef_kind kind;
    double scalar;
    double *vec;              /* INLINE: n values */
    size_t n;
    char *file, *dataset;     /* DATASET: file (resolved against the job's directory), dataset path */
    int line;
} gp_coef;

typedef struct gp_jstage {
    gp_jstage_kind kind;
    int line;                 /* line of the [section] header */
    gp_rtype to;              /* cast */
    gp_coef a, b;             /* scale (a), affine (a, b) */
    gp_rop op;                /* reduce */
    gp_raxis axis;
    char *output, *output_dataset;   /* reduce: optional templates */
    int has_op;
    int result_input;         /* reduce: result_type = input */
} gp_jstage;

typedef struct gp_job {
    char path[PATH_MAX];      /* the job file as given */
    char dir[PATH_MAX];       /* its directory: relative paths in the job resolve against it */
    char name[128];           /* [job] name, default: the file's stem */
    char device[8];           /* auto, cpu, cuda (transpose and reductions) */
    char map_device[8];       /* cpu (default), cuda, auto: where map stages run */
    size_t mem, panel_rows;
    int threads;   /* CPU transpose threads per rank, 0: automatic */
    int continue_on_error, fuse, force;
    gp_strategy strategy;
    char **files; int *file_lines; int nfiles;        /* [read] file = PATTERN (resolved) */
    char **datasets; int *dataset_lines; int ndatasets;
    gp_jstage *stages; int nstages;                   /* in file order, stages[0] is read */
    char *out_file, *out_dataset;                     /* [write] templates (NULL: no write) */
    size_t chunk_r, chunk_c;
} gp_job;

/* Parses and validates a job file. Returns 0, or GP_EINVAL / GP_EIO with one line in err:
 * "PATH:LINE: message" (LINE of the offending key or section). Every rank may call it. */
int gp_job_parse(const char *path, gp_job *job, char *err, size_t errlen);
/* The same from memory (name is used in messages and for the job's directory). */
int gp_job_parse_buffer(const char *name, const char *text, size_t len, gp_job *job, char *err, size_t errlen);
void gp_job_free(gp_job *job);

/* Output name templates: {stem} {name} {dir} {dataset} {dsname} {dsbase} {job} {index};
 * {{ and }} are literal braces. Returns 0 or -1 with a message. */
int gp_job_template_check(const char *tmpl, char *why, size_t n);
int gp_job_template_expand(const char *tmpl, const char *file, const char *dataset, const char *job,
                           size_t index, char *out, size_t n);

/* One dataset to process. */
typedef struct gp_job_entry {
    char file[PATH_MAX];
    char dataset[1024];       /* "" : the only 2-D dataset of the file */
    char output[PATH_MAX];    /* "" : no write */
    char output_dataset[1024];
    char error[512];          /* set: the entry failed while planning (e.g. unreadable file) */
} gp_job_entry;

/* Collective: rank 0 expands file globs and dataset patterns (listing the files' datasets:
 * metadata only), names the outputs, and broadcasts the list. Plan errors (a pattern matching no
 * file, two entries writing the same output) are returned with "PATH:LINE: ..." messages. */
gp_status gp_job_expand(MPI_Comm comm, const gp_job *job, gp_job_entry **entries, size_t *n, gp_error *e);
/* Human-readable plan: stages, fusion, entries (rank 0 prints it for --check). */
void gp_job_print_plan(FILE *f, const gp_job *job, const gp_job_entry *entries, size_t n);
/* The fused plan in one word list, e.g. "read > [cast+affine] > transpose > write > stats". */
void gp_job_plan_string(const gp_job *job, char *buf, size_t n);

typedef struct gp_job_run_opts {
    int continue_on_error;    /* -1: the job's setting */
    const char *json;         /* JSON-lines report (appended), "-" stdout, or NULL */
    const char *device;       /* overrides the job's device when non-NULL */
    size_t mem;               /* overrides when non-zero */
    int force;                /* 1: overwrite outputs */
    int quiet;                /* no status lines on stderr */
} gp_job_run_opts;
/* Collective: runs every entry in order. Returns GP_OK when all succeeded; otherwise the first
 * failure's status, with err naming how many failed and the first cause. *nfailed counts them. */
gp_status gp_job_run(MPI_Comm comm, const gp_job *job, const gp_job_entry *entries, size_t n,
                     const gp_job_run_opts *o, size_t *nfailed, gp_error *err);

/* For tests and the standardize stage: per-column mean and population std of the data at a
 * point of the chain (prefix applied to every panel as read), from exact sums (gp_rstats), so the
 * same bits for any rank count and panel size. Collective. */
gp_status gp_job_column_moments(MPI_Comm comm, const char *file, const char *dataset, const gp_mapchain *prefix,
                                size_t mem, size_t panel_rows, double *mean, double *std, gp_error *e);

#ifdef __cplusplus
}
#endif
#endif
