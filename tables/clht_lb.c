/*
 * clht_lb.c - CLHT-LB, the lock-based cache-line hash table.
 *
 * Source: T. David, R. Guerraoui, V. Trigonakis, "Asynchronized Concurrency:
 * The Secret to Scaling Concurrent Search Data Structures", ASPLOS 2015 (the
 * ASCY patterns and CLHT), as described in the 2017 thesis §3.2.1. Written
 * from the paper's description; no upstream code.
 *
 * Layout. A bucket is exactly one 64-byte cache line, 64-byte aligned:
 *   sync (8 B) | key[3] | val[3] | next.
 * Keys hash with cht_hash (option hash=fold|mix|identity, default fold) onto a
 * power-of-two array of buckets; a full chain grows by linking a new bucket
 * through `next`. Key 0 marks an empty slot. The head bucket's sync word holds
 * the chain's lock (bit 0) and, in every bucket of the chain, three 20-bit
 * per-slot removal counters (bits 4-23, 24-43, 44-63).
 *
 * Operations (the ASCY patterns of David et al., ASPLOS 2015, as the 2017
 * thesis §3.2.1 states them):
 *  - get (ASCY1) never writes, waits or retries: per bucket it compares the
 *    three keys (unrolled) and follows `next`; on a match in slot j it reads
 *    the bucket's sync word, the value, the key again and the sync word again.
 *    If the key is still k and slot j's removal counter did not move, the value
 *    belongs to k: the counter closes the ABA hole of the plain key/value/key
 *    snapshot (k removed, the slot reused by k2, then by k again while the
 *    reader sat between two loads would return k2's value). Otherwise k was
 *    removed during the read, so "absent" is a correct (linearizable) answer.
 *    A get makes no shared store at all (reclamation below).
 *  - insert/remove/update (ASCY2/3) first parse the chain with the same
 *    read-only search; an insert of a present key or a remove/update of an
 *    absent key returns without any shared write and without the lock. Otherwise
 *    the chain's lock is taken (a test-and-test-and-set spin lock in the head's
 *    sync word, yielding after a few spins), the chain re-checked and changed:
 *    insert writes value then key (release) into the first empty slot, or links
 *    a new bucket; remove clears the key and then bumps the slot's counter
 *    (folded into the unlocking store for the head bucket); update stores the
 *    new value in place (one atomic store: readers see the old or the new value).
 *    Locking goes through chain_lock()/chain_unlock() (below).
 *  - lock=NAME (any lock from locks/; CHT_CAP_LOCK_PARAM): the chain locks
 *    become LB_STRIPES (2048) external locks, chain i of the current table
 *    using stripe i mod 2048 (tables/table_locks.h: each on its own cache
 *    line, inited with the run's lock_config; stripes rather than one lock
 *    per bucket: cohort / NUMA locks are large or allocate in init, the stripes survive
 *    resizes unchanged, and 2048 keeps collisions rare at benchmark thread
 *    counts). The sync word then only carries the removal counters (bumped
 *    with a release store before the unlock). ctx: one per thread
 *    (table_locks.h), found through the __thread id
 *    set in thread_init: a thread never holds two stripes at once, so one
 *    ctx is enough - including during a resize (below). The default (no lock
 *    option) is untouched: insert/remove/update are always_inline templates
 *    instantiated twice with a constant `ext`; the public ops test h->locks.lk once
 *    (same cache line as h->cur) and call the built-in or the external copy.
 *  - resize: when the overflow buckets linked since the table was built exceed
 *    half the bucket count, one thread (resize_lock, try-only) takes every chain
 *    lock of the current table and keeps them: the table is frozen. It counts the
 *    keys, sizes the new table for 1.5 keys per bucket (0.5 per slot; never
 *    smaller than the old one, so a table grows by at least 2x when loaded and is
 *    rebuilt in place when the overflow came from skew), copies, and publishes it.
 *    Updaters spinning on a frozen chain see the new table and retry there;
 *    readers may keep reading the frozen table, whose state is the state at the
 *    moment of publication. If memory runs out during a resize the locks are
 *    released and the table keeps chaining (threshold doubled).
 *    With lock=NAME the resizer cannot hold all stripes (a queue lock needs a
 *    ctx per held lock), so it freezes instead: it sets T->frozen and then
 *    takes and releases each stripe once, one at a time, with its one ctx.
 *    An updater checks `frozen` right after taking its stripe; either it took
 *    the stripe before the resizer did (the resizer waits for its release,
 *    and sees its writes), or after (the lock hand-off orders the frozen store
 *    before its check: it releases the stripe without writing and waits until
 *    T is replaced, then retries on the new table). After the pass T is
 *    frozen exactly as with lock_all(); out of memory clears `frozen`.
 *
 * Progress: get never waits or retries (it loops only over the chain);
 * updates are blocking (per-chain lock), and all updates block while a resize
 * runs. The 20-bit removal counter could only be fooled by 2^20 removals from
 * one slot between two loads of one get.
 * Memory: the initial size is the power of two >= initial / density / 3
 * buckets; large bucket arrays are anonymous mappings (zeroed lazily).
 *
 * Reclamation: old tables (bucket arrays and overflow buckets) are retired to
 * quiescent-state-based reclamation (ebr.h, QSBR): a thread is online from
 * thread_init to thread_exit and announces a quiescent point at the start of
 * every QSBR_EVERY-th insert/remove/update (a thread-local countdown: one
 * decrement and branch, no shared access; the announcement itself is out of
 * line); a retired table is freed once every online thread has announced
 * since. get does no reclamation work at all: it compiles to the same code as
 * with reclamation compiled out. The price: a thread that only reads while
 * others resize holds the retired tables until it updates or goes offline
 * (thread_exit) - memory, never safety; with doubling resizes they add up to
 * less than the live table, and only updates retire anything. Build with
 * -DCHT_RECLAIM_EBR for the epoch scheme (enter/exit on every operation) or
 * -DCHT_RECLAIM_NONE (unsafe; no reclamation during a run) to measure what
 * reclamation costs. Overflow buckets are never unlinked while their table is
 * live, so nothing else needs reclaiming. destroy() frees everything.
 *
 * size(): per-thread, cache-line-padded counters (+1/-1 on successful
 * insert/remove), summed: exact when quiescent, no shared counter on the hot path.
 */
