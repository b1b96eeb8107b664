/*
 * chain_bounded.c - indexlib's "Chain Hash Table" (the indexlib cuckoo note,
 * Alibaba, its table list and chain layout): separate chaining with a fixed
 * capacity, made concurrent. The note's table keeps an index of chain heads
 * and stores every (k, v) node in ONE contiguous, preallocated "list region"
 * (line 6: "A,H,P,J,B,M,Q,D,W are stored in one contiguous memory area, in no
 * particular order"), so that, unlike a malloc'ed chain, its memory is fixed:
 * "besides the (k, v) pairs stored in sequence, only an index of chain heads"
 * (line 5). Lines 63-66: the comparison gives the chain the same memory as
 * the others, 90% of it as nodes and 10% as heads.
 *
 * Layout:
 *  - node pool: exactly P = ceil(initial / density) nodes (at least 16,
 *    at most 2^32 - 2), one array of 24-byte nodes {key, val, u32 next,
 *    u32 unused}, 64-byte aligned, mapped (cht_alloc_large). The pool size is
 *    the capacity: stats.buckets = P, so size()/buckets is the occupancy and
 *    --bench occupancy fills it as it fills dense's slots. An insert when all
 *    P nodes are in use returns false and counts stats.full_failures.
 *  - head index: 2^m 8-byte words, 2^m = the least power of two >= P / ratio
 *    (option ratio=1..64 keys per head at full pool, default 2: at 90% load
 *    1.8 keys per chain, close to the note's 90M keys under 10M 16-byte
 *    index buckets). Head of k: cht_hash(kind, k) mod 2^m (hash=fold|mix|
 *    identity, include/cht_hash.h).
 *  - nodes are handed out in pool order first (a shared bump index), then
 *    from free lists of removed nodes (one per thread, each with its own
 *    spin lock; an insert whose own list is empty takes from the others, so
 *    an insert fails only when no node is free anywhere it looked).
 *
 * Concurrency: each head word is a per-chain seqlock: bits 0-31 the index of
 * the first node (UINT32_MAX = empty chain), bits 32-63 a sequence number,
 * odd while a writer holds the chain. insert/remove/update take the chain's
 * word with a CAS (seq even -> odd), work on the chain, and release it with
 * one release store of {new first node, seq + 1}. get() takes no lock and
 * writes nothing: it reads the word (waits while odd), walks the chain with
 * acquire loads, and re-reads the word; an unchanged word proves that no
 * writer touched the chain meanwhile, so the answer is consistent. A node is
 * freed (pushed on a free list, and possibly reused by another chain) only
 * after it was unlinked under its chain's lock, which changed the word, so
 * a reader that walked into a reused node always fails its validation; its
 * walk is bounded (it re-checks the word every 64 nodes and restarts), so a
 * stale `next` cannot trap it. Lock order: a chain word, then at most one
 * free-list lock (never two chains at once: no deadlock). Every shared word
 * is accessed with __atomic builtins. size(): per-thread padded counters.
 *
 * Deviations from the note:
 *  - no "compaction" step (line 7: after all inserts, reorder the list region
 *    so that each chain's nodes are contiguous): it needs a quiescent table
 *    and the driver has no hook for it; nodes stay in insertion order, so a
 *    walk past the first node jumps (the note: chain "query performance is
 *    mediocre because the list space is not contiguous", line 5).
 *  - 24-byte nodes (a 32-bit next index beside the 16-byte pair) and 8-byte
 *    heads (index + seqlock), where the note speaks of 16-byte buckets for
 *    both: the concurrent version pays 8 bytes per node and 4 per head.
 *  - concurrent (the note's table is built once, then read): see above.
 * probe_lines(): distinct 64-byte lines one get of k reads, replayed without
 * timing (the head word, then each visited node's key, and its value on the
 * hit or its next index on the walk).
 */
#include <stdalign.h>
#include <sched.h>
#include "cht.h"
#include "cht_atomic.h"
#include "cht_hash.h"
#include "table_support.h"

#define CB_NIL       UINT32_MAX
#define CB_MIN_NODES 16u
#define CB_MAX_NODES (UINT32_MAX - 1u)     /* indexes 0 .. 2^32 - 2; UINT32_MAX is NIL */
#define CB_MIN_HEADS 16u
#define CB_WALK_CHECK 64u                  /* get() re-checks the head word this often */

struct cb_node {
    cht_key_t key;
    cht_val_t val;
    uint32_t next;      /* CB_NIL: end of chain (or of a free list) */
    uint32_t unused;
};

/* per thread: its free list and its share of size(), alone on a cache line */
struct cb_thread {
    alignas(CHT_CACHE_LINE) uint32_t lock;  /* 0 free, 1 held */
    uint32_t free_head;                     /* free list of removed nodes (CB_NIL: empty) */
    int64_t count;                          /* inserts - removes by this thread */
    uint64_t full;                          /* inserts refused: no free node */
};

