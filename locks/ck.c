/*
 * ck.c - Concurrency Kit's locks (libck-dev 0.7.1, concurrencykit.org)
 * behind lock_ops, so that the lock benchmarks compare our implementations
 * in locks/ with a widely used library's for the same algorithm:
 *
 *   ck-mcs     ck_spinlock_mcs    MCS queue lock (Mellor-Crummey & Scott, TOCS 1991)
 *   ck-ticket  ck_spinlock_ticket ticket lock (same paper); on x86-64 ck packs
 *                                 both counters in one 64-bit word
 *   ck-clh     ck_spinlock_clh    CLH queue lock (Craig 1993; Magnusson et al. 1994)
 *   ck-rwlock  ck_rwlock          writer-preferring centralized RW spinlock
 *   ck-cohort  ck_cohort          cohort lock (Dice, Marathe & Shavit, PPoPP 2012)
 *                                 with ck ticket locks as the global and the
 *                                 per-NUMA-node local locks, ck's default
 *                                 local pass limit (10)
 *
 * All lock code is ck's (its inline functions); this file only maps the
 * lock_ops calls onto them. What a measurement includes that is not ck's lock:
 * one indirect call per lock/unlock through lock_ops (as for our locks).
 * Differences from our locks in locks/ that show in measurements:
 *   - ck's waiters spin with ck_pr_stall() (pause) only; ours call sched_yield()
 *     after 64 pauses (LOCK_SPIN_YIELD, locks/lock_internal.h). With more
 *     threads than free CPUs ck's FIFO locks (mcs, ticket, clh, cohort) hand the
 *     lock to a preempted waiter and stall for a scheduler time slice: the
 *     oversubscribed mutex tests run them with 4 threads and few iterations.
 *   - ck-clh adopts its predecessor's node on unlock (the textbook CLH): a
 *     thread's ctx holds a pointer to the node it currently owns plus storage
 *     for one node, and nodes migrate between the ctxs of one lock and the
 *     lock's own initial node. Every ctx of a lock must therefore live as long
 *     as the lock (true of every user in chtbench: ctx arrays are freed with
 *     the lock). Our clh.c instead hands nodes back so each stays its owner's.
 *   - ck's atomics are inline assembly, invisible to ThreadSanitizer: the TSan
 *     build skips these locks (suite tsan-exempt in tests/meson.build).
 * ck-rwlock has no fairness between readers and writers beyond writer
 * preference (a writer announces itself, then waits for readers to drain).
 */
#include <stdalign.h>
#include <stdint.h>
#include <ck_spinlock.h>
#include <ck_rwlock.h>
#include <ck_cohort.h>
#include "lock_internal.h"

/* ---------------- ck-mcs ---------------- */

struct ckmcs_lock {
    ck_spinlock_mcs_t q;
};
struct ckmcs_ctx {
    alignas(LOCK_LINE) struct ck_spinlock_mcs node;
};

static void ckmcs_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    ck_spinlock_mcs_init(&((struct ckmcs_lock *)l)->q);
}
static void ck_nop_destroy(void *l) { (void)l; }
static void ckmcs_ctx_init(void *ctx, unsigned tid, unsigned node)
{
    (void)tid; (void)node;
    memset(ctx, 0, sizeof(struct ckmcs_ctx));
}
static void ckmcs_lock(void *l, void *ctx)
{
    ck_spinlock_mcs_lock(&((struct ckmcs_lock *)l)->q, &((struct ckmcs_ctx *)ctx)->node);
}
static bool ckmcs_trylock(void *l, void *ctx)
{
    return ck_spinlock_mcs_trylock(&((struct ckmcs_lock *)l)->q, &((struct ckmcs_ctx *)ctx)->node);
}
static void ckmcs_unlock(void *l, void *ctx)
{
    ck_spinlock_mcs_unlock(&((struct ckmcs_lock *)l)->q, &((struct ckmcs_ctx *)ctx)->node);
}
static bool ckmcs_is_locked(void *l)
{
    return ck_spinlock_mcs_locked(&((struct ckmcs_lock *)l)->q);
}

const struct lock_ops lock_ops_ck_mcs = {
    .name = "ck-mcs",
    .summary = "Concurrency Kit ck_spinlock_mcs (MCS queue lock; pure spinning, no yield)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_FIFO | LOCK_CAP_NEEDS_CTX,
    .lock_size = sizeof(struct ckmcs_lock),
    .ctx_size = sizeof(struct ckmcs_ctx),
    .init = ckmcs_init, .destroy = ck_nop_destroy, .ctx_init = ckmcs_ctx_init,
    .lock = ckmcs_lock, .trylock = ckmcs_trylock, .unlock = ckmcs_unlock,
    .read_lock = ckmcs_lock, .read_unlock = ckmcs_unlock,
    .is_locked = ckmcs_is_locked,
};

