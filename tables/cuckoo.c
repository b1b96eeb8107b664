/*
 * cuckoo.c - concurrent multi-reader / multi-writer cuckoo hashing with
 * optimistic (lock-free) reads: the "Cuckoo" table of the 2017 Hunan Univ.
 * thesis §3.2.2 (B. Fan et al.'s MRMW table, set-associative buckets, two
 * hash functions, kick paths, doubling when no path exists), with the
 * engineering of the indexlib note (Alibaba): 4-way buckets of 16-byte
 * (key, value) slots = one 64-byte cache line, breadth-first search for the
 * SHORTEST kick path, more hash functions (2..6) for higher occupancy, and
 * prefetching every candidate bucket before reading any. The concurrency
 * scheme follows the ideas of Li, Andersen, Kaminsky, Freedman, "Algorithmic
 * improvements for fast concurrent cuckoo hashing", EuroSys'14: search the
 * path without locks, then move items backwards along it under fine-grained
 * striped locks, re-validating each step. (Own code, not libcuckoo's.)
 *
 * Layout: 2^n buckets of `ways` slots (option ways=1..8, default 4), one flat
 * array aligned to 64 bytes. Key 0 marks an empty slot. Candidate buckets of
 * key k: b_i = (h0 + i*h1) mod 2^n, i < hashes (option hashes=2..6, default 2),
 * with h0 = cht_hash(kind, k) and h1 = cht_hash_mix2(k) | 1 (double hashing;
 * h1 odd and >= 8 buckets make all candidates distinct).
 *
 * The knobs the indexlib note evaluates (issue 11 point 5), each an option:
 *  - max_hashes=H..6 (default = hashes: off): when an insert finds no kick
 *    path, add a hash function (2 -> 3 -> ... -> H) before doubling
 *    (resize=1) or failing (resize=0) - the note's 98.02% -> 100% occupancy.
 *    The hash count lives in the array header: adding one publishes a new
 *    header (hashes + 1) over the SAME slots, under every stripe exactly like
 *    a doubling (or the frozen protocol with lock=NAME). Nothing moves:
 *    candidates 0..H-1 of every key are unchanged, so every key is where the
 *    new header looks; readers and writers validate t->cur as they already
 *    do, so a reader that used the old count retries. Doubling keeps the
 *    current count. tests/test_filter.c `cuckoo` measures it.
 *  - index=mask|mod64|mod32 (default mask): bucket = x & (2^n - 1), or x mod
 *    n in 64-bit or 32-bit arithmetic (the note: 64-bit modulo costs several
 *    times the 32-bit one); with mod the bucket count is ceil(slots / ways),
 *    not a power of two (candidates then need not be distinct: harmless).
 *  - prefetch=0|1|2 (default 2): get() prefetches nothing; only the
 *    alternate candidate buckets (the note's prefetch1); or every candidate
 *    bucket and its stripe word before reading any (prefetch2: the order the
 *    note found best). prefetch=2 is what prefetch=1 meant before.
 *  - away=0|1 (default 1): per bucket, a count of the keys whose first
 *    candidate it is that live in another bucket (a byte; 255 sticks) and a
 *    bit set while that count is not zero (side arrays: 8 MB of counts and
 *    1 MB of bits for 8M buckets; the counts are touched only when such a
 *    key leaves home or comes back: an insert into a later candidate, a kick
 *    out of home or back into it, the removal of a key living away, a
 *    rehash). --pipeline's get of a key absent from its first bucket stops
 *    there when the bit is clear, instead of reading the second bucket, and
 *    every write of a key whose first bucket's bit is clear is decided on
 *    that bucket under its stripe alone (cuckoo_lock_home): Cuckoo++'s
 *    per-bucket filter of displaced keys (N. Le Scouarnec, "Cuckoo++ Hash
 *    Tables: High-Performance Hash Tables for Networking Applications", ANCS
 *    2018), read as one bit. Plain get() does not read it (it prefetches
 *    every candidate at once, so a skipped bucket saves no wait).
 *  The default (mask, prefetch=2, no lock=NAME) keeps exactly one test in
 *  each public op: get() tests get_variant, writers write_variant (the old
 *  t->locks.lk test), and call the inlined default copy; other settings go to a
 *  noinline switch over copies specialised with constant index / prefetch /
 *  ext (callgrind, -u 50 -i 64K, 300k ops: get -3%, insert +0.6%, remove
 *  -1.4% instructions against the previous build).
 *
 * Concurrency:
 *  - CUCKOO_NSTRIPES stripes, each one 64-bit seqlock word on its own cache line;
 *    bucket b belongs to stripe b mod CUCKOO_NSTRIPES. Even = free, odd = a writer
 *    holds it; unlock adds one more, so each critical section bumps it by 2.
 *  - get(): no lock, no shared write. Read the versions of all candidate
 *    stripes (retry while one is odd), check the table pointer is still the
 *    current one, read the slots, then (after an acquire fence) re-read the
 *    versions: any change means a writer touched a candidate bucket (a kick
 *    may have moved k from one candidate to another) -> retry. The default
 *    shape compares a bucket's four keys with SSE2 (cuckoo_match4_val): plain
 *    loads, which the version check makes safe. Writers store slots
 *    with release stores after taking the stripe with an acquire CAS, so a
 *    reader that observes any new slot content also observes the odd version.
 *  - insert/remove/update first lock the stripe of k's first candidate b0
 *    alone: with b0's away bit clear k is in b0 or nowhere while that stripe
 *    is held, so the write is decided there (an insert into a full b0 goes
 *    on as below). Else they lock the stripes of ALL candidate buckets of k
 *    (sorted stripe indexes, deduplicated: no deadlock), so insert-if-absent
 *    checks every candidate under lock. When no candidate has a free slot
 *    the locks are dropped, a BFS (bounded: CUCKOO_BFS_DEPTH kicks, CUCKOO_BFS_NODES
 *    nodes) looks for the shortest path to a free slot without locks, and
 *    the path is executed from its free end backwards; each move locks the
 *    stripes of its source and destination buckets, re-checks that the
 *    source still holds the key the BFS saw and that the destination still
 *    has a free slot, else the insert starts over. A kick of x locks two of
 *    x's candidate stripes, so it serializes with every writer of x.
 *  - No path (or too many invalidated paths): resize=1 doubles the table:
 *    take every stripe (index order, consistent with the sorted order), and
 *    rehash into a fresh array (serial cuckoo inserts, doubling again in the
 *    pathological case), publish it with a release store and release the
 *    stripes. Readers that raced the resize see a changed version or a
 *    changed table pointer and retry, so they never see a torn state.
 *    resize=0: the insert fails and counts stats.full_failures; create()
 *    refuses an --initial beyond the slot capacity (--density above 1).
 *    Whether a kick path exists below that is a matter of chance (e.g.
 *    ways=1 at the default density 0.5 sits at the 2-choice threshold and
 *    refuses ~0.2% of 1M keys; ways>=2 none), so it is counted, not predicted.
 *    resize=1 whose doubled array cannot be allocated: the insert fails
 *    and counts stats.alloc_failures (out of memory, not full).
 *  - lock=NAME (any lock from locks/; CHT_CAP_LOCK_PARAM): writers exclude
 *    each other with CUCKOO_NSTRIPES external locks (a parallel array, one per
 *    stripe, tables/table_locks.h); the seq words stay, now only for the readers: a writer that
 *    holds its stripes' locks (sorted order, as above) and has validated the
 *    array makes their seq words odd, writes, and makes them even again
 *    before unlocking. ctx: each thread owns `max_hashes` ctxs
 *    (table_locks.h), ctx i for the i-th stripe of its lockset: a
 *    writer holds at most `hashes` stripes at once (its key's candidates; a
 *    path move holds 2 after dropping those). Resize cannot hold all 2048
 *    stripes with that many ctxs, so it freezes the array instead: one grower
 *    at a time (grow_lock), which sets array->frozen and then takes and
 *    releases every stripe in index order with ctx 0. A writer checks
 *    `frozen` (and cur) once it holds all its stripes; since both go in
 *    ascending order, a writer that does not see `frozen` took all its
 *    stripes before the grower reached them, and the grower waits for it.
 *    Frozen-seeing writers drop their stripes without touching the seq words
 *    and wait for the new array (or for `frozen` to clear after an
 *    out-of-memory failure); path moves on a frozen array count as stale.
 *    Readers need no version bumps from the grower: nothing writes the
 *    frozen array, so a reader that validated against it linearizes at its
 *    cur==a check, before the publication. The default path is untouched:
 *    insert/remove/update are templates instantiated with a constant `ext`.
 *  - size(): per-thread cache-line-padded counters (thread id from a __thread
 *    variable set in thread_init), summed: exact when quiescent.
 *
 * Reclamation: a replaced array is kept on a list until destroy() (readers
 * may still be reading it; no epochs needed). Doubling makes that bounded:
 * all retired arrays together are smaller than the current one, so the
 * table never holds more than 2x its final array (stats.bytes counts them).
 *
 * stats.buckets is the SLOT capacity (buckets * ways), so size()/buckets is
 * the occupancy; with resize=0, insert random keys until the first failure
 * to measure the occupancy at first failure (indexlib: ~98% for 2 hashes x
 * 4 ways, ~99.9% for 3; here 97.2% and 99.7% at 10^6 slots: the BFS is
 * bounded by CUCKOO_BFS_DEPTH kicks and CUCKOO_BFS_NODES nodes).
 */
#include <stdalign.h>
#include <sched.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "cht.h"
#include "cht_atomic.h"
#include "cht_hash.h"
#include "lock.h"
#include "table_support.h"
#include "table_locks.h"

#define CUCKOO_MAX_HASHES  6
#define CUCKOO_MAX_WAYS    8
#define CUCKOO_NSTRIPES    2048u          /* power of two */
#define CUCKOO_MIN_BUCKETS 8u             /* >= 8 keeps 6 double-hash candidates distinct */
#define CUCKOO_BFS_DEPTH   5              /* kicks on one path at most */
#define CUCKOO_BFS_NODES   4096u
#define CUCKOO_MAX_TRIES   64             /* invalidated paths before treating as full */
#define CUCKOO_AWAY_STUCK  255u           /* an away count that no longer counts */

struct cuckoo_slot {
    cht_key_t key;      /* 0: empty */
    cht_val_t val;
};

struct cuckoo_array {
    uint64_t mask;              /* buckets - 1 (index=mask: buckets is a power of two) */
    uint64_t nbuckets;          /* buckets (index=mod32|mod64: any count >= CUCKOO_MIN_BUCKETS) */
    unsigned hashes;            /* candidate buckets per key in this array (grows up to max_hashes) */
    size_t bytes;
    struct cuckoo_array *older; /* retired arrays, kept until destroy */
    uint32_t frozen;            /* lock=NAME only: a resize is copying this array (atomic) */
    void *raw;                  /* NULL: the slots belong to an older header (a hash was added) */
    struct cuckoo_slot *slot;   /* buckets * ways, 64-byte aligned */
    uint64_t *away;             /* away=1: bit b set while a key whose first candidate is bucket b
                                 * lives in another one (atomic; shared with the slots); else NULL */
    uint8_t *away_n;            /* away=1: how many such keys bucket b has (CUCKOO_AWAY_STUCK: too many to
                                 * count, the bit stays set); read and written under b's stripe */
};

