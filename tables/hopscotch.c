/*
 * hopscotch.c - concurrent hopscotch hashing (fixed capacity).
 *
 * Algorithm: M. Herlihy, N. Shavit, M. Tzafrir, "Hopscotch Hashing", DISC 2008
 * (the concurrent version is the one the thesis benchmarks, its §3.2.3).
 * Every key lives in its home bucket h = hash(k) & (N-1) or in one of the next
 * H-1 slots (its neighbourhood; H = 32 by default, option h=8..64). Bucket h
 * keeps an H-bit hop bitmap: bit d set <=> slot h+d holds a key whose home is
 * h, so a lookup reads one bitmap and at most popcount(bitmap) slots.
 * Insert finds the nearest free slot by linear probing and, while it lies H or
 * more slots away from home, "hops" it backwards: some key in the H-1 slots
 * before the free slot whose own home still covers the free slot moves into it,
 * and the slot it left becomes the free one. When no key can be moved the
 * table is full for this key: as in the original the table does not grow, the
 * insert returns false and counts stats.full_failures. create() refuses an
 * --initial larger than the slot count (--density above 1); whether a
 * neighbourhood overflows below that is a matter of chance (e.g. h=8 at the
 * default density 0.5 refuses a few dozen of 1M keys, h=16 none), so it is
 * counted, not predicted. Neighbourhoods do not
 * wrap around: the slot array has N + H - 1 entries, so buckets near the end
 * spill into a tail of H - 1 extra slots (this keeps lock order monotonic).
 *
 * Concurrency: buckets are grouped into power-of-two segments (option
 * segments=, default min(1024, N/8)); each segment has a TTAS spin lock and a
 * timestamp. A bucket's hop bitmap, and the slots its bits point at, change
 * only under the lock of the bucket's segment. insert/remove/update lock the
 * home segment. A displacing insert additionally locks every segment from the
 * home's up to the free slot's, in ascending order; since every thread only
 * ever acquires locks in ascending segment order (home first), there is no
 * deadlock. Free slots are claimed with a CAS (empty -> BUSY) so that two
 * inserters never pick the same one. A move makes the new copy visible, bumps
 * the timestamp of the moved key's home segment, then clears the old copy;
 * remove bumps it too before the slot can be reused. get() is lock-free
 * optimistic: it reads the timestamp, the bitmap and the slots, and accepts a
 * hit or a miss only if the timestamp did not change; after
 * HOP_READ_RETRIES failed attempts it takes the segment lock and reads under
 * it. All shared words are accessed with __atomic builtins (acquire/release),
 * so the thread sanitizer sees no data race.
 *
 * Reclamation: none needed - slots are never freed while the table exists.
 * Progress: get is lock-free in the common case and falls back to blocking
 * after a bounded number of retries; insert/remove/update are blocking
 * (deadlock-free, bounded work under the locks: probing is limited to
 * HOP_PROBE_LIMIT slots, each displacement strictly moves the free slot back).
 * size() sums per-thread, cache-line-padded counters (exact when quiescent).
 */
#include <stdalign.h>
#include <sched.h>
#include "cht.h"
#include "cht_atomic.h"
#include "cht_hash.h"
#include "table_support.h"

#define HOP_EMPTY 0ull
#define HOP_BUSY  UINT64_MAX            /* slot claimed by an inserter */
#define HOP_READ_RETRIES 8
#define HOP_PROBE_LIMIT 1024            /* slots scanned for a free one */
#define HOP_MIN_BUCKETS 64


struct hop_bucket {
    uint64_t hop;    /* bit d: slot (this + d) holds a key whose home is this bucket */
    cht_key_t key;   /* HOP_EMPTY, HOP_BUSY or a key */
    cht_val_t val;
};

struct hop_segment {
    alignas(CHT_CACHE_LINE) uint32_t lock;
    uint64_t ts;     /* bumped whenever a key of this segment's buckets moves or leaves */
};

struct hop_counter {
    alignas(CHT_CACHE_LINE) int64_t count;
    uint64_t full;
};

struct hop_table {
    struct hop_bucket *b;       /* nbuckets + H - 1 slots */
    struct hop_segment *seg;
    struct hop_counter *cnt;
    uint64_t mask;              /* nbuckets - 1 */
    uint64_t nslots;
    unsigned H;
    unsigned seg_shift;
    uint64_t nsegs;
    unsigned threads;
    enum cht_hash_kind hash;
};

