/*
 * cuckoo_filter.c - a concurrent cuckoo filter: approximate set membership by
 * partial-key cuckoo hashing of fingerprints, the 2017 Hunan Univ. thesis,
 * chapter 5 (§5.2 structure and parameters, §5.3 the concurrent filter,
 * algorithms 5.5-5.7) after B. Fan, D. Andersen, M. Kaminsky, M. Mitzenmacher,
 * "Cuckoo filter: practically better than Bloom", CoNEXT'14. Own code.
 *
 * Structure ((2,4) by default, thesis §5.2.2): 2^n buckets of `ways` slots
 * (option ways=1|2|4|8, default 4). A key k is stored as an f-bit fingerprint
 * fp(k) in [1, 2^f - 1] (0 marks an empty slot), f = fp_bits=4..32 (default
 * 16; the thesis' experiments use 12-bit fingerprints: table 5.3, figures
 * 5.7-5.9), in one of its two candidate buckets (formula 5.24):
 *     i1 = hash(k) mod 2^n,   i2 = i1 XOR hash(fp) mod 2^n,
 * so the alternate bucket of a stored fingerprint follows from its current
 * bucket and the fingerprint alone (j = i XOR hash(fp)) - the fingerprint is
 * hashed before the XOR so that alternates spread over the whole table
 * (thesis line ~2056). The fingerprint comes from a second, independent key
 * hash (multiply-shift into 1..2^f-1, uniform), the bucket from the first.
 * Fingerprints are stored in 8-, 16- or 32-bit slots (the narrowest that
 * holds f bits), so bits/item = stats.bytes*8/size() counts the slot width,
 * not f: the thesis' CF packs 12-bit tags (12.58 bits/item at ~95% load).
 *
 * Contract behind the vtable (CHT_CAP_APPROXIMATE | CHT_CAP_FIXED_CAP):
 *  - insert(k) stores one more copy of fp(k) (the filter is a multiset of
 *    fingerprints, as in the thesis: two keys with the same fingerprint and
 *    buckets are both stored, at most 2*ways copies); it returns false only
 *    when no slot can be freed within `retries` kicks (the filter is full),
 *    and then counts stats.full_failures and changes nothing.
 *  - get(k) is true for every key inserted and not removed (no false
 *    negatives, also under concurrency) and may be true for other keys
 *    (false positives, at most 1-(1-1/(2^f-1))^(2*ways) ~ 2*ways/2^f,
 *    formula 5.21). The value is not stored: *v is set to 0.
 *  - remove(k) is valid ONLY for a key known to be present (inserted, and
 *    inserted more times than removed): it deletes one copy of fp(k) from
 *    i1 or i2 - possibly the copy of another key with the same fingerprint
 *    and buckets, which is harmless because the copies are interchangeable
 *    (thesis §5.3.3 (2)). Removing a key that was never inserted may delete
 *    another key's fingerprint and cause a false negative later.
 *  - size() is exact when quiescent: successful inserts minus successful
 *    removes (per-thread padded counters). update() is not supported.
 *
 * Insert (algorithm 5.5, made safe for concurrent readers): take the two
 * buckets' stripes; store into a free slot of i1 or i2 if there is one.
 * Otherwise release them and SEARCH a kick path without writing: a random
 * walk from a random one of i1, i2 - pick a random slot, follow its
 * fingerprint to its alternate bucket - until a bucket with a free slot,
 * at most `retries` kicks (option retries=, default 500 as in the thesis,
 * line ~1998 and figure 5.4). Then EXECUTE it backwards from the free end:
 * each move locks the source and destination stripes, checks that the
 * source slot still holds the fingerprint the walk saw and that the
 * destination still has a free slot, copies the fingerprint there and
 * clears the source - so a fingerprint is never out of the table (the
 * thesis' in-place kicking holds one global lock instead, and loses the
 * last victim when it gives up). A stale path restarts the insert (at most
 * CF_MAX_TRIES times, then it counts as full). A walk that finds no free
 * slot leaves the filter unchanged: full_failures += 1, insert false.
 *
 * Concurrency (stripes: bucket b belongs to stripe b mod `stripes`, option
 * stripes=1..65536, power of two, default 2048; stripes=1 is the thesis'
 * one coarse lock):
 *  - default (no lock=): each stripe is a 64-bit sequence word on its own
 *    cache line; writers make it odd with an acquire CAS and even again with
 *    a release store. get() takes no lock: it reads the two stripes'
 *    versions, both buckets (acquire loads), and the versions again; any
 *    change (a kick may have moved the fingerprint between i1 and i2) or an
 *    odd version means retry. A move of fp(k) holds both of k's stripes, so
 *    a reader can never see it in neither bucket.
 *  - lock=NAME (CHT_CAP_LOCK_PARAM, any lock from locks/: the thesis
 *    compares TAS, TTAS, CLH, MCS and an RTM-elided MCS lock, §5.3.1-5.3.2):
 *    `stripes` external locks (tables/table_locks.h); EVERY operation
 *    takes its buckets' stripe locks, get() in read mode (algorithm 5.7's
 *    FIND_LOCK: read_lock, which is lock() for non-RW locks), writers in
 *    write mode, in ascending stripe order (no deadlock). Each thread owns 2
 *    ctxs (it holds at most two stripes: a key's two buckets, or a move's
 *    source and destination).
 *
 * Deviations: no semi-sorting (§5.4.1), no COP/RTM transaction templates
 * (§5.4.2: RTM elision is reachable as lock=htm-retry etc. where the CPU
 * has RTM); fixed capacity (the thesis rebuilds a larger filter by hand).
 * stats.buckets is the SLOT capacity (buckets * ways), so size()/buckets is
 * the load factor alpha and bytes*8/size() the bits per item.
 */
