/*
 * tbb.cpp - oneTBB's tbb::concurrent_hash_map behind the chtbench vtable.
 * Library: oneTBB 2021.8 as packaged by Debian (libtbb-dev 2021.8.0),
 * header <oneapi/tbb/concurrent_hash_map.h>, linked through pkg-config tbb.
 * The map is a chained table with one reader-writer spin lock per bucket and
 * per element, growing by segment doubling (buckets split lazily).
 *
 * Operations -> library calls:
 *   create   concurrent_hash_map(n, HashCompare) with n = initial / density
 *            (its constructor calls reserve(n): n buckets up front)
 *   get      find(const_accessor, k): element read-locked while the value is copied
 *   insert   insert(value_type{k, v}): true iff the key was new (no accessor is
 *            kept, so no element lock outlives the call)
 *   remove   erase(k)
 *   update   find(accessor, k) + write: element write-locked during the store
 *   size     size() (exact when quiescent)
 *   stats    bucket_count(); bytes is an estimate (see tbb_stats)
 * The hash is cht_hash (option hash=mix|identity); TBB takes the low bits.
 *
 * No exception crosses the C ABI: create() returns NULL with "out of memory"
 * on std::bad_alloc (and refuses sizes that cannot fit in physical memory
 * before building); insert() catches std::bad_alloc.
 *
 * Out of memory in insert (issue 13, "tbb hangs in prefill" under ulimit -v):
 * oneTBB 2021.8's insert allocates the node, links it, and only then, when
 * the load factor is reached, allocates the next bucket segment
 * (concurrent_hash_map::lookup -> insert_new_node, then enable_segment at
 * check_growth); a std::bad_alloc from the segment therefore escapes an
 * insert that DID add the key (size() counts it). The old adapter answered
 * false for it, so the driver's size check failed ("SIZE MISMATCH"). The
 * map is built with counting_allocator, which counts the current thread's
 * successful allocations: a bad_alloc after the node allocation means the
 * key is in (answer true; the map retries the segment at a later insert),
 * one before it means nothing changed (answer false, stats.alloc_failures).
 * Once a segment allocation has failed, every later insert past the load
 * factor retries it (and throws again) while nodes still fit: those inserts
 * succeed, each at the price of a throw.
 * The "hang" itself was no deadlock: every refused insert throws, and each
 * throw under an exhausted address space costs failing mmap/munmap calls
 * in tbbmalloc and in the C++ runtime (about 10 us), so a prefill of
 * millions of keys that goes on after the first refusal takes minutes; the
 * driver must stop inserting at the first refusal (measured in
 * tests/test_tables.c, mode oom).
 */
#include <new>
#include <unistd.h>
#include <oneapi/tbb/concurrent_hash_map.h>
#include <oneapi/tbb/spin_rw_mutex.h>
#include <oneapi/tbb/tbb_allocator.h>
#include "cht.h"
#include "cht_hash.h"

namespace {

struct tbb_hash_compare {
    enum cht_hash_kind kind = CHT_HASH_MIX;
    size_t hash(const uint64_t &k) const { return (size_t)cht_hash(kind, k); }
    bool equal(const uint64_t &a, const uint64_t &b) const { return a == b; }
};

/* Successful allocations of the calling thread since tbb_insert reset it. */
thread_local unsigned tl_allocs;

/* tbb::tbb_allocator (tbbmalloc when present, as the map's default) that
 * counts the calling thread's successful allocations (see the top comment). */
template <typename T>
struct counting_allocator {
    using value_type = T;
    counting_allocator() noexcept = default;
    template <typename U>
    counting_allocator(const counting_allocator<U> &) noexcept {}
    T *allocate(std::size_t n)
    {
        T *p = tbb::tbb_allocator<T>().allocate(n);     /* throws std::bad_alloc */
        tl_allocs++;
        return p;
    }
    void deallocate(T *p, std::size_t n) noexcept { tbb::tbb_allocator<T>().deallocate(p, n); }
    template <typename U>
    bool operator==(const counting_allocator<U> &) const noexcept { return true; }
    template <typename U>
    bool operator!=(const counting_allocator<U> &) const noexcept { return false; }
};

using tbb_map = tbb::concurrent_hash_map<uint64_t, uint64_t, tbb_hash_compare,
                                         counting_allocator<std::pair<const uint64_t, uint64_t>>>;

struct tbb_table {
    tbb_map map;
    size_t initial_buckets = 0;   /* bucket_count() right after construction */
    std::atomic<uint64_t> alloc_failures{0};
    tbb_table(size_t n, const tbb_hash_compare &hc) : map(n, hc) { initial_buckets = map.bucket_count(); }
};

/* concurrent_hash_map does not expose its node or bucket types' sizes; these
 * mirror oneTBB 2021.8's layout (node: next pointer + spin_rw_mutex + the
 * pair; bucket: spin_rw_mutex + list head) and are used only for estimates. */
constexpr size_t node_bytes = sizeof(void *) + sizeof(tbb::spin_rw_mutex) + sizeof(tbb_map::value_type);
constexpr size_t bucket_bytes = sizeof(tbb::spin_rw_mutex) + sizeof(void *);

const struct cht_option_spec tbb_options[] = {
    CHT_HASH_OPTION,
    { NULL, NULL },
};

void *tbb_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    if (!cht_option_enum(cfg->options, "tbb", "hash", cht_hash_names, &hash, err, len))
        return NULL;
    double density = cfg->density > 0 ? cfg->density : 0.5;
    double want = (double)(cfg->initial ? cfg->initial : 1) / density;
    /* refuse before building what cannot fit: reserve() initialises every
     * bucket it allocates, so an oversized table would touch memory until
     * the allocator finally throws */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double need = want * bucket_bytes + (double)cfg->initial * node_bytes;
    if (pages > 0 && page > 0 && need > (double)pages * (double)page) {
        snprintf(err, len, "out of memory: %.0f buckets + %zu nodes need ~%.1f GiB, the machine has %.1f GiB",
                 want, cfg->initial, need / 0x1p30, (double)pages * (double)page / 0x1p30);
        return NULL;
    }
    tbb_hash_compare hc;
    hc.kind = (enum cht_hash_kind)hash;
    try {
        return new tbb_table((size_t)want, hc);
    } catch (const std::bad_alloc &) {
        snprintf(err, len, "out of memory (%.0f buckets)", want);
    } catch (const std::exception &e) {
        snprintf(err, len, "tbb: %s", e.what());
    }
    return NULL;
}

