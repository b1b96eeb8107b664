/*
 * clht_str.c - clht-str: CLHT's cache-line buckets for byte-string keys.
 *
 * The bucket layout and locking follow CLHT-LB (T. David, R. Guerraoui, V.
 * Trigonakis, "Asynchronized Concurrency: The Secret to Scaling Concurrent
 * Search Data Structures", ASPLOS'15, §4): one 64-byte bucket per hash
 * index, a lock word in the bucket guarding its chain of overflow buckets,
 * gets that take no lock and write nothing. A string key does not fit a slot,
 * so a slot holds a 16-bit tag of the key's hash and a pointer to an
 * out-of-line record (value, length, the key's bytes), as MemC3's tags do
 * (B. Fan, D. G. Andersen, M. Kaminsky, "MemC3: Compact and Concurrent
 * MemCache with Dumber Caching and Smarter Hashing", NSDI'13, §4): a get
 * compares the five tags of the bucket's line and touches a record only when
 * a tag matches (one false match in 2^16 per occupied slot).
 *
 *   bucket (64 bytes): lock (4) | tag[5] (2 each, 0: empty) | pad | slot[5] (8 each) | next (8)
 *   record:            val (8) | retired_next (8) | len (4) | key bytes
 *
 * Publication: an insert (under the bucket lock) writes the record, then the
 * slot's pointer (release), then its tag (release); a get reads the tag, then
 * the pointer (acquire), then compares length and bytes, so it never reads a
 * record before it is complete. A remove clears tag and pointer, and retires
 * the record: records are freed through QSBR (tables/ebr.h), in batches of
 * CS_RETIRE_BATCH per thread so that the domain's mutex is taken once per
 * batch, not per remove. An update stores the value in place (one 8-byte
 * atomic store: values are 8 bytes here, no CHT_CAP_VALUE_OOL).
 *
 * Deviations from CLHT-LB: no resize (a full bucket chains an overflow
 * bucket, as CLHT-LB does before it resizes; size the table with --density);
 * the bucket lock is the table's own test-and-test-and-set spin lock (no
 * lock=NAME); keys are byte strings (CHT_CAP_BYTE_KEYS), and an integer key
 * is taken as its 8 bytes, so the table runs u64 workloads too.
 *
 * Hash (option hash=): `mum` (default) or `fnv1a` (tables/bytes_hash.h: a
 * multiply-and-fold hash over 8-byte words after MUM hashing and wyhash, or
 * byte-at-a-time FNV-1a for comparison). The bucket index comes from the low
 * bits, the tag from the top 16.
 *
 * Memory: stats() counts the buckets, the overflow buckets and every live
 * record as the allocator sized it (malloc_usable_size), so bytes per element
 * include the out-of-line keys.
 */
#include <malloc.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cht.h"
#include "cht_atomic.h"
#include "table_support.h"
#include "ebr.h"
#include "bytes_hash.h"

#define CS_SLOTS 5
#define CS_MIN_BUCKETS 256           /* no resize: chains stay short for tiny configs */
#define CS_MAX_BUCKETS (1ull << 36)
#define CS_RETIRE_BATCH 64

struct cs_rec {
    uint64_t val;
    struct cs_rec *retired_next;     /* its thread's list of removed records, until retired */
    uint32_t len;
    uint8_t key[];
};

struct cs_bucket {
    alignas(CHT_CACHE_LINE) uint32_t lock;
    uint16_t tag[CS_SLOTS];
    struct cs_rec *slot[CS_SLOTS];
    struct cs_bucket *next;
};
_Static_assert(sizeof(struct cs_bucket) == CHT_CACHE_LINE, "a bucket is one cache line");

/* removed records retired together: one QSBR node for CS_RETIRE_BATCH of them */
struct cs_batch {
    struct ebr_node node;
    struct cs_rec *recs;
};

struct cs_thread {
    alignas(CHT_CACHE_LINE) int64_t count;   /* inserts - removes */
    int64_t rec_bytes;                       /* live records, as allocated */
    struct cs_rec *retired;                  /* removed, not yet handed to QSBR */
    unsigned nretired;
};

enum cs_hash { CS_HASH_MUM, CS_HASH_FNV1A };
static const char *const cs_hash_names[] = { "mum", "fnv1a", NULL };

struct clht_str {
    struct cs_bucket *b;
    uint64_t mask;
    unsigned hash;
    unsigned nthreads;
    bool mapped;
    size_t map_bytes;
    struct cs_thread *th;
    struct reclaim *rc;
    alignas(CHT_CACHE_LINE) int64_t overflow;   /* overflow buckets allocated */
    int64_t alloc_failures;
};

