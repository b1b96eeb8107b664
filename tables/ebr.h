/*
 * ebr.h - safe memory reclamation for the tables in tables/: epoch-based
 * reclamation (EBR, this comment) and quiescent-state-based reclamation (QSBR,
 * below), behind one reclaim_* interface; clht-lb and clht-lf use QSBR.
 *
 * What it is for: a table unlinks an object (an old bucket array after a
 * resize, an unlinked node) that concurrent readers may still be traversing.
 * It hands the object to ebr_retire(); the object's free function runs once
 * every thread that could still hold a reference has left its critical section.
 * Scheme: Fraser's three-epoch EBR (K. Fraser, "Practical lock-freedom", PhD
 * thesis, Cambridge 2004, §5.2.3; also Hart et al., "Performance of memory
 * reclamation for lockless synchronization", JPDC 2007).
 *
 *   - one global epoch E;
 *   - one cache-line-padded slot per thread id: 0 while the thread is outside a
 *     critical section, (epoch << 1) | 1 while inside one;
 *   - ebr_enter() announces the current epoch before the thread reads any
 *     shared pointer; ebr_exit() clears the slot (release);
 *   - E may advance to E+1 only when every active slot announces E;
 *   - an object retired while the epoch was r is freed once E >= r + 2: by then
 *     every thread that was inside a critical section when the object was
 *     unlinked has left it.
 *
 * API (all functions are thread safe unless noted):
 *   ebr_create(n, fence)   a domain for thread ids 0..n-1; NULL when out of memory.
 *                          fence: ebr_enter uses a locked exchange (see below).
 *   ebr_destroy(e)         runs every pending free function and frees the domain.
 *                          No thread may be inside a critical section (quiescent).
 *   ebr_enter(e, tid)      start of a critical section (an operation). Not nestable.
 *   ebr_exit(e, tid)       end of it.
 *   ebr_thread_offline(e, tid)  the thread will not operate for a while (thread_exit):
 *                          same as ebr_exit, plus an attempt to reclaim.
 *   ebr_retire(e, node, fn)  node is embedded in the unlinked object (intrusive: no
 *                          allocation, so retiring never fails); fn(node) frees the
 *                          object later, called from whichever thread reclaims.
 *                          The object must already be unreachable for new readers.
 *                          fn runs with the domain's mutex held: it must not call
 *                          back into the domain.
 *   ebr_collect(e)         tries to advance the epoch (at most twice) and frees what
 *                          is safe. Called by ebr_retire and ebr_thread_offline; a
 *                          table may call it at other rare points.
 *   ebr_pending(e)         retired objects not yet freed (for tests/diagnostics).
 *
 * The store-load ordering that ebr_enter needs (announce, then read pointers)
 * comes from an asymmetric barrier: on Linux the reclaimer calls
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) before it reads the slots, which
 * runs a full barrier on every CPU running one of our threads, so ebr_enter is
 * a plain store plus a compiler barrier (the technique of liburcu's "memb"
 * flavour). Where membarrier is missing (old kernel, seccomp), or when the
 * domain is created with fence=true (hotring:fence=1), ebr_enter falls back
 * to a locked exchange (a full barrier). Measured (clht-lb, hash=identity, u=10, 2-vCPU
 * VM shared with other jobs, medians of 7 interleaved runs): the locked
 * exchange costs 0-6% (i=1K: +0.7% at 1 thread, -5.8% at 2; i=1M: -4.4% and
 * -2.2%), not the third of the throughput an earlier comment here claimed.
 *
 * Cost: ebr_enter loads the epoch (a read-mostly line), the slot array
 * pointer and the mode flag and stores to the thread's own line; ebr_exit
 * loads the slot pointer again and stores. With the table's pointer to the
 * domain that is ~20 instructions and ~6 loads per operation (measured with
 * callgrind on clht-lb, see QSBR below), which is why clht uses QSBR.
 * Retire/collect take a mutex and a membarrier: they are meant for rare events
 * (resizes).
 * Memory bound: an object waits for at most two epoch advances; an advance only
 * waits for the critical sections in progress, so with short operations pending
 * objects are freed by the next collect after the ones in flight end.
 */
