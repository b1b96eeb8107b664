/*
 * locked.c - a serial hash table under one lock: the baseline every
 * concurrent table must beat (the "coarse-grained lock" of the 2017 thesis, §3.4).
 *
 * Serial part: open addressing with linear probing over a power-of-two array
 * of (key, value) slots, key 0 = empty, deletion by backward shift (no
 * tombstones), doubling when the load passes 3/4. Keys are hashed with
 * cht_hash_mix (option hash=identity for upstream-style numbers).
 * Concurrency: one lock from locks/ (option lock=NAME, default pthread-mutex);
 * get() takes it in read mode, so an RW lock lets readers share.
 *
 * Option impl=own|std|absl|boost swaps the serial part for the best-known
 * serial library maps (std::unordered_map, absl::flat_hash_map,
 * boost::unordered_flat_map; tables/locked_impl.cpp), so that every concurrent
 * table is also judged against the best serial table under the same lock.
 * What impl=std|absl|boost measure besides the map: one indirect call per
 * operation and each library's own extra hashing (see locked_impl.cpp).
 * Values over 8 bytes (--value-size, CHT_CAP_VALUE_OOL; impl=own only): a
 * slot's value is then a pointer to a malloc'ed block of the value's words
 * (cht.h's cht_value_fill). insert and update allocate and fill the block
 * before taking the lock; update swaps the pointer under the write lock and
 * frees the old block after unlocking (no reader can hold it: readers read
 * the whole block, cht_value_read, under the read lock); remove frees the
 * block after unlocking. The lock is thus held no longer than with 8-byte
 * values, except for the reader's copy.
 * Byte-string keys (CHT_CAP_BYTE_KEYS; impl=std|absl|boost only): a run with
 * cht_config.key_kind == CHT_KEYS_BYTES gets the library map keyed by
 * std::string (locked_impl.cpp's locked_bytes_ops) under the same lock;
 * impl=own refuses it in create().
 * Sizing refuses what cannot be represented or allocated (issue 13 point 8:
 * --initial 2^61 --density 0.1 used to overflow the float-to-int conversion).
 */
#include <stdalign.h>
#include "cht.h"
#include "cht_hash.h"
#include "lock.h"
#include "table_support.h"
#include "table_locks.h"
#include "locked_impl.h"


struct locked_slot {
    cht_key_t key;
    cht_val_t val;
};

struct locked_table {
    alignas(CHT_CACHE_LINE) struct cht_locks locks; /* the one lock, one ctx per thread (aligned: cht_alloc_zeroed takes whole lines) */
    struct locked_slot *slot;
    uint64_t mask;          /* capacity - 1 */
    size_t count;
    uint64_t resizes;
    uint64_t alloc_failures;
    const struct locked_impl_ops *impl; /* NULL: our own linear probing */
    void *map;                          /* the library map of impl */
    const struct locked_bytes_ops *bimpl;   /* byte-key runs: the library map with string keys */
    void *bmap;
    enum cht_hash_kind hash;
    unsigned threads;
    size_t vwords;          /* value words: 1 = the slot's val, else a block pointer */
};

static __thread unsigned locked_tid;

static const struct cht_option_spec locked_options[] = {
    { "lock", "any lock from --list=locks (default pthread-mutex)" },
    CHT_HASH_OPTION,
    { "impl", "own|std|absl|boost: serial table (own linear probing, std::unordered_map, "
              "absl::flat_hash_map, boost::unordered_flat_map; default own)" },
    { NULL, NULL },
};

static const char *const locked_impl_names[] = { "own", "std", "absl", "boost", NULL };

