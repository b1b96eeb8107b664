/*
 * cohort.c - lock cohorting: c-bo-mcs and c-tkt-tkt.
 *
 * Source: §3.1 of the paper (Calciu, Dice, Lev, Luchangco, Marathe, Shavit,
 * "NUMA-aware reader-writer locks", PPoPP'13, who build on Dice, Marathe &
 * Shavit, "Lock cohorting: a general technique for designing NUMA locks",
 * PPoPP'12). A cohort lock is a global lock plus one local lock per NUMA
 * node. The global lock must be thread-oblivious (acquired by one thread,
 * released by another); the local locks must offer cohort detection (the
 * holder can tell whether another thread is committed to acquiring it).
 *
 *   lock:   take my node's local lock; if my node's cohort already owns the
 *           global lock (it was passed to me with the local lock) I am done,
 *           else take the global lock.
 *   unlock: if another thread of my node waits on the local lock and this
 *           node has passed the lock on fewer than handoff_bound times in a
 *           row (lock_config.handoff_bound, default 64 as in Calciu et al.), release
 *           only the local lock, leaving the global one held for the
 *           successor; otherwise release the global lock, then the local one.
 *   trylock: trylock the local lock; then either it came with the global
 *           lock, or trylock the global lock (on failure release the local
 *           lock again).
 *   is_locked: the global lock is held (some cohort owns the lock) - the
 *           isLocked() that Calciu et al.'s NUMA RW locks use (numa_rw.c).
 *
 * Composition is at run time, from any two lock_ops that qualify
 * (cohort_setup below): c-bo-mcs = ttas-backoff global + MCS locals,
 * c-tkt-tkt = ticket global + ticket locals (Calciu et al. use a partitioned
 * ticket global lock, C-PTL-TKT; a plain ticket lock plays that role here).
 * The number of cohorts is lock_config.numa_nodes; the thread's node comes
 * from ctx_init (modulo the node count, so sparse OS node numbers work). On
 * a one-node machine there is one cohort and the lock behaves like its local
 * lock plus an uncontended global one.
 *
 * Layout: the lock slot holds a pointer to a cache-aligned block allocated in
 * init (its size depends on the node count): the global lock on its own
 * line, then per node the local lock on one line and the cohort's owner
 * state {global_held, handoffs} on the next (written only by the holder).
 */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>
#include "lock_internal.h"

struct cohort_node {
    alignas(LOCK_LINE) unsigned char local[LOCK_SLOT_SIZE];
    alignas(LOCK_LINE) uint32_t global_held;  /* this node's cohort owns the global lock */
    uint32_t handoffs;                        /* consecutive local hand-offs */
};

struct cohort {
    const struct lock_ops *global_ops, *local_ops;
    unsigned nodes, bound;
    alignas(LOCK_LINE) unsigned char global[LOCK_SLOT_SIZE];
    struct cohort_node node[];
};

struct cohort_ctx {
    alignas(LOCK_LINE) unsigned numa_node;
    alignas(LOCK_LINE) unsigned char local_ctx[LOCK_SLOT_CTX];
};

static void cohort_setup(void *l, const struct lock_config *cfg, const char *name,
                         const struct lock_ops *global_ops, const struct lock_ops *local_ops)
{
    lock_component_check(name, "global", global_ops, LOCK_SLOT_SIZE, 0,
                         NEED_IS_LOCKED | NEED_NO_CTX);
    lock_component_check(name, "local", local_ops, LOCK_SLOT_SIZE, LOCK_SLOT_CTX,
                         NEED_HAS_WAITERS);
    unsigned nodes = cfg && cfg->numa_nodes ? cfg->numa_nodes : 1;
    size_t size = sizeof(struct cohort) + nodes * sizeof(struct cohort_node);
    struct cohort *c = aligned_alloc(LOCK_LINE, size);
    if (!c) {
        fprintf(stderr, "lock %s: out of memory for %u cohorts\n", name, nodes);
        abort();
    }
    memset(c, 0, size);
    c->global_ops = global_ops;
    c->local_ops = local_ops;
    c->nodes = nodes;
    c->bound = cfg && cfg->handoff_bound ? cfg->handoff_bound : 64;
    global_ops->init(c->global, cfg);
    for (unsigned i = 0; i < nodes; i++)
        local_ops->init(c->node[i].local, cfg);
    *(struct cohort **)l = c;
}

static void cohort_destroy(void *l)
{
    struct cohort *c = *(struct cohort **)l;
    if (!c)
        return;
    for (unsigned i = 0; i < c->nodes; i++)
        c->local_ops->destroy(c->node[i].local);
    c->global_ops->destroy(c->global);
    free(c);
    *(struct cohort **)l = NULL;
}

/* ctx_init is not given the lock, so each named cohort lock passes the
 * local lock type it is built from. */
static void cohort_ctx_init_with(void *ctx, unsigned tid, unsigned node,
                                 const struct lock_ops *local_ops)
{
    struct cohort_ctx *x = ctx;
    memset(x, 0, sizeof *x);
    x->numa_node = node;
    if (local_ops->ctx_init)
        local_ops->ctx_init(x->local_ctx, tid, node);
}

