/* pipeline/fault.c — fault injection for the reliability tests:
 * GPIPE_FAULT=STAGE:PANEL[:RANK[:kill|hang]] makes rank RANK (default every rank) fail at STAGE
 * (read, kernel, exchange, write; nccl: skip the GPU-to-GPU exchange, leaving its peers waiting)
 * of panel PANEL, with an error — or with SIGKILL, as if the node died, or by sleeping forever,
 * as if stuck inside HDF5 or MPI (for the watchdog's test). Unset: no cost but a getenv. Every
 * call also marks the step for the watchdog (watchdog.c). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pipeline/internal.h"

gp_status gp__fault(const char *stage, size_t panel, int rank, gp_error *e)
{
    static int parsed = 0, f_rank = -1, f_kill = 0, f_hang = 0;
    static long long f_panel = -1;
    static char f_stage[16] = "";
    gp__watchdog_at(stage, panel);
    if (!parsed) {
        parsed = 1;
        const char *s = getenv("GPIPE_FAULT");
        if (s && *s) {
            char kill_[8] = "";
            int n = sscanf(s, "%15[a-z]:%lld:%d:%7s", f_stage, &f_panel, &f_rank, kill_);
            if (n < 2) f_stage[0] = 0;
            if (n < 3) f_rank = -1;
            f_kill = n == 4 && !strcmp(kill_, "kill");
            f_hang = n == 4 && !strcmp(kill_, "hang");
        }
    }
    if (!f_stage[0] || strcmp(stage, f_stage) || (long long)panel != f_panel || (f_rank >= 0 && f_rank != rank))
        return GP_OK;
    if (f_kill) raise(SIGKILL);
    if (f_hang)
        for (;;) sleep(3600);   /* until the watchdog (or mpirun) ends the job */
    return gp__fail(e, GP_EIO, "injected fault (GPIPE_FAULT) at %s of panel %zu", stage, panel);
}
