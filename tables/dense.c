/*
 * dense.c - indexlib's "Dense" hash table (indexlib note: open addressing with
 * linear probing over one flat array of (key, value) slots; an insert takes
 * the first free slot after the key's home, a lookup scans until the key or
 * an empty slot), made concurrent, with a fixed capacity.
 *
 * Layout: 2^n slots of 16 bytes (key, value), n from cfg->initial /
 * cfg->density (at least 16 slots), 64-byte aligned. Key 0 = empty,
 * UINT64_MAX = tombstone (both reserved by cht.h). Home of k:
 * cht_hash(kind, k) mod 2^n (option hash=mix|identity).
 *
 * Invariant that makes lock-free lookups correct: a slot never becomes empty
 * again once used (removal leaves a tombstone) and keys never move, so every
 * slot between a key's home and its slot stays non-empty while the key is
 * present, and a scan from home that meets an empty slot proves absence.
 *
 * Concurrency:
 *  - Key locks: DN_KEYLOCKS spinlocks (padded), stripe = hash(k) mod
 *    DN_KEYLOCKS. insert/remove/update of k hold k's key lock for the whole
 *    operation, so all writers of one key are serialized. That is what makes
 *    insert-if-absent atomic even though two inserts of k could otherwise
 *    claim two different free slots: the inserter scans the whole probe run
 *    (home .. first empty slot) for k under the key lock, remembering the
 *    first free-or-tombstone slot, and k cannot appear anywhere meanwhile
 *    because only holders of that lock write k. Tombstones are therefore
 *    reused safely: the run has been checked to its end before one is taken.
 *  - Slot seqlocks: DN_REGIONS words (padded), region = (slot / 8) mod
 *    DN_REGIONS; even = free, odd = held, +2 per critical section. Every write
 *    to a slot (claim: value then key; tombstone; value update) happens under
 *    its region's seqlock. Inserts of different keys that race for the same
 *    free slot serialize there: the loser sees the slot taken and goes on
 *    scanning for the next free slot (its key is still absent: it holds the
 *    key lock). Lock order: key lock, then at most one region lock.
 *  - get(): no lock, no shared write. Scan from home with acquire loads; on a
 *    slot holding k, read the region version (wait while odd), the key and
 *    the value, and re-read the version: equal versions prove the pair was
 *    not written in between, so the value belongs to k (this also defeats
 *    ABA: k removed, the slot reused by k2, k re-inserted there). If the key
 *    is no longer k the scan restarts from home.
 *  - Full: an insert that scans the whole array without a free slot (or a
 *    tombstone) returns false and counts stats.full_failures; every scan is
 *    bounded by the capacity, so nothing spins forever on a full table.
 *    create() refuses an --initial that exceeds the capacity (--density
 *    above 1 after rounding up to a power of two), and sizes beyond 2^58
 *    slots or the machine's memory.
 *  - size(): per-thread cache-line-padded counters, summed.
 * Reclamation: none needed (one array for the table's lifetime).
 * Limitation (as in indexlib's Dense): tombstones are reclaimed only by
 * later inserts, never turned back into empty slots, so under long churn
 * the runs that a miss must scan grow toward the whole array.
 */
#include <stdalign.h>
#include <sched.h>
#include "cht.h"
#include "cht_atomic.h"
#include "cht_hash.h"
#include "table_support.h"
#if defined(__x86_64__) && !CHT_UNDER_TSAN
#include <immintrin.h>
#define DN_X86_SIMD 1       /* --pipeline's key compares in SSE2, or AVX2 where the CPU has it */
#else
#define DN_X86_SIMD 0       /* (TSan: the scalar compares, whose atomic loads it can check) */
#endif

#define DN_EMPTY     0ull
#define DN_TOMB      UINT64_MAX
#define DN_KEYLOCKS  1024u          /* power of two */
#define DN_REGIONS   4096u          /* power of two */
#define DN_REGION_SHIFT 3           /* 8 slots = two cache lines per region */
#define DN_MIN_SLOTS 16u

struct dn_slot {
    cht_key_t key;
    cht_val_t val;
};