struct cuckoo_stripe {
    alignas(CHT_CACHE_LINE) uint64_t seq;    /* even: free; odd: a writer holds it */
};

/* index=: how a 64-bit hash becomes a bucket number (indexlib note: 32-bit vs
 * 64-bit modulo vs a power-of-two mask) */
enum cuckoo_index { CUCKOO_IDX_MASK = 0, CUCKOO_IDX_MOD64 = 1, CUCKOO_IDX_MOD32 = 2 };
static const char *const cuckoo_index_names[] = { "mask", "mod64", "mod32", NULL };

struct cuckoo_table {
    struct cuckoo_array *cur;   /* atomic; changes only under all stripes */
    unsigned get_variant;       /* 0: index=mask, prefetch=2 (the default, inlined); else 3*index + prefetch */
    bool pipe_2x4;              /* get_variant 0 and 4 ways: --pipeline's two-step get (with 2 hashes) */
    bool away;                  /* option away=1: arrays keep their away bits */
    unsigned write_variant;     /* 0: index=mask, no lock=NAME (inlined); else 2*index + ext */
    unsigned hashes, max_hashes, ways, threads;
    unsigned prefetch;          /* 0, 1 (alternate candidates), 2 (all candidates and their stripes) */
    enum cuckoo_index index;
    bool resize;
    enum cht_hash_kind hash;
    uint64_t resizes;           /* atomic */
    uint64_t hash_adds;         /* atomic: hash functions added (max_hashes) */
    uint64_t full_failures;     /* atomic: no kick path, no hash function left to add, resize=0 */
    uint64_t alloc_failures;    /* atomic: the grown array could not be allocated */
    struct cuckoo_stripe *stripe; /* CUCKOO_NSTRIPES */
    struct cht_thread_counter *count;   /* threads */
    /* lock=NAME: CUCKOO_NSTRIPES locks, max_hashes ctxs per thread; locks.lk NULL = the
     * seqlock words are the locks */
    struct cht_locks locks;
    uint32_t grow_lock;         /* lock=NAME: one resizer at a time (atomic) */
};

struct cuckoo_node {            /* one BFS node: a bucket reached by kicking `key` */
    uint64_t bucket;
    cht_key_t key;              /* key that moves into this bucket (roots: 0) */
    uint32_t parent;            /* index of the parent node (roots: UINT32_MAX) */
    uint8_t slot;               /* slot of `key` in the parent bucket */
    uint8_t depth;
};

struct cuckoo_lockset {
    unsigned n;
    uint32_t s[CUCKOO_MAX_HASHES];
};

static __thread unsigned cuckoo_tid;

static const struct cht_option_spec cuckoo_options[] = {
    { "hashes", "2..6 hash functions (candidate buckets) per key (default 2)" },
    { "max_hashes", "hashes..6: when an insert finds no kick path, add a hash function (up to this many) "
                    "before doubling (resize=1) or failing (resize=0) (default: = hashes, never add)" },
    { "index", "mask|mod32|mod64: bucket = hash & (2^n-1) (default), or hash mod n in 32-bit "
               "or 64-bit arithmetic with n = slots/ways not rounded to a power of two" },
    { "ways", "1..8 slots per bucket (default 4: one 64-byte line)" },
    { "resize", "0|1: double the table when no cuckoo path is found (default 1); "
                "0: the insert fails and counts stats full_failures" },
    { "prefetch", "0|1|2: get() prefetches nothing, the alternate candidate buckets (the indexlib note's "
                  "prefetch1), or every candidate bucket and its stripe word before reading any "
                  "(prefetch2; default 2)" },
    { "lock", "any lock from --list=locks as the stripe locks (default: the stripes' seqlock words)" },
    { "away", "0|1: one bit per bucket, set while a key whose first candidate it is lives in another "
              "bucket (with a count per bucket); --pipeline's get of a key absent from its first bucket stops "
              "there when the bit is clear, and writes of its keys lock that bucket's stripe alone (default 1)" },
    CHT_HASH_OPTION,
    { NULL, NULL },
};

/* pause; every 256th spin yields instead (oversubscribed runs: let the holder finish) */
static inline void cuckoo_relax(unsigned *spins)
{
    cht_spin_yield(spins, 256);
}

/* ---------------- stripes ---------------- */

static inline void stripe_lock(struct cuckoo_stripe *s)
{
    unsigned spins = 0;
    for (;;) {
        uint64_t v = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
        if (!(v & 1) && __atomic_compare_exchange_n(&s->seq, &v, v + 1, false, __ATOMIC_ACQUIRE,
                                                    __ATOMIC_RELAXED))
            return;
        cuckoo_relax(&spins);
    }
}

static inline void stripe_unlock(struct cuckoo_stripe *s)
{
    uint64_t v = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
    __atomic_store_n(&s->seq, v + 1, __ATOMIC_RELEASE);
}

static inline uint32_t stripe_of(uint64_t bucket)
{
    return (uint32_t)(bucket & (CUCKOO_NSTRIPES - 1));
}

/* sorted, deduplicated stripe indexes of n buckets */
static inline void lockset_build(struct cuckoo_lockset *ls, const uint64_t *b, unsigned n)
{
    ls->n = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t s = stripe_of(b[i]);
        unsigned j = ls->n;
        bool dup = false;
        for (unsigned m = 0; m < ls->n; m++)
            dup |= ls->s[m] == s;
        if (dup)
            continue;
        while (j > 0 && ls->s[j - 1] > s) {
            ls->s[j] = ls->s[j - 1];
            j--;
        }
        ls->s[j] = s;
        ls->n++;
    }
}

static inline void lockset_lock(struct cuckoo_table *t, const struct cuckoo_lockset *ls)
{
    for (unsigned i = 0; i < ls->n; i++)
        stripe_lock(&t->stripe[ls->s[i]]);
}

static inline void lockset_unlock(struct cuckoo_table *t, const struct cuckoo_lockset *ls)
{
    for (unsigned i = ls->n; i-- > 0;)
        stripe_unlock(&t->stripe[ls->s[i]]);
}

/* ---- lock=NAME: the external lock excludes writers, the seq word only tells
 * readers (odd while a writer that passed the frozen check holds it) ---- */

static inline void *ckx_lock(const struct cuckoo_table *t, uint32_t s)
{
    return cht_locks_at(&t->locks, s);
}

/* ctx i (< hashes) of the calling thread: one per stripe it may hold at once */
static inline void *ckx_ctx(const struct cuckoo_table *t, unsigned i)
{
    if (!t->locks.ctx)          /* first: no thread slot (a division) for ctx-less locks */
        return NULL;
    return cht_locks_ctx(&t->locks, cht_thread_slot(cuckoo_tid, t->threads), t->max_hashes, i);
}

static inline void ckx_acquire(struct cuckoo_table *t, const struct cuckoo_lockset *ls)
{
    for (unsigned i = 0; i < ls->n; i++)
        t->locks.lk->lock(ckx_lock(t, ls->s[i]), ckx_ctx(t, i));
}

static inline void ckx_abandon(struct cuckoo_table *t, const struct cuckoo_lockset *ls)
{
    for (unsigned i = ls->n; i-- > 0;)
        t->locks.lk->unlock(ckx_lock(t, ls->s[i]), ckx_ctx(t, i));
}

/* held and validated: make the seq words odd (before any slot store, which
 * are release stores) */
static inline void ckx_enter(struct cuckoo_table *t, const struct cuckoo_lockset *ls)
{
    for (unsigned i = 0; i < ls->n; i++) {
        uint64_t *q = &t->stripe[ls->s[i]].seq;
        __atomic_store_n(q, __atomic_load_n(q, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    }
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void ckx_release(struct cuckoo_table *t, const struct cuckoo_lockset *ls)
{
    for (unsigned i = ls->n; i-- > 0;) {
        uint64_t *q = &t->stripe[ls->s[i]].seq;
        __atomic_store_n(q, __atomic_load_n(q, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
        t->locks.lk->unlock(ckx_lock(t, ls->s[i]), ckx_ctx(t, i));
    }
}

/* waits while array a is frozen by a resize; false once it was replaced */
static bool ckx_wait_frozen(struct cuckoo_table *t, struct cuckoo_array *a)
{
    unsigned spins = 0;
    while (__atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) == a && __atomic_load_n(&a->frozen, __ATOMIC_ACQUIRE))
        cuckoo_relax(&spins);
    return __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) == a;
}

static inline __attribute__((always_inline)) void
lockset_unlock_x(struct cuckoo_table *t, const struct cuckoo_lockset *ls, const bool ext)
{
    if (ext)
        ckx_release(t, ls);
    else
        lockset_unlock(t, ls);
}

/* ---------------- hashing and slots ---------------- */

/* the step between k's candidate buckets (odd: b_i = h0 + i*h1 differ) */
static inline uint64_t cuckoo_hash_step(cht_key_t k)
{
    return cht_hash_mix2(k) | 1;
}

static inline void cuckoo_hash2(const struct cuckoo_table *t, cht_key_t k, uint64_t *h0, uint64_t *h1)
{
    *h0 = cht_hash(t->hash, k);
    *h1 = cuckoo_hash_step(k);
}

/* bucket of hash x; idx is a constant in the specialised hot paths */
static inline __attribute__((always_inline)) uint64_t cuckoo_reduce(const struct cuckoo_array *a, uint64_t x,
                                                                    const unsigned idx)
{
    if (idx == CUCKOO_IDX_MOD64)
        return x % a->nbuckets;
    if (idx == CUCKOO_IDX_MOD32)
        return (uint32_t)x % (uint32_t)a->nbuckets;
    return x & a->mask;
}

static inline __attribute__((always_inline)) void
cuckoo_candidates_x(const struct cuckoo_array *a, uint64_t h0, uint64_t h1, uint64_t *b, const unsigned idx)
{
    for (unsigned i = 0; i < a->hashes; i++)
        b[i] = cuckoo_reduce(a, h0 + i * h1, idx);
}

/* the cold paths (BFS, resize) switch at run time */
static inline void cuckoo_candidates(const struct cuckoo_table *t, const struct cuckoo_array *a, uint64_t h0,
                                     uint64_t h1, uint64_t *b)
{
    switch (t->index) {
    case CUCKOO_IDX_MOD64: cuckoo_candidates_x(a, h0, h1, b, CUCKOO_IDX_MOD64); break;
    case CUCKOO_IDX_MOD32: cuckoo_candidates_x(a, h0, h1, b, CUCKOO_IDX_MOD32); break;
    default: cuckoo_candidates_x(a, h0, h1, b, CUCKOO_IDX_MASK); break;
    }
}

static inline struct cuckoo_slot *cuckoo_bucket(const struct cuckoo_table *t, const struct cuckoo_array *a, uint64_t b)
{
    return &a->slot[b * t->ways];
}

static inline cht_key_t slot_key(const struct cuckoo_slot *s)
{
    return __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
}

/* the keys of bucket s equal to k, a bit per slot */
static inline __attribute__((always_inline)) unsigned cuckoo_match4(const struct cuckoo_slot *s, cht_key_t k)
{
    return (unsigned)(slot_key(&s[0]) == k) | (unsigned)(slot_key(&s[1]) == k) << 1 |
           (unsigned)(slot_key(&s[2]) == k) << 2 | (unsigned)(slot_key(&s[3]) == k) << 3;
}

/* k among bucket s's four keys, for a reader under the bucket's seqlock:
 * nonzero where a way holds k, and *val the value of the first that does
 * (of way 3 where none: discarded). With SSE2 the four keys are compared in
 * two 128-bit compares (x86-64's baseline: 32-bit lanes, a key equal where
 * both of its halves are): 10 instructions fewer than four scalar compares.
 * Those are plain loads of words that writers store atomically; only the
 * seqlock's version check, which rejects any read a writer overlapped, makes
 * them safe, so a ThreadSanitizer build (which would report them) and other
 * targets use cuckoo_match4's atomic loads. */
static inline __attribute__((always_inline)) unsigned cuckoo_match4_val(const struct cuckoo_slot *s, cht_key_t k,
                                                                        cht_val_t *val)
{
#if defined(__SSE2__) && !CHT_UNDER_TSAN
    _Static_assert(sizeof(struct cuckoo_slot) == 16 && sizeof(cht_key_t) == 8, "a slot is a key and a value");
    const __m128i *v = (const __m128i *)s;
    const __m128i kk = _mm_set1_epi64x((long long)k);
    const __m128i k01 = _mm_unpacklo_epi64(_mm_load_si128(&v[0]), _mm_load_si128(&v[1]));
    const __m128i k23 = _mm_unpacklo_epi64(_mm_load_si128(&v[2]), _mm_load_si128(&v[3]));
    unsigned m = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(k01, kk))) |
                 (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(k23, kk))) << 4;
    m &= m >> 1 & 0x55;     /* bit 2w: both halves of way w's key equal k's */
    const unsigned bit = (unsigned)__builtin_ctz(m | 0x40u);
    if (bit & 1)
        __builtin_unreachable();    /* so that s[bit / 2] is s + 8 * bit bytes: no shifts */
    *val = __atomic_load_n(&s[bit >> 1].val, __ATOMIC_RELAXED);
    return m;
#else
    const unsigned m = cuckoo_match4(s, k);
    *val = __atomic_load_n(&s[__builtin_ctz(m | 8u)].val, __ATOMIC_ACQUIRE);
    return m;
#endif
}

