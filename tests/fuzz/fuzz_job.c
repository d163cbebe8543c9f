/* tests/fuzz/fuzz_job.c — libFuzzer harness for the job-file parser (pipeline/job.c on top of
 * libinih): every input is parsed; accepted jobs are also planned (plan string, plan printout,
 * output templates expanded) and freed. ASan + LeakSanitizer catch crashes and leaks.
 *
 * Build and run (docs/jobs.md, "Fuzzing"), from the repository root after building build/:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -isystem /usr/include/hdf5/openmpi \
 *     -isystem /usr/lib/x86_64-linux-gnu/openmpi/include tests/fuzz/fuzz_job.c pipeline/job.c \
 *     build/libgpipe_core.a -linih -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5 \
 *     $(pkg-config --libs ompi-c jansson libxxhash) -lm -lpthread -o /tmp/fuzz_job
 *   mkdir -p /tmp/fuzz-corpus && cp jobs/standardize-transpose.ini jobs/scale-cast.ini jobs/column-stats.ini /tmp/fuzz-corpus/
 *   /tmp/fuzz_job -runs=1000000 -max_len=4096 /tmp/fuzz-corpus
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "pipeline/job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gp_job j;
    char err[1024];
    if (gp_job_parse_buffer("fuzz.ini", (const char *)data, size, &j, err, sizeof err) != 0) {
        /* a rejected job always names the file and a line */
        if (strncmp(err, "fuzz.ini:", 9) != 0) __builtin_trap();
        return 0;
    }
    char plan[1024], out[4096];
    gp_job_plan_string(&j, plan, sizeof plan);
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "w");
    gp_job_entry e;
    memset(&e, 0, sizeof e);
    snprintf(e.file, sizeof e.file, "dir/in.h5");
    snprintf(e.dataset, sizeof e.dataset, "/grp/x");
    if (j.out_file) gp_job_template_expand(j.out_file, e.file, e.dataset, j.name, 1, out, sizeof out);
    if (j.out_dataset) gp_job_template_expand(j.out_dataset, e.file, e.dataset, j.name, 1, out, sizeof out);
    if (devnull) gp_job_print_plan(devnull, &j, &e, 1);
    gp_job_free(&j);
    return 0;
}
