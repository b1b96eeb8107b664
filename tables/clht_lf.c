/*
 * clht_lf.c - CLHT-LF, the lock-free cache-line hash table.
 *
 * Source: T. David, R. Guerraoui, V. Trigonakis, "Asynchronized Concurrency:
 * The Secret to Scaling Concurrent Search Data Structures", ASPLOS 2015, as
 * described in the 2017 thesis §3.2.1 (the snapshot_t of a 4-byte version and
 * a 4-byte map of slot states). Written from the paper's description; no
 * upstream code. Upstream CLHT-LF has no overflow chains: an insert into a full
 * bucket retries until a resize makes room, and can spin forever; this one
 * chains, and never waits for space.
 *
 * Layout. A bucket is one 64-byte line: sync | key[3] | val[3] | next. Keys hash
 * with cht_hash (option hash=fold|mix|identity, default fold). A chain is a list of
 * buckets grouped into *segments* of up to five consecutive buckets (15 slots).
 * The sync word of a segment's first bucket is the segment's snapshot:
 *   bits 0-29   15 slot states, 2 bits each: EMPTY, CLAIMED (being inserted), VALID
 *   bit 30      SEALED: the segment takes no more inserts (the chain continues)
 *   bit 31      FROZEN: a resize is copying the chain; nothing may change
 *   bits 32-63  version, incremented by every change.
 * The other buckets' sync words are unused. Nearly every chain is a single
 * segment (one or two buckets), so the map is the paper's per-bucket map; making
 * one word cover several overflow buckets is what keeps a key unique across
 * overflow buckets with single-word CAS (two inserts of k claiming slots in two
 * different buckets would otherwise both publish).
 *
 * Operations.
 *  - get: the paper's shape: reads the head bucket's snapshot, compares the
 *    three keys (unrolled; a match counts only if its slot is VALID in the
 *    snapshot), reads the value on a hit, and reads the snapshot again; if it
 *    changed it starts over. A head bucket with a successor (a longer segment,
 *    a sealed one) goes to the general loop over segments. Never writes and
 *    never waits; it retries only when an update changed the same segment
 *    during its few loads (lock-free, not wait-free).
 *  - insert(k): parses the chain read-only (ASCY2/3: a present key returns with
 *    no write). Inserts go only to the chain's last, unsealed segment: CAS the
 *    snapshot to mark an EMPTY slot CLAIMED, write key and value, then publish
 *    with a second CAS that marks it VALID and bumps the version. That CAS fails
 *    if anything in the segment changed since the parse, in particular if a
 *    concurrent in-flight insert of the same key published first (thesis
 *    669-671): the insert then re-checks the segment and backs out (slot back to
 *    EMPTY, return false) if k is now VALID, or retries the publish. Earlier
 *    segments are sealed and can never gain a key, so uniqueness over the whole
 *    chain follows. A segment with no room (5 buckets, 14 slots used: one slot is
 *    kept for update) is sealed with a CAS and a new segment is appended with a
 *    CAS on `next`; a segment with fewer than 5 buckets grows by one. Appended
 *    buckets are never unlinked until the table is replaced.
 *  - remove(k): one CAS, VALID -> EMPTY, against the snapshot the parse validated.
 *  - update(k): claims an EMPTY slot of k's segment, writes k and the new value,
 *    and one CAS turns the old slot EMPTY and the new one VALID: readers see the
 *    old or the new pair, never a mix and never a gap.
 *  - resize: when the overflow buckets linked since the table was built exceed
 *    half its bucket count, one thread (resize_lock, try-only) sets FROZEN in
 *    every segment snapshot (CAS) and caps every chain with a sentinel `next`, so
 *    no claim, publish, removal or append can succeed any more; it then counts,
 *    builds a table for 1.5 keys per bucket (at least the old size: growth by at
 *    least 2x when loaded, an in-place rebuild that drops sealed garbage when the
 *    overflow came from skew), copies the VALID pairs and publishes it. Claims
 *    that were in flight die with the old table; their inserts restart on the new
 *    one. Out of memory: everything is unfrozen and the table keeps chaining.
 *
 * Progress. Outside resizes the table is lock-free: no operation ever waits for
 * another; a CAS fails only because another operation's CAS succeeded, and the
 * successful CASes of an operation are its claim, its publish (or back-out),
 * its removal or swap, plus appends and seals that make room. get is lock-free
 * as above. Exceptions: (1) during a resize, updaters that touch a frozen chain
 * wait for the new table (blocking); gets never wait and read the frozen table.
 * (2) update on a segment whose 15 slots are all in use waits for a concurrent
 * update of that segment to finish (only possible with 14 keys in one segment).
 * (3) a theoretical livelock: a segment filled by in-flight claims gets sealed,
 * which sends those inserts to a new segment; an adversarial schedule of 15 or
 * more inserters on one chain could repeat this, but every round appends
 * buckets, which soon triggers the resize that spreads the chain.
 * Versions are 32 bits: a snapshot ABA needs 2^32 changes of one segment
 * between two loads of one operation.
 *
 * Reclamation: retired tables (bucket arrays and overflow buckets) go through
 * quiescent-state-based reclamation (ebr.h, QSBR), as in clht_lb.c: online
 * from thread_init to thread_exit, a quiescent point announced at the start of
 * every QSBR_EVERY-th insert/remove/update, nothing at all in get. Buckets
 * lost in an append race were never visible and are freed at once. destroy()
 * frees everything.
 * Memory order: key and value are stored with release stores after the claim
 * CAS, so a reader that reads them (acquire) also sees the claim, and its
 * snapshot re-check fails, on CPUs that are not multi-copy atomic too.
 *
 * size(): per-thread padded counters (+1 publish, -1 remove), summed.
 */
