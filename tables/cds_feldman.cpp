/*
 * cds_feldman.cpp - libcds' FeldmanHashMap (libcds-dev 2.3.3): S. Feldman,
 * P. LaBorde & D. Dechev, "A wait-free multi-word compare-and-swap operation"
 * / "Concurrent multi-level arrays: wait-free extensible hash maps" (SAMOS
 * 2013). A tree of arrays indexed by successive bit groups of the key's hash:
 * a head array of 2^head_bits slots, then array nodes of 2^4 slots created
 * when two hashes collide in a slot. No global resize and no chains; a key's
 * identity IS its hash, so the hash must be injective: cht_hash's default
 * mixer is a bijection on 64-bit keys (if it ever stops being one, the
 * conformance suite catches keys that merge). head_bits is sized from
 * initial / density (log2, clamped to 8..24).
 *
 * Reclamation: option gc=hp|dhp (cds::gc::HP / cds::gc::DHP), managed as in
 * tables/cds_support.h. What a run measures besides the data structure: the
 * GC (hazard pointers on every slot read that is followed), libcds' shared
 * atomic item counter, one allocation per key and per array node, and a
 * branch per call on the GC kind. No hash=identity option (see cds_michael.cpp).
 * Values are read/updated in place with atomic loads/stores inside find()'s
 * functor (the library's update() would replace the node).
 * Allocator: libcds 2.3.3 allocates an array node as one block of
 * sizeof(array_node) + 2^array_bits slots but frees it as one array_node
 * (a sized delete with the wrong size: AddressSanitizer's
 * new-delete-type-mismatch). unsized_allocator below is std::allocator with
 * an unsized operator delete, so the same malloc/free run, correctly.
 */
#include <cds/container/feldman_hashmap_hp.h>
#include <cds/container/feldman_hashmap_dhp.h>
#include "cds_support.h"

namespace {

template <class T> struct unsized_allocator {
    using value_type = T;
    template <class U> struct rebind {
        using other = unsized_allocator<U>;
    };
    unsized_allocator() = default;
    template <class U> unsized_allocator(const unsized_allocator<U> &) {}
    T *allocate(size_t n) { return static_cast<T *>(::operator new(n * sizeof(T))); }
    T *allocate(size_t n, const void *) { return allocate(n); }
    void deallocate(T *p, size_t) { ::operator delete(p); }
    template <class U> bool operator==(const unsized_allocator<U> &) const { return true; }
    template <class U> bool operator!=(const unsized_allocator<U> &) const { return false; }
};

struct map_traits : public cds::container::feldman_hashmap::traits {
    typedef cds_hash1 hash;
    typedef unsized_allocator<int> allocator;
    typedef unsized_allocator<int> node_allocator;
};
template <class GC> using feldman_map = cds::container::FeldmanHashMap<GC, uint64_t, uint64_t, map_traits>;

struct feldman_ops {
    /* node: the pair + the stored hash (+ allocator overhead, not counted) */
    static constexpr size_t node_bytes = 3 * sizeof(uint64_t);
    template <class M> static M *make(const struct cht_config *, size_t n)
    {
        size_t bits = 8;
        while (bits < 24 && ((size_t)1 << bits) < n)
            bits++;
        return new M(bits, 4);
    }
    template <class M> static bool get(M &m, cht_key_t k, cht_val_t *v) { return cds_map_ops<M>::get(m, k, v); }
    template <class M> static bool insert(M &m, cht_key_t k, cht_val_t v) { return m.insert(k, v); }
    template <class M> static bool remove(M &m, cht_key_t k) { return m.erase(k); }
    template <class M> static bool update(M &m, cht_key_t k, cht_val_t v) { return cds_map_ops<M>::update(m, k, v); }
    template <class M> static size_t buckets(M &m) { return m.head_size(); }   /* head array slots */
};

using adapter = cds_adapter<feldman_map<cds::gc::HP>, feldman_map<cds::gc::DHP>, feldman_ops>;

const struct cht_option_spec options[] = {
    CDS_GC_OPTION,
    { NULL, NULL },
};

void *create(const struct cht_config *cfg, char *err, size_t len) { return adapter::create(cfg, "cds-feldman", err, len); }

} // namespace

extern "C" const struct cht_ops cht_table_cds_feldman;
extern "C" const struct cht_ops cht_table_cds_feldman = {
    "cds-feldman",
    "libcds FeldmanHashMap: lock-free multi-level hash array trie, grows by array nodes (gc=hp|dhp)",
    CHT_CAP_RESIZE | CHT_CAP_UPDATE,
    options,
    NULL,
    create,
    adapter::destroy,
    cds_thread_init,
    cds_thread_exit,
    adapter::get,
    adapter::insert,
    adapter::remove,
    adapter::update,
    adapter::size,
    adapter::stats,
    NULL,   /* get_batch: single gets */
    NULL,   /* probe_lines: not reported */
    NULL,   /* default_lock: takes no lock */
    NULL,   /* pipe_start: --pipeline runs single ops */
    NULL,   /* pipe_step */
    NULL, NULL, NULL, NULL, /* *_bytes: integer keys only */
};