static __thread unsigned cs_tid __attribute__((tls_model("initial-exec")));

/* ---------------- hashing ---------------- */

static inline uint64_t cs_hash(const struct clht_str *t, const uint8_t *p, size_t n)
{
    return __builtin_expect(t->hash == CS_HASH_MUM, 1) ? cht_bytes_hash_mum(p, n) : cht_bytes_hash_fnv1a(p, n);
}

static inline uint16_t cs_tag(uint64_t h)
{
    uint16_t tag = (uint16_t)(h >> 48);
    return tag ? tag : 1;
}

static inline bool cs_same(const struct cs_rec *r, const uint8_t *key, size_t len)
{
    return r->len == len && memcmp(r->key, key, len) == 0;
}

/* ---------------- locks and reclamation ---------------- */

static inline void cs_lock(struct cs_bucket *b)
{
    unsigned spins = 0;
    while (__atomic_exchange_n(&b->lock, 1, __ATOMIC_ACQUIRE))
        while (CHT_LD(&b->lock, RELAXED))
            cht_spin_wait(&spins, 64);
}

static inline void cs_unlock(struct cs_bucket *b)
{
    CHT_ST(&b->lock, 0, RELEASE);
}

static void cs_free_batch(struct ebr_node *n)
{
    struct cs_batch *batch = (struct cs_batch *)((char *)n - offsetof(struct cs_batch, node));
    for (struct cs_rec *r = batch->recs, *next; r; r = next) {
        next = r->retired_next;
        free(r);
    }
    free(batch);
}

/* hands this thread's removed records to QSBR (kept for later when out of memory for the batch) */
static void cs_retire_pending(struct clht_str *t, struct cs_thread *th)
{
    if (!th->retired)
        return;
    struct cs_batch *batch = malloc(sizeof *batch);
    if (!batch)
        return;
    batch->recs = th->retired;
    th->retired = NULL;
    th->nretired = 0;
    reclaim_retire(t->rc, &batch->node, cs_free_batch);
}

static __attribute__((noinline, cold)) void cs_quiescent(struct clht_str *t)
{
    reclaim_quiescent(t->rc, cs_tid);
}

/* ---------------- create / destroy / threads ---------------- */

static const struct cht_option_spec cs_options[] = {
    { "hash", "mum (default: a multiply-and-fold hash over 8-byte words) | fnv1a (byte at a time)" },
    { NULL, NULL },
};

static void cs_destroy(void *tp);

static void *cs_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CS_HASH_MUM;
    if (!cht_option_enum(cfg->options, "clht-str", "hash", cs_hash_names, &hash, err, len))
        return NULL;
    uint64_t nb = cht_initial_buckets(cfg, CS_SLOTS, CS_MAX_BUCKETS, err, len);
    if (!nb)
        return NULL;
    while (nb < CS_MIN_BUCKETS)
        nb <<= 1;
    struct clht_str *t = cht_alloc_zeroed(sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->hash = hash;
    t->nthreads = cfg->max_threads ? cfg->max_threads : 1;
    t->mask = nb - 1;
    t->map_bytes = nb * sizeof(struct cs_bucket);
    t->b = cht_alloc_large(t->map_bytes, cfg->hugepages, &t->mapped);
    t->th = cht_alloc_zeroed(t->nthreads * sizeof *t->th);
    t->rc = reclaim_create(t->nthreads);
    if (!t->b || !t->th || !t->rc) {
        snprintf(err, len, "out of memory (%llu buckets of 64 bytes)", (unsigned long long)nb);
        cs_destroy(t);
        return NULL;
    }
    return t;
}

static void cs_free_chain(struct cs_rec *r)
{
    for (struct cs_rec *next; r; r = next) {
        next = r->retired_next;
        free(r);
    }
}

static void cs_destroy(void *tp)
{
    struct clht_str *t = tp;
    if (t->rc)
        reclaim_destroy(t->rc);              /* frees the retired batches */
    for (unsigned i = 0; t->th && i < t->nthreads; i++)
        cs_free_chain(t->th[i].retired);
    for (uint64_t i = 0; t->b && i <= t->mask; i++) {
        for (struct cs_bucket *b = &t->b[i], *next; b; b = next) {
            for (unsigned s = 0; s < CS_SLOTS; s++)
                free(b->slot[s]);
            next = b->next;
            if (b != &t->b[i])
                free(b);
        }
    }
    if (t->b)
        cht_free_large(t->b, t->map_bytes, t->mapped);
    free(t->th);
    free(t);
}