/* ---------------- ck-ticket ---------------- */

static void cktkt_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    ck_spinlock_ticket_init(l);
}
static void cktkt_lock(void *l, void *ctx)
{
    (void)ctx;
    ck_spinlock_ticket_lock(l);
}
static bool cktkt_trylock(void *l, void *ctx)
{
    (void)ctx;
    return ck_spinlock_ticket_trylock(l);
}
static void cktkt_unlock(void *l, void *ctx)
{
    (void)ctx;
    ck_spinlock_ticket_unlock(l);
}
static bool cktkt_is_locked(void *l)
{
    return ck_spinlock_ticket_locked(l);
}

const struct lock_ops lock_ops_ck_ticket = {
    .name = "ck-ticket",
    .summary = "Concurrency Kit ck_spinlock_ticket (ticket lock; pure spinning, no yield)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_FIFO,
    .lock_size = sizeof(ck_spinlock_ticket_t),
    .init = cktkt_init, .destroy = ck_nop_destroy,
    .lock = cktkt_lock, .trylock = cktkt_trylock, .unlock = cktkt_unlock,
    .read_lock = cktkt_lock, .read_unlock = cktkt_unlock,
    .is_locked = cktkt_is_locked,
};

/* ---------------- ck-clh ---------------- */

struct ckclh_lock {
    struct ck_spinlock_clh *tail;
    alignas(LOCK_LINE) struct ck_spinlock_clh unowned;   /* the initial node */
};
struct ckclh_ctx {
    struct ck_spinlock_clh *mine;                        /* the node this thread owns now */
    alignas(LOCK_LINE) struct ck_spinlock_clh storage;   /* its first node */
};

static void ckclh_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    struct ckclh_lock *c = l;
    ck_spinlock_clh_init(&c->tail, &c->unowned);
}
static void ckclh_ctx_init(void *ctx, unsigned tid, unsigned node)
{
    (void)tid; (void)node;
    struct ckclh_ctx *c = ctx;
    memset(&c->storage, 0, sizeof c->storage);
    c->mine = &c->storage;
}
static void ckclh_lock(void *l, void *ctx)
{
    ck_spinlock_clh_lock(&((struct ckclh_lock *)l)->tail, ((struct ckclh_ctx *)ctx)->mine);
}
static void ckclh_unlock(void *l, void *ctx)
{
    (void)l;
    ck_spinlock_clh_unlock(&((struct ckclh_ctx *)ctx)->mine);
}
static bool ckclh_is_locked(void *l)
{
    return ck_spinlock_clh_locked(&((struct ckclh_lock *)l)->tail);
}

const struct lock_ops lock_ops_ck_clh = {
    .name = "ck-clh",
    .summary = "Concurrency Kit ck_spinlock_clh (CLH queue lock, nodes migrate; pure spinning)",
    .caps = LOCK_CAP_FIFO | LOCK_CAP_NEEDS_CTX,
    .lock_size = sizeof(struct ckclh_lock),
    .ctx_size = sizeof(struct ckclh_ctx),
    .init = ckclh_init, .destroy = ck_nop_destroy, .ctx_init = ckclh_ctx_init,
    .lock = ckclh_lock, .unlock = ckclh_unlock,
    .read_lock = ckclh_lock, .read_unlock = ckclh_unlock,
    .is_locked = ckclh_is_locked,
};

/* ---------------- ck-rwlock ---------------- */

static void ckrw_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    ck_rwlock_init(l);
}
static void ckrw_lock(void *l, void *ctx)
{
    (void)ctx;
    ck_rwlock_write_lock(l);
}
static bool ckrw_trylock(void *l, void *ctx)
{
    (void)ctx;
    return ck_rwlock_write_trylock(l);
}
static void ckrw_unlock(void *l, void *ctx)
{
    (void)ctx;
    ck_rwlock_write_unlock(l);
}
static void ckrw_read_lock(void *l, void *ctx)
{
    (void)ctx;
    ck_rwlock_read_lock(l);
}
static void ckrw_read_unlock(void *l, void *ctx)
{
    (void)ctx;
    ck_rwlock_read_unlock(l);
}
static bool ckrw_is_locked(void *l)
{
    return ck_rwlock_locked(l);
}