static inline struct cohort_node *my_node(struct cohort *c, struct cohort_ctx *x)
{
    return &c->node[x->numa_node % c->nodes];
}

static void cohort_lock(void *l, void *ctx)
{
    struct cohort *c = *(struct cohort **)l;
    struct cohort_ctx *x = ctx;
    struct cohort_node *n = my_node(c, x);
    c->local_ops->lock(n->local, x->local_ctx);
    if (CHT_LD(&n->global_held, RELAXED))
        return;                             /* passed to me within the cohort */
    c->global_ops->lock(c->global, NULL);
    CHT_ST(&n->global_held, 1, RELAXED);
}

static bool cohort_trylock(void *l, void *ctx)
{
    struct cohort *c = *(struct cohort **)l;
    struct cohort_ctx *x = ctx;
    struct cohort_node *n = my_node(c, x);
    if (!c->local_ops->trylock(n->local, x->local_ctx))
        return false;
    if (CHT_LD(&n->global_held, RELAXED))
        return true;
    if (c->global_ops->trylock(c->global, NULL)) {
        CHT_ST(&n->global_held, 1, RELAXED);
        return true;
    }
    c->local_ops->unlock(n->local, x->local_ctx);  /* global_held stays 0 */
    return false;
}

static void cohort_unlock(void *l, void *ctx)
{
    struct cohort *c = *(struct cohort **)l;
    struct cohort_ctx *x = ctx;
    struct cohort_node *n = my_node(c, x);
    uint32_t h = CHT_LD(&n->handoffs, RELAXED);
    if (h < c->bound && c->local_ops->has_waiters(n->local, x->local_ctx)) {
        CHT_ST(&n->handoffs, h + 1, RELAXED); /* keep the global lock for the cohort */
        c->local_ops->unlock(n->local, x->local_ctx);
        return;
    }
    CHT_ST(&n->handoffs, 0, RELAXED);
    CHT_ST(&n->global_held, 0, RELAXED);
    c->global_ops->unlock(c->global, NULL);
    c->local_ops->unlock(n->local, x->local_ctx);
}

static bool cohort_is_locked(void *l)
{
    struct cohort *c = *(struct cohort **)l;
    return c->global_ops->is_locked(c->global);
}

static void c_bo_mcs_init(void *l, const struct lock_config *cfg)
{
    cohort_setup(l, cfg, "c-bo-mcs", &lock_ops_ttas_backoff, &lock_ops_mcs);
}
static void c_bo_mcs_ctx_init(void *ctx, unsigned tid, unsigned node)
{
    cohort_ctx_init_with(ctx, tid, node, &lock_ops_mcs);
}

static void c_tkt_tkt_init(void *l, const struct lock_config *cfg)
{
    cohort_setup(l, cfg, "c-tkt-tkt", &lock_ops_ticket, &lock_ops_ticket);
}
static void c_tkt_tkt_ctx_init(void *ctx, unsigned tid, unsigned node)
{
    cohort_ctx_init_with(ctx, tid, node, &lock_ops_ticket);
}

const struct lock_ops lock_ops_c_bo_mcs = {
    .name = "c-bo-mcs",
    .summary = "cohort lock: backoff TTAS global + per-NUMA-node MCS (Dice, Marathe, Shavit, \"Lock Cohorting\", PPoPP'12; Calciu et al., \"NUMA-aware reader-writer locks\", PPoPP'13 §3.1)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_NUMA | LOCK_CAP_NEEDS_CTX,
    .lock_size = sizeof(struct cohort *),
    .ctx_size = sizeof(struct cohort_ctx),
    .init = c_bo_mcs_init, .destroy = cohort_destroy, .ctx_init = c_bo_mcs_ctx_init,
    .lock = cohort_lock, .trylock = cohort_trylock, .unlock = cohort_unlock,
    .read_lock = cohort_lock, .read_unlock = cohort_unlock,
    .is_locked = cohort_is_locked,
};

const struct lock_ops lock_ops_c_tkt_tkt = {
    .name = "c-tkt-tkt",
    .summary = "cohort lock: ticket global + per-NUMA-node ticket locks (Dice, Marathe, Shavit, \"Lock Cohorting\", PPoPP'12; Calciu et al., \"NUMA-aware reader-writer locks\", PPoPP'13 §3.1)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_NUMA | LOCK_CAP_NEEDS_CTX,
    .lock_size = sizeof(struct cohort *),
    .ctx_size = sizeof(struct cohort_ctx),
    .init = c_tkt_tkt_init, .destroy = cohort_destroy, .ctx_init = c_tkt_tkt_ctx_init,
    .lock = cohort_lock, .trylock = cohort_trylock, .unlock = cohort_unlock,
    .read_lock = cohort_lock, .read_unlock = cohort_unlock,
    .is_locked = cohort_is_locked,
};
