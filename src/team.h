/* team.h - a team of worker threads, as every threaded part of chtbench runs
 * them (the table run, the lock and memory benches, `chtbench check`):
 * spawned with every signal blocked, so that SIGINT/SIGTERM reach the main
 * thread and cut its sleeps short (runner.h), one barrier, joined. */
#ifndef CHT_TEAM_H
#define CHT_TEAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct team_gate;                        /* team.c: team_start_or_none's hold on fn */

struct team {
    pthread_barrier_t bar;
    pthread_t *th;
    unsigned n;
    struct team_gate *gate;              /* NULL: started by team_start */
};

/* pthread_create with every signal blocked in the new thread. */
int team_spawn_blocked(pthread_t *th, void *(*fn)(void *), void *arg);

/* Starts n threads, thread i running fn((char *)args + i * stride), after
 * a barrier of n members, n + 1 with main_waits (main then meets them in
 * team_wait too). Returns 0; -1 when there is no memory for the handles
 * (nothing started). A thread that cannot start ends the process with a
 * message and EXIT_FAILED: the others may be waiting in the barrier, which
 * cannot be unwound. */
int team_start(struct team *t, unsigned n, bool main_waits, void *(*fn)(void *), void *args, size_t stride);

/* team_start for a caller that reports a thread that cannot start instead
 * of ending the process (`chtbench check`): no thread runs fn before all n
 * have started, so none can be left in the barrier. Returns 0, the team
 * runs; -1: no thread ran fn, those that started are joined again (the team
 * is not to be joined), *started says how many did (0: no memory). */
int team_start_or_none(struct team *t, unsigned n, bool main_waits, void *(*fn)(void *), void *args,
                       size_t stride, unsigned *started);

/* The team's barrier: every worker, and main where it waits too. */
static inline void team_wait(struct team *t) { pthread_barrier_wait(&t->bar); }

/* Joins every thread; the team can be started again. */
void team_join(struct team *t);

#endif
