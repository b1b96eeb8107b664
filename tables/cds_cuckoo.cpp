/*
 * cds_cuckoo.cpp - libcds' CuckooMap (libcds-dev 2.3.3): R. Pagh & F. F.
 * Rodler, "Cuckoo hashing", J. Algorithms 51(2), 2004, made concurrent as in
 * M. Herlihy & N. Shavit, "The Art of Multiprocessor Programming" §13.4
 * (phased cuckoo hashing with lock striping): two tables, two hash functions, each bucket a small "probe set"
 * (libcds' default: a list, threshold 3 of size 4) so that an insert that
 * overflows a probe set can wait for relocation; relocation of at most 32
 * steps, then a resize of both tables (doubling) under all locks.
 * Concurrency: libcds' default striping mutex policy - an array of
 * std::recursive_mutex per hash function, sized at construction, each
 * operation locks one stripe per table.
 *
 * libcds' cuckoo containers are lock-based and reclaim nothing concurrently,
 * so they take no GC (no gc= option) and no thread attachment.
 * What a run measures besides the data structure: std::recursive_mutex
 * (pthread mutexes) as the stripe locks, one allocation per key (list probe
 * sets), libcds' shared atomic item counter.
 * Hash: cht_hash's default mixer and cht_hash_mix2 as the two hasher types
 * (cht_hash.h); no hash=identity option (see cds_michael.cpp).
 * No exception crosses the C ABI: std::bad_alloc in insert answers false and
 * is counted as an allocation failure.
 */
#include <atomic>
#include <cstring>   /* libcds 2.3.3's cuckoo_set.h uses memcpy without including it */
#include <new>
#include <unistd.h>
#include <cds/container/cuckoo_map.h>
#include "cht.h"
#include "cht_hash.h"

namespace {

struct hash1 {
    size_t operator()(uint64_t k) const { return (size_t)cht_hash(CHT_HASH_MIX, k); }
};
struct hash2 {
    size_t operator()(uint64_t k) const { return (size_t)cht_hash_mix2(k); }
};
struct map_traits : public cds::container::cuckoo::traits {
    typedef std::equal_to<uint64_t> equal_to;
    typedef cds::opt::hash_tuple<hash1, hash2> hash;
};
using cuckoo_map = cds::container::CuckooMap<uint64_t, uint64_t, map_traits>;

struct table {
    cuckoo_map map;
    std::atomic<uint64_t> alloc_failures{0};
    explicit table(size_t n) : map(n, 4, 3) {}
};

constexpr size_t node_bytes = sizeof(void *) + 2 * sizeof(uint64_t);   /* list node: next + pair */

void *create(const struct cht_config *cfg, char *err, size_t len)
{
    double density = cfg->density > 0 ? cfg->density : 0.5;
    double want = (double)(cfg->initial ? cfg->initial : 1) / density;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (!(want < 0x1p48) ||
        (pages > 0 && page > 0 && (double)cfg->initial * node_bytes + want * sizeof(void *) > (double)pages * (double)page)) {
        snprintf(err, len, "out of memory (%zu keys at density %g: more than this machine holds)", cfg->initial, density);
        return NULL;
    }
    size_t n = 16;
    while ((double)n < want)
        n <<= 1;
    try {
        return new table(n);
    } catch (const std::bad_alloc &) {
        snprintf(err, len, "out of memory (%zu buckets)", n);
    } catch (const std::exception &e) {
        snprintf(err, len, "libcds: %s", e.what());
    }
    return NULL;
}

void destroy(void *t) { delete static_cast<table *>(t); }

/* under the stripe locks: plain accesses are serialised by the library */
bool get(void *tp, cht_key_t k, cht_val_t *v)
{
    cht_val_t got = 0;
    bool ok = static_cast<table *>(tp)->map.find(k, [&got](cuckoo_map::value_type &item) { got = item.second; });
    if (ok && v)
        *v = got;
    return ok;
}

bool insert(void *tp, cht_key_t k, cht_val_t v)
{
    table *t = static_cast<table *>(tp);
    try {
        return t->map.insert(k, v);
    } catch (const std::bad_alloc &) {
        t->alloc_failures.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
}

bool remove(void *tp, cht_key_t k) { return static_cast<table *>(tp)->map.erase(k); }

bool update(void *tp, cht_key_t k, cht_val_t v)
{
    return static_cast<table *>(tp)->map.find(k, [v](cuckoo_map::value_type &item) { item.second = v; });
}

size_t size(void *tp) { return static_cast<table *>(tp)->map.size(); }

/* bytes is an ESTIMATE: two bucket tables of list heads plus size() list nodes */
void stats(void *tp, struct cht_stats *s)
{
    table *t = static_cast<table *>(tp);
    s->buckets = t->map.bucket_count();
    s->bytes = sizeof *t + 2 * s->buckets * sizeof(void *) + t->map.size() * node_bytes;
    s->alloc_failures = t->alloc_failures.load(std::memory_order_relaxed);
}

} // namespace

extern "C" const struct cht_ops cht_table_cds_cuckoo;
extern "C" const struct cht_ops cht_table_cds_cuckoo = {
    "cds-cuckoo",
    "libcds CuckooMap: 2-table cuckoo hashing with list probe sets, striped recursive mutexes (no GC)",
    CHT_CAP_RESIZE | CHT_CAP_UPDATE,
    NULL,
    NULL,
    create,
    destroy,
    NULL,
    NULL,
    get,
    insert,
    remove,
    update,
    size,
    stats,
    NULL,   /* get_batch: single gets */
    NULL,   /* probe_lines: not reported */
    NULL,   /* default_lock: takes no lock */
    NULL,   /* pipe_start: --pipeline runs single ops */
    NULL,   /* pipe_step */
    NULL, NULL, NULL, NULL, /* *_bytes: integer keys only */
};
