/*
 * table_locks.h - the locks a table takes from locks/ (lock=NAME), set up once
 * for every table: n lock instances (stripes; n = 1 for one global lock) and
 * the per-thread lock contexts that queue locks (MCS, CLH, cohorts, RTM
 * wrappers) need, all initialised from the run's lock_config.
 *
 * Layout: lock i lives at locks + i * lstride, lstride = lock_size rounded up
 * to 64 bytes (at least 64), so no two stripes share a cache line; thread t
 * owns `per_thread` ctxs (one per lock it may hold at once), ctx j of thread
 * t at ctx + (t * per_thread + j) * cstride, cstride = ctx_size rounded up
 * to 64.
 * Every ctx is initialised with ctx_init(ctx, t, cfg->thread_node[t]).
 *
 * lock_config: numa_nodes and max_threads come from the table's cht_config
 * (max_threads: the `threads` the table passes), handoff_bound and
 * waiter_threshold from cfg->lock_config, the run's --handoff and --waiters
 * (defaults 64 and 0 when the driver passes none).
 *
 * The accessors are `static inline` and do what the tables used to spell
 * out (one multiply-add per address, one indirect call per lock operation):
 * the hot fields (lk, locks, lstride, ctx, cstride) are the first 40 bytes,
 * so a table can keep them on the cache line its operations already read
 * (the first 24, where a ctx-less lock needs no more);
 * cht_locks_ctx takes per_thread from the caller (a constant, or a field the
 * caller reads anyway) rather than from the cold part.
 */
#ifndef CHT_TABLE_LOCKS_H
#define CHT_TABLE_LOCKS_H

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "cht.h"
#include "lock.h"
#include "table_support.h"

struct cht_locks {
    const struct lock_ops *lk;  /* NULL: not set up (init failed or never called) */
    unsigned char *locks;       /* n locks, lstride bytes apart, 64-byte aligned */
    /* size_t strides: x86 multiplies 64 bits by a 64-bit memory operand only, so a
     * uint32_t field costs a widening load (cuckoo-filter:lock=ttas: +3.6 instructions a get) */
    size_t lstride;             /* bytes from one lock to the next */
    unsigned char *ctx;         /* threads x per_thread ctxs; NULL when ctx_size == 0 */
    size_t cstride;             /* bytes from one ctx to the next; last of the hot fields:
                                 * read only for locks with ctxs */
    /* cold: create, destroy, stats */
    uint32_t n;                 /* locks */
    uint32_t threads;           /* threads with ctxs */
    uint32_t per_thread;        /* ctxs per thread */
};

/* ctx j of thread tid (j < per_thread, the count given to cht_locks_init: the
 * caller passes it again so that the hot path reads no cold field); NULL for
 * locks without a ctx. Hot paths test s->ctx first,
 *     s->ctx ? cht_locks_ctx(s, my_tid, 1, 0) : NULL
 * so that a ctx-less lock (pthread-mutex, ttas) costs no thread-local read:
 * given the tid as an argument, the compiler loads it before the test. */
static inline void *cht_locks_ctx(const struct cht_locks *s, unsigned tid, unsigned per_thread, unsigned j)
{
    assert(j < per_thread && (!s->lk || per_thread == s->per_thread));
    return s->ctx ? s->ctx + ((size_t)tid * per_thread + j) * s->cstride : NULL;
}

/* The lock_config a table's locks get (see the top of this file). */
static inline struct lock_config cht_lock_config(const struct cht_config *cfg, unsigned threads)
{
    struct lock_config lc = { .handoff_bound = CHT_LOCK_HANDOFF_DEFAULT,
                              .waiter_threshold = CHT_LOCK_WAITER_THRESHOLD_DEFAULT };
    if (cfg->lock_config) {
        lc.handoff_bound = cfg->lock_config->handoff_bound;
        lc.waiter_threshold = cfg->lock_config->waiter_threshold;
    }
    lc.numa_nodes = cfg->numa_nodes ? cfg->numa_nodes : 1;
    lc.max_threads = threads;
    return lc;
}

static inline size_t cht_locks_round(size_t bytes)
{
    return (bytes + CHT_CACHE_LINE - 1) & ~(size_t)(CHT_CACHE_LINE - 1);
}

/* Sets up n locks of lk and `per_thread` ctxs for each of `threads` (>= 1)
 * threads. False, with err set ("out of memory ...", or "--table TABLE: lock
 * NAME is too large") and *s left empty, when it cannot. */