static void *locked_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    if (!cht_option_enum(cfg->options, "locked", "hash", cht_hash_names, &hash, err, len))
        return NULL;
    unsigned kind = LOCKED_IMPL_OWN;
    if (!cht_option_enum(cfg->options, "locked", "impl", locked_impl_names, &kind, err, len))
        return NULL;
    const struct locked_impl_ops *impl = NULL;
    if (kind != LOCKED_IMPL_OWN) {
        char why[256];
        impl = locked_impl_find((enum locked_impl_kind)kind, why, sizeof why);
        if (!impl) {
            snprintf(err, len, "--table locked: option impl=%s is not available here: %s",
                     locked_impl_names[kind], why);
            return NULL;
        }
    }
    const struct locked_bytes_ops *bimpl = NULL;
    if (cfg->key_kind == CHT_KEYS_BYTES) {
        char why[256];
        if (!impl) {
            snprintf(err, len, "--key-type: locked:impl=own takes integer keys only (impl=std|absl|boost take "
                     "byte-string keys)");
            return NULL;
        }
        if (!(bimpl = locked_bytes_find((enum locked_impl_kind)kind, why, sizeof why))) {
            snprintf(err, len, "--table locked: option impl=%s has no byte-string keys here: %s",
                     locked_impl_names[kind], why);
            return NULL;
        }
        impl = NULL;                    /* the integer map is not built */
    }
    if (cht_value_words(cfg) > 1 && (impl || bimpl)) {
        snprintf(err, len, "--table locked: option impl=%s: --value-size %zu needs impl=own (library maps hold "
                 "8-byte values only)", locked_impl_names[kind], cfg->value_size);
        return NULL;
    }
    const struct lock_ops *lk = cfg->lock;      /* lock=NAME or .default_lock, from the registry */
    if (!lk) {
        snprintf(err, len, "--table locked: no lock given (the registry resolves .default_lock)");
        return NULL;
    }
    /* slots for initial / density keys (a library map reserves room for
     * initial keys at its own load factor, so it gets 16 slots: a placeholder) */
    uint64_t cap = 16;
    if (!impl && !bimpl) {
        /* at most 2^58 slots of 16 bytes: the byte count stays representable */
        cap = cht_initial_buckets(cfg, 1, 1ull << 58, err, len);
        if (!cap)
            return NULL;
        cap = cap < 16 ? 16 : cap;
        if (cap > cht_phys_bytes() / sizeof(struct locked_slot)) {
            snprintf(err, len, "out of memory (%zu keys at density %g need %llu slots of %zu bytes, "
                     "more than this machine's memory)", cfg->initial, cfg->density > 0 ? cfg->density : 0.5,
                     (unsigned long long)cap, sizeof(struct locked_slot));
            return NULL;
        }
    } else if ((double)cfg->initial * 2 * sizeof(struct locked_slot) > (double)cht_phys_bytes()) {
        snprintf(err, len, "out of memory (%zu keys need more than this machine's memory)", cfg->initial);
        return NULL;
    }

    struct locked_table *t = cht_alloc_zeroed(sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->hash = hash;
    t->impl = impl;
    t->bimpl = bimpl;
    if ((impl && !(t->map = impl->create(cfg->initial, (int)hash, err, len))) ||
        (bimpl && !(t->bmap = bimpl->create(cfg->initial, err, len)))) {
        free(t);
        return NULL;
    }
    t->threads = cfg->max_threads;
    t->vwords = cht_value_words(cfg);
    t->mask = cap - 1;
    t->slot = calloc(cap, sizeof *t->slot);
    if (!t->slot) {
        snprintf(err, len, "out of memory (%llu slots)", (unsigned long long)cap);
    } else if (cht_locks_init(&t->locks, lk, cfg, 1, t->threads ? t->threads : 1, 1, "locked", err, len)) {
        return t;
    }
    free(t->slot);
    if (impl)
        impl->destroy(t->map);
    if (bimpl)
        bimpl->destroy(t->bmap);
    free(t);
    return NULL;
}

static void locked_destroy(void *tp)
{
    struct locked_table *t = tp;
    cht_locks_destroy(&t->locks);
    for (uint64_t i = 0; t->vwords > 1 && i <= t->mask; i++)
        if (t->slot[i].key)
            free((void *)(uintptr_t)t->slot[i].val);
    free(t->slot);
    if (t->impl)
        t->impl->destroy(t->map);
    if (t->bimpl)
        t->bimpl->destroy(t->bmap);
    free(t);
}

/* a block holding v's words (values over 8 bytes); NULL when out of memory */
static uint64_t *vblock_new(const struct locked_table *t, cht_val_t v)
{
    uint64_t *b = malloc(t->vwords * sizeof *b);
    if (b)
        cht_value_fill(b, t->vwords, v);
    return b;
}

static void locked_thread_init(void *tp, unsigned tid)
{
    struct locked_table *t = tp;
    locked_tid = cht_thread_slot(tid, t->threads);   /* asserts tid < max_threads (the lock ctx array) */
}

static inline void *my_ctx(struct locked_table *t)
{
    return t->locks.ctx ? cht_locks_ctx(&t->locks, locked_tid, 1, 0) : NULL;   /* no tid read without ctxs */
}

/* index of k, or of the empty slot where it would go */
static inline uint64_t probe(const struct locked_table *t, cht_key_t k)
{
    uint64_t i = cht_hash(t->hash, k) & t->mask;
    while (t->slot[i].key != 0 && t->slot[i].key != k)
        i = (i + 1) & t->mask;
    return i;
}