struct dn_word {
    alignas(CHT_CACHE_LINE) uint64_t v;
};

struct dn_table {
    struct dn_slot *slot;
    void *raw;
    uint64_t mask;
    unsigned threads;
    bool prefetch;
    bool avx2;                      /* --pipeline: AVX2 compares (option simd, and the CPU has it) */
    bool one_line;                  /* --pipeline: a get starts on its home line only (option lines) */
    enum cht_hash_kind hash;
    uint64_t full_failures;         /* atomic */
    struct dn_word *keylock;        /* DN_KEYLOCKS: 0 free, 1 held */
    struct dn_word *region;         /* DN_REGIONS seqlocks */
    struct cht_thread_counter *count;   /* threads */
};

static __thread unsigned dn_tid;

static const struct cht_option_spec dn_options[] = {
    CHT_HASH_OPTION,
    { "prefetch", "0|1: prefetch the home slot and its seqlock before probing (default 1)" },
    { "simd", "0|1: --pipeline compares a probe's keys with AVX2 where the CPU has it (default 1; 0: SSE2)" },
    { "lines", "0|1|2: lines a --pipeline get prefetches at start and scans in its first step (default 0: 1 where "
               "the slots take more than 16 times the core's L2 cache, else 2)" },
    { NULL, NULL },
};

/* pause; every 256th spin yields instead (oversubscribed runs: let the holder finish) */
static inline void dn_relax(unsigned *spins)
{
    cht_spin_yield(spins, 256);
}

static inline void keylock_lock(struct dn_word *l)
{
    unsigned spins = 0;
    for (;;) {
        if (!__atomic_load_n(&l->v, __ATOMIC_RELAXED) && !__atomic_exchange_n(&l->v, 1, __ATOMIC_ACQUIRE))
            return;
        dn_relax(&spins);
    }
}

static inline void keylock_unlock(struct dn_word *l)
{
    __atomic_store_n(&l->v, 0, __ATOMIC_RELEASE);
}

static inline struct dn_word *region_of(struct dn_table *t, uint64_t i)
{
    return &t->region[(i >> DN_REGION_SHIFT) & (DN_REGIONS - 1)];
}

