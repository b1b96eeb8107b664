/*
 * hotring.c - HotRing, the hotspot-aware hash index (J. Chen et al., "HotRing:
 * A Hotspot-Aware In-Memory Key-Value Store", FAST 2020), written from the
 * paper's text (section numbers below, "§", are the paper's; docs/references.md
 * hotring-fast20). No upstream code exists or was used.
 *
 * Index (§3.1). A power-of-two array of head words; bucket j's items
 * form a ring sorted by order = (tag, key), where the tag is the hash bits the
 * bucket index does not use: the index is the top `bits` bits of the 64-bit
 * order hash g, so ordering by g inside a bucket is ordering by tag (and a
 * rehash splits a ring at its tag's top bit, §3.4). g = cht_hash(key) for
 * hash=mix; with hash=identity g is the bit-reversed key, so that (as in the
 * other tables) the bucket comes from the key's low bits. The head word may
 * point at any item of the ring (§3.1). A lookup starts at the head item
 * and walks forward; it stops at a hit (order equal, §3.1) or as soon as
 * the order says the key cannot come later (§3.1: prev < k < cur, or at
 * the wrap point max -> min: prev < k), so a miss compares about half the
 * ring, n/2 + 1 items (§3.1).
 *
 * Hotspot shift (§3.2-3.2.3), option strategy=:
 *  - random (§3.2.1): each thread counts its requests (get/update); on every
 *    R-th (option r=, default 5) that hits an item other than the head item,
 *    the head moves to that item.
 *  - sample (§3.2.2): the head word is active bit | 15-bit counter |
 *    48-bit address (§3.2.2, figure 6a); an item's next word carries a
 *    14-bit access counter (figure 6b). On every R-th request that is a cold
 *    access (not the head item) with no round running, the thread starts a
 *    sampling round: one CAS sets the active bit and puts the round length in
 *    the head's counter. While active, every hit adds one to the item's
 *    counter and takes one from the head's counter (§3.2.2: two extra CASes
 *    per sampled access). The thread whose CAS takes the counter to zero
 *    (§3.2.2: exactly one thread) computes, over the ring as seen from the
 *    head, the income W_t = sum_i n_i/N * ((i - t) mod k) of every candidate
 *    head t (§3.2.2; in O(k) with W_{t+1} = W_t - 1 + k n_t / N), moves the
 *    head to the argmin if it differs, and resets the counters while reading
 *    them (§3.2.2). Deviation: that walk stops at the last item with a count
 *    once it has seen all the round's samples (the argmin cannot lie beyond;
 *    the ring's item count k, which W_t needs, is kept in the sentinel's
 *    unused value word), except in a ring's first round and every 8th finish
 *    of a thread, which walk the whole ring and refresh k (issue 22: the
 *    items after the last counted one were cache misses).
 *    Round length: the ring's item count (§3.2.2), counted
 *    by the whole walks and kept for the next round in the counter bits of the
 *    inactive head word; a ring's first round is ratio= accesses long (the
 *    expected ring length; deviation: counting the ring first cost a walk of
 *    the whole ring per ring, issue 22); or samples=N. While a round is being
 *    finished the head word is "busy" (active bit, counter 0): nobody records
 *    or starts a round then, so no two threads read or clear the counters at
 *    once; the paper clears the active bit instead. Increments by threads that
 *    saw the round active just before it ended are left in the counters; the
 *    next round's finish counts them (a little noise; so do counts an item
 *    carries into a new table generation).
 *    An RCU update is a request like a get (it records, and on an R-th
 *    cold request starts a round) for the item it writes through: the old
 *    version's predecessor (§3.2.2), so the head settles on the predecessor
 *    of a write-hot item and its update needs no ring walk; the new version
 *    inherits the old one's counter. (Random moves the head to the new version.)
 *  - none: the head is never moved by a strategy (a plain ordered ring; the
 *    ablation). Default: random - see "Default strategy" below.
 * Hotspot inheritance (§3.2.3) falls out of how a dead head is replaced:
 * the head moves to the first live item after it, which for an RCU update is
 * the new version of the item and for a remove the next item.
 *
 * Concurrency (§3.3). The next word of an item is
 *   bits 48-61 access counter | bits 2-47 address | bit 1 OCC | bit 0 DEAD.
 * The paper's single "occupied" bit plays two roles; here they are two bits:
 *  - DEAD (the occupied bit of remove and RCU update, §3.3): set by
 *    the CAS that removes the item (linearisation point) or, for an RCU update
 *    (update=rcu), by the CAS C.next: succ -> C'|DEAD that also links the new
 *    version C' (same order, next = succ) right after C. Once set, the word
 *    never changes again: no insert after C, no unlink of C's successor, no
 *    update of C can succeed, exactly the protection the paper asks of the
 *    occupied bit (figure 8). Deviation: the bit is permanent (Harris-style
 *    logical deletion) rather than a lock held between two CASes: any writer
 *    that meets a DEAD item unlinks it (CAS pred.next: C -> succ) and the thread
 *    whose CAS succeeds retires it. A stalled remover or updater therefore
 *    never blocks anyone: insert, remove and RCU update are lock-free.
 *  - OCC (the occupied bit of a head move, §3.3): before the head word is
 *    CASed to an item, that item's next word gets OCC, so it cannot die (or be
 *    changed) while the head moves onto it; cleared right after. Writers that
 *    meet OCC wait for it (these are the only waits; a head move is two CASes
 *    and a store). A head therefore only ever points at an item that was live
 *    when it was installed.
 *  - insert: CAS pred.next: succ -> new, pred live (the paper's insert, §3.3).
 *  - get never writes (§3.3) except when a hotspot strategy acts; update
 *    (default update=inplace, the paper's in-place update of values <= 8 bytes,
 *    §3.3) is one atomic store into the live item found: no lock, no CAS.
 *  - a dead item is unlinked only when no head word points at it (a writer
 *    that finds it under a head moves that head first, to the first live item
 *    after it); since a dead item can never become a head again, the item is
 *    unreachable for new operations once unlinked.
 * Reclamation: the project's EBR (ebr.h). Every operation runs between
 * ebr_enter/ebr_exit; unlinked items are collected in per-thread batches of
 * HR_BATCH pointers and each full batch is one ebr_retire (the retire call
 * takes a mutex and a membarrier, so batching amortises it), partial batches
 * are retired by thread_exit. Old tables are retired the same way.
 * An RCU update unlinks the old version itself right after the CAS that
 * killed it, before any head move onto the new version: through the
 * predecessor its search found, or (the old version was the head item) by a
 * walk from the sentinel. Left to later searches, the old versions of a head
 * item were never unlinked, since every search of that key starts at the new
 * version and none walks back over them (issue 22: 1M updates of one key grew
 * its ring to 1M items).
 *
 * Sentinels (deviation). Each bucket of each table generation has a sentinel
 * item (key 0, order (lowest tag of the bucket, 0)) in its ring: the paper's
 * rehash items (§3.4) kept for good instead of deleted. So a ring is never
 * empty (an empty bucket is its sentinel pointing at itself; no NULL head, no
 * ring that dies entirely), the wrap point of every ring is at the sentinel,
 * and a lookup that meets an item of another bucket (only possible while a
 * split ring is being cut in two, below) continues at its bucket's sentinel.
 * Cost: 32 bytes per bucket, and a cold walk across the wrap visits it.
 *
 * Rehash (§3.4), option rehash=1 (default) | 0. Trigger (§3.4:
 * access cost, not load factor): each thread averages the items it visits per
 * operation over windows of 4096 operations; an average above 1 + ratio (the
 * cost of a uniform access at twice the configured key/bucket ratio, §2.2)
 * requests a rehash; so does a key count above 4 x ratio per bucket (a guard
 * for insert-only or miss-only phases; the rehash thread doubles again while
 * it holds after a rehash). A background thread (§3.4) runs it:
 *  1. initialisation: a table of twice the buckets; its sentinels are the
 *     rehash items, two per old bucket, with tags 0 and T/2 (§3.4).
 *  2. split: both are inserted into the old ring (the one for tag 0 right
 *     after the old sentinel, the other at its order position); the new heads
 *     point at them; when every ring is split the new table is published.
 *     New operations use it, old ones finish on the old table; both see one
 *     consistent ring (§3.4).
 *  3. transition: an EBR grace period (a retired token whose free function
 *     sets a flag; the rehash thread calls ebr_collect until it has run): every
 *     operation that could still use the old table has ended (§3.4).
 *  4. deletion: per old ring, the old sentinel is marked DEAD and unlinked,
 *     then the ring is cut into the two new rings by two CASes (the last item
 *     of the low half -> its rehash item, the last item of the high half -> its
 *     rehash item); a lookup that crosses the cut in between meets the other
 *     half's sentinel and continues at its own; then the old table (heads and
 *     old sentinels) is retired (§3.4).
 * Deviation: the paper deletes the rehash items; here they stay as the
 * sentinels and the old sentinels are deleted instead (same effect, and the
 * paper leaves open how the two halves are closed into rings). The new heads
 * start at the sentinels: like the paper (§4.3) the new table is briefly
 * unaware of the hotspots. rehash=0 keeps the initial size (figure 11a).
 *
 * Sizing: buckets = the power of two nearest to cfg->initial / ratio (option
 * ratio=2..16, default 8, the paper's setting, §4.1); --density is
 * ignored (a chained table has no slot capacity). The real ratio lies within
 * ratio/sqrt(2) .. ratio*sqrt(2); stats() gives the bucket count.
 * size(): per-thread padded counters (table_support.h), exact when quiescent.
 *
 * Values (§3.2.2, §3.3, §4.1, §4.2). With the driver's 8-byte values
 * (--value-size 8, the default) an item holds the value and update=inplace
 * (default) or update=rcu chooses the update. With --value-size > 8
 * (CHT_CAP_VALUE_OOL: the paper's "large values", 100 bytes in its figure 12)
 * the value's words (cht.h's cht_value_fill pattern) are stored in the item,
 * right after its header (item = 24 + 8 x words bytes, 64-byte-aligned
 * slots), and every update is the RCU update above: a new item is allocated
 * and filled, the CAS that kills the old version links the new one, the old
 * one is unlinked and retired through EBR. An item is never written after it
 * is published, so a get (which reads every word, cht_value_read) can never
 * see a torn value; update=inplace with --value-size > 8 is refused (no atomic
 * multiword store). "Out of line" here means out of the index (the head
 * array), as in the paper: the value lives in its item, one cache miss from
 * the head pointer, and the RCU update replaces the item, not a separate value
 * block, so the paper's predecessor counting (§3.2.2) is what it costs.
 *
 * Other deviations: the sampling round finishes in the
 * accessing thread (as in the paper; its tail-latency cost is what figure 16
 * shows) and considers at most HR_MAXK items from the head. Addresses must fit
 * in 48 bits (x86-64 user space does); an allocation above is refused and
 * counted as an allocation failure.
 *
 * Default strategy: random, on this machine's evidence, against the paper's
 * preference for sample (HotRing-s, §4.2). Items a hit visits
 * (tests/test_hotring "cost"; 1 thread, ratio 8, half the gets miss as with
 * the driver's r = 2i; 64K-256K keys) at zipf 0.99: none 6.2, random 2.4,
 * sample 2.4; at 1.22: 5.5 / 1.35 / 1.46; at 0.5: 6.0 / 5.1 / 5.3 - random is
 * as accurate here, and cheaper: sample pays two CASes per sampled access and
 * starts rounds in every ring without a dominant item; with chtbench (1M
 * keys, ratio 8, 1 thread, noisy shared machine) sample was 20-35% slower
 * than random at theta 0.99 and 1.22 and equal at 0.5. Without the first
 * round's ring count (issue 22) sample executes 1.11x random's instructions
 * per operation at 0.99 and 1.06x at 1.22 (was 1.21x and 1.11x), the rest
 * being its two CASes per sampled access and the finish's walk of the ring
 * (docs/measurements/hotring-item-cost.md). Most of the wall-clock gap is
 * elsewhere: a ring's head moves only after a whole round (~14 accesses to
 * the ring against random's ~5), so on 1M keys sample's heads stay worse for
 * the first few million operations, more than a 0.5 s run, and better than
 * random's after: settled (10 s of warm-up) sample is 1.05-1.07x random on
 * YCSB B at Zipf 0.99 and 1.22 (docs/measurements/hotring-sample.md).
 * Choose sample for rings with several hot items, where random keeps moving
 * the head between them (§3.2.1, §4.2); random also reacts faster to a shift
 * (§4.3).
 *
 * Implementation notes: orders are compared tag first, the key only when the
 * tags are equal; a lookup steps over the items below its tag with one
 * compare each (walk_get: per visited item the instructions of a chain node).
 * Items (32 bytes) come from a slab of 32-byte-aligned slots in 64 KB
 * chunks: reclaimed items are pooled (by batch: a thread takes one batch at a
 * time) and reused, chunks are freed by destroy (memory is not
 * returned to malloc before; stats() bytes count the chunks); malloc's 48-byte chunks
 * let a quarter of the items straddle two cache lines and measured ~1.5x
 * slower walks. Under AddressSanitizer items are malloc'ed one by one.
 */
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <time.h>
#include "cht.h"
#include "cht_atomic.h"
#include "cht_hash.h"
#include "table_support.h"
#include "ebr.h"

