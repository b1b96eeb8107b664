/*
 * lock_internal.h - private helpers shared by the lock families in locks/
 * (not part of the public interface: tables and the driver see only lock.h).
 *
 *  - struct spin_wait: the locks' spin step, cht_spin_wait of
 *    include/cht_atomic.h (where tables and locks find spin-waiting) with
 *    the locks' period LOCK_SPIN_YIELD (see below); the LD/ST/XCHG/FADD/CAS
 *    shorthands come from cht_atomic.h too;
 *  - the lock_ops of the simple locks that composite locks are built from at
 *    run time (cohorts, NUMA RW locks, RTM elision wrappers);
 *  - lock_component_check(): a composite refuses a component that cannot play
 *    its role (too large for the slot reserved for it, missing is_locked...).
 *
 * Spinning and oversubscription. Every spin loop pauses; after
 * LOCK_SPIN_YIELD consecutive pauses (default 64, i.e. a few microseconds)
 * the waiter calls sched_yield() once and starts counting again. With no
 * more threads than CPUs nothing else is runnable, sched_yield() returns at
 * once and the waiter keeps polling the lock as the published algorithm does
 * (one system call per 64 pauses); with more threads than CPUs
 * (oversubscription experiments, the 16-thread tests on 2 cores) it lets a
 * preempted lock holder or FIFO successor run instead of burning the whole
 * time slice - without it FIFO locks convoy to a few hundred hand-offs per
 * second there. Build with -DLOCK_SPIN_YIELD=0 for pure spinning.
 */
#ifndef CHT_LOCK_INTERNAL_H
#define CHT_LOCK_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>
#include "cht_atomic.h"
#include "lock.h"

#define LOCK_LINE 64

#ifndef LOCK_SPIN_YIELD
#define LOCK_SPIN_YIELD 64
#endif

struct spin_wait {
    unsigned n;
};
#define SPIN_WAIT_INIT { 0 }

static inline void spin_wait(struct spin_wait *w)
{
#if LOCK_SPIN_YIELD > 0
    cht_spin_wait(&w->n, LOCK_SPIN_YIELD);
#else
    (void)w;
    cht_pause();
#endif
}

/* The simple locks, for composition (spin.c, ticket.c, mcs.c, cohort.c). */
extern const struct lock_ops lock_ops_tas;
extern const struct lock_ops lock_ops_ttas;
extern const struct lock_ops lock_ops_ttas_backoff;
extern const struct lock_ops lock_ops_ticket;
extern const struct lock_ops lock_ops_mcs;
extern const struct lock_ops lock_ops_c_tkt_tkt;
extern const struct lock_ops lock_ops_c_bo_mcs;

/* Components are embedded in a composite in slots of these sizes. */
#define LOCK_SLOT_SIZE 64   /* bytes of lock */
#define LOCK_SLOT_CTX  128  /* bytes of per-thread ctx */

/* Requirements a composite puts on a component. */
enum {
    NEED_IS_LOCKED   = 1u << 0,
    NEED_HAS_WAITERS = 1u << 1,
    NEED_NO_CTX      = 1u << 2, /* thread-oblivious: released by another thread than
                                 * the one that acquired it, so no per-thread ctx */
};

/* A composite built from a component that does not fit is a programming
 * error in the composite's definition: say so and stop. */
static inline void lock_component_check(const char *composite, const char *role,
                                        const struct lock_ops *c, size_t max_size,
                                        size_t max_ctx, unsigned needs)
{
    const char *bad = NULL;
    if (c->lock_size > max_size)
        bad = "lock_size larger than the slot reserved for it";
    else if (c->ctx_size > max_ctx)
        bad = "ctx_size larger than the slot reserved for it";
    else if ((needs & NEED_IS_LOCKED) && !c->is_locked)
        bad = "no is_locked()";
    else if ((needs & NEED_HAS_WAITERS) && !c->has_waiters)
        bad = "no has_waiters()";
    else if ((needs & NEED_NO_CTX) && c->ctx_size)
        bad = "needs a per-thread ctx, so it is not thread-oblivious";
    if (bad) {
        fprintf(stderr, "lock %s: %s lock %s: %s\n", composite, role, c->name, bad);
        abort();
    }
}

#endif