static inline void region_lock(struct dn_word *r)
{
    unsigned spins = 0;
    for (;;) {
        uint64_t v = __atomic_load_n(&r->v, __ATOMIC_RELAXED);
        if (!(v & 1) && __atomic_compare_exchange_n(&r->v, &v, v + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        dn_relax(&spins);
    }
}

static inline void region_unlock(struct dn_word *r)
{
    uint64_t v = __atomic_load_n(&r->v, __ATOMIC_RELAXED);
    __atomic_store_n(&r->v, v + 1, __ATOMIC_RELEASE);
}

static inline cht_key_t key_at(const struct dn_table *t, uint64_t i)
{
    return __atomic_load_n(&t->slot[i].key, __ATOMIC_ACQUIRE);
}

static inline void dn_count(struct dn_table *t, int64_t d)
{
    cht_thread_counter_add(&t->count[cht_thread_slot(dn_tid, t->threads)].n, d);
}

/* slot index of k (scan from home to the first empty slot), or -1 */
static inline int64_t dn_find(const struct dn_table *t, uint64_t home, cht_key_t k)
{
    for (uint64_t j = 0; j <= t->mask; j++) {
        uint64_t i = (home + j) & t->mask;
        cht_key_t x = key_at(t, i);
        if (x == k)
            return (int64_t)i;
        if (x == DN_EMPTY)
            return -1;
    }
    return -1;
}

/* Slot i held k at our first look: read its value under the region's
 * seqlock. True with *val; false when the slot no longer holds k (removed
 * meanwhile: k may be elsewhere now, the scan must restart from home). */
static inline __attribute__((always_inline)) bool dn_read_at(struct dn_table *t, uint64_t i, cht_key_t k,
                                                             cht_val_t *val)
{
    struct dn_word *r = region_of(t, i);
    unsigned spins = 0;
    for (;;) {
        uint64_t v1 = __atomic_load_n(&r->v, __ATOMIC_ACQUIRE);
        if (v1 & 1) {
            dn_relax(&spins);
            continue;
        }
        cht_key_t k2 = key_at(t, i);
        cht_val_t x = __atomic_load_n(&t->slot[i].val, __ATOMIC_ACQUIRE);
        /* the acquire loads above keep this re-read after them */
        if (__atomic_load_n(&r->v, __ATOMIC_RELAXED) != v1)
            continue;
        if (k2 != k)
            return false;
        *val = x;
        return true;
    }
}

/* get()'s scan from the j0-th slot after home (j0 > 0: --pipeline's second
 * step, whose first step found neither k nor an empty slot before it). That
 * needs no look back: a present key stays in its slot until removed, with
 * every slot from home to it non-empty, so if k was present throughout the
 * two steps, one of them sees it, and an absent answer has an instant
 * between them where k was absent. A slot that no longer holds k when its
 * value is read sends the scan back to home. */
static inline __attribute__((always_inline)) bool dn_get_from(struct dn_table *t, cht_key_t k, uint64_t home,
                                                              uint64_t j0, cht_val_t *v)
{
restart:
    for (uint64_t j = j0; j <= t->mask; j++) {
        uint64_t i = (home + j) & t->mask;
        cht_key_t x = key_at(t, i);
        if (x == DN_EMPTY)
            return false;
        if (x != k)
            continue;
        cht_val_t val;
        if (!dn_read_at(t, i, k, &val)) {
            j0 = 0;
            goto restart;
        }
        if (v)
            *v = val;
        return true;
    }
    return false;
}

static bool dn_get(void *tp, cht_key_t k, cht_val_t *v)
{
    struct dn_table *t = tp;
    uint64_t home = cht_hash(t->hash, k) & t->mask;
    if (t->prefetch) {
        __builtin_prefetch(&t->slot[home]);
        __builtin_prefetch(region_of(t, home));
    }
    return dn_get_from(t, k, home, 0, v);
}

/* --batch: hash every key and prefetch its home slot and region word before
 * resolving any, so the n first misses overlap (DRAMHiT, EuroSys'23;
 * indexlib's prefetching); then n ordinary lookups. */
static void dn_get_batch(void *tp, const cht_key_t *keys, size_t n, cht_val_t *vals, bool *found)
{
    struct dn_table *t = tp;
    for (size_t i = 0; i < n; i++) {
        uint64_t home = cht_hash(t->hash, keys[i]) & t->mask;
        __builtin_prefetch(&t->slot[home]);
        __builtin_prefetch(region_of(t, home));
    }
    for (size_t i = 0; i < n; i++)
        found[i] = dn_get(tp, keys[i], &vals[i]);
}

static inline bool dn_insert_hashed(struct dn_table *t, cht_key_t k, cht_val_t v, uint64_t h);
static inline bool dn_remove_hashed(struct dn_table *t, cht_key_t k, uint64_t h);
static inline bool dn_write_present(struct dn_table *t, cht_key_t k, uint64_t h, bool remove, cht_val_t v);

/* --pipeline (cht.h pipe_start/pipe_step). Start: the hash into the op's
 * state; a get's home line, the line after it where the get takes two (a run
 * from home is 1.5 slots on average for a hit and 2.5 for a miss at the
 * default density, so most runs end in the home line, one in five goes on)
 * and the home region's seqlock word. One line or two (option lines): where
 * the table is far larger than the caches, its gets' misses fill the core's
 * miss slots, and one line, with a second step for the one get in five that
 * needs it, ran 1.44x as fast as two lines for every get (i = 16M, W = 32);
 * where it is cached, the second steps cost more than the lines save
 * (0.75-0.78x at i = 1K-64K) (docs/measurements/pipeline.md "2026-12-02,
 * 16:45"). A writer takes k's key lock first and scans its whole run under
 * it, so its start prefetches for ownership the home line, the next, the
 * region word and the key lock. One array for the table's lifetime: nothing
 * here can be freed. */
static inline __attribute__((always_inline)) void dn_pipe_start_one(void *tp, struct cht_pipe_op *op)
{
    struct dn_table *t = tp;
    uint64_t h = cht_hash(t->hash, op->key), line = h & t->mask & ~3ull;
    const struct dn_slot *s = &t->slot[line];
    op->state[0] = h;
    if (op->kind != CHT_PIPE_GET) {   /* (the rw argument of __builtin_prefetch must be a constant) */
        __builtin_prefetch(s, 1);
        __builtin_prefetch(&t->slot[(line + 4) & t->mask], 1);
        __builtin_prefetch(region_of(t, line), 1);
        __builtin_prefetch(&t->keylock[h & (DN_KEYLOCKS - 1)], 1);
    } else {
        __builtin_prefetch(s);
        if (!t->one_line)
            __builtin_prefetch(&t->slot[(line + 4) & t->mask]);
        __builtin_prefetch(region_of(t, line));
    }
}

/* The keys of a line's four slots against k: bit 2j of the result is set
 * where the j-th slot holds k, of *empty where it is empty (odd bits clear).
 * SSE2 compares each key's two 32-bit halves, as cuckoo's cuckoo_match4_val does
 * (off x86-64 and under TSan: a loop of acquire loads, the same answer).
 * Plain loads: each key is an aligned 8-byte element, read whole, and the
 * order of the reads does not matter to the scan (a key present throughout
 * the step is found in whatever order its run is read: dn_get_from). */
static inline __attribute__((always_inline)) unsigned dn_match4_sse2(const struct dn_slot *l, cht_key_t k,
                                                                    unsigned *empty)
{
#if DN_X86_SIMD
    _Static_assert(sizeof(struct dn_slot) == 16 && sizeof(cht_key_t) == 8, "a slot is a key and a value");
    const __m128i *a = (const __m128i *)l;
    const __m128i kk = _mm_set1_epi64x((long long)k), z = _mm_setzero_si128();
    const __m128i a01 = _mm_unpacklo_epi64(_mm_load_si128(&a[0]), _mm_load_si128(&a[1]));
    const __m128i a23 = _mm_unpacklo_epi64(_mm_load_si128(&a[2]), _mm_load_si128(&a[3]));
#define DN_BITS(x, y) ((unsigned)_mm_movemask_ps(_mm_castsi128_ps(x)) | \
                       (unsigned)_mm_movemask_ps(_mm_castsi128_ps(y)) << 4)
    const unsigned e = DN_BITS(_mm_cmpeq_epi32(a01, kk), _mm_cmpeq_epi32(a23, kk));
    const unsigned z0 = DN_BITS(_mm_cmpeq_epi32(a01, z), _mm_cmpeq_epi32(a23, z));
#undef DN_BITS
    *empty = z0 & z0 >> 1 & 0x55u;
    return e & e >> 1 & 0x55u;
#else
    unsigned eq = 0, em = 0;
    for (unsigned j = 0; j < 4; j++) {
        cht_key_t x = __atomic_load_n(&l[j].key, __ATOMIC_ACQUIRE);
        eq |= (unsigned)(x == k) << 2 * j;
        em |= (unsigned)(x == DN_EMPTY) << 2 * j;
    }
    *empty = em;
    return eq;
#endif
}

#if DN_X86_SIMD
/* dn_match4_sse2's answer with AVX2, one bit a slot (bit j): the four keys
 * compared at once, put in slot order (unpack gives slots 0, 2, 1, 3; the
 * permute 0, 1, 2, 3). */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) unsigned
