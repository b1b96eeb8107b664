/*
 * chain.c - lock-free separate chaining: the "Chaining Hash" baseline of
 * HotRing (Chen et al., FAST 2020, §4.1: a memcached-like hash index whose new items are
 * CAS-ed at the head of the bucket's collision chain).
 *
 * Structure: a fixed power-of-two array of bucket heads (buckets from
 * cfg->initial / cfg->density; this baseline never resizes, chains just grow),
 * each an unordered singly linked list of nodes {key, val, next}. Keys are
 * hashed with cht_hash_mix (option hash=identity for upstream-style numbers).
 *
 * Concurrency (Harris 2001 / Michael 2002 logical deletion, on an unordered
 * list with head insertion):
 *  - remove marks the low bit of the victim's next pointer with a CAS (the
 *    linearisation point), then unlinks it with a CAS on the predecessor's
 *    next (or the bucket head); a marked node's next never changes again.
 *    Any traversal of remove that meets a marked node tries to unlink it.
 *  - insert scans the chain from the head h0 it read; if no unmarked node
 *    holds the key it CASes the bucket head from h0 to the new node. Nodes are
 *    only ever added at the head, so an unchanged head means no node with the
 *    key appeared meanwhile: two concurrent inserts of one key cannot both
 *    succeed (epoch protection rules out ABA on h0 within one operation).
 *  - get reads key, then value, then checks that the node is still unmarked
 *    (linearises at the value read); it never writes shared memory.
 *  - update stores the new value into the live node it found (a single atomic
 *    store, no allocation). If a remove marked the node between the find and
 *    the store, the update linearises just before that remove: the dead value
 *    is never returned by a get, which validates the mark after reading.
 *  Every shared word is accessed with __atomic builtins.
 *
 * Reclamation: epoch-based (Fraser 2004). Each thread has a cache-line-padded
 * slot holding its announced epoch (active flag + epoch), its size counter and
 * three limbo bags. Every operation announces the current global epoch on
 * entry and clears it on exit. The thread whose CAS unlinks a node retires it
 * into the bag of the global epoch read after the unlink; a bag of epoch r is
 * freed once the global epoch reaches r + 2. Every 32 retirements a thread
 * tries to advance the global epoch (possible when every active thread has
 * announced the current one). Limbo nodes are chained through their key field
 * (retired nodes are always marked, so no traversal ever trusts their key).
 * Garbage: each thread holds at most the nodes it retired in the last three
 * epochs; as usual for EBR, a thread stalled inside an operation stops the
 * epoch and so delays (never endangers) reclamation. destroy() frees chains
 * and bags (ASan clean). Per-thread state is indexed by the tid given to
 * thread_init, so concurrently running threads must use distinct tids below
 * max_threads (the driver's contract; debug builds assert it).
 *
 * Values over 8 bytes (--value-size, CHT_CAP_VALUE_OOL): a node's val word
 * then holds a pointer to a value block {limbo link, the value's words in
 * cht.h's cht_value_fill pattern}, malloc'ed and filled by insert. update
 * allocates and fills a new block and publishes it with one atomic exchange
 * of the val word (the RCU-style update of HotRing's figure 12, applied to the
 * value only: the node stays); the block it took out is retired into the
 * same limbo bags as nodes (a second list per bag), so a get that read the
 * old pointer reads the whole old block (cht_value_read) before it can be
 * freed. A node owns the block its val word holds when it is freed (bag or
 * destroy). A block is never written after it is published: no torn reads.
 * Cost: one more allocation per insert and update, one more cache miss per
 * get (the block), against hotring, which keeps large values in the item.
 *
 * Out of memory: an insert whose node cannot be allocated (malloc returns
 * NULL, e.g. under ulimit -v) changes nothing, returns false and counts
 * stats.alloc_failures (never full_failures: the table has no capacity
 * limit). Each such insert retries malloc, which under an address-space
 * limit costs a few failing system calls: a caller that keeps inserting
 * after the first refusal pays that every time.
 *
 * Byte-string keys (CHT_CAP_BYTE_KEYS, --key-type): a node then carries its
 * key's length and bytes after {key, val, next}, and its key word holds the
 * key's 64-bit hash (tables/bytes_hash.h, option bhash=mum|fnv1a), from whose
 * low bits the bucket comes. A traversal compares the hash word first and the
 * bytes only on a match; the bytes never change (a limbo link overwrites the
 * key word only, and a retired node is always marked, so a match with a
 * link is rejected by the mark check that follows, as for integer keys). The
 * integer operations are the same code with no key bytes (constant-folded).
 *
 * Progress: insert and remove are lock-free (a CAS fails only when another
 * thread's CAS on the same chain succeeded). get and update are wait-free:
 * they never retry, and nodes are only added at the head, so the path ahead
 * of a traversal can only shrink. size() sums per-thread padded counters,
 * exact when quiescent.
 */
