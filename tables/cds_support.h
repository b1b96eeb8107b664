/*
 * cds_support.h - what the libcds adapters (tables/cds_*.cpp) share: the
 * library's start-up and its garbage collectors' lifetime, thread attachment,
 * the hashers, and one template that maps the cht_ops calls onto a libcds map.
 * C++ only, header-only, everything inline or in an anonymous namespace.
 *
 * libcds (libcds-dev 2.3.3) needs, per process, cds::Initialize() and one
 * singleton object per garbage collector (cds::gc::HP, cds::gc::DHP), and per
 * thread an attachment (cds::threading::Manager::attachThread) before the
 * thread touches a GC-based container. Here:
 *   create()       Initialize() and the table's GC are reference-counted over
 *                  the live tables (built by the first, destroyed with the last);
 *   thread_init    attachThread(); thread_exit: detachThread() (nesting counts);
 *   create/destroy on a thread that is not attached (the driver's main thread,
 *                  which also builds and destroys one tiny table to validate
 *                  options) attach for the duration of the call, because a
 *                  map's constructor and destructor may use the GC.
 * Attachment is per thread, not per GC: a thread attached while a table with
 * GC A exists is not attached to a GC B created later. chtbench creates one
 * table at a time, so this never happens.
 */
#ifndef CHT_CDS_SUPPORT_H
#define CHT_CDS_SUPPORT_H

#include <atomic>
#include <mutex>
#include <new>
#include <unistd.h>
#include <cds/init.h>
#include <cds/gc/hp.h>
#include <cds/gc/dhp.h>
#include "cht.h"
#include "cht_hash.h"