static inline void slot_put(struct cuckoo_slot *s, cht_key_t k, cht_val_t v)
{
    __atomic_store_n(&s->val, v, __ATOMIC_RELEASE);
    __atomic_store_n(&s->key, k, __ATOMIC_RELEASE);
}

/* the way of bucket s holding key k (0: a free way), or -1; four ways compared at once */
static inline __attribute__((always_inline)) int
cuckoo_way_of(const struct cuckoo_table *t, const struct cuckoo_slot *s, cht_key_t k)
{
    if (__builtin_expect(t->ways == 4, 1)) {
        const unsigned m = cuckoo_match4(s, k);
        return m ? __builtin_ctz(m) : -1;
    }
    for (unsigned w = 0; w < t->ways; w++)
        if (slot_key(&s[w]) == k)
            return (int)w;
    return -1;
}

/* slot index of a free slot in bucket b, or -1 */
static inline int cuckoo_free_slot(const struct cuckoo_table *t, const struct cuckoo_array *a, uint64_t b)
{
    return cuckoo_way_of(t, cuckoo_bucket(t, a, b), 0);
}

/* the slot holding k among the candidates, or NULL */
static inline struct cuckoo_slot *cuckoo_find(const struct cuckoo_table *t, const struct cuckoo_array *a,
                                              const uint64_t *b, cht_key_t k)
{
    for (unsigned i = 0; i < a->hashes; i++) {
        struct cuckoo_slot *s = cuckoo_bucket(t, a, b[i]);
        const int w = cuckoo_way_of(t, s, k);
        if (w >= 0)
            return &s[w];
    }
    return NULL;
}

static inline void cuckoo_count(struct cuckoo_table *t, int64_t d)
{
    cht_thread_counter_add(&t->count[cht_thread_slot(cuckoo_tid, t->threads)].n, d);
}

/* ---------------- arrays ---------------- */

static struct cuckoo_array *cuckoo_array_new(uint64_t buckets, unsigned ways, unsigned hashes, bool away)
{
    if (buckets > (SIZE_MAX / 2) / ways / sizeof(struct cuckoo_slot))
        return NULL;
    size_t bytes = (size_t)buckets * ways * sizeof(struct cuckoo_slot);
    if (bytes > cht_phys_bytes())
        return NULL;            /* cannot be backed: fail cleanly instead of overcommitting */
    struct cuckoo_array *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->raw = calloc(1, bytes + CHT_CACHE_LINE);     /* calloc: lazily zeroed pages for big tables */
    if (!a->raw) {
        free(a);
        return NULL;
    }
    size_t away_bytes = away ? (size_t)(buckets + 63) / 64 * sizeof(uint64_t) + buckets : 0;
    if (away && (!(a->away = calloc(1, away_bytes - buckets)) || !(a->away_n = calloc(1, buckets)))) {
        free(a->away);
        free(a->raw);
        free(a);
        return NULL;
    }
    uintptr_t p = ((uintptr_t)a->raw + CHT_CACHE_LINE - 1) & ~(uintptr_t)(CHT_CACHE_LINE - 1);
    a->slot = (struct cuckoo_slot *)p;
    a->mask = buckets - 1;
    a->nbuckets = buckets;
    a->hashes = hashes;
    a->bytes = sizeof *a + bytes + CHT_CACHE_LINE + away_bytes;
    return a;
}

static void cuckoo_array_free(struct cuckoo_array *a)
{
    if (a->raw) {               /* the slots' owner owns the away bits too */
        free(a->away);
        free(a->away_n);
    }
    free(a->raw);
    free(a);
}

/* Away bits (Cuckoo++'s per-bucket count of keys living in their other
 * bucket, read as one bit: see the top of the file). A key whose first
 * candidate is bucket `home` is about to be placed in another bucket
 * (before the slot's release store): home's count goes up and its bit is set.
 * The caller holds home's stripe (or nobody else sees the array yet: a
 * resize), as every reader and writer of home's count and bit does; other
 * stripes' buckets share the bit's word: an atomic OR. */
static inline void cuckoo_away_add(struct cuckoo_array *a, uint64_t home)
{
    if (!a->away)
        return;
    uint8_t *n = &a->away_n[home];
    if (*n == 0) {
        uint64_t *w = &a->away[home >> 6], bit = 1ull << (home & 63);
        __atomic_fetch_or(w, bit, __ATOMIC_RELEASE);
    }
    if (*n != CUCKOO_AWAY_STUCK)
        (*n)++;
}

/* ... and such a key left its other bucket (removed, or moved home), after
 * the slot's store: the last one clears home's bit, so a bucket's bit says
 * what its keys are now, not what they ever were (a bit that stayed set
 * would turn every later write of its keys and get of absent ones into two
 * buckets' work: a long run would slow down as it went). A count that reached
 * CUCKOO_AWAY_STUCK stays there. Same locking as cuckoo_away_add. */
static inline void cuckoo_away_sub(struct cuckoo_array *a, uint64_t home)
{
    if (!a->away)
        return;
    uint8_t *n = &a->away_n[home];
    if (*n == CUCKOO_AWAY_STUCK || --*n != 0)
        return;
    uint64_t *w = &a->away[home >> 6], bit = 1ull << (home & 63);
    __atomic_fetch_and(w, ~bit, __ATOMIC_RELEASE);
}

/* the first candidate bucket of key k in a (cold paths) */
static uint64_t cuckoo_home(const struct cuckoo_table *t, const struct cuckoo_array *a, cht_key_t k)
{
    uint64_t h0, h1, b[CUCKOO_MAX_HASHES];
    cuckoo_hash2(t, k, &h0, &h1);
    cuckoo_candidates(t, a, h0, h1, b);
    return b[0];
}

/* ---------------- cuckoo paths ---------------- */

/* BFS from the candidate buckets `roots` for the nearest bucket with a free
 * slot; reads without locks (the result is only a hint, validated when the
 * path is executed). Returns the leaf node index, or -1 when none is within
 * CUCKOO_BFS_DEPTH kicks / CUCKOO_BFS_NODES nodes. */
static int cuckoo_bfs(const struct cuckoo_table *t, const struct cuckoo_array *a, const uint64_t *roots,
                      struct cuckoo_node *q)
{
    unsigned n = 0;
    for (unsigned i = 0; i < a->hashes; i++)
        q[n++] = (struct cuckoo_node){ .bucket = roots[i], .parent = UINT32_MAX };
    for (unsigned head = 0; head < n; head++) {
        const struct cuckoo_node nd = q[head];
        const struct cuckoo_slot *s = cuckoo_bucket(t, a, nd.bucket);
        cht_key_t keys[CUCKOO_MAX_WAYS];
        for (unsigned w = 0; w < t->ways; w++) {
            keys[w] = slot_key(&s[w]);
            if (keys[w] == 0)
                return (int)head;
        }
        if (nd.depth >= CUCKOO_BFS_DEPTH)
            continue;
        for (unsigned w = 0; w < t->ways; w++) {
            uint64_t h0, h1, alt[CUCKOO_MAX_HASHES];
            cuckoo_hash2(t, keys[w], &h0, &h1);
            cuckoo_candidates(t, a, h0, h1, alt);
            for (unsigned i = 0; i < a->hashes; i++) {
                if (alt[i] == nd.bucket)
                    continue;
                if (n == CUCKOO_BFS_NODES)
                    goto full_queue;
                q[n++] = (struct cuckoo_node){ .bucket = alt[i], .key = keys[w], .parent = head,
                                           .slot = (uint8_t)w, .depth = (uint8_t)(nd.depth + 1) };
            }
        }
        continue;
    full_queue:
        /* no more room to enqueue: keep scanning queued nodes for a free slot */
        for (unsigned m = head + 1; m < n; m++)
            if (cuckoo_free_slot(t, a, q[m].bucket) >= 0)
                return (int)m;
        return -1;
    }
    return -1;
}

/* Moves items backwards along the path ending at node `leaf`, so that the
 * root bucket gets a free slot. `locked`: concurrent mode (lock the two
 * buckets' stripes per move and re-validate); otherwise the caller holds
 * every stripe or owns the array. Returns false when the path went stale. */
