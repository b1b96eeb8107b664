/*
 * lock.h - the one interface every lock in locks/ implements.
 *
 * A table embeds `lock_size` bytes per lock (aligned to 64 bytes by the table)
 * and gives each thread `ctx_size` bytes of context per lock it may hold at
 * once (queue nodes, NUMA node, HTM counters); the thread initialises its ctx
 * once with ctx_init(). Composite locks (cohorts, RTM elision) are built at
 * run time from other lock_ops, not from macro templates.
 * Contract: docs/design.md "The lock interface".
 */
#ifndef CHT_LOCK_H
#define CHT_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum lock_caps {
    LOCK_CAP_TRYLOCK   = 1u << 0,
    LOCK_CAP_RW        = 1u << 1, /* read_lock/read_unlock are real shared modes */
    LOCK_CAP_FIFO      = 1u << 2,
    LOCK_CAP_NUMA      = 1u << 3,
    LOCK_CAP_NEEDS_CTX = 1u << 4,
    LOCK_CAP_PARKS     = 1u << 5, /* waiters may sleep in the kernel */
    LOCK_CAP_RTM       = 1u << 6,
};

struct lock_config {
    unsigned numa_nodes;     /* >= 1 */
    unsigned max_threads;
    unsigned handoff_bound;  /* cohort locks: local hand-offs before release (--handoff) */
    unsigned waiter_threshold; /* waiter-count lock: T (--waiters) */
};

/* what handoff_bound and waiter_threshold are when no run sets them */
#define CHT_LOCK_HANDOFF_DEFAULT 64
#define CHT_LOCK_WAITER_THRESHOLD_DEFAULT 0

/* HTM and acquisition counters; a lock that keeps none leaves them 0. */
struct lock_stats {
    uint64_t acquisitions, fallbacks;
    uint64_t tx_begins, tx_commits, tx_aborts;
    uint64_t abort_conflict, abort_capacity, abort_explicit, abort_retry, abort_other;
};

struct lock_ops {
    const char *name, *summary;
    unsigned caps;
    size_t lock_size, ctx_size;
    bool (*available)(char *why, size_t len);          /* NULL: always */
    void (*init)(void *lock, const struct lock_config *cfg);
    void (*destroy)(void *lock);
    void (*ctx_init)(void *ctx, unsigned tid, unsigned numa_node); /* NULL when ctx_size == 0 */
    void (*lock)(void *lock, void *ctx);
    bool (*trylock)(void *lock, void *ctx);            /* NULL without LOCK_CAP_TRYLOCK */
    void (*unlock)(void *lock, void *ctx);
    void (*read_lock)(void *lock, void *ctx);          /* RW locks; others: same as lock */
    void (*read_unlock)(void *lock, void *ctx);
    void (*stats)(void *lock, struct lock_stats *s);   /* may be NULL */
    /* Optional (NULL when absent); used by the composite locks of locks/
     * (cohorts, NUMA RW locks, RTM elision) and by ctx-held counters. */
    bool (*is_locked)(void *lock);             /* racy snapshot: held (or queued for) by someone */
    bool (*has_waiters)(void *lock, void *ctx); /* holder only: another thread is committed to
                                                * acquiring it (cohort "alone?" test) */
    void (*ctx_stats)(void *ctx, struct lock_stats *s); /* adds this thread's counters to *s */
};

#ifdef __cplusplus
}
#endif
#endif
