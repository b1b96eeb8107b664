/*
 * clht_rtm.c - CLHT buckets under ONE global lock from locks/, elided with
 * Intel RTM by default: the "CLHT + RTM-elided global lock" experiment of
 * the 2017 Hunan Univ. thesis, chapter 4 (§4.4/§4.5.3: the hash
 * table's per-bucket locks replaced by a single global lock whose critical
 * sections run as hardware transactions, compared over the six global-lock
 * variants MCS, slr-mcs, htm-retry, scm-ttas, slr-scm-mcs, scm-ttas-opt).
 * Own code; the bucket layout follows CLHT (David, Guerraoui, Trigonakis,
 * ASPLOS'15), see clht_lb.c, but nothing is shared with that file.
 *
 * Layout: power-of-two array of 64-byte, 64-byte-aligned buckets
 *   word (8 B, CLHT's lock word; unused here: the global lock replaces it) |
 *   key[3] | val[3] | next.
 * Key 0 = empty slot. Keys hash with cht_hash (option hash=mix|identity). A
 * full chain grows by linking a new bucket through `next`.
 *
 * Concurrency: EVERY operation - get included - is one critical section of
 * the global lock (option lock=NAME, default slr-scm-mcs): get takes it with
 * read_lock (an RW lock lets gets share it; the RTM locks map read_lock to
 * their elided lock), insert/remove/update with lock. Inside, the table is
 * accessed with plain loads and stores: with an RTM lock the critical
 * section is a transaction (conflict detection is the hardware's), with any
 * other lock it is mutual exclusion. The only shared writes outside the
 * buckets are per-thread, cache-line-padded key counters (size()) and, for
 * inserts that link an overflow bucket, the overflow count on its own cache
 * line (see struct clht_rtm), so two operations on different buckets never
 * conflict transactionally unless both link overflow buckets.
 *
 * The lock and the ctxs: tables/table_locks.h (one lock on its own 64-byte
 * line, one ctx per thread, inited with the run's lock_config); the calling
 * thread's ctx is found through a __thread id set in thread_init. A thread
 * never holds more than one lock, so one ctx per thread suffices.
 *
 * Resize protocol: the lock holder that links an overflow bucket and then
 * sees more than nb/2 overflow buckets in the table, or a chain longer than
 * CR_LONG_CHAIN buckets while the table has more than nb/16 overflow buckets
 * (bounding growth under skew), doubles the table right there, inside its
 * critical section: allocate, rehash, free the old buckets. Nobody else can
 * be looking at the table (everyone reads under the lock), so no epochs or
 * frozen states are needed. Inside a transaction the allocation/free (system
 * calls, large footprint) aborts it; the lock's fallback path then runs the
 * resize non-speculatively - the "capacity abort, then fallback" the thesis
 * describes. Out of memory: a failed resize keeps chaining; an overflow
 * bucket that cannot be allocated refuses the insert, counted in
 * stats.alloc_failures (the table has no capacity limit: never "full").
 *
 * stats(): bytes/buckets/resizes from fields mirrored with relaxed atomics;
 * tx_begins/commits/aborts and tx_fallbacks (= fallback acquisitions) are the
 * lock's stats() plus ctx_stats() of every thread's ctx (exact when quiescent).
 * available(): false without RTM (the default lock's own available() says
 * why); the registry runs clht-rtm:lock=NAME whenever NAME is available.
 */
#include <stdalign.h>
#include <stddef.h>
#include "cht.h"
#include "cht_atomic.h"
#include "cht_hash.h"
#include "lock.h"
#include "table_support.h"
#include "table_locks.h"

#define CR_SLOTS 3
#define CR_LONG_CHAIN 4                 /* buckets in one chain */
#define CR_MAX_BUCKETS (1ull << 34)