static bool cuckoo_exec_path(struct cuckoo_table *t, struct cuckoo_array *a, const struct cuckoo_node *q, int leaf,
                             bool locked)
{
    for (int j = leaf; q[j].parent != UINT32_MAX; j = (int)q[j].parent) {
        const struct cuckoo_node *dst = &q[j], *src = &q[dst->parent];
        struct cuckoo_lockset ls = { .n = 0 }; /* (set where locked) */
        if (locked) {
            uint64_t b[2] = { src->bucket, dst->bucket };
            lockset_build(&ls, b, 2);
            if (t->locks.lk) {
                ckx_acquire(t, &ls);
                if (__atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) != a ||
                    __atomic_load_n(&a->frozen, __ATOMIC_ACQUIRE)) {
                    ckx_abandon(t, &ls);
                    return false;
                }
                ckx_enter(t, &ls);
            } else {
                lockset_lock(t, &ls);
                if (__atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) != a) {
                    lockset_unlock(t, &ls);
                    return false;
                }
            }
        }
        struct cuckoo_slot *from = cuckoo_bucket(t, a, src->bucket) + dst->slot;
        int w = cuckoo_free_slot(t, a, dst->bucket);
        bool ok = w >= 0 && slot_key(from) == dst->key;
        if (ok) {
            struct cuckoo_slot *to = cuckoo_bucket(t, a, dst->bucket) + w;
            /* leaving home (src is home: its stripe is held) or going home (dst is);
             * between two other candidates (hashes > 2) the count stays */
            const uint64_t home = a->away ? cuckoo_home(t, a, dst->key) : 0;
            const bool leaves = a->away && src->bucket == home && dst->bucket != home;
            const bool returns = a->away && src->bucket != home && dst->bucket == home;
            if (leaves)
                cuckoo_away_add(a, home);
            slot_put(to, dst->key, __atomic_load_n(&from->val, __ATOMIC_ACQUIRE));
            __atomic_store_n(&from->key, 0, __ATOMIC_RELEASE);
            if (returns)
                cuckoo_away_sub(a, home);
        }
        if (locked) {
            if (t->locks.lk)
                ckx_release(t, &ls);
            else
                lockset_unlock(t, &ls);
        }
        if (!ok)
            return false;
    }
    return true;
}

/* serial insert into an array nobody else can write (resize); false: no path */
static bool cuckoo_place_serial(struct cuckoo_table *t, struct cuckoo_array *a, cht_key_t k, cht_val_t v,
                                struct cuckoo_node *q)
{
    uint64_t h0, h1, b[CUCKOO_MAX_HASHES];
    cuckoo_hash2(t, k, &h0, &h1);
    cuckoo_candidates(t, a, h0, h1, b);
    int leaf = cuckoo_bfs(t, a, b, q);
    if (leaf < 0 || !cuckoo_exec_path(t, a, q, leaf, false))
        return false;
    for (unsigned i = 0; i < a->hashes; i++) {
        int w = cuckoo_free_slot(t, a, b[i]);
        if (w >= 0) {
            if (b[i] != b[0])
                cuckoo_away_add(a, b[0]);
            slot_put(cuckoo_bucket(t, a, b[i]) + w, k, v);
            return true;
        }
    }
    return false;
}

/* Rehashes the frozen array `old` into a fresh one twice (or more) as large and
 * publishes it; false when memory ran out (nothing published). */
static bool cuckoo_rehash(struct cuckoo_table *t, struct cuckoo_array *old, struct cuckoo_node *q)
{
    bool ok = true;
    {
        uint64_t buckets = old->nbuckets * 2;
        struct cuckoo_array *fresh = NULL;
        while (!fresh) {
            fresh = t->index == CUCKOO_IDX_MOD32 && buckets > UINT32_MAX
                        ? NULL
                        : cuckoo_array_new(buckets, t->ways, old->hashes, t->away);
            if (!fresh) {
                ok = false;
                break;
            }
            uint64_t slots = old->nbuckets * t->ways;
            for (uint64_t i = 0; i < slots && fresh; i++) {
                const struct cuckoo_slot *s = &old->slot[i];
                cht_key_t k = __atomic_load_n(&s->key, __ATOMIC_RELAXED);
                if (k && !cuckoo_place_serial(t, fresh, k, __atomic_load_n(&s->val, __ATOMIC_RELAXED), q)) {
                    cuckoo_array_free(fresh);   /* pathological: no path even at half load */
                    fresh = NULL;
                    buckets *= 2;
                }
            }
        }
        if (fresh) {
            fresh->older = old;
            __atomic_store_n(&t->cur, fresh, __ATOMIC_RELEASE);
            __atomic_fetch_add(&t->resizes, 1, __ATOMIC_RELAXED);
        }
    }
    return ok;
}

/* max_hashes: publishes a new header for the frozen array `old` with one more
 * hash function, sharing its slots (raw = NULL: the oldest header owns them).
 * Nothing moves: with b_i = h0 + i*h1 the first `hashes` candidates of every
 * key stay where they were, so every key is where the new header looks. The
 * header change is what readers and writers validate (t->cur), exactly as for
 * a doubling. false when out of memory (nothing published). */
static bool cuckoo_add_hash(struct cuckoo_table *t, struct cuckoo_array *old)
{
    struct cuckoo_array *h = calloc(1, sizeof *h);
    if (!h)
        return false;
    h->mask = old->mask;
    h->nbuckets = old->nbuckets;
    h->hashes = old->hashes + 1;
    h->bytes = sizeof *h;
    h->slot = old->slot;
    h->away = old->away;
    h->away_n = old->away_n;
    h->older = old;
    __atomic_store_n(&t->cur, h, __ATOMIC_RELEASE);
    __atomic_fetch_add(&t->hash_adds, 1, __ATOMIC_RELAXED);
    return true;
}

static bool cuckoo_rebuild(struct cuckoo_table *t, struct cuckoo_array *old, struct cuckoo_node *q, bool add_hash)
{
    return add_hash ? cuckoo_add_hash(t, old) : cuckoo_rehash(t, old, q);
}

/* lock=NAME: one resizer at a time (grow_lock); it marks the array frozen and
 * then takes and releases every stripe once with its one ctx: afterwards no
 * writer is inside a critical section on the array, and every later writer
 * (it takes its stripes after we released them) sees `frozen`, drops its
 * stripes without touching the seq words and waits for the new array. */
static bool cuckoo_grow_ext(struct cuckoo_table *t, struct cuckoo_array *seen, struct cuckoo_node *q, bool add_hash)
{
    unsigned spins = 0;
    uint32_t zero = 0;
    while (!__atomic_compare_exchange_n(&t->grow_lock, &zero, 1, false, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
        zero = 0;
        cuckoo_relax(&spins);
    }
    struct cuckoo_array *old = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
    bool ok = true;
    if (old == seen) {
        __atomic_store_n(&old->frozen, 1, __ATOMIC_RELEASE);
        void *ctx = ckx_ctx(t, 0);
        for (uint32_t i = 0; i < CUCKOO_NSTRIPES; i++) {
            cht_locks_lock(&t->locks, i, ctx);
            cht_locks_unlock(&t->locks, i, ctx);
        }
        ok = cuckoo_rebuild(t, old, q, add_hash);
        if (!ok)
            __atomic_store_n(&old->frozen, 0, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&t->grow_lock, 0, __ATOMIC_RELEASE);
    return ok;
}

/* Doubles the table (add_hash: adds a hash function) unless another thread
 * already replaced `seen`. Returns false only when memory ran out. */
static bool cuckoo_grow(struct cuckoo_table *t, struct cuckoo_array *seen, struct cuckoo_node *q, bool add_hash)
{
    if (t->locks.lk)
        return cuckoo_grow_ext(t, seen, q, add_hash);
    for (unsigned i = 0; i < CUCKOO_NSTRIPES; i++)
        stripe_lock(&t->stripe[i]);
    struct cuckoo_array *old = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
    bool ok = old != seen || cuckoo_rebuild(t, old, q, add_hash);
    for (unsigned i = CUCKOO_NSTRIPES; i-- > 0;)
        stripe_unlock(&t->stripe[i]);
    return ok;
}

/* ---------------- operations ---------------- */

/* locks the stripes of k's candidates in the current array and returns it */
static inline __attribute__((always_inline)) struct cuckoo_array *
cuckoo_lock_key(struct cuckoo_table *t, uint64_t h0, uint64_t h1, uint64_t *b, struct cuckoo_lockset *ls,
                const bool ext, const unsigned idx)
{
    for (;;) {
        struct cuckoo_array *a = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
        cuckoo_candidates_x(a, h0, h1, b, idx);
        lockset_build(ls, b, a->hashes);
        if (ext) {
            ckx_acquire(t, ls);
            if (__atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) == a &&
                !__atomic_load_n(&a->frozen, __ATOMIC_ACQUIRE)) {
                ckx_enter(t, ls);
                return a;
            }
            ckx_abandon(t, ls);
            ckx_wait_frozen(t, a);
            continue;
        }
        lockset_lock(t, ls);
        /* cur changes only under every stripe, and we hold some: now stable */
        if (__atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) == a)
            return a;
        lockset_unlock(t, ls);
    }
}

/* A writer's first try: k's first candidate bucket b0 under b0's stripe
 * alone (Cuckoo++'s filter of displaced keys, used for writes as the
 * pipelined get uses it for reads). Every writer that places a key whose
 * first candidate is b0 in another bucket sets b0's away bit first while it
 * holds b0's stripe (cuckoo_insert_general, cuckoo_exec_path; a rehash or an added hash
 * holds every stripe). So with that stripe held, the array current and the
 * bit clear, k is in b0 or in no bucket, and stays so until the stripe is
 * released: the write is decided on b0 alone, with one stripe and one
 * bucket line instead of all of them, and linearizes inside that critical
 * section. Returns the array with b0's stripe held and *b0 set, or NULL with
 * nothing held where the bit is set or the arrays have no away bits (then
 * the caller locks every candidate, cuckoo_lock_key). Not for lock=NAME (its
 * seq words are not the locks). */
static inline __attribute__((always_inline)) struct cuckoo_array *
cuckoo_lock_home(struct cuckoo_table *t, uint64_t h0, uint64_t *b0, const unsigned idx)
{
    if (!t->away)
        return NULL;
    for (;;) {
        struct cuckoo_array *a = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
        const uint64_t b = cuckoo_reduce(a, h0, idx);
        struct cuckoo_stripe *s = &t->stripe[stripe_of(b)];
        stripe_lock(s);
        /* cur changes only under every stripe: with ours held, a is current for good;
         * the bit is set under this stripe, which our acquire ordered after its setter's
         * release */
        if (__atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) == a) {
            if (!((__atomic_load_n(&a->away[b >> 6], __ATOMIC_RELAXED) >> (b & 63)) & 1)) {
                *b0 = b;
                return a;
            }
            stripe_unlock(s);
            return NULL;
        }
        stripe_unlock(s);
    }
}

enum cuckoo_write { CUCKOO_INSERT, CUCKOO_REMOVE, CUCKOO_UPDATE };

/* A write decided on k's first bucket (cuckoo_lock_home): 1/0 as the op
 * returns, or -1 with nothing held and nothing written where it cannot be
 * (b0's away bit set, no away bits, an insert into a full b0): the caller
 * takes the general path. h0: k's first hash. */