static void grow(struct locked_table *t)
{
    uint64_t old_cap = t->mask + 1;
    struct locked_slot *old = t->slot;
    struct locked_slot *fresh = old_cap <= CHT_POW2_MAX / 2 ? calloc(old_cap * 2, sizeof *fresh) : NULL;
    if (!fresh)
        return;                 /* keep probing the full-ish table; still correct */
    t->slot = fresh;
    t->mask = old_cap * 2 - 1;
    for (uint64_t i = 0; i < old_cap; i++)
        if (old[i].key)
            t->slot[probe(t, old[i].key)] = old[i];
    free(old);
    t->resizes++;
}

static bool locked_get(void *tp, cht_key_t k, cht_val_t *v)
{
    struct locked_table *t = tp;
    void *ctx = my_ctx(t);
    t->locks.lk->read_lock(t->locks.locks, ctx);
    bool found;
    if (t->impl) {
        found = t->impl->get(t->map, k, v);
    } else {
        struct locked_slot *s = &t->slot[probe(t, k)];
        found = s->key == k;
        if (found && v)
            *v = t->vwords == 1 ? s->val : cht_value_read((const uint64_t *)(uintptr_t)s->val, t->vwords);
    }
    t->locks.lk->read_unlock(t->locks.locks, ctx);
    return found;
}

static bool locked_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct locked_table *t = tp;
    void *ctx = my_ctx(t);
    bool added = false;
    uint64_t *vb = NULL;
    if (t->vwords > 1) {
        vb = vblock_new(t, v);
        v = (cht_val_t)(uintptr_t)vb;
    }
    t->locks.lk->lock(t->locks.locks, ctx);
    if (t->vwords > 1 && !vb) {
        t->alloc_failures++;            /* no block: refused, nothing changed */
        t->locks.lk->unlock(t->locks.locks, ctx);
        return false;
    }
    if (t->impl) {
        int r = t->impl->insert(t->map, k, v);
        added = r > 0;
        t->alloc_failures += r < 0;
        t->locks.lk->unlock(t->locks.locks, ctx);
        return added;
    }
    /* keep one slot free at all times so probe() always terminates */
    if ((t->count + 1) * 4 > (t->mask + 1) * 3)
        grow(t);
    struct locked_slot *s = &t->slot[probe(t, k)];
    if (s->key != k) {
        if (t->count + 1 < t->mask + 1) {
            s->key = k;
            s->val = v;
            t->count++;
            added = true;
        } else {
            t->alloc_failures++;        /* grow() could not allocate */
        }
    }
    t->locks.lk->unlock(t->locks.locks, ctx);
    if (!added)
        free(vb);
    return added;
}

static bool locked_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct locked_table *t = tp;
    void *ctx = my_ctx(t);
    uint64_t *vb = NULL;
    if (t->vwords > 1) {                /* replaced, not overwritten: the block is filled outside the lock */
        if (!(vb = vblock_new(t, v)))
            return false;
        v = (cht_val_t)(uintptr_t)vb;
    }
    t->locks.lk->lock(t->locks.locks, ctx);
    bool found;
    if (t->impl) {
        found = t->impl->update(t->map, k, v);
    } else {
        struct locked_slot *s = &t->slot[probe(t, k)];
        found = s->key == k;
        if (found) {
            cht_val_t old = s->val;
            s->val = v;
            v = old;                    /* with blocks: the one to free */
        }
    }
    t->locks.lk->unlock(t->locks.locks, ctx);
    if (vb)
        free(found ? (void *)(uintptr_t)v : vb);
    return found;
}

/* backward-shift deletion: pull later members of the probe run into the hole */
static void erase_at(struct locked_table *t, uint64_t hole)
{
    uint64_t i = hole;
    for (;;) {
        i = (i + 1) & t->mask;
        if (t->slot[i].key == 0)
            break;
        uint64_t home = cht_hash(t->hash, t->slot[i].key) & t->mask;
        /* the entry may move to the hole iff its home is not in (hole, i] cyclically */
        if (((i - home) & t->mask) >= ((i - hole) & t->mask)) {
            t->slot[hole] = t->slot[i];
            hole = i;
        }
    }
    t->slot[hole].key = 0;
    t->slot[hole].val = 0;
}

static bool locked_remove(void *tp, cht_key_t k)
{
    struct locked_table *t = tp;
    void *ctx = my_ctx(t);
    t->locks.lk->lock(t->locks.locks, ctx);
    bool found;
    cht_val_t old = 0;
    if (t->impl) {
        found = t->impl->remove(t->map, k);
    } else {
        uint64_t i = probe(t, k);
        found = t->slot[i].key == k;
        if (found) {
            old = t->slot[i].val;
            erase_at(t, i);
            t->count--;
        }
    }
    t->locks.lk->unlock(t->locks.locks, ctx);
    if (found && t->vwords > 1)
        free((void *)(uintptr_t)old);
    return found;
}