dn_match4_avx2(const struct dn_slot *l, cht_key_t k, unsigned *empty)
{
    const __m256i kk = _mm256_set1_epi64x((long long)k), z = _mm256_setzero_si256();
    const __m256i *a = (const __m256i *)l;
    const __m256i x = _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(_mm256_load_si256(&a[0]),
                                                                     _mm256_load_si256(&a[1])), 0xd8);
    *empty = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(x, z)));
    return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(x, kk)));
}
#endif

typedef unsigned dn_match4_fn(const struct dn_slot *, cht_key_t, unsigned *);

/* The keys of two lines of four slots (l0's, then l1's) against k: l0's
 * answer (match4's) in the low bits, l1's above it, 4 per bits a line. */
static inline __attribute__((always_inline)) unsigned dn_match8(const struct dn_slot *l0, const struct dn_slot *l1,
                                                               cht_key_t k, unsigned *empty,
                                                               dn_match4_fn *match4, const unsigned per)
{
    unsigned e0, e1;
    const unsigned eq = match4(l0, k, &e0) | match4(l1, k, &e1) << 4 * per;
    *empty = e0 | e1 << 4 * per;
    return eq;
}

/* What a step reads of the table, in registers for a whole call: the acquire
 * loads would make the compiler reload them from t for every op. One array for
 * the table's lifetime: these never change. */