static inline __attribute__((always_inline)) int
cuckoo_home_write(struct cuckoo_table *t, cht_key_t k, uint64_t h0, cht_val_t v, const enum cuckoo_write op,
                  const unsigned idx)
{
    uint64_t b0;
    struct cuckoo_array *a = cuckoo_lock_home(t, h0, &b0, idx);
    if (!a)
        return -1;
    struct cuckoo_slot *s = cuckoo_bucket(t, a, b0);
    const int w = cuckoo_way_of(t, s, k);
    int r = w >= 0;
    if (op == CUCKOO_INSERT && w < 0) {
        const int e = cuckoo_way_of(t, s, 0);
        if (e >= 0)
            slot_put(s + e, k, v);
        r = e >= 0 ? 1 : -1;
    } else if (op == CUCKOO_INSERT) {
        r = 0;
    } else if (op == CUCKOO_REMOVE && w >= 0) {
        __atomic_store_n(&s[w].key, 0, __ATOMIC_RELEASE);
    } else if (w >= 0) {
        __atomic_store_n(&s[w].val, v, __ATOMIC_RELEASE);
    }
    stripe_unlock(&t->stripe[stripe_of(b0)]);
    if (op != CUCKOO_UPDATE && r > 0)
        cuckoo_count(t, op == CUCKOO_INSERT ? 1 : -1);
    return r;
}

/* get(), specialised on the index mode idx and the prefetch mode pf (constants) */
static inline __attribute__((always_inline)) bool
cuckoo_get_impl(struct cuckoo_table *t, cht_key_t k, cht_val_t *v, const unsigned idx, const unsigned pf)
{
    uint64_t h0, h1, b[CUCKOO_MAX_HASHES], ver[CUCKOO_MAX_HASHES];
    const unsigned W = t->ways;
    unsigned spins = 0;
    cuckoo_hash2(t, k, &h0, &h1);
    for (;;) {
        struct cuckoo_array *a = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
        const unsigned H = a->hashes;
        cuckoo_candidates_x(a, h0, h1, b, idx);
        if (pf)         /* 2: every candidate and its stripe word; 1: the alternates only */
            for (unsigned i = pf == 2 ? 0 : 1; i < H; i++) {
                const struct cuckoo_slot *s = cuckoo_bucket(t, a, b[i]);
                __builtin_prefetch(s);
                if (W > 4)
                    __builtin_prefetch(s + 4);
                if (pf == 2)
                    __builtin_prefetch(&t->stripe[stripe_of(b[i])]);
            }
        bool busy = false;
        for (unsigned i = 0; i < H; i++) {
            ver[i] = __atomic_load_n(&t->stripe[stripe_of(b[i])].seq, __ATOMIC_ACQUIRE);
            busy |= ver[i] & 1;
        }
        if (busy || __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) != a) {
            cuckoo_relax(&spins);
            continue;
        }
        bool found = false;
        cht_val_t val = 0;
        unsigned seen = H;
        for (unsigned i = 0; i < H && !found; i++) {
            const struct cuckoo_slot *s = cuckoo_bucket(t, a, b[i]);
            for (unsigned w = 0; w < W; w++)
                if (slot_key(&s[w]) == k) {
                    val = __atomic_load_n(&s[w].val, __ATOMIC_ACQUIRE);
                    found = true;
                    seen = i + 1;
                    break;
                }
        }
        /* the acquire loads above keep these re-reads after the slot reads */
        bool stable = true;
        for (unsigned i = 0; i < seen; i++)
            stable &= __atomic_load_n(&t->stripe[stripe_of(b[i])].seq, __ATOMIC_RELAXED) == ver[i];
        if (stable) {
            if (found && v)
                *v = val;
            return found;
        }
    }
}

/* Cold path of insert: every candidate is full. Searches the shortest kick
 * path and executes it. Returns 1 when the path was executed (or went stale:
 * the caller retries either way), 0 when there is no path. */
static __attribute__((noinline)) int cuckoo_make_room(struct cuckoo_table *t, struct cuckoo_array *a, const uint64_t *b)
{
    struct cuckoo_node q[CUCKOO_BFS_NODES];
    int leaf = cuckoo_bfs(t, a, b, q);
    if (leaf < 0)
        return 0;
    cuckoo_exec_path(t, a, q, leaf, true);
    return 1;
}

static __attribute__((noinline)) bool cuckoo_grow_cold(struct cuckoo_table *t, struct cuckoo_array *seen, bool add_hash)
{
    struct cuckoo_node q[CUCKOO_BFS_NODES];
    return cuckoo_grow(t, seen, q, add_hash);
}

/* insert past its first bucket: every candidate under its stripe (h0: k's first hash) */
static inline __attribute__((always_inline)) bool
cuckoo_insert_general(struct cuckoo_table *t, cht_key_t k, uint64_t h0, cht_val_t v, const bool ext, const unsigned idx)
{
    uint64_t b[CUCKOO_MAX_HASHES];
    struct cuckoo_lockset ls;
    unsigned tries = 0;
    const uint64_t h1 = cuckoo_hash_step(k);
    for (;;) {
        struct cuckoo_array *a = cuckoo_lock_key(t, h0, h1, b, &ls, ext, idx);
        if (cuckoo_find(t, a, b, k)) {
            lockset_unlock_x(t, &ls, ext);
            return false;
        }
        for (unsigned i = 0; i < a->hashes; i++) {
            int w = cuckoo_free_slot(t, a, b[i]);
            if (w >= 0) {
                if (b[i] != b[0])
                    cuckoo_away_add(a, b[0]);
                slot_put(cuckoo_bucket(t, a, b[i]) + w, k, v);
                lockset_unlock_x(t, &ls, ext);
                cuckoo_count(t, 1);
                return true;
            }
        }
        lockset_unlock_x(t, &ls, ext);
        /* every candidate is full: make room along the shortest kick path */
        if (++tries <= CUCKOO_MAX_TRIES && cuckoo_make_room(t, a, b))
            continue;
        /* no path: one more hash function (max_hashes), else double (resize=1) */
        bool add_hash = a->hashes < t->max_hashes;
        if (!add_hash && !t->resize) {
            __atomic_fetch_add(&t->full_failures, 1, __ATOMIC_RELAXED);
            return false;
        }
        if (!cuckoo_grow_cold(t, a, add_hash)) {
            __atomic_fetch_add(&t->alloc_failures, 1, __ATOMIC_RELAXED);
            return false;
        }
        tries = 0;
    }
}

/* remove (v unused) or update of k past its first bucket: its slot's key or
 * value stored under every candidate's stripe (h0: k's first hash) */
static inline __attribute__((always_inline)) bool
cuckoo_store_general(struct cuckoo_table *t, cht_key_t k, uint64_t h0, cht_val_t v, const bool remove, const bool ext,
                     const unsigned idx)
{
    uint64_t b[CUCKOO_MAX_HASHES];
    struct cuckoo_lockset ls;
    struct cuckoo_array *a = cuckoo_lock_key(t, h0, cuckoo_hash_step(k), b, &ls, ext, idx);
    struct cuckoo_slot *s = cuckoo_find(t, a, b, k);
    if (s && remove)
        __atomic_store_n(&s->key, 0, __ATOMIC_RELEASE);
    else if (s)
        __atomic_store_n(&s->val, v, __ATOMIC_RELEASE);
    if (s && remove && (uint64_t)(s - a->slot) / t->ways != b[0])
        cuckoo_away_sub(a, b[0]);       /* (we hold b0's stripe: it is a candidate's) */
    lockset_unlock_x(t, &ls, ext);
    if (s && remove)
        cuckoo_count(t, -1);
    return s != NULL;
}

/* The writes: first on k's first bucket alone (not with lock=NAME), else the general path */
static inline __attribute__((always_inline)) bool
cuckoo_insert_impl(struct cuckoo_table *t, cht_key_t k, cht_val_t v, const bool ext, const unsigned idx)
{
    const uint64_t h0 = cht_hash(t->hash, k);
    const int r = ext ? -1 : cuckoo_home_write(t, k, h0, v, CUCKOO_INSERT, idx);
    return r >= 0 ? r : cuckoo_insert_general(t, k, h0, v, ext, idx);
}

static inline __attribute__((always_inline)) bool
cuckoo_remove_impl(struct cuckoo_table *t, cht_key_t k, const bool ext, const unsigned idx)
{
    const uint64_t h0 = cht_hash(t->hash, k);
    const int r = ext ? -1 : cuckoo_home_write(t, k, h0, 0, CUCKOO_REMOVE, idx);
    return r >= 0 ? r : cuckoo_store_general(t, k, h0, 0, true, ext, idx);
}

static inline __attribute__((always_inline)) bool
cuckoo_update_impl(struct cuckoo_table *t, cht_key_t k, cht_val_t v, const bool ext, const unsigned idx)
{
    const uint64_t h0 = cht_hash(t->hash, k);
    const int r = ext ? -1 : cuckoo_home_write(t, k, h0, v, CUCKOO_UPDATE, idx);
    return r >= 0 ? r : cuckoo_store_general(t, k, h0, v, false, ext, idx);
}

/* The public ops test one variant word (the default is 0: index=mask,
 * prefetch=2, no lock=NAME) and call the inlined default copy, or a noinline
 * function that switches to the copy specialised for the options. */
#define CUCKOO_GET_VARIANTS(X) X(1, CUCKOO_IDX_MASK, 1) X(2, CUCKOO_IDX_MASK, 0) X(3, CUCKOO_IDX_MOD64, 2) \
    X(4, CUCKOO_IDX_MOD64, 1) X(5, CUCKOO_IDX_MOD64, 0) X(6, CUCKOO_IDX_MOD32, 2) X(7, CUCKOO_IDX_MOD32, 1) \
    X(8, CUCKOO_IDX_MOD32, 0)
#define CUCKOO_WRITE_VARIANTS(X) X(1, true, CUCKOO_IDX_MASK) X(2, false, CUCKOO_IDX_MOD64) \
    X(3, true, CUCKOO_IDX_MOD64) X(4, false, CUCKOO_IDX_MOD32) X(5, true, CUCKOO_IDX_MOD32)

static inline unsigned cuckoo_get_variant(unsigned idx, unsigned pf) { return 3 * idx + (2 - pf); }
static inline unsigned cuckoo_write_variant(unsigned idx, bool ext) { return 2 * idx + ext; }


/* get() of the default shape (2 hashes, 4 ways, prefetch=2; any index=),
 * with the loops unrolled: both candidate lines and their stripe words are
 * prefetched at once, the eight keys compared at once, and the value of the
 * hit selected without a branch on hit or miss (a coin toss at r = 2i, whose
 * mispredicts would put the next op's hash latency back on the clock; see
 * clht_lb.c lb_search_get). Both stripe words are re-checked, where the
 * general loop re-checks only those of the buckets it read: at most a retry
 * more, never a wrong answer. Another shape (a third hash added by
 * max_hashes, say) falls back to the general loop. */