const struct lock_ops lock_ops_ck_rwlock = {
    .name = "ck-rwlock",
    .summary = "Concurrency Kit ck_rwlock (centralized writer-preferring RW spinlock)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_RW,
    .lock_size = sizeof(ck_rwlock_t),
    .init = ckrw_init, .destroy = ck_nop_destroy,
    .lock = ckrw_lock, .trylock = ckrw_trylock, .unlock = ckrw_unlock,
    .read_lock = ckrw_read_lock, .read_unlock = ckrw_read_unlock,
    .is_locked = ckrw_is_locked,
};

/* ---------------- ck-cohort ---------------- */

/* ck_cohort calls its component locks through (lock, context) functions */
static void cohort_tkt_lock(ck_spinlock_ticket_t *l, void *ctx) { (void)ctx; ck_spinlock_ticket_lock(l); }
static void cohort_tkt_unlock(ck_spinlock_ticket_t *l, void *ctx) { (void)ctx; ck_spinlock_ticket_unlock(l); }
static bool cohort_tkt_locked(ck_spinlock_ticket_t *l, void *ctx) { (void)ctx; return ck_spinlock_ticket_locked(l); }
static bool cohort_tkt_trylock(ck_spinlock_ticket_t *l, void *ctx) { (void)ctx; return ck_spinlock_ticket_trylock(l); }

CK_COHORT_TRYLOCK_PROTOTYPE(cktkt, cohort_tkt_lock, cohort_tkt_unlock, cohort_tkt_locked, cohort_tkt_trylock,
                            cohort_tkt_lock, cohort_tkt_unlock, cohort_tkt_locked, cohort_tkt_trylock)

#define CKCOHORT_MAX_NODES 8

struct ckcohort_node {
    alignas(LOCK_LINE) CK_COHORT_INSTANCE(cktkt) cohort;
    ck_spinlock_ticket_t local;
};
struct ckcohort_lock {
    alignas(LOCK_LINE) ck_spinlock_ticket_t global;
    unsigned nodes;
    struct ckcohort_node node[CKCOHORT_MAX_NODES];
};
struct ckcohort_ctx {
    unsigned node;
};

static void ckcohort_init(void *l, const struct lock_config *cfg)
{
    struct ckcohort_lock *c = l;
    c->nodes = cfg->numa_nodes < 1 ? 1 : cfg->numa_nodes > CKCOHORT_MAX_NODES ? CKCOHORT_MAX_NODES
                                                                              : cfg->numa_nodes;
    ck_spinlock_ticket_init(&c->global);
    for (unsigned i = 0; i < CKCOHORT_MAX_NODES; i++) {
        ck_spinlock_ticket_init(&c->node[i].local);
        CK_COHORT_INIT(cktkt, &c->node[i].cohort, &c->global, &c->node[i].local,
                       CK_COHORT_DEFAULT_LOCAL_PASS_LIMIT);
    }
}
static void ckcohort_ctx_init(void *ctx, unsigned tid, unsigned node)
{
    (void)tid;
    ((struct ckcohort_ctx *)ctx)->node = node;
}
static inline CK_COHORT_INSTANCE(cktkt) *my_cohort(void *l, void *ctx)
{
    struct ckcohort_lock *c = l;
    return &c->node[((struct ckcohort_ctx *)ctx)->node % c->nodes].cohort;
}
static void ckcohort_lock(void *l, void *ctx)
{
    CK_COHORT_LOCK(cktkt, my_cohort(l, ctx), NULL, NULL);
}
static bool ckcohort_trylock(void *l, void *ctx)
{
    return CK_COHORT_TRYLOCK(cktkt, my_cohort(l, ctx), NULL, NULL, NULL);
}
static void ckcohort_unlock(void *l, void *ctx)
{
    CK_COHORT_UNLOCK(cktkt, my_cohort(l, ctx), NULL, NULL);
}
static bool ckcohort_is_locked(void *l)
{
    return ck_spinlock_ticket_locked(&((struct ckcohort_lock *)l)->global);
}

const struct lock_ops lock_ops_ck_cohort = {
    .name = "ck-cohort",
    .summary = "Concurrency Kit ck_cohort over ck ticket locks (global + one local per NUMA node, pass limit 10)",
    .caps = LOCK_CAP_TRYLOCK | LOCK_CAP_NUMA | LOCK_CAP_NEEDS_CTX,
    .lock_size = sizeof(struct ckcohort_lock),
    .ctx_size = sizeof(struct ckcohort_ctx),
    .init = ckcohort_init, .destroy = ck_nop_destroy, .ctx_init = ckcohort_ctx_init,
    .lock = ckcohort_lock, .trylock = ckcohort_trylock, .unlock = ckcohort_unlock,
    .read_lock = ckcohort_lock, .read_unlock = ckcohort_unlock,
    .is_locked = ckcohort_is_locked,
};