struct cr_bucket {
    alignas(64) uint64_t word;
    cht_key_t key[CR_SLOTS];
    cht_val_t val[CR_SLOTS];
    struct cr_bucket *next;
};
_Static_assert(sizeof(struct cr_bucket) == 64, "a bucket is one cache line");

/* Cache lines: every transaction reads line 1 (and the lock's own line);
 * nothing but a resize writes it. Shared writes of ordinary operations go to
 * line 2, which only the inserts that link an overflow bucket touch (they
 * read and write `overflow` for the resize check): before it had its own
 * line, `overflow++` shared line 1 and aborted every concurrent transaction
 * (issue 13: 12-18% aborts of begins instead of 1.5-3.5%). */
struct clht_rtm {
    /* line 1: read-mostly, read by every operation */
    alignas(64) struct cht_locks locks; /* the one lock (hot fields first) */
    struct cr_bucket *b;                /* nb buckets; under the lock */
    uint64_t mask;
    size_t nb;
    enum cht_hash_kind hash;
    unsigned nthreads;
    struct cht_thread_counter *count;   /* written by its thread under the lock */
    /* line 2: written under the lock by overflow-linking inserts and resizes;
     * read by them and by stats() (relaxed atomics) */
    alignas(64) size_t overflow;        /* overflow buckets linked */
    uint64_t st_resizes, st_buckets, st_alloc;
};
_Static_assert(offsetof(struct clht_rtm, overflow) / 64 != offsetof(struct clht_rtm, b) / 64 &&
               offsetof(struct clht_rtm, overflow) / 64 != offsetof(struct clht_rtm, count) / 64,
               "overflow (written by inserts) must not share the line every transaction reads");

static __thread unsigned cr_tid;

static const struct cht_option_spec cr_options[] = {
    { "lock", "the one global lock, any lock from --list=locks (default slr-scm-mcs, needs RTM)" },
    CHT_HASH_OPTION,
    { NULL, NULL },
};

static struct cr_bucket *buckets_new(size_t nb)
{
    if (nb == 0 || nb > CR_MAX_BUCKETS)
        return NULL;
    return cht_alloc_zeroed(nb * sizeof(struct cr_bucket));
}

static void buckets_free(struct cr_bucket *b, size_t nb)
{
    for (size_t i = 0; i < nb; i++)
        for (struct cr_bucket *o = b[i].next, *n; o; o = n) {
            n = o->next;
            free(o);
        }
    free(b);
}

static inline void *my_ctx(const struct clht_rtm *h)
{
    return h->locks.ctx ? cht_locks_ctx(&h->locks, cr_tid, 1, 0) : NULL;   /* no tid read without ctxs */
}

/* ---------------- create / destroy / threads ---------------- */

static void cr_destroy(void *tp)
{
    struct clht_rtm *h = tp;
    cht_locks_destroy(&h->locks);
    if (h->b)
        buckets_free(h->b, h->nb);
    free(h->count);
    free(h);
}

static void *cr_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    if (!cht_option_enum(cfg->options, "clht-rtm", "hash", cht_hash_names, &hash, err, len))
        return NULL;
    const struct lock_ops *lk = cfg->lock;      /* lock=NAME or .default_lock, from the registry */
    if (!lk) {
        snprintf(err, len, "--table clht-rtm: no lock given (the registry resolves .default_lock)");
        return NULL;
    }
    uint64_t nb = cht_initial_buckets(cfg, CR_SLOTS, CR_MAX_BUCKETS, err, len);
    if (!nb)
        return NULL;
    unsigned threads = cfg->max_threads ? cfg->max_threads : 1;

    struct clht_rtm *h = cht_alloc_zeroed(sizeof *h);
    if (!h) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    h->hash = hash;
    h->nthreads = threads;
    h->count = cht_thread_counters_new(threads);
    h->b = buckets_new(nb);
    if (!h->count || !h->b) {
        snprintf(err, len, "out of memory (%llu buckets of 64 bytes)", (unsigned long long)nb);
        cr_destroy(h);
        return NULL;
    }
    if (!cht_locks_init(&h->locks, lk, cfg, 1, threads, 1, "clht-rtm", err, len)) {
        cr_destroy(h);
        return NULL;
    }
    h->nb = nb;
    h->mask = nb - 1;
    CHT_ST(&h->st_buckets, nb, RELAXED);
    return h;
}

