/* team.c - worker threads spawned, met and joined one way (team.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "team.h"
#include "config.h"            /* EXIT_FAILED */

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

void team_join(struct team *t)
{
    for (unsigned i = 0; i < t->n; i++)
        pthread_join(t->th[i], NULL);
    pthread_barrier_destroy(&t->bar);
    free(t->th);
    t->th = NULL;
    t->n = 0;
}
