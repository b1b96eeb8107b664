/*
 * cds_michael.cpp - libcds' MichaelHashMap over MichaelKVList (libcds-dev
 * 2.3.3): M. M. Michael, "High performance dynamic lock-free hash tables and
 * list-based sets", SPAA 2002. A fixed array of buckets, each a lock-free
 * sorted linked list (Harris-Michael list with marked next pointers); no
 * resizing: the bucket count is fixed at create() (initial / density, the
 * library rounds to a power of two), chains lengthen beyond it.
 *
 * Reclamation: option gc=hp|dhp - libcds' hazard pointers (cds::gc::HP) or
 * dynamic hazard pointers (cds::gc::DHP); the library, its GC and thread
 * attachment are managed as tables/cds_support.h describes.
 * What a run measures besides the data structure: the GC (hazard-pointer
 * publication on every traversal step, retire lists and scans), libcds' one
 * shared atomic item counter (size(); one contended increment per successful
 * insert/remove), one allocation per inserted key (std::allocator), and a
 * branch per call on the GC kind.
 * Hash: cht_hash (cht_hash.h's default mixer) through a hasher type; libcds
 * takes it modulo the bucket count. No hash=identity option: the hasher is a
 * type, and a second instantiation per GC would double the build time.
 * Values are read and updated with atomic loads/stores inside find()'s functor
 * (libcds does not serialise access to a found item).
 */
#include <cds/container/michael_kvlist_hp.h>
#include <cds/container/michael_kvlist_dhp.h>
#include <cds/container/michael_map.h>
#include "cds_support.h"

namespace {

struct list_traits : public cds::container::michael_list::traits {
    typedef std::less<uint64_t> less;
};
struct map_traits : public cds::container::michael_map::traits {
    typedef cds_hash1 hash;
};
template <class GC>
using michael_map = cds::container::MichaelHashMap<GC, cds::container::MichaelKVList<GC, uint64_t, uint64_t, list_traits>,
                                                   map_traits>;

struct michael_ops {
    /* list node: next pointer (marked) + the pair */
    static constexpr size_t node_bytes = sizeof(void *) + 2 * sizeof(uint64_t);
    template <class M> static M *make(const struct cht_config *, size_t n) { return new M(n < 1 ? 1 : n, 1); }
    template <class M> static bool get(M &m, cht_key_t k, cht_val_t *v) { return cds_map_ops<M>::get(m, k, v); }
    template <class M> static bool insert(M &m, cht_key_t k, cht_val_t v) { return m.insert(k, v); }
    template <class M> static bool remove(M &m, cht_key_t k) { return m.erase(k); }
    template <class M> static bool update(M &m, cht_key_t k, cht_val_t v) { return cds_map_ops<M>::update(m, k, v); }
    template <class M> static size_t buckets(M &m) { return m.bucket_count(); }
};

using adapter = cds_adapter<michael_map<cds::gc::HP>, michael_map<cds::gc::DHP>, michael_ops>;

const struct cht_option_spec options[] = {
    CDS_GC_OPTION,
    { NULL, NULL },
};

void *create(const struct cht_config *cfg, char *err, size_t len) { return adapter::create(cfg, "cds-michael", err, len); }

} // namespace

extern "C" const struct cht_ops cht_table_cds_michael;
extern "C" const struct cht_ops cht_table_cds_michael = {
    "cds-michael",
    "libcds MichaelHashMap over MichaelKVList: lock-free list per bucket, fixed bucket count (gc=hp|dhp)",
    CHT_CAP_UPDATE,
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