static void cr_thread_init(void *tp, unsigned tid)
{
    struct clht_rtm *h = tp;
    cr_tid = cht_thread_slot(tid, h->nthreads);    /* asserts tid < max_threads */
}

/* ---------------- under the lock ---------------- */

static inline struct cr_bucket *head_of(const struct clht_rtm *h, cht_key_t k)
{
    return &h->b[cht_hash(h->hash, k) & h->mask];
}

/* doubles the table (holder of the global lock only); false: out of memory */
static bool cr_grow(struct clht_rtm *h)
{
    size_t nb = h->nb * 2;
    struct cr_bucket *nbk = buckets_new(nb);
    if (!nbk)
        return false;
    uint64_t mask = nb - 1;
    size_t ovf = 0;
    for (size_t i = 0; i < h->nb; i++)
        for (struct cr_bucket *b = &h->b[i]; b; b = b->next)
            for (unsigned j = 0; j < CR_SLOTS; j++) {
                cht_key_t k = b->key[j];
                if (!k)
                    continue;
                struct cr_bucket *t = &nbk[cht_hash(h->hash, k) & mask];
                for (;;) {
                    unsigned s = 0;
                    while (s < CR_SLOTS && t->key[s])
                        s++;
                    if (s < CR_SLOTS) {
                        t->key[s] = k;
                        t->val[s] = b->val[j];
                        break;
                    }
                    if (!t->next) {
                        t->next = cht_alloc_zeroed(sizeof *t->next);
                        if (!t->next) {
                            buckets_free(nbk, nb);
                            return false;
                        }
                        ovf++;
                    }
                    t = t->next;
                }
            }
    buckets_free(h->b, h->nb);
    h->b = nbk;
    h->nb = nb;
    h->mask = mask;
    CHT_ST(&h->overflow, ovf, RELAXED);
    CHT_ST(&h->st_buckets, nb, RELAXED);
    CHT_ST(&h->st_resizes, CHT_LD(&h->st_resizes, RELAXED) + 1, RELAXED);
    return true;
}

/* ---------------- operations ---------------- */

static bool cr_get(void *tp, cht_key_t k, cht_val_t *v)
{
    struct clht_rtm *h = tp;
    void *ctx = my_ctx(h);
    bool found = false;
    h->locks.lk->read_lock(h->locks.locks, ctx);
    for (const struct cr_bucket *b = head_of(h, k); b && !found; b = b->next)
        for (unsigned j = 0; j < CR_SLOTS; j++)
            if (b->key[j] == k) {
                if (v)
                    *v = b->val[j];
                found = true;
                break;
            }
    h->locks.lk->read_unlock(h->locks.locks, ctx);
    return found;
}

static bool cr_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct clht_rtm *h = tp;
    void *ctx = my_ctx(h);
    bool ok = false;
    h->locks.lk->lock(h->locks.locks, ctx);
    struct cr_bucket *b = head_of(h, k), *last = b, *eb = NULL;
    unsigned ej = 0, chain = 0;
    for (; b; last = b, b = b->next) {
        chain++;
        for (unsigned j = 0; j < CR_SLOTS; j++) {
            if (b->key[j] == k)
                goto out;                       /* present */
            if (!b->key[j] && !eb) {
                eb = b;
                ej = j;
            }
        }
    }
    if (eb) {
        eb->val[ej] = v;
        eb->key[ej] = k;
        ok = true;
    } else {
        struct cr_bucket *o = cht_alloc_zeroed(sizeof *o);
        if (!o) {                               /* out of memory: refused, counted */
            CHT_ST(&h->st_alloc, CHT_LD(&h->st_alloc, RELAXED) + 1, RELAXED);
            goto out;
        }
        o->key[0] = k;
        o->val[0] = v;
        last->next = o;
        size_t ovf = CHT_LD(&h->overflow, RELAXED) + 1;
        CHT_ST(&h->overflow, ovf, RELAXED);
        ok = true;
        if (ovf > h->nb / 2 || (chain + 1 > CR_LONG_CHAIN && ovf > h->nb / 16))
            cr_grow(h);                         /* out of memory: keep chaining */
    }
    cht_thread_counter_add(&h->count[cr_tid].n, 1);
