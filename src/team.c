/* team.c - worker threads spawned, met and joined one way (team.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "team.h"
#include "config.h"            /* EXIT_FAILED */

/* team_start_or_none: every thread waits here until all have started (go)
 * or one could not (called off), then runs fn or returns */
struct team_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    enum { GATE_SHUT, GATE_GO, GATE_CALLED_OFF } state;
    void *(*fn)(void *);
    struct team_seat {
        struct team_gate *gate;
        void *arg;
    } seat[];
};

int team_spawn_blocked(pthread_t *th, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(th, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int team_start(struct team *t, unsigned n, bool main_waits, void *(*fn)(void *), void *args, size_t stride)
{
    t->n = 0;
    t->gate = NULL;
    t->th = calloc(n ? n : 1, sizeof *t->th);
    if (!t->th)
        return -1;
    pthread_barrier_init(&t->bar, NULL, n + main_waits);
    for (unsigned i = 0; i < n; i++) {
        if (team_spawn_blocked(&t->th[i], fn, (char *)args + i * stride) != 0) {
            fprintf(stderr, "chtbench: cannot start thread %u of %u\n", i, n);
            exit(EXIT_FAILED);
        }
        t->n = i + 1;
    }
    return 0;
}

static void *gated_main(void *arg)
{
    struct team_seat *seat = arg;
    struct team_gate *g = seat->gate;
    pthread_mutex_lock(&g->mu);
    while (g->state == GATE_SHUT)
        pthread_cond_wait(&g->cv, &g->mu);
    bool go = g->state == GATE_GO;
    pthread_mutex_unlock(&g->mu);
    return go ? g->fn(seat->arg) : NULL;
}

int team_start_or_none(struct team *t, unsigned n, bool main_waits, void *(*fn)(void *), void *args,
                       size_t stride, unsigned *started)
{
    *started = 0;
    t->n = 0;
    t->th = calloc(n ? n : 1, sizeof *t->th);
    t->gate = malloc(sizeof *t->gate + (size_t)n * sizeof t->gate->seat[0]);
    if (!t->th || !t->gate) {
        free(t->th);
        free(t->gate);
        t->th = NULL;
        t->gate = NULL;
        return -1;
    }
    struct team_gate *g = t->gate;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->state = GATE_SHUT;
    g->fn = fn;
    pthread_barrier_init(&t->bar, NULL, n + main_waits);
    for (unsigned i = 0; i < n; i++) {
        g->seat[i] = (struct team_seat){ .gate = g, .arg = (char *)args + i * stride };
        if (team_spawn_blocked(&t->th[i], gated_main, &g->seat[i]) != 0)
            break;
        t->n = i + 1;
    }
    *started = t->n;
    const bool all = t->n == n;
    pthread_mutex_lock(&g->mu);
    g->state = all ? GATE_GO : GATE_CALLED_OFF;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    if (all)
        return 0;
    team_join(t);
    return -1;
}

void team_join(struct team *t)
{
    for (unsigned i = 0; i < t->n; i++)
        pthread_join(t->th[i], NULL);
    pthread_barrier_destroy(&t->bar);
    if (t->gate) {
        pthread_mutex_destroy(&t->gate->mu);
        pthread_cond_destroy(&t->gate->cv);
        free(t->gate);
        t->gate = NULL;
    }
    free(t->th);
    t->th = NULL;
    t->n = 0;
}
