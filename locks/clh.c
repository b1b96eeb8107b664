/*
 * clh.c - CLH queue lock (Craig 1993; Magnusson, Landin & Hagersten 1994),
 * as described in the 2017 Hunan Univ. thesis §5.3.1 (fig. 5.6):
 * an implicit queue of nodes, a tail pointer to the last one; a thread
 * enqueues its node with a swap on tail and spins on its predecessor's
 * `locked` field until the predecessor releases. FIFO.
 *
 * Node ownership. The textbook CLH lets a releasing thread adopt its
 * predecessor's node, so nodes migrate between threads and a node's memory
 * must outlive every thread that ever used the lock. Here every thread's node
 * lives in its own ctx (lock.h: no per-lock thread arrays, no allocation on
 * the lock path) and stays its own, so a ctx can be freed once its thread is
 * done. Instead of adopting nodes, the successor hands the predecessor's node
 * back once it has seen the release:
 *
 *   node.state: FREE (reusable) -> WAIT (queued or holding)
 *               -> RELEASED (lock passed on; the successor still reads it)
 *               -> FREE (the successor saw RELEASED and let go of the node).
 *   lock:    wait until my node is FREE (it already is unless my last
 *            successor has not yet looked; that successor holds the lock, so
 *            I could not get it earlier anyway); state = WAIT;
 *            pred = swap(tail, me); if pred: spin until pred.state ==
 *            RELEASED, then pred.state = FREE.
 *   unlock:  CAS(tail, me, NULL) -> nobody behind me: state = FREE;
 *            otherwise state = RELEASED (my successor spins on it).
 *   trylock: my node FREE and CAS(tail, NULL, me).
 * The empty queue is tail == NULL, so the lock needs no dummy node.
 */
#include <stdalign.h>
#include <stdint.h>
#include "lock_internal.h"

enum { CLH_FREE = 0, CLH_WAIT = 1, CLH_RELEASED = 2 };

struct clh_node {
    alignas(LOCK_LINE) uint32_t state;
};

struct clh_lock {
    struct clh_node *tail;
};

static void clh_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    CHT_ST(&((struct clh_lock *)l)->tail, NULL, RELAXED);
}
static void clh_destroy(void *l) { (void)l; }

static void clh_ctx_init(void *ctx, unsigned tid, unsigned node)
{
    (void)tid; (void)node;
    CHT_ST(&((struct clh_node *)ctx)->state, CLH_FREE, RELAXED);
}

static void clh_lock(void *l, void *ctx)
{
    struct clh_lock *c = l;
    struct clh_node *me = ctx;
    struct spin_wait w = SPIN_WAIT_INIT;
    while (CHT_LD(&me->state, ACQUIRE) != CLH_FREE)
        spin_wait(&w);
    CHT_ST(&me->state, CLH_WAIT, RELAXED);
    struct clh_node *pred = CHT_XCHG(&c->tail, me, SEQ_CST);
    if (!pred)
        return;
    while (CHT_LD(&pred->state, ACQUIRE) != CLH_RELEASED)
        spin_wait(&w);
    CHT_ST(&pred->state, CLH_FREE, RELEASE); /* give the node back to its owner */
}

static bool clh_trylock(void *l, void *ctx)
{
    struct clh_lock *c = l;
    struct clh_node *me = ctx;
    if (CHT_LD(&me->state, ACQUIRE) != CLH_FREE || CHT_LD(&c->tail, RELAXED))
        return false;   /* not FREE: my successor owns the lock right now */
    CHT_ST(&me->state, CLH_WAIT, RELAXED);
    struct clh_node *expect = NULL;
    if (CHT_CAS(&c->tail, &expect, me, SEQ_CST, RELAXED))
        return true;
    CHT_ST(&me->state, CLH_FREE, RELAXED);
    return false;
}

static void clh_unlock(void *l, void *ctx)
{
    struct clh_lock *c = l;
    struct clh_node *me = ctx;
    struct clh_node *expect = me;
    if (CHT_CAS(&c->tail, &expect, NULL, RELEASE, RELAXED))
        CHT_ST(&me->state, CLH_FREE, RELAXED);
    else
        CHT_ST(&me->state, CLH_RELEASED, RELEASE);
}

static bool clh_is_locked(void *l)
{
    return CHT_LD(&((struct clh_lock *)l)->tail, SEQ_CST) != NULL;
}

static bool clh_has_waiters(void *l, void *ctx)
{
    return CHT_LD(&((struct clh_lock *)l)->tail, RELAXED) != ctx;
}

const struct lock_ops lock_ops_clh = {
    .name = "clh",
    .summary = "CLH queue lock, FIFO, spins on the predecessor's node; node in ctx (Craig, Univ. of Washington TR 93-02-02, 1993; Magnusson, Landin, Hagersten, \"Queue Locks on Cache Coherent Multiprocessors\", IPPS'94)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_FIFO | LOCK_CAP_NEEDS_CTX,
    .lock_size = sizeof(struct clh_lock),
    .ctx_size = sizeof(struct clh_node),
    .init = clh_init, .destroy = clh_destroy, .ctx_init = clh_ctx_init,
    .lock = clh_lock, .trylock = clh_trylock, .unlock = clh_unlock,
    .read_lock = clh_lock, .read_unlock = clh_unlock,
    .is_locked = clh_is_locked,
    .has_waiters = clh_has_waiters,
};