static __thread unsigned hop_tid;

static const struct cht_option_spec hop_options[] = {
    CHT_HASH_OPTION,
    { "h", "8..64: neighbourhood size H in slots (default 32)" },
    { "segments", "1..1048576: lock/timestamp segments, rounded up to a power of two "
                  "(default min(1024, buckets/8))" },
    { NULL, NULL },
};

/* ---- TTAS spin lock (yields after a while so oversubscribed runs progress) ---- */

static inline void seg_lock(struct hop_segment *s)
{
    unsigned spins = 0;
    for (;;) {
        if (!__atomic_load_n(&s->lock, __ATOMIC_RELAXED) &&
            !__atomic_exchange_n(&s->lock, 1u, __ATOMIC_ACQUIRE))
            return;
        while (__atomic_load_n(&s->lock, __ATOMIC_RELAXED))
            cht_spin_yield(&spins, 128);    /* every 128th spin yields: oversubscribed runs */
    }
}

static inline void seg_unlock(struct hop_segment *s)
{
    __atomic_store_n(&s->lock, 0u, __ATOMIC_RELEASE);
}

/* ---- helpers ---- */

static inline struct hop_counter *my_counter(struct hop_table *t)
{
    return &t->cnt[cht_thread_slot(hop_tid, t->threads)];
}

static inline uint64_t home_of(const struct hop_table *t, cht_key_t k)
{
    return cht_hash(t->hash, k) & t->mask;
}

static inline uint64_t seg_of(const struct hop_table *t, uint64_t bucket)
{
    return bucket >> t->seg_shift;
}

