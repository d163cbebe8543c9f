/* pipeline/watchdog.c — no job hangs forever (issue 8): with `--timeout SECONDS` (or the
 * environment variable GPIPE_WATCHDOG=SECONDS) every rank runs a thread that watches the
 * driver's progress. Progress is a step finished: a stage of a panel (reported through
 * gp__fault's calls), an agreement of all ranks (gp__agree), a panel (gp__watchdog_beat). When a
 * rank sees none for SECONDS, it prints one line naming itself and the step it was last at and
 * calls MPI_Abort, which ends every rank of the job (exit code 2 from mpirun's side).
 *
 * A rank blocked in an agreement is waiting for another rank, not stuck itself: it waits a
 * further grace period (SECONDS/2, at least 5 s) so that the stuck rank's own watchdog speaks
 * first and names the culprit; only if nobody did does it abort, saying what it waited for.
 * The partial output of a transpose stays for --resume (its journal is always valid).
 *
 * MPI_Abort is called from the watchdog thread although gpipe runs MPI_THREAD_FUNNELED: by then
 * the main thread is stuck (possibly inside MPI), the job is being torn down, and Open MPI's
 * abort path does not depend on the calling thread. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pipeline/internal.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static pthread_t thread;
static int depth = 0, quit = 0, running = 0, rank_ = 0;
static double limit = 0;
static MPI_Comm comm_;
static char what_[256];
static _Atomic double last_beat;
static _Atomic(const char *) at_stage = "setup";
static _Atomic size_t at_panel = (size_t)-1;
static _Atomic int waiting = 0;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double gp__watchdog_seconds(void)
{
    const char *s = getenv("GPIPE_WATCHDOG");
    double v = s && *s ? atof(s) : 0;
    return v > 0 ? v : 0;
}

static void *loop(void *p)
{
    (void)p;
    double step = limit / 4 < 1.0 ? limit / 4 : 1.0, grace = limit / 2 > 5 ? limit / 2 : 5;
    pthread_mutex_lock(&mu);
    while (!quit) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + step;
        ts.tv_sec = (time_t)t;
        ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
        pthread_cond_timedwait(&cv, &mu, &ts);
        if (quit) break;
        double idle = now_s() - atomic_load(&last_beat);
        int w = atomic_load(&waiting);
        if (idle < limit || (w && idle < limit + grace)) continue;
        const char *stage = atomic_load(&at_stage);
        size_t panel = atomic_load(&at_panel);
        char where[160], step_[96];
        if (panel == (size_t)-1) snprintf(step_, sizeof step_, "%s", stage);
        else snprintf(step_, sizeof step_, "%s of panel %zu", stage, panel);
        snprintf(where, sizeof where, "%s, last step: %s", w ? "waiting for the other ranks" : "stuck", step_);
        fprintf(stderr, "gpipe: error: %s: rank %d made no progress for %.0f s (%s); aborting the job "
                "(--timeout %g)\n", what_, rank_, idle, where, limit);
        fflush(stderr);
        MPI_Abort(comm_, 2);
        break;
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

void gp__watchdog_start(MPI_Comm comm, const char *what)
{
    double secs = gp__watchdog_seconds();
    pthread_mutex_lock(&mu);
    if (depth++ > 0 || secs <= 0) {   /* nested (a job file's transpose) or off */
        pthread_mutex_unlock(&mu);
        return;
    }
    MPI_Comm_rank(comm, &rank_);
    comm_ = comm;
    limit = secs;
    snprintf(what_, sizeof what_, "%s", what ? what : "gpipe");
    atomic_store(&last_beat, now_s());
    atomic_store(&at_stage, "setup");
    atomic_store(&at_panel, (size_t)-1);
    atomic_store(&waiting, 0);
    quit = 0;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&cv, &ca);
    pthread_condattr_destroy(&ca);
    running = pthread_create(&thread, NULL, loop, NULL) == 0;
    pthread_mutex_unlock(&mu);
}

void gp__watchdog_stop(void)
{
    pthread_mutex_lock(&mu);
    if (depth == 0 || --depth > 0 || !running) {
        pthread_mutex_unlock(&mu);
        return;
    }
    quit = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(thread, NULL);
    pthread_cond_destroy(&cv);
    running = 0;
}

void gp__watchdog_beat(void)
{
    atomic_store(&last_beat, now_s());
}

void gp__watchdog_at(const char *stage, size_t panel)
{
    atomic_store(&at_stage, stage);
    atomic_store(&at_panel, panel);
    atomic_store(&last_beat, now_s());
}

void gp__watchdog_waiting(int on)
{
    atomic_store(&waiting, on);
    if (!on) atomic_store(&last_beat, now_s());
}