#include <sched.h>
#include <stdalign.h>
#include "cht.h"
#include "cht_env.h"
#include "cht_atomic.h"
#include "cht_hash.h"
#include "ebr.h"
#include "lock.h"
#include "table_support.h"
#include "table_locks.h"

#define LB_SLOTS 3
#define LB_LOCKED 1ull
#define LB_CNT_SHIFT(j) (4 + 20 * (unsigned)(j))
#define LB_CNT_MASK(j) (0xFFFFFull << LB_CNT_SHIFT(j))

struct lb_bucket {
    alignas(64) uint64_t sync;
    cht_key_t key[LB_SLOTS];
    cht_val_t val[LB_SLOTS];
    struct lb_bucket *next;
};
_Static_assert(sizeof(struct lb_bucket) == 64, "a bucket is one cache line");

struct clht_lb;

struct lb_table {
    struct lb_bucket *b;        /* nb buckets */
    uint64_t mask;              /* nb - 1 */
    size_t nb;
    size_t map_bytes;           /* bytes of the bucket array mapping */
    bool mmapped;
    struct lb_bucket *blk;      /* overflow buckets made by the resize copy */
    size_t blk_n;
    struct clht_lb *owner;
    size_t retired_bytes;
    struct ebr_node retire;
    uint32_t frozen;            /* lock=NAME only: set by the resizer (atomic) */
    bool write_steps;           /* --pipeline: a write past a chained head takes two steps (option write_steps) */
    alignas(64) uint64_t overflow;  /* overflow buckets linked (atomic; rare) */
    uint64_t thresh;            /* resize when overflow passes it (atomic) */
};

struct clht_lb {
    alignas(64) struct lb_table *cur;   /* read by every operation */
    enum cht_hash_kind hash;
    unsigned nthreads;
    struct reclaim *rc;         /* reclamation domain (ebr.h: QSBR by default) */
    struct cht_thread_counter *count;
    /* lock=NAME: LB_STRIPES locks, one ctx per thread; locks.lk NULL = built-in
     * TTAS in the sync word. lk, locks, lstride and ctx share the cache line of
     * cur; cstride (locks with ctxs only) is on the next, read-only line. */
    struct cht_locks locks;
    alignas(64) uint32_t resize_lock;
    uint64_t resizes;
    uint64_t full_failures;     /* inserts refused: out of memory for an overflow bucket */
    size_t retired_bytes;       /* old tables waiting for reclamation */
    bool hugepages;             /* cht_config.hugepages, for the tables a resize maps */
    uint64_t two_step_bytes;    /* option write_steps: a table of more bytes takes two (0: always, max: never) */
};

static __thread unsigned lb_tid __attribute__((tls_model("initial-exec")));

static const struct cht_option_spec lb_options[] = {
    { "lock", "any lock from --list=locks as the chain locks (2048 stripes; default: TTAS in the bucket)" },
    CHT_HASH_OPTION,
    { "write_steps", "0|1|2: steps a --pipeline write takes where its key is not in its head bucket and an overflow "
                     "bucket follows (default 0: 2 where the buckets take more than 16 times the core's L2 cache, "
                     "else 1)" },
    { NULL, NULL },
};

/* ---------------- small helpers ---------------- */

/* pause; every 64th spin yields instead (oversubscribed runs: let the holder run) */
static inline void spin_wait(unsigned *spins)
{
    cht_spin_yield(spins, 64);
}

/* Buckets per table are capped at 2^34 (1 TiB): anything larger is refused. */
#define LB_MAX_BUCKETS (1ull << 34)

static struct lb_table *table_new(size_t nb, bool huge, uint64_t two_step_bytes)
{
    if (nb == 0 || nb > LB_MAX_BUCKETS)
        return NULL;
    struct lb_table *T = cht_alloc_zeroed(sizeof *T);
    if (!T)
        return NULL;
    size_t bytes = nb * sizeof(struct lb_bucket);
    T->b = cht_alloc_large(bytes, huge, &T->mmapped);
    if (!T->b) {
        free(T);
        return NULL;
    }
    T->map_bytes = bytes;
    T->nb = nb;
    T->mask = nb - 1;
    T->thresh = nb / 2 ? nb / 2 : 1;
    T->write_steps = bytes > two_step_bytes;
    return T;
}

static void table_free(struct lb_table *T)
{
    struct lb_bucket *lo = T->blk, *hi = T->blk + T->blk_n;
    for (size_t i = 0; i < T->nb; i++) {
        struct lb_bucket *o = T->b[i].next;
        while (o) {
            struct lb_bucket *n = o->next;
            if (o < lo || o >= hi)
                free(o);
            o = n;
        }
    }
    free(T->blk);
    cht_free_large(T->b, T->map_bytes, T->mmapped);
    free(T);
}