struct dn_view {
    const struct dn_slot *slot;
    uint64_t mask;
    struct dn_word *region;
};

#define DN_RACED (-2)     /* dn_scan_lines: k's slot changed while its value was read */

/* Scans the nl lines (1 or 2) from `line` for k, from the slot `from` of the
 * first, without a branch on what it finds: the first slot holding k or empty
 * decides, as in dn_get_from's scan; k's value is read under its region's
 * seqlock whether or not it is needed (the lines are cached). 1 with *val: k
 * there; 0: an empty slot first; CHT_PIPE_AGAIN: neither in these lines;
 * DN_RACED: a writer got in the way of a hit. match4 answers in `per` bits a
 * slot. (At least 16 slots: the lines differ.) */
static inline __attribute__((always_inline)) int dn_scan_lines(const struct dn_view *v, cht_key_t k, uint64_t line,
                                                              unsigned from, cht_val_t *val, dn_match4_fn *match4,
                                                              const unsigned per, const unsigned nl)
{
    const uint64_t mask = v->mask;
    const unsigned slots = 4 * nl;
    unsigned empty;
    const unsigned eq = nl == 1 ? match4(&v->slot[line], k, &empty)
                                : dn_match8(&v->slot[line], &v->slot[(line + 4) & mask], k, &empty, match4, per);
    const unsigned wanted = ((1u << slots * per) - 1) << per * from;
    const unsigned at = (unsigned)__builtin_ctz(((eq | empty) & wanted) | 1u << slots * per);  /* undecided */
    const unsigned hit = (eq >> at) & 1, decided = at < slots * per;
    const uint64_t i = (line + (at / per & (slots - 1))) & mask;
    struct dn_word *r = &v->region[(i >> DN_REGION_SHIFT) & (DN_REGIONS - 1)];
    uint64_t v1 = __atomic_load_n(&r->v, __ATOMIC_ACQUIRE);
    cht_key_t k2 = __atomic_load_n(&v->slot[i].key, __ATOMIC_ACQUIRE);
    cht_val_t x = __atomic_load_n(&v->slot[i].val, __ATOMIC_ACQUIRE);
    /* the acquire loads above keep this re-read after them */
    uint64_t v2 = __atomic_load_n(&r->v, __ATOMIC_RELAXED);
    if (__builtin_expect(hit & ((v1 & 1) | (v1 != v2) | (k2 != k)), 0))
        return DN_RACED;
    *val = x;
    return decided ? (int)hit : CHT_PIPE_AGAIN;
}

/* A get's first step scans its nl lines (option lines) from home. A run that
 * goes on past them (about one get in five past one line at density 0.5, one
 * in ten past two) prefetches the next two lines and comes back to scan them
 * the same way; a run past those too (rare at the default density) scans on
 * from there slot by slot (dn_get_from); a hit a writer got in the way of runs the
 * whole dn_get. Writers run the ordinary operation. */
