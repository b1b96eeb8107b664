/*
 * libcuckoo.cpp - libcuckoo's cuckoohash_map behind the chtbench vtable.
 * Library: libcuckoo 0.3.1 as packaged by Debian (libcuckoo-dev, header-only,
 * <libcuckoo/cuckoohash_map.hh>): the upstream of the thesis' MRMW cuckoo
 * table. Bucketised (4 slots per bucket) two-choice cuckoo hashing with BFS
 * cuckoo paths, a striped array of spin locks (at most 65536), automatic
 * doubling when an insert finds no cuckoo path.
 *
 * Operations -> library calls:
 *   create   cuckoohash_map(n, Hash) with n = initial / density elements
 *            (the constructor sizes the bucket array for n)
 *   get      find(k, v)
 *   insert   insert(k, v): false if the key is present
 *   remove   erase(k)
 *   update   update(k, v): false if the key is absent
 *   size     size() (sum of per-lock counters: exact when quiescent)
 *   stats    bucket_count(); bytes is an estimate (see lc_stats)
 * The hash is cht_hash (option hash=mix|identity); libcuckoo derives both
 * bucket indexes and its partial-key tag from it.
 *
 * No exception crosses the C ABI: create() returns NULL with "out of memory"
 * on std::bad_alloc (and refuses sizes that cannot fit in physical memory
 * before building). An insert whose expansion fails answers false and is
 * counted by cause: std::bad_alloc (the doubled bucket array or lock array
 * could not be allocated; the key was not added, libcuckoo expands before
 * it places the key) in stats.alloc_failures, libcuckoo's
 * load_factor_too_low / maximum_hashpower_exceeded (the table may not grow
 * any further) in stats.full_failures.
 *
 * libcuckoo 0.3.1 does not survive a std::bad_alloc while doubling:
 * cuckoo_fast_double swaps the bucket array out (old_buckets_.swap(buckets_))
 * and only then allocates the new one, so when that allocation throws the
 * map is left without buckets and its next operation dereferences NULL
 * (measured: SIGSEGV in the insert after the first refusal under
 * RLIMIT_AS). The adapter therefore marks the table broken at the first
 * bad_alloc: from then on every insert is refused and counted in
 * alloc_failures, and get/remove/update answer false without touching the
 * map (its keys live on in the swapped-out array, unreachable through the
 * API; size() still counts them, destroy() frees them). The run is lost
 * either way; this turns a crash into a reported out-of-memory outcome. The
 * driver refuses runs whose estimated memory does not fit before the
 * prefill.
 */
#include <new>
#include <atomic>
#include <unistd.h>
#include <libcuckoo/cuckoohash_map.hh>
#include "cht.h"
#include "cht_hash.h"

namespace {

struct lc_hash {
    enum cht_hash_kind kind = CHT_HASH_MIX;
    size_t operator()(const uint64_t &k) const { return (size_t)cht_hash(kind, k); }
};

using lc_map = libcuckoo::cuckoohash_map<uint64_t, uint64_t, lc_hash>;

struct lc_table {
    lc_map map;
    size_t initial_buckets = 0;   /* bucket_count() right after construction */
    std::atomic<uint64_t> full_failures{0}, alloc_failures{0};
    std::atomic<bool> broken{false};    /* a doubling threw bad_alloc: see the top comment */
    lc_table(size_t n, const lc_hash &h) : map(n, h) { initial_buckets = map.bucket_count(); }
};

/* Estimates only (libcuckoo does not report its allocations): a slot holds
 * the pair, a one-byte partial key and an occupied flag; the lock array has
 * one 64-byte-aligned spin lock per bucket up to 2^16. */
constexpr size_t slot_bytes = sizeof(lc_map::value_type) + sizeof(uint8_t) /* partial_t */ + sizeof(bool);
constexpr size_t lock_bytes = 64;
constexpr size_t max_locks = size_t(1) << 16;

const struct cht_option_spec lc_options[] = {
    CHT_HASH_OPTION,
    { NULL, NULL },
};

void *lc_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    if (!cht_option_enum(cfg->options, "libcuckoo", "hash", cht_hash_names, &hash, err, len))
        return NULL;
    double density = cfg->density > 0 ? cfg->density : 0.5;
    double want = (double)(cfg->initial ? cfg->initial : 1) / density;
    /* refuse before building what cannot fit (the constructor allocates and
     * initialises the whole bucket array up front) */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double need = want * slot_bytes;
    if (pages > 0 && page > 0 && need > (double)pages * (double)page) {
        snprintf(err, len, "out of memory: %.0f slots need ~%.1f GiB, the machine has %.1f GiB",
                 want, need / 0x1p30, (double)pages * (double)page / 0x1p30);
        return NULL;
    }
    lc_hash h;
    h.kind = (enum cht_hash_kind)hash;
    try {
        return new lc_table((size_t)want, h);
    } catch (const std::bad_alloc &) {
        snprintf(err, len, "out of memory (%.0f slots)", want);
    } catch (const std::exception &e) {
        snprintf(err, len, "libcuckoo: %s", e.what());
    }
    return NULL;
}

