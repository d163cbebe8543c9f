/* io/h5.h — parallel HDF5 for the pipeline: open and check an input dataset, collective
 * hyperslab reads of row panels, safe output files (temporary name, renamed only when every
 * rank succeeded), collective writes of a union of blocks, type description for messages. */
#ifndef GP_IO_H5_H
#define GP_IO_H5_H
#include <hdf5.h>
#include <limits.h>
#include "pipeline/internal.h"

typedef struct gp_h5_in {
    hid_t file, dset, type;        /* type: the dataset's own file type (no conversion on read) */
    size_t rows, cols, esize;
    int independent;               /* chunks not all allocated: every rank calls, independent I/O */
    int filtered;                  /* chunks pass through filters (compression, checksums) */
    int contiguous;                /* contiguous layout: a block of whole rows is one file extent */
    char path[PATH_MAX];           /* as given by the user */
    char dset_path[1024];
} gp_h5_in;

typedef struct gp_h5_out {
    hid_t file, dset;
    char final_path[PATH_MAX];
    char tmp_path[PATH_MAX];
    char dset_path[1024];
    int keep_on_failure;           /* a failed run leaves the temporary file for --resume */
} gp_h5_out;

/* The temporary name of an output: <dir>/.<base>.gpipe-tmp (stable, so --resume finds it). */
void gp_h5_tmp_path(const char *output, char *buf, size_t n);
/* Collective: open the temporary file of an interrupted run (--resume) and its dataset. */
gp_status gp_h5_open_partial(MPI_Comm comm, const char *output, const char *dset_path, gp_h5_out *out,
                             gp_error *e);
/* Collective: the journal, string attributes on the output file's root group (at most 511 bytes).
 * journal_write flushes the file first, so the data it describes is on disk before it is. */
gp_status gp_h5_journal_write(gp_h5_out *out, const char *key, const char *value, gp_error *e);
/* Reads a journal entry; GP_EFORMAT with a message when it is missing. */
gp_status gp_h5_journal_read(gp_h5_out *out, const char *key, char *buf, size_t n, gp_error *e);

/* Collective. dataset NULL: the only 2-D dataset in the file. */
gp_status gp_h5_open_input(MPI_Comm comm, const char *path, const char *dataset, gp_h5_in *in,
                           gp_error *e);
void gp_h5_close_input(gp_h5_in *in);
/* Collective: rows [row0, row0+nrows) of the input (nrows may be 0) into buf (nrows x cols).
 * Every rank reads whole rows, so each reads its own extent of a contiguous dataset, or its own
 * chunks of a chunked one (MPI-IO individual I/O under the collective H5Dread;
 * GPIPE_MPIIO=collective forces two-phase). */
gp_status gp_h5_read_rows(gp_h5_in *in, size_t row0, size_t nrows, void *buf, gp_error *e);
/* The same, converted by HDF5 to mem_type. */
gp_status gp_h5_read_rows_as(gp_h5_in *in, hid_t mem_type, size_t row0, size_t nrows, void *buf, gp_error *e);
/* Collective: the block rows [row0, +nrows) x columns [col0, +ncols) into buf (nrows x ncols),
 * through MPI-IO's two-phase collective read (ranks' blocks may be any columns). */
gp_status gp_h5_read_block(gp_h5_in *in, size_t row0, size_t nrows, size_t col0, size_t ncols, void *buf,
                           gp_error *e);
/* The same, converted by HDF5 to mem_type (e.g. a native type for arithmetic). */
gp_status gp_h5_read_block_as(gp_h5_in *in, hid_t mem_type, size_t row0, size_t nrows, size_t col0,
                              size_t ncols, void *buf, gp_error *e);

/* Collective: a signature of the input that changes when its data may have changed: file size
 * and mtime, dataset path, shape and type, and a hash of sampled rows (first and last). */
gp_status gp_h5_input_signature(MPI_Comm comm, gp_h5_in *in, char *buf, size_t n, gp_error *e);

/* Rank 0 checks the destination (directory exists and is writable, not the input, exists only
 * with force); result agreed collectively. */
gp_status gp_h5_check_output(MPI_Comm comm, const char *input, const char *output, int force,
                             gp_error *e);
/* Collective: create `output` under a temporary name with dataset `dset_path` (rows x cols of
 * `type`; chunk dims 0: contiguous). Provenance attributes are added by the caller. */
