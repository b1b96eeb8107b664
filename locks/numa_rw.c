/*
 * numa_rw.c - NUMA-aware reader-writer locks: c-rw-np, c-rw-rp,
 * c-rw-rp-opt, c-rw-wp.
 *
 * Source: Calciu, Dice, Lev, Luchangco, Marathe, Shavit,
 * "NUMA-aware reader-writer locks", PPoPP'13, §3.2-3.6 and §4.3.
 * Writers synchronise among themselves with a cohort lock (cohort.c; the paper
 * recommends C-PTL-TKT, here C-TKT-TKT - ticket global + ticket per node);
 * readers announce themselves in a distributed reader indicator: per NUMA
 * node an ingress and an egress counter on their own cache line (§3.6; a
 * reader increments ingress on arrival and egress on departure, both on its
 * own node). The indicator is empty when egress == ingress on every node;
 * a writer reads egress before ingress (§3.6: egress <= ingress always and
 * both only grow, so equal values read in that order prove there was a
 * moment with no reader on that node).
 *
 * c-rw-np (neutral, fig. 3): readers take the cohort lock, arrive, release
 *   it, then read; writers take the cohort lock and wait until the indicator
 *   is empty. Everyone passes the cohort lock, so neither side is preferred.
 * c-rw-rp (reader preference, fig. 4): readers wait while the reader barrier
 *   RBarrier is raised, arrive, then wait while the cohort lock isLocked().
 *   A writer takes the cohort lock; if readers are present it releases it,
 *   waits for the indicator to drain and starts over. A writer that has
 *   waited more than PATIENCE spins raises RBarrier (a central counter) to
 *   stop new readers, and lowers it when it releases the write lock.
 * c-rw-rp-opt (§3.3, "C-RW-RP-opt"): as c-rw-rp, but readers wait on a
 *   WActive flag instead of isLocked(), and a writer keeps the cohort lock
 *   while waiting for readers: loop { wait until empty (impatience as above);
 *   WActive = true; if empty: break; WActive = false }. This removes the
 *   writer-to-writer hand-off churn the paper observed with plain c-rw-rp.
 * c-rw-wp (writer preference, fig. 5; the mirror image of c-rw-rp): a reader
 *   arrives and checks isLocked(); if a writer holds the cohort lock it
 *   departs again and waits until it is free, and after PATIENCE spins raises
 *   the writer barrier WBarrier so that new writers wait before taking the
 *   cohort lock; it lowers the barrier once it is in. Writers wait while
 *   WBarrier is raised, take the cohort lock, and wait until the indicator is
 *   empty.
 * PATIENCE is 1000 spin iterations, as in the paper's experiments.
 *
 * Reader/writer conflicts are resolved Dekker-style (a reader writes the
 * indicator then reads the writer state; a writer writes the cohort lock or
 * WActive then reads the indicator), so those accesses are all seq_cst; the
 * cohort lock's acquisition and isLocked() are seq_cst for the same reason.
 *
 * trylock (write mode): take the cohort lock with trylock and fail, releasing
 * it, if readers are present (c-rw-wp also fails while WBarrier is raised).
 *
 * Layout: the lock slot holds a pointer to a block allocated in init: the
 * cohort lock, RBarrier, WBarrier and WActive each on their own line, then one
 * ingress/egress line per node (lock_config.numa_nodes). The ctx holds the
 * thread's node, the barrier-raised flag of the current hold and the cohort
 * lock's ctx.
 */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>
#include "lock_internal.h"

#define PATIENCE 1000u
#define RW_COHORT (&lock_ops_c_tkt_tkt)   /* the writers' cohort lock */
#define RW_COHORT_CTX 256

enum rw_policy { RW_NP, RW_RP, RW_RP_OPT, RW_WP };

struct rw_indicator {
    alignas(LOCK_LINE) uint64_t ingress;
    uint64_t egress;
};

struct numa_rw {
    const struct lock_ops *cohort_ops;
    unsigned nodes;
    enum rw_policy policy;
    alignas(LOCK_LINE) unsigned char cohort[LOCK_SLOT_SIZE];
    alignas(LOCK_LINE) uint32_t rbarrier;
    alignas(LOCK_LINE) uint32_t wbarrier;
    alignas(LOCK_LINE) uint32_t wactive;
    struct rw_indicator ri[];
};

struct rw_ctx {
    alignas(LOCK_LINE) unsigned numa_node;
    uint32_t raised;                 /* this writer raised RBarrier (c-rw-rp*) */
    alignas(LOCK_LINE) unsigned char cohort_ctx[RW_COHORT_CTX];
};