#include <sched.h>
#include <stdalign.h>
#include "cht.h"
#include "cht_atomic.h"
#include "cht_hash.h"
#include "ebr.h"
#include "table_support.h"

#define LF_SLOTS 3
#define SEG_BUCKETS 5
#define SEG_SLOTS (SEG_BUCKETS * LF_SLOTS)  /* 15 */
#define SEG_INS_CAP (SEG_SLOTS - 1)         /* inserts leave one slot for update */

#define ST_EMPTY 0u
#define ST_CLAIMED 1u
#define ST_VALID 2u
#define W_LOW 0x15555555ull                 /* bit 2p for every slot p */
#define W_SEALED (1ull << 30)
#define W_FROZEN (1ull << 31)
#define W_VER (1ull << 32)

struct lf_bucket {
    alignas(64) uint64_t sync;
    cht_key_t key[LF_SLOTS];
    cht_val_t val[LF_SLOTS];
    struct lf_bucket *next;
};
_Static_assert(sizeof(struct lf_bucket) == 64, "a bucket is one cache line");

#define SENTINEL ((struct lf_bucket *)(uintptr_t)1)  /* caps a frozen chain */

struct clht_lf;

struct lf_table {
    struct lf_bucket *b;
    uint64_t mask;
    size_t nb;
    size_t map_bytes;
    bool mmapped;
    struct lf_bucket *blk;      /* overflow buckets made by the resize copy */
    size_t blk_n;
    struct clht_lf *owner;
    size_t retired_bytes;
    struct ebr_node retire;
    alignas(64) uint64_t overflow;  /* atomic; appends are rare */
    uint64_t thresh;
    uint32_t migrating;         /* a resize is freezing/copying this table */
};

struct clht_lf {
    alignas(64) struct lf_table *cur;
    enum cht_hash_kind hash;
    unsigned nthreads;
    struct reclaim *rc;         /* reclamation domain (ebr.h: QSBR by default) */
    struct cht_thread_counter *count;
    alignas(64) uint32_t resize_lock;
    uint64_t resizes;
    uint64_t full_failures;
    size_t retired_bytes;
    bool hugepages;             /* cht_config.hugepages, for the tables a resize maps */
};

static __thread unsigned lf_tid __attribute__((tls_model("initial-exec")));

static const struct cht_option_spec lf_options[] = {
    CHT_HASH_OPTION,
    { NULL, NULL },
};

/* ---------------- snapshot words ---------------- */

static inline unsigned st_get(uint64_t w, unsigned p) { return (unsigned)(w >> (2 * p)) & 3u; }

static inline uint64_t st_set(uint64_t w, unsigned p, unsigned s)
{
    return (w & ~(3ull << (2 * p))) | ((uint64_t)s << (2 * p));
}

static inline uint64_t valid_bits(uint64_t w) { return (w >> 1) & ~w & W_LOW; }
static inline uint64_t used_bits(uint64_t w) { return (w | (w >> 1)) & W_LOW; }
static inline uint64_t slots_of(unsigned nbk) { return W_LOW & ((1ull << (6 * nbk)) - 1); }

/* ---------------- helpers ---------------- */

/* pause; every 64th spin yields instead (oversubscribed runs) */
static inline void spin_wait(unsigned *spins)
{
    cht_spin_yield(spins, 64);
}

#define LF_MAX_BUCKETS (1ull << 34)

static struct lf_table *table_new(size_t nb, bool huge)
{
    if (nb == 0 || nb > LF_MAX_BUCKETS)
        return NULL;
    struct lf_table *T = cht_alloc_zeroed(sizeof *T);
    if (!T)
        return NULL;
    size_t bytes = nb * sizeof(struct lf_bucket);
    T->b = cht_alloc_large(bytes, huge, &T->mmapped);
    if (!T->b) {
        free(T);
        return NULL;
    }
    T->map_bytes = bytes;
    T->nb = nb;
    T->mask = nb - 1;
    T->thresh = nb / 2 ? nb / 2 : 1;
    return T;
}