static inline __attribute__((always_inline)) int dn_pipe_step_one(struct dn_table *t, const struct dn_view *v,
                                                                 struct cht_pipe_op *op, dn_match4_fn *match4,
                                                                 const unsigned per, const unsigned nl)
{
    const cht_key_t k = op->key;
    if (__builtin_expect(op->kind != CHT_PIPE_GET, 0)) {     /* the ordinary write, with the start's hash */
        if (op->kind == CHT_PIPE_INSERT)
            return dn_insert_hashed(t, k, op->val, op->state[0]);
        if (op->kind == CHT_PIPE_REMOVE)
            return dn_remove_hashed(t, k, op->state[0]);
        return dn_write_present(t, k, op->state[0], false, op->val);
    }
    const uint64_t mask = v->mask, home = op->state[0] & mask, line = home & ~3ull;
    const unsigned slots = 4 * nl;
    int r;
    if (op->stage != 0) {   /* on from the line after the first step's: two more lines */
        r = dn_scan_lines(v, k, (line + slots) & mask, 0, &op->val, match4, per, 2);
        if (__builtin_expect(r == CHT_PIPE_AGAIN, 0))
            return dn_get_from(t, k, home, slots + 8 - (home & 3), &op->val);
    } else {
        r = dn_scan_lines(v, k, line, home & 3, &op->val, match4, per, nl);
        if (nl == 1 ? r == CHT_PIPE_AGAIN : __builtin_expect(r == CHT_PIPE_AGAIN, 0)) {
            /* the next line and the one after: 18.6% of the second steps run
             * past the next (i = 16M, one line), and a line read there
             * unprefetched stalls the step (both lines: 1.06-1.09x,
             * pipeline.md "2026-12-02, 21:35") */
            __builtin_prefetch(&v->slot[(line + slots) & mask]);
            __builtin_prefetch(&v->slot[(line + slots + 4) & mask]);
        }
    }
    if (__builtin_expect(r == DN_RACED, 0))
        return dn_get(t, k, &op->val);
    return r;
}

static inline __attribute__((always_inline)) void dn_pipe_steps(struct dn_table *t, struct cht_pipe_op *ops,
                                                               unsigned n, dn_match4_fn *match4,
                                                               const unsigned per, const unsigned nl)
{
    const struct dn_view v = { t->slot, t->mask, t->region };
    for (unsigned i = 0; i < n; i++) {
        int r = dn_pipe_step_one(t, &v, &ops[i], match4, per, nl);
        ops[i].result = r;
        ops[i].stage |= r == CHT_PIPE_AGAIN;
    }
}

#if DN_X86_SIMD
__attribute__((target("avx2"))) static void dn_pipe_step_avx2(struct dn_table *t, struct cht_pipe_op *ops,
                                                              unsigned n)
{
    if (t->one_line)
        dn_pipe_steps(t, ops, n, dn_match4_avx2, 1, 1);
    else
        dn_pipe_steps(t, ops, n, dn_match4_avx2, 1, 2);
}
#endif

static void dn_pipe_step(void *tp, struct cht_pipe_op *ops, unsigned n)
{
    struct dn_table *t = tp;
#if DN_X86_SIMD
    if (t->avx2) {
        dn_pipe_step_avx2(t, ops, n);
        return;
    }
#endif
    if (t->one_line)
        dn_pipe_steps(t, ops, n, dn_match4_sse2, 2, 1);
    else
        dn_pipe_steps(t, ops, n, dn_match4_sse2, 2, 2);
}

static void dn_pipe_start(void *tp, struct cht_pipe_op *ops, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        dn_pipe_start_one(tp, &ops[i]);
}

/* The writes with k's hash h: the ordinary operation's, or a pipelined op's
 * from its start (dn_pipe_start_one), so its step does not hash k again */