static void cs_thread_init(void *tp, unsigned tid)
{
    struct clht_str *t = tp;
    cs_tid = cht_thread_slot(tid, t->nthreads);
    reclaim_thread_init(t->rc, cs_tid);
}

static void cs_thread_exit(void *tp, unsigned tid)
{
    struct clht_str *t = tp;
    (void)tid;
    cs_retire_pending(t, &t->th[cs_tid]);
    reclaim_thread_exit(t->rc, cs_tid);
}

/* ---------------- operations ---------------- */

static inline bool cs_get_hashed(struct clht_str *t, const uint8_t *key, size_t len, uint64_t h, cht_val_t *v)
{
    const uint16_t tag = cs_tag(h);
    const struct cs_bucket *b = &t->b[h & t->mask];
    reclaim_begin(t->rc, cs_tid);
    do {
        for (unsigned i = 0; i < CS_SLOTS; i++) {
            if (CHT_LD(&b->tag[i], ACQUIRE) != tag)
                continue;
            const struct cs_rec *r = CHT_LD(&b->slot[i], ACQUIRE);
            if (r && cs_same(r, key, len)) {
                *v = CHT_LD(&r->val, RELAXED);
                reclaim_end(t->rc, cs_tid);
                return true;
            }
        }
        b = CHT_LD(&b->next, ACQUIRE);
    } while (b);
    reclaim_end(t->rc, cs_tid);
    return false;
}

/* under head's lock: the slot holding key, or NULL; *empty the first empty slot (NULL: none), *last the
 * chain's last bucket */
static struct cs_rec **cs_find_locked(struct cs_bucket *head, const uint8_t *key, size_t len, uint16_t tag,
                                      struct cs_rec ***empty, struct cs_bucket **last)
{
    *empty = NULL;
    for (struct cs_bucket *b = head; b; b = b->next) {
        *last = b;
        for (unsigned i = 0; i < CS_SLOTS; i++) {
            struct cs_rec *r = b->slot[i];
            if (!r) {
                if (!*empty)
                    *empty = &b->slot[i];
            } else if (b->tag[i] == tag && cs_same(r, key, len)) {
                return &b->slot[i];
            }
        }
    }
    return NULL;
}

/* the tag beside a slot pointer of the same bucket */
static inline uint16_t *cs_tag_of(struct cs_rec **slot)
{
    struct cs_bucket *b = (struct cs_bucket *)((uintptr_t)slot & ~(uintptr_t)(CHT_CACHE_LINE - 1));
    return &b->tag[slot - b->slot];
}

static bool cs_insert_bytes(void *tp, const void *keyp, size_t len, cht_val_t v)
{
    struct clht_str *t = tp;
    const uint8_t *key = keyp;
    if (reclaim_due())
        cs_quiescent(t);
    const uint64_t h = cs_hash(t, key, len);
    const uint16_t tag = cs_tag(h);
    struct cs_bucket *head = &t->b[h & t->mask], *last = head;
    struct cs_rec **empty;
    cs_lock(head);
    if (cs_find_locked(head, key, len, tag, &empty, &last)) {
        cs_unlock(head);
        return false;
    }
    struct cs_rec *r = malloc(sizeof *r + len);
    struct cs_bucket *fresh = empty || !r ? NULL : cht_alloc_zeroed(sizeof *fresh);
    if (!r || (!empty && !fresh)) {
        cs_unlock(head);
        free(r);
        __atomic_fetch_add(&t->alloc_failures, 1, __ATOMIC_RELAXED);
        return false;
    }
    r->val = v;
    r->retired_next = NULL;
    r->len = (uint32_t)len;
    memcpy(r->key, key, len);
    if (fresh) {                        /* filled before it is linked: readers see it whole */
        fresh->slot[0] = r;
        fresh->tag[0] = tag;
        CHT_ST(&last->next, fresh, RELEASE);
        __atomic_fetch_add(&t->overflow, 1, __ATOMIC_RELAXED);
    } else {
        CHT_ST(empty, r, RELEASE);
        CHT_ST(cs_tag_of(empty), tag, RELEASE);
    }
    cs_unlock(head);
    struct cs_thread *th = &t->th[cs_tid];
    cht_thread_counter_add(&th->count, 1);
    cht_thread_counter_add(&th->rec_bytes, (int64_t)malloc_usable_size(r));
    return true;
}