static void table_free(struct lf_table *T)
{
    struct lf_bucket *lo = T->blk, *hi = T->blk + T->blk_n;
    for (size_t i = 0; i < T->nb; i++) {
        struct lf_bucket *o = T->b[i].next;
        while (o && o != SENTINEL) {
            struct lf_bucket *n = o->next;
            if (o < lo || o >= hi)
                free(o);
            o = n;
        }
    }
    free(T->blk);
    cht_free_large(T->b, T->map_bytes, T->mmapped);
    free(T);
}

static size_t table_bytes(struct lf_table *T)
{
    return sizeof *T + T->map_bytes + CHT_LD(&T->overflow, RELAXED) * sizeof(struct lf_bucket);
}

static void table_free_node(struct ebr_node *n)
{
    struct lf_table *T = (struct lf_table *)((char *)n - offsetof(struct lf_table, retire));
    __atomic_sub_fetch(&T->owner->retired_bytes, T->retired_bytes, __ATOMIC_RELAXED);
    table_free(T);
}

/* The buckets of the segment that starts at S, as far as they are linked now. */
struct seg {
    struct lf_bucket *bk[SEG_BUCKETS];
    unsigned nbk;
    struct lf_bucket *after;    /* next of the last bucket: NULL, SENTINEL or the next segment */
};

static inline void seg_walk(struct lf_bucket *S, struct seg *g)
{
    struct lf_bucket *b = S;
    unsigned n = 0;
    for (;;) {
        g->bk[n++] = b;
        struct lf_bucket *nx = CHT_LD(&b->next, ACQUIRE);
        if (n == SEG_BUCKETS || !nx || nx == SENTINEL) {
            g->nbk = n;
            g->after = nx;
            return;
        }
        b = nx;
    }
}

/* Waits while T is being migrated. true: T was replaced (restart on the new
 * table); false: the resize gave up (out of memory) and T is live again. */
static bool wait_migration(struct clht_lf *h, struct lf_table *T)
{
    unsigned spins = 0;
    for (;;) {
        if (CHT_LD(&h->cur, ACQUIRE) != T)
            return true;
        if (!CHT_LD(&T->migrating, ACQUIRE))
            return false;
        spin_wait(&spins);
    }
}

enum { SCAN_ABSENT, SCAN_FOUND, SCAN_FROZEN };

struct scan {
    struct lf_bucket *S;        /* segment of the hit, or the last segment */
    uint64_t w;                 /* its validated snapshot */
    struct seg g;
    unsigned p;                 /* slot of the hit */
};

/* Finds VALID k in the segment at S under a stable snapshot. */
static inline bool seg_find(struct lf_bucket *S, cht_key_t k, struct scan *r)
{
    for (;;) {
        uint64_t w = CHT_LD(&S->sync, ACQUIRE);
        seg_walk(S, &r->g);
        bool hit = false;
        for (uint64_t m = valid_bits(w); m; m &= m - 1) {
            unsigned p = (unsigned)__builtin_ctzll(m) >> 1;
            if (p / LF_SLOTS < r->g.nbk && CHT_LD(&r->g.bk[p / LF_SLOTS]->key[p % LF_SLOTS], ACQUIRE) == k) {
                r->p = p;
                hit = true;
                break;
            }
        }
        if (CHT_LD(&S->sync, ACQUIRE) == w) {
            r->S = S;
            r->w = w;
            return hit;
        }
    }
}

/* Parses the whole chain (read-only). */
static int chain_scan(struct lf_bucket *S, cht_key_t k, struct scan *r)
{
    for (;;) {
        bool hit = seg_find(S, k, r);
        if (r->w & W_FROZEN)
            return SCAN_FROZEN;
        if (hit)
            return SCAN_FOUND;
        if (!(r->w & W_SEALED) || r->g.after == NULL)
            return SCAN_ABSENT;             /* last segment (or the next is not appended yet) */
        if (r->g.after == SENTINEL)
            return SCAN_FROZEN;
        S = r->g.after;
    }
}

/* Test hook: tests/test_clht_grow.c defines it to play another thread that
 * resizes T right after this append crossed T's threshold. */
#ifndef LF_TEST_AFTER_GROW
#define LF_TEST_AFTER_GROW(h, T) ((void)0)
#endif

/* Links a fresh bucket after `last`. Returns false only when out of memory.
 * *grow = T when this append took T's overflow past its threshold: the caller
 * resizes that table, not whatever table is current by then (another thread
 * may have replaced T meanwhile; resizing the new one would be spurious). */