gp_status gp_h5_create_output(MPI_Comm comm, const char *output, const char *dset_path, hid_t type,
                              size_t rows, size_t cols, size_t chunk_r, size_t chunk_c,
                              gp_h5_out *out, gp_error *e);
/* The same for a 1-D dataset of n elements (per-row or per-column results). */
gp_status gp_h5_create_output_1d(MPI_Comm comm, const char *output, const char *dset_path, hid_t type,
                                 size_t n, gp_h5_out *out, gp_error *e);
/* Collective write: rows [row0, row0+nrows) x the union of column ranges (ncols[i] at col0[i],
 * increasing) from buf laid out as nrows x sum(ncols), elements of mem_type. */
gp_status gp_h5_write_blocks(gp_h5_out *out, hid_t mem_type, size_t row0, size_t nrows,
                             int nblocks, const size_t *col0, const size_t *ncols, const void *buf,
                             gp_error *e);
/* Collective write of one block: rows [row0, +nrows) x columns [col0, +ncols) from buf, whose
 * rows are ld elements apart (ld >= ncols; ld == ncols: dense). The block is written in as
 * few calls as max_bytes per call allows (0: one), the same number on every rank, computed from
 * nrows_max (the largest nrows of any rank); each call writes whole rows of the block. */
gp_status gp_h5_write_pitched(gp_h5_out *out, hid_t mem_type, size_t row0, size_t nrows, size_t nrows_max,
                              size_t col0, size_t ncols, const void *buf, size_t ld, size_t max_bytes,
                              gp_error *e);
/* Collective string attribute on the output dataset. */
gp_status gp_h5_set_attr(gp_h5_out *out, const char *name, const char *value, gp_error *e);
/* Collective: close the output; when every rank is ok (status agreed inside), rename it into
 * place, else remove the temporary file. Returns the agreed status. */
gp_status gp_h5_finish_output(MPI_Comm comm, gp_h5_out *out, gp_error *e);

/* ---- the serial check of an input (io/check.c) and its sandbox (io/probe.c) ---------------- */
/* Open path alone (no MPI-IO) and check the dataset gpipe will read: everything the collective
 * open checks, plus the storage behind it (contiguous data and every chunk inside the file,
 * external files present, no more than GPIPE_MAX_UNWRITTEN of never-written data). */
gp_status gp_h5_check_input(const char *path, const char *dataset, gp_error *e);
/* Rank 0, before the collective open: gp_h5_check_input in a child process (`gpipe __probe`)
 * when the sandbox is enabled, so that a crash or an endless loop inside HDF5 on a crafted file
 * becomes an error; in this process otherwise. */
gp_status gp__probe_input(const char *path, const char *dataset, gp_error *e);
/* `gpipe info`'s listing, in the sandbox when enabled. */
gp_status gp__probe_info(const char *path, int json, FILE *out, gp_error *e);
/* The listing itself (io/info.c), serial. */
gp_status gp__info_list(const char *path, int json, FILE *out, gp_error *e);
/* Shared with the collective open (io/h5.c): resolve -d or find the only 2-D dataset and open
 * it; check shape, type, filters, layout and size. */
gp_status gp__h5_open_dataset(gp_h5_in *in, const char *dataset, gp_error *e);
/* Chunk positions of a 2-D chunked dataset of these dims (0 if not chunked). io/check.c looks
 * every chunk up (inside the file?) only up to GP_CHUNK_WALK_MAX of them: HDF5 1.10.8 finds a
 * chunk's address by iterating the whole index, so that walk is quadratic. Larger indexes are
 * read independently, where HDF5 checks each chunk's address against the end of the file. */
#define GP_CHUNK_WALK_MAX 2048
uint64_t gp__h5_chunk_positions(hid_t dset, const hsize_t *dims);
gp_status gp__h5_check_dataset(gp_h5_in *in, gp_error *e);

/* "f32 LE", "i64 BE", "compound{r:f64 LE,i:f64 LE} (16 B)", "opaque (5 B)". */
void gp_h5_type_desc(hid_t t, char *buf, size_t n);
/* Why gpipe cannot move this type (NULL if it can): vlen, strings, references. */
const char *gp_h5_type_unsupported(hid_t t);
/* The innermost HDF5 error message of the current error stack ("" if none). */
void gp_h5_last_error(char *buf, size_t n);
#endif