#include <stdalign.h>
#include <sched.h>
#include "cht.h"
#include "cht_atomic.h"
#include "cht_hash.h"
#include "lock.h"
#include "table_support.h"
#include "table_locks.h"

#define CF_MAX_WAYS     8
#define CF_MAX_RETRIES  4096u
#define CF_MAX_TRIES    64              /* stale paths before an insert counts as full */
#define CF_MIN_BUCKETS  2u

struct cf_stripe {
    alignas(CHT_CACHE_LINE) uint64_t seq;   /* even: free; odd: a writer holds it */
};

struct cf_table {
    uint64_t mask;              /* buckets - 1 */
    unsigned ways, width;       /* slots per bucket; bytes per slot: 1, 2, 4 */
    unsigned variant;           /* width index (0,1,2) + 3 * ext: selects the specialisation */
    uint32_t fp_range;          /* 2^f - 1: fingerprints are 1 .. fp_range */
    unsigned fp_bits, retries, threads;
    uint32_t smask;             /* stripes - 1 */
    unsigned char *slots;       /* buckets * ways * width bytes, 64-byte aligned */
    size_t slot_bytes;
    bool mapped;
    struct cf_stripe *stripe;   /* default mode */
    struct cht_thread_counter *count;
    uint64_t full_failures;     /* atomic */
    /* lock=NAME: `stripes` locks, 2 ctxs per thread; locks.lk NULL = seqlock stripes */
    struct cht_locks locks;
};

struct cf_step {                /* one kick of a searched path */
    uint64_t bucket;            /* source bucket */
    uint32_t fp;                /* the fingerprint that moves out of it */
    uint32_t slot;
};

static __thread unsigned cf_tid;
static __thread uint64_t cf_rng;

static const struct cht_option_spec cf_options[] = {
    { "fp_bits", "4..32 fingerprint bits f (default 16; the thesis measured f=12); FP rate <= 2*ways/2^f" },
    { "ways", "1|2|4|8 fingerprint slots per bucket b (default 4: the (2,4) filter)" },
    { "retries", "1..4096 kicks an insert may search before the filter counts as full (default 500)" },
    { "stripes", "1..65536, power of two: bucket locks (default 2048; 1 = one global lock)" },
    { "lock", "any lock from --list as the stripe locks, taken by every op, get in read mode "
              "(default: seqlock stripes, lock-free optimistic get)" },
    { NULL, NULL },
};

/* pause; every 256th spin yields instead (oversubscribed runs: let the holder finish) */
static inline void cf_relax(unsigned *spins)
{
    cht_spin_yield(spins, 256);
}

static inline uint64_t cf_rand(void)
{
    uint64_t x = cf_rng;
    if (!x)
        x = cht_hash_mix(((uint64_t)cf_tid << 32) | 0x9e3779b9u) | 1;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    cf_rng = x;
    return x;
}

/* ---------------- hashing ---------------- */

static inline uint64_t cf_index(const struct cf_table *t, cht_key_t k)
{
    return cht_hash_mix(k) & t->mask;
}