struct cb_table {
    uint64_t *head;         /* 2^m words: first node (low 32 bits) | seq << 32 */
    struct cb_node *node;   /* P nodes */
    struct cb_thread *th;   /* threads */
    uint64_t hmask;         /* 2^m - 1 */
    uint64_t cap;           /* P */
    size_t node_bytes, head_bytes;
    bool node_mapped, head_mapped;
    unsigned threads;
    enum cht_hash_kind hash;
    alignas(CHT_CACHE_LINE) uint64_t fresh;  /* next never-used node (atomic; >= cap: none left) */
};

static __thread unsigned cb_tid;

static const struct cht_option_spec cb_options[] = {
    CHT_HASH_OPTION,
    { "ratio", "1..64: keys per chain head when the pool is full: heads = the least power of two "
               ">= capacity / ratio (default 2)" },
    { NULL, NULL },
};

/* pause; every 256th spin yields instead (oversubscribed runs: let the holder finish) */
static inline void cb_relax(unsigned *spins)
{
    cht_spin_yield(spins, 256);
}

static inline uint32_t w_first(uint64_t w) { return (uint32_t)w; }
static inline uint64_t w_make(uint32_t first, uint64_t w_old_seq) { return (w_old_seq & ~(uint64_t)UINT32_MAX) | first; }
#define CB_SEQ_ODD (1ull << 32)

static inline uint64_t *cb_head_of(const struct cb_table *t, cht_key_t k)
{
    return &t->head[cht_hash(t->hash, k) & t->hmask];
}