#include <stdalign.h>
#include "cht.h"
#include "cht_hash.h"
#include "table_support.h"
#include "bytes_hash.h"

#define CHAIN_MIN_BUCKETS 16
#define CHAIN_SCAN_EVERY 32        /* retirements between epoch-advance attempts */
#define CHAIN_CLEANUP_TRIES 4

struct chain_node {
    uint64_t key;                  /* the key; in a limbo bag: the next limbo node */
    cht_val_t val;
    uintptr_t next;                /* successor | 1 when this node is logically deleted */
};

/* a byte-key node: the node, then its key */
struct chain_bnode {
    struct chain_node n;
    uint32_t len;
    uint8_t bytes[];
};

/* a byte key being looked for: its bytes and hash */
struct chain_bkey {
    const uint8_t *p;
    size_t len;
    uint64_t h;
};

struct chain_vblock {              /* a value of more than 8 bytes */
    struct chain_vblock *link;     /* in a limbo bag: the next retired block */
    uint64_t w[];                  /* the value's words (cht_value_fill) */
};

struct chain_bag {
    struct chain_node *head;
    struct chain_vblock *vhead;    /* blocks replaced by updates */
    uint64_t epoch;
    size_t n;
};

struct chain_thread {
    alignas(CHT_CACHE_LINE) uint64_t epoch;   /* 0: quiescent; (e << 1) | 1: active in epoch e */
    int64_t count;                            /* inserts - removes by this thread */
    uint64_t pending;                         /* nodes in the bags (read by stats) */
    uint64_t alloc_failures;                  /* inserts refused: malloc returned NULL */
    int64_t key_bytes;                        /* byte keys: the live nodes' key bytes (length word included) */
    unsigned since_scan;
    struct chain_bag bag[3];                  /* owner-only */
};

struct chain_table {
    uintptr_t *bucket;
    uint64_t mask;
    struct chain_thread *th;
    unsigned threads;
    enum cht_hash_kind hash;
    size_t vwords;                 /* value words: 1 = the val word is the value, else a block pointer */
    unsigned bhash;                /* byte keys: 0 mum, 1 fnv1a */
    alignas(CHT_CACHE_LINE) uint64_t global_epoch;
};

static __thread unsigned chain_tid;

static const struct cht_option_spec chain_options[] = {
    CHT_HASH_OPTION,
    { "bhash", "mum|fnv1a: hash of byte-string keys (--key-type; default mum, tables/bytes_hash.h)" },
    { NULL, NULL },
};
static const char *const chain_bhash_names[] = { "mum", "fnv1a", NULL };

#define MARK(p)     ((p) | (uintptr_t)1)
#define UNMARK(p)   ((p) & ~(uintptr_t)1)
#define MARKED(p)   ((p) & (uintptr_t)1)
#define NODE(p)     ((struct chain_node *)UNMARK(p))

