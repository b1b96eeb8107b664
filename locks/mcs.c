/*
 * mcs.c - MCS queue lock (Mellor-Crummey & Scott, TOCS 1991), as described
 * in the 2017 Hunan Univ. thesis §4.4.3 (fig. 4.3) and the fallback
 * path of its RTM MCS lock (algorithms 5.3/5.4, §5.3.2).
 *
 * The lock is one tail pointer; each waiter's queue node {next, locked} is
 * in its ctx (one node per thread per lock it may hold at once).
 * lock:    node.next = NULL; node.locked = 1; pred = swap(tail, node);
 *          if pred: pred.next = node, spin on node.locked (local spinning).
 * unlock:  if node.next == NULL: CAS(tail, node, NULL) and done on success,
 *          else wait for the successor to link itself; then
 *          successor.locked = 0.
 * trylock: CAS(tail, NULL, node).
 * FIFO. has_waiters (a successor has swapped itself in) is the cohort
 * "alone?" test of C-BO-MCS (cohort.c); is_locked (tail != NULL) is what the
 * RTM elision wrappers (rtm.c) subscribe to.
 */
#include <stdalign.h>
#include <stdint.h>
#include "lock_internal.h"

struct mcs_node {
    alignas(LOCK_LINE) struct mcs_node *next;
    uint32_t locked;
};

struct mcs_lock {
    struct mcs_node *tail;
};

static void mcs_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    CHT_ST(&((struct mcs_lock *)l)->tail, NULL, RELAXED);
}
static void mcs_destroy(void *l) { (void)l; }

static void mcs_ctx_init(void *ctx, unsigned tid, unsigned node)
{
    (void)tid; (void)node;
    struct mcs_node *n = ctx;
    CHT_ST(&n->next, NULL, RELAXED);
    CHT_ST(&n->locked, 0, RELAXED);
}

static void mcs_lock(void *l, void *ctx)
{
    struct mcs_lock *m = l;
    struct mcs_node *n = ctx;
    CHT_ST(&n->next, NULL, RELAXED);
    CHT_ST(&n->locked, 1, RELAXED);
    struct mcs_node *pred = CHT_XCHG(&m->tail, n, SEQ_CST);
    if (!pred)
        return;
    CHT_ST(&pred->next, n, RELEASE);
    struct spin_wait w = SPIN_WAIT_INIT;
    while (CHT_LD(&n->locked, ACQUIRE))
        spin_wait(&w);
}

static bool mcs_trylock(void *l, void *ctx)
{
    struct mcs_lock *m = l;
    struct mcs_node *n = ctx;
    if (CHT_LD(&m->tail, RELAXED))
        return false;
    CHT_ST(&n->next, NULL, RELAXED);
    struct mcs_node *expect = NULL;
    return CHT_CAS(&m->tail, &expect, n, SEQ_CST, RELAXED);
}

static void mcs_unlock(void *l, void *ctx)
{
    struct mcs_lock *m = l;
    struct mcs_node *n = ctx;
    struct mcs_node *succ = CHT_LD(&n->next, ACQUIRE);
    if (!succ) {
        struct mcs_node *expect = n;
        if (CHT_CAS(&m->tail, &expect, NULL, RELEASE, RELAXED))
            return;
        /* a successor swapped itself in and is about to link */
        struct spin_wait w = SPIN_WAIT_INIT;
        while (!(succ = CHT_LD(&n->next, ACQUIRE)))
            spin_wait(&w);
    }
    CHT_ST(&succ->locked, 0, RELEASE);
}

static bool mcs_is_locked(void *l)
{
    return CHT_LD(&((struct mcs_lock *)l)->tail, SEQ_CST) != NULL;
}

static bool mcs_has_waiters(void *l, void *ctx)
{
    struct mcs_lock *m = l;
    struct mcs_node *n = ctx;
    return CHT_LD(&n->next, RELAXED) != NULL || CHT_LD(&m->tail, RELAXED) != n;
}

const struct lock_ops lock_ops_mcs = {
    .name = "mcs",
    .summary = "MCS queue lock, FIFO, local spinning; node in ctx (Mellor-Crummey, Scott, \"Algorithms for Scalable Synchronization on Shared-Memory Multiprocessors\", ACM TOCS 1991)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_FIFO | LOCK_CAP_NEEDS_CTX,
    .lock_size = sizeof(struct mcs_lock),
    .ctx_size = sizeof(struct mcs_node),
    .init = mcs_init, .destroy = mcs_destroy, .ctx_init = mcs_ctx_init,
    .lock = mcs_lock, .trylock = mcs_trylock, .unlock = mcs_unlock,
    .read_lock = mcs_lock, .read_unlock = mcs_unlock,
    .is_locked = mcs_is_locked,
    .has_waiters = mcs_has_waiters,
};
