/* pipeline/signals.c — SIGTERM, SIGINT, SIGUSR1 (Slurm's warning before the time limit) ask a
 * run to stop at the next panel boundary instead of dying mid-write; drivers poll the flag
 * before each agreement, so every rank stops at the same panel. */
#include <signal.h>
#include <string.h>
#include "pipeline/internal.h"

static volatile sig_atomic_t pending = 0;

static void on_signal(int sig)
{
    pending = sig;
}

void gp__signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
}

int gp__signal_pending(void)
{
    return (int)pending;
}
