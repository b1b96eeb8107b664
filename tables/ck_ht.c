/*
 * ck_ht.c - Concurrency Kit's ck_ht (libck-dev 0.7.1, concurrencykit.org)
 * behind the chtbench vtable, used as ck intends it: SPMC - any number of
 * lock-free readers beside ONE writer at a time. Writers (insert, remove,
 * update) are serialised by a writer lock from locks/ (option lock=NAME,
 * default pthread-mutex); get() takes no lock. So this measures ck_ht's
 * lock-free reads and serial writes, not a multi-writer table.
 *
 * ck_ht: open addressing with linear probing in cache-line-sized probe
 * blocks, a probe bound per table, tombstones (CK_HT_WORKLOAD_DELETE mode),
 * keys and values stored directly (CK_HT_MODE_DIRECT; key 0 = empty and
 * ~0 = tombstone never occur: the driver's keys are in [1, 2^62]); readers
 * validate against a per-slot version so they never see a torn entry; the
 * table doubles (ck_ht_grow_spmc inside put) when the load passes 1/2.
 *
 * Reclamation: ck_ht never frees a map readers may still use itself; it
 * hands it to the allocator's free() with defer=true. This adapter keeps
 * every deferred map until destroy() (their total is below the final map's
 * size: the maps double), so readers never touch freed memory, at the cost
 * of memory a real application would reclaim with epochs (ck_epoch).
 *
 * What a run measures besides ck_ht: the writer lock (one lock_ops call pair
 * per write, a per-thread lock ctx), one extra lookup per insert (ck_ht's
 * put does not see a key that lies beyond a tombstone: see ckht_insert), the hash callback (cht_hash through a
 * function pointer, as ck_ht calls it), and ck_ht_count() (a writer-side
 * counter). Hash: cht_hash (option hash=mix|identity), selected through
 * ck_ht's seed argument (the callback gets no other context).
 * ck's atomics are inline assembly invisible to ThreadSanitizer: the TSan
 * build skips this table (tsan-exempt in tests/meson.build).
 */
#include <ck_ht.h>
#include <ck_malloc.h>
#include "cht.h"
#include "cht_hash.h"
#include "lock.h"
#include "table_support.h"
#include "table_locks.h"


struct retired {
    struct retired *next;
    void *p;
};

struct ckht_table {
    struct cht_locks locks;     /* the writer lock, one ctx per thread */
    unsigned threads;
    alignas(CHT_CACHE_LINE) ck_ht_t ht;
    struct retired *retired;    /* maps freed with defer=true, kept until destroy */
    uint64_t resizes;
    uint64_t alloc_failures;
    size_t live_bytes;          /* bytes of maps not yet freed (current + retired) */
};

static __thread unsigned ckht_tid;
/* The table whose writer is inside ck_ht (ck's allocator callbacks get no
 * context); set under the writer lock before every writing call. */
static __thread struct ckht_table *ckht_writer;

static void *ckht_malloc(size_t n)
{
    void *p = malloc(n);
    if (p && ckht_writer)
        ckht_writer->live_bytes += n;
    return p;
}

static void ckht_free(void *p, size_t n, bool defer)
{
    struct ckht_table *t = ckht_writer;
    if (!p)
        return;
    if (defer && t) {
        struct retired *r = malloc(sizeof *r);
        if (r) {
            r->p = p;
            r->next = t->retired;
            t->retired = r;
            t->resizes++;
            return;
        }
        return;     /* no memory to record it: leak the map rather than free it under readers */
    }
    if (t)
        t->live_bytes -= n;
    free(p);
}

static void *ckht_realloc(void *p, size_t old, size_t n, bool defer)
{
    void *q = ckht_malloc(n);
    if (!q)
        return NULL;
    memcpy(q, p, old < n ? old : n);
    ckht_free(p, old, defer);
    return q;
}

static struct ck_malloc ckht_allocator = {
    .malloc = ckht_malloc, .realloc = ckht_realloc, .free = ckht_free,
};

