/* pipeline/worker.c — one background thread that runs one job at a time (the backend's
 * transpose of panel s) while the main thread does HDF5 and MPI (MPI_THREAD_FUNNELED). */
#include <pthread.h>
#include <stdlib.h>
#include "pipeline/internal.h"

struct gp_worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gp_job_fn fn;
    void *arg;
    int busy, quit;
    int gate;   /* 1: open (see gp__worker_gate_wait) */
};

static void *loop(void *p)
{
    gp_worker *w = p;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->busy && !w->quit) pthread_cond_wait(&w->cv, &w->mu);
        if (w->quit) break;
        pthread_mutex_unlock(&w->mu);
        w->fn(w->arg);
        pthread_mutex_lock(&w->mu);
        w->busy = 0;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

gp_worker *gp__worker_create(void)
{
    gp_worker *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, loop, w) != 0) {
        free(w);
        return NULL;
    }
    return w;
}

void gp__worker_start(gp_worker *w, gp_job_fn fn, void *arg)
{
    pthread_mutex_lock(&w->mu);
    while (w->busy) pthread_cond_wait(&w->cv, &w->mu);
    w->fn = fn;
    w->arg = arg;
    w->busy = 1;
    w->gate = 0;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void gp__worker_gate_open(gp_worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->gate = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void gp__worker_gate_wait(gp_worker *w)
{
    pthread_mutex_lock(&w->mu);
    while (!w->gate) pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

void gp__worker_wait(gp_worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->gate = 1;   /* a job waiting at the gate must not wait for this thread forever */
    pthread_cond_broadcast(&w->cv);
    while (w->busy) pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

int gp__worker_poll(gp_worker *w)
{
    pthread_mutex_lock(&w->mu);
    int done = !w->busy;
    pthread_mutex_unlock(&w->mu);
    return done;
}

void gp__worker_destroy(gp_worker *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    w->gate = 1;
    pthread_cond_broadcast(&w->cv);
    while (w->busy) pthread_cond_wait(&w->cv, &w->mu);
    w->quit = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}