#ifndef CHT_EBR_H
#define CHT_EBR_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

struct ebr_node {
    struct ebr_node *next;
    uint64_t epoch;                      /* global epoch when retired */
    void (*free_fn)(struct ebr_node *);
};

struct ebr_slot {
    alignas(64) uint64_t state;          /* 0 = quiescent, (epoch << 1) | 1 = active */
    char pad_[64 - sizeof(uint64_t)];
};

struct ebr {
    alignas(64) uint64_t epoch;          /* read by every ebr_enter: keep it alone */
    uint32_t asym;                       /* 1: the reclaimer uses membarrier */
    char pad_[64 - sizeof(uint64_t) - sizeof(uint32_t)];
    alignas(64) pthread_mutex_t lock;    /* guards limbo and pending */
    struct ebr_node *limbo;              /* retired, newest first */
    size_t pending;
    unsigned nslots;
    struct ebr_slot *slot;
};

struct ebr *ebr_create(unsigned max_threads, bool fence);
void ebr_destroy(struct ebr *e);
void ebr_retire(struct ebr *e, struct ebr_node *node, void (*free_fn)(struct ebr_node *));
void ebr_collect(struct ebr *e);
void ebr_thread_offline(struct ebr *e, unsigned tid);
size_t ebr_pending(struct ebr *e);