/* ck_ht's hash callback; the seed selects the cht_hash kind */
static void ckht_hash_cb(ck_ht_hash_t *h, const void *key, size_t len, uint64_t seed)
{
    uint64_t k;
    memcpy(&k, key, sizeof k < len ? sizeof k : len);
    h->value = cht_hash((enum cht_hash_kind)seed, k);
}

static const struct cht_option_spec ckht_options[] = {
    { "lock", "writer lock: any lock from --list (default pthread-mutex)" },
    CHT_HASH_OPTION,
    { NULL, NULL },
};

static void ckht_destroy(void *tp);

static void *ckht_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    if (!cht_option_enum(cfg->options, "ck-ht", "hash", cht_hash_names, &hash, err, len))
        return NULL;
    /* 32-byte entries; at most 2^50 of them */
    uint64_t cap = cht_initial_buckets(cfg, 1, 1ull << 50, err, len);
    if (!cap)
        return NULL;
    /* ck_ht doubles as soon as its load passes 1/2: sized at initial / density
     * (0.5 by default) a prefilled table would copy itself on the first net
     * insert of the run (measured: a 1M-key grow takes ~250 ms, the whole
     * run). So the prefill sits at load <= 0.45: twice our tables' slots at
     * the default density, and that memory is part of what ck-ht costs. */
    while ((double)cfg->initial > 0.45 * (double)cap && cap < (1ull << 50))
        cap <<= 1;
    if (cap > cht_phys_bytes() / sizeof(ck_ht_entry_t)) {
        snprintf(err, len, "out of memory (%llu entries of %zu bytes: more than this machine's memory)",
                 (unsigned long long)cap, sizeof(ck_ht_entry_t));
        return NULL;
    }
    const struct lock_ops *lk = cfg->lock;      /* lock=NAME or .default_lock, from the registry */
    if (!lk) {
        snprintf(err, len, "--table ck-ht: no lock given (the registry resolves .default_lock)");
        return NULL;
    }
    struct ckht_table *t = cht_alloc_zeroed(sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->threads = cfg->max_threads;
    if (!cht_locks_init(&t->locks, lk, cfg, 1, t->threads ? t->threads : 1, 1, "ck-ht", err, len)) {
        free(t);
        return NULL;
    }
    ckht_writer = t;
    bool ok = ck_ht_init(&t->ht, CK_HT_MODE_DIRECT | CK_HT_WORKLOAD_DELETE, ckht_hash_cb, &ckht_allocator,
                         cap, hash);
    ckht_writer = NULL;
    if (!ok) {
        snprintf(err, len, "out of memory (ck_ht_init, %llu entries)", (unsigned long long)cap);
        cht_locks_destroy(&t->locks);
        free(t);
        return NULL;
    }
    return t;
}

static void ckht_destroy(void *tp)
{
    struct ckht_table *t = tp;
    ckht_writer = t;
    ck_ht_destroy(&t->ht);
    ckht_writer = NULL;
    for (struct retired *r = t->retired, *next; r; r = next) {
        next = r->next;
        free(r->p);
        free(r);
    }
    cht_locks_destroy(&t->locks);
    free(t);
}

static void ckht_thread_init(void *tp, unsigned tid)
{
    (void)tp;
    ckht_tid = tid;
}

static inline void *my_ctx(struct ckht_table *t)
{
    return t->locks.ctx ? cht_locks_ctx(&t->locks, ckht_tid, 1, 0) : NULL;   /* no tid read without ctxs */
}

static bool ckht_get(void *tp, cht_key_t k, cht_val_t *v)
{
    struct ckht_table *t = tp;
    ck_ht_hash_t h;
    ck_ht_entry_t e;
    ck_ht_hash_direct(&h, &t->ht, (uintptr_t)k);
    ck_ht_entry_key_set_direct(&e, (uintptr_t)k);
    if (!ck_ht_get_spmc(&t->ht, h, &e))
        return false;
    if (v)
        *v = (cht_val_t)ck_ht_entry_value_direct(&e);
    return true;
}