static inline bool cht_locks_init(struct cht_locks *s, const struct lock_ops *lk, const struct cht_config *cfg,
                                  size_t n, unsigned threads, unsigned per_thread, const char *table,
                                  char *err, size_t len)
{
    memset(s, 0, sizeof *s);
    size_t ls = cht_locks_round(lk->lock_size), cs = cht_locks_round(lk->ctx_size);
    if (ls == 0)
        ls = CHT_CACHE_LINE;
    if (ls > UINT32_MAX || cs > UINT32_MAX || n > UINT32_MAX) {
        snprintf(err, len, "--table %s: lock %s is too large", table, lk->name);
        return false;
    }
    s->locks = cht_alloc_zeroed(ls * n);
    s->ctx = cs ? cht_alloc_zeroed(cs * per_thread * threads) : NULL;
    if (!s->locks || (cs && !s->ctx)) {
        snprintf(err, len, "out of memory (%zu locks of %zu bytes)", n, ls);
        free(s->locks);
        free(s->ctx);
        memset(s, 0, sizeof *s);
        return false;
    }
    s->lstride = ls;
    s->cstride = cs;
    s->n = (uint32_t)n;
    s->threads = threads;
    s->per_thread = per_thread;
    struct lock_config lc = cht_lock_config(cfg, threads);
    for (size_t i = 0; i < n; i++)
        lk->init(s->locks + i * ls, &lc);
    for (unsigned t = 0; cs && lk->ctx_init && t < threads; t++)
        for (unsigned j = 0; j < per_thread; j++)
            lk->ctx_init(cht_locks_ctx(s, t, per_thread, j), t, cfg->thread_node ? cfg->thread_node[t] : 0);
    s->lk = lk;
    return true;
}

/* Destroys the locks and frees everything; a no-op on an empty set. */
static inline void cht_locks_destroy(struct cht_locks *s)
{
    if (s->lk)
        for (size_t i = 0; i < s->n; i++)
            s->lk->destroy(s->locks + i * s->lstride);
    free(s->locks);
    free(s->ctx);
    memset(s, 0, sizeof *s);
}

/* lock i (the caller reduces its index to a stripe: i < n) */
static inline void *cht_locks_at(const struct cht_locks *s, size_t i)
{
    return s->locks + i * s->lstride;
}


static inline void cht_locks_lock(const struct cht_locks *s, size_t i, void *ctx)
{
    s->lk->lock(cht_locks_at(s, i), ctx);
}

static inline void cht_locks_unlock(const struct cht_locks *s, size_t i, void *ctx)
{
    s->lk->unlock(cht_locks_at(s, i), ctx);
}

/* shared mode of RW locks; the exclusive mode of the others */
static inline void cht_locks_read_lock(const struct cht_locks *s, size_t i, void *ctx)
{
    s->lk->read_lock(cht_locks_at(s, i), ctx);
}

static inline void cht_locks_read_unlock(const struct cht_locks *s, size_t i, void *ctx)
{
    s->lk->read_unlock(cht_locks_at(s, i), ctx);
}

/* bytes of locks and ctxs, for stats() */
static inline size_t cht_locks_bytes(const struct cht_locks *s)
{
    return (size_t)s->n * s->lstride + (size_t)s->threads * s->per_thread * s->cstride;
}

/* Adds the counters of every lock (stats) and every ctx (ctx_stats) to *ls. */
static inline void cht_locks_stats(const struct cht_locks *s, struct lock_stats *ls)
{
    if (!s->lk)
        return;
    for (size_t i = 0; s->lk->stats && i < s->n; i++) {
        struct lock_stats g = { 0 };
        s->lk->stats(cht_locks_at(s, i), &g);
        ls->acquisitions += g.acquisitions, ls->fallbacks += g.fallbacks;
        ls->tx_begins += g.tx_begins, ls->tx_commits += g.tx_commits, ls->tx_aborts += g.tx_aborts;
        ls->abort_conflict += g.abort_conflict, ls->abort_capacity += g.abort_capacity;
        ls->abort_explicit += g.abort_explicit, ls->abort_retry += g.abort_retry;
        ls->abort_other += g.abort_other;
    }
    for (unsigned t = 0; s->ctx && s->lk->ctx_stats && t < s->threads; t++)
        for (unsigned j = 0; j < s->per_thread; j++)
            s->lk->ctx_stats(cht_locks_ctx(s, t, s->per_thread, j), ls);
}

#endif /* CHT_TABLE_LOCKS_H */