static void rw_setup(void *l, const struct lock_config *cfg, const char *name,
                     const struct lock_ops *cohort_ops, enum rw_policy policy)
{
    lock_component_check(name, "cohort", cohort_ops, LOCK_SLOT_SIZE, RW_COHORT_CTX,
                         NEED_IS_LOCKED);
    unsigned nodes = cfg && cfg->numa_nodes ? cfg->numa_nodes : 1;
    size_t size = sizeof(struct numa_rw) + nodes * sizeof(struct rw_indicator);
    struct numa_rw *r = aligned_alloc(LOCK_LINE, size);
    if (!r) {
        fprintf(stderr, "lock %s: out of memory for %u reader indicators\n", name, nodes);
        abort();
    }
    memset(r, 0, size);
    r->cohort_ops = cohort_ops;
    r->nodes = nodes;
    r->policy = policy;
    cohort_ops->init(r->cohort, cfg);
    *(struct numa_rw **)l = r;
}

static void rw_destroy(void *l)
{
    struct numa_rw *r = *(struct numa_rw **)l;
    if (!r)
        return;
    r->cohort_ops->destroy(r->cohort);
    free(r);
    *(struct numa_rw **)l = NULL;
}

static void rw_ctx_init(void *ctx, unsigned tid, unsigned node)
{
    struct rw_ctx *x = ctx;
    memset(x, 0, sizeof *x);
    x->numa_node = node;
    RW_COHORT->ctx_init(x->cohort_ctx, tid, node);
}

/* ---- reader indicator (§3.6) ---- */

static inline struct rw_indicator *my_ri(struct numa_rw *r, struct rw_ctx *x)
{
    return &r->ri[x->numa_node % r->nodes];
}

static inline void ri_arrive(struct rw_indicator *ri) { CHT_FADD(&ri->ingress, 1, SEQ_CST); }
static inline void ri_depart(struct rw_indicator *ri) { CHT_FADD(&ri->egress, 1, SEQ_CST); }

static bool ri_is_empty(struct numa_rw *r)
{
    for (unsigned i = 0; i < r->nodes; i++) {
        uint64_t e = CHT_LD(&r->ri[i].egress, SEQ_CST);
        if (CHT_LD(&r->ri[i].ingress, SEQ_CST) != e)
            return false;
    }
    return true;
}

static inline bool cohort_locked(struct numa_rw *r)
{
    return r->cohort_ops->is_locked(r->cohort);
}

/* Wait until no reader is present; after PATIENCE spins raise *barrier once. */
static void wait_readers_gone(struct numa_rw *r, uint32_t *barrier, uint32_t *raised)
{
    struct spin_wait w = SPIN_WAIT_INIT;
    unsigned patience = 0;
    while (!ri_is_empty(r)) {
        spin_wait(&w);
        if (barrier && !*raised && ++patience > PATIENCE) {
            CHT_FADD(barrier, 1, SEQ_CST);
            *raised = 1;
        }
    }
}

/* ---- readers ---- */

static void rw_read_lock(void *l, void *ctx)
{
    struct numa_rw *r = *(struct numa_rw **)l;
    struct rw_ctx *x = ctx;
    struct rw_indicator *ri = my_ri(r, x);
    struct spin_wait w = SPIN_WAIT_INIT;

    switch (r->policy) {
    case RW_NP:
        r->cohort_ops->lock(r->cohort, x->cohort_ctx);
        ri_arrive(ri);
        r->cohort_ops->unlock(r->cohort, x->cohort_ctx);
        return;
    case RW_RP:
    case RW_RP_OPT:
        while (CHT_LD(&r->rbarrier, SEQ_CST))
            spin_wait(&w);
        ri_arrive(ri);
        if (r->policy == RW_RP)
            while (cohort_locked(r))
                spin_wait(&w);
        else
            while (CHT_LD(&r->wactive, SEQ_CST))
                spin_wait(&w);
        return;
    case RW_WP: {
        unsigned patience = 0;
        bool raised = false;
        for (;;) {
            ri_arrive(ri);
            if (!cohort_locked(r))
                break;
            ri_depart(ri);
            while (cohort_locked(r)) {
                spin_wait(&w);
                if (!raised && ++patience > PATIENCE) {
                    CHT_FADD(&r->wbarrier, 1, SEQ_CST);
                    raised = true;
                }
            }
        }
        if (raised)
            CHT_FADD(&r->wbarrier, -1, SEQ_CST);
        return;
    }
    }
}

static void rw_read_unlock(void *l, void *ctx)
{
    struct numa_rw *r = *(struct numa_rw **)l;
    ri_depart(my_ri(r, ctx));
}

/* ---- writers ---- */