static size_t table_bytes(struct lb_table *T)
{
    return sizeof *T + T->map_bytes + CHT_LD(&T->overflow, RELAXED) * sizeof(struct lb_bucket);
}

static void table_free_node(struct ebr_node *n)
{
    struct lb_table *T = (struct lb_table *)((char *)n - offsetof(struct lb_table, retire));
    __atomic_sub_fetch(&T->owner->retired_bytes, T->retired_bytes, __ATOMIC_RELAXED);
    table_free(T);
}

static inline uint64_t cnt_bump(uint64_t s, unsigned j)
{
    uint64_t m = LB_CNT_MASK(j);
    return (s & ~m) | ((s + (1ull << LB_CNT_SHIFT(j))) & m);
}

/* ---------------- the chain lock (swap here for lock=NAME) ---------------- */

/* Takes the chain lock of `head` in table T; returns false, without the lock,
 * once T has been replaced by a resize (the caller retries on the new table). */
static inline bool lb_lock(struct clht_lb *h, struct lb_table *T, struct lb_bucket *head)
{
    unsigned spins = 0;
    for (;;) {
        uint64_t s = CHT_LD(&head->sync, RELAXED);
        if (!(s & LB_LOCKED)) {
            if (__atomic_compare_exchange_n(&head->sync, &s, s | LB_LOCKED, false,
                                            __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return true;
            continue;
        }
        if (CHT_LD(&h->cur, ACQUIRE) != T)
            return false;
        spin_wait(&spins);
    }
}

/* Unlocks; bump_slot < LB_SLOTS also bumps that head slot's removal counter
 * (after the caller's key store, which the release orders before it). */
static inline void lb_unlock(struct lb_bucket *head, unsigned bump_slot)
{
    uint64_t s = CHT_LD(&head->sync, RELAXED) & ~LB_LOCKED;
    if (bump_slot < LB_SLOTS)
        s = cnt_bump(s, bump_slot);
    CHT_ST(&head->sync, s, RELEASE);
}

static void lock_all(struct lb_table *T)
{
    for (size_t i = 0; i < T->nb; i++) {
        struct lb_bucket *head = &T->b[i];
        unsigned spins = 0;
        for (;;) {
            uint64_t s = CHT_LD(&head->sync, RELAXED);
            if (!(s & LB_LOCKED) &&
                __atomic_compare_exchange_n(&head->sync, &s, s | LB_LOCKED, false,
                                            __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                break;
            spin_wait(&spins);
        }
    }
}

static void unlock_all(struct lb_table *T)
{
    for (size_t i = 0; i < T->nb; i++)
        lb_unlock(&T->b[i], LB_SLOTS);
}

/* ---------------- external chain locks (lock=NAME) ---------------- */

#define LB_STRIPES 2048u            /* power of two */

static inline void *lbx_stripe(const struct clht_lb *h, uint64_t idx)
{
    return cht_locks_at(&h->locks, idx & (LB_STRIPES - 1));
}

static inline void *lbx_ctx(const struct clht_lb *h)
{
    return h->locks.ctx ? cht_locks_ctx(&h->locks, lb_tid, 1, 0) : NULL;   /* no tid read without ctxs */
}

/* Takes the stripe of chain idx of T; false (without it) once T was replaced.
 * A frozen T (resize in progress) is waited out without holding the stripe. */
static bool lbx_lock(struct clht_lb *h, struct lb_table *T, uint64_t idx, void *ctx)
{
    void *l = lbx_stripe(h, idx);
    for (;;) {
        h->locks.lk->lock(l, ctx);
        if (!CHT_LD(&T->frozen, ACQUIRE))
            return true;
        h->locks.lk->unlock(l, ctx);
        unsigned spins = 0;
        while (CHT_LD(&h->cur, ACQUIRE) == T && CHT_LD(&T->frozen, ACQUIRE))
            spin_wait(&spins);
        if (CHT_LD(&h->cur, ACQUIRE) != T)
            return false;
    }
}

/* Freezes T: after the pass no updater is inside a critical section on T and
 * every later one sees `frozen` (it takes a stripe after we released it). */
static void lbx_freeze(struct clht_lb *h, struct lb_table *T)
{
    void *ctx = lbx_ctx(h);
    CHT_ST(&T->frozen, 1, RELEASE);
    size_t n = T->nb < LB_STRIPES ? T->nb : LB_STRIPES;
    for (size_t i = 0; i < n; i++) {
        cht_locks_lock(&h->locks, i, ctx);
        cht_locks_unlock(&h->locks, i, ctx);
    }
}

/* The chain lock as the operations see it; `ext` is a compile-time constant
 * in each instantiation, so the default path compiles to the code above. */
static inline __attribute__((always_inline)) bool
chain_lock(struct clht_lb *h, struct lb_table *T, struct lb_bucket *head, uint64_t idx, void *ctx,
           const bool ext)
{
    if (!ext)
        return lb_lock(h, T, head);
    return lbx_lock(h, T, idx, ctx);
}

static inline __attribute__((always_inline)) void
chain_unlock(struct clht_lb *h, struct lb_bucket *head, uint64_t idx, void *ctx, unsigned bump_slot,
             const bool ext)
{
    if (!ext) {
        lb_unlock(head, bump_slot);
        return;
    }
    if (bump_slot < LB_SLOTS)
        CHT_ST(&head->sync, cnt_bump(CHT_LD(&head->sync, RELAXED), bump_slot), RELEASE);
    h->locks.lk->unlock(lbx_stripe(h, idx), ctx);
}

/* ---------------- search (ASCY1) ---------------- */

/* Slot j of b held k at our first look: read the value and validate it (the
 * key still k and slot j's removal counter unchanged around the value read).
 * The sync word is read only here, on a hit: a removal clears the key before
 * it bumps the counter and holds the chain lock across both, so a removal
 * that overlaps [s1, s2] is seen either in the counter or in the re-read key. */
static inline __attribute__((always_inline)) bool
lb_slot_read(const struct lb_bucket *b, const unsigned j, cht_key_t k, cht_val_t *out)
{
    uint64_t s1 = CHT_LD(&b->sync, ACQUIRE);
    cht_val_t v = CHT_LD(&b->val[j], ACQUIRE);
    if (CHT_LD(&b->key[j], ACQUIRE) != k)
        return false;           /* removed while we read: absent at that moment */
    uint64_t s2 = CHT_LD(&b->sync, ACQUIRE);
    if ((s1 ^ s2) & LB_CNT_MASK(j))
        return false;           /* removed (and maybe re-added) meanwhile */
    if (out)
        *out = v;
    return true;
}

/* The read-only search: per bucket the three keys, unrolled (the paper's
 * loop over ENTRIES_PER_BUCKET), then `next`. */
static inline __attribute__((always_inline)) bool
lb_search(const struct lb_bucket *b, cht_key_t k, cht_val_t *out)
{
    _Static_assert(LB_SLOTS == 3, "the scan below is unrolled for 3 slots");
    do {
        if (CHT_LD(&b->key[0], ACQUIRE) == k)
            return lb_slot_read(b, 0, k, out);
        if (CHT_LD(&b->key[1], ACQUIRE) == k)
            return lb_slot_read(b, 1, k, out);
        if (CHT_LD(&b->key[2], ACQUIRE) == k)
            return lb_slot_read(b, 2, k, out);
        b = CHT_LD(&b->next, ACQUIRE);
    } while (b);
    return false;
}

/* ---------------- create / destroy / threads ---------------- */

static void lb_destroy(void *tp);

static void *lb_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    uint64_t write_steps = 0;
    if (!cht_option_enum(cfg->options, "clht-lb", "hash", cht_hash_names, &hash, err, len) ||
        !cht_option_uint(cfg->options, "clht-lb", "write_steps", 0, 2, &write_steps, err, len))
        return NULL;
    uint64_t nb = cht_initial_buckets(cfg, LB_SLOTS, LB_MAX_BUCKETS, err, len);
    if (!nb)
        return NULL;
    unsigned threads = cfg->max_threads ? cfg->max_threads : 1;

    struct clht_lb *h = cht_alloc_zeroed(sizeof *h);
    if (!h) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    h->hash = hash;
    h->two_step_bytes = write_steps == 2 ? 0 : write_steps == 1 ? UINT64_MAX : cht_pipe_far_bytes();
    h->nthreads = threads;
    h->count = cht_thread_counters_new(threads);
    h->rc = reclaim_create(threads);
    h->hugepages = cfg->hugepages;
    struct lb_table *T = table_new(nb, h->hugepages, h->two_step_bytes);
    if (!h->count || !h->rc || !T) {
        snprintf(err, len, "out of memory (%llu buckets of 64 bytes)", (unsigned long long)nb);
        free(h->count);
        reclaim_destroy(h->rc);
        if (T)
            table_free(T);
        free(h);
        return NULL;
    }
    T->owner = h;
    h->cur = T;
    /* lock=NAME: LB_STRIPES locks; a thread holds one stripe at a time, so one ctx each */
    if (cfg->lock && !cht_locks_init(&h->locks, cfg->lock, cfg, LB_STRIPES, threads, 1, "clht-lb", err, len)) {
        lb_destroy(h);
        return NULL;
    }
    return h;
}

static void lb_destroy(void *tp)
{
    struct clht_lb *h = tp;
    reclaim_destroy(h->rc);            /* frees retired tables */
    table_free(h->cur);
    cht_locks_destroy(&h->locks);
    free(h->count);
    free(h);
}

static void lb_thread_init(void *tp, unsigned tid)
{
    struct clht_lb *h = tp;
    lb_tid = cht_thread_slot(tid, h->nthreads);
    reclaim_thread_init(h->rc, lb_tid);
}

static void lb_thread_exit(void *tp, unsigned tid)
{
    struct clht_lb *h = tp;
    (void)tid;
    reclaim_thread_exit(h->rc, lb_tid);
}

/* ---------------- resize ---------------- */

/* per chain of the new table: key count (pass 1), then last bucket (copy) */
union lb_aux {
    uint64_t n;
    struct lb_bucket *tail;
};

static void lb_resize(struct clht_lb *h, struct lb_table *seen)
{
    uint32_t unlocked = 0;
    if (!__atomic_compare_exchange_n(&h->resize_lock, &unlocked, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return;                     /* someone else is resizing */
    struct lb_table *T = CHT_LD(&h->cur, ACQUIRE);
    if (T != seen) {
        CHT_ST(&h->resize_lock, 0, RELEASE);
        return;
    }
    if (h->locks.lk)
        lbx_freeze(h, T);           /* T is frozen from here on */
    else
        lock_all(T);

    size_t n = 0;
    for (size_t i = 0; i < T->nb; i++)
        for (struct lb_bucket *b = &T->b[i]; b; b = CHT_LD(&b->next, RELAXED))
            for (unsigned j = 0; j < LB_SLOTS; j++)
                n += CHT_LD(&b->key[j], RELAXED) != 0;
    uint64_t nb = cht_pow2_at_least((n * 2 + 2) / 3, 1);   /* 1.5 keys per bucket */
    if (nb < T->nb)
        nb = T->nb;
    struct lb_table *N = table_new(nb, h->hugepages, h->two_step_bytes);
    union lb_aux *aux = N ? calloc(nb, sizeof *aux) : NULL;
    if (!aux)
        goto fail;
    for (size_t i = 0; i < T->nb; i++)
        for (struct lb_bucket *b = &T->b[i]; b; b = CHT_LD(&b->next, RELAXED))
            for (unsigned j = 0; j < LB_SLOTS; j++) {
                cht_key_t k = CHT_LD(&b->key[j], RELAXED);
                if (k)
                    aux[cht_hash(h->hash, k) & N->mask].n++;
            }
    size_t ovf = 0;
    for (size_t i = 0; i < nb; i++)
        ovf += aux[i].n ? (aux[i].n - 1) / LB_SLOTS : 0;
    if (ovf) {
        N->blk = cht_alloc_zeroed(ovf * sizeof *N->blk);
        if (!N->blk)
            goto fail;
        N->blk_n = ovf;
    }
    /* copy: N is private until published, plain stores are fine */
    for (size_t i = 0; i < nb; i++)
        aux[i].tail = &N->b[i];
    size_t used = 0;
    for (size_t i = 0; i < T->nb; i++)
        for (struct lb_bucket *b = &T->b[i]; b; b = CHT_LD(&b->next, RELAXED))
            for (unsigned j = 0; j < LB_SLOTS; j++) {
                cht_key_t k = CHT_LD(&b->key[j], RELAXED);
                if (!k)
                    continue;
                uint64_t x = cht_hash(h->hash, k) & N->mask;
                struct lb_bucket *t = aux[x].tail;
                unsigned s = 0;
                while (s < LB_SLOTS && t->key[s])
                    s++;
                if (s == LB_SLOTS) {
                    struct lb_bucket *o = &N->blk[used++];
                    t->next = o;
                    aux[x].tail = t = o;
                    s = 0;
                }
                t->key[s] = k;
                t->val[s] = CHT_LD(&b->val[j], RELAXED);
            }
    free(aux);
    N->overflow = ovf;
    N->thresh = (nb / 2 ? nb / 2 : 1) + ovf;
    N->owner = h;
    T->retired_bytes = table_bytes(T);
    __atomic_add_fetch(&h->retired_bytes, T->retired_bytes, __ATOMIC_RELAXED);
    CHT_ST(&h->cur, N, RELEASE);             /* publish; spinning updaters move over */
    __atomic_add_fetch(&h->resizes, 1, __ATOMIC_RELAXED);
    CHT_ST(&h->resize_lock, 0, RELEASE);
    reclaim_retire(h->rc, &T->retire, table_free_node);
    return;

fail:                               /* out of memory: keep chaining in T */
    free(aux);
    if (N)
        table_free(N);
    __atomic_store_n(&T->thresh, CHT_LD(&T->thresh, RELAXED) * 2, __ATOMIC_RELAXED);
    if (h->locks.lk)
        CHT_ST(&T->frozen, 0, RELEASE);
    else
        unlock_all(T);
    CHT_ST(&h->resize_lock, 0, RELEASE);
}

/* ---------------- operations ---------------- */

static inline __attribute__((always_inline)) bool lb_get_impl(struct clht_lb *h, cht_key_t k, cht_val_t *v)
{
#if CHTBENCH_INJECT_GET_DELAY
    /* Test-only fixed extra cost (meson -Dinject_get_delay=N, docs/perfcheck.md): N rounds of a
     * dependent multiply-add chain; the test hook CHTBENCH_TEST_INJECT_GET_DELAY=M overrides N. */
    {
        static unsigned inj_n;                  /* rounds + 1; 0 = not read yet */
        unsigned n = __atomic_load_n(&inj_n, __ATOMIC_RELAXED);
        if (!n) {
            const struct cht_env *e = cht_env();
            n = 1 + (e->inject_get_delay_set ? e->inject_get_delay : CHTBENCH_INJECT_GET_DELAY);
            __atomic_store_n(&inj_n, n, __ATOMIC_RELAXED);
        }
        uint64_t x = k;
        for (unsigned i = 1; i < n; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            __asm__ volatile("" : "+r"(x));
        }
    }
#endif
    uint64_t hv = cht_hash(h->hash, k);
    reclaim_begin(h->rc, lb_tid);
    struct lb_table *T = CHT_LD(&h->cur, ACQUIRE);
    bool found = lb_search(&T->b[hv & T->mask], k, v);
    reclaim_end(h->rc, lb_tid);
    return found;
}

/* Every QSBR_EVERY update operations of a thread: announce a quiescent point
 * (ebr.h). get does no reclamation work at all (see the top comment). */
static __attribute__((noinline, cold)) void lb_quiescent(struct clht_lb *h)
{
    reclaim_quiescent(h->rc, lb_tid);
}

static bool lb_get(void *tp, cht_key_t k, cht_val_t *v)
{
    return lb_get_impl(tp, k, v);
}

/* --batch: hash every key and prefetch its bucket (one cache line) before
 * resolving any, so the n misses overlap (DRAMHiT, EuroSys'23); then the n
 * searches run on (mostly) cached buckets. One table snapshot for all. */
static void lb_get_batch(void *tp, const cht_key_t *keys, size_t n, cht_val_t *vals, bool *found)
{
    struct clht_lb *h = tp;
    uint64_t hv[CHT_BATCH_MAX];
    reclaim_begin(h->rc, lb_tid);
    struct lb_table *T = CHT_LD(&h->cur, ACQUIRE);
    for (size_t i = 0; i < n; i++) {
        hv[i] = cht_hash(h->hash, keys[i]);
        __builtin_prefetch(&T->b[hv[i] & T->mask]);
    }
    for (size_t i = 0; i < n; i++)
        found[i] = lb_search(&T->b[hv[i] & T->mask], keys[i], &vals[i]);
    reclaim_end(h->rc, lb_tid);
}

static inline bool lb_insert_hashed(struct clht_lb *h, cht_key_t k, cht_val_t v, uint64_t hv);
static inline bool lb_remove_hashed(struct clht_lb *h, cht_key_t k, uint64_t hv);
static inline bool lb_update_hashed(struct clht_lb *h, cht_key_t k, cht_val_t v, uint64_t hv);

/* --pipeline (cht.h pipe_start/pipe_step). Start: the hash into the op's
 * state and a prefetch of k's bucket line, where every op on k starts (its
 * lock word, keys and values share that line), for ownership when the op
 * will lock it. Inside a read-side section because T may be retired by a
 * resize meanwhile; no pointer outlives it (a step recomputes the bucket from
 * the current table: a resize in between only wastes the prefetch). */
static inline __attribute__((always_inline)) void lb_pipe_start_one(void *tp, struct cht_pipe_op *op)
{
    struct clht_lb *h = tp;
    uint64_t hv = cht_hash(h->hash, op->key);
    op->state[0] = hv;
    reclaim_begin(h->rc, lb_tid);
    struct lb_table *T = CHT_LD(&h->cur, ACQUIRE);
    const struct lb_bucket *b = &T->b[hv & T->mask];
    if (op->kind == CHT_PIPE_GET)
        __builtin_prefetch(b);
    else
        __builtin_prefetch(b, 1);
    reclaim_end(h->rc, lb_tid);
}

/* A write's first step: true where its key is not in the head bucket and the
 * head has an overflow bucket, which the ordinary operation would then read
 * (lb_search before the lock: an insert's whole chain, a remove's up to its
 * key), a dependent miss. That bucket is prefetched, for ownership, and the
 * op comes back for the ordinary operation a turn later. Loads only: the op
 * has not taken effect, and its second step is the whole operation. Only
 * where the buckets lie out of the caches (T->write_steps): there it spares
 * a miss (2.2-2.6% of the writes at i = 16M, -u 50 1.04x; i = 1M 1.14x),
 * in them the extra step costs more (i = 64K 0.92x; pipeline.md). */
static inline __attribute__((always_inline)) bool lb_pipe_write_chained(struct clht_lb *h,
                                                                       const struct cht_pipe_op *op)
{
    const cht_key_t k = op->key;
    reclaim_begin(h->rc, lb_tid);
    const struct lb_table *T = CHT_LD(&h->cur, ACQUIRE);
    const struct lb_bucket *b = &T->b[op->state[0] & T->mask];
    const struct lb_bucket *next = CHT_LD(&b->next, ACQUIRE);
    const bool chained = T->write_steps && next && CHT_LD(&b->key[0], RELAXED) != k && CHT_LD(&b->key[1], RELAXED) != k &&
                         CHT_LD(&b->key[2], RELAXED) != k;
    if (chained)
        __builtin_prefetch(next, 1);
    reclaim_end(h->rc, lb_tid);
    return chained;
}

/* A get's first step searches the head bucket only: a hit, or a miss with no
 * overflow bucket, ends it exactly as lb_search would; a miss with an
 * overflow bucket prefetches that one and comes back for the whole search
 * (the head is still cached), so the chain's dependent miss overlaps other
 * ops instead of stalling this one. Writers run the ordinary operation with
 * the start's hash, in a second step where the chain goes past the head
 * (lb_pipe_write_chained). */
static inline __attribute__((always_inline)) int lb_pipe_step_one(void *tp, struct cht_pipe_op *op)
{
    struct clht_lb *h = tp;
    const cht_key_t k = op->key;
    if (__builtin_expect(op->kind != CHT_PIPE_GET, 0)) {
        if (op->stage == 0 && lb_pipe_write_chained(h, op))
            return CHT_PIPE_AGAIN;
        if (op->kind == CHT_PIPE_INSERT)
            return lb_insert_hashed(h, k, op->val, op->state[0]);
        if (op->kind == CHT_PIPE_REMOVE)
            return lb_remove_hashed(h, k, op->state[0]);
        return lb_update_hashed(h, k, op->val, op->state[0]);
    }
    const uint64_t hv = op->state[0];
    int r;
    reclaim_begin(h->rc, lb_tid);
    struct lb_table *T = CHT_LD(&h->cur, ACQUIRE);
    const struct lb_bucket *b = &T->b[hv & T->mask];
    if (op->stage == 0) {
        if (CHT_LD(&b->key[0], ACQUIRE) == k)
            r = lb_slot_read(b, 0, k, &op->val);
        else if (CHT_LD(&b->key[1], ACQUIRE) == k)
            r = lb_slot_read(b, 1, k, &op->val);
        else if (CHT_LD(&b->key[2], ACQUIRE) == k)
            r = lb_slot_read(b, 2, k, &op->val);
        else {
            const struct lb_bucket *next = CHT_LD(&b->next, ACQUIRE);
            r = next ? CHT_PIPE_AGAIN : 0;
            if (next)
                __builtin_prefetch(next);
        }
    } else {
        r = lb_search(b, k, &op->val);
    }
    reclaim_end(h->rc, lb_tid);
    return r;
}

CHT_PIPE_BATCH_HOOKS(lb_pipe_start, lb_pipe_step, lb_pipe_start_one, lb_pipe_step_one)

static inline __attribute__((always_inline)) bool
lb_insert_impl(struct clht_lb *h, cht_key_t k, cht_val_t v, const bool ext, const uint64_t hv)
{
    unsigned tid = lb_tid;
    void *ctx = ext ? lbx_ctx(h) : NULL;
    bool ok = false, grow = false;
    struct lb_table *T;
    reclaim_begin(h->rc, tid);
    for (;;) {
        T = CHT_LD(&h->cur, ACQUIRE);
        struct lb_bucket *head = &T->b[hv & T->mask];
        if (lb_search(head, k, NULL))
            break;                              /* present: no write, no lock */
        if (!chain_lock(h, T, head, hv & T->mask, ctx, ext))
            continue;                           /* table replaced: retry there */
        struct lb_bucket *b = head, *last = head, *eb = NULL;
        unsigned ej = 0;
        bool present = false;
        do {
            for (unsigned j = 0; j < LB_SLOTS; j++) {
                cht_key_t kk = CHT_LD(&b->key[j], RELAXED);
                if (kk == k)
                    present = true;
                else if (kk == 0 && !eb) {
                    eb = b;
                    ej = j;
                }
            }
            last = b;
            b = CHT_LD(&b->next, RELAXED);
        } while (b && !present);
        if (present) {
            chain_unlock(h, head, hv & T->mask, ctx, LB_SLOTS, ext);
            break;
        }
        if (eb) {
            CHT_ST(&eb->val[ej], v, RELEASE);
            CHT_ST(&eb->key[ej], k, RELEASE);            /* publishes the pair */
            chain_unlock(h, head, hv & T->mask, ctx, LB_SLOTS, ext);
            ok = true;
            break;
        }
        struct lb_bucket *o = cht_alloc_zeroed(sizeof *o);
        if (!o) {
            chain_unlock(h, head, hv & T->mask, ctx, LB_SLOTS, ext);
            __atomic_add_fetch(&h->full_failures, 1, __ATOMIC_RELAXED);
            break;
        }
        o->key[0] = k;
        o->val[0] = v;
        CHT_ST(&last->next, o, RELEASE);
        chain_unlock(h, head, hv & T->mask, ctx, LB_SLOTS, ext);
        grow = __atomic_add_fetch(&T->overflow, 1, __ATOMIC_RELAXED) > CHT_LD(&T->thresh, RELAXED);
        ok = true;
        break;
    }
    if (ok)
        cht_thread_counter_add(&h->count[tid].n, 1);
    reclaim_end(h->rc, tid);
    if (grow)
        lb_resize(h, T);
    return ok;
}

static inline __attribute__((always_inline)) bool
lb_remove_impl(struct clht_lb *h, cht_key_t k, const bool ext, const uint64_t hv)
{
    unsigned tid = lb_tid;
    void *ctx = ext ? lbx_ctx(h) : NULL;
    bool ok = false;
    reclaim_begin(h->rc, tid);
    for (;;) {
        struct lb_table *T = CHT_LD(&h->cur, ACQUIRE);
        struct lb_bucket *head = &T->b[hv & T->mask];
        if (!lb_search(head, k, NULL))
            break;                              /* absent: no write, no lock */
        if (!chain_lock(h, T, head, hv & T->mask, ctx, ext))
            continue;
        for (struct lb_bucket *b = head; b && !ok; b = CHT_LD(&b->next, RELAXED))
            for (unsigned j = 0; j < LB_SLOTS; j++)
                if (CHT_LD(&b->key[j], RELAXED) == k) {
                    CHT_ST(&b->key[j], 0, RELAXED);
                    if (b == head) {
                        chain_unlock(h, head, hv & T->mask, ctx, j, ext);     /* counter bump rides on the unlock */
                    } else {
                        CHT_ST(&b->sync, cnt_bump(CHT_LD(&b->sync, RELAXED), j), RELEASE);
                        chain_unlock(h, head, hv & T->mask, ctx, LB_SLOTS, ext);
                    }
                    ok = true;
                    break;
                }
        if (!ok)
            chain_unlock(h, head, hv & T->mask, ctx, LB_SLOTS, ext);
        break;
    }
    if (ok)
        cht_thread_counter_add(&h->count[tid].n, -1);
    reclaim_end(h->rc, tid);
    return ok;
}

static inline __attribute__((always_inline)) bool
lb_update_impl(struct clht_lb *h, cht_key_t k, cht_val_t v, const bool ext, const uint64_t hv)
{
    unsigned tid = lb_tid;
    void *ctx = ext ? lbx_ctx(h) : NULL;
    bool ok = false;
    reclaim_begin(h->rc, tid);
    for (;;) {
        struct lb_table *T = CHT_LD(&h->cur, ACQUIRE);
        struct lb_bucket *head = &T->b[hv & T->mask];
        if (!lb_search(head, k, NULL))
            break;
        if (!chain_lock(h, T, head, hv & T->mask, ctx, ext))
            continue;
        for (struct lb_bucket *b = head; b && !ok; b = CHT_LD(&b->next, RELAXED))
            for (unsigned j = 0; j < LB_SLOTS; j++)
                if (CHT_LD(&b->key[j], RELAXED) == k) {
                    CHT_ST(&b->val[j], v, RELEASE);
                    ok = true;
                    break;
                }
        chain_unlock(h, head, hv & T->mask, ctx, LB_SLOTS, ext);
        break;
    }
    reclaim_end(h->rc, tid);
    return ok;
}

/* The writes with k's hash hv: the ordinary operation's, or a pipelined op's
 * from its start (lb_pipe_start_one), so its step does not hash k again */
static __attribute__((noinline)) bool lb_insert_ext(struct clht_lb *h, cht_key_t k, cht_val_t v, uint64_t hv)
{
    return lb_insert_impl(h, k, v, true, hv);
}

static inline __attribute__((always_inline)) bool lb_insert_hashed(struct clht_lb *h, cht_key_t k, cht_val_t v,
                                                                   uint64_t hv)
{
    if (reclaim_due())
        lb_quiescent(h);
    if (__builtin_expect(h->locks.lk != NULL, 0))
        return lb_insert_ext(h, k, v, hv);
    return lb_insert_impl(h, k, v, false, hv);
}

static __attribute__((noinline)) bool lb_remove_ext(struct clht_lb *h, cht_key_t k, uint64_t hv)
{
    return lb_remove_impl(h, k, true, hv);
}

static inline __attribute__((always_inline)) bool lb_remove_hashed(struct clht_lb *h, cht_key_t k, uint64_t hv)
{
    if (reclaim_due())
        lb_quiescent(h);
    if (__builtin_expect(h->locks.lk != NULL, 0))
        return lb_remove_ext(h, k, hv);
    return lb_remove_impl(h, k, false, hv);
}

static __attribute__((noinline)) bool lb_update_ext(struct clht_lb *h, cht_key_t k, cht_val_t v, uint64_t hv)
{
    return lb_update_impl(h, k, v, true, hv);
}

static inline __attribute__((always_inline)) bool lb_update_hashed(struct clht_lb *h, cht_key_t k, cht_val_t v,
                                                                   uint64_t hv)
{
    if (reclaim_due())
        lb_quiescent(h);
    if (__builtin_expect(h->locks.lk != NULL, 0))
        return lb_update_ext(h, k, v, hv);
    return lb_update_impl(h, k, v, false, hv);
}

static bool lb_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct clht_lb *h = tp;
    return lb_insert_hashed(h, k, v, cht_hash(h->hash, k));
}

static bool lb_remove(void *tp, cht_key_t k)
{
    struct clht_lb *h = tp;
    return lb_remove_hashed(h, k, cht_hash(h->hash, k));
}

static bool lb_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct clht_lb *h = tp;
    return lb_update_hashed(h, k, v, cht_hash(h->hash, k));
}

static size_t lb_size(void *tp)
{
    struct clht_lb *h = tp;
    return cht_count_as_size(cht_thread_counters_sum(h->count, h->nthreads));
}

static void lb_stats(void *tp, struct cht_stats *s)
{
    struct clht_lb *h = tp;
    /* hold the resize lock so that the current table cannot be retired under us */
    unsigned spins = 0;
    uint32_t unlocked = 0;
    while (!__atomic_compare_exchange_n(&h->resize_lock, &unlocked, 1, false, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
        unlocked = 0;
        spin_wait(&spins);
    }
    struct lb_table *T = CHT_LD(&h->cur, ACQUIRE);
    s->bytes = sizeof *h + sizeof *h->count * h->nthreads + sizeof *h->rc +
               cht_locks_bytes(&h->locks) +
               sizeof *h->rc->slot * h->rc->nslots + table_bytes(T) +
               CHT_LD(&h->retired_bytes, RELAXED);
    s->buckets = T->nb;
    s->resizes = CHT_LD(&h->resizes, RELAXED);
    s->full_failures = CHT_LD(&h->full_failures, RELAXED);
    CHT_ST(&h->resize_lock, 0, RELEASE);
}

const struct cht_ops cht_table_clht_lb = {
    .name = "clht-lb",
    .summary = "CLHT-LB: cache-line buckets, wait-free reads, per-chain locks (David, Guerraoui, Trigonakis, \"Asynchronized Concurrency: The Secret to Scaling Concurrent Search Data Structures\", ASPLOS'15)",
    .caps = CHT_CAP_RESIZE | CHT_CAP_UPDATE | CHT_CAP_LOCK_PARAM,
    .options = lb_options,
    .create = lb_create,
    .destroy = lb_destroy,
    .thread_init = lb_thread_init,
    .thread_exit = lb_thread_exit,
    .get = lb_get,
    .get_batch = lb_get_batch,
    .pipe_start = lb_pipe_start,
    .pipe_step = lb_pipe_step,
    .insert = lb_insert,
    .remove = lb_remove,
    .update = lb_update,
    .size = lb_size,
    .stats = lb_stats,
};