out:
    h->locks.lk->unlock(h->locks.locks, ctx);
    return ok;
}

static bool cr_remove(void *tp, cht_key_t k)
{
    struct clht_rtm *h = tp;
    void *ctx = my_ctx(h);
    bool ok = false;
    h->locks.lk->lock(h->locks.locks, ctx);
    for (struct cr_bucket *b = head_of(h, k); b && !ok; b = b->next)
        for (unsigned j = 0; j < CR_SLOTS; j++)
            if (b->key[j] == k) {
                b->key[j] = 0;
                b->val[j] = 0;
                ok = true;
                break;
            }
    if (ok)
        cht_thread_counter_add(&h->count[cr_tid].n, -1);
    h->locks.lk->unlock(h->locks.locks, ctx);
    return ok;
}

static bool cr_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct clht_rtm *h = tp;
    void *ctx = my_ctx(h);
    bool ok = false;
    h->locks.lk->lock(h->locks.locks, ctx);
    for (struct cr_bucket *b = head_of(h, k); b && !ok; b = b->next)
        for (unsigned j = 0; j < CR_SLOTS; j++)
            if (b->key[j] == k) {
                b->val[j] = v;
                ok = true;
                break;
            }
    h->locks.lk->unlock(h->locks.locks, ctx);
    return ok;
}

static size_t cr_size(void *tp)
{
    struct clht_rtm *h = tp;
    return cht_count_as_size(cht_thread_counters_sum(h->count, h->nthreads));
}

static void cr_stats(void *tp, struct cht_stats *s)
{
    struct clht_rtm *h = tp;
    size_t nb = CHT_LD(&h->st_buckets, RELAXED);
    s->bytes = sizeof *h + sizeof *h->count * h->nthreads + cht_locks_bytes(&h->locks) +
               (nb + CHT_LD(&h->overflow, RELAXED)) * sizeof(struct cr_bucket);
    s->buckets = nb;
    s->resizes = CHT_LD(&h->st_resizes, RELAXED);
    s->alloc_failures = CHT_LD(&h->st_alloc, RELAXED);
    struct lock_stats ls = { 0 };
    cht_locks_stats(&h->locks, &ls);
    s->tx_begins = ls.tx_begins;
    s->tx_commits = ls.tx_commits;
    s->tx_aborts = ls.tx_aborts;
    s->tx_fallbacks = ls.fallbacks;
}

const struct cht_ops cht_table_clht_rtm = {
    .name = "clht-rtm",
    .default_lock = "slr-scm-mcs",  /* needs RTM: without it the registry lists the table unavailable */
    .summary = "CLHT buckets under one global lock, RTM-elided by default (thesis \"Concurrent Hashing on Multi-core Systems\" (Hunan Univ., 2017) ch. 4)",
    .caps = CHT_CAP_LOCK_PARAM | CHT_CAP_NEEDS_RTM | CHT_CAP_RESIZE | CHT_CAP_UPDATE,
    .options = cr_options,
    .create = cr_create,
    .destroy = cr_destroy,
    .thread_init = cr_thread_init,
    .get = cr_get,
    .insert = cr_insert,
    .remove = cr_remove,
    .update = cr_update,
    .size = cr_size,
    .stats = cr_stats,
};
