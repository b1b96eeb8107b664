/*
 * cds_splitlist.cpp - libcds' SplitListMap (libcds-dev 2.3.3) over a Michael
 * list: O. Shalev & N. Shavit, "Split-ordered lists: lock-free extensible hash
 * tables", J. ACM 53(3), 2006. One lock-free sorted list of all keys in
 * bit-reversed hash order; buckets are shortcuts (dummy nodes) into it, and
 * the bucket count doubles as the load factor (1 key per bucket) is passed,
 * without moving any key. libcds' expandable bucket table fixes the MAXIMUM
 * bucket count at construction: here max(initial / density, min(range, 2^24)),
 * so that a table created tiny can still grow to one bucket per possible key.
 *
 * Reclamation: option gc=hp|dhp (cds::gc::HP / cds::gc::DHP), managed as in
 * tables/cds_support.h. What a run measures besides the data structure: the
 * GC (hazard-pointer publication per traversal step, retire/scan), libcds'
 * shared atomic item counter (which also drives the bucket doubling), one
 * allocation per key, and a branch per call on the GC kind.
 * Hash: cht_hash (cht_hash.h's default mixer) through a hasher type; no
 * hash=identity option (a type, not a value: see cds_michael.cpp).
 * Values are read/updated with atomic loads/stores inside find()'s functor.
 */
#include <cds/container/michael_kvlist_hp.h>
#include <cds/container/michael_kvlist_dhp.h>
#include <cds/container/split_list_map.h>
#include "cds_support.h"

namespace {

struct list_traits : public cds::container::michael_list::traits {
    typedef std::less<uint64_t> less;
};
struct map_traits : public cds::container::split_list::traits {
    typedef cds::container::michael_list_tag ordered_list;
    typedef cds_hash1 hash;
    typedef list_traits ordered_list_traits;
};
template <class GC> using splitlist_map = cds::container::SplitListMap<GC, uint64_t, uint64_t, map_traits>;

struct splitlist_ops {
    /* list node: next pointer + split-order hash + the pair */
    static constexpr size_t node_bytes = 2 * sizeof(void *) + 2 * sizeof(uint64_t);
    template <class M> static M *make(const struct cht_config *cfg, size_t n)
    {
        size_t room = cfg->range < (1u << 24) ? (size_t)cfg->range : (size_t)1 << 24;
        return new M(n > room ? n : room, 1);
    }
    template <class M> static bool get(M &m, cht_key_t k, cht_val_t *v) { return cds_map_ops<M>::get(m, k, v); }
    template <class M> static bool insert(M &m, cht_key_t k, cht_val_t v) { return m.insert(k, v); }
    template <class M> static bool remove(M &m, cht_key_t k) { return m.erase(k); }
    template <class M> static bool update(M &m, cht_key_t k, cht_val_t v) { return cds_map_ops<M>::update(m, k, v); }
    template <class M> static size_t buckets(M &) { return 0; }   /* not exposed by libcds */
};

using adapter = cds_adapter<splitlist_map<cds::gc::HP>, splitlist_map<cds::gc::DHP>, splitlist_ops>;

const struct cht_option_spec options[] = {
    CDS_GC_OPTION,
    { NULL, NULL },
};

void *create(const struct cht_config *cfg, char *err, size_t len) { return adapter::create(cfg, "cds-splitlist", err, len); }

} // namespace

extern "C" const struct cht_ops cht_table_cds_splitlist;
extern "C" const struct cht_ops cht_table_cds_splitlist = {
    "cds-splitlist",
    "libcds SplitListMap: lock-free split-ordered list, buckets double without moving keys (gc=hp|dhp)",
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