static inline uint64_t ld(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void st(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* ---- create / destroy ---- */

static void *hop_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    uint64_t H = 32, segs = 0;
    if (!cht_option_enum(cfg->options, "hopscotch", "hash", cht_hash_names, &hash, err, len) ||
        !cht_option_uint(cfg->options, "hopscotch", "h", 8, 64, &H, err, len) ||
        !cht_option_uint(cfg->options, "hopscotch", "segments", 1, 1u << 20, &segs, err, len))
        return NULL;

    uint64_t nb = cht_initial_units(cfg, 1, HOP_MIN_BUCKETS, 1ull << 48, "buckets", err, len);
    if (!nb)
        return NULL;
    uint64_t nslots = nb + H - 1;
    if (!cht_capacity_holds_initial(cfg, nslots, err, len))
        return NULL;

    uint64_t nsegs = segs ? cht_pow2_at_least(segs, 1) : (nb / 8 < 1024 ? nb / 8 : 1024);
    if (nsegs > nb)
        nsegs = nb;
    unsigned shift = 0;
    while ((nb >> shift) > nsegs)
        shift++;
    nsegs = nb >> shift;

    unsigned threads = cfg->max_threads ? cfg->max_threads : 1;
    size_t bytes = nslots * sizeof(struct hop_bucket) + nsegs * sizeof(struct hop_segment) +
                   threads * sizeof(struct hop_counter);
    size_t phys = cht_phys_bytes();
    if ((double)bytes > (double)phys) {
        snprintf(err, len, "out of memory (%llu slots need %.3g GB, the machine has %.3g GB)",
                 (unsigned long long)nslots, (double)bytes / 1e9, (double)phys / 1e9);
        return NULL;
    }

    struct hop_table *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->b = calloc(nslots, sizeof *t->b);
    t->seg = cht_alloc_zeroed(nsegs * sizeof *t->seg);
    t->cnt = cht_alloc_zeroed(threads * sizeof *t->cnt);
    if (!t->b || !t->seg || !t->cnt) {
        snprintf(err, len, "out of memory (%llu slots)", (unsigned long long)nslots);
        free(t->b);
        free(t->seg);
        free(t->cnt);
        free(t);
        return NULL;
    }
    t->mask = nb - 1;
    t->nslots = nslots;
    t->H = (unsigned)H;
    t->seg_shift = shift;
    t->nsegs = nsegs;
    t->threads = threads;
    t->hash = hash;
    return t;
}

static void hop_destroy(void *tp)
{
    struct hop_table *t = tp;
    free(t->b);
    free(t->seg);
    free(t->cnt);
    free(t);
}

static void hop_thread_init(void *tp, unsigned tid)
{
    struct hop_table *t = tp;
    hop_tid = cht_thread_slot(tid, t->threads);   /* asserts tid < max_threads */
}

/* ---- lookups ---- */

/* slot index of k in its home h's neighbourhood, or -1; caller holds seg(h)'s lock
 * or validates with the timestamp */
static inline int64_t find_in(const struct hop_table *t, uint64_t h, cht_key_t k)
{
    uint64_t bm = ld(&t->b[h].hop);
    while (bm) {
        unsigned d = (unsigned)__builtin_ctzll(bm);
        bm &= bm - 1;
        if (ld(&t->b[h + d].key) == k)
            return (int64_t)(h + d);
    }
    return -1;
}

static bool hop_get(void *tp, cht_key_t k, cht_val_t *v)
{
    struct hop_table *t = tp;
    uint64_t h = home_of(t, k);
    struct hop_segment *s = &t->seg[seg_of(t, h)];
    for (unsigned tries = 0; tries < HOP_READ_RETRIES; tries++) {
        uint64_t ts = ld(&s->ts);
        int64_t j = find_in(t, h, k);
        cht_val_t val = j >= 0 ? ld(&t->b[j].val) : 0;
        /* a key that moved or left (and whose slot may have been reused) bumped ts */
        if (ld(&s->ts) == ts) {
            if (j >= 0 && v)
                *v = val;
            return j >= 0;
        }
    }
    seg_lock(s);
    int64_t j = find_in(t, h, k);
    if (j >= 0 && v)
        *v = ld(&t->b[j].val);
    seg_unlock(s);
    return j >= 0;
}

/* ---- insert ---- */

static bool hop_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct hop_table *t = tp;
    const uint64_t H = t->H;
    uint64_t h = home_of(t, k);
    uint64_t lo = seg_of(t, h), hi = lo;   /* locked segments: lo..hi */
    seg_lock(&t->seg[lo]);
    if (find_in(t, h, k) >= 0) {
        seg_unlock(&t->seg[lo]);
        return false;
    }

    /* nearest free slot, claimed with a CAS so that no other inserter takes it */
    uint64_t end = h + HOP_PROBE_LIMIT < t->nslots ? h + HOP_PROBE_LIMIT : t->nslots;
    uint64_t f = h;
    for (; f < end; f++) {
        uint64_t expect = HOP_EMPTY;
        if (ld(&t->b[f].key) == HOP_EMPTY &&
            __atomic_compare_exchange_n(&t->b[f].key, &expect, HOP_BUSY, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            break;
    }
    bool ok = f < end;

    if (ok && f - h >= H) {
        /* every bucket whose keys may move lies in (h, f): lock their segments, ascending */
        uint64_t last = f - 1 <= t->mask ? f - 1 : t->mask;
        for (uint64_t sg = lo + 1; sg <= seg_of(t, last); sg++)
            seg_lock(&t->seg[sg]);
        hi = seg_of(t, last) > lo ? seg_of(t, last) : lo;

        while (f - h >= H) {
            /* the farthest-back bucket whose neighbourhood covers f and has a key before f */
            uint64_t to = f;
            for (uint64_t b = f - (H - 1); b < f && b <= t->mask; b++) {
                uint64_t bm = ld(&t->b[b].hop) & ((1ull << (f - b)) - 1);
                if (!bm)
                    continue;
                unsigned d = (unsigned)__builtin_ctzll(bm);
                uint64_t j = b + d;
                struct hop_bucket *src = &t->b[j], *dst = &t->b[f];
                struct hop_segment *bs = &t->seg[seg_of(t, b)];
                uint64_t hop = ld(&t->b[b].hop);
                /* new copy visible, then ts bump, then the old copy disappears */
                st(&dst->val, ld(&src->val));
                st(&dst->key, ld(&src->key));
                hop |= 1ull << (f - b);
                st(&t->b[b].hop, hop);
                st(&bs->ts, ld(&bs->ts) + 1);
                st(&t->b[b].hop, hop & ~(1ull << d));
                st(&src->key, HOP_BUSY);
                to = j;
                break;
            }
            if (to == f) {          /* nothing can hop: full for this key */
                st(&t->b[f].key, HOP_EMPTY);
                ok = false;
                break;
            }
            f = to;
        }
    }

    if (ok) {
        st(&t->b[f].val, v);
        st(&t->b[f].key, k);
        st(&t->b[h].hop, ld(&t->b[h].hop) | 1ull << (f - h));
    }
    for (uint64_t sg = lo; sg <= hi; sg++)
        seg_unlock(&t->seg[sg]);

    struct hop_counter *c = my_counter(t);
    if (ok)
        cht_thread_counter_add(&c->count, 1);
    else
        __atomic_store_n(&c->full, __atomic_load_n(&c->full, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    return ok;
}

/* ---- remove / update ---- */

static bool hop_remove(void *tp, cht_key_t k)
{
    struct hop_table *t = tp;
    uint64_t h = home_of(t, k);
    struct hop_segment *s = &t->seg[seg_of(t, h)];
    seg_lock(s);
    int64_t j = find_in(t, h, k);
    if (j >= 0) {
        st(&t->b[h].hop, ld(&t->b[h].hop) & ~(1ull << (j - (int64_t)h)));
        st(&s->ts, ld(&s->ts) + 1);     /* before the slot can be reused by another key */
        st(&t->b[j].key, HOP_EMPTY);
    }
    seg_unlock(s);
    if (j >= 0)
        cht_thread_counter_add(&my_counter(t)->count, -1);
    return j >= 0;
}

static bool hop_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct hop_table *t = tp;
    uint64_t h = home_of(t, k);
    struct hop_segment *s = &t->seg[seg_of(t, h)];
    seg_lock(s);
    int64_t j = find_in(t, h, k);
    if (j >= 0)
        st(&t->b[j].val, v);
    seg_unlock(s);
    return j >= 0;
}

/* ---- size / stats ---- */

static size_t hop_size(void *tp)
{
    struct hop_table *t = tp;
    return cht_count_as_size(cht_sum_strided(&t->cnt->count, t->threads, sizeof *t->cnt));
}

static void hop_stats(void *tp, struct cht_stats *s)
{
    struct hop_table *t = tp;
    s->bytes = sizeof *t + t->nslots * sizeof *t->b + t->nsegs * sizeof *t->seg +
               t->threads * sizeof *t->cnt;
    s->buckets = t->mask + 1;
    uint64_t full = 0;
    for (unsigned i = 0; i < t->threads; i++)
        full += __atomic_load_n(&t->cnt[i].full, __ATOMIC_RELAXED);
    s->full_failures = full;
}

/* probe_lines (cht.h): distinct 64-byte lines of the slot array that a get
 * of k reads, replayed without timing: home bucket h's hop bitmap, the key
 * of each slot its bits point at (in bit order) up to k's, and k's value.
 * Slots are 24 bytes, so one field or another may lie on a further line. */
static unsigned hop_probe_lines(void *tp, cht_key_t k)
{
    struct hop_table *t = tp;
    uint64_t h = home_of(t, k);
    uintptr_t seen[3 * 64 + 1];
    unsigned n = 0;
    const void *p[3 * 64 + 1];
    unsigned np = 0;
    p[np++] = &t->b[h].hop;
    uint64_t bm = ld(&t->b[h].hop);
    while (bm) {
        unsigned d = (unsigned)__builtin_ctzll(bm);
        bm &= bm - 1;
        p[np++] = &t->b[h + d].key;
        if (ld(&t->b[h + d].key) == k) {
            p[np++] = &t->b[h + d].val;
            break;
        }
    }
    for (unsigned i = 0; i < np; i++) {
        uintptr_t l = (uintptr_t)p[i] / CHT_CACHE_LINE;
        unsigned j = 0;
        while (j < n && seen[j] != l)
            j++;
        if (j == n)
            seen[n++] = l;
    }
    return n;
}

const struct cht_ops cht_table_hopscotch = {
    .name = "hopscotch",
    .summary = "concurrent hopscotch hashing: segment locks, optimistic reads, fixed capacity (Herlihy, Shavit, Tzafrir, \"Hopscotch Hashing\", DISC'08)",
    .caps = CHT_CAP_FIXED_CAP | CHT_CAP_UPDATE,
    .options = hop_options,
    .create = hop_create,
    .destroy = hop_destroy,
    .thread_init = hop_thread_init,
    .get = hop_get,
    .insert = hop_insert,
    .remove = hop_remove,
    .update = hop_update,
    .size = hop_size,
    .stats = hop_stats,
    .probe_lines = hop_probe_lines,
};