static __attribute__((noinline)) bool cuckoo_get_general(struct cuckoo_table *t, cht_key_t k, cht_val_t *v)
{
    switch (t->index) {
    case CUCKOO_IDX_MOD64: return cuckoo_get_impl(t, k, v, CUCKOO_IDX_MOD64, 2);
    case CUCKOO_IDX_MOD32: return cuckoo_get_impl(t, k, v, CUCKOO_IDX_MOD32, 2);
    default: return cuckoo_get_impl(t, k, v, CUCKOO_IDX_MASK, 2);
    }
}

static inline __attribute__((always_inline)) bool
cuckoo_get_2x4_hashed(struct cuckoo_table *t, cht_key_t k, uint64_t h0, uint64_t h1, cht_val_t *v, const unsigned idx)
{
    unsigned spins = 0;
    for (;;) {
        struct cuckoo_array *a = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
        if (__builtin_expect(a->hashes != 2, 0))
            return cuckoo_get_general(t, k, v);
        uint64_t b0 = cuckoo_reduce(a, h0, idx), b1 = cuckoo_reduce(a, h0 + h1, idx);
        const struct cuckoo_slot *s0 = &a->slot[b0 * 4], *s1 = &a->slot[b1 * 4];
        const uint64_t *q0 = &t->stripe[stripe_of(b0)].seq, *q1 = &t->stripe[stripe_of(b1)].seq;
        __builtin_prefetch(s0);
        __builtin_prefetch(s1);
        __builtin_prefetch(q0);
        __builtin_prefetch(q1);
        uint64_t ver0 = __atomic_load_n(q0, __ATOMIC_ACQUIRE), ver1 = __atomic_load_n(q1, __ATOMIC_ACQUIRE);
        if (((ver0 | ver1) & 1) || __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) != a) {
            cuckoo_relax(&spins);
            continue;
        }
        cht_val_t val0, val1;
        const unsigned m0 = cuckoo_match4_val(s0, k, &val0), m1 = cuckoo_match4_val(s1, k, &val1);
        const cht_val_t val = m0 ? val0 : val1;
        const bool m = (m0 | m1) != 0;
        /* the fence keeps these re-reads after the slot reads */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if ((__atomic_load_n(q0, __ATOMIC_RELAXED) == ver0) & (__atomic_load_n(q1, __ATOMIC_RELAXED) == ver1)) {
            if (v)
                *v = val;
            return m;
        }
    }
}

static inline __attribute__((always_inline)) bool cuckoo_get_2x4(struct cuckoo_table *t, cht_key_t k, cht_val_t *v,
                                                                 const unsigned idx)
{
    uint64_t h0, h1;
    cuckoo_hash2(t, k, &h0, &h1);
    return cuckoo_get_2x4_hashed(t, k, h0, h1, v, idx);
}

static __attribute__((noinline)) bool cuckoo_get_other(struct cuckoo_table *t, cht_key_t k, cht_val_t *v)
{
    switch (t->get_variant) {
#define X(n, idx, pf) \
    case n: return pf == 2 && t->ways == 4 ? cuckoo_get_2x4(t, k, v, idx) : cuckoo_get_impl(t, k, v, idx, pf);
    CUCKOO_GET_VARIANTS(X)
#undef X
    }
    return false;
}

static bool cuckoo_get(void *tp, cht_key_t k, cht_val_t *v)
{
    struct cuckoo_table *t = tp;
    if (__builtin_expect(t->get_variant != 0, 0))
        return cuckoo_get_other(t, k, v);
    if (__builtin_expect(t->ways == 4, 1))
        return cuckoo_get_2x4(t, k, v, CUCKOO_IDX_MASK);
    return cuckoo_get_general(t, k, v);
}

/* --batch: hash every key and prefetch all its candidate buckets before
 * resolving any, so the misses of n keys overlap (DRAMHiT, EuroSys'23; the
 * indexlib note's prefetch of both blocks); then n ordinary gets. */
static void cuckoo_get_batch(void *tp, const cht_key_t *keys, size_t n, cht_val_t *vals, bool *found)
{
    struct cuckoo_table *t = tp;
    const struct cuckoo_array *a = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < n; i++) {
        uint64_t h0, h1, b[CUCKOO_MAX_HASHES];
        cuckoo_hash2(t, keys[i], &h0, &h1);
        cuckoo_candidates(t, a, h0, h1, b);
        for (unsigned j = 0; j < a->hashes; j++)
            __builtin_prefetch(cuckoo_bucket(t, a, b[j]));
    }
    for (size_t i = 0; i < n; i++)
        found[i] = cuckoo_get(tp, keys[i], &vals[i]);
}

/* --pipeline, every candidate bucket of k and its stripe (seqlock) word:
 * the lines a whole get reads first; for a writer the stripe words for
 * ownership (it will lock them) and the buckets too (it may write one). */
static void cuckoo_prefetch_all(const struct cuckoo_table *t, const struct cuckoo_array *a, uint64_t h0, uint64_t h1,
                                bool write)
{
    uint64_t b[CUCKOO_MAX_HASHES];
    if (__builtin_expect(t->index == CUCKOO_IDX_MASK && t->ways == 4 && a->hashes == 2, 1)) {
        /* the default shape, unrolled as cuckoo_get_2x4 (the general loop below cost 130
         * instructions per op more than a get in cachegrind; this about 30) */
        uint64_t b0 = h0 & a->mask, b1 = (h0 + h1) & a->mask;
        const uint64_t *q0 = &t->stripe[stripe_of(b0)].seq, *q1 = &t->stripe[stripe_of(b1)].seq;
        if (write) {
            __builtin_prefetch(&a->slot[b0 * 4], 1);
            __builtin_prefetch(&a->slot[b1 * 4], 1);
            __builtin_prefetch(q0, 1);
            __builtin_prefetch(q1, 1);
        } else {
            __builtin_prefetch(&a->slot[b0 * 4]);
            __builtin_prefetch(&a->slot[b1 * 4]);
            __builtin_prefetch(q0);
            __builtin_prefetch(q1);
        }
        return;
    }
    cuckoo_candidates(t, a, h0, h1, b);
    for (unsigned j = 0; j < a->hashes; j++) {
        const struct cuckoo_slot *s = cuckoo_bucket(t, a, b[j]);
        const uint64_t *q = &t->stripe[stripe_of(b[j])].seq;
        /* (the rw argument of __builtin_prefetch must be a constant); a
         * bucket of more than 4 slots spans two lines */
        if (write) {
            __builtin_prefetch(s, 1);
            __builtin_prefetch(q, 1);
            if (t->ways > 4)
                __builtin_prefetch(s + 4, 1);
        } else {
            __builtin_prefetch(s);
            __builtin_prefetch(q);
            if (t->ways > 4)
                __builtin_prefetch(s + 4);
        }
    }
}

static bool cuckoo_insert(void *tp, cht_key_t k, cht_val_t v);
static bool cuckoo_remove(void *tp, cht_key_t k);
static bool cuckoo_update(void *tp, cht_key_t k, cht_val_t v);

/* --pipeline takes a get in two steps where the get has the default shape
 * (cuckoo_get_2x4's: two hashes, four ways, index=mask; one flag for the
 * table's part, as the atomic loads of cur keep the compiler from merging
 * repeated tests) */
static inline bool cuckoo_pipe_two_steps(const struct cuckoo_table *t, const struct cuckoo_array *a)
{
    return t->pipe_2x4 & (a->hashes == 2);
}

/* What a batch's gets read of the table and of the array current when the
 * batch began, in locals: the ops' stores (uint64_t, as the array's fields)
 * would otherwise make every op reload them. Arrays live until destroy, so
 * an array that a resize has replaced still names memory; a step's read
 * checks that it is still current (cuckoo_bucket_read) and, where it is not,
 * runs the whole get. */
struct cuckoo_pipe_view {
    const struct cuckoo_array *a;
    const struct cuckoo_slot *slot;
    const uint64_t *away;
    struct cuckoo_stripe *stripe;
    uint64_t mask;
    bool home_writes;           /* writes go to cuckoo_home_write first (the default shape, away bits,
                                 * the seqlock words as locks) */
};

static inline struct cuckoo_pipe_view cuckoo_pipe_view_of(struct cuckoo_table *t, const struct cuckoo_array *a)
{
    return (struct cuckoo_pipe_view){ a, a->slot, a->away, t->stripe, a->mask,
                                  cuckoo_pipe_two_steps(t, a) && a->away && t->write_variant == 0 };
}

/* --pipeline (cht.h pipe_start/pipe_step). Start: the first hash into the
 * op's state; an op on the default shape prefetches only its first candidate
 * bucket, that bucket's stripe word and its away word (inserts fill the first
 * candidate first, so at the default density most present keys are there:
 * one miss instead of two; a writer's for ownership, as cuckoo_lock_home decides
 * most writes there), anything else every candidate (cuckoo_prefetch_all). */
static inline __attribute__((always_inline)) void
cuckoo_pipe_start_op(struct cuckoo_table *t, const struct cuckoo_pipe_view *v, struct cht_pipe_op *op, const bool two,
                     const bool away, const enum cht_hash_kind hash)
{
    const uint64_t h0 = cht_hash(hash, op->key);    /* h1 when needed: few gets need it */
    op->state[0] = h0;
    if (__builtin_expect(op->kind == CHT_PIPE_GET && two, 1)) {
        const uint64_t b0 = h0 & v->mask;
        __builtin_prefetch(&v->slot[b0 * 4]);
        __builtin_prefetch(&v->stripe[stripe_of(b0)].seq);
        if (away)
            __builtin_prefetch(&v->away[b0 >> 6]);
    } else if (v->home_writes) {
        /* a writer: what cuckoo_lock_home reads, the stripe and bucket for ownership */
        const uint64_t b0 = h0 & v->mask;
        __builtin_prefetch(&v->slot[b0 * 4], 1);
        __builtin_prefetch(&v->stripe[stripe_of(b0)].seq, 1);
        __builtin_prefetch(&v->away[b0 >> 6]);
    } else {
        cuckoo_prefetch_all(t, v->a, h0, cuckoo_hash_step(op->key), op->kind != CHT_PIPE_GET);
    }
}

/* the default (two hashes, away bits, hash=fold) in a loop of its own, where
 * the shape and the hash are constants: 23 instructions per op, not 36
 * (callgrind, gets at i = 1M) */
static void cuckoo_pipe_start(void *tp, struct cht_pipe_op *ops, unsigned n)
{
    struct cuckoo_table *t = tp;
    const struct cuckoo_array *a = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
    const struct cuckoo_pipe_view v = cuckoo_pipe_view_of(t, a);
    const bool two = cuckoo_pipe_two_steps(t, a);
    if (__builtin_expect(two && v.away && t->hash == CHT_HASH_FOLD, 1))
        for (unsigned i = 0; i < n; i++)
            cuckoo_pipe_start_op(t, &v, &ops[i], true, true, CHT_HASH_FOLD);
    else
        for (unsigned i = 0; i < n; i++)
            cuckoo_pipe_start_op(t, &v, &ops[i], two, v.away != NULL, t->hash);
}

/* A get step's read of bucket b of the view's array under its stripe's
 * seqlock: false where a writer holds the stripe or the array is no longer
 * current; else *m is nonzero where the bucket holds k, *val its value
 * (cuckoo_match4_val's) and *ver the stripe's version, which
 * the caller re-reads with cuckoo_bucket_unchanged to accept the read. */