/* Shared loads and CASes are sequentially consistent: on x86 an SC load is a
 * plain mov and a CAS is a full barrier anyway, and SC makes the epoch
 * announcement (store) -> bucket read (load) order formal without a fence. */
static inline uintptr_t ldp(const uintptr_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static inline uint64_t ld64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

static inline bool casp(uintptr_t *p, uintptr_t expect, uintptr_t want)
{
    return __atomic_compare_exchange_n(p, &expect, want, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline struct chain_thread *me(struct chain_table *t)
{
    return &t->th[cht_thread_slot(chain_tid, t->threads)];
}

/* bk NULL: integer key k; else the byte key's hash */
static inline uintptr_t *bucket_of(struct chain_table *t, cht_key_t k, const struct chain_bkey *bk)
{
    return &t->bucket[(bk ? bk->h : cht_hash(t->hash, k)) & t->mask];
}

/* does node n (key word `key` just read) hold the key (k, or bk)? */
static inline __attribute__((always_inline)) bool key_is(const struct chain_node *n, uint64_t key, cht_key_t k,
                                                         const struct chain_bkey *bk)
{
    if (!bk)
        return key == k;
    const struct chain_bnode *b = (const struct chain_bnode *)n;
    return key == bk->h && b->len == bk->len && memcmp(b->bytes, bk->p, bk->len) == 0;
}

/* owner-only counter, read by others: a relaxed load/store pair */
static inline void own_addu(uint64_t *c, int64_t d)
{
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + (uint64_t)d, __ATOMIC_RELAXED);
}

/* ---------------- epoch-based reclamation ---------------- */

static inline void ebr_enter(struct chain_table *t, struct chain_thread *th)
{
    uint64_t e = __atomic_load_n(&t->global_epoch, __ATOMIC_SEQ_CST);
    /* announce before reading any node: an SC RMW (xchg, a full barrier on x86) */
    __atomic_exchange_n(&th->epoch, e << 1 | 1, __ATOMIC_SEQ_CST);
}

static inline void ebr_exit(struct chain_thread *th)
{
    __atomic_store_n(&th->epoch, 0, __ATOMIC_RELEASE);
}

/* a block of v's words; NULL when out of memory */
static struct chain_vblock *vblock_new(const struct chain_table *t, cht_val_t v)
{
    struct chain_vblock *b = malloc(sizeof *b + t->vwords * sizeof(uint64_t));
    if (b) {
        b->link = NULL;
        cht_value_fill(b->w, t->vwords, v);
    }
    return b;
}

/* frees n and, with large values, the block it holds */
static void node_free(const struct chain_table *t, struct chain_node *n)
{
    if (t->vwords > 1)
        free((void *)(uintptr_t)__atomic_load_n(&n->val, __ATOMIC_RELAXED));
    free(n);
}

static void bag_free(const struct chain_table *t, struct chain_thread *th, struct chain_bag *b)
{
    struct chain_node *n = b->head;
    while (n) {
        struct chain_node *next = (struct chain_node *)(uintptr_t)__atomic_load_n(&n->key, __ATOMIC_RELAXED);
        node_free(t, n);
        n = next;
    }
    for (struct chain_vblock *v = b->vhead, *nx; v; v = nx) {
        nx = v->link;
        free(v);
    }
    b->vhead = NULL;
    own_addu(&th->pending, -(int64_t)b->n);
    b->head = NULL;
    b->n = 0;
}

/* frees the bags whose grace period is over (global >= epoch + 2) */
static void ebr_reclaim(struct chain_table *t, struct chain_thread *th)
{
    uint64_t g = __atomic_load_n(&t->global_epoch, __ATOMIC_ACQUIRE);
    for (int i = 0; i < 3; i++)
        if (th->bag[i].n && th->bag[i].epoch + 2 <= g)
            bag_free(t, th, &th->bag[i]);
}

/* advances the global epoch if every active thread has announced the current one */
static void ebr_try_advance(struct chain_table *t)
{
    uint64_t g = __atomic_load_n(&t->global_epoch, __ATOMIC_SEQ_CST);
    for (unsigned i = 0; i < t->threads; i++) {
        uint64_t e = __atomic_load_n(&t->th[i].epoch, __ATOMIC_SEQ_CST);
        if ((e & 1) && (e >> 1) != g)
            return;
    }
    __atomic_compare_exchange_n(&t->global_epoch, &g, g + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* the bag of the current global epoch (emptied first if it held an old one) */
static struct chain_bag *retire_bag(struct chain_table *t, struct chain_thread *th)
{
    uint64_t r = __atomic_load_n(&t->global_epoch, __ATOMIC_SEQ_CST);
    struct chain_bag *b = &th->bag[r % 3];
    if (b->epoch != r) {
        if (b->n)                   /* b->epoch <= r - 3: long safe */
            bag_free(t, th, b);
        b->epoch = r;
    }
    return b;
}

static void retire_scan(struct chain_table *t, struct chain_thread *th)
{
    if (++th->since_scan >= CHAIN_SCAN_EVERY) {
        th->since_scan = 0;
        ebr_try_advance(t);
        ebr_reclaim(t, th);
    }
}

/* the value block v has just been replaced by this thread's exchange */
static void ebr_retire_vblock(struct chain_table *t, struct chain_thread *th, struct chain_vblock *v)
{
    struct chain_bag *b = retire_bag(t, th);
    v->link = b->vhead;
    b->vhead = v;
    b->n++;
    own_addu(&th->pending, 1);
    retire_scan(t, th);
}

/* n has just been unlinked by this thread's CAS */
static void ebr_retire(struct chain_table *t, struct chain_thread *th, struct chain_node *n)
{
    struct chain_bag *b = retire_bag(t, th);
    __atomic_store_n(&n->key, (uint64_t)(uintptr_t)b->head, __ATOMIC_RELEASE);
    b->head = n;
    b->n++;
    own_addu(&th->pending, 1);
    retire_scan(t, th);
}

/* ---------------- create / destroy ---------------- */

static void *chain_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    unsigned bhash = 0;
    if (!cht_option_enum(cfg->options, "chain", "hash", cht_hash_names, &hash, err, len) ||
        !cht_option_enum(cfg->options, "chain", "bhash", chain_bhash_names, &bhash, err, len))
        return NULL;
    if (cfg->key_kind == CHT_KEYS_BYTES && cht_value_words(cfg) > 1) {
        snprintf(err, len, "--key-type: chain stores 8-byte values with byte-string keys (no --value-size)");
        return NULL;
    }
    uint64_t nb = cht_initial_units(cfg, 1, CHAIN_MIN_BUCKETS, 1ull << 48, "buckets", err, len);
    if (!nb)
        return NULL;
    unsigned threads = cfg->max_threads ? cfg->max_threads : 1;
    size_t bytes = nb * sizeof(uintptr_t) + threads * sizeof(struct chain_thread);
    size_t phys = cht_phys_bytes();
    if ((double)bytes > (double)phys) {
        snprintf(err, len, "out of memory (%llu buckets need %.3g GB, the machine has %.3g GB)",
                 (unsigned long long)nb, (double)bytes / 1e9, (double)phys / 1e9);
        return NULL;
    }
    struct chain_table *t = cht_alloc_zeroed(sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->bucket = calloc(nb, sizeof *t->bucket);
    t->th = cht_alloc_zeroed(threads * sizeof *t->th);
    if (!t->bucket || !t->th) {
        snprintf(err, len, "out of memory (%llu buckets)", (unsigned long long)nb);
        free(t->bucket);
        free(t->th);
        free(t);
        return NULL;
    }
    t->mask = nb - 1;
    t->threads = threads;
    t->hash = hash;
    t->bhash = bhash;
    t->vwords = cht_value_words(cfg);
    t->global_epoch = 1;
    return t;
}

static void chain_destroy(void *tp)
{
    struct chain_table *t = tp;
    for (uint64_t i = 0; i <= t->mask; i++) {
        uintptr_t p = t->bucket[i];
        while (UNMARK(p)) {
            struct chain_node *n = NODE(p);
            p = n->next;
            node_free(t, n);
        }
    }
    for (unsigned i = 0; i < t->threads; i++)
        for (int j = 0; j < 3; j++)
            bag_free(t, &t->th[i], &t->th[i].bag[j]);
    free(t->bucket);
    free(t->th);
    free(t);
}

static void chain_thread_init(void *tp, unsigned tid)
{
    struct chain_table *t = tp;
    chain_tid = cht_thread_slot(tid, t->threads);   /* asserts tid < max_threads */
}

static void chain_thread_exit(void *tp, unsigned tid)
{
    struct chain_table *t = tp;
    (void)tid;
    struct chain_thread *th = me(t);
    ebr_try_advance(t);
    ebr_reclaim(t, th);
}

/* ---------------- operations ---------------- */

static inline __attribute__((always_inline)) bool get_impl(struct chain_table *t, cht_key_t k,
                                                           const struct chain_bkey *bk, cht_val_t *v)
{
    struct chain_thread *th = me(t);
    bool found = false;
    ebr_enter(t, th);
    for (uintptr_t p = ldp(bucket_of(t, k, bk)); UNMARK(p); ) {
        struct chain_node *n = NODE(p);
        p = ldp(&n->next);
        if (key_is(n, ld64(&n->key), k, bk)) {
            cht_val_t val = ld64(&n->val);
            p = ldp(&n->next);
            if (!MARKED(p)) {       /* live at the value read */
                if (v)         /* a large value: read its whole block */
                    *v = t->vwords == 1 ? val : cht_value_read(((struct chain_vblock *)(uintptr_t)val)->w, t->vwords);
                found = true;
                break;
            }
        }
    }
    ebr_exit(th);
    return found;
}

static bool chain_get(void *tp, cht_key_t k, cht_val_t *v)
{
    return get_impl(tp, k, NULL, v);
}

static inline __attribute__((always_inline)) bool insert_impl(struct chain_table *t, cht_key_t k,
                                                              const struct chain_bkey *bk, cht_val_t v)
{
    struct chain_thread *th = me(t);
    uintptr_t *b = bucket_of(t, k, bk);
    struct chain_node *fresh = NULL;
    struct chain_vblock *vb = NULL;
    bool added = false;
    ebr_enter(t, th);
    for (;;) {
        uintptr_t head = ldp(b);
        bool present = false;
        for (uintptr_t p = head; UNMARK(p); ) {
            struct chain_node *n = NODE(p);
            uint64_t key = ld64(&n->key);   /* key before mark: a limbo link is always marked */
            p = ldp(&n->next);
            if (key_is(n, key, k, bk) && !MARKED(p)) {
                present = true;
                break;
            }
        }
        if (present)
            break;
        if (!fresh) {
            fresh = malloc(bk ? sizeof(struct chain_bnode) + bk->len : sizeof *fresh);
            if (fresh && t->vwords > 1 && !(vb = vblock_new(t, v))) {
                free(fresh);
                fresh = NULL;
            }
            if (!fresh) {               /* out of memory: refused, counted, nothing changed */
                own_addu(&th->alloc_failures, 1);
                break;
            }
            if (bk) {                   /* the bytes before the node is published (the CAS below) */
                struct chain_bnode *bn = (struct chain_bnode *)fresh;
                bn->len = (uint32_t)bk->len;
                memcpy(bn->bytes, bk->p, bk->len);
            }
            __atomic_store_n(&fresh->key, bk ? bk->h : k, __ATOMIC_RELAXED);
            __atomic_store_n(&fresh->val, vb ? (cht_val_t)(uintptr_t)vb : v, __ATOMIC_RELAXED);
        }
        __atomic_store_n(&fresh->next, head, __ATOMIC_RELAXED);
        if (casp(b, head, (uintptr_t)fresh)) {
            added = true;
            break;
        }
    }
    ebr_exit(th);
    if (added) {
        cht_thread_counter_add(&th->count, 1);
        if (bk)
            cht_thread_counter_add(&th->key_bytes, (int64_t)(sizeof(uint32_t) + bk->len));
    } else {
        free(fresh);            /* never published */
        free(vb);
    }
    return added;
}

static bool chain_insert(void *tp, cht_key_t k, cht_val_t v)
{
    return insert_impl(tp, k, NULL, v);
}

/* unlinks every marked node of one chain; gives up after a few lost races
 * (later traversals of remove finish the job) */
static void chain_cleanup(struct chain_table *t, struct chain_thread *th, uintptr_t *b)
{
    for (int tries = 0; tries < CHAIN_CLEANUP_TRIES; tries++) {
        uintptr_t *prev = b;
        uintptr_t cur = ldp(prev);
        bool lost = false;
        while (cur) {
            uintptr_t nx = ldp(&NODE(cur)->next);
            if (MARKED(nx)) {
                if (!casp(prev, cur, UNMARK(nx))) {
                    lost = true;
                    break;
                }
                ebr_retire(t, th, NODE(cur));
                cur = UNMARK(nx);
                continue;
            }
            prev = &NODE(cur)->next;
            cur = nx;
        }
        if (!lost)
            return;
    }
}

static inline __attribute__((always_inline)) bool remove_impl(struct chain_table *t, cht_key_t k,
                                                              const struct chain_bkey *bk)
{
    struct chain_thread *th = me(t);
    uintptr_t *b = bucket_of(t, k, bk);
    bool removed = false;
    ebr_enter(t, th);
retry:
    for (uintptr_t *prev = b, cur = ldp(b); cur; ) {
        struct chain_node *n = NODE(cur);
        uintptr_t nx = ldp(&n->next);
        if (MARKED(nx)) {               /* logically deleted: help unlink it */
            if (!casp(prev, cur, UNMARK(nx)))
                goto retry;
            ebr_retire(t, th, n);
            cur = UNMARK(nx);
            continue;
        }
        if (key_is(n, ld64(&n->key), k, bk)) {
            if (!casp(&n->next, nx, MARK(nx)))
                continue;               /* next changed: look at this node again */
            removed = true;
            if (casp(prev, cur, nx))
                ebr_retire(t, th, n);
            else
                chain_cleanup(t, th, b);
            break;
        }
        prev = &n->next;
        cur = nx;
    }
    ebr_exit(th);
    if (removed) {
        cht_thread_counter_add(&th->count, -1);
        if (bk)
            cht_thread_counter_add(&th->key_bytes, -(int64_t)(sizeof(uint32_t) + bk->len));
    }
    return removed;
}

static bool chain_remove(void *tp, cht_key_t k)
{
    return remove_impl(tp, k, NULL);
}

static inline __attribute__((always_inline)) bool update_impl(struct chain_table *t, cht_key_t k,
                                                              const struct chain_bkey *bk, cht_val_t v)
{
    struct chain_thread *th = me(t);
    bool found = false;
    ebr_enter(t, th);
    for (uintptr_t p = ldp(bucket_of(t, k, bk)); UNMARK(p); ) {
        struct chain_node *n = NODE(p);
        uint64_t key = ld64(&n->key);
        p = ldp(&n->next);
        if (key_is(n, key, k, bk) && !MARKED(p)) {
            if (t->vwords == 1) {
                __atomic_store_n(&n->val, v, __ATOMIC_SEQ_CST);
            } else {
                /* RCU: a new block, published by one exchange; the old one is retired */
                struct chain_vblock *vb = vblock_new(t, v);
                if (!vb) {
                    own_addu(&th->alloc_failures, 1);
                    break;
                }
                cht_val_t old = __atomic_exchange_n(&n->val, (cht_val_t)(uintptr_t)vb, __ATOMIC_SEQ_CST);
                ebr_retire_vblock(t, th, (struct chain_vblock *)(uintptr_t)old);
            }
            found = true;
            break;
        }
    }
    ebr_exit(th);
    return found;
}

static bool chain_update(void *tp, cht_key_t k, cht_val_t v)
{
    return update_impl(tp, k, NULL, v);
}

/* ---------------- byte-string keys ---------------- */

static inline struct chain_bkey bkey_of(const struct chain_table *t, const void *key, size_t len)
{
    return (struct chain_bkey){ key, len, t->bhash ? cht_bytes_hash_fnv1a(key, len) : cht_bytes_hash_mum(key, len) };
}

static bool chain_get_bytes(void *tp, const void *key, size_t len, cht_val_t *v)
{
    struct chain_bkey bk = bkey_of(tp, key, len);
    return get_impl(tp, 0, &bk, v);
}

static bool chain_insert_bytes(void *tp, const void *key, size_t len, cht_val_t v)
{
    struct chain_bkey bk = bkey_of(tp, key, len);
    return insert_impl(tp, 0, &bk, v);
}

static bool chain_remove_bytes(void *tp, const void *key, size_t len)
{
    struct chain_bkey bk = bkey_of(tp, key, len);
    return remove_impl(tp, 0, &bk);
}

static bool chain_update_bytes(void *tp, const void *key, size_t len, cht_val_t v)
{
    struct chain_bkey bk = bkey_of(tp, key, len);
    return update_impl(tp, 0, &bk, v);
}

static size_t chain_size(void *tp)
{
    struct chain_table *t = tp;
    return cht_count_as_size(cht_sum_strided(&t->th->count, t->threads, sizeof *t->th));
}

static void chain_stats(void *tp, struct cht_stats *s)
{
    struct chain_table *t = tp;
    uint64_t pending = 0, alloc_failures = 0;
    int64_t key_bytes = cht_sum_strided(&t->th->key_bytes, t->threads, sizeof *t->th);
    for (unsigned i = 0; i < t->threads; i++) {
        pending += __atomic_load_n(&t->th[i].pending, __ATOMIC_RELAXED);
        alloc_failures += __atomic_load_n(&t->th[i].alloc_failures, __ATOMIC_RELAXED);
    }
    size_t vbytes = t->vwords > 1 ? sizeof(struct chain_vblock) + t->vwords * sizeof(uint64_t) : 0;
    s->bytes = sizeof *t + (t->mask + 1) * sizeof *t->bucket + t->threads * sizeof *t->th +
               (chain_size(t) + pending) * (sizeof(struct chain_node) + vbytes) +
               (size_t)(key_bytes > 0 ? key_bytes : 0);   /* byte keys: live nodes' keys */
    s->buckets = t->mask + 1;
    s->alloc_failures = alloc_failures;
}

const struct cht_ops cht_table_chain = {
    .name = "chain",
    .summary = "lock-free separate chaining, CAS at the chain head, epoch-based reclamation (the baseline of Chen et al., \"HotRing: A Hotspot-Aware In-Memory Key-Value Store\", FAST'20)",
    .caps = CHT_CAP_UPDATE | CHT_CAP_VALUE_OOL | CHT_CAP_BYTE_KEYS,
    .options = chain_options,
    .create = chain_create,
    .destroy = chain_destroy,
    .thread_init = chain_thread_init,
    .thread_exit = chain_thread_exit,
    .get = chain_get,
    .insert = chain_insert,
    .remove = chain_remove,
    .update = chain_update,
    .size = chain_size,
    .stats = chain_stats,
    .get_bytes = chain_get_bytes,
    .insert_bytes = chain_insert_bytes,
    .remove_bytes = chain_remove_bytes,
    .update_bytes = chain_update_bytes,
};