static bool ckht_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct ckht_table *t = tp;
    void *ctx = my_ctx(t);
    ck_ht_hash_t h;
    ck_ht_entry_t e;
    ck_ht_hash_direct(&h, &t->ht, (uintptr_t)k);
    ck_ht_entry_set_direct(&e, h, (uintptr_t)k, (uintptr_t)v);
    ck_ht_entry_t probe;
    ck_ht_entry_key_set_direct(&probe, (uintptr_t)k);
    t->locks.lk->lock(t->locks.locks, ctx);
    ckht_writer = t;
    /* ck_ht_put_spmc reuses the first tombstone of the probe sequence without
     * looking further for the key (ck 0.7.1 src/ck_ht.c), so it would insert
     * a duplicate of a key that lies beyond a tombstone: look it up first
     * (we are the only writer, so the answer stays true until the put) */
    bool added = false;
    if (!ck_ht_get_spmc(&t->ht, h, &probe)) {
        added = ck_ht_put_spmc(&t->ht, h, &e);
        t->alloc_failures += !added;            /* absent, so only growing can have failed */
    }
    ckht_writer = NULL;
    t->locks.lk->unlock(t->locks.locks, ctx);
    return added;
}

static bool ckht_remove(void *tp, cht_key_t k)
{
    struct ckht_table *t = tp;
    void *ctx = my_ctx(t);
    ck_ht_hash_t h;
    ck_ht_entry_t e;
    ck_ht_hash_direct(&h, &t->ht, (uintptr_t)k);
    ck_ht_entry_key_set_direct(&e, (uintptr_t)k);
    t->locks.lk->lock(t->locks.locks, ctx);
    ckht_writer = t;
    bool found = ck_ht_remove_spmc(&t->ht, h, &e);
    ckht_writer = NULL;
    t->locks.lk->unlock(t->locks.locks, ctx);
    return found;
}

static bool ckht_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct ckht_table *t = tp;
    void *ctx = my_ctx(t);
    ck_ht_hash_t h;
    ck_ht_entry_t e;
    ck_ht_hash_direct(&h, &t->ht, (uintptr_t)k);
    ck_ht_entry_key_set_direct(&e, (uintptr_t)k);
    t->locks.lk->lock(t->locks.locks, ctx);
    ckht_writer = t;
    bool found = ck_ht_get_spmc(&t->ht, h, &e);      /* the only writer: no race with itself */
    if (found) {
        ck_ht_entry_set_direct(&e, h, (uintptr_t)k, (uintptr_t)v);
        ck_ht_set_spmc(&t->ht, h, &e);                /* replaces the value for readers atomically */
    }
    ckht_writer = NULL;
    t->locks.lk->unlock(t->locks.locks, ctx);
    return found;
}

static size_t ckht_size(void *tp)
{
    struct ckht_table *t = tp;
    void *ctx = my_ctx(t);
    t->locks.lk->lock(t->locks.locks, ctx);
    size_t n = (size_t)ck_ht_count(&t->ht);
    t->locks.lk->unlock(t->locks.locks, ctx);
    return n;
}

static void ckht_stats(void *tp, struct cht_stats *s)
{
    struct ckht_table *t = tp;
    void *ctx = my_ctx(t);
    t->locks.lk->lock(t->locks.locks, ctx);
    s->bytes = sizeof *t + t->live_bytes + cht_locks_bytes(&t->locks);
    s->buckets = 0;     /* ck_ht does not expose its capacity */
    s->resizes = t->resizes;
    s->alloc_failures = t->alloc_failures;
    t->locks.lk->unlock(t->locks.locks, ctx);
}

const struct cht_ops cht_table_ck_ht = {
    .name = "ck-ht",
    .default_lock = "pthread-mutex",
    .summary = "Concurrency Kit ck_ht in SPMC mode (as ck intends): lock-free reads, writers serialised by "
               "one lock (lock=NAME, default pthread-mutex)",
    .caps = CHT_CAP_RESIZE | CHT_CAP_UPDATE | CHT_CAP_LOCK_PARAM,
    .options = ckht_options,
    .create = ckht_create,
    .destroy = ckht_destroy,
    .thread_init = ckht_thread_init,
    .get = ckht_get,
    .insert = ckht_insert,
    .remove = ckht_remove,
    .update = ckht_update,
    .size = ckht_size,
    .stats = ckht_stats,
};