static bool append(struct clht_lf *h, struct lf_table *T, struct lf_bucket *last,
                   struct lf_table **grow)
{
    struct lf_bucket *o = cht_alloc_zeroed(sizeof *o);
    if (!o) {
        __atomic_add_fetch(&h->full_failures, 1, __ATOMIC_RELAXED);
        return false;
    }
    struct lf_bucket *expect = NULL;
    if (!CHT_CAS(&last->next, &expect, o, ACQ_REL, ACQUIRE)) {
        free(o);                    /* lost the race (or the chain froze): never visible */
        return true;
    }
    if (__atomic_add_fetch(&T->overflow, 1, __ATOMIC_RELAXED) > CHT_LD(&T->thresh, RELAXED)) {
        *grow = T;
        LF_TEST_AFTER_GROW(h, T);
    }
    return true;
}

/* Gives a claimed slot back. false: the table was replaced meanwhile (the claim
 * died with it). */
static bool release_slot(struct clht_lf *h, struct lf_table *T, struct lf_bucket *S, unsigned p)
{
    uint64_t w = CHT_LD(&S->sync, ACQUIRE);
    for (;;) {
        if (w & W_FROZEN) {
            if (wait_migration(h, T))
                return false;
            w = CHT_LD(&S->sync, ACQUIRE);
            continue;
        }
        if (CHT_CAS(&S->sync, &w, st_set(w, p, ST_EMPTY) + W_VER, ACQ_REL, ACQUIRE))
            return true;
    }
}

/* ---------------- create / destroy / threads ---------------- */

static void *lf_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    if (!cht_option_enum(cfg->options, "clht-lf", "hash", cht_hash_names, &hash, err, len))
        return NULL;
    uint64_t nb = cht_initial_buckets(cfg, LF_SLOTS, LF_MAX_BUCKETS, err, len);
    if (!nb)
        return NULL;
    unsigned threads = cfg->max_threads ? cfg->max_threads : 1;

    struct clht_lf *h = cht_alloc_zeroed(sizeof *h);
    if (!h) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    h->hash = hash;
    h->nthreads = threads;
    h->count = cht_thread_counters_new(threads);
    h->rc = reclaim_create(threads);
    h->hugepages = cfg->hugepages;
    struct lf_table *T = table_new(nb, h->hugepages);
    if (!h->count || !h->rc || !T) {
        snprintf(err, len, "out of memory (%llu buckets of 64 bytes)", (unsigned long long)nb);
        free(h->count);
        reclaim_destroy(h->rc);
        if (T)
            table_free(T);
        free(h);
        return NULL;
    }
    T->owner = h;
    h->cur = T;
    return h;
}

static void lf_destroy(void *tp)
{
    struct clht_lf *h = tp;
    reclaim_destroy(h->rc);
    table_free(h->cur);
    free(h->count);
    free(h);
}

static void lf_thread_init(void *tp, unsigned tid)
{
    struct clht_lf *h = tp;
    lf_tid = cht_thread_slot(tid, h->nthreads);
    reclaim_thread_init(h->rc, lf_tid);
}

static void lf_thread_exit(void *tp, unsigned tid)
{
    struct clht_lf *h = tp;
    (void)tid;
    reclaim_thread_exit(h->rc, lf_tid);
}

/* ---------------- resize ---------------- */

/* Freezes every segment of chain `head` and caps it with SENTINEL. */
static void freeze_chain(struct lf_bucket *head)
{
    struct lf_bucket *b = head;
    for (unsigned c = 0;; c++) {
        if (c % SEG_BUCKETS == 0) {
            uint64_t w = CHT_LD(&b->sync, ACQUIRE);
            while (!(w & W_FROZEN) && !CHT_CAS(&b->sync, &w, (w | W_FROZEN) + W_VER, ACQ_REL, ACQUIRE))
                ;
        }
        struct lf_bucket *nx = CHT_LD(&b->next, ACQUIRE);
        if (!nx) {
            if (CHT_CAS(&b->next, &nx, SENTINEL, ACQ_REL, ACQUIRE))
                return;
            /* someone appended: nx now holds it */
        }
        b = nx;
    }
}

static void unfreeze_chain(struct lf_bucket *head)
{
    struct lf_bucket *b = head;
    for (unsigned c = 0;; c++) {
        if (c % SEG_BUCKETS == 0) {
            /* nobody CASes a frozen word: a plain store is enough */
            uint64_t w = CHT_LD(&b->sync, RELAXED);
            CHT_ST(&b->sync, (w & ~W_FROZEN) + W_VER, RELEASE);
        }
        struct lf_bucket *nx = CHT_LD(&b->next, RELAXED);
        if (nx == SENTINEL) {
            CHT_ST(&b->next, (struct lf_bucket *)NULL, RELEASE);
            return;
        }
        b = nx;
    }
}