void tbb_destroy(void *tp)
{
    delete static_cast<tbb_table *>(tp);
}

bool tbb_get(void *tp, cht_key_t k, cht_val_t *v)
{
    tbb_table *t = static_cast<tbb_table *>(tp);
    tbb_map::const_accessor a;
    if (!t->map.find(a, k))
        return false;
    if (v)
        *v = a->second;
    return true;
}

bool tbb_insert(void *tp, cht_key_t k, cht_val_t v)
{
    tbb_table *t = static_cast<tbb_table *>(tp);
    tl_allocs = 0;
    try {
        return t->map.insert(tbb_map::value_type(k, v));
    } catch (const std::bad_alloc &) {
        if (tl_allocs)
            return true;    /* the node is linked; only the bucket segment failed */
        t->alloc_failures.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
}

bool tbb_remove(void *tp, cht_key_t k)
{
    return static_cast<tbb_table *>(tp)->map.erase(k);
}

bool tbb_update(void *tp, cht_key_t k, cht_val_t v)
{
    tbb_table *t = static_cast<tbb_table *>(tp);
    tbb_map::accessor a;
    if (!t->map.find(a, k))
        return false;
    a->second = v;
    return true;
}

size_t tbb_size(void *tp)
{
    return static_cast<tbb_table *>(tp)->map.size();
}

/* bytes is an ESTIMATE: TBB does not report its allocations, so this is
 * bucket_count() * bucket size + size() * node size (layouts above), without
 * allocator overhead or the segment table. */
void tbb_stats(void *tp, struct cht_stats *s)
{
    tbb_table *t = static_cast<tbb_table *>(tp);
    size_t buckets = t->map.bucket_count();
    s->buckets = buckets;
    /* both libraries grow by doubling the bucket array, so the doublings since
     * creation are the completed resizes (derived: neither counts them) */
    for (size_t b = t->initial_buckets; b && b < buckets; b *= 2)
        s->resizes++;
    s->bytes = sizeof *t + buckets * bucket_bytes + t->map.size() * node_bytes;
    s->alloc_failures = t->alloc_failures.load(std::memory_order_relaxed);
}

bool tbb_available(char *why, size_t len)
{
    (void)why;
    (void)len;
    return true;    /* only built when Meson found TBB */
}

} // namespace

extern "C" const struct cht_ops cht_table_tbb;
/* positional (C++17 has no designated initialisers): constant-initialised */
extern "C" const struct cht_ops cht_table_tbb = {
    "tbb",                                   /* name */
    "oneTBB concurrent_hash_map: chained buckets, per-bucket and per-element RW spin locks",
    CHT_CAP_RESIZE | CHT_CAP_UPDATE,         /* caps */
    tbb_options,                             /* options */
    tbb_available,                           /* available */
    tbb_create,                              /* create */
    tbb_destroy,                             /* destroy */
    NULL,                                    /* thread_init: no per-thread state */
    NULL,                                    /* thread_exit */
    tbb_get,                                 /* get */
    tbb_insert,                              /* insert */
    tbb_remove,                              /* remove */
    tbb_update,                              /* update */
    tbb_size,                                /* size */
    tbb_stats,                               /* stats */
    NULL,                                    /* get_batch: single gets */
    NULL,                                    /* probe_lines: not reported */
    NULL,                                    /* default_lock: takes no lock */
    NULL,                                    /* pipe_start: --pipeline runs single ops */
    NULL,                                    /* pipe_step */
    NULL, NULL, NULL, NULL,                  /* *_bytes: integer keys only */
};