static inline __attribute__((always_inline)) bool dn_insert_hashed(struct dn_table *t, cht_key_t k, cht_val_t v,
                                                                   uint64_t h)
{
    uint64_t home = h & t->mask;
    struct dn_word *kl = &t->keylock[h & (DN_KEYLOCKS - 1)];
    keylock_lock(kl);
    /* 1: the whole run, for k and for the first reusable slot */
    uint64_t j, cand = UINT64_MAX;
    for (j = 0; j <= t->mask; j++) {
        uint64_t i = (home + j) & t->mask;
        cht_key_t x = key_at(t, i);
        if (x == k) {
            keylock_unlock(kl);
            return false;
        }
        if ((x == DN_EMPTY || x == DN_TOMB) && cand == UINT64_MAX)
            cand = j;
        if (x == DN_EMPTY)
            break;
    }
    /* 2: claim the first free slot from cand on; k stays absent (we hold its lock) */
    for (j = cand; j <= t->mask; j++) {
        uint64_t i = (home + j) & t->mask;
        cht_key_t x = key_at(t, i);
        if (x != DN_EMPTY && x != DN_TOMB)
            continue;
        struct dn_word *r = region_of(t, i);
        region_lock(r);
        x = key_at(t, i);
        bool got = x == DN_EMPTY || x == DN_TOMB;
        if (got) {
            __atomic_store_n(&t->slot[i].val, v, __ATOMIC_RELEASE);
            __atomic_store_n(&t->slot[i].key, k, __ATOMIC_RELEASE);
        }
        region_unlock(r);
        if (got) {
            keylock_unlock(kl);
            dn_count(t, 1);
            return true;
        }
    }
    keylock_unlock(kl);
    __atomic_fetch_add(&t->full_failures, 1, __ATOMIC_RELAXED);
    return false;
}

/* Finds k under its key lock and, if present, writes its slot under the
 * slot's region lock: the key becomes a tombstone (remove) or the value v
 * replaces the old one (update). Returns whether k was present. */
static inline __attribute__((always_inline)) bool dn_write_present(struct dn_table *t, cht_key_t k, uint64_t h,
                                                                   bool remove, cht_val_t v)
{
    struct dn_word *kl = &t->keylock[h & (DN_KEYLOCKS - 1)];
    keylock_lock(kl);
    int64_t i = dn_find(t, h & t->mask, k);
    if (i >= 0) {
        struct dn_word *r = region_of(t, (uint64_t)i);
        region_lock(r);
        if (remove)
            __atomic_store_n(&t->slot[i].key, DN_TOMB, __ATOMIC_RELEASE);
        else
            __atomic_store_n(&t->slot[i].val, v, __ATOMIC_RELEASE);
        region_unlock(r);
    }
    keylock_unlock(kl);
    return i >= 0;
}

static inline __attribute__((always_inline)) bool dn_remove_hashed(struct dn_table *t, cht_key_t k, uint64_t h)
{
    bool found = dn_write_present(t, k, h, true, 0);
    if (found)
        dn_count(t, -1);
    return found;
}

static bool dn_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct dn_table *t = tp;
    return dn_insert_hashed(t, k, v, cht_hash(t->hash, k));
}

static bool dn_remove(void *tp, cht_key_t k)
{
    struct dn_table *t = tp;
    return dn_remove_hashed(t, k, cht_hash(t->hash, k));
}

static bool dn_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct dn_table *t = tp;
    return dn_write_present(t, k, cht_hash(t->hash, k), false, v);
}

static void *dn_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    uint64_t prefetch = 1, simd = 1, lines = 0;
    if (!cht_option_enum(cfg->options, "dense", "hash", cht_hash_names, &hash, err, len) ||
        !cht_option_uint(cfg->options, "dense", "prefetch", 0, 1, &prefetch, err, len) ||
        !cht_option_uint(cfg->options, "dense", "simd", 0, 1, &simd, err, len) ||
        !cht_option_uint(cfg->options, "dense", "lines", 0, 2, &lines, err, len))
        return NULL;
    uint64_t cap = cht_initial_units(cfg, 1, DN_MIN_SLOTS, 1ull << 58, "slots", err, len);
    if (!cap || !cht_capacity_holds_initial(cfg, cap, err, len))
        return NULL;
    struct dn_table *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->mask = cap - 1;
    t->hash = hash;
    t->prefetch = prefetch;
#if DN_X86_SIMD
    t->avx2 = simd && __builtin_cpu_supports("avx2");