/* Calls fn(k, v, arg) for every VALID pair of a frozen chain. */
#define FOR_EACH_VALID(head, KEY, VAL, BODY)                                          \
    do {                                                                              \
        struct lf_bucket *b_ = (head);                                                \
        uint64_t w_ = 0;                                                              \
        for (unsigned c_ = 0; b_ && b_ != SENTINEL; c_++, b_ = CHT_LD(&b_->next, RELAXED)) {  \
            if (c_ % SEG_BUCKETS == 0)                                                \
                w_ = CHT_LD(&b_->sync, RELAXED);                                              \
            for (unsigned j_ = 0; j_ < LF_SLOTS; j_++) {                              \
                if (st_get(w_, (c_ % SEG_BUCKETS) * LF_SLOTS + j_) != ST_VALID)       \
                    continue;                                                         \
                cht_key_t KEY = CHT_LD(&b_->key[j_], RELAXED);                                \
                cht_val_t VAL = CHT_LD(&b_->val[j_], RELAXED);                                \
                BODY;                                                                 \
            }                                                                         \
        }                                                                             \
    } while (0)

/* buckets a chain of c keys needs when packed 14 to a segment */
static inline size_t chain_buckets(uint64_t c)
{
    if (c == 0)
        return 1;
    return (size_t)((c - 1) / SEG_INS_CAP) * SEG_BUCKETS + (size_t)((c - 1) % SEG_INS_CAP) / LF_SLOTS + 1;
}

struct placer {
    struct lf_bucket *tail, *seg;
    uint64_t n;
};