static size_t locked_size(void *tp)
{
    struct locked_table *t = tp;
    void *ctx = my_ctx(t);
    t->locks.lk->read_lock(t->locks.locks, ctx);
    size_t n = t->impl ? t->impl->size(t->map) : t->bimpl ? t->bimpl->size(t->bmap) : t->count;
    t->locks.lk->read_unlock(t->locks.locks, ctx);
    return n;
}

static void locked_stats(void *tp, struct cht_stats *s)
{
    struct locked_table *t = tp;
    void *ctx = my_ctx(t);
    t->locks.lk->read_lock(t->locks.locks, ctx);          /* stats may run beside operations */
    s->bytes = sizeof *t + (t->mask + 1) * sizeof *t->slot + cht_locks_bytes(&t->locks);
    if (t->vwords > 1)
        s->bytes += t->count * t->vwords * sizeof(uint64_t);
    s->buckets = t->mask + 1;
    s->resizes = t->resizes;
    s->alloc_failures = t->alloc_failures;
    if (t->impl) {
        s->bytes += t->impl->bytes(t->map) - (t->mask + 1) * sizeof *t->slot;  /* 16 unused own slots */
        s->buckets = t->impl->buckets(t->map);
    }
    if (t->bimpl) {
        s->bytes += t->bimpl->bytes(t->bmap) - (t->mask + 1) * sizeof *t->slot;
        s->buckets = t->bimpl->buckets(t->bmap);
    }
    t->locks.lk->read_unlock(t->locks.locks, ctx);
}

/* ---- byte-string keys: the library map of bimpl under the same lock ---- */

static bool locked_get_bytes(void *tp, const void *k, size_t n, cht_val_t *v)
{
    struct locked_table *t = tp;
    void *ctx = my_ctx(t);
    t->locks.lk->read_lock(t->locks.locks, ctx);
    bool found = t->bimpl->get(t->bmap, k, n, v);
    t->locks.lk->read_unlock(t->locks.locks, ctx);
    return found;
}

static bool locked_insert_bytes(void *tp, const void *k, size_t n, cht_val_t v)
{
    struct locked_table *t = tp;
    void *ctx = my_ctx(t);
    t->locks.lk->lock(t->locks.locks, ctx);
    int r = t->bimpl->insert(t->bmap, k, n, v);
    t->alloc_failures += r < 0;
    t->locks.lk->unlock(t->locks.locks, ctx);
    return r > 0;
}

static bool locked_remove_bytes(void *tp, const void *k, size_t n)
{
    struct locked_table *t = tp;
    void *ctx = my_ctx(t);
    t->locks.lk->lock(t->locks.locks, ctx);
    bool found = t->bimpl->remove(t->bmap, k, n);
    t->locks.lk->unlock(t->locks.locks, ctx);
    return found;
}

static bool locked_update_bytes(void *tp, const void *k, size_t n, cht_val_t v)
{
    struct locked_table *t = tp;
    void *ctx = my_ctx(t);
    t->locks.lk->lock(t->locks.locks, ctx);
    bool found = t->bimpl->update(t->bmap, k, n, v);
    t->locks.lk->unlock(t->locks.locks, ctx);
    return found;
}

const struct cht_ops cht_table_locked = {
    .name = "locked",
    .default_lock = "pthread-mutex",
    .summary = "serial table under one lock (impl=own|std|absl|boost: our linear probing, std::unordered_map, "
               "absl::flat_hash_map, boost::unordered_flat_map): the coarse-grained baseline (thesis "
               "\"Concurrent Hashing on Multi-core Systems\" (Hunan Univ., 2017) §3.4)",
    .caps = CHT_CAP_RESIZE | CHT_CAP_UPDATE | CHT_CAP_LOCK_PARAM | CHT_CAP_VALUE_OOL | CHT_CAP_BYTE_KEYS,
    .options = locked_options,
    .create = locked_create,
    .destroy = locked_destroy,
    .thread_init = locked_thread_init,
    .get = locked_get,
    .insert = locked_insert,
    .remove = locked_remove,
    .update = locked_update,
    .size = locked_size,
    .stats = locked_stats,
    .get_bytes = locked_get_bytes,          /* impl=std|absl|boost */
    .insert_bytes = locked_insert_bytes,
    .remove_bytes = locked_remove_bytes,
    .update_bytes = locked_update_bytes,
};
