/*
 * locked_impl.cpp - the serial library maps behind `locked:impl=std|absl|boost`
 * (tables/locked.c owns the lock, the options and the vtable; this file only
 * hides the C++ maps behind the C interface of locked_impl.h).
 *
 *   std    std::unordered_map (libstdc++: node-based chaining, one allocation
 *          per key, prime bucket counts: the hash is taken modulo a prime)
 *   absl   absl::flat_hash_map (Abseil 20220623, libabsl-dev: SwissTable,
 *          open addressing in groups of 16 with 7-bit control bytes, SSE2 probes)
 *   boost  boost::unordered_flat_map (Boost >= 1.81: open addressing in groups
 *          of 15 with 7-bit fingerprints; found in /usr/include or in the headers
 *          scripts/install-deps extracts into .deps/boost)
 *
 * What a run measures besides the map: one indirect call per operation (the C
 * side calls through struct locked_impl_ops), and each library's own extra
 * hashing on top of cht_hash: libstdc++ reduces modulo a prime bucket count,
 * boost post-mixes every hash (our hasher is not marked avalanching, so
 * hash=identity stays meaningful), absl mixes the hash with a per-table salt.
 * Every map uses cht_hash (option hash=mix|identity) as its hasher.
 * No exception crosses the C ABI: std::bad_alloc makes insert answer false and
 * is counted as an allocation failure by locked.c.
 */
#include <new>
#include <unordered_map>
#include "cht.h"
#include "cht_hash.h"
#include "locked_impl.h"
#ifdef HAVE_ABSL
#include <absl/container/flat_hash_map.h>
#endif
#ifdef HAVE_BOOST_FLAT
#include <boost/unordered/unordered_flat_map.hpp>
#endif

namespace {

struct impl_hash {
    enum cht_hash_kind kind = CHT_HASH_MIX;
    size_t operator()(uint64_t k) const { return (size_t)cht_hash(kind, k); }
};

template <class Map> struct impl {
    static void *create(size_t reserve, int hash, char *err, size_t len)
    {
        impl_hash h;
        h.kind = (enum cht_hash_kind)hash;
        try {
            Map *m = new Map(0, h);
            m->reserve(reserve);
            return m;
        } catch (const std::bad_alloc &) {
            snprintf(err, len, "out of memory (reserving %zu keys)", reserve);
        } catch (const std::exception &e) {
            snprintf(err, len, "%s", e.what());
        }
        return nullptr;
    }
    static void destroy(void *m) { delete static_cast<Map *>(m); }
    static bool get(void *mp, cht_key_t k, cht_val_t *v)
    {
        const Map *m = static_cast<const Map *>(mp);
        auto it = m->find(k);
        if (it == m->end())
            return false;
        if (v)
            *v = it->second;
        return true;
    }
    /* 1 inserted, 0 present, -1 out of memory */
    static int insert(void *mp, cht_key_t k, cht_val_t v)
    {
        try {
            return static_cast<Map *>(mp)->emplace(k, v).second ? 1 : 0;
        } catch (const std::bad_alloc &) {
            return -1;
        }
    }
    static bool remove(void *mp, cht_key_t k) { return static_cast<Map *>(mp)->erase(k) != 0; }
    static bool update(void *mp, cht_key_t k, cht_val_t v)
    {
        Map *m = static_cast<Map *>(mp);
        auto it = m->find(k);
        if (it == m->end())
            return false;
        it->second = v;
        return true;
    }
    static size_t size(void *mp) { return static_cast<Map *>(mp)->size(); }
    static size_t buckets(void *mp) { return static_cast<Map *>(mp)->bucket_count(); }
};

using std_map = std::unordered_map<uint64_t, uint64_t, impl_hash>;

/* Estimates (no library reports its allocations): libstdc++ allocates one
 * node (next pointer, pair, cached hash) per key plus one pointer per bucket;
 * the flat maps one slot (the pair) and one control byte per bucket. */
size_t std_bytes(void *mp)
{
    std_map *m = static_cast<std_map *>(mp);
    return m->bucket_count() * sizeof(void *) + m->size() * (sizeof(void *) + sizeof(std_map::value_type) + sizeof(size_t));
}

#ifdef HAVE_ABSL
using absl_map = absl::flat_hash_map<uint64_t, uint64_t, impl_hash>;
size_t absl_bytes(void *mp)
{
    return static_cast<absl_map *>(mp)->bucket_count() * (sizeof(absl_map::value_type) + 1);
}
#endif
#ifdef HAVE_BOOST_FLAT
using boost_map = boost::unordered_flat_map<uint64_t, uint64_t, impl_hash>;
size_t boost_bytes(void *mp)
{
    return static_cast<boost_map *>(mp)->bucket_count() * (sizeof(boost_map::value_type) + 1);
}
#endif

template <class Map> constexpr struct locked_impl_ops make_ops(const char *name, size_t (*bytes)(void *))
{
    return { name, impl<Map>::create, impl<Map>::destroy, impl<Map>::get, impl<Map>::insert,
             impl<Map>::remove, impl<Map>::update, impl<Map>::size, impl<Map>::buckets, bytes };
}

const struct locked_impl_ops std_ops = make_ops<std_map>("std", std_bytes);
#ifdef HAVE_ABSL
const struct locked_impl_ops absl_ops = make_ops<absl_map>("absl", absl_bytes);
#endif
#ifdef HAVE_BOOST_FLAT
const struct locked_impl_ops boost_ops = make_ops<boost_map>("boost", boost_bytes);
#endif

} // namespace

extern "C" const struct locked_impl_ops *locked_impl_find(enum locked_impl_kind kind, char *why, size_t len)
{
    switch (kind) {
    case LOCKED_IMPL_STD:
        return &std_ops;
    case LOCKED_IMPL_ABSL:
#ifdef HAVE_ABSL
        return &absl_ops;
#else
        snprintf(why, len, "absl::flat_hash_map was not found at build time (install libabsl-dev and rebuild)");
        return nullptr;
#endif
    case LOCKED_IMPL_BOOST:
#ifdef HAVE_BOOST_FLAT
        return &boost_ops;
#else
        snprintf(why, len, "boost/unordered/unordered_flat_map.hpp (Boost >= 1.81) was not found at build time "
                           "(run scripts/install-deps, which extracts it into .deps/boost, and rebuild)");
        return nullptr;
#endif
    default:
        snprintf(why, len, "no such implementation");
        return nullptr;
    }
}