static void lf_resize(struct clht_lf *h, struct lf_table *seen)
{
    uint32_t unlocked = 0;
    if (!__atomic_compare_exchange_n(&h->resize_lock, &unlocked, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return;
    struct lf_table *T = CHT_LD(&h->cur, ACQUIRE);
    if (T != seen) {
        CHT_ST(&h->resize_lock, 0, RELEASE);
        return;
    }
    CHT_ST(&T->migrating, 1, RELEASE);
    for (size_t i = 0; i < T->nb; i++)
        freeze_chain(&T->b[i]);

    size_t n = 0;
    for (size_t i = 0; i < T->nb; i++)
        FOR_EACH_VALID(&T->b[i], k, v, { (void)k; (void)v; n++; });
    uint64_t nb = cht_pow2_at_least((n * 2 + 2) / 3, 1);
    if (nb < T->nb)
        nb = T->nb;
    struct lf_table *N = table_new(nb, h->hugepages);
    struct placer *pl = N ? calloc(nb, sizeof *pl) : NULL;
    if (!pl)
        goto fail;
    for (size_t i = 0; i < T->nb; i++)
        FOR_EACH_VALID(&T->b[i], k, v, { (void)v; pl[cht_hash(h->hash, k) & N->mask].n++; });
    size_t ovf = 0;
    for (size_t i = 0; i < nb; i++)
        ovf += chain_buckets(pl[i].n) - 1;
    if (ovf) {
        N->blk = cht_alloc_zeroed(ovf * sizeof *N->blk);
        if (!N->blk)
            goto fail;
        N->blk_n = ovf;
    }
    /* copy, packing 14 keys per segment; N is private until published */
    for (size_t i = 0; i < nb; i++)
        pl[i] = (struct placer){ .tail = &N->b[i], .seg = &N->b[i], .n = 0 };
    size_t used = 0;
    for (size_t i = 0; i < T->nb; i++)
        FOR_EACH_VALID(&T->b[i], k, v, {
            struct placer *q = &pl[cht_hash(h->hash, k) & N->mask];
            uint64_t idx = q->n++;
            unsigned p = (unsigned)(idx % SEG_INS_CAP);
            if (idx > 0 && p % LF_SLOTS == 0) {
                struct lf_bucket *o = &N->blk[used++];
                q->tail->next = o;
                q->tail = o;
                if (p == 0) {               /* a new segment: seal the previous one */
                    q->seg->sync |= W_SEALED;
                    q->seg = o;
                }
            }
            q->tail->key[p % LF_SLOTS] = k;
            q->tail->val[p % LF_SLOTS] = v;
            q->seg->sync = st_set(q->seg->sync, p, ST_VALID);
        });
    free(pl);
    N->overflow = ovf;
    N->thresh = (nb / 2 ? nb / 2 : 1) + ovf;
    N->owner = h;
    T->retired_bytes = table_bytes(T);
    __atomic_add_fetch(&h->retired_bytes, T->retired_bytes, __ATOMIC_RELAXED);
    CHT_ST(&h->cur, N, RELEASE);
    __atomic_add_fetch(&h->resizes, 1, __ATOMIC_RELAXED);
    CHT_ST(&h->resize_lock, 0, RELEASE);
    reclaim_retire(h->rc, &T->retire, table_free_node);
    return;

fail:
    free(pl);
    if (N)
        table_free(N);
    for (size_t i = 0; i < T->nb; i++)
        unfreeze_chain(&T->b[i]);
    __atomic_store_n(&T->thresh, CHT_LD(&T->thresh, RELAXED) * 2, __ATOMIC_RELAXED);
    CHT_ST(&T->migrating, 0, RELEASE);
    CHT_ST(&h->resize_lock, 0, RELEASE);
}

/* ---------------- operations ---------------- */

/* get's general path, from segment S on: segments of several buckets and
 * sealed segments (rare: chains longer than one bucket). */
static __attribute__((noinline)) bool lf_get_chain(struct lf_bucket *S, cht_key_t k, cht_val_t *out)
{
    while (S) {
        uint64_t w = CHT_LD(&S->sync, ACQUIRE);
        uint64_t m = valid_bits(w);
        struct lf_bucket *b = S;
        unsigned bi = 0;
        int hit = -1;
        bool torn = false;
        cht_val_t v = 0;
        for (;;) {
            unsigned mb = (unsigned)(m >> (6 * bi));
            for (unsigned j = 0; j < LF_SLOTS; j++)
                if ((mb >> (2 * j) & 1) && CHT_LD(&b->key[j], ACQUIRE) == k) {
                    v = CHT_LD(&b->val[j], ACQUIRE);
                    hit = (int)j;
                    break;
                }
            if (hit >= 0 || bi == SEG_BUCKETS - 1)
                break;
            if (!(w & W_SEALED) && !(m >> (6 * (bi + 1))))
                break;                  /* nothing valid further on, no next segment */
            b = CHT_LD(&b->next, ACQUIRE);
            if (!b || b == SENTINEL) {
                torn = true;            /* cannot happen under a stable snapshot */
                break;
            }
            bi++;
        }
        if (CHT_LD(&S->sync, ACQUIRE) != w || torn)
            continue;                   /* the segment changed under us: read it again */
        if (hit >= 0) {
            if (out)
                *out = v;
            return true;
        }
        if (!(w & W_SEALED))
            return false;               /* the last segment */
        S = CHT_LD(&b->next, ACQUIRE);           /* b is the segment's fifth bucket */
        if (S == SENTINEL)
            S = NULL;
    }
    return false;
}

/* Every QSBR_EVERY update operations of a thread: announce a quiescent point
 * (ebr.h). get does no reclamation work (as in clht_lb.c). */
static __attribute__((noinline, cold)) void lf_quiescent(struct clht_lf *h)
{
    reclaim_quiescent(h->rc, lf_tid);
}

/* get from a head bucket that has a successor (a longer segment, a sealed
 * one, or a frozen chain's sentinel): the general path, then the end of the
 * operation. */
static __attribute__((noinline)) bool lf_get_long(struct clht_lf *h, struct lf_bucket *S,
                                                  cht_key_t k, cht_val_t *out)
{
    bool found = lf_get_chain(S, k, out);
    reclaim_end(h->rc, lf_tid);
    return found;
}

/* The paper's get: one snapshot read, the three slots of the head bucket
 * (unrolled: the key first, its VALID bit only on a match), the value on a
 * hit, and the snapshot again. If the head bucket has no successor (`next`
 * read after the snapshot is NULL), the snapshot has no VALID slot beyond it
 * and no later segment: slots beyond the head only become VALID by a CAS on
 * the snapshot after the bucket holding them was linked, and a sealed segment
 * has five buckets. Otherwise the general path (lf_get_long) runs; it is
 * reached by a tail call, so the common path saves no registers. */
static bool lf_get(void *tp, cht_key_t k, cht_val_t *out)
{
    _Static_assert(LF_SLOTS == 3, "the scan below is unrolled for 3 slots");
    struct clht_lf *h = tp;
    uint64_t hv = cht_hash(h->hash, k);
    reclaim_begin(h->rc, lf_tid);
    struct lf_table *T = CHT_LD(&h->cur, ACQUIRE);
    struct lf_bucket *S = &T->b[hv & T->mask];
    bool found;
    for (;;) {
        uint64_t w = CHT_LD(&S->sync, ACQUIRE);
        if (__builtin_expect(CHT_LD(&S->next, ACQUIRE) != NULL, 0))
            return lf_get_long(h, S, k, out);
        cht_val_t v = 0;
        found = false;
        if (CHT_LD(&S->key[0], ACQUIRE) == k && st_get(w, 0) == ST_VALID) {
            v = CHT_LD(&S->val[0], ACQUIRE);
            found = true;
        } else if (CHT_LD(&S->key[1], ACQUIRE) == k && st_get(w, 1) == ST_VALID) {
            v = CHT_LD(&S->val[1], ACQUIRE);
            found = true;
        } else if (CHT_LD(&S->key[2], ACQUIRE) == k && st_get(w, 2) == ST_VALID) {
            v = CHT_LD(&S->val[2], ACQUIRE);
            found = true;
        }
        if (__builtin_expect(CHT_LD(&S->sync, ACQUIRE) != w, 0))
            continue;                   /* changed under us: read it again */
        if (found && out)
            *out = v;
        break;
    }
    reclaim_end(h->rc, lf_tid);
    return found;
}

static bool lf_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct clht_lf *h = tp;
    if (reclaim_due())
        lf_quiescent(h);
    unsigned tid = lf_tid;
    uint64_t hv = cht_hash(h->hash, k);
    bool ok = false;
    struct lf_table *T, *grow = NULL;
    struct scan r;
    reclaim_begin(h->rc, tid);
restart:
    for (;;) {
        T = CHT_LD(&h->cur, ACQUIRE);
        int res = chain_scan(&T->b[hv & T->mask], k, &r);
        if (res == SCAN_FOUND)
            goto done;                          /* present: nothing written */
        if (res == SCAN_FROZEN) {
            wait_migration(h, T);
            continue;
        }
        struct lf_bucket *S = r.S;
        uint64_t w = r.w;
        if (w & W_SEALED) {                     /* sealed, next segment missing: add it */
            if (!append(h, T, r.g.bk[SEG_BUCKETS - 1], &grow))
                goto done;
            continue;
        }
        uint64_t free_slots = ~used_bits(w) & slots_of(r.g.nbk);
        bool room = free_slots &&
                    (r.g.nbk < SEG_BUCKETS || __builtin_popcountll(used_bits(w)) < SEG_INS_CAP);
        if (!room) {
            if (r.g.nbk < SEG_BUCKETS) {
                if (r.g.after == SENTINEL)
                    continue;                   /* frozen meanwhile: the scan will see it */
                if (!append(h, T, r.g.bk[r.g.nbk - 1], &grow))
                    goto done;
            } else {
                CHT_CAS(&S->sync, &w, (w | W_SEALED) + W_VER, ACQ_REL, ACQUIRE);
            }
            continue;
        }
        unsigned p = (unsigned)__builtin_ctzll(free_slots) >> 1;
        uint64_t cw = st_set(w, p, ST_CLAIMED) + W_VER;
        if (!CHT_CAS(&S->sync, &w, cw, ACQ_REL, ACQUIRE))
            continue;
        struct lf_bucket *b = r.g.bk[p / LF_SLOTS];
        /* release: a reader whose acquire load reads these also sees the claim
         * (then its snapshot re-check fails), on any CPU, not only on
         * multi-copy-atomic ones (free on x86) */
        CHT_ST(&b->key[p % LF_SLOTS], k, RELEASE);
        CHT_ST(&b->val[p % LF_SLOTS], v, RELEASE);
        for (;;) {
            if (CHT_CAS(&S->sync, &cw, st_set(cw, p, ST_VALID) + W_VER, ACQ_REL, ACQUIRE)) {
                ok = true;
                goto done;
            }
            /* The segment changed since it was validated; cw holds its snapshot
             * now. Every path back to the CAS above re-validates cw first. */
        check:
            if (cw & W_FROZEN) {
                if (wait_migration(h, T))
                    goto restart;               /* the claim died with the old table */
                cw = CHT_LD(&S->sync, ACQUIRE);          /* the resize gave up: T is live again */
                goto check;
            }
            if (cw & W_SEALED) {                /* may not publish in a sealed segment */
                release_slot(h, T, S, p);
                goto restart;
            }
            struct scan r2;
            bool dup = seg_find(S, k, &r2);
            cw = r2.w;
            if (cw & (W_FROZEN | W_SEALED))
                goto check;
            if (dup) {                          /* a concurrent insert of k won */
                release_slot(h, T, S, p);
                goto done;
            }
        }
    }
done:
    if (ok)
        cht_thread_counter_add(&h->count[tid].n, 1);
    reclaim_end(h->rc, tid);
    if (grow)
        lf_resize(h, grow);
    return ok;
}

static bool lf_remove(void *tp, cht_key_t k)
{
    struct clht_lf *h = tp;
    if (reclaim_due())
        lf_quiescent(h);
    unsigned tid = lf_tid;
    uint64_t hv = cht_hash(h->hash, k);
    bool ok = false;
    struct scan r;
    reclaim_begin(h->rc, tid);
    for (;;) {
        struct lf_table *T = CHT_LD(&h->cur, ACQUIRE);
        int res = chain_scan(&T->b[hv & T->mask], k, &r);
        if (res == SCAN_ABSENT)
            break;                              /* absent: nothing written */
        if (res == SCAN_FROZEN) {
            wait_migration(h, T);
            continue;
        }
        uint64_t w = r.w;
        if (CHT_CAS(&r.S->sync, &w, st_set(w, r.p, ST_EMPTY) + W_VER, ACQ_REL, ACQUIRE)) {
            ok = true;
            break;
        }
    }
    if (ok)
        cht_thread_counter_add(&h->count[tid].n, -1);
    reclaim_end(h->rc, tid);
    return ok;
}

static bool lf_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct clht_lf *h = tp;
    if (reclaim_due())
        lf_quiescent(h);
    unsigned tid = lf_tid;
    uint64_t hv = cht_hash(h->hash, k);
    bool ok = false;
    struct lf_table *T, *grow = NULL;
    struct scan r;
    unsigned spins = 0;
    reclaim_begin(h->rc, tid);
restart:
    for (;;) {
        T = CHT_LD(&h->cur, ACQUIRE);
        int res = chain_scan(&T->b[hv & T->mask], k, &r);
        if (res == SCAN_ABSENT)
            goto done;
        if (res == SCAN_FROZEN) {
            wait_migration(h, T);
            continue;
        }
        struct lf_bucket *S = r.S;
        uint64_t w = r.w;
        unsigned a = r.p;
        uint64_t free_slots = ~used_bits(w) & slots_of(r.g.nbk);
        if (!free_slots) {
            if (r.g.nbk < SEG_BUCKETS && r.g.after == NULL) {
                if (!append(h, T, r.g.bk[r.g.nbk - 1], &grow))
                    goto done;
            } else {
                spin_wait(&spins);              /* a concurrent update holds the spare slot */
            }
            continue;
        }
        unsigned p = (unsigned)__builtin_ctzll(free_slots) >> 1;
        uint64_t cw = st_set(w, p, ST_CLAIMED) + W_VER;
        if (!CHT_CAS(&S->sync, &w, cw, ACQ_REL, ACQUIRE))
            continue;
        struct lf_bucket *b = r.g.bk[p / LF_SLOTS];
        /* release: a reader whose acquire load reads these also sees the claim
         * (then its snapshot re-check fails), on any CPU, not only on
         * multi-copy-atomic ones (free on x86) */
        CHT_ST(&b->key[p % LF_SLOTS], k, RELEASE);
        CHT_ST(&b->val[p % LF_SLOTS], v, RELEASE);
        for (;;) {
            uint64_t sw = st_set(st_set(cw, a, ST_EMPTY), p, ST_VALID) + W_VER;
            if (CHT_CAS(&S->sync, &cw, sw, ACQ_REL, ACQUIRE)) {
                ok = true;
                goto done;
            }
            /* the segment changed; every path back to the CAS re-validates cw */
        recheck:
            if (cw & W_FROZEN) {
                if (wait_migration(h, T))
                    goto restart;
                cw = CHT_LD(&S->sync, ACQUIRE);
                goto recheck;
            }
            /* still k in slot a? (it may have been removed, or moved by another update) */
            if (st_get(cw, a) == ST_VALID) {
                struct lf_bucket *ab = S;
                for (unsigned i = 0; i < a / LF_SLOTS; i++)
                    ab = CHT_LD(&ab->next, ACQUIRE);
                cht_key_t kk = CHT_LD(&ab->key[a % LF_SLOTS], ACQUIRE);
                uint64_t cw2 = CHT_LD(&S->sync, ACQUIRE);
                if (cw2 != cw) {
                    cw = cw2;
                    goto recheck;
                }
                if (kk == k)
                    continue;
            }
            release_slot(h, T, S, p);
            goto restart;
        }
    }
done:
    reclaim_end(h->rc, tid);
    if (grow)
        lf_resize(h, grow);
    return ok;
}