static inline uint32_t cf_fingerprint(const struct cf_table *t, cht_key_t k)
{
    uint64_t g = cht_hash_mix2(k) >> 32;                     /* 32 independent bits */
    return 1 + (uint32_t)((g * t->fp_range) >> 32);          /* uniform in 1 .. 2^f-1 */
}

static inline uint64_t cf_alt(const struct cf_table *t, uint64_t i, uint32_t fp)
{
    return (i ^ cht_hash_mix(fp)) & t->mask;
}

/* ---------------- slots (W: bytes per slot, a constant in the hot paths) ---------------- */

static inline __attribute__((always_inline)) uint32_t
slot_load(const struct cf_table *t, uint64_t b, unsigned w, const unsigned W)
{
    size_t i = (size_t)b * t->ways + w;
    switch (W) {
    case 1: return __atomic_load_n((const uint8_t *)t->slots + i, __ATOMIC_ACQUIRE);
    case 2: return __atomic_load_n((const uint16_t *)(const void *)t->slots + i, __ATOMIC_ACQUIRE);
    default: return __atomic_load_n((const uint32_t *)(const void *)t->slots + i, __ATOMIC_ACQUIRE);
    }
}

static inline __attribute__((always_inline)) void
slot_store(const struct cf_table *t, uint64_t b, unsigned w, uint32_t fp, const unsigned W)
{
    size_t i = (size_t)b * t->ways + w;
    switch (W) {
    case 1: __atomic_store_n((uint8_t *)t->slots + i, (uint8_t)fp, __ATOMIC_RELEASE); break;
    case 2: __atomic_store_n((uint16_t *)(void *)t->slots + i, (uint16_t)fp, __ATOMIC_RELEASE); break;
    default: __atomic_store_n((uint32_t *)(void *)t->slots + i, fp, __ATOMIC_RELEASE); break;
    }
}

/* slot of fp in bucket b, or -1 */
static inline __attribute__((always_inline)) int
bucket_find(const struct cf_table *t, uint64_t b, uint32_t fp, const unsigned W)
{
    for (unsigned w = 0; w < t->ways; w++)
        if (slot_load(t, b, w, W) == fp)
            return (int)w;
    return -1;
}

/* ---------------- stripes ---------------- */

struct cf_lockset {
    unsigned n;
    uint32_t s[2];
};

static inline void lockset_build(const struct cf_table *t, struct cf_lockset *ls, uint64_t a, uint64_t b)
{
    uint32_t x = (uint32_t)(a & t->smask), y = (uint32_t)(b & t->smask);
    if (x == y) {
        ls->n = 1;
        ls->s[0] = x;
    } else {
        ls->n = 2;
        ls->s[0] = x < y ? x : y;
        ls->s[1] = x < y ? y : x;
    }
}

static inline void *cfx_lock(const struct cf_table *t, uint32_t s)
{
    return cht_locks_at(&t->locks, s);
}

static inline void *cfx_ctx(const struct cf_table *t, unsigned i)
{
    if (!t->locks.ctx)          /* first: no thread slot (a division) for ctx-less locks */
        return NULL;
    return cht_locks_ctx(&t->locks, cht_thread_slot(cf_tid, t->threads), 2, i);
}

static inline __attribute__((always_inline)) void
ls_lock(struct cf_table *t, const struct cf_lockset *ls, const bool ext)
{
    for (unsigned i = 0; i < ls->n; i++) {
        if (ext) {
            t->locks.lk->lock(cfx_lock(t, ls->s[i]), cfx_ctx(t, i));
            continue;
        }
        uint64_t *q = &t->stripe[ls->s[i]].seq;
        unsigned spins = 0;
        for (;;) {
            uint64_t v = __atomic_load_n(q, __ATOMIC_RELAXED);
            if (!(v & 1) && __atomic_compare_exchange_n(q, &v, v + 1, false, __ATOMIC_ACQUIRE,
                                                        __ATOMIC_RELAXED))
                break;
            cf_relax(&spins);
        }
    }
}

