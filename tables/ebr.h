/*
 * ebr.h - epoch-based reclamation (EBR) for the tables in tables/.
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
 *   ebr_create(n)          a domain for thread ids 0..n-1; NULL when out of memory.
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
 * flavour). A full fence in every operation would serialise the cache misses
 * of consecutive operations; measured, it costs a third of the single-thread
 * throughput of clht-lb. Where membarrier is missing (old kernel, seccomp), or
 * with CHT_EBR_FENCE=1 in the environment, ebr_enter falls back to a locked
 * exchange (a full barrier).
 *
 * Cost: ebr_enter is one relaxed load of the (read-mostly) epoch line plus one
 * store to the thread's own line; ebr_exit is one store.
 * Retire/collect take a mutex and a membarrier: they are meant for rare events
 * (resizes).
 * Memory bound: an object waits for at most two epoch advances; an advance only
 * waits for the critical sections in progress, so with short operations pending
 * objects are freed by the next collect after the ones in flight end.
 */
#ifndef CHT_EBR_H
#define CHT_EBR_H

#include <pthread.h>
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

struct ebr *ebr_create(unsigned max_threads);
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

#endif /* CHT_EBR_H */