#define HR_ADDR      0x0000fffffffffffcull
#define HR_DEAD      1ull
#define HR_OCC       2ull
#define HR_CNT_SHIFT 48
#define HR_CNT_MAX   0x3fffull                      /* 14-bit item counter */
#define HR_CNT_MASK  (HR_CNT_MAX << HR_CNT_SHIFT)
#define HR_HCNT_MAX  0x7fffull                      /* 15-bit head counter */
#define HR_HCNT_MASK (HR_HCNT_MAX << HR_CNT_SHIFT)
#define HR_ACTIVE    (1ull << 63)
#define HR_META      (HR_ACTIVE | HR_HCNT_MASK)

#define HR_BATCH     126          /* retired items per ebr_retire */
#define HR_MAXK      1024         /* items a sampling round considers */
#define HR_WINDOW    4096         /* ops per access-cost window */
#define HR_MAX_BITS  40

enum { HR_NONE, HR_RANDOM, HR_SAMPLE };
static const char *const hr_strategy_names[] = { "none", "random", "sample", NULL };
static const char *const hr_update_names[] = { "inplace", "rcu", NULL };

typedef unsigned __int128 hr_ord;

struct hr_item {
    uint64_t next;            /* counter | address | OCC | DEAD */
    uint64_t h;               /* order hash (tag bits below the bucket bits) */
    cht_key_t key;            /* 0: a sentinel */
    cht_val_t val;
};

struct hr_gen {               /* one table generation */
    struct ebr_node retire;
    unsigned bits, shift;     /* buckets = 1 << bits; bucket = h >> shift */
    uint64_t *head;           /* active | counter | address */
    struct hr_item *sent;     /* one sentinel per bucket */
    size_t head_bytes, sent_bytes;
    bool head_mapped, sent_mapped;
};

struct hr_batch {
    struct ebr_node node;
    struct hotring *hr;
    unsigned n;
    struct hr_item *item[HR_BATCH];
};

struct hr_thread {
    alignas(CHT_CACHE_LINE) int64_t count;   /* inserts - removes */
    uint32_t req;             /* requests since the last R-th */
    uint32_t win_ops;
    uint64_t win_hops;
    struct hr_gen *win_gen;
    uint32_t ins;             /* inserts since the last load check */
    uint32_t finishes;        /* sampling rounds this thread finished (every 8th walks the whole ring) */
    struct hr_batch *batch;
    uint64_t leaked;          /* items not retired: batch allocation failed */
    struct hr_item *free_list;                /* item slab: this thread's free items */
    char *bump, *bump_end;                    /* and the rest of its current chunk */
};

struct hotring {
    alignas(CHT_CACHE_LINE) struct hr_gen *cur;   /* the table new operations use */
    struct hr_gen *old;       /* during a rehash: the previous one, until its grace period ends */
    struct ebr *ebr;
    struct hr_thread *th;     /* nthreads workers + the rehash thread */
    unsigned nthreads;
    enum cht_hash_kind hash;
    unsigned strategy, update_rcu, rehash, ratio;
    size_t vwords;            /* value words (cht_value_words): 1 = the inline 8-byte value */
    size_t item_bytes;        /* 32, or 24 + 8 x vwords rounded up to 64 */
    uint32_t r, samples;
    uint64_t resizes, alloc_failures;
    bool hugepages;           /* cht_config.hugepages, for the generations a rehash maps */
    uint64_t nbuckets;        /* buckets of cur (read without entering EBR: stats, load guard) */
    /* item slab: reclaimed batches of items (pushed by EBR free functions) and all chunks */
    pthread_mutex_t pool_mu;
    struct hr_item *pool;
    struct hr_chunk *chunks;
    size_t item_store;        /* bytes of item storage allocated: slab chunks, or malloc'ed items (ASan) */
    /* rehash thread */
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int pending, busy, stop;
};

static __thread unsigned hr_tid;

static inline size_t chunk_header(const struct hotring *hr)
{
    return hr->item_bytes == 32 ? 32 : 64;
}

/* Items come from 64 KB chunks of 32-byte, 32-byte-aligned slots (one item
 * never straddles two cache lines; malloc would give each a 48-byte chunk,
 * which measured doubles the cost of a walk); with --value-size > 8, of
 * item_bytes-byte, 64-byte-aligned slots (at least one per chunk). Reclaimed items go back to a
 * pool and are reused; chunks are freed by destroy. Under AddressSanitizer
 * items are malloc'ed one by one so that a use after reclamation is caught. */