namespace {

enum cds_gc_kind { CDS_GC_HP = 0, CDS_GC_DHP = 1 };
const char *const cds_gc_names[] = { "hp", "dhp", NULL };
#define CDS_GC_OPTION { "gc", "hp|dhp: libcds reclamation, hazard pointers or dynamic hazard pointers (default hp)" }

struct cds_lib_state {
    std::mutex m;
    unsigned init_users = 0, hp_users = 0, dhp_users = 0;
    cds::gc::HP *hp = nullptr;
    cds::gc::DHP *dhp = nullptr;
};

inline cds_lib_state &cds_state()
{
    static cds_lib_state s;
    return s;
}

/* Initialize() and the GC of kind k for one more table (threads: max thread ids). */
inline bool cds_acquire(cds_gc_kind k, unsigned threads, char *err, size_t len)
{
    cds_lib_state &s = cds_state();
    std::lock_guard<std::mutex> g(s.m);
    try {
        if (s.init_users == 0)
            cds::Initialize();
        s.init_users++;
        if (k == CDS_GC_HP && s.hp_users++ == 0)
            s.hp = new cds::gc::HP(0, threads + 2);   /* default hazard pointers; +2: main thread(s) */
        if (k == CDS_GC_DHP && s.dhp_users++ == 0)
            s.dhp = new cds::gc::DHP();
    } catch (const std::exception &e) {
        snprintf(err, len, "libcds: %s", e.what());
        return false;
    }
    return true;
}

inline void cds_release(cds_gc_kind k)
{
    cds_lib_state &s = cds_state();
    std::lock_guard<std::mutex> g(s.m);
    if (k == CDS_GC_HP && --s.hp_users == 0) {
        delete s.hp;
        s.hp = nullptr;
    }
    if (k == CDS_GC_DHP && --s.dhp_users == 0) {
        delete s.dhp;
        s.dhp = nullptr;
    }
    if (--s.init_users == 0)
        cds::Terminate();
}

/* Attaches the calling thread for its lifetime if it is not attached yet. */
struct cds_attach_guard {
    bool mine;
    cds_attach_guard() : mine(!cds::threading::Manager::isThreadAttached())
    {
        if (mine)
            cds::threading::Manager::attachThread();
    }
    ~cds_attach_guard()
    {
        if (mine)
            cds::threading::Manager::detachThread();
    }
};

inline void cds_thread_init(void *, unsigned) { cds::threading::Manager::attachThread(); }
inline void cds_thread_exit(void *, unsigned) { cds::threading::Manager::detachThread(); }

/* Our tables' key hash (cht_hash.h's default function) as a libcds hasher;
 * the second one for cuckoo hashing. */
struct cds_hash1 {
    size_t operator()(uint64_t k) const { return (size_t)cht_hash(CHT_HASH_MIX, k); }
};
struct cds_hash2 {
    size_t operator()(uint64_t k) const { return (size_t)cht_hash_mix2(k); }
};

/* get/update touch the mapped value inside the library's find() functor while
 * other threads may do the same: libcds does not serialise that, so both
 * sides use atomic loads/stores of the 64-bit value. */
template <class Map> struct cds_map_ops {
    static bool get(Map &m, cht_key_t k, cht_val_t *v)
    {
        cht_val_t got = 0;
        bool ok = m.find(k, [&got](typename Map::value_type &item) {
            got = __atomic_load_n(&item.second, __ATOMIC_ACQUIRE);
        });
        if (ok && v)
            *v = got;
        return ok;
    }
    static bool update(Map &m, cht_key_t k, cht_val_t v)
    {
        return m.find(k, [v](typename Map::value_type &item) {
            __atomic_store_n(&item.second, v, __ATOMIC_RELEASE);
        });
    }
};

/* The cht_ops functions of a libcds map with gc=hp|dhp. Ops (per table file)
 * supplies, for either map type M: static M *make(const cht_config *, size_t n),
 * get, insert, remove, update, and static size_t node_bytes (stats estimate).
 * Every call dispatches on the table's GC with one predictable branch. */
template <class HPMap, class DHPMap, class Ops> struct cds_adapter {
    struct table {
        cds_gc_kind gc;
        void *map;
        uint64_t alloc_failures;   /* inserts refused: the node could not be allocated */
    };

    static void *create(const struct cht_config *cfg, const char *name, char *err, size_t len)
    {
        unsigned gc = CDS_GC_HP;
        if (!cht_option_enum(cfg->options, name, "gc", cds_gc_names, &gc, err, len))
            return NULL;
        double density = cfg->density > 0 ? cfg->density : 0.5;
        double want = (double)(cfg->initial ? cfg->initial : 1) / density;
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (!(want < 0x1p48) || (pages > 0 && page > 0 &&
                                 (double)cfg->initial * Ops::node_bytes > (double)pages * (double)page)) {
            snprintf(err, len, "out of memory (%zu keys at density %g: more than this machine holds)",
                     cfg->initial, density);
            return NULL;
        }
        if (!cds_acquire((cds_gc_kind)gc, cfg->max_threads, err, len))
            return NULL;
        table *t = new (std::nothrow) table{ (cds_gc_kind)gc, nullptr, 0 };
        try {
            cds_attach_guard attached;
            if (t && gc == CDS_GC_HP)
                t->map = Ops::template make<HPMap>(cfg, (size_t)want);
            else if (t)
                t->map = Ops::template make<DHPMap>(cfg, (size_t)want);
        } catch (const std::bad_alloc &) {
            snprintf(err, len, "out of memory (%.0f buckets)", want);
        } catch (const std::exception &e) {
            snprintf(err, len, "libcds: %s", e.what());
        }
        if (!t || !t->map) {
            if (!t)
                snprintf(err, len, "out of memory");
            delete t;
            cds_release((cds_gc_kind)gc);
            return NULL;
        }
        return t;
    }
    static void destroy(void *tp)
    {
        table *t = static_cast<table *>(tp);
        cds_gc_kind gc = t->gc;
        {
            cds_attach_guard attached;     /* the destructor retires every node */
            if (gc == CDS_GC_HP)
                delete static_cast<HPMap *>(t->map);
            else
                delete static_cast<DHPMap *>(t->map);
        }
        delete t;
        cds_release(gc);
    }
    static bool get(void *tp, cht_key_t k, cht_val_t *v)
    {
        table *t = static_cast<table *>(tp);
        return t->gc == CDS_GC_HP ? Ops::get(*static_cast<HPMap *>(t->map), k, v)
                                  : Ops::get(*static_cast<DHPMap *>(t->map), k, v);
    }
    /* no exception crosses the C ABI: a node that cannot be allocated (libcds throws
     * std::bad_alloc) refuses the insert and is counted, as the C tables count theirs */
    static bool insert(void *tp, cht_key_t k, cht_val_t v)
    {
        table *t = static_cast<table *>(tp);
        try {
            return t->gc == CDS_GC_HP ? Ops::insert(*static_cast<HPMap *>(t->map), k, v)
                                      : Ops::insert(*static_cast<DHPMap *>(t->map), k, v);
        } catch (const std::bad_alloc &) {
            __atomic_fetch_add(&t->alloc_failures, 1, __ATOMIC_RELAXED);
            return false;
        }
    }
    static bool remove(void *tp, cht_key_t k)
    {
        table *t = static_cast<table *>(tp);
        return t->gc == CDS_GC_HP ? Ops::remove(*static_cast<HPMap *>(t->map), k)
                                  : Ops::remove(*static_cast<DHPMap *>(t->map), k);
    }
    static bool update(void *tp, cht_key_t k, cht_val_t v)
    {
        table *t = static_cast<table *>(tp);
        return t->gc == CDS_GC_HP ? Ops::update(*static_cast<HPMap *>(t->map), k, v)
                                  : Ops::update(*static_cast<DHPMap *>(t->map), k, v);
    }
    static size_t size(void *tp)
    {
        table *t = static_cast<table *>(tp);
        return t->gc == CDS_GC_HP ? static_cast<HPMap *>(t->map)->size() : static_cast<DHPMap *>(t->map)->size();
    }
    /* bytes is an ESTIMATE: size() nodes of Ops::node_bytes plus the buckets
     * Ops::buckets reports (libcds reports no allocations) */
    static void stats(void *tp, struct cht_stats *s)
    {
        table *t = static_cast<table *>(tp);
        s->buckets = t->gc == CDS_GC_HP ? Ops::buckets(*static_cast<HPMap *>(t->map))
                                        : Ops::buckets(*static_cast<DHPMap *>(t->map));
        s->bytes = sizeof *t + size(tp) * Ops::node_bytes + s->buckets * sizeof(void *);
        s->alloc_failures = __atomic_load_n(&t->alloc_failures, __ATOMIC_RELAXED);
    }
};

} // namespace

#endif