/* takes the chain: returns the word as it is now held (seq odd) */
static inline uint64_t chain_lock(uint64_t *h)
{
    unsigned spins = 0;
    for (;;) {
        uint64_t w = __atomic_load_n(h, __ATOMIC_RELAXED);
        if (!(w & CB_SEQ_ODD) &&
            __atomic_compare_exchange_n(h, &w, w + CB_SEQ_ODD, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return w + CB_SEQ_ODD;
        cb_relax(&spins);
    }
}

/* releases the chain held as `held`, its first node now `first` */
static inline void chain_unlock(uint64_t *h, uint64_t held, uint32_t first)
{
    __atomic_store_n(h, w_make(first, held + CB_SEQ_ODD), __ATOMIC_RELEASE);
}

static inline uint32_t ld32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline uint64_t ld64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

static inline void th_lock(struct cb_thread *x)
{
    unsigned spins = 0;
    for (;;) {
        if (!__atomic_load_n(&x->lock, __ATOMIC_RELAXED) && !__atomic_exchange_n(&x->lock, 1u, __ATOMIC_ACQUIRE))
            return;
        cb_relax(&spins);
    }
}

static inline void th_unlock(struct cb_thread *x)
{
    __atomic_store_n(&x->lock, 0u, __ATOMIC_RELEASE);
}

static uint32_t cb_pop(struct cb_table *t, struct cb_thread *x)
{
    if (__atomic_load_n(&x->free_head, __ATOMIC_RELAXED) == CB_NIL)
        return CB_NIL;
    th_lock(x);
    uint32_t i = __atomic_load_n(&x->free_head, __ATOMIC_RELAXED);
    if (i != CB_NIL)
        __atomic_store_n(&x->free_head, ld32(&t->node[i].next), __ATOMIC_RELAXED);
    th_unlock(x);
    return i;
}

/* a node for an insert (caller holds a chain), or CB_NIL when none is free */
static uint32_t cb_alloc(struct cb_table *t)
{
    if (__atomic_load_n(&t->fresh, __ATOMIC_RELAXED) < t->cap) {
        uint64_t i = __atomic_fetch_add(&t->fresh, 1, __ATOMIC_RELAXED);
        if (i < t->cap)
            return (uint32_t)i;
    }
    unsigned me = cb_tid;
    for (unsigned j = 0; j < t->threads; j++) {
        uint32_t i = cb_pop(t, &t->th[(me + j) % t->threads]);
        if (i != CB_NIL)
            return i;
    }
    return CB_NIL;
}

static void cb_free(struct cb_table *t, uint32_t i)
{
    struct cb_thread *x = &t->th[cb_tid];
    th_lock(x);
    __atomic_store_n(&t->node[i].next, __atomic_load_n(&x->free_head, __ATOMIC_RELAXED), __ATOMIC_RELEASE);
    __atomic_store_n(&x->free_head, i, __ATOMIC_RELAXED);
    th_unlock(x);
}

/* ---- get ---- */

static bool cb_get(void *tp, cht_key_t k, cht_val_t *v)
{
    struct cb_table *t = tp;
    uint64_t *h = cb_head_of(t, k);
    unsigned spins = 0;
    for (;;) {
        uint64_t w = ld64(h);
        if (w & CB_SEQ_ODD) {
            cb_relax(&spins);
            continue;
        }
        bool found = false, stale = false;
        cht_val_t val = 0;
        uint32_t i = w_first(w);
        for (unsigned steps = 1; i != CB_NIL; steps++) {
            if (i >= t->cap) {           /* a torn walk through a reused node */
                stale = true;
                break;
            }
            const struct cb_node *n = &t->node[i];
            if (ld64(&n->key) == k) {
                val = ld64(&n->val);
                found = true;
                break;
            }
            i = ld32(&n->next);
            if (steps % CB_WALK_CHECK == 0 && __atomic_load_n(h, __ATOMIC_RELAXED) != w) {
                stale = true;
                break;
            }
        }
        /* the acquire loads above keep this re-read after them */
        if (!stale && __atomic_load_n(h, __ATOMIC_RELAXED) == w) {
            if (found && v)
                *v = val;
            return found;
        }
    }
}

/* ---- writers ---- */

static bool cb_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct cb_table *t = tp;
    uint64_t *h = cb_head_of(t, k);
    uint64_t held = chain_lock(h);
    uint32_t first = w_first(held);
    for (uint32_t i = first; i != CB_NIL; i = ld32(&t->node[i].next))
        if (ld64(&t->node[i].key) == k) {
            chain_unlock(h, held, first);
            return false;
        }
    uint32_t n = cb_alloc(t);
    struct cb_thread *x = &t->th[cb_tid];
    if (n == CB_NIL) {
        chain_unlock(h, held, first);
        __atomic_store_n(&x->full, __atomic_load_n(&x->full, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
        return false;
    }
    struct cb_node *nd = &t->node[n];
    __atomic_store_n(&nd->key, k, __ATOMIC_RELEASE);
    __atomic_store_n(&nd->val, v, __ATOMIC_RELEASE);
    __atomic_store_n(&nd->next, first, __ATOMIC_RELEASE);
    chain_unlock(h, held, n);
    cht_thread_counter_add(&x->count, 1);
    return true;
}

static bool cb_remove(void *tp, cht_key_t k)
{
    struct cb_table *t = tp;
    uint64_t *h = cb_head_of(t, k);
    uint64_t held = chain_lock(h);
    uint32_t first = w_first(held), prev = CB_NIL;
    for (uint32_t i = first; i != CB_NIL; prev = i, i = ld32(&t->node[i].next)) {
        if (ld64(&t->node[i].key) != k)
            continue;
        uint32_t next = ld32(&t->node[i].next);
        if (prev == CB_NIL)
            first = next;
        else
            __atomic_store_n(&t->node[prev].next, next, __ATOMIC_RELEASE);
        chain_unlock(h, held, first);       /* readers of this chain now retry */
        cb_free(t, i);
        cht_thread_counter_add(&t->th[cb_tid].count, -1);
        return true;
    }
    chain_unlock(h, held, first);
    return false;
}

static bool cb_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct cb_table *t = tp;
    uint64_t *h = cb_head_of(t, k);
    uint64_t held = chain_lock(h);
    uint32_t first = w_first(held);
    bool found = false;
    for (uint32_t i = first; i != CB_NIL; i = ld32(&t->node[i].next))
        if (ld64(&t->node[i].key) == k) {
            __atomic_store_n(&t->node[i].val, v, __ATOMIC_RELEASE);
            found = true;
            break;
        }
    chain_unlock(h, held, first);
    return found;
}

/* ---- probe_lines: the lines a get of k reads (quiescent replay, untimed) ---- */

static unsigned cb_add_line(uintptr_t *seen, unsigned n, unsigned max, const void *p)
{
    uintptr_t l = (uintptr_t)p / CHT_CACHE_LINE;
    for (unsigned i = 0; i < n; i++)
        if (seen[i] == l)
            return n;
    if (n < max)
        seen[n++] = l;
    return n;
}

static unsigned cb_probe_lines(void *tp, cht_key_t k)
{
    struct cb_table *t = tp;
    enum { MAXL = 1024 };
    uintptr_t seen[MAXL];
    uint64_t *h = cb_head_of(t, k);
    unsigned n = cb_add_line(seen, 0, MAXL, h);     /* saturates at MAXL (a pathological chain) */
    uint32_t i = w_first(ld64(h));
    for (uint64_t steps = 0; i != CB_NIL && i < t->cap && steps <= t->cap; steps++) {
        const struct cb_node *nd = &t->node[i];
        n = cb_add_line(seen, n, MAXL, &nd->key);
        if (ld64(&nd->key) == k) {
            n = cb_add_line(seen, n, MAXL, &nd->val);
            break;
        }
        n = cb_add_line(seen, n, MAXL, &nd->next);
        i = ld32(&nd->next);
    }
    return n;
}

/* ---- create / destroy / size / stats ---- */

static void *cb_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    uint64_t ratio = 2;
    if (!cht_option_enum(cfg->options, "chain-bounded", "hash", cht_hash_names, &hash, err, len) ||
        !cht_option_uint(cfg->options, "chain-bounded", "ratio", 1, 64, &ratio, err, len))
        return NULL;
    double density = cfg->density > 0 ? cfg->density : 0.5;
    double want = (double)(cfg->initial ? cfg->initial : 1) / density;
    if (!(want <= (double)CB_MAX_NODES)) {
        snprintf(err, len, "--initial %zu at --density %g needs %.3g nodes, more than the %u this table's "
                 "32-bit node indexes address: lower --initial or raise --density",
                 cfg->initial, density, want, CB_MAX_NODES);
        return NULL;
    }
    uint64_t cap = (uint64_t)want;
    if ((double)cap < want)
        cap++;
    if (cap < CB_MIN_NODES)
        cap = CB_MIN_NODES;
    if (!cht_capacity_holds_initial(cfg, cap, err, len))
        return NULL;
    uint64_t heads = cht_pow2_at_least((cap + ratio - 1) / ratio, CB_MIN_HEADS);
    unsigned threads = cfg->max_threads ? cfg->max_threads : 1;
    size_t node_bytes = cap * sizeof(struct cb_node), head_bytes = heads * sizeof(uint64_t);
    if ((double)node_bytes + (double)head_bytes > (double)cht_phys_bytes()) {
        snprintf(err, len, "out of memory: %llu nodes and %llu heads need %.3g GB, more than the machine has",
                 (unsigned long long)cap, (unsigned long long)heads,
                 ((double)node_bytes + (double)head_bytes) / 1e9);
        return NULL;
    }
    struct cb_table *t = cht_alloc_zeroed(sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->node = cht_alloc_large(node_bytes, cfg->hugepages, &t->node_mapped);
    t->head = cht_alloc_large(head_bytes, cfg->hugepages, &t->head_mapped);
    t->th = cht_alloc_zeroed(threads * sizeof *t->th);
    if (!t->node || !t->head || !t->th) {
        snprintf(err, len, "out of memory: %llu nodes of %zu bytes", (unsigned long long)cap,
                 sizeof(struct cb_node));
        if (t->node)
            cht_free_large(t->node, node_bytes, t->node_mapped);
        if (t->head)
            cht_free_large(t->head, head_bytes, t->head_mapped);
        free(t->th);
        free(t);
        return NULL;
    }
    for (uint64_t i = 0; i < heads; i++)
        t->head[i] = CB_NIL;                /* empty chain, seq 0 */
    for (unsigned i = 0; i < threads; i++)
        t->th[i].free_head = CB_NIL;
    t->hmask = heads - 1;
    t->cap = cap;
    t->node_bytes = node_bytes;
    t->head_bytes = head_bytes;
    t->threads = threads;
    t->hash = hash;
    return t;
}

static void cb_destroy(void *tp)
{
    struct cb_table *t = tp;
    cht_free_large(t->node, t->node_bytes, t->node_mapped);
    cht_free_large(t->head, t->head_bytes, t->head_mapped);
    free(t->th);
    free(t);
}

static void cb_thread_init(void *tp, unsigned tid)
{
    struct cb_table *t = tp;
    cb_tid = cht_thread_slot(tid, t->threads);   /* asserts tid < max_threads */
}

static size_t cb_size(void *tp)
{
    struct cb_table *t = tp;
    return cht_count_as_size(cht_sum_strided(&t->th->count, t->threads, sizeof *t->th));
}

static void cb_stats(void *tp, struct cht_stats *s)
{
    struct cb_table *t = tp;
    s->bytes = sizeof *t + t->node_bytes + t->head_bytes + t->threads * sizeof *t->th;
    s->buckets = t->cap;       /* node capacity: size()/buckets is the occupancy */
    s->full_failures = (uint64_t)cht_sum_strided((const int64_t *)(const void *)&t->th->full, t->threads,
                                                 sizeof *t->th);
}

const struct cht_ops cht_table_chain_bounded = {
    .name = "chain-bounded",
    .summary = "indexlib Chain: chain heads + one preallocated node pool, fixed capacity, seqlocked chains, lock-free reads (Alibaba indexlib's cuckoo hashing notes)",
    .caps = CHT_CAP_FIXED_CAP | CHT_CAP_UPDATE,
    .options = cb_options,
    .create = cb_create,
    .destroy = cb_destroy,
    .thread_init = cb_thread_init,
    .get = cb_get,
    .insert = cb_insert,
    .remove = cb_remove,
    .update = cb_update,
    .size = cb_size,
    .stats = cb_stats,
    .probe_lines = cb_probe_lines,
};