static void rw_lock(void *l, void *ctx)
{
    struct numa_rw *r = *(struct numa_rw **)l;
    struct rw_ctx *x = ctx;
    const struct lock_ops *co = r->cohort_ops;
    struct spin_wait w = SPIN_WAIT_INIT;
    x->raised = 0;

    switch (r->policy) {
    case RW_NP:
        co->lock(r->cohort, x->cohort_ctx);
        wait_readers_gone(r, NULL, NULL);
        return;
    case RW_RP:
        for (;;) {
            co->lock(r->cohort, x->cohort_ctx);
            if (ri_is_empty(r))
                return;
            co->unlock(r->cohort, x->cohort_ctx);
            wait_readers_gone(r, &r->rbarrier, &x->raised);
        }
    case RW_RP_OPT:
        co->lock(r->cohort, x->cohort_ctx);
        for (;;) {
            wait_readers_gone(r, &r->rbarrier, &x->raised);
            CHT_ST(&r->wactive, 1, SEQ_CST);
            if (ri_is_empty(r))
                return;
            CHT_ST(&r->wactive, 0, SEQ_CST);
        }
    case RW_WP:
        while (CHT_LD(&r->wbarrier, SEQ_CST))
            spin_wait(&w);
        co->lock(r->cohort, x->cohort_ctx);
        wait_readers_gone(r, NULL, NULL);
        return;
    }
}

static bool rw_trylock(void *l, void *ctx)
{
    struct numa_rw *r = *(struct numa_rw **)l;
    struct rw_ctx *x = ctx;
    const struct lock_ops *co = r->cohort_ops;
    x->raised = 0;
    if (r->policy == RW_WP && CHT_LD(&r->wbarrier, SEQ_CST))
        return false;
    if (!co->trylock(r->cohort, x->cohort_ctx))
        return false;
    if (r->policy == RW_RP_OPT)
        CHT_ST(&r->wactive, 1, SEQ_CST);
    if (ri_is_empty(r))
        return true;
    if (r->policy == RW_RP_OPT)
        CHT_ST(&r->wactive, 0, SEQ_CST);
    co->unlock(r->cohort, x->cohort_ctx);
    return false;
}

static void rw_unlock(void *l, void *ctx)
{
    struct numa_rw *r = *(struct numa_rw **)l;
    struct rw_ctx *x = ctx;
    if (r->policy == RW_RP_OPT)
        CHT_ST(&r->wactive, 0, RELEASE);
    if (x->raised) {
        CHT_FADD(&r->rbarrier, -1, SEQ_CST);
        x->raised = 0;
    }
    r->cohort_ops->unlock(r->cohort, x->cohort_ctx);
}

static bool rw_is_locked(void *l)
{
    struct numa_rw *r = *(struct numa_rw **)l;
    return cohort_locked(r) || !ri_is_empty(r);
}

static void c_rw_np_init(void *l, const struct lock_config *c) { rw_setup(l, c, "c-rw-np", RW_COHORT, RW_NP); }
static void c_rw_rp_init(void *l, const struct lock_config *c) { rw_setup(l, c, "c-rw-rp", RW_COHORT, RW_RP); }
static void c_rw_rp_opt_init(void *l, const struct lock_config *c) { rw_setup(l, c, "c-rw-rp-opt", RW_COHORT, RW_RP_OPT); }
static void c_rw_wp_init(void *l, const struct lock_config *c) { rw_setup(l, c, "c-rw-wp", RW_COHORT, RW_WP); }

#define NUMA_RW_OPS(sym, nm, sum, initfn)                                       \
    const struct lock_ops sym = {                                               \
        .name = nm, .summary = sum,                                             \
        .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_RW | LOCK_CAP_NUMA | LOCK_CAP_NEEDS_CTX, \
        .lock_size = sizeof(struct numa_rw *), .ctx_size = sizeof(struct rw_ctx), \
        .init = initfn, .destroy = rw_destroy, .ctx_init = rw_ctx_init,         \
        .lock = rw_lock, .trylock = rw_trylock, .unlock = rw_unlock,            \
        .read_lock = rw_read_lock, .read_unlock = rw_read_unlock,               \
        .is_locked = rw_is_locked,                                              \
    }

NUMA_RW_OPS(lock_ops_c_rw_np, "c-rw-np",
            "NUMA RW lock, neutral: readers pass the C-TKT-TKT cohort lock (Calciu et al., \"NUMA-aware reader-writer locks\", PPoPP'13, fig. 3)",
            c_rw_np_init);
NUMA_RW_OPS(lock_ops_c_rw_rp, "c-rw-rp",
            "NUMA RW lock, reader preference + reader barrier (Calciu et al., \"NUMA-aware reader-writer locks\", PPoPP'13, fig. 4)",
            c_rw_rp_init);
NUMA_RW_OPS(lock_ops_c_rw_rp_opt, "c-rw-rp-opt",
            "NUMA RW lock, reader preference with WActive flag (Calciu et al., \"NUMA-aware reader-writer locks\", PPoPP'13, §3.3 C-RW-RP-opt)",
            c_rw_rp_opt_init);
NUMA_RW_OPS(lock_ops_c_rw_wp, "c-rw-wp",
            "NUMA RW lock, writer preference + writer barrier (Calciu et al., \"NUMA-aware reader-writer locks\", PPoPP'13, fig. 5)",
            c_rw_wp_init);
