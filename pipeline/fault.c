/* pipeline/fault.c — fault injection for the reliability tests: GPIPE_FAULT=STAGE:PANEL[:RANK[:kill]]
 * makes rank RANK (default every rank) fail at STAGE (read, kernel, exchange, write; nccl: skip
 * the GPU-to-GPU exchange, leaving its peers waiting) of panel
 * PANEL, with an error — or with SIGKILL, as if the node died. Unset: no cost but a getenv. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/internal.h"

gp_status gp__fault(const char *stage, size_t panel, int rank, gp_error *e)
{
    static int parsed = 0, f_rank = -1, f_kill = 0;
    static long long f_panel = -1;
    static char f_stage[16] = "";
    if (!parsed) {
        parsed = 1;
        const char *s = getenv("GPIPE_FAULT");
        if (s && *s) {
            char kill_[8] = "";
            int n = sscanf(s, "%15[a-z]:%lld:%d:%7s", f_stage, &f_panel, &f_rank, kill_);
            if (n < 2) f_stage[0] = 0;
            if (n < 3) f_rank = -1;
            f_kill = n == 4 && !strcmp(kill_, "kill");
        }
    }
    if (!f_stage[0] || strcmp(stage, f_stage) || (long long)panel != f_panel || (f_rank >= 0 && f_rank != rank))
        return GP_OK;
    if (f_kill) raise(SIGKILL);
    return gp__fail(e, GP_EIO, "injected fault (GPIPE_FAULT) at %s of panel %zu", stage, panel);
}