void lc_destroy(void *tp)
{
    delete static_cast<lc_table *>(tp);
}

bool lc_get(void *tp, cht_key_t k, cht_val_t *v)
{
    lc_table *t = static_cast<lc_table *>(tp);
    uint64_t got;
    if (t->broken.load(std::memory_order_relaxed) || !t->map.find(k, got))
        return false;
    if (v)
        *v = got;
    return true;
}

bool lc_insert(void *tp, cht_key_t k, cht_val_t v)
{
    lc_table *t = static_cast<lc_table *>(tp);
    if (t->broken.load(std::memory_order_relaxed)) {
        t->alloc_failures.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    try {
        return t->map.insert(k, v);
    } catch (const std::bad_alloc &) {
        t->broken.store(true, std::memory_order_relaxed);
        t->alloc_failures.fetch_add(1, std::memory_order_relaxed);
        return false;
    } catch (const std::exception &) {
        /* load_factor_too_low, maximum_hashpower_exceeded: may not grow */
        t->full_failures.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
}

bool lc_remove(void *tp, cht_key_t k)
{
    lc_table *t = static_cast<lc_table *>(tp);
    return !t->broken.load(std::memory_order_relaxed) && t->map.erase(k);
}

bool lc_update(void *tp, cht_key_t k, cht_val_t v)
{
    lc_table *t = static_cast<lc_table *>(tp);
    return !t->broken.load(std::memory_order_relaxed) && t->map.update(k, v);
}

size_t lc_size(void *tp)
{
    return static_cast<lc_table *>(tp)->map.size();
}

/* bytes is an ESTIMATE: bucket_count() * slots per bucket * slot size plus
 * the lock array (layouts above), without allocator overhead. */
void lc_stats(void *tp, struct cht_stats *s)
{
    lc_table *t = static_cast<lc_table *>(tp);
    size_t buckets = t->map.bucket_count();
    s->buckets = buckets;
    /* both libraries grow by doubling the bucket array, so the doublings since
     * creation are the completed resizes (derived: neither counts them) */
    for (size_t b = t->initial_buckets; b && b < buckets; b *= 2)
        s->resizes++;
    s->bytes = sizeof *t + buckets * lc_map::slot_per_bucket() * slot_bytes +
               (buckets < max_locks ? buckets : max_locks) * lock_bytes;
    s->full_failures = t->full_failures.load(std::memory_order_relaxed);
    s->alloc_failures = t->alloc_failures.load(std::memory_order_relaxed);
}

bool lc_available(char *why, size_t len)
{
    (void)why;
    (void)len;
    return true;    /* only built when Meson found libcuckoo */
}

} // namespace

extern "C" const struct cht_ops cht_table_libcuckoo;
/* positional (C++17 has no designated initialisers): constant-initialised */
extern "C" const struct cht_ops cht_table_libcuckoo = {
    "libcuckoo",                             /* name */
    "libcuckoo cuckoohash_map: 4-way bucketised cuckoo hashing, striped spin locks (Li, Andersen, Kaminsky, Freedman, \"Algorithmic improvements for fast concurrent cuckoo hashing\", EuroSys'14)",
    CHT_CAP_RESIZE | CHT_CAP_UPDATE,         /* caps */
    lc_options,                              /* options */
    lc_available,                            /* available */
    lc_create,                               /* create */
    lc_destroy,                              /* destroy */
    NULL,                                    /* thread_init: no per-thread state */
    NULL,                                    /* thread_exit */
    lc_get,                                  /* get */
    lc_insert,                               /* insert */
    lc_remove,                               /* remove */
    lc_update,                               /* update */
    lc_size,                                 /* size */
    lc_stats,                                /* stats */
    NULL,                                    /* get_batch: single gets */
    NULL,                                    /* probe_lines: not reported */
    NULL,                                    /* default_lock: takes no lock */
    NULL,                                    /* pipe_start: --pipeline runs single ops */
    NULL,                                    /* pipe_step */
    NULL, NULL, NULL, NULL,                  /* *_bytes: integer keys only */
};