static inline __attribute__((always_inline)) bool
cuckoo_bucket_read(struct cuckoo_table *t, const struct cuckoo_pipe_view *v, uint64_t b, cht_key_t k, uint64_t *ver,
                   unsigned *m, cht_val_t *val)
{
    const struct cuckoo_slot *s = &v->slot[b * 4];
    *ver = __atomic_load_n(&v->stripe[stripe_of(b)].seq, __ATOMIC_ACQUIRE);
    if ((*ver & 1) || __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) != v->a)
        return false;
    *m = cuckoo_match4_val(s, k, val);
    return true;
}

/* bucket b's stripe still at version ver (the fence keeps this re-read after
 * cuckoo_bucket_read's slot reads) */
static inline __attribute__((always_inline)) bool cuckoo_bucket_unchanged(const struct cuckoo_pipe_view *v, uint64_t b,
                                                                    uint64_t ver)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&v->stripe[stripe_of(b)].seq, __ATOMIC_RELAXED) == ver;
}

/* A get's first step reads the first candidate bucket under its stripe's
 * seqlock: k there (the versions equal and even around the read) ends the
 * get, linearized at that read as cuckoo_get_2x4's hit would be. Not there, and
 * the bucket's away bit (read inside the same window) clear: no key whose
 * first candidate this bucket is lives elsewhere, so k is in neither
 * candidate, and the miss is linearized at that read too. A writer sets the
 * bit under this stripe before it places such a key elsewhere (cuckoo_away_add)
 * and clears it under this stripe once none is left (cuckoo_away_sub), so a read
 * that saw the version unchanged around it and the bit clear ran while no
 * such key was elsewhere. (At r = 2i half the gets look for absent keys:
 * they now read one bucket, not two.) Not there, bit set: the second bucket
 * and its stripe are prefetched, and the op keeps the first stripe's version
 * and the array (state[1] and val: a get's val is the table's until it
 * completes; arrays live until destroy, so the address names one). The
 * second step reads the second bucket alone under its stripe's seqlock and
 * ends the get if the first stripe's version is still the one seen: no
 * writer touched the first bucket in between (a kick of k into it, a resize:
 * every write there bumps that version), so at the second read k was in
 * neither candidate, and the miss is linearized there. A writer in the way
 * runs the whole get, both buckets under both versions.
 *
 * That the array read was current: a second step checks it as it reads (and
 * so for its first step too: arrays are replaced, never reinstated); first
 * steps are checked once per call, after all of them (cuckoo_pipe_step_two): the
 * array current when the call began and still current after its last read
 * was current at every read in between, and a resize in between (by a
 * writer of this call or another thread) runs the call's gets again whole. */
/* the whole get, hashed at the start (a writer in the way, another array) */
static __attribute__((noinline)) int cuckoo_pipe_get_whole(struct cuckoo_table *t, struct cht_pipe_op *op)
{
    return cuckoo_get_2x4_hashed(t, op->key, op->state[0], cuckoo_hash_step(op->key), &op->val, CUCKOO_IDX_MASK);
}

/* the second step (out of line: about one get in twenty takes it) */
static __attribute__((noinline)) int cuckoo_pipe_get_second(struct cuckoo_table *t, struct cht_pipe_op *op)
{
    const struct cuckoo_array *a = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
    const struct cuckoo_pipe_view v = cuckoo_pipe_view_of(t, a);
    const cht_key_t k = op->key;
    const uint64_t h0 = op->state[0], b0 = h0 & v.mask, b1 = (h0 + cuckoo_hash_step(k)) & v.mask;
    uint64_t ver;
    unsigned m;
    cht_val_t val;
    if (op->val == (cht_val_t)(uintptr_t)a && cuckoo_bucket_read(t, &v, b1, k, &ver, &m, &val) &&
        __builtin_expect(cuckoo_bucket_unchanged(&v, b1, ver) & cuckoo_bucket_unchanged(&v, b0, op->state[1]), 1)) {
        op->val = val;
        return m != 0;
    }
    return cuckoo_pipe_get_whole(t, op);
}

#define CUCKOO_PIPE_WHOLE 2 /* cuckoo_pipe_get_first: a writer was in the way */

/* The first step on the view's array (the call checks that it was current). */
static inline __attribute__((always_inline)) int cuckoo_pipe_get_first(const struct cuckoo_pipe_view *v,
                                                                       struct cht_pipe_op *op, const bool away)
{
    const cht_key_t k = op->key;
    const uint64_t h0 = op->state[0], b0 = h0 & v->mask;
    const struct cuckoo_slot *s = &v->slot[b0 * 4];
    const uint64_t *q = &v->stripe[stripe_of(b0)].seq;
    const uint64_t ver = __atomic_load_n(q, __ATOMIC_ACQUIRE);
    cht_val_t val;
    const unsigned m = cuckoo_match4_val(s, k, &val);
    /* all ones: k may be in its second bucket, which is prefetched. With the away
     * bits few are: a branch. Without them, hit or not is a coin toss at r = 2i:
     * no branch on it; a hit prefetches the first bucket again (cached: free) */
    uint64_t on;
    if (away) {
        on = (uint64_t)0 - ((m == 0) & (__atomic_load_n(&v->away[b0 >> 6], __ATOMIC_ACQUIRE) >> (b0 & 63)) & 1);
        if (__builtin_expect(on != 0, 0)) {
            const uint64_t b1 = (h0 + cuckoo_hash_step(k)) & v->mask;
            __builtin_prefetch(&v->slot[b1 * 4]);
            __builtin_prefetch(&v->stripe[stripe_of(b1)].seq);
        }
    } else {
        on = (uint64_t)0 - (m == 0);
        const uint64_t other = (h0 + cuckoo_hash_step(k)) & v->mask;
        const uint64_t b1 = b0 ^ ((b0 ^ other) & on);   /* on ? other : b0, without a branch */
        __builtin_prefetch(&v->slot[b1 * 4]);
        __builtin_prefetch(&v->stripe[stripe_of(b1)].seq);
    }
    /* the fence keeps this re-read after the slot reads; an odd version (a
     * writer held the stripe) is tested here, after the reads, in the same
     * branch */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__builtin_expect(((__atomic_load_n(q, __ATOMIC_RELAXED) ^ ver) | (ver & 1)) != 0, 0))
        return CUCKOO_PIPE_WHOLE;
    /* hit or not, without a branch (a coin toss at r = 2i): 1 / CHT_PIPE_AGAIN / 0 */
    const uint64_t hit = (uint64_t)0 - (m != 0);
    op->state[1] = ver;
    op->val = (val & hit) | ((cht_val_t)(uintptr_t)v->a & ~hit);
    op->stage = (uint32_t)(on & 1);         /* was 0 */
    return (int)(hit & 1) - (int)(on & 1);
}

/* a pipelined write past its first bucket (out of line: few take it) */
static __attribute__((noinline)) int cuckoo_pipe_write_general(struct cuckoo_table *t, const struct cht_pipe_op *op)
{
    if (op->kind == CHT_PIPE_INSERT)
        return cuckoo_insert_general(t, op->key, op->state[0], op->val, false, CUCKOO_IDX_MASK);
    return cuckoo_store_general(t, op->key, op->state[0], op->val, op->kind == CHT_PIPE_REMOVE, false, CUCKOO_IDX_MASK);
}

/* a pipelined write where the view allows home writes: k's first hash from the start */
static inline __attribute__((always_inline)) int cuckoo_pipe_write(struct cuckoo_table *t, const struct cht_pipe_op *op)
{
    int r;
    if (op->kind == CHT_PIPE_INSERT)
        r = cuckoo_home_write(t, op->key, op->state[0], op->val, CUCKOO_INSERT, CUCKOO_IDX_MASK);
    else if (op->kind == CHT_PIPE_REMOVE)
        r = cuckoo_home_write(t, op->key, op->state[0], 0, CUCKOO_REMOVE, CUCKOO_IDX_MASK);
    else
        r = cuckoo_home_write(t, op->key, op->state[0], op->val, CUCKOO_UPDATE, CUCKOO_IDX_MASK);
    return r >= 0 ? r : cuckoo_pipe_write_general(t, op);
}

/* a resize during a step call: its gets run again, whole (rare) */
static __attribute__((noinline)) void cuckoo_pipe_redo_gets(struct cuckoo_table *t, struct cht_pipe_op *ops, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (ops[i].kind == CHT_PIPE_GET)
            ops[i].result = cuckoo_pipe_get_whole(t, &ops[i]);
}

/* Step on an array of the default shape (two hashes, four ways, index=mask):
 * gets as above, writers decided on their first bucket where the view allows
 * (else the ordinary operation); the view in registers, with or without away
 * bits as a constant. */
static inline __attribute__((always_inline)) void
cuckoo_pipe_step_two(struct cuckoo_table *t, const struct cuckoo_array *a, struct cht_pipe_op *ops, unsigned n,
                     const bool away)
{
    const struct cuckoo_pipe_view v = cuckoo_pipe_view_of(t, a);
    for (unsigned i = 0; i < n; i++) {
        struct cht_pipe_op *op = &ops[i];
        int r;
        if (__builtin_expect(op->kind != CHT_PIPE_GET, 0))
            r = v.home_writes ? cuckoo_pipe_write(t, op)
                              : cht_pipe_write(t, op, cuckoo_insert, cuckoo_remove, cuckoo_update);
        else if (__builtin_expect(op->stage != 0, 0))
            r = cuckoo_pipe_get_second(t, op);
        else if (__builtin_expect((r = cuckoo_pipe_get_first(&v, op, away)) == CUCKOO_PIPE_WHOLE, 0))
            r = cuckoo_pipe_get_whole(t, op);
        op->result = r;     /* only a first step answers CHT_PIPE_AGAIN (and sets stage) */
    }
    /* the fence keeps this load after the first steps' reads */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__builtin_expect(__atomic_load_n(&t->cur, __ATOMIC_RELAXED) != a, 0))
        cuckoo_pipe_redo_gets(t, ops, n);
}

/* Step: the default shape as above (away bits on: the default, apart), any
 * other array's gets whole and its writes as the ordinary operations. */
static void cuckoo_pipe_step(void *tp, struct cht_pipe_op *ops, unsigned n)
{
    struct cuckoo_table *t = tp;
    const struct cuckoo_array *a = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
    if (__builtin_expect(cuckoo_pipe_two_steps(t, a), 1)) {
        if (__builtin_expect(a->away != NULL, 1))
            cuckoo_pipe_step_two(t, a, ops, n, true);
        else
            cuckoo_pipe_step_two(t, a, ops, n, false);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        struct cht_pipe_op *op = &ops[i];
        op->result = op->kind != CHT_PIPE_GET ? cht_pipe_write(tp, op, cuckoo_insert, cuckoo_remove, cuckoo_update)
                                              : cuckoo_get(tp, op->key, &op->val);
    }
}