static size_t lf_size(void *tp)
{
    struct clht_lf *h = tp;
    return cht_count_as_size(cht_thread_counters_sum(h->count, h->nthreads));
}

static void lf_stats(void *tp, struct cht_stats *s)
{
    struct clht_lf *h = tp;
    unsigned spins = 0;
    uint32_t unlocked = 0;
    while (!__atomic_compare_exchange_n(&h->resize_lock, &unlocked, 1, false, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
        unlocked = 0;
        spin_wait(&spins);
    }
    struct lf_table *T = CHT_LD(&h->cur, ACQUIRE);
    s->bytes = sizeof *h + sizeof *h->count * h->nthreads + sizeof *h->rc +
               sizeof *h->rc->slot * h->rc->nslots + table_bytes(T) +
               CHT_LD(&h->retired_bytes, RELAXED);
    s->buckets = T->nb;
    s->resizes = CHT_LD(&h->resizes, RELAXED);
    s->full_failures = CHT_LD(&h->full_failures, RELAXED);
    CHT_ST(&h->resize_lock, 0, RELEASE);
}

const struct cht_ops cht_table_clht_lf = {
    .name = "clht-lf",
    .summary = "CLHT-LF: cache-line buckets, lock-free snapshot CAS updates (David, Guerraoui, Trigonakis, \"Asynchronized Concurrency: The Secret to Scaling Concurrent Search Data Structures\", ASPLOS'15)",
    .caps = CHT_CAP_RESIZE | CHT_CAP_UPDATE,
    .options = lf_options,
    .create = lf_create,
    .destroy = lf_destroy,
    .thread_init = lf_thread_init,
    .thread_exit = lf_thread_exit,
    .get = lf_get,
    .insert = lf_insert,
    .remove = lf_remove,
    .update = lf_update,
    .size = lf_size,
    .stats = lf_stats,
};
