/*
 * ticket.c - ticket lock (Mellor-Crummey & Scott, "Algorithms for scalable
 * synchronization on shared-memory multiprocessors", TOCS 1991; the Linux
 * ticket spinlock described in Cui's thesis (Tsinghua 2012) §3.3.2: a `next` field taken
 * with an atomic increment and an `owner` field the holder advances).
 *
 * lock:    t = fetch_add(next, 1); spin until serving == t.
 * unlock:  serving = serving + 1 (only the holder writes it).
 * trylock: CAS next from serving to serving + 1, which succeeds only when
 *          nobody holds or waits (serving <= next always, so next == the
 *          serving value read before means the lock was free).
 * FIFO. Needs no per-thread state and may be released by any thread, so it
 * is both the local and the global lock of the C-TKT-TKT cohort lock
 * (cohort.c): has_waiters (next - serving > 1) is the cohort's "alone?" test,
 * is_locked (next != serving) the isLocked() Calciu et al.'s NUMA RW
 * locks (PPoPP'13) use.
 * The ticket increment is seq_cst so that isLocked orders against the reader
 * indicators of numa_rw.c.
 */
#include <stdint.h>
#include "lock_internal.h"

struct ticket_lock {
    uint32_t next;
    uint32_t serving;
};

static void ticket_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    struct ticket_lock *t = l;
    CHT_ST(&t->next, 0, RELAXED);
    CHT_ST(&t->serving, 0, RELAXED);
}
static void ticket_destroy(void *l) { (void)l; }

static void ticket_lock(void *l, void *ctx)
{
    (void)ctx;
    struct ticket_lock *t = l;
    uint32_t me = CHT_FADD(&t->next, 1, SEQ_CST);
    struct spin_wait w = SPIN_WAIT_INIT;
    while (CHT_LD(&t->serving, ACQUIRE) != me)
        spin_wait(&w);
}

static bool ticket_trylock(void *l, void *ctx)
{
    (void)ctx;
    struct ticket_lock *t = l;
    uint32_t s = CHT_LD(&t->serving, ACQUIRE);
    uint32_t expect = s;
    return CHT_CAS(&t->next, &expect, s + 1, SEQ_CST, RELAXED);
}

static void ticket_unlock(void *l, void *ctx)
{
    (void)ctx;
    struct ticket_lock *t = l;
    CHT_ST(&t->serving, CHT_LD(&t->serving, RELAXED) + 1, RELEASE);
}

static bool ticket_is_locked(void *l)
{
    struct ticket_lock *t = l;
    uint32_t s = CHT_LD(&t->serving, SEQ_CST);
    return CHT_LD(&t->next, SEQ_CST) != s;
}

static bool ticket_has_waiters(void *l, void *ctx)
{
    (void)ctx;
    struct ticket_lock *t = l;
    return CHT_LD(&t->next, RELAXED) - CHT_LD(&t->serving, RELAXED) > 1;
}

const struct lock_ops lock_ops_ticket = {
    .name = "ticket",
    .summary = "ticket spinlock, FIFO: next/serving counters (Mellor-Crummey, Scott, \"Algorithms for Scalable Synchronization on Shared-Memory Multiprocessors\", ACM TOCS 1991)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_FIFO,
    .lock_size = sizeof(struct ticket_lock),
    .init = ticket_init, .destroy = ticket_destroy,
    .lock = ticket_lock, .trylock = ticket_trylock, .unlock = ticket_unlock,
    .read_lock = ticket_lock, .read_unlock = ticket_unlock,
    .is_locked = ticket_is_locked,
    .has_waiters = ticket_has_waiters,
};