static inline void ebr_enter(struct ebr *e, unsigned tid)
{
    uint64_t g = __atomic_load_n(&e->epoch, __ATOMIC_RELAXED);
    uint64_t *s = &e->slot[tid].state;
    if (__builtin_expect(e->asym, 1)) {
        __atomic_store_n(s, (g << 1) | 1, __ATOMIC_RELAXED);
        __asm__ __volatile__("" ::: "memory");  /* the reclaimer's membarrier does the rest */
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    /* a locked exchange is a full barrier on x86 and cheaper than mfence */
    (void)__atomic_exchange_n(s, (g << 1) | 1, __ATOMIC_SEQ_CST);
#else
    __atomic_store_n(s, (g << 1) | 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline void ebr_exit(struct ebr *e, unsigned tid)
{
    __atomic_store_n(&e->slot[tid].state, 0, __ATOMIC_RELEASE);
}


/* ======================================================================
 * QSBR: quiescent-state-based reclamation, for tables that retire rarely.
 *
 * Scheme: P. McKenney and J. Slingwine, "Read-copy update: using execution
 * history to solve concurrency problems", PDCS 1998 (quiescent states), as in
 * liburcu's QSBR flavour (M. Desnoyers et al., "User-level implementations of
 * read-copy update", IEEE TPDS 2012) and Hart et al. (JPDC 2007, above).
 *
 *   - one global period P (starts at 1), bumped by every retire;
 *   - one padded slot per thread id: 0 while the thread is offline, else the
 *     value of P the thread read at its last quiescent point;
 *   - a thread is online between thread_init and thread_exit and holds no
 *     reference into the table between two operations, so the start of any
 *     operation is a quiescent point. clht announces one at the start of
 *     every QSBR_EVERY-th update operation (reclaim_due: a countdown in
 *     thread-local storage, one decrement and a not-taken branch, no shared
 *     access) and none in get, which therefore costs exactly what it costs
 *     without reclamation; a thread that only reads holds back frees (never
 *     safety) until it updates or goes offline;
 *   - an object retired while P was r (P then becomes r+1) is freed once every
 *     online slot holds a value > r: each online thread has passed a quiescent
 *     point after reading P = r+1, which was published after the unlink.
 * Ordering: the announcement is a release store (orders the thread's earlier
 * reads of the table before it) of an acquire load of P (orders its later
 * reads after the unlink); the reclaimer reads slots with acquire loads. No
 * per-operation barrier at all. Going online (qsbr_online) is a store, a full
 * barrier, then reads: the reclaimer's unlink, full barrier, slot read is the
 * other half of that Dekker pair.
 * Cost: per update one thread-local decrement and branch, per get nothing;
 * every QSBR_EVERY updates a load of P (a read-mostly line), a store to the
 * thread's own line and a load of `pending` (a trylock and a collect when
 * something waits). Measured with callgrind (clht-lb, hash=identity, get):
 * EBR enter/exit 17.5 instructions and 8 loads per get, QSBR 0.
 * Memory bound: a retired object waits until every online thread has done up
 * to QSBR_EVERY more updates or gone offline (thread_exit); a thread that
 * stays online but idle (or only reads) holds back reclamation (never
 * safety). With clht's doubling resizes the retired tables add up to less
 * than the live one.
 * The countdown is per thread, not per table: a thread that alternates
 * between two instances of one table type announces to whichever instance
 * it happens to be in, which may delay (never endanger) the other's frees.
 *
 * API: qsbr_create(n) / qsbr_destroy(q) (frees every pending object; no thread
 * may be operating), qsbr_online(q, tid) (thread_init), qsbr_offline(q, tid)
 * (thread_exit: offline plus a collect), qsbr_quiescent(q, tid), qsbr_retire
 * (q, node, fn) (as ebr_retire: intrusive node, fn runs later under the
 * domain's mutex), qsbr_collect(q), qsbr_pending(q).
 * ====================================================================== */

#define QSBR_EVERY 128u

struct qsbr_slot {
    alignas(64) uint64_t seen;           /* 0 = offline, else P at the last quiescent point */
    char pad_[64 - sizeof(uint64_t)];
};

struct qsbr {
    alignas(64) uint64_t period;         /* P: read at quiescent points, bumped by retire */
    uint64_t pending;                    /* retired, not yet freed (atomic) */
    char pad_[64 - 2 * sizeof(uint64_t)];
    alignas(64) pthread_mutex_t lock;    /* guards limbo and the frees */
    struct ebr_node *limbo;
    unsigned nslots;
    struct qsbr_slot *slot;
};

struct qsbr *qsbr_create(unsigned max_threads);
void qsbr_destroy(struct qsbr *q);
void qsbr_online(struct qsbr *q, unsigned tid);
void qsbr_offline(struct qsbr *q, unsigned tid);
void qsbr_retire(struct qsbr *q, struct ebr_node *node, void (*free_fn)(struct ebr_node *));
void qsbr_collect(struct qsbr *q);
void qsbr_collect_try(struct qsbr *q);
size_t qsbr_pending(struct qsbr *q);

static inline void qsbr_quiescent(struct qsbr *q, unsigned tid)
{
    __atomic_store_n(&q->slot[tid].seen, __atomic_load_n(&q->period, __ATOMIC_ACQUIRE),
                     __ATOMIC_RELEASE);
    if (__builtin_expect(__atomic_load_n(&q->pending, __ATOMIC_RELAXED) != 0, 0))
        qsbr_collect_try(q);
}

/* ======================================================================
 * reclaim_*: what clht-lb and clht-lf call. The scheme is a build-time
 * choice; QSBR is the default. Each including file gets its own thread-local
 * countdown (reclaim_left_).
 *   -DCHT_RECLAIM_EBR   the epoch scheme above (enter/exit around every op;
 *                       today's cost, for comparison)
 *   -DCHT_RECLAIM_NONE  UNSAFE, for measurement only: no per-operation work
 *                       and retired objects are freed only by destroy (an
 *                       upper bound on what reclamation costs)
 *
 *   reclaim_create(n), reclaim_destroy(r), reclaim_retire(r, node, fn)
 *   reclaim_thread_init(r, tid)   thread_init: go online
 *   reclaim_thread_exit(r, tid)   thread_exit: go offline, try to free
 *   reclaim_begin(r, tid)         before an operation's first shared read
 *   reclaim_end(r, tid)           after its last (EBR: leave the critical section)
 *   reclaim_due()                 true once in QSBR_EVERY calls (a thread-local
 *                                 countdown); the caller then calls
 *   reclaim_quiescent(r, tid)     at a point where it holds no reference into the
 *                                 table (clht: the start of an update operation,
 *                                 through an out-of-line cold function).
 *   reclaim_pending(r)            retired objects not yet freed
 * ====================================================================== */

/* initial-exec: tables link into the executable; the general-dynamic model
 * would be a __tls_get_addr call at compile time, forcing register saves
 * in every operation */
static __thread uint32_t reclaim_left_ __attribute__((unused, tls_model("initial-exec")));

#if defined(CHT_RECLAIM_EBR)
#define reclaim ebr
#define reclaim_create(n) ebr_create((n), false)
#define reclaim_destroy ebr_destroy
#define reclaim_retire ebr_retire
#define reclaim_pending ebr_pending
static inline void reclaim_thread_init(struct ebr *e, unsigned tid) { (void)e; (void)tid; }
static inline void reclaim_thread_exit(struct ebr *e, unsigned tid) { ebr_thread_offline(e, tid); }
static inline void reclaim_begin(struct ebr *e, unsigned tid) { ebr_enter(e, tid); }
static inline void reclaim_end(struct ebr *e, unsigned tid) { ebr_exit(e, tid); }
static inline bool reclaim_due(void) { return false; }
static inline void reclaim_quiescent(struct ebr *e, unsigned tid) { (void)e; (void)tid; }
#else
#define reclaim qsbr
#define reclaim_create qsbr_create
#define reclaim_destroy qsbr_destroy
#define reclaim_pending qsbr_pending
static inline void reclaim_thread_init(struct qsbr *q, unsigned tid)
{
    reclaim_left_ = QSBR_EVERY;
#if !defined(CHT_RECLAIM_NONE)
    qsbr_online(q, tid);
#else
    (void)q; (void)tid;
#endif
}
static inline void reclaim_thread_exit(struct qsbr *q, unsigned tid)
{
#if !defined(CHT_RECLAIM_NONE)
    qsbr_offline(q, tid);
#else
    (void)q; (void)tid;
#endif
}
/* Debug builds check the contract QSBR relies on: operations only between
 * thread_init and thread_exit (an offline thread's reads are not protected). */
static inline void reclaim_begin(struct qsbr *q, unsigned tid)
{
#if !defined(CHT_RECLAIM_NONE)
    assert(__atomic_load_n(&q->slot[tid].seen, __ATOMIC_RELAXED) != 0 &&
           "table operation outside thread_init/thread_exit");
#endif
    (void)q; (void)tid;
}
static inline void reclaim_end(struct qsbr *q, unsigned tid) { (void)q; (void)tid; }
static inline bool reclaim_due(void)
{
#if !defined(CHT_RECLAIM_NONE)
    return __builtin_expect(--reclaim_left_ == 0, 0);
#else
    return false;
#endif
}
static inline void reclaim_quiescent(struct qsbr *q, unsigned tid)
{
    reclaim_left_ = QSBR_EVERY;
    qsbr_quiescent(q, tid);
}
static inline void reclaim_retire(struct qsbr *q, struct ebr_node *node,
                                  void (*free_fn)(struct ebr_node *))
{
#if !defined(CHT_RECLAIM_NONE)
    qsbr_retire(q, node, free_fn);
#else
    /* only destroy frees (UNSAFE build: nothing tracks the readers) */
    pthread_mutex_lock(&q->lock);
    node->free_fn = free_fn;
    node->next = q->limbo;
    q->limbo = node;
    q->pending++;
    pthread_mutex_unlock(&q->lock);
#endif
}
#endif

#endif /* CHT_EBR_H */