static bool cs_remove_bytes(void *tp, const void *keyp, size_t len)
{
    struct clht_str *t = tp;
    const uint8_t *key = keyp;
    if (reclaim_due())
        cs_quiescent(t);
    const uint64_t h = cs_hash(t, key, len);
    struct cs_bucket *head = &t->b[h & t->mask], *last = head;
    struct cs_rec **empty;
    cs_lock(head);
    struct cs_rec **slot = cs_find_locked(head, key, len, cs_tag(h), &empty, &last);
    if (!slot) {
        cs_unlock(head);
        return false;
    }
    struct cs_rec *r = *slot;
    CHT_ST(cs_tag_of(slot), 0, RELAXED);
    CHT_ST(slot, NULL, RELEASE);
    cs_unlock(head);
    struct cs_thread *th = &t->th[cs_tid];
    cht_thread_counter_add(&th->count, -1);
    cht_thread_counter_add(&th->rec_bytes, -(int64_t)malloc_usable_size(r));
    r->retired_next = th->retired;      /* readers never read it: only this thread's list */
    th->retired = r;
    if (++th->nretired >= CS_RETIRE_BATCH)
        cs_retire_pending(t, th);
    return true;
}

static bool cs_update_bytes(void *tp, const void *keyp, size_t len, cht_val_t v)
{
    struct clht_str *t = tp;
    const uint8_t *key = keyp;
    if (reclaim_due())
        cs_quiescent(t);
    const uint64_t h = cs_hash(t, key, len);
    struct cs_bucket *head = &t->b[h & t->mask], *last = head;
    struct cs_rec **empty;
    cs_lock(head);
    struct cs_rec **slot = cs_find_locked(head, key, len, cs_tag(h), &empty, &last);
    if (slot)
        CHT_ST(&(*slot)->val, v, RELAXED);
    cs_unlock(head);
    return slot != NULL;
}

static bool cs_get_bytes(void *tp, const void *key, size_t len, cht_val_t *v)
{
    struct clht_str *t = tp;
    return cs_get_hashed(t, key, len, cs_hash(t, key, len), v);
}

/* integer keys: the key's 8 bytes */
static bool cs_get(void *tp, cht_key_t k, cht_val_t *v) { return cs_get_bytes(tp, &k, 8, v); }
static bool cs_insert(void *tp, cht_key_t k, cht_val_t v) { return cs_insert_bytes(tp, &k, 8, v); }
static bool cs_remove(void *tp, cht_key_t k) { return cs_remove_bytes(tp, &k, 8); }
static bool cs_update(void *tp, cht_key_t k, cht_val_t v) { return cs_update_bytes(tp, &k, 8, v); }

static size_t cs_size(void *tp)
{
    struct clht_str *t = tp;
    return cht_count_as_size(cht_sum_strided(&t->th[0].count, t->nthreads, sizeof *t->th));
}

static void cs_stats(void *tp, struct cht_stats *s)
{
    struct clht_str *t = tp;
    int64_t rec = cht_sum_strided(&t->th[0].rec_bytes, t->nthreads, sizeof *t->th);
    int64_t overflow = CHT_LD(&t->overflow, RELAXED);
    s->bytes = sizeof *t + t->map_bytes + (size_t)overflow * sizeof(struct cs_bucket) +
               t->nthreads * sizeof *t->th + (size_t)(rec > 0 ? rec : 0);
    s->buckets = t->mask + 1;
    s->alloc_failures = (uint64_t)CHT_LD(&t->alloc_failures, RELAXED);
    cht_stats_counter(s, "record_bytes", (double)rec);
    cht_stats_counter(s, "overflow_buckets", (double)overflow);
}

const struct cht_ops cht_table_clht_str = {
    .name = "clht-str",
    .summary = "CLHT-style cache-line buckets for byte-string keys: 16-bit hash tags and pointers to out-of-line "
               "records, lock-free gets, per-chain locks, QSBR (after David et al., ASPLOS'15; tags as MemC3, NSDI'13)",
    .caps = CHT_CAP_UPDATE | CHT_CAP_BYTE_KEYS,
    .options = cs_options,
    .create = cs_create,
    .destroy = cs_destroy,
    .thread_init = cs_thread_init,
    .thread_exit = cs_thread_exit,
    .get = cs_get,
    .insert = cs_insert,
    .remove = cs_remove,
    .update = cs_update,
    .size = cs_size,
    .stats = cs_stats,
    .get_bytes = cs_get_bytes,
    .insert_bytes = cs_insert_bytes,
    .remove_bytes = cs_remove_bytes,
    .update_bytes = cs_update_bytes,
};