static __attribute__((noinline)) bool cuckoo_insert_other(struct cuckoo_table *t, cht_key_t k, cht_val_t v)
{
    switch (t->write_variant) {
#define X(n, ext, idx) case n: return cuckoo_insert_impl(t, k, v, ext, idx);
    CUCKOO_WRITE_VARIANTS(X)
#undef X
    }
    return false;
}

static bool cuckoo_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct cuckoo_table *t = tp;
    if (__builtin_expect(t->write_variant != 0, 0))
        return cuckoo_insert_other(t, k, v);
    return cuckoo_insert_impl(t, k, v, false, CUCKOO_IDX_MASK);
}

static __attribute__((noinline)) bool cuckoo_remove_other(struct cuckoo_table *t, cht_key_t k)
{
    switch (t->write_variant) {
#define X(n, ext, idx) case n: return cuckoo_remove_impl(t, k, ext, idx);
    CUCKOO_WRITE_VARIANTS(X)
#undef X
    }
    return false;
}

static bool cuckoo_remove(void *tp, cht_key_t k)
{
    struct cuckoo_table *t = tp;
    if (__builtin_expect(t->write_variant != 0, 0))
        return cuckoo_remove_other(t, k);
    return cuckoo_remove_impl(t, k, false, CUCKOO_IDX_MASK);
}

static __attribute__((noinline)) bool cuckoo_update_other(struct cuckoo_table *t, cht_key_t k, cht_val_t v)
{
    switch (t->write_variant) {
#define X(n, ext, idx) case n: return cuckoo_update_impl(t, k, v, ext, idx);
    CUCKOO_WRITE_VARIANTS(X)
#undef X
    }
    return false;
}

static bool cuckoo_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct cuckoo_table *t = tp;
    if (__builtin_expect(t->write_variant != 0, 0))
        return cuckoo_update_other(t, k, v);
    return cuckoo_update_impl(t, k, v, false, CUCKOO_IDX_MASK);
}

/* ---------------- lifecycle ---------------- */

static void cuckoo_destroy(void *tp);

static void *cuckoo_create(const struct cht_config *cfg, char *err, size_t len)
{
    uint64_t hashes = 2, max_hashes = 0, ways = 4, resize = 1, prefetch = 2, away = 1;
    unsigned hash = CHT_HASH_DEFAULT, index = CUCKOO_IDX_MASK;
    if (!cht_option_uint(cfg->options, "cuckoo", "hashes", 2, CUCKOO_MAX_HASHES, &hashes, err, len) ||
        !cht_option_uint(cfg->options, "cuckoo", "max_hashes", 2, CUCKOO_MAX_HASHES, &max_hashes, err, len) ||
        !cht_option_uint(cfg->options, "cuckoo", "ways", 1, CUCKOO_MAX_WAYS, &ways, err, len) ||
        !cht_option_uint(cfg->options, "cuckoo", "resize", 0, 1, &resize, err, len) ||
        !cht_option_uint(cfg->options, "cuckoo", "prefetch", 0, 2, &prefetch, err, len) ||
        !cht_option_uint(cfg->options, "cuckoo", "away", 0, 1, &away, err, len) ||
        !cht_option_enum(cfg->options, "cuckoo", "index", cuckoo_index_names, &index, err, len) ||
        !cht_option_enum(cfg->options, "cuckoo", "hash", cht_hash_names, &hash, err, len))
        return NULL;
    if (!max_hashes)
        max_hashes = hashes;
    if (max_hashes < hashes) {
        snprintf(err, len, "--table cuckoo: option max_hashes=%llu: expected %llu..%d (at least hashes)",
                 (unsigned long long)max_hashes, (unsigned long long)hashes, CUCKOO_MAX_HASHES);
        return NULL;
    }
    /* at most 2^55 buckets x 8 ways x 16 bytes = 2^62 bytes: no size_t overflow */
    uint64_t buckets = cht_initial_units(cfg, (double)ways, CUCKOO_MIN_BUCKETS, 1ull << 55, "buckets", err, len);
    if (!buckets)
        return NULL;
    if (index != CUCKOO_IDX_MASK) {     /* modulo: the exact bucket count, not a power of two */
        double density = cfg->density > 0 ? cfg->density : 0.5;
        double want = (double)(cfg->initial ? cfg->initial : 1) / density / (double)ways;
        buckets = (uint64_t)want;
        if ((double)buckets < want)
            buckets++;                  /* ceil */
        if (buckets < CUCKOO_MIN_BUCKETS)
            buckets = CUCKOO_MIN_BUCKETS;
    }
    if (!resize && !cht_capacity_holds_initial(cfg, buckets * ways, err, len))
        return NULL;
    if (index == CUCKOO_IDX_MOD32 && buckets > UINT32_MAX) {
        snprintf(err, len, "--table cuckoo: option index=mod32: %llu buckets do not fit 32 bits (use mod64)",
                 (unsigned long long)buckets);
        return NULL;
    }

    struct cuckoo_table *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->hashes = (unsigned)hashes;
    t->max_hashes = (unsigned)max_hashes;
    t->ways = (unsigned)ways;
    t->resize = resize;
    t->prefetch = (unsigned)prefetch;
    t->index = (enum cuckoo_index)index;
    t->get_variant = cuckoo_get_variant(index, t->prefetch);
    t->pipe_2x4 = t->get_variant == 0 && t->ways == 4;
    t->away = away;
    t->write_variant = cuckoo_write_variant(index, cfg->lock != NULL);
    t->hash = hash;
    t->threads = cfg->max_threads ? cfg->max_threads : 1;
    t->stripe = cht_alloc_zeroed(CUCKOO_NSTRIPES * sizeof *t->stripe);
    t->count = cht_thread_counters_new(t->threads);
    t->cur = cuckoo_array_new(buckets, t->ways, t->hashes, t->away);
    if (!t->stripe || !t->count || !t->cur) {
        snprintf(err, len, "out of memory (%llu buckets x %u ways)", (unsigned long long)buckets, t->ways);
        free(t->stripe);
        free(t->count);
        if (t->cur)
            cuckoo_array_free(t->cur);
        free(t);
        return NULL;
    }
    /* lock=NAME: a writer holds at most max_hashes stripes at once (its key's candidates, or the
     * two buckets of one path move, or one during the resize pass): that many ctxs per thread */
    if (cfg->lock && !cht_locks_init(&t->locks, cfg->lock, cfg, CUCKOO_NSTRIPES, t->threads, t->max_hashes,
                                     "cuckoo", err, len)) {
        cuckoo_destroy(t);
        return NULL;
    }
    return t;
}

static void cuckoo_destroy(void *tp)
{
    struct cuckoo_table *t = tp;
    for (struct cuckoo_array *a = t->cur, *next; a; a = next) {
        next = a->older;
        cuckoo_array_free(a);
    }
    cht_locks_destroy(&t->locks);
    free(t->stripe);
    free(t->count);
    free(t);
}

static void cuckoo_thread_init(void *tp, unsigned tid)
{
    struct cuckoo_table *t = tp;
    cuckoo_tid = cht_thread_slot(tid, t->threads); /* asserts tid < max_threads */
}

static size_t cuckoo_size(void *tp)
{
    struct cuckoo_table *t = tp;
    return cht_count_as_size(cht_thread_counters_sum(t->count, t->threads));
}

static void cuckoo_stats(void *tp, struct cht_stats *s)
{
    struct cuckoo_table *t = tp;
    struct cuckoo_array *a = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
    s->bytes = sizeof *t + CUCKOO_NSTRIPES * sizeof *t->stripe + t->threads * sizeof *t->count;
    if (t->locks.lk)
        s->bytes += cht_locks_bytes(&t->locks);
    for (struct cuckoo_array *o = a; o; o = o->older)
        s->bytes += o->bytes;
    s->buckets = (size_t)a->nbuckets * t->ways;       /* slot capacity: size/buckets = occupancy */
    s->resizes = __atomic_load_n(&t->resizes, __ATOMIC_RELAXED);
    s->full_failures = __atomic_load_n(&t->full_failures, __ATOMIC_RELAXED);
    s->alloc_failures = __atomic_load_n(&t->alloc_failures, __ATOMIC_RELAXED);
    /* the table's own counters (--json "table_counters", --table-counters-csv) */
    cht_stats_counter(s, "hash_functions", a->hashes);
    cht_stats_counter(s, "hash_adds", (double)__atomic_load_n(&t->hash_adds, __ATOMIC_RELAXED));
}

/* probe_lines (cht.h): distinct 64-byte lines of the bucket array that a get
 * of k reads, replayed without timing: the candidate buckets in order, each
 * slot's key up to k's (and k's value), every slot of a bucket without k.
 * A hit in the first candidate is 1 line (4 ways of 16 bytes = one aligned
 * line), a miss all candidates' lines: the lines a lookup needs.
 * Independent of prefetch= and of how get() is written: the lines it
 * prefetches after the hit (prefetch=1|2), and the second line that the
 * default shape's branch-free get (cuckoo_get_2x4) compares on a first-bucket
 * hit, cost bandwidth but are not counted; see docs/csv.md. */
static unsigned cuckoo_probe_lines(void *tp, cht_key_t k)
{
    struct cuckoo_table *t = tp;
    struct cuckoo_array *a = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
    uint64_t h0, h1, b[CUCKOO_MAX_HASHES];
    uintptr_t seen[CUCKOO_MAX_HASHES * (CUCKOO_MAX_WAYS * sizeof(struct cuckoo_slot) / CHT_CACHE_LINE + 1)];
    unsigned n = 0;
    cuckoo_hash2(t, k, &h0, &h1);
    cuckoo_candidates(t, a, h0, h1, b);
    for (unsigned i = 0; i < a->hashes; i++) {
        const struct cuckoo_slot *s = cuckoo_bucket(t, a, b[i]);
        for (unsigned w = 0; w < t->ways; w++) {
            uintptr_t l = (uintptr_t)&s[w] / CHT_CACHE_LINE;
            unsigned j = 0;
            while (j < n && seen[j] != l)
                j++;
            if (j == n)
                seen[n++] = l;
            if (slot_key(&s[w]) == k)
                return n;
        }
    }
    return n;
}

const struct cht_ops cht_table_cuckoo = {
    .name = "cuckoo",
    .summary = "MRMW cuckoo hashing, optimistic reads, BFS kick paths (Li, Andersen, Kaminsky, Freedman, \"Algorithmic improvements for fast concurrent cuckoo hashing\", EuroSys'14; Alibaba indexlib's cuckoo notes)",
    .caps = CHT_CAP_RESIZE | CHT_CAP_UPDATE | CHT_CAP_LOCK_PARAM,
    .options = cuckoo_options,
    .create = cuckoo_create,
    .destroy = cuckoo_destroy,
    .thread_init = cuckoo_thread_init,
    .get = cuckoo_get,
    .get_batch = cuckoo_get_batch,
    .pipe_start = cuckoo_pipe_start,
    .pipe_step = cuckoo_pipe_step,
    .insert = cuckoo_insert,
    .remove = cuckoo_remove,
    .update = cuckoo_update,
    .size = cuckoo_size,
    .stats = cuckoo_stats,
    .probe_lines = cuckoo_probe_lines,
};
