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
 *
 * Byte-string keys (locked_bytes_ops, --key-type): the same maps keyed by
 * std::string with each library's own string hash (libstdc++'s
 * std::hash<std::string_view>, absl::Hash, boost::hash), what a user of these
 * maps writes. absl and boost look a key up by std::string_view (transparent
 * hash and equality: no string built per lookup); std::unordered_map has no
 * heterogeneous lookup before C++20, so a lookup copies the key into a
 * per-thread std::string reused from call to call (no allocation once it has
 * grown). The byte estimate adds every key longer than the small-string
 * buffer (15 bytes in libstdc++), which lives in a heap block of its own.
 */
#include <new>
#include <string>
#include <string_view>
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

/* ---- byte-string keys ---- */

struct sv_hash {                 /* boost: transparent, boost::hash of the bytes */
    using is_transparent = void;
#ifdef HAVE_BOOST_FLAT
    size_t operator()(std::string_view s) const { return boost::hash<std::string_view>()(s); }
#else
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
#endif
};

template <class Map> struct bytes_map {
    Map m;
    size_t heap_key_bytes = 0;   /* keys beyond the small-string buffer: their heap blocks */
};

static size_t heap_bytes_of(size_t n)
{
    return n > 15 ? n + 1 : 0;
}

/* the key as the map's find() takes it: a string_view, or (std) a per-thread string */
template <class Map> struct key_of {
    static std::string_view get(const void *k, size_t n) { return std::string_view(static_cast<const char *>(k), n); }
};
template <> struct key_of<std::unordered_map<std::string, uint64_t>> {
    static const std::string &get(const void *k, size_t n)
    {
        static thread_local std::string scratch;
        scratch.assign(static_cast<const char *>(k), n);
        return scratch;
    }
};

#ifdef HAVE_ABSL
template <> struct key_of<absl::flat_hash_map<std::string, uint64_t>> {   /* absl's own string_view */
    static absl::string_view get(const void *k, size_t n) { return absl::string_view(static_cast<const char *>(k), n); }
};
#endif

template <class Map> struct bimpl {
    using B = bytes_map<Map>;
    static void *create(size_t reserve, char *err, size_t len)
    {
        try {
            B *b = new B();
            b->m.reserve(reserve);
            return b;
        } catch (const std::bad_alloc &) {
            snprintf(err, len, "out of memory (reserving %zu keys)", reserve);
        } catch (const std::exception &e) {
            snprintf(err, len, "%s", e.what());
        }
        return nullptr;
    }
    static void destroy(void *b) { delete static_cast<B *>(b); }
    static bool get(void *bp, const void *k, size_t n, cht_val_t *v)
    {
        const Map &m = static_cast<B *>(bp)->m;
        auto it = m.find(key_of<Map>::get(k, n));
        if (it == m.end())
            return false;
        if (v)
            *v = it->second;
        return true;
    }
    static int insert(void *bp, const void *k, size_t n, cht_val_t v)
    {
        B *b = static_cast<B *>(bp);
        try {
            if (!b->m.emplace(std::string(static_cast<const char *>(k), n), v).second)
                return 0;
            b->heap_key_bytes += heap_bytes_of(n);
            return 1;
        } catch (const std::bad_alloc &) {
            return -1;
        }
    }
    static bool remove(void *bp, const void *k, size_t n)
    {
        B *b = static_cast<B *>(bp);
        auto it = b->m.find(key_of<Map>::get(k, n));
        if (it == b->m.end())
            return false;
        b->m.erase(it);
        b->heap_key_bytes -= heap_bytes_of(n);
        return true;
    }
    static bool update(void *bp, const void *k, size_t n, cht_val_t v)
    {
        Map &m = static_cast<B *>(bp)->m;
        auto it = m.find(key_of<Map>::get(k, n));
        if (it == m.end())
            return false;
        it->second = v;
        return true;
    }
    static size_t size(void *bp) { return static_cast<B *>(bp)->m.size(); }
    static size_t buckets(void *bp) { return static_cast<B *>(bp)->m.bucket_count(); }
};

using std_bmap = std::unordered_map<std::string, uint64_t>;
size_t std_bbytes(void *bp)
{
    auto *b = static_cast<bytes_map<std_bmap> *>(bp);
    return sizeof *b + b->m.bucket_count() * sizeof(void *) +
           b->m.size() * (sizeof(void *) + sizeof(std_bmap::value_type) + sizeof(size_t)) + b->heap_key_bytes;
}
#ifdef HAVE_ABSL
using absl_bmap = absl::flat_hash_map<std::string, uint64_t>;
size_t absl_bbytes(void *bp)
{
    auto *b = static_cast<bytes_map<absl_bmap> *>(bp);
    return sizeof *b + b->m.bucket_count() * (sizeof(absl_bmap::value_type) + 1) + b->heap_key_bytes;
}
#endif
#ifdef HAVE_BOOST_FLAT
using boost_bmap = boost::unordered_flat_map<std::string, uint64_t, sv_hash, std::equal_to<>>;
size_t boost_bbytes(void *bp)
{
    auto *b = static_cast<bytes_map<boost_bmap> *>(bp);
    return sizeof *b + b->m.bucket_count() * (sizeof(boost_bmap::value_type) + 1) + b->heap_key_bytes;
}
#endif

template <class Map> constexpr struct locked_bytes_ops make_bops(size_t (*bytes)(void *))
{
    return { bimpl<Map>::create, bimpl<Map>::destroy, bimpl<Map>::get, bimpl<Map>::insert, bimpl<Map>::remove,
             bimpl<Map>::update, bimpl<Map>::size, bimpl<Map>::buckets, bytes };
}

const struct locked_bytes_ops std_bops = make_bops<std_bmap>(std_bbytes);
#ifdef HAVE_ABSL
const struct locked_bytes_ops absl_bops = make_bops<absl_bmap>(absl_bbytes);
#endif
#ifdef HAVE_BOOST_FLAT
const struct locked_bytes_ops boost_bops = make_bops<boost_bmap>(boost_bbytes);
#endif

} // namespace

extern "C" const struct locked_bytes_ops *locked_bytes_find(enum locked_impl_kind kind, char *why, size_t len)
{
    if (!locked_impl_find(kind, why, len))     /* not built: its reason */
        return nullptr;
    switch (kind) {
    case LOCKED_IMPL_STD:
        return &std_bops;
#ifdef HAVE_ABSL
    case LOCKED_IMPL_ABSL:
        return &absl_bops;
#endif
#ifdef HAVE_BOOST_FLAT
    case LOCKED_IMPL_BOOST:
        return &boost_bops;
#endif
    default:
        snprintf(why, len, "no such implementation");
        return nullptr;
    }
}

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