#endif
    t->one_line = lines ? lines == 1 : cap * sizeof(struct dn_slot) > cht_pipe_far_bytes();
    t->threads = cfg->max_threads ? cfg->max_threads : 1;
    bool fits = cap * sizeof(struct dn_slot) <= cht_phys_bytes();   /* else fail cleanly */
    t->raw = fits ? calloc(1, cap * sizeof(struct dn_slot) + CHT_CACHE_LINE) : NULL;
    t->keylock = cht_alloc_zeroed(DN_KEYLOCKS * sizeof(struct dn_word));
    t->region = cht_alloc_zeroed(DN_REGIONS * sizeof(struct dn_word));
    t->count = cht_thread_counters_new(t->threads);
    if (!t->raw || !t->keylock || !t->region || !t->count) {
        snprintf(err, len, "out of memory: %llu slots of %zu bytes for --initial %zu at --density %g",
                 (unsigned long long)cap, sizeof(struct dn_slot), cfg->initial,
                 cfg->density > 0 ? cfg->density : 0.5);
        free(t->raw);
        free(t->keylock);
        free(t->region);
        free(t->count);
        free(t);
        return NULL;
    }
    t->slot = (struct dn_slot *)(((uintptr_t)t->raw + CHT_CACHE_LINE - 1) & ~(uintptr_t)(CHT_CACHE_LINE - 1));
    return t;
}

static void dn_destroy(void *tp)
{
    struct dn_table *t = tp;
    free(t->raw);
    free(t->keylock);
    free(t->region);
    free(t->count);
    free(t);
}

static void dn_thread_init(void *tp, unsigned tid)
{
    struct dn_table *t = tp;
    dn_tid = cht_thread_slot(tid, t->threads);   /* asserts tid < max_threads */
}

static size_t dn_size(void *tp)
{
    struct dn_table *t = tp;
    return cht_count_as_size(cht_thread_counters_sum(t->count, t->threads));
}

static void dn_stats(void *tp, struct cht_stats *s)
{
    struct dn_table *t = tp;
    s->bytes = sizeof *t + (t->mask + 1) * sizeof(struct dn_slot) + CHT_CACHE_LINE +
               (DN_KEYLOCKS + DN_REGIONS) * sizeof(struct dn_word) + t->threads * sizeof *t->count;
    s->buckets = t->mask + 1;
    s->full_failures = __atomic_load_n(&t->full_failures, __ATOMIC_RELAXED);
}

/* probe_lines (cht.h): distinct 64-byte lines of the slot array that a get
 * of k reads, replayed without timing: the key of every slot from k's home
 * up to the slot holding k (and its value) or the first empty slot. A
 * probe run that wraps past the end of the array counts the lines at both
 * ends. Runs are contiguous, so a new line is the line of a slot whose index
 * is a multiple of 4 (16-byte slots, 64-byte-aligned array), or the first. */
static unsigned dn_probe_lines(void *tp, cht_key_t k)
{
    struct dn_table *t = tp;
    uint64_t home = cht_hash(t->hash, k) & t->mask;
    uintptr_t last = UINTPTR_MAX;
    unsigned lines = 0;
    for (uint64_t j = 0; j <= t->mask; j++) {
        uint64_t i = (home + j) & t->mask;
        uintptr_t l = (uintptr_t)&t->slot[i] / CHT_CACHE_LINE;
        lines += l != last;
        last = l;
        cht_key_t x = key_at(t, i);
        if (x == k || x == DN_EMPTY)
            break;
    }
    return lines;
}

const struct cht_ops cht_table_dense = {
    .name = "dense",
    .summary = "indexlib Dense: linear probing, fixed capacity, lock-free reads, key-striped writers (Alibaba indexlib's cuckoo hashing notes)",
    .caps = CHT_CAP_FIXED_CAP | CHT_CAP_UPDATE,
    .options = dn_options,
    .create = dn_create,
    .destroy = dn_destroy,
    .thread_init = dn_thread_init,
    .get = dn_get,
    .get_batch = dn_get_batch,
    .pipe_start = dn_pipe_start,
    .pipe_step = dn_pipe_step,
    .insert = dn_insert,
    .remove = dn_remove,
    .update = dn_update,
    .size = dn_size,
    .stats = dn_stats,
    .probe_lines = dn_probe_lines,
};