#if defined(__SANITIZE_ADDRESS__)
#define HR_SLAB 0
#else
#define HR_SLAB 1
#endif
#define HR_CHUNK_BYTES 65536
struct hr_chunk {             /* a header of 32 (32-byte items) or 64 bytes, then the items */
    struct hr_chunk *next;
    uint64_t pad_[3];
};

static const struct cht_option_spec hr_options[] = {
    { "strategy", "none|random|sample: hotspot head movement (default random)" },
    { "r", "1..1000000: every R-th request of a thread may move the head / start sampling (default 5)" },
    { "samples", "0..32767: accesses per sampling round (default 0 = the ring's item count, as the paper)" },
    { "ratio", "2..16: initial keys per bucket, buckets = initial/ratio rounded to a power of two (default 8)" },
    { "rehash", "0|1: lock-free rehash when access cost or load grows (default 1)" },
    { "update", "inplace|rcu: update values in place, or replace the item (RCU, large values) (default inplace; rcu with --value-size > 8)" },
    { "fence", "0|1: 1 = EBR enters with a locked exchange instead of relying on membarrier (default 0; ebr.h)" },
    CHT_HASH_OPTION,
    { NULL, NULL },
};

/* ---------------- words and items ---------------- */

static inline uint64_t ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static inline uint64_t ldr(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void st(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
static inline bool cas(uint64_t *p, uint64_t expect, uint64_t want)
{
    return __atomic_compare_exchange_n(p, &expect, want, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline struct hr_item *ITEM(uint64_t w) { return (struct hr_item *)(uintptr_t)(w & HR_ADDR); }
static inline uint64_t ADDRW(const struct hr_item *x) { return (uint64_t)(uintptr_t)x; }
static inline bool DEADW(uint64_t w) { return w & HR_DEAD; }
static inline bool OCCW(uint64_t w) { return w & HR_OCC; }
static inline hr_ord mkord(uint64_t h, uint64_t k) { return (hr_ord)h << 64 | k; }
static inline hr_ord ORD(const struct hr_item *x) { return mkord(ldr(&x->h), ldr(&x->key)); }
static inline bool live(const struct hr_item *x) { return !DEADW(ld(&x->next)); }

/* x's order against t: -1, 0, 1; the key is read only when the tags are
 * equal (rare) */
static inline int rel(const struct hr_item *x, uint64_t xh, hr_ord t)
{
    uint64_t th = (uint64_t)(t >> 64);
    if (xh != th)
        return xh < th ? -1 : 1;
    uint64_t xk = ldr(&x->key), tk = (uint64_t)t;
    return xk < tk ? -1 : xk > tk;
}

static inline bool foreign(const struct hr_gen *G, uint64_t j, const struct hr_item *x)
{
    return (ldr(&x->h) >> G->shift) != j;
}

/* the end of bucket j's ring: its own sentinel, or an item of another bucket */
static inline bool arc_end(const struct hr_gen *G, uint64_t j, const struct hr_item *c)
{
    return c == &G->sent[j] || foreign(G, j, c);
}

/* pause; every 64th spin yields instead */
static inline void hr_pause(unsigned *spins)
{
    cht_spin_yield(spins, 64);
}

static inline uint64_t rev64(uint64_t x)
{
    x = __builtin_bswap64(x);
    x = (x & 0x0f0f0f0f0f0f0f0full) << 4 | ((x >> 4) & 0x0f0f0f0f0f0f0f0full);
    x = (x & 0x3333333333333333ull) << 2 | ((x >> 2) & 0x3333333333333333ull);
    x = (x & 0x5555555555555555ull) << 1 | ((x >> 1) & 0x5555555555555555ull);
    return x;
}

static inline uint64_t order_hash(const struct hotring *hr, cht_key_t k)
{
    uint64_t h = cht_hash(hr->hash, k);
    return hr->hash == CHT_HASH_IDENTITY ? rev64(h) : h;
}

static inline struct hr_thread *me(struct hotring *hr)
{
    return &hr->th[hr_tid];
}

/* ---------------- items ---------------- */

static struct hr_item *item_alloc(struct hotring *hr, struct hr_thread *th)
{
    struct hr_item *x;
    if (!HR_SLAB) {
        x = malloc(hr->item_bytes);
        if (x && (uintptr_t)x >> 48) {
            free(x);
            x = NULL;
        }
        if (x)
            __atomic_fetch_add(&hr->item_store, hr->item_bytes, __ATOMIC_RELAXED);
        return x;
    }
    if ((x = th->free_list)) {
        th->free_list = (struct hr_item *)(uintptr_t)__atomic_load_n(&x->next, __ATOMIC_RELAXED);
        return x;
    }
    if (th->bump < th->bump_end) {
        x = (struct hr_item *)(void *)th->bump;
        th->bump += hr->item_bytes;
        return x;
    }
    pthread_mutex_lock(&hr->pool_mu);
    if (hr->pool) {
        /* one reclaimed batch, not the whole pool: a thread that took it all
         * left the others an empty pool, and they took new chunks (the slab
         * then grew with the op count under several writer threads) */
        th->free_list = hr->pool;
        hr->pool = (struct hr_item *)(uintptr_t)__atomic_load_n(&hr->pool->h, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&hr->pool_mu);
        return item_alloc(hr, th);
    }
    size_t hdr = chunk_header(hr), n = (HR_CHUNK_BYTES - hdr) / hr->item_bytes;
    if (n == 0)
        n = 1;
    size_t bytes = hdr + n * hr->item_bytes;
    struct hr_chunk *c = aligned_alloc(CHT_CACHE_LINE, bytes);
    if (!c || ((uintptr_t)c + bytes) >> 48) {
        pthread_mutex_unlock(&hr->pool_mu);
        free(c);
        return NULL;
    }
    c->next = hr->chunks;
    hr->chunks = c;
    __atomic_fetch_add(&hr->item_store, bytes, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&hr->pool_mu);
    th->bump = (char *)c + hdr + hr->item_bytes;
    th->bump_end = (char *)c + bytes;
    return (struct hr_item *)(void *)((char *)c + hdr);
}

/* an item this thread allocated and never published */
static void item_unused(struct hotring *hr, struct hr_thread *th, struct hr_item *x)
{
    if (!x)
        return;
    if (!HR_SLAB) {
        free(x);
        __atomic_fetch_sub(&hr->item_store, hr->item_bytes, __ATOMIC_RELAXED);
        return;
    }
    __atomic_store_n(&x->next, (uint64_t)(uintptr_t)th->free_list, __ATOMIC_RELAXED);
    th->free_list = x;
}

/* ---------------- reclamation ---------------- */

static void batch_free(struct ebr_node *n)
{
    struct hr_batch *b = (struct hr_batch *)n;
    if (!HR_SLAB) {
        for (unsigned i = 0; i < b->n; i++)
            free(b->item[i]);
        __atomic_fetch_sub(&b->hr->item_store, b->n * b->hr->item_bytes, __ATOMIC_RELAXED);
    } else if (b->n) {
        /* the pool is a stack of batches: items linked by next (NULL-ended),
         * batches by their first item's h */
        for (unsigned i = 0; i + 1 < b->n; i++)
            __atomic_store_n(&b->item[i]->next, (uint64_t)(uintptr_t)b->item[i + 1], __ATOMIC_RELAXED);
        __atomic_store_n(&b->item[b->n - 1]->next, 0, __ATOMIC_RELAXED);
        struct hotring *hr = b->hr;
        pthread_mutex_lock(&hr->pool_mu);
        __atomic_store_n(&b->item[0]->h, (uint64_t)(uintptr_t)hr->pool, __ATOMIC_RELAXED);
        hr->pool = b->item[0];
        pthread_mutex_unlock(&hr->pool_mu);
    }
    free(b);
}

static void batch_flush(struct hotring *hr, struct hr_thread *th)
{
    if (th->batch) {
        struct hr_batch *b = th->batch;
        th->batch = NULL;
        if (b->n)
            ebr_retire(hr->ebr, &b->node, batch_free);
        else
            free(b);
    }
}

/* x has just been unlinked by this thread's CAS and no head points at it */
static void retire_item(struct hotring *hr, struct hr_item *x)
{
    if (x->key == 0)
        return;                         /* sentinels go with their table */
    struct hr_thread *th = me(hr);
    if (!th->batch) {
        th->batch = malloc(sizeof *th->batch);
        if (!th->batch) {
            th->leaked++;
            return;
        }
        th->batch->n = 0;
        th->batch->hr = hr;
    }
    th->batch->item[th->batch->n++] = x;
    if (th->batch->n == HR_BATCH)
        batch_flush(hr, th);
}

/* ---------------- generations ---------------- */

static void gen_free(struct hr_gen *G)
{
    if (!G)
        return;
    if (G->head)
        cht_free_large(G->head, G->head_bytes, G->head_mapped);
    if (G->sent)
        cht_free_large(G->sent, G->sent_bytes, G->sent_mapped);
    free(G);
}

static void gen_free_node(struct ebr_node *n)
{
    gen_free((struct hr_gen *)n);
}

/* a generation of 2^bits buckets whose sentinels are initialised (next: self)
 * and whose heads point at them; NULL when out of memory */
static struct hr_gen *gen_new(unsigned bits, bool huge)
{
    uint64_t nb = 1ull << bits;
    double bytes = (double)nb * (sizeof(uint64_t) + sizeof(struct hr_item));
    if (bytes > (double)cht_phys_bytes())
        return NULL;
    struct hr_gen *G = calloc(1, sizeof *G);
    if (!G)
        return NULL;
    G->bits = bits;
    G->shift = 64 - bits;
    G->head_bytes = (nb * sizeof(uint64_t) + CHT_CACHE_LINE - 1) & ~(size_t)(CHT_CACHE_LINE - 1);
    G->sent_bytes = (nb * sizeof(struct hr_item) + CHT_CACHE_LINE - 1) & ~(size_t)(CHT_CACHE_LINE - 1);
    G->head = cht_alloc_large(G->head_bytes, huge, &G->head_mapped);
    G->sent = G->head ? cht_alloc_large(G->sent_bytes, huge, &G->sent_mapped) : NULL;
    if (!G->head || !G->sent || ((uintptr_t)G->sent + G->sent_bytes) >> 48) {
        gen_free(G);
        return NULL;
    }
    for (uint64_t j = 0; j < nb; j++) {
        struct hr_item *s = &G->sent[j];
        s->h = j << G->shift;
        s->key = 0;
        s->val = 0;
        s->next = ADDRW(s);
        G->head[j] = ADDRW(s);
    }
    return G;
}

/* ---------------- head words ---------------- */

/* Moves bucket j's head from hw to x unless it moved meanwhile: x is occupied
 * for the move so that it cannot die while the head goes onto it (§3.3).
 * meta: the active/counter bits to install with it. */
static bool move_head(struct hr_gen *G, uint64_t j, uint64_t hw, struct hr_item *x, uint64_t meta)
{
    uint64_t xw = ld(&x->next);
    if (DEADW(xw) || OCCW(xw) || !cas(&x->next, xw, xw | HR_OCC))
        return false;
    bool moved = cas(&G->head[j], hw, meta | ADDRW(x));
    st(&x->next, xw);                   /* only the occupier writes an occupied word */
    return moved;
}

/* Bucket j's head hw points at a dead item: move it to the first live item
 * after it in the ring (the sentinel at the latest). Returns when the head no
 * longer holds hw (this thread's move or another's) or the attempt lost a race. */
static void fix_head(struct hr_gen *G, uint64_t j, uint64_t hw)
{
    struct hr_item *x = ITEM(hw), *S = &G->sent[j], *L = NULL;
    for (unsigned steps = 0; steps < (1u << 24); steps++) {
        struct hr_item *c = ITEM(ld(&x->next));
        if (arc_end(G, j, c)) {
            L = S;
            break;
        }
        if (live(c)) {
            L = c;
            break;
        }
        x = c;
    }
    if (L)
        move_head(G, j, hw, L, hw & HR_META);
}

/* No head word of a table that operations may use points at the dead item x
 * when this returns; none can point at it later (x cannot be occupied). */
static void clear_heads(struct hotring *hr, struct hr_item *x)
{
    unsigned spins = 0;
    for (int which = 0; which < 2; which++) {
        /* cur before old: a table published after x died never points at x, and
         * once cur is the new table, old is the previous one until its grace
         * period is over (after which nothing reads its heads) */
        for (;;) {
            struct hr_gen *G = which == 0 ? __atomic_load_n(&hr->cur, __ATOMIC_SEQ_CST)
                                          : __atomic_load_n(&hr->old, __ATOMIC_SEQ_CST);
            if (!G)
                break;
            uint64_t j = ldr(&x->h) >> G->shift;
            uint64_t hw = ld(&G->head[j]);
            if (ITEM(hw) != x)
                break;
            fix_head(G, j, hw);
            hr_pause(&spins);
        }
    }
}

/* Unlinks the dead item c (word cw) from after p (word pw). True when this
 * thread's CAS did it (and c is retired); false when p.next changed. */
static bool unlink_item(struct hotring *hr, struct hr_item *p, uint64_t pw, struct hr_item *c, uint64_t cw)
{
    clear_heads(hr, c);
    if (!cas(&p->next, pw, (pw & HR_CNT_MASK) | (cw & HR_ADDR)))
        return false;
    retire_item(hr, c);
    return true;
}

/* ---------------- traversals ---------------- */

/* tests/test_hotring counts the steps a walk decides on the general test */
#ifndef HR_SLOW_STEP
#define HR_SLOW_STEP() ((void)0)
#endif
/* and the items a round's finish takes */
#ifndef HR_FINISH_WALK
#define HR_FINISH_WALK(items) ((void)0)
#endif

/* Read-only lookup from the head item (hotring-fast20 §3.1). Returns the live
 * item of order t, or NULL. *hops: items visited.
 *
 * The loop's first test is the common step of a walk: the next item c lies
 * in bucket j with a tag below t's, so c < t and the walk goes on. With
 * base = the bucket's lowest tag, that is base < c.h < t.h, one unsigned
 * compare: c.h - (base + 1) < t.h - (base + 1). It fails for the sentinel
 * (h == base), for items of another bucket (a ring being split), for tags
 * equal to t's and for the items above t: everything the general test below
 * decides as before, so the fast test changes the cost of a step, never its
 * outcome. A step is then two loads (next, h: one line), a mask, a subtract
 * and one branch, like a chain node's (issue 22: the general test alone cost
 * 19 instructions, 3 loads and 4 branches per item, 2.3x a chain node's
 * instructions; docs/measurements/hotring-item-cost.md). */
static inline __attribute__((always_inline)) struct hr_item *walk_get(struct hr_gen *G, uint64_t j, uint64_t hw,
                                                                     hr_ord t, unsigned *hops)
{
    struct hr_item *S = &G->sent[j], *x = ITEM(hw);
    const unsigned shift = G->shift;   /* a local: the atomic loads below would reload G->shift */
    const uint64_t th = (uint64_t)(t >> 64), tk = (uint64_t)t, base1 = (j << shift) + 1;
    const uint64_t lim = th >= base1 ? th - base1 : 0;   /* 0: t has the lowest tag, no fast steps */
    unsigned n = 1;
    int r = rel(x, ldr(&x->h), t);
    if (r == 0 && live(x)) {
        *hops = n;
        return x;
    }
    bool prev_lt = r < 0, jumped = false;   /* prev_lt: the item before is below t */
    for (;;) {
        struct hr_item *c = ITEM(ld(&x->next));
        uint64_t ch = ldr(&c->h);
        n++;
        if (__builtin_expect(ch - base1 < lim, 1)) {
            do {                        /* same bucket, tag below t's */
                x = c;
                c = ITEM(ld(&x->next));
                ch = ldr(&c->h);
                n++;
            } while (__builtin_expect(ch - base1 < lim, 1));
            prev_lt = true;
        }
        HR_SLOW_STEP();
        /* the usual end of a hit: c is t itself (equal tag, equal key). The
         * general test below decides the same (rel() == 0, then live()), with
         * two more compares and branches first; an equal tag is never the
         * sentinel's (key 0) nor another bucket's (its bucket is t's). */
        if (ch == th && ldr(&c->key) == tk && live(c)) {
            *hops = n;
            return c;
        }
        if (c == S || (ch >> shift) != j) {
            /* the wrap point (max -> min) of the ordered ring's conditions, or
             * the other half of a ring being split: continue at the sentinel */
            if (prev_lt || jumped)
                break;
            jumped = true;
            x = S;
            prev_lt = true;             /* the sentinel is below every key */
            continue;
        }
        r = rel(c, ch, t);
        if (r == 0) {
            if (live(c)) {
                *hops = n;
                return c;
            }
        } else if (prev_lt && r > 0) {
            break;
        } else {
            prev_lt = r < 0;
        }
        x = c;
    }
    *hops = n;
    return NULL;
}

struct hr_pos {
    struct hr_item *p, *c;    /* p: live predecessor (NULL: c is the head item) */
    uint64_t pw;              /* p's next word (points at c, no OCC/DEAD) */
};

/* Writer's search (Harris-style: unlinks the dead items it meets). Returns
 * true with pos->c the live item of order t, or false with the insertion
 * point: pos->p live, ORD(p) < t, and t < ORD(pos->c) or c ends the ring. */
static bool find(struct hotring *hr, struct hr_gen *G, uint64_t j, hr_ord t, struct hr_pos *pos,
                 unsigned *hops)
{
    struct hr_item *S = &G->sent[j];
    unsigned spins = 0, n = 0;
retry:
    for (;;) {
        uint64_t hw = ld(&G->head[j]);
        struct hr_item *H = ITEM(hw);
        uint64_t pw = ld(&H->next);
        n++;
        if (DEADW(pw)) {
            fix_head(G, j, hw);
            hr_pause(&spins);
            continue;
        }
        int rh = rel(H, ldr(&H->h), t);
        if (rh == 0) {
            pos->p = NULL;
            pos->c = H;
            pos->pw = 0;
            *hops += n;
            return true;
        }
        struct hr_item *P = H;
        bool jumped = false, p_lt = rh < 0;   /* p_lt: P is below t */
        for (;;) {
            if (OCCW(pw)) {
                hr_pause(&spins);
                pw = ld(&P->next);
                if (DEADW(pw))
                    goto retry;
                continue;
            }
            struct hr_item *C = ITEM(pw);
            uint64_t ch = ldr(&C->h);
            n++;
            if (C == S || (ch >> G->shift) != j) {
                if (p_lt) {
                    pos->p = P;
                    pos->pw = pw;
                    pos->c = C;
                    *hops += n;
                    return false;
                }
                if (jumped)
                    goto retry;         /* the ring changed under us */
                jumped = true;
                P = S;
                p_lt = true;
                pw = ld(&S->next);
                if (DEADW(pw))
                    goto retry;
                continue;
            }
            uint64_t cw = ld(&C->next);
            if (DEADW(cw)) {
                if (unlink_item(hr, P, pw, C, cw))
                    pw = (pw & HR_CNT_MASK) | (cw & HR_ADDR);
                else
                    pw = ld(&P->next);
                if (DEADW(pw))
                    goto retry;
                continue;
            }
            int rc = rel(C, ch, t);
            if (rc == 0) {
                pos->p = P;
                pos->pw = pw;
                pos->c = C;
                *hops += n;
                return true;
            }
            if (rc > 0 && p_lt) {
                pos->p = P;
                pos->pw = pw;
                pos->c = C;
                *hops += n;
                return false;
            }
            P = C;
            pw = cw;
            p_lt = rc < 0;
        }
    }
}

/* The RCU update's CAS has killed c (its word: new version | DEAD, final).
 * Unlinks c (this thread, or another that meets it first) and returns the
 * live item before c's place: the item the update wrote through (§3.2.2).
 * p: c's live predecessor when c was found (NULL: c was the head item). Without p, or when p died or p.next changed (an insert
 * between p and c), the walk starts at the bucket's sentinel: c lies in its
 * order position on the way from there to its new version (items of c's order
 * that are live come after every dead one: a search unlinks the dead items it
 * passes before inserting or finding). With c as the head item this is the
 * ring walk the paper's RCU update of a head pays for (§3.2.2). */
static struct hr_item *unlink_old(struct hotring *hr, struct hr_gen *G, uint64_t j, struct hr_item *p,
                                  struct hr_item *c, hr_ord t, unsigned *hops)
{
    uint64_t cw = ld(&c->next);
    unsigned spins = 0;
    while (p) {
        uint64_t pw = ld(&p->next);
        if (!DEADW(pw) && ITEM(pw) == ITEM(cw))
            return p;                   /* another thread unlinked c */
        if (DEADW(pw) || ITEM(pw) != c)
            break;
        if (OCCW(pw)) {
            hr_pause(&spins);
            continue;
        }
        if (unlink_item(hr, p, pw, c, cw))
            return p;
        /* the CAS failed: p's counter bits or next changed, or p died: look again */
    }
    struct hr_item *S = &G->sent[j];
    for (;;) {
        struct hr_item *P = S;
        uint64_t pw = ld(&S->next);
        for (;;) {
            if (OCCW(pw)) {
                hr_pause(&spins);
                pw = ld(&P->next);
                continue;
            }
            if (DEADW(pw))
                break;                  /* P died: from the sentinel again */
            struct hr_item *C = ITEM(pw);
            ++*hops;
            if (arc_end(G, j, C))
                return P;               /* past the arc: c is gone */
            uint64_t xw = ld(&C->next);
            int r = rel(C, ldr(&C->h), t);
            if (r > 0)
                return P;               /* past c's place: c is gone */
            if (C == c || DEADW(xw)) {  /* c, or another dead item on the way: unlink it */
                if (unlink_item(hr, P, pw, C, xw)) {
                    if (C == c)
                        return P;
                    pw = (pw & HR_CNT_MASK) | (xw & HR_ADDR);
                } else {
                    pw = ld(&P->next);
                }
                continue;
            }
            if (r == 0)
                return P;               /* a live version of c's key: c was before it, so it is gone */
            P = C;
            pw = xw;
        }
        hr_pause(&spins);
    }
}

/* ---------------- hotspot strategies ---------------- */

/* clears x's access counter and returns it */
static uint64_t take_count(struct hr_item *x)
{
    for (;;) {
        uint64_t w = ld(&x->next);
        uint64_t n = (w & HR_CNT_MASK) >> HR_CNT_SHIFT;
        if (n == 0 || DEADW(w) || OCCW(w))
            return n;
        if (cas(&x->next, w, w & ~HR_CNT_MASK))
            return n;
    }
}

/* The ring as seen from the head item H: H, the items after it, the sentinel,
 * the items before H (live items only, at most max), each item's counter
 * taken (read and cleared). With need > 0 the walk stops at the item whose
 * counter brings the counters taken to need: every sample of the round has
 * then been seen, and the items after it hold none (but a few increments
 * of threads that saw the round end, which the next round counts). *whole:
 * the walk went round the ring (or reached max). */
static unsigned ring_from(struct hr_gen *G, uint64_t j, struct hr_item *H, struct hr_item **items,
                          uint64_t *counts, unsigned max, uint64_t need, bool *whole)
{
    struct hr_item *S = &G->sent[j], *x = H;
    hr_ord oh = ORD(H);
    unsigned k = 0;
    items[k] = H;
    counts[k] = take_count(H);
    uint64_t taken = counts[k++];
    bool jumped = false;
    *whole = true;
    while (k < max) {
        if (need && taken >= need) {
            *whole = false;
            break;
        }
        struct hr_item *c = ITEM(ld(&x->next));
        if (arc_end(G, j, c)) {
            if (jumped || H == S)
                break;
            jumped = true;
            c = S;
        } else if (c == H || (jumped && ORD(c) >= oh)) {
            break;
        }
        if (live(c)) {
            items[k] = c;
            counts[k] = take_count(c);
            taken += counts[k++];
        }
        x = c;
    }
    return k;
}

/* The head word's states: inactive (no round), active with n > 0 samples to
 * go, and "busy" (active with 0 left): one thread is starting or finishing a
 * round; nobody records or starts meanwhile, so no two threads clear or read
 * the item counters at the same time. */
#define HR_BUSY HR_ACTIVE

/* leaves the busy state: installs `to`'s meta bits on whatever address the
 * head has now (a dead head may have been replaced meanwhile) */
static void leave_busy(struct hr_gen *G, uint64_t j, uint64_t meta)
{
    for (;;) {
        uint64_t hw = ld(&G->head[j]);
        if ((hw & HR_META) != HR_BUSY || cas(&G->head[j], hw, (hw & HR_ADDR) | meta))
            return;
    }
}

/* §3.2.2: a cold access on an R-th request starts a round. Its length is
 * the ring's item count, which the previous round's finish left in the
 * counter bits of the inactive head word. A ring's first round (no count
 * there yet) is `ratio` accesses long, the expected ring length: counting the
 * ring first was a walk over every item (one cache miss each in a table
 * larger than the cache) in every ring a run touches, at the start of every
 * ring's first round; in a 0.5 s chtbench run of 1M keys most rings see only
 * their first rounds (issue 22, docs/measurements/hotring-item-cost.md). */
static void sample_start(struct hotring *hr, struct hr_gen *G, uint64_t j, uint64_t hw)
{
    uint64_t len = hr->samples ? hr->samples : (hw & HR_HCNT_MASK) >> HR_CNT_SHIFT;
    if (!len)
        len = hr->ratio;
    cas(&G->head[j], hw, (hw & HR_ADDR) | HR_ACTIVE | len << HR_CNT_SHIFT);
}

/* §3.2.2: the thread that ended the round (head now busy at hw) picks
 * the head minimising W_t and leaves the busy state.
 *
 * The walk reads and clears every counter from the head on, but stops at
 * the last counted item when the ring's item count k and the round's
 * length (the samples recorded) are known: the sentinel's value word (a
 * sentinel holds no value) keeps the k of the last whole walk, and a round
 * is k samples long (or samples=). The items after the last counted one,
 * never touched in the round, were one cache miss each in a table larger
 * than the cache (issue 22: a third of the items a finish walked at Zipf
 * 0.99, ratio 8). W_t needs k but no more items: the argmin lies at or
 * before the last counted item (W_{t+1} = W_t - N + k n_t, so W falls
 * along items without counts and, after the last counted one, falls back
 * to W_0). Every 8th finish of a thread, a ring's first round and a round
 * whose counts fall short walk the whole ring, so k follows inserts and
 * removes within a few rounds. */
static void sample_finish(struct hotring *hr, struct hr_thread *th, struct hr_gen *G, uint64_t j, uint64_t hw)
{
    struct hr_item *items[HR_MAXK];
    uint64_t counts[HR_MAXK];
    struct hr_item *H = ITEM(hw), *S = &G->sent[j];
    uint64_t known = ldr(&S->val);
    uint64_t need = (++th->finishes & 7) == 0 || !known ? 0 : hr->samples ? hr->samples : known;
    bool whole = true;
    unsigned m = live(H) ? ring_from(G, j, H, items, counts, HR_MAXK, need, &whole) : 0;
    HR_FINISH_WALK(m);
    uint64_t k = whole && m ? m : known > m ? known : m;     /* the ring's items */
    uint64_t N = 0, W = 0;
    for (unsigned i = 0; i < m; i++) {
        N += counts[i];
        W += counts[i] * i;             /* W_0 * N */
    }
    unsigned best = 0;
    if (N && m > 1) {
        uint64_t bestW = W;
        for (unsigned t = 0; t + 1 < m; t++) {
            W = W + counts[t] * k - N;  /* W_{t+1} N = W_t N - N + n_t k */
            if (W < bestW) {
                bestW = W;
                best = t + 1;
            }
        }
    }
    if (k && k != known)
        __atomic_store_n(&S->val, k, __ATOMIC_RELAXED);   /* published by the head word's CAS below */
    uint64_t keep = (uint64_t)(k < 1 ? 1 : k > HR_HCNT_MAX ? HR_HCNT_MAX : k) << HR_CNT_SHIFT;
    if (!best || !move_head(G, j, hw, items[best], keep))
        leave_busy(G, j, keep);
}

/* a sampled access to x (§3.2.2): item counter, then the ring's counter */
static void sample_record(struct hotring *hr, struct hr_thread *th, struct hr_gen *G, uint64_t j, struct hr_item *x)
{
    for (;;) {
        uint64_t w = ld(&x->next);
        if (DEADW(w) || OCCW(w) || (w & HR_CNT_MASK) == HR_CNT_MASK)
            break;
        if (cas(&x->next, w, w + (1ull << HR_CNT_SHIFT)))
            break;
    }
    for (;;) {
        uint64_t hw = ld(&G->head[j]);
        uint64_t left = (hw & HR_HCNT_MASK) >> HR_CNT_SHIFT;
        if (!(hw & HR_ACTIVE) || left == 0)
            return;                     /* no round, or busy */
        if (left == 1) {
            uint64_t busy = (hw & HR_ADDR) | HR_BUSY;
            if (cas(&G->head[j], hw, busy)) {
                sample_finish(hr, th, G, j, busy);
                return;
            }
        } else if (cas(&G->head[j], hw, hw - (1ull << HR_CNT_SHIFT))) {
            return;
        }
    }
}

/* after a get/update: x the item accessed (NULL: miss), hw the head word read */
static inline void strategy_hook(struct hotring *hr, struct hr_thread *th, struct hr_gen *G, uint64_t j,
                                 uint64_t hw, struct hr_item *x)
{
    if (hr->strategy == HR_NONE)
        return;
    if (hr->strategy == HR_SAMPLE && (hw & HR_ACTIVE) && x)
        sample_record(hr, th, G, j, x);
    if (++th->req < hr->r)
        return;
    th->req = 0;
    if (!x || x == ITEM(hw))
        return;                         /* a miss, or a hot access */
    if (hr->strategy == HR_RANDOM)
        move_head(G, j, hw, x, 0);
    else if (!(hw & HR_ACTIVE))
        sample_start(hr, G, j, hw);
}

/* ---------------- rehash ---------------- */

static void request_rehash(struct hotring *hr)
{
    if (!hr->rehash || __atomic_load_n(&hr->pending, __ATOMIC_RELAXED))
        return;
    int zero = 0;
    if (!__atomic_compare_exchange_n(&hr->pending, &zero, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return;
    pthread_mutex_lock(&hr->mu);
    pthread_cond_signal(&hr->cv);
    pthread_mutex_unlock(&hr->mu);
}

/* access cost window (§3.4) */
static inline void account(struct hotring *hr, struct hr_thread *th, struct hr_gen *G, unsigned hops)
{
    if (!hr->rehash)
        return;
    if (th->win_gen != G) {
        th->win_gen = G;
        th->win_ops = 0;
        th->win_hops = 0;
    }
    th->win_hops += hops;
    if (++th->win_ops < HR_WINDOW)
        return;
    if (th->win_hops > (uint64_t)(1 + hr->ratio) * HR_WINDOW)
        request_rehash(hr);
    th->win_ops = 0;
    th->win_hops = 0;
}

static size_t hr_size(void *tp);

/* the load guard: more than 4 x ratio keys per bucket */
static bool over_load(struct hotring *hr)
{
    uint64_t nb = __atomic_load_n(&hr->nbuckets, __ATOMIC_RELAXED);
    return nb < (1ull << HR_MAX_BITS) && hr_size(hr) > (size_t)4 * hr->ratio * nb;
}

static inline void load_check(struct hotring *hr, struct hr_thread *th)
{
    if (!hr->rehash || ++th->ins < 256)
        return;
    th->ins = 0;
    if (over_load(hr))
        request_rehash(hr);
}

/* the live item p of bucket j's ring (walking from its sentinel) whose next
 * is `target`, with that next word; unlinks dead items on the way */
static bool pred_of(struct hotring *hr, struct hr_gen *G, uint64_t j, struct hr_item *target,
                    struct hr_item **pp, uint64_t *pwp)
{
    struct hr_item *S = &G->sent[j];
    unsigned spins = 0;
    for (unsigned tries = 0; tries < 1000000; tries++) {
        struct hr_item *P = S;
        uint64_t pw = ld(&S->next);
        for (;;) {
            if (OCCW(pw)) {
                hr_pause(&spins);
                pw = ld(&P->next);
                continue;
            }
            if (DEADW(pw))
                break;                  /* P died: start again */
            struct hr_item *C = ITEM(pw);
            if (C == target) {
                *pp = P;
                *pwp = pw;
                return true;
            }
            if (arc_end(G, j, C))
                break;                  /* cannot happen while the rehash runs alone */
            uint64_t cw = ld(&C->next);
            if (DEADW(cw)) {
                if (unlink_item(hr, P, pw, C, cw))
                    pw = (pw & HR_CNT_MASK) | (cw & HR_ADDR);
                else
                    pw = ld(&P->next);
                continue;
            }
            P = C;
            pw = cw;
        }
        hr_pause(&spins);
    }
    return false;
}

/* replaces `target` after its predecessor in bucket j's ring by `repl` */
static void relink(struct hotring *hr, struct hr_gen *G, uint64_t j, struct hr_item *target,
                   struct hr_item *repl)
{
    struct hr_item *P;
    uint64_t pw;
    while (pred_of(hr, G, j, target, &P, &pw))
        if (cas(&P->next, pw, (pw & HR_CNT_MASK) | ADDRW(repl)))
            return;
}

struct hr_grace {
    struct ebr_node node;
    int *flag;
};

static void grace_done(struct ebr_node *n)
{
    struct hr_grace *g = (struct hr_grace *)n;
    __atomic_store_n(g->flag, 1, __ATOMIC_RELEASE);
    free(g);
}

/* waits until every operation that was running when it was called has ended
 * (the caller is outside any critical section) */
static void wait_grace(struct hotring *hr)
{
    int flag = 0;
    struct hr_grace *g;
    while (!(g = malloc(sizeof *g))) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    g->flag = &flag;
    ebr_retire(hr->ebr, &g->node, grace_done);
    while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE)) {
        struct timespec ts = { 0, 50000 };
        nanosleep(&ts, NULL);
        ebr_collect(hr->ebr);
    }
}

static void rehash(struct hotring *hr)
{
    unsigned tid = hr->nthreads;
    struct hr_gen *G = __atomic_load_n(&hr->cur, __ATOMIC_SEQ_CST);   /* only this thread replaces it */
    if (G->bits >= HR_MAX_BITS)
        return;
    struct hr_gen *N = gen_new(G->bits + 1, hr->hugepages);
    if (!N) {
        __atomic_fetch_add(&hr->alloc_failures, 1, __ATOMIC_RELAXED);
        return;
    }
    uint64_t nb = 1ull << G->bits;
    unsigned spins = 0;
    /* split phase (§3.4): insert the two rehash items into every ring */
    for (uint64_t i = 0; i < nb; i++) {
        ebr_enter(hr->ebr, tid);
        struct hr_item *So = &G->sent[i], *RA = &N->sent[2 * i], *RB = &N->sent[2 * i + 1];
        for (;;) {                      /* RA right after the old sentinel: same order */
            uint64_t sw = ld(&So->next);
            if (OCCW(sw)) {
                hr_pause(&spins);
                continue;
            }
            st(&RA->next, sw & HR_ADDR);
            if (cas(&So->next, sw, (sw & HR_CNT_MASK) | ADDRW(RA)))
                break;
        }
        for (;;) {                      /* RB at its order position */
            struct hr_pos pos;
            unsigned hops = 0;
            find(hr, G, i, ORD(RB), &pos, &hops);
            st(&RB->next, pos.pw & HR_ADDR);
            if (cas(&pos.p->next, pos.pw, (pos.pw & HR_CNT_MASK) | ADDRW(RB)))
                break;
        }
        ebr_exit(hr->ebr, tid);
    }
    /* publish: old first, so that whoever sees the new cur also sees old */
    __atomic_store_n(&hr->old, G, __ATOMIC_SEQ_CST);
    __atomic_store_n(&hr->cur, N, __ATOMIC_SEQ_CST);
    __atomic_store_n(&hr->nbuckets, 2 * nb, __ATOMIC_RELAXED);
    /* transition (§3.4): every operation on the old table ends */
    wait_grace(hr);
    __atomic_store_n(&hr->old, NULL, __ATOMIC_SEQ_CST);
    /* deletion phase: old sentinel out, each ring cut in two */
    for (uint64_t i = 0; i < nb; i++) {
        ebr_enter(hr->ebr, tid);
        struct hr_item *So = &G->sent[i], *RA = &N->sent[2 * i], *RB = &N->sent[2 * i + 1];
        for (;;) {
            uint64_t sw = ld(&So->next);
            if (OCCW(sw)) {
                hr_pause(&spins);
                continue;
            }
            if (cas(&So->next, sw, sw | HR_DEAD))
                break;
        }
        relink(hr, N, 2 * i + 1, So, RA);     /* high half's last -> RA (drops So) */
        relink(hr, N, 2 * i, RB, RA);         /* low half closed */
        relink(hr, N, 2 * i + 1, RA, RB);     /* high half closed */
        ebr_exit(hr->ebr, tid);
    }
    ebr_retire(hr->ebr, &G->retire, gen_free_node);
    __atomic_fetch_add(&hr->resizes, 1, __ATOMIC_RELAXED);
}

static void *rehash_main(void *arg)
{
    struct hotring *hr = arg;
    hr_tid = hr->nthreads;
    pthread_mutex_lock(&hr->mu);
    for (;;) {
        while (!__atomic_load_n(&hr->stop, __ATOMIC_SEQ_CST) && !__atomic_load_n(&hr->pending, __ATOMIC_SEQ_CST))
            pthread_cond_wait(&hr->cv, &hr->mu);
        if (__atomic_load_n(&hr->stop, __ATOMIC_SEQ_CST))
            break;
        __atomic_store_n(&hr->busy, 1, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&hr->mu);
        /* a burst of inserts may outrun one doubling: repeat while over the load guard */
        do {
            rehash(hr);
        } while (!__atomic_load_n(&hr->stop, __ATOMIC_SEQ_CST) && over_load(hr));
        batch_flush(hr, me(hr));
        ebr_thread_offline(hr->ebr, hr->nthreads);
        pthread_mutex_lock(&hr->mu);
        __atomic_store_n(&hr->busy, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&hr->pending, 0, __ATOMIC_SEQ_CST);
    }
    pthread_mutex_unlock(&hr->mu);
    return NULL;
}

/* ---------------- create / destroy ---------------- */

static void *hr_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT, strategy = HR_RANDOM, upd = 0;
    uint64_t r = 5, samples = 0, ratio = 8, rh = 1, fence = 0;
    const struct cht_option *o = cfg->options;
    if (!cht_option_enum(o, "hotring", "hash", cht_hash_names, &hash, err, len) ||
        !cht_option_enum(o, "hotring", "strategy", hr_strategy_names, &strategy, err, len) ||
        !cht_option_enum(o, "hotring", "update", hr_update_names, &upd, err, len) ||
        !cht_option_uint(o, "hotring", "r", 1, 1000000, &r, err, len) ||
        !cht_option_uint(o, "hotring", "samples", 0, HR_HCNT_MAX, &samples, err, len) ||
        !cht_option_uint(o, "hotring", "ratio", 2, 16, &ratio, err, len) ||
        !cht_option_uint(o, "hotring", "rehash", 0, 1, &rh, err, len) ||
        !cht_option_uint(o, "hotring", "fence", 0, 1, &fence, err, len))
        return NULL;
    size_t vwords = cht_value_words(cfg);
    if (vwords > 1) {
        /* large values are replaced, never overwritten (§3.3) */
        if (cht_option_get(o, "update") && upd == 0) {
            snprintf(err, len, "--table hotring: option update=inplace: values of --value-size %zu bytes cannot be "
                     "written in place atomically; use update=rcu (the default for values over 8 bytes)",
                     cfg->value_size);
            return NULL;
        }
        upd = 1;
    }
    double want = (double)(cfg->initial ? cfg->initial : 1) / (double)ratio;
    unsigned bits = 1;
    while (bits < HR_MAX_BITS && (double)(1ull << bits) * 1.41421356 < want)
        bits++;
    struct hotring *hr = cht_alloc_zeroed(sizeof *hr);
    if (!hr) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    hr->nthreads = cfg->max_threads ? cfg->max_threads : 1;
    hr->hash = hash;
    hr->strategy = strategy;
    hr->update_rcu = upd;
    hr->vwords = vwords;
    hr->item_bytes = vwords == 1 ? sizeof(struct hr_item)
                                 : (sizeof(struct hr_item) - 8 + 8 * vwords + CHT_CACHE_LINE - 1) &
                                       ~(size_t)(CHT_CACHE_LINE - 1);
    hr->rehash = (unsigned)rh;
    hr->ratio = (unsigned)ratio;
    hr->r = (uint32_t)r;
    hr->samples = (uint32_t)samples;
    hr->hugepages = cfg->hugepages;
    hr->cur = gen_new(bits, hr->hugepages);
    hr->nbuckets = 1ull << bits;
    hr->th = cht_alloc_zeroed((hr->nthreads + 1) * sizeof *hr->th);
    hr->ebr = ebr_create(hr->nthreads + 1, fence != 0);
    if (!hr->cur || !hr->th || !hr->ebr) {
        snprintf(err, len, "out of memory (%llu buckets)", 1ull << bits);
        gen_free(hr->cur);
        free(hr->th);
        ebr_destroy(hr->ebr);
        free(hr);
        return NULL;
    }
    pthread_mutex_init(&hr->mu, NULL);
    pthread_cond_init(&hr->cv, NULL);
    pthread_mutex_init(&hr->pool_mu, NULL);
    if (hr->rehash) {
        if (pthread_create(&hr->thread, NULL, rehash_main, hr) != 0)
            hr->rehash = 0;             /* runs without growing */
        else
            hr->thread_started = true;
    }
    return hr;
}

static void hr_destroy(void *tp)
{
    struct hotring *hr = tp;
    if (hr->thread_started) {
        pthread_mutex_lock(&hr->mu);
        __atomic_store_n(&hr->stop, 1, __ATOMIC_SEQ_CST);
        pthread_cond_signal(&hr->cv);
        pthread_mutex_unlock(&hr->mu);
        pthread_join(hr->thread, NULL);
    }
    struct hr_gen *G = hr->cur;
    for (uint64_t j = 0; !HR_SLAB && j < (1ull << G->bits); j++) {
        struct hr_item *S = &G->sent[j];
        for (struct hr_item *x = ITEM(S->next); x != S; ) {
            struct hr_item *nx = ITEM(x->next);
            free(x);
            x = nx;
        }
    }
    for (unsigned i = 0; i <= hr->nthreads; i++)
        if (hr->th[i].batch) {
            batch_free(&hr->th[i].batch->node);
            hr->th[i].batch = NULL;
        }
    ebr_destroy(hr->ebr);               /* frees retired items and tables */
    gen_free(G);
    for (struct hr_chunk *c = hr->chunks, *nx; c; c = nx) {   /* every item of the slab */
        nx = c->next;
        free(c);
    }
    pthread_mutex_destroy(&hr->pool_mu);
    pthread_mutex_destroy(&hr->mu);
    pthread_cond_destroy(&hr->cv);
    free(hr->th);
    free(hr);
}

static void hr_thread_init(void *tp, unsigned tid)
{
    struct hotring *hr = tp;
    hr_tid = cht_thread_slot(tid, hr->nthreads);
}

static void hr_thread_exit(void *tp, unsigned tid)
{
    struct hotring *hr = tp;
    (void)tid;
    batch_flush(hr, me(hr));
    ebr_thread_offline(hr->ebr, hr_tid);
}

/* ---------------- operations ---------------- */

static inline struct hr_gen *current(struct hotring *hr)
{
    return __atomic_load_n(&hr->cur, __ATOMIC_SEQ_CST);
}

static bool hr_get(void *tp, cht_key_t k, cht_val_t *v)
{
    struct hotring *hr = tp;
    struct hr_thread *th = me(hr);
    uint64_t g = order_hash(hr, k);
    unsigned hops;
    ebr_enter(hr->ebr, hr_tid);
    struct hr_gen *G = current(hr);
    uint64_t j = g >> G->shift;
    uint64_t hw = ld(&G->head[j]);
    struct hr_item *x = walk_get(G, j, hw, mkord(g, k), &hops);
    if (x && v)
        *v = hr->vwords == 1 ? __atomic_load_n(&x->val, __ATOMIC_SEQ_CST)
                             : cht_value_read(&x->val, hr->vwords);   /* immutable once published */
    /* a value read from an item that died meanwhile is still that of a live key
     * at the read: x was live when found and dies only after (linearises at the
     * value read, as a later remove/RCU update) */
    strategy_hook(hr, th, G, j, hw, x);
    ebr_exit(hr->ebr, hr_tid);
    account(hr, th, G, hops);
    return x != NULL;
}

static bool hr_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct hotring *hr = tp;
    struct hr_thread *th = me(hr);
    uint64_t g = order_hash(hr, k);
    hr_ord t = mkord(g, k);
    struct hr_item *fresh = NULL;
    bool added = false;
    unsigned hops = 0;
    ebr_enter(hr->ebr, hr_tid);
    struct hr_gen *G = current(hr);
    uint64_t j = g >> G->shift;
    for (;;) {
        struct hr_pos pos;
        if (find(hr, G, j, t, &pos, &hops))
            break;                      /* present */
        if (!fresh) {
            fresh = item_alloc(hr, th);
            if (!fresh) {
                __atomic_fetch_add(&hr->alloc_failures, 1, __ATOMIC_RELAXED);
                break;
            }
            __atomic_store_n(&fresh->h, g, __ATOMIC_RELAXED);
            __atomic_store_n(&fresh->key, k, __ATOMIC_RELAXED);
            if (hr->vwords == 1)
                __atomic_store_n(&fresh->val, v, __ATOMIC_RELAXED);
            else
                cht_value_fill(&fresh->val, hr->vwords, v);    /* the words follow the header */
        }
        __atomic_store_n(&fresh->next, pos.pw & HR_ADDR, __ATOMIC_RELAXED);
        if (cas(&pos.p->next, pos.pw, (pos.pw & HR_CNT_MASK) | ADDRW(fresh))) {
            added = true;
            break;
        }
    }
    ebr_exit(hr->ebr, hr_tid);
    if (added) {
        cht_thread_counter_add(&th->count, 1);
        load_check(hr, th);
    } else {
        item_unused(hr, th, fresh);         /* never published */
    }
    account(hr, th, G, hops);
    return added;
}

static bool hr_remove(void *tp, cht_key_t k)
{
    struct hotring *hr = tp;
    struct hr_thread *th = me(hr);
    uint64_t g = order_hash(hr, k);
    hr_ord t = mkord(g, k);
    bool removed = false;
    unsigned hops = 0, spins = 0;
    ebr_enter(hr->ebr, hr_tid);
    struct hr_gen *G = current(hr);
    uint64_t j = g >> G->shift;
    for (;;) {
        struct hr_pos pos;
        if (!find(hr, G, j, t, &pos, &hops))
            break;                      /* absent */
        uint64_t cw = ld(&pos.c->next);
        if (DEADW(cw))
            continue;                   /* removed or replaced meanwhile: look again */
        if (OCCW(cw)) {
            hr_pause(&spins);
            continue;
        }
        if (cas(&pos.c->next, cw, cw | HR_DEAD)) {
            removed = true;
            break;
        }
    }
    if (removed) {
        struct hr_pos pos;              /* unlink it (this or another thread) */
        find(hr, G, j, t, &pos, &hops);
    }
    ebr_exit(hr->ebr, hr_tid);
    if (removed)
        cht_thread_counter_add(&th->count, -1);
    account(hr, th, G, hops);
    return removed;
}

static bool hr_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct hotring *hr = tp;
    struct hr_thread *th = me(hr);
    uint64_t g = order_hash(hr, k);
    hr_ord t = mkord(g, k);
    unsigned hops = 0, spins = 0;
    bool done = false;
    ebr_enter(hr->ebr, hr_tid);
    struct hr_gen *G = current(hr);
    uint64_t j = g >> G->shift;
    uint64_t hw = ld(&G->head[j]);
    if (!hr->update_rcu) {
        /* in place (§3.3): one atomic store into the live item; if a remove
         * kills it meanwhile, the update linearises just before that remove */
        struct hr_item *x = walk_get(G, j, hw, t, &hops);
        if (x) {
            __atomic_store_n(&x->val, v, __ATOMIC_SEQ_CST);
            done = true;
        }
        strategy_hook(hr, th, G, j, hw, x);
    } else {
        /* RCU (§3.3, figure 8): a new version linked right after the old
         * one by the CAS that kills the old one */
        struct hr_item *fresh = NULL;
        struct hr_pos pos;
        for (;;) {
            if (!find(hr, G, j, t, &pos, &hops))
                break;
            uint64_t cw = ld(&pos.c->next);
            if (DEADW(cw))
                continue;
            if (OCCW(cw)) {
                hr_pause(&spins);
                continue;
            }
            if (!fresh) {
                fresh = item_alloc(hr, th);
                if (!fresh) {
                    __atomic_fetch_add(&hr->alloc_failures, 1, __ATOMIC_RELAXED);
                    break;
                }
                __atomic_store_n(&fresh->h, g, __ATOMIC_RELAXED);
                __atomic_store_n(&fresh->key, k, __ATOMIC_RELAXED);
                if (hr->vwords == 1)
                    __atomic_store_n(&fresh->val, v, __ATOMIC_RELAXED);
                else
                    cht_value_fill(&fresh->val, hr->vwords, v);
            }
            /* the new version inherits the old one's access counter: a sampling
             * round would otherwise lose what it counted for a replaced item */
            __atomic_store_n(&fresh->next, cw & (HR_ADDR | HR_CNT_MASK), __ATOMIC_RELAXED);
            if (cas(&pos.c->next, cw, ADDRW(fresh) | HR_DEAD)) {
                done = true;
                break;
            }
        }
        if (done) {
            /* the old version is unlinked here, before any head move: a later
             * search that starts at the new version (the head after inheritance
             * or a move) never walks back over it (issue 22's leak) */
            struct hr_item *p = unlink_old(hr, G, j, pos.p, pos.c, t, &hops);
            /* §3.2.2: the item an RCU update writes through is the old
             * version's predecessor, so sample counts p (and a round starts when
             * p is not the head); random moves the head to the new version */
            strategy_hook(hr, th, G, j, ld(&G->head[j]), hr->strategy == HR_SAMPLE ? p : fresh);
        } else {
            item_unused(hr, th, fresh);
        }
    }
    ebr_exit(hr->ebr, hr_tid);
    account(hr, th, G, hops);
    return done;
}

static size_t hr_size(void *tp)
{
    struct hotring *hr = tp;
    return cht_count_as_size(cht_sum_strided(&hr->th->count, hr->nthreads + 1, sizeof *hr->th));
}

static void hr_stats(void *tp, struct cht_stats *s)
{
    struct hotring *hr = tp;
    uint64_t nb = __atomic_load_n(&hr->nbuckets, __ATOMIC_RELAXED);
    /* items as allocated (slab chunks, free slots included), not size() x item: a leak shows */
    s->bytes = sizeof *hr + (hr->nthreads + 1) * sizeof *hr->th + nb * (sizeof(uint64_t) + sizeof(struct hr_item)) +
               __atomic_load_n(&hr->item_store, __ATOMIC_RELAXED);
    s->buckets = nb;
    s->resizes = __atomic_load_n(&hr->resizes, __ATOMIC_RELAXED);
    s->alloc_failures = __atomic_load_n(&hr->alloc_failures, __ATOMIC_RELAXED);
}

const struct cht_ops cht_table_hotring = {
    .name = "hotring",
    .summary = "HotRing (FAST'20): ordered rings, head moved to hot items (strategy=random|sample|none), lock-free, lock-free rehash",
    .caps = CHT_CAP_UPDATE | CHT_CAP_RESIZE | CHT_CAP_VALUE_OOL,
    .options = hr_options,
    .create = hr_create,
    .destroy = hr_destroy,
    .thread_init = hr_thread_init,
    .thread_exit = hr_thread_exit,
    .get = hr_get,
    .insert = hr_insert,
    .remove = hr_remove,
    .update = hr_update,
    .size = hr_size,
    .stats = hr_stats,
};