static inline __attribute__((always_inline)) void
ls_unlock(struct cf_table *t, const struct cf_lockset *ls, const bool ext)
{
    for (unsigned i = ls->n; i-- > 0;) {
        if (ext) {
            t->locks.lk->unlock(cfx_lock(t, ls->s[i]), cfx_ctx(t, i));
            continue;
        }
        uint64_t *q = &t->stripe[ls->s[i]].seq;
        __atomic_store_n(q, __atomic_load_n(q, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
    }
}

static inline void cf_count(struct cf_table *t, int64_t d)
{
    cht_thread_counter_add(&t->count[cht_thread_slot(cf_tid, t->threads)].n, d);
}

/* ---------------- operations ---------------- */

static inline __attribute__((always_inline)) bool
cf_get_impl(struct cf_table *t, cht_key_t k, const unsigned W, const bool ext)
{
    uint64_t i1 = cf_index(t, k);
    uint32_t fp = cf_fingerprint(t, k);
    uint64_t i2 = cf_alt(t, i1, fp);
    if (ext) {
        struct cf_lockset ls;
        lockset_build(t, &ls, i1, i2);
        for (unsigned i = 0; i < ls.n; i++)
            t->locks.lk->read_lock(cfx_lock(t, ls.s[i]), cfx_ctx(t, i));
        bool found = bucket_find(t, i1, fp, W) >= 0 || bucket_find(t, i2, fp, W) >= 0;
        for (unsigned i = ls.n; i-- > 0;)
            t->locks.lk->read_unlock(cfx_lock(t, ls.s[i]), cfx_ctx(t, i));
        return found;
    }
    const uint64_t *q1 = &t->stripe[i1 & t->smask].seq, *q2 = &t->stripe[i2 & t->smask].seq;
    unsigned spins = 0;
    for (;;) {
        uint64_t v1 = __atomic_load_n(q1, __ATOMIC_ACQUIRE), v2 = __atomic_load_n(q2, __ATOMIC_ACQUIRE);
        if ((v1 | v2) & 1) {
            cf_relax(&spins);
            continue;
        }
        bool found = bucket_find(t, i1, fp, W) >= 0 || bucket_find(t, i2, fp, W) >= 0;
        /* the acquire slot loads keep these re-reads after them */
        if (__atomic_load_n(q1, __ATOMIC_RELAXED) == v1 && __atomic_load_n(q2, __ATOMIC_RELAXED) == v2)
            return found;
    }
}

/* Random walk from bucket `from` (full when it was looked at): up to `retries`
 * kicks, reading without locks. Returns the number of steps of a path whose
 * last step's fingerprint can go to a bucket with a free slot (*end); 0 when
 * `from` itself has a free slot again; -1 when there is no path. */
static inline __attribute__((always_inline)) int
cf_search(const struct cf_table *t, uint64_t from, struct cf_step *path, uint64_t *end, const unsigned W)
{
    uint64_t cur = from;
    for (unsigned n = 0; n < t->retries; n++) {
        unsigned w = (unsigned)((cf_rand() >> 32) * t->ways >> 32);
        uint32_t fp = slot_load(t, cur, w, W);
        if (fp == 0) {          /* freed meanwhile: the path so far ends here */
            *end = cur;
            return (int)n;
        }
        path[n] = (struct cf_step){ .bucket = cur, .fp = fp, .slot = w };
        uint64_t alt = cf_alt(t, cur, fp);
        if (bucket_find(t, alt, 0, W) >= 0) {
            *end = alt;
            return (int)n + 1;
        }
        cur = alt;
    }
    return -1;
}

/* Executes a searched path backwards; false when it went stale. */
static inline __attribute__((always_inline)) bool
cf_exec(struct cf_table *t, const struct cf_step *path, unsigned n, uint64_t end, const unsigned W,
        const bool ext)
{
    for (unsigned j = n; j-- > 0;) {
        const struct cf_step *s = &path[j];
        uint64_t dst = j + 1 < n ? path[j + 1].bucket : end;
        struct cf_lockset ls;
        lockset_build(t, &ls, s->bucket, dst);
        ls_lock(t, &ls, ext);
        int w = bucket_find(t, dst, 0, W);
        bool ok = w >= 0 && slot_load(t, s->bucket, s->slot, W) == s->fp;
        if (ok) {
            slot_store(t, dst, (unsigned)w, s->fp, W);        /* copy first: never out of the table */
            slot_store(t, s->bucket, s->slot, 0, W);
        }
        ls_unlock(t, &ls, ext);
        if (!ok)
            return false;
    }
    return true;
}

/* 1: room was made (or the path went stale): retry; 0: no path (full) */
static __attribute__((noinline)) int cf_make_room(struct cf_table *t, uint64_t i1, uint64_t i2,
                                                  const unsigned W, const bool ext)
{
    struct cf_step path[CF_MAX_RETRIES];
    uint64_t end;
    int n = cf_search(t, cf_rand() >> 63 ? i2 : i1, path, &end, W);
    if (n < 0)
        return 0;
    cf_exec(t, path, (unsigned)n, end, W, ext);
    return 1;
}

static inline __attribute__((always_inline)) bool
cf_insert_impl(struct cf_table *t, cht_key_t k, const unsigned W, const bool ext)
{
    uint64_t i1 = cf_index(t, k);
    uint32_t fp = cf_fingerprint(t, k);
    uint64_t i2 = cf_alt(t, i1, fp);
    struct cf_lockset ls;
    lockset_build(t, &ls, i1, i2);
    for (unsigned tries = 0; tries <= CF_MAX_TRIES; tries++) {
        ls_lock(t, &ls, ext);
        uint64_t b = i1;
        int w = bucket_find(t, i1, 0, W);
        if (w < 0) {
            b = i2;
            w = bucket_find(t, i2, 0, W);
        }
        if (w >= 0)
            slot_store(t, b, (unsigned)w, fp, W);
        ls_unlock(t, &ls, ext);
        if (w >= 0) {
            cf_count(t, 1);
            return true;
        }
        if (!cf_make_room(t, i1, i2, W, ext))
            break;
    }
    __atomic_fetch_add(&t->full_failures, 1, __ATOMIC_RELAXED);
    return false;
}

static inline __attribute__((always_inline)) bool
cf_remove_impl(struct cf_table *t, cht_key_t k, const unsigned W, const bool ext)
{
    uint64_t i1 = cf_index(t, k);
    uint32_t fp = cf_fingerprint(t, k);
    uint64_t i2 = cf_alt(t, i1, fp);
    struct cf_lockset ls;
    lockset_build(t, &ls, i1, i2);
    ls_lock(t, &ls, ext);
    uint64_t b = i1;
    int w = bucket_find(t, i1, fp, W);
    if (w < 0) {
        b = i2;
        w = bucket_find(t, i2, fp, W);
    }
    if (w >= 0)
        slot_store(t, b, (unsigned)w, 0, W);
    ls_unlock(t, &ls, ext);
    if (w >= 0)
        cf_count(t, -1);
    return w >= 0;
}

/* One specialisation per (slot width, external lock): the public ops switch
 * once on t->variant. */
#define CF_VARIANTS(X) X(0, 1, false) X(1, 2, false) X(2, 4, false) X(3, 1, true) X(4, 2, true) X(5, 4, true)

static bool cf_get(void *tp, cht_key_t k, cht_val_t *v)
{
    struct cf_table *t = tp;
    if (v)
        *v = 0;
    switch (t->variant) {
#define X(n, W, ext) case n: return cf_get_impl(t, k, W, ext);
    CF_VARIANTS(X)
#undef X
    }
    return false;
}

static bool cf_insert(void *tp, cht_key_t k, cht_val_t v)
{
    (void)v;
    struct cf_table *t = tp;
    switch (t->variant) {
#define X(n, W, ext) case n: return cf_insert_impl(t, k, W, ext);
    CF_VARIANTS(X)
#undef X
    }
    return false;
}

static bool cf_remove(void *tp, cht_key_t k)
{
    struct cf_table *t = tp;
    switch (t->variant) {
#define X(n, W, ext) case n: return cf_remove_impl(t, k, W, ext);
    CF_VARIANTS(X)
#undef X
    }
    return false;
}

/* ---------------- lifecycle ---------------- */

static void cf_destroy(void *tp);

static void *cf_create(const struct cht_config *cfg, char *err, size_t len)
{
    uint64_t fp_bits = 16, ways = 4, retries = 500, stripes = 2048;
    if (!cht_option_uint(cfg->options, "cuckoo-filter", "fp_bits", 4, 32, &fp_bits, err, len) ||
        !cht_option_uint(cfg->options, "cuckoo-filter", "ways", 1, CF_MAX_WAYS, &ways, err, len) ||
        !cht_option_uint(cfg->options, "cuckoo-filter", "retries", 1, CF_MAX_RETRIES, &retries, err, len) ||
        !cht_option_uint(cfg->options, "cuckoo-filter", "stripes", 1, 65536, &stripes, err, len))
        return NULL;
    if (ways & (ways - 1)) {
        snprintf(err, len, "--table cuckoo-filter: option ways=%llu: expected 1, 2, 4 or 8",
                 (unsigned long long)ways);
        return NULL;
    }
    if (stripes & (stripes - 1)) {
        snprintf(err, len, "--table cuckoo-filter: option stripes=%llu: expected a power of two in 1..65536",
                 (unsigned long long)stripes);
        return NULL;
    }
    uint64_t buckets = cht_initial_buckets(cfg, (unsigned)ways, 1ull << 40, err, len);
    if (!buckets)
        return NULL;
    if (buckets < CF_MIN_BUCKETS)
        buckets = CF_MIN_BUCKETS;
    if (!cht_capacity_holds_initial(cfg, buckets * ways, err, len))   /* --density above 1: more keys than slots */
        return NULL;
    unsigned width = fp_bits <= 8 ? 1 : fp_bits <= 16 ? 2 : 4;
    struct cf_table *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->mask = buckets - 1;
    t->ways = (unsigned)ways;
    t->width = width;
    t->fp_bits = (unsigned)fp_bits;
    t->fp_range = (uint32_t)((1ull << fp_bits) - 1);
    t->retries = (unsigned)retries;
    t->threads = cfg->max_threads ? cfg->max_threads : 1;
    t->smask = (uint32_t)stripes - 1;
    t->variant = (width == 1 ? 0 : width == 2 ? 1 : 2) + (cfg->lock ? 3 : 0);
    t->slot_bytes = (size_t)buckets * ways * width;
    if (t->slot_bytes > cht_phys_bytes()) {
        snprintf(err, len, "out of memory (%llu buckets x %u ways x %u bytes)", (unsigned long long)buckets,
                 t->ways, width);
        free(t);
        return NULL;
    }
    t->slots = cht_alloc_large(t->slot_bytes < 64 ? 64 : t->slot_bytes, cfg->hugepages, &t->mapped);
    t->count = cht_thread_counters_new(t->threads);
    t->stripe = cfg->lock ? NULL : cht_alloc_zeroed(stripes * sizeof *t->stripe);
    if (!t->slots || !t->count || (!cfg->lock && !t->stripe)) {
        snprintf(err, len, "out of memory (%llu buckets x %u ways x %u bytes)", (unsigned long long)buckets,
                 t->ways, width);
        cf_destroy(t);
        return NULL;
    }
    /* lock=NAME: a thread holds at most two stripes (a key's two buckets, or a move's source and
     * destination): two ctxs each */
    if (cfg->lock && !cht_locks_init(&t->locks, cfg->lock, cfg, stripes, t->threads, 2, "cuckoo-filter", err,
                                     len)) {
        cf_destroy(t);
        return NULL;
    }
    return t;
}

static void cf_destroy(void *tp)
{
    struct cf_table *t = tp;
    cht_locks_destroy(&t->locks);
    if (t->slots)
        cht_free_large(t->slots, t->slot_bytes < 64 ? 64 : t->slot_bytes, t->mapped);
    free(t->stripe);
    free(t->count);
    free(t);
}

static void cf_thread_init(void *tp, unsigned tid)
{
    (void)tp;
    cf_tid = tid;
    cf_rng = 0;
}

static size_t cf_size(void *tp)
{
    struct cf_table *t = tp;
    return cht_count_as_size(cht_thread_counters_sum(t->count, t->threads));
}

static void cf_stats(void *tp, struct cht_stats *s)
{
    struct cf_table *t = tp;
    size_t nstripes = (size_t)t->smask + 1;
    s->bytes = sizeof *t + t->slot_bytes + t->threads * sizeof *t->count;
    if (t->locks.lk)
        s->bytes += cht_locks_bytes(&t->locks);
    else
        s->bytes += nstripes * sizeof *t->stripe;
    s->buckets = (size_t)(t->mask + 1) * t->ways;      /* slot capacity: size/buckets = load factor */
    s->full_failures = __atomic_load_n(&t->full_failures, __ATOMIC_RELAXED);
    s->fp_bits = t->fp_bits;
    s->fp_bucket_slots = t->ways;
}

const struct cht_ops cht_table_cuckoo_filter = {
    .name = "cuckoo-filter",
    .summary = "concurrent cuckoo filter: partial-key cuckoo hashing of fingerprints, (2,4) buckets (approximate)",
    .caps = CHT_CAP_APPROXIMATE | CHT_CAP_FIXED_CAP | CHT_CAP_LOCK_PARAM,
    .options = cf_options,
    .create = cf_create,
    .destroy = cf_destroy,
    .thread_init = cf_thread_init,
    .get = cf_get,
    .insert = cf_insert,
    .remove = cf_remove,
    .update = NULL,
    .size = cf_size,
    .stats = cf_stats,
};
